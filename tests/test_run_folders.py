"""Run folders and duel save files as a careless user or an attacker leaves them (issue 22 items 5,
6, 7, 9, 11, 13; issue 29 items 6, 7, 8): names from files are printed escaped, a foreign,
inconsistent, damaged or tampered chunk or run.json is a positioned refusal (exit 1, never an
internal error), a save file must start with its duel's header."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.exits import shown, shown_json, shown_markup

EVIL = "[red]x[/red]\x1b[31mred\x1b]0;title\x07\x1b]52;c;Y2xpcA==\x07\x9b31m\u202eabc"
RAW = ("\x1b", "\x07", "\x9b", "\u202e")


def run(*args: str):
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def paired_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "p"
    r = run("diff", "online", "rulebook", "--simulate", "10", "--out", str(out), "--executor", "local",
            "--format", "json")
    assert r.exit_code == 0, r.output
    return out


@pytest.fixture(scope="module")
def single_folder(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("runs") / "s"
    r = run("simulate", "online", "-n", "4", "--out", str(out), "--executor", "local", "--json")
    assert r.exit_code == 0, r.output
    return out


def copy(folder: Path, tmp_path: Path) -> Path:
    dst = tmp_path / folder.name
    shutil.copytree(folder, dst)
    return dst


def edit_meta(folder: Path, change) -> None:
    p = folder / "run.json"
    meta = json.loads(p.read_text(encoding="utf-8"))
    change(meta)
    p.write_text(json.dumps(meta), encoding="utf-8")


# ------------------------------------------------------------------------------ 22.5: escaping
def test_shown_escapes_every_control_character_a_terminal_acts_on():
    out = shown(EVIL)
    assert not any(c in out for c in RAW)
    assert "\\x1b" in out and "\\x9b" in out and "\\u202e" in out and "[red]x[/red]" in out
    assert shown("a\nb\tc") == "a\\x0ab\\x09c" and shown("a\nb\tc", lines=True) == "a\nb\tc"
    assert shown_markup("[red]x[/red]") == "\\[red]x\\[/red]"
    text = json.dumps({"name": EVIL}, ensure_ascii=False)
    assert json.loads(shown_json(text)) == {"name": EVIL} and not any(c in shown_json(text) for c in RAW)


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
@pytest.mark.parametrize("kind", ["paired", "single"])
def test_report_prints_names_from_run_json_escaped(kind, fmt, paired_folder, single_folder, tmp_path):
    folder = copy(paired_folder if kind == "paired" else single_folder, tmp_path)

    def evil(meta):
        for r in meta["spec"]["rulesets"]:
            r["name"] = EVIL
    edit_meta(folder, evil)
    if kind == "single" and fmt == "markdown":
        fmt = "text"
    r = run("report", str(folder), "--format", fmt)
    assert r.exit_code == 0, r.output
    assert not any(c in r.output for c in RAW), r.output
    if fmt == "json":
        json.loads(r.output)
    elif kind == "single":  # a Rich console: the markup is shown, not applied
        assert "[red]x[/red]" in r.output


def test_show_and_validate_print_a_title_from_the_file_escaped(tmp_path):
    f = tmp_path / "evil.yaml"
    f.write_text('ruleset: evil\nextends: online\ntitle: "\\e]0;pwned\\a[red]x[/red]\\x9b"\n'
                 'description: "\\e[31m"\nsettings: {nope: "\\e[2J"}\n', encoding="utf-8")
    for args in (["show", str(f)], ["validate", str(f)], ["doc", str(f)]):
        r = CliRunner().invoke(cli, args)
        assert r.exit_code in (0, 1), r.output
        assert not any(c in r.output for c in RAW), (args, r.output)
