"""The app in Chinese (issue 26): every message of the app (gettext domain ``gouji_app``) has a
Chinese translation, the language setting of the ``gouji`` command, and snapshots in Chinese."""
from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from app_zh import APP_PO, EDITOR, compiled, speaking
from babel.messages.extract import extract_from_dir
from babel.messages.pofile import read_po
from click.testing import CliRunner
from pilot_helpers import home_ready

from gouji_app import cli as app_cli
from gouji_app.app import GoujiApp
from gouji_app.i18n import _
from gouji_dsl import i18n, resources
from gouji_dsl.i18n import Language

PLACEHOLDER = re.compile(r"\{[^{}]*\}")


def app_messages() -> dict[str, list[str]]:
    """Every message of the app (Babel's extraction from editor/: _, N_, ngettext), with where it is
    (a plural message under its singular)."""
    out: dict[str, list[str]] = {}
    for filename, lineno, message, _comments, _context in extract_from_dir(str(EDITOR)):
        m = message[0] if isinstance(message, tuple) else message
        if m:
            out.setdefault(m, []).append(f"editor/{filename}:{lineno}")
    return out


def test_every_app_message_has_a_chinese_translation():
    with APP_PO.open("rb") as f:
        catalog = read_po(f, locale="zh")
    translated: dict[str, tuple[str, set[str]]] = {}  # message → (Chinese, the placeholders its forms have)
    for msg in catalog:
        ids = msg.id if isinstance(msg.id, tuple) else (msg.id,)
        strings = msg.string if isinstance(msg.string, tuple) else (msg.string,)
        if msg.id and not msg.fuzzy and all(strings):
            translated[ids[0]] = (strings[0], {p for i in ids for p in PLACEHOLDER.findall(i)})
    messages = app_messages()
    missing = [f"{where[0]}: {m!r}" for m, where in messages.items() if m not in translated]
    assert not missing, f"{len(missing)} app messages without Chinese in {APP_PO.name}:\n" + "\n".join(missing)
    # (Chinese has one plural form: it may name {n} where the English singular says "one")
    wrong = [f"{where[0]}: {m!r} → {translated[m][0]!r}" for m, where in messages.items()
             if not set(PLACEHOLDER.findall(translated[m][0])) <= translated[m][1]
             or set(PLACEHOLDER.findall(m)) - set(PLACEHOLDER.findall(translated[m][0]))]
    assert not wrong, "translations whose {placeholders} differ from the message's:\n" + "\n".join(wrong)


def test_the_catalog_compiles_and_speaks_chinese():
    assert compiled().gettext("Quit") == "退出"
    with speaking(Language.ZH):
        assert _("Quit") == "退出"
    with speaking(Language.EN):
        assert _("Quit") == "Quit"


def _binds_underscore(tree: ast.AST) -> list[int]:
    lines = [n.lineno for n in ast.walk(tree) if isinstance(n, ast.Name) and n.id == "_" and isinstance(n.ctx, ast.Store)]
    lines += [n.lineno for n in ast.walk(tree) if isinstance(n, ast.arg) and n.arg == "_"]
    return lines


def test_no_module_that_translates_binds_underscore():
    """``for _, x in ...`` or ``lambda _: ...`` in a module that imports ``_`` (the translation
    function) makes a later ``_("...")`` in that scope call a value instead of translating."""
    bad = []
    for path in sorted(EDITOR.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        imports_it = any(isinstance(n, ast.ImportFrom) and n.module and n.module.endswith("i18n")
                         and any(a.name == "_" and a.asname is None for a in n.names) for n in ast.walk(tree))
        if imports_it:
            bad += [f"{path.relative_to(EDITOR.parent)}:{line}" for line in _binds_underscore(tree)]
    assert not bad, "rebinds _ (the translation function):\n" + "\n".join(bad)


# ------------------------------------------------------------------------------ the language setting
@pytest.fixture
def no_app(monkeypatch):
    calls: list[Language] = []
    monkeypatch.setattr(app_cli, "run_app", lambda **kw: calls.append(i18n.current()))
    before = i18n.current()
    yield calls
    i18n.use(before)


@pytest.mark.parametrize("args,env,lang", [
    (["--lang", "zh"], {}, Language.ZH),
    ([], {"GOUJI_LANG": "zh"}, Language.ZH),
    ([], {"LANG": "zh_CN.UTF-8", "LC_ALL": "", "LC_MESSAGES": "", "GOUJI_LANG": ""}, Language.ZH),
    (["--lang", "en"], {"LANG": "zh_CN.UTF-8"}, Language.EN),
    ([], {"LANG": "C", "LC_ALL": "", "LC_MESSAGES": "", "GOUJI_LANG": ""}, Language.EN),
])
def test_gouji_opens_the_app_in_the_language_chosen(no_app, args, env, lang):
    res = CliRunner().invoke(app_cli.gouji, args, env=env)
    assert res.exit_code == 0, res.output
    assert no_app == [lang]


@pytest.mark.parametrize("args,env,source", [
    (["--lang", "fr"], {}, "--lang"),
    ([], {"GOUJI_LANG": "klingon"}, "GOUJI_LANG"),
    (["edit", "--lang", "xx", "a.yaml"], {}, "--lang"),
])
def test_a_bad_language_is_an_error(no_app, args, env, source):
    res = CliRunner().invoke(app_cli.gouji, args, env=env)
    assert res.exit_code == 2 and "unknown language" in res.output and source in res.output
    assert no_app == []


def test_a_command_s_own_lang_wins(no_app):
    res = CliRunner().invoke(app_cli.gouji, ["--lang", "en", "edit", "--lang", "zh", "a.yaml"])
    assert res.exit_code == 0, res.output
    assert no_app == [Language.ZH]


def test_serve_starts_its_apps_in_its_language():
    from gouji_app.web import app_command
    assert app_command(None, "zh").split()[-2:] == ["--lang", "zh"]
    assert "--lang" not in app_command(None)


# ------------------------------------------------------------------------------ snapshots in Chinese


@pytest.fixture
def zh_world(tmp_path: Path, monkeypatch) -> Path:
    """The bundled folder holds town-root only, the workspace town (as tests/test_editor.py's snapshots)."""
    from test_editor import ROOT, TOWN
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    (bundled / "town-root.yaml").write_text(ROOT, encoding="utf-8")
    monkeypatch.setattr(resources, "rules_dir", lambda: bundled)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "town.yaml").write_text(TOWN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    with speaking(Language.ZH):
        yield folder


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_home_zh(zh_world: Path, snap_compare, size):
    assert snap_compare(GoujiApp(workspace=Path("rules"), cursor_blink=False), terminal_size=size, run_before=home_ready)


@pytest.fixture
def zh():
    with speaking(Language.ZH):
        yield


def _play_app():
    from test_play import app_for
    return app_for("online", seed=7)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_play_zh(zh, snap_compare, size):
    from test_play import steady
    assert snap_compare(_play_app(), terminal_size=size, run_before=steady)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_why_dialog_zh(zh, snap_compare, size):
    """A refused move (seat 1 holds one ace: AAA) and F5, its explanation."""
    from pilot_helpers import footer_settled, wait_for
    from test_play import steady

    from gouji_app.play.dialogs import WhyScreen

    async def why(pilot):
        await steady(pilot)
        await pilot.press("A", "A", "A", "enter")
        await pilot.pause()
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, WhyScreen), what="the why dialog")
        await pilot.pause()
        await footer_settled(pilot)

    assert snap_compare(_play_app(), terminal_size=size, run_before=why)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_new_variant_dialog_zh(zh_world: Path, snap_compare, size):
    """n on the home screen: the dialog's sentence, labels and buttons in Chinese, the label column aligned."""
    from pilot_helpers import footer_settled, wait_for

    from gouji_app.screens import NewVariantScreen

    async def dialog(pilot):
        await home_ready(pilot)
        await pilot.press("n")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewVariantScreen), what="the new-variant dialog")
        for w in pilot.app.screen.query("Input"):
            w.cursor_blink = False
        await pilot.pause()
        await footer_settled(pilot)

    assert snap_compare(GoujiApp(workspace=Path("rules"), cursor_blink=False), terminal_size=size, run_before=dialog)


#: a file with problems whose hints are Chinese sentences: the problems panel wraps them between
#: characters, with the [Code] and the hint in full-width brackets (a quoted ': ' never cut)
BROKEN = """\
ruleset: town
extends: town-root
title: Our town
rules: []
rules: []
description: a: b
"""


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_editor_problems_zh(zh_world: Path, snap_compare, size):
    from pilot_helpers import editor_ready

    (zh_world / "town.yaml").write_text(BROKEN, encoding="utf-8")

    async def opened(pilot):
        await editor_ready(pilot)
        await pilot.pause()

    app = GoujiApp(workspace=Path("rules"), open_path=Path("rules/town.yaml"), cursor_blink=False)
    assert snap_compare(app, terminal_size=size, run_before=opened)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_compare_screen_zh(zh_world: Path, snap_compare, size):
    """The compare screen's rules tab: 设置 / 规则 before each difference, the sides' files in full-width
    brackets, the counts without a stray space, '（town-root 里没有）'."""
    from pilot_helpers import footer_settled
    from test_compare_screen import compared

    async def ready(pilot):
        await compared(pilot)
        await pilot.press("down", "down")
        await pilot.pause()
        await footer_settled(pilot)

    app = GoujiApp(workspace=Path("rules"), cursor_blink=False, compare={"a": "town-root", "b": "town"})
    assert snap_compare(app, terminal_size=size, run_before=ready)


@pytest.mark.parametrize("size", [(120, 40), (80, 24)], ids=["120x40", "80x24"])
def test_snapshot_scoreboard_zh(zh, snap_compare, size):
    """F11 after game 1 of rulebook's match: the teams 联邦 1 / 联邦 2 (seed 001), every column in 80
    columns too (shorter headings, the totals in one column)."""
    from pilot_helpers import footer_settled, wait_for
    from test_play import app_for, steady

    from gouji_app.play.dialogs import ScoreboardScreen

    async def board(pilot):
        await steady(pilot)
        s = pilot.app.play_screen.session
        await pilot.press("f7")
        await wait_for(pilot, lambda: s.state.over, what="game 1 over")
        pilot.app.clear_notifications()  # (a toast's time out would make the picture depend on the machine's speed)
        await pilot.press("f11")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, ScoreboardScreen), what="the scoreboard")
        await pilot.pause()
        await footer_settled(pilot)

    assert snap_compare(app_for("rulebook", seed=3), terminal_size=size, run_before=board)


def test_the_scoreboard_fits_80_columns_in_both_languages():
    """Every heading of the scoreboard is shown whole at 80x24 (the second team's total was cut off)."""
    import asyncio

    from pilot_helpers import wait_for
    from test_play import app_for

    from gouji_app.play.dialogs import ScoreboardScreen

    async def scenario(lang):
        with speaking(lang):
            app = app_for("rulebook", seed=3)
            async with app.run_test(size=(80, 24)) as pilot:
                await pilot.pause()
                s = app.play_screen.session
                await pilot.press("f7")
                await wait_for(pilot, lambda: s.state.over, what="game 1 over")
                await pilot.press("f11")
                await wait_for(pilot, lambda: isinstance(app.screen, ScoreboardScreen), what="the scoreboard")
                await pilot.pause()
                table = app.screen.query_one("#scoreboard")
                used = sum(c.get_render_width(table) for c in table.columns.values())
                assert used <= table.scrollable_content_region.width, (lang, used)
                labels = [str(c.label) for c in table.columns.values()]
                assert labels[-1] == _("totals") and _("T{team}").format(team=1) in labels[4]
                row = [str(c) for c in table.get_row_at(0)]
                totals = s.match_totals()
                assert row[-1] == f"{totals[1]:+} / {totals[2]:+}"

    for lang in (Language.EN, Language.ZH):
        asyncio.run(scenario(lang))


def test_a_page_address_chooses_the_language_of_its_tab(monkeypatch):
    """``gouji serve``: ``&lang=zh`` in the page's address starts that tab's app with ``--lang zh``;
    a value that is no language is refused."""
    pytest.importorskip("textual_serve")
    import asyncio

    from test_serve import SECRET, serve

    from gouji_app.web import server as web_server

    commands: list[str] = []

    class Recording(web_server.GoujiAppService):
        def __init__(self, command, **kw):
            commands.append(command)
            super().__init__(command, **kw)
    monkeypatch.setattr(web_server, "GoujiAppService", Recording)

    async def test(s) -> None:
        async with s.session.get(s.base + f"/?key={SECRET}&lang=zh") as r:
            assert r.status == 200 and f"/ws/{SECRET}/zh\"" in await r.text()
        async with s.session.get(s.base + f"/?key={SECRET}&lang=fr") as r:
            assert r.status == 400 and "no language" in await r.text()
        async with s.session.get(s.base + f"/?key={SECRET}") as r:
            assert f"/ws/{SECRET}\"" in await r.text()
        ws = await s.connect(query="")
        await ws.close()
        ws = await asyncio.wait_for(s.session.ws_connect(f"ws://127.0.0.1:{s.port}/ws/{SECRET}/zh",
                                                         headers={"Origin": s.origin}), 30)
        await ws.close()

    serve(test)
    assert len(commands) == 2 and "--lang" not in commands[0] and commands[1].endswith(" --lang zh")


def test_the_editor_help_page_in_chinese():
    from gouji_app.helptext import help_markdown
    with speaking(Language.ZH):
        zh = help_markdown([("f1", "帮助")])
    en = help_markdown([("f1", "Help")])
    assert zh.startswith("# 编写够级规则集") and "| 按键 | 作用 |" in zh and "| f1 | 帮助 |" in zh
    assert en.startswith("# Writing a Gouji ruleset") and "| key | action |" in en
    assert "`settings.counters`" in zh and "{" not in zh.split("## ")[1][:20]  # the template was filled in


def test_a_title_given_per_language_is_listed_in_the_active_language(tmp_path: Path):
    from gouji_app.workspace import Workspace
    from gouji_dsl.ruleset.spec import said
    (tmp_path / "town.yaml").write_text("ruleset: town\nextends: online\ntitle: {en: Our town, zh: 我们镇}\n"
                                        "description: {en: Rules of our town., zh: 我们镇的规则。}\n", encoding="utf-8")
    entry = next(e for e in Workspace(tmp_path).entries() if e.name == "town")
    with speaking(Language.ZH):
        assert (said(entry.title), said(entry.description)) == ("我们镇", "我们镇的规则。")
    with speaking(Language.EN):
        assert said(entry.title) == "Our town"
