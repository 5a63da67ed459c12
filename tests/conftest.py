import functools

import pytest
from click.testing import CliRunner

from gouji_dsl.ruleset.graph import load_graph


@pytest.fixture(autouse=True, scope="session")
def _crash_reports_in_a_temporary_folder(tmp_path_factory):
    """Crash reports written by tests (gouji's internal-error path) go to a temporary folder."""
    mp = pytest.MonkeyPatch()
    mp.setenv("GOUJI_CRASH_DIR", str(tmp_path_factory.mktemp("crashes")))
    yield
    mp.undo()


@pytest.fixture(autouse=True, scope="session")
def _english_unless_a_test_asks(tmp_path_factory):
    """The suite reads English whatever the machine's locale (issue 26): GOUJI_LANG unset and a Chinese
    locale variable set to C.UTF-8; a test that wants Chinese says so (``--lang zh``, ``GOUJI_LANG=zh``)."""
    import os
    mp = pytest.MonkeyPatch()
    mp.delenv("GOUJI_LANG", raising=False)
    for var in ("LC_ALL", "LC_MESSAGES", "LANG"):
        if os.environ.get(var, "").lower().startswith("zh"):
            mp.setenv(var, "C.UTF-8")
    yield
    mp.undo()


@pytest.fixture(autouse=True)
def _language_reset():
    """A command run in-process (click's CliRunner) with ``--lang zh`` leaves no Chinese to the next test."""
    yield
    from gouji_dsl import i18n
    i18n._current = None


@pytest.fixture(autouse=True)
def _every_notification_is_kept(monkeypatch):
    """Every notification an app shows is kept in ``app.notes_seen`` (title, message, markup), in order:
    Textual forgets a notification when its timeout passes (2–15 s), so a test that counted
    ``app._notifications`` on a loaded machine could wait forever for one that had already expired
    (tests/pilot_helpers.py :func:`notes`)."""
    from types import SimpleNamespace

    from textual.app import App
    real = App.notify

    def notify(self, message, *args, **kw):
        self.__dict__.setdefault("notes_seen", []).append(
            SimpleNamespace(title=kw.get("title", ""), message=message, markup=kw.get("markup", True)))
        return real(self, message, *args, **kw)
    monkeypatch.setattr(App, "notify", notify)


@pytest.fixture
def zh_catalog():
    """The Chinese catalog is compiled: the tests of Chinese output ask for it
    (``pytestmark = pytest.mark.usefixtures("zh_catalog")``) rather than fail on English."""
    from gouji_dsl import i18n
    assert i18n.has_catalog(i18n.Language.ZH), \
        "the Chinese catalog is not compiled: python setup.py build_ext --inplace (docs/translating.md)"


@pytest.fixture
def ruleset_file(tmp_path):
    """``ruleset_file(name, text)``: the path of ``NAME.yaml`` in the test's temporary folder, holding ``text``."""
    def write(name: str, text: str):
        path = tmp_path / f"{name}.yaml"
        path.write_text(text, encoding="utf-8")
        return path
    return write


#: a variant that renames the terms (docs/ruleset-format.md, words.terms): the words2 fixture
WORDS = """ruleset: words2
extends: online
languages: [zh, en]
words:
  terms:
    burn: {zh: 火牌, en: fire}
    revolution: {zh: 造反, en: uprising}
    yield: {zh: 放行, en: letgo}
    pass: {zh: 不要, en: nope}
    gouji: {zh: 大级牌, en: bigplay}
    place: {zh: 出科, en: goout}
    show_count: {zh: 亮张, en: showcards}
    sweep: {zh: 扫三家, en: broom}
"""


@pytest.fixture
def words2(ruleset_file):
    """The path of ``words2.yaml`` (:data:`WORDS`): online with its terms renamed, for the tests of a ruleset's words."""
    return ruleset_file("words2", WORDS)


@functools.cache
def _graph(name):
    return load_graph(name)


@pytest.fixture
def online():
    return _graph("online")


@pytest.fixture
def graph_of():
    return _graph


@pytest.fixture
def runner() -> CliRunner:
    """click's test runner for the commands, with stderr apart from stdout (every test reads the two apart)."""
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


REFUSED_BY_THE_FLOW = """\
ruleset: discards-marked
extends: rulebook
title: a seat that throws cards away is marked (a rule the native game flow does not run)
rules:
  - id: point.threw-away
    on: after_discard
    mark: threw_away
    says: "A seat that threw cards away is marked."
"""


@pytest.fixture
def refused_by_the_flow(tmp_path) -> str:
    """The path of a ruleset the native game flow refuses (an ``after_discard`` rule, which it does
    not ask: flow.py NOT_PLAYED), so its generated module plays it move by move in Python. Every
    bundled ruleset and example is played natively (positional-jokers too, since h24p)."""
    path = tmp_path / "discards-marked.yaml"
    path.write_text(REFUSED_BY_THE_FLOW, encoding="utf-8")
    return str(path)
