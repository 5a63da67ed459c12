"""Every message has its Chinese translation (issue 26).

The messages are extracted from the sources with Babel in the test, with the mapping the
translators use (babel.cfg, docs/translating.md): the library's and the command line's (domain
``gouji``) from gouji_dsl/, the app's (domain ``gouji_app``) from editor/. Each must have a non-empty,
non-fuzzy msgstr in gouji_dsl/locale/zh/LC_MESSAGES/<domain>.po with the same placeholders (Babel's
checkers for ``%`` formats; the ``{name}`` fields of ``str.format`` compared here). A failure lists
the messages, so the translator sees what to add.
"""
from __future__ import annotations

import string
import sys
from pathlib import Path

import pytest

babel_extract = pytest.importorskip("babel.messages.extract", reason="Babel is in the [test] extra")
from babel.messages.pofile import read_po  # noqa: E402

from gouji_dsl import i18n  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
SOURCES = {i18n.DOMAIN: ROOT / "gouji_dsl", i18n.APP_DOMAIN: ROOT / "editor"}
PO = ROOT / "gouji_dsl" / "locale" / "{lang}" / "LC_MESSAGES" / "{domain}.po"

if not (ROOT / "babel.cfg").is_file():  # an installed copy's tests: the sources and catalogs are the checkout's
    pytest.skip("needs the checkout (babel.cfg, the sources and the .po files)", allow_module_level=True)


def _method_map() -> list[tuple[str, str]]:
    from babel.messages import frontend
    parse = getattr(frontend, "parse_mapping_cfg", None) or frontend.parse_mapping  # Babel < 2.15: the old name
    with open(ROOT / "babel.cfg", encoding="utf-8") as fh:
        method_map, _options = parse(fh)
    return method_map


def extracted(domain: str) -> dict[str | tuple[str, ...], list[str]]:
    """The msgids of ``domain`` found in its sources, each with the files:lines that use it."""
    found: dict[str | tuple[str, ...], list[str]] = {}
    root = SOURCES[domain]
    if not root.is_dir():
        return found
    for filename, lineno, message, _comments, _context in babel_extract.extract_from_dir(
            str(root), _method_map(), keywords=babel_extract.DEFAULT_KEYWORDS):
        key = message if isinstance(message, str) else tuple(m for m in message if m)
        found.setdefault(key, []).append(f"{root.name}/{filename}:{lineno}")
    return found


def _fields(text: str) -> set[str]:
    """The replacement fields of a ``str.format`` text (``{name}``, ``{n:,}``)."""
    try:
        return {f"{{{name}{'!' + conv if conv else ''}{':' + spec if spec else ''}}}"
                for _lit, name, spec, conv in string.Formatter().parse(text) if name is not None}
    except ValueError as e:
        return {f"<not a format text: {e}>"}


def problems(domain: str, lang: i18n.Language) -> list[str]:
    """What is missing or wrong in ``lang``'s catalog of ``domain``, one line each."""
    messages = extracted(domain)
    if not messages:
        return []
    po_path = Path(str(PO).format(lang=lang.value, domain=domain))
    if not po_path.is_file():
        return [f"{po_path.relative_to(ROOT)}: missing ({len(messages)} messages to translate)"]
    with po_path.open("rb") as fh:
        catalog = read_po(fh, locale=lang.value, domain=domain)
    out = []
    for msgid, where in sorted(messages.items(), key=lambda kv: str(kv[0])):
        key = msgid if isinstance(msgid, str) else msgid[0]
        msg = catalog.get(key)
        ids = [msgid] if isinstance(msgid, str) else list(msgid)
        strs = [] if msg is None else ([msg.string] if isinstance(msg.string, str) else list(msg.string))
        if msg is None or not any(strs) or not all(strs):
            out.append(f"{where[0]}: no {lang.value} translation: {key!r}")
        elif msg.fuzzy:
            out.append(f"{where[0]}: fuzzy (needs review) in {lang.value}: {key!r}")
        else:
            errors = [str(e) for e in msg.check(catalog)]
            wanted = set().union(*(_fields(i) for i in ids))
            errors += [f"placeholders {sorted(_fields(s))} instead of {sorted(wanted)}" for s in strs
                       if _fields(s) != wanted]
            out.extend(f"{where[0]}: {lang.value} translation of {key!r}: {e}" for e in errors)
    return out


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.APP_DOMAIN])
def test_every_message_has_a_chinese_translation(domain):
    found = problems(domain, i18n.Language.ZH)
    assert not found, f"{len(found)} message(s) of domain {domain!r} without a good Chinese translation " \
                      "(docs/translating.md):\n" + "\n".join(found)


def test_the_check_shows_a_missing_translation(tmp_path, monkeypatch):
    """The check itself: a message without a translation, a fuzzy one and one with other placeholders
    are each named."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "m.py").write_text('from gouji_dsl.i18n import _\n_("ok {n}")\n_("new one")\n_("fuzzy")\n_("bad {name}")\n',
                              encoding="utf-8")
    po = tmp_path / "locale" / "zh" / "LC_MESSAGES" / "t.po"
    po.parent.mkdir(parents=True)
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=utf-8\\n"\n\n'
                  'msgid "ok {n}"\nmsgstr "好 {n}"\n\n#, fuzzy\nmsgid "fuzzy"\nmsgstr "模糊"\n\n'
                  'msgid "bad {name}"\nmsgstr "坏 {nmae}"\n', encoding="utf-8")
    monkeypatch.setitem(SOURCES, "t", src)
    monkeypatch.setattr(sys.modules[__name__], "PO", tmp_path / "locale" / "{lang}" / "LC_MESSAGES" / "{domain}.po")
    found = "\n".join(problems("t", i18n.Language.ZH))
    assert "no zh translation: 'new one'" in found
    assert "fuzzy (needs review) in zh: 'fuzzy'" in found
    assert "'bad {name}'" in found and "placeholders" in found
    assert "ok {n}" not in found
    assert "src/m.py:3" in found  # where the message is used


def test_compiled_catalogs_are_current():
    """A compiled catalog beside its .po (a development checkout, an editable install) is not older than
    the .po: else the program shows the old translations (python setup.py build_ext --inplace)."""
    stale = [str(po.relative_to(ROOT)) for po in (ROOT / "gouji_dsl" / "locale").glob("*/LC_MESSAGES/*.po")
             if po.with_suffix(".mo").is_file() and po.with_suffix(".mo").stat().st_mtime < po.stat().st_mtime]
    assert not stale, f"compiled catalogs older than their .po (run python setup.py build_ext --inplace): {stale}"


def _calls_at_import(tree) -> list[int]:
    """Lines of ``_(...)`` / ``ngettext(...)`` calls that run when the module is imported (module or class
    level, default values, decorators): translated before the language is chosen."""
    import ast
    out: list[int] = []

    def visit(node, in_function: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            for d in getattr(node, "decorator_list", []):
                visit(d, in_function)
            for d in node.args.defaults + node.args.kw_defaults:
                if d is not None:
                    visit(d, in_function)
            for child in (node.body if isinstance(node.body, list) else [node.body]):
                visit(child, True)
            return
        if not in_function and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in ("_", "ngettext"):
            out.append(node.lineno)
        for child in ast.iter_child_nodes(node):
            visit(child, in_function)

    visit(tree, False)
    return out


@pytest.mark.parametrize("domain", [i18n.DOMAIN, i18n.APP_DOMAIN])
def test_no_message_is_translated_at_import_time(domain):
    """The language is chosen at run time (--lang): a table of messages marks them with N_() and the code
    shows them with _(text)."""
    import ast
    root = SOURCES[domain]
    found = [f"{path.relative_to(ROOT)}:{line}" for path in sorted(root.rglob("*.py"))
             for line in _calls_at_import(ast.parse(path.read_text(encoding="utf-8")))]
    assert not found, "translated at import time (use N_() there and _() where shown):\n" + "\n".join(found)
