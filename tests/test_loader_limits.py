"""Issue 11, "Loader" and "Files read": every input class is a clean positioned error with a stable
code, within bounded time and memory, through the library and the CLI — never a traceback, a hang
or a file read that should not be."""
from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.ruleset.load import checking, finding, reading
from gouji_dsl.ruleset.load.checking import load_text
from gouji_dsl.ruleset.load.finding import find_ruleset
from gouji_dsl.ruleset.load.resolving import load_chain, resolve, resolve_text
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def errors(fn, *args, **kw) -> list[Diagnostic]:
    with pytest.raises(GoujiError) as info:
        fn(*args, **kw)
    return info.value.diagnostics


def codes(fn, *args, **kw) -> set[str]:
    return {d.code for d in errors(fn, *args, **kw)}


def cli_run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output and "Traceback" not in (res.stderr or "")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


# ------------------------------------------------------------------------------ limits
def test_a_4301_digit_integer_is_a_positioned_error_not_a_value_error():
    text = "ruleset: big\nextends: online\nsettings:\n  seats: 1" + "0" * 4300 + "\n"
    (d,) = errors(resolve_text, text, "big.yaml")
    assert d.code == Code.NUMBER_TOO_LARGE and (d.line, d.col) == (4, 10)
    # a number that is long but allowed by YAML's int syntax, and infinities
    for value in ("1" + "0" * 20, "1.0e+400", ".inf", ".nan"):
        (d,) = errors(resolve_text, f"ruleset: big\nextends: online\nsettings:\n  x: {value}\n", "big.yaml")
        assert d.code == Code.NUMBER_TOO_LARGE, value


def test_a_long_source_line_is_cut_around_the_caret():
    text = "ruleset: big\nextends: online\nsettings:\n  seats: 1" + "0" * 4300 + "\n"
    shown = errors(resolve_text, text, "big.yaml")[0].format()
    assert max(len(line) for line in shown.splitlines()) < 250 and "…" in shown


@pytest.mark.parametrize("text", ["!!timestamp", "ruleset: t\ntitle: !!timestamp 2001-01-01\n",
                                  "ruleset: t\ntitle: !!binary aGVsbG8=\n", "ruleset: t\nsettings: !!set {a, b}\n",
                                  "ruleset: t\ntitle: !custom x\n", "!!python/object:os.system {}\n"])
def test_yaml_tags_are_refused(text):
    assert Code.YAML_TAG in codes(load_text, text, "t.yaml")


def test_a_date_written_plain_stays_text():
    raw = load_text("ruleset: t\ntitle: 2001-12-14\n", "t.yaml")
    assert raw.data["title"] == "2001-12-14"


def test_nesting_500_deep_is_refused_without_recursion_error():
    flow = "ruleset: deep\nsettings:\n  x: " + "[" * 500 + "]" * 500 + "\n"
    block = "ruleset: deep\nsettings:\n  x:\n" + "".join("  " * (i + 2) + f"k{i}:\n" for i in range(500)) + "  " * 502 + "1\n"
    for text in (flow, block):
        ds = errors(load_text, text, "deep.yaml")
        assert [d.code for d in ds] == [Code.TOO_DEEP]
    assert reading.MAX_NESTING >= 8  # the bundled rulesets nest at most 5 levels


def test_the_377_byte_alias_bomb_fails_fast(tmp_path):
    lol = "[" + ",".join(['"lol"'] * 9) + "]"
    levels = ["a: &a " + lol] + [f"{c}: &{c} [" + ",".join([f"*{p}"] * 9) + "]" for p, c in zip("abcdefgh", "bcdefghi")]
    text = "ruleset: bomb\nextends: online\nsettings:\n  x:\n" + "".join(f"    {line}\n" for line in levels)
    ds = errors(resolve_text, text, str(tmp_path / "bomb.yaml"))
    assert {d.code for d in ds} == {Code.YAML_ALIAS}
    assert len({d.line for d in ds}) == len(levels) - 1


def test_aliases_and_merge_keys_are_refused_anywhere():
    assert Code.YAML_ALIAS in codes(load_text, "ruleset: a\ntitle: &t x\ndescription: *t\n", "a.yaml")
    assert Code.YAML_ALIAS in codes(load_text, "ruleset: a\nsettings: {*k : 1}\n", "a.yaml")
    assert Code.YAML_MERGE_KEY in codes(load_text, "ruleset: a\nsettings:\n  <<: {x: 1}\n", "a.yaml")


def test_complex_keys_and_several_documents_are_refused():
    assert Code.WRONG_TYPE in codes(load_text, "ruleset: a\nsettings:\n  ? [a, b]\n  : 1\n", "a.yaml")
    assert Code.YAML_SYNTAX in codes(load_text, "ruleset: a\n---\nruleset: b\n", "a.yaml")


def test_control_characters_and_non_utf8_files(tmp_path):
    (d,) = errors(load_text, "ruleset: a\ntitle: x\x00y\n", "a.yaml")
    assert d.code == Code.NOT_TEXT and (d.line, d.col) == (2, 9)
    p = tmp_path / "latin.yaml"
    p.write_bytes("ruleset: a\ntitle: caf\xe9\n".encode("latin-1"))
    (d,) = errors(resolve, p)
    assert d.code == Code.NOT_TEXT and d.line == 2


def test_file_size_limit(tmp_path, monkeypatch):
    monkeypatch.setattr(reading, "MAX_FILE_CHARS", 1000)
    p = write(tmp_path, "big.yaml", "ruleset: big\ndescription: " + "x" * 5000 + "\n")
    (d,) = errors(resolve, p)
    assert d.code == Code.FILE_TOO_LARGE
    (d,) = errors(load_text, "ruleset: big\ndescription: " + "x" * 1200 + "\n", "big.yaml")
    assert d.code == Code.FILE_TOO_LARGE


def test_rules_per_file_limit(monkeypatch):
    monkeypatch.setattr(checking, "MAX_RULES_PER_FILE", 100)  # base.yaml has about 50
    rules = "".join(f"  - id: r.n{i}\n    on: follow\n    allow: true\n" for i in range(101))
    (d,) = errors(resolve_text, "ruleset: many\nextends: online\nrules:\n" + rules, "many.yaml")
    assert d.code == Code.TOO_MANY_RULES and d.line == 3


def test_a_folder_or_a_device_is_not_read(tmp_path):
    (tmp_path / "dir.yaml").mkdir()
    assert codes(resolve, tmp_path / "dir.yaml") == {Code.NOT_A_RULESET}
    if os.path.exists("/dev/zero"):
        assert codes(resolve, "/dev/zero") == {Code.NOT_A_RULESET}


# ------------------------------------------------------------------------------ files read
SECRET = "root:$6$secret-hash:19000:0:99999:7:::\n"


@pytest.fixture
def tree(tmp_path):
    """rules/ (the user's folder) beside secret/ (a folder nothing may read)."""
    write(tmp_path, "secret/shadow", SECRET)
    write(tmp_path, "secret/other.yaml", "ruleset: other\nextends: online\n")
    write(tmp_path, "rules/notes.yaml", "password: hunter2\n")
    write(tmp_path, "rules/sub/parent.yaml", "ruleset: parent\nextends: online\n")
    return tmp_path


@pytest.mark.parametrize("ref, code", [
    ("../secret/shadow", Code.PATH_NOT_ALLOWED),
    ("../../../../../../etc/shadow", Code.PATH_NOT_ALLOWED),
    ("../secret/other.yaml", Code.PATH_NOT_ALLOWED),
    ("sub/../../secret/other.yaml", Code.PATH_NOT_ALLOWED),
    ("/etc/passwd", Code.PATH_NOT_ALLOWED),
    ("notes.yaml", Code.NOT_A_RULESET),
    ("sub", Code.EXTENDS_NOT_FOUND),
    ("a" * 300, Code.EXTENDS_NOT_FOUND),  # too long: no OSError
    ("a/" * 150 + "x.yaml", Code.EXTENDS_NOT_FOUND),
])
def test_extends_reads_only_rulesets_in_allowed_folders(tree, ref, code):
    child = write(tree, "rules/child.yaml", f"ruleset: child\nextends: {ref}\n")
    (d,) = errors(resolve, child)
    assert d.code == code and (d.path, d.line, d.col) == (str(child), 2, 10)
    text = GoujiError([d]).format()
    assert "secret-hash" not in text and "hunter2" not in text  # nothing of the refused file is shown
    if code == Code.PATH_NOT_ALLOWED:
        assert "--rules-path" in d.hint and "GOUJI_RULES_PATH" in d.hint


def test_extends_may_use_the_folder_below_and_a_named_rules_path(tree, monkeypatch):
    child = write(tree, "rules/child.yaml", "ruleset: child\nextends: sub/parent.yaml\n")
    assert resolve(child).chain[1].endswith("parent.yaml")
    other = write(tree, "rules/other-child.yaml", "ruleset: other-child\nextends: ../secret/other.yaml\n")
    assert Code.PATH_NOT_ALLOWED in codes(resolve, other)
    assert resolve(other, search=[tree / "secret"]).chain[1].endswith("other.yaml")
    monkeypatch.setenv(finding.RULES_PATH_ENV, str(tree / "secret"))
    assert resolve(other).chain[1].endswith("other.yaml")
    by_name = write(tree, "rules/by-name.yaml", "ruleset: by-name\nextends: other\n")
    assert resolve(by_name).chain[1].endswith("other.yaml")  # names are looked up in the rules path too


def test_a_symlink_out_of_the_folder_is_refused(tree):
    link = tree / "rules" / "link.yaml"
    try:
        link.symlink_to(tree / "secret" / "other.yaml")
    except OSError:
        pytest.skip("no symlinks here")
    child = write(tree, "rules/child.yaml", "ruleset: child\nextends: link.yaml\n")
    assert codes(resolve, child) == {Code.PATH_NOT_ALLOWED}


def test_a_scenario_or_record_ruleset_goes_through_find_ruleset(tree):
    scenario = tree / "rules" / "cases.yaml"
    assert find_ruleset("sub/parent.yaml", referrer=scenario).name == "parent.yaml"
    assert find_ruleset("online", referrer=scenario).name == "online.yaml"
    for ref, code in (("../secret/shadow", Code.PATH_NOT_ALLOWED), ("notes.yaml", Code.NOT_A_RULESET),
                      ("/etc/passwd", Code.PATH_NOT_ALLOWED), ("x" * 300, Code.RULESET_NOT_FOUND)):
        (d,) = errors(find_ruleset, ref, referrer=scenario)
        assert d.code == code and "secret-hash" not in d.format() and "hunter2" not in d.format()
    chain = load_chain("../secret/other.yaml", referrer=scenario)
    assert chain.resolved is None and chain.errors[0].code == Code.PATH_NOT_ALLOWED


def test_the_file_the_user_names_is_read_where_it_is(tree):
    assert resolve(tree / "secret" / "other.yaml").name == "other"


def test_cli_extends_shadow_never_echoes_the_file(tree):
    child = write(tree, "rules/child.yaml", "ruleset: child\nextends: ../../../../etc/shadow\n")
    for args in (["validate", str(child)], ["show", str(child)], ["doc", str(child)],
                 ["simulate", str(child), "--games", "1"], ["validate", "--format", "json", str(child)]):
        res = cli_run(*args)
        assert res.exit_code == 1 and "PathNotAllowed" in res.output or "leaves the folders" in res.stderr
    res = cli_run("--rules-path", str(tree / "secret"), "validate",
                  str(write(tree, "rules/c2.yaml", "ruleset: c2\nextends: ../secret/other.yaml\n")))
    assert res.exit_code == 0, res.stderr


@pytest.mark.parametrize("text", [
    "ruleset: big\nsettings:\n  seats: 1" + "0" * 4300 + "\n",
    "!!timestamp",
    "ruleset: deep\nsettings:\n  x: " + "[" * 500 + "]" * 500 + "\n",
    "ruleset: longext\nextends: " + "a" * 300 + "\n",
])
def test_cli_commands_give_a_clean_error(tmp_path, text):
    p = tmp_path / "bad.yaml"
    p.write_text(text, encoding="utf-8")
    for args in (["validate", str(p)], ["show", str(p)], ["doc", str(p)], ["simulate", str(p), "--games", "1"]):
        res = cli_run(*args)
        assert res.exit_code == 1, (args, res.output)
        assert f"{p}:" in res.stderr


@pytest.mark.parametrize("setting, code", [("seats: 1_000_000", Code.OUT_OF_RANGE),
                                           ("deck: {decks: 100000}", Code.OUT_OF_RANGE)])
def test_seats_and_decks_beyond_the_engine_are_refused_at_validation(tmp_path, setting, code):
    # `seats: 1_000_000` used to validate and then hang the first game
    from gouji_dsl.ruleset.check import check
    p = write(tmp_path, "big.yaml", f"ruleset: big\nextends: online\nsettings:\n  {setting}\n")
    result = check(p)
    assert [d.code for d in result.errors] == [code] and result.errors[0].line == 4
    res = cli_run("simulate", str(p), "--games", "1")
    assert res.exit_code == 1 and f"{p}:4:" in res.stderr


def test_a_scenarios_ruleset_is_read_only_from_allowed_places(tree):
    from gouji_dsl.tools.scenarios import run_file
    for ref in ("../secret/shadow", "/etc/passwd", "../secret/other.yaml", "notes.yaml"):
        scen = write(tree, "rules/cases.yaml", f"ruleset: {ref}\ncases:\n  - name: x\n    classify: '33'\n    expect: {{valid: true}}\n")
        (r,) = run_file(scen)
        text = " ".join(r.errors)
        assert not r.passed and "secret-hash" not in text and "hunter2" not in text
        assert "leaves the folders" in text or "absolute paths" in text or "not a ruleset" in text, text
    scen = write(tree, "rules/cases.yaml", "ruleset: sub/parent.yaml\ncases:\n  - name: x\n    classify: '33'\n"
                 "    expect: {valid: true}\n")
    (r,) = run_file(scen)
    assert r.passed, r.errors


def test_a_huge_setting_value_of_the_wrong_type_is_quoted_shortened(tmp_path):
    """A 100,000-character text where a map of ranks belongs was printed whole in the message."""
    p = write(tmp_path, "big.yaml", "ruleset: big\nextends: online\nsettings:\n  gouji_minimum: \"" + "x" * 100_000 + "\"\n")
    r = cli_run("validate", str(p))
    assert r.exit_code == 1 and "[SettingTypeMismatch]" in r.output
    first = r.output.splitlines()[0]
    assert "… (100,002 characters)" in first and len(first) < 300, first[:400]
