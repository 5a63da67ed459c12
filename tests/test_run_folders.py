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


# ------------------------------------------------------------------------------ 22.9, 22.6, 29.7: tampered folders
def _meta_edit(change):
    def apply(folder: Path) -> None:
        edit_meta(folder, change)
    return apply


def _raw(name: str, text: str | bytes):
    def apply(folder: Path) -> None:
        target = folder / name if name == "run.json" else sorted(folder.glob("chunk-*.json"))[int(name)]
        if isinstance(text, bytes):
            target.write_bytes(text)
        else:
            target.write_text(text, encoding="utf-8")
    return apply


def _sub(name: str, old: str, new: str):
    def apply(folder: Path) -> None:
        target = folder / name if name == "run.json" else sorted(folder.glob("chunk-*.json"))[int(name)]
        text = target.read_text(encoding="utf-8")
        assert old in text, (old, text[:200])
        target.write_text(text.replace(old, new, 1), encoding="utf-8")
    return apply


def _chunk_edit(change, index: int = 0):
    def apply(folder: Path) -> None:
        p = sorted(folder.glob("chunk-*.json"))[index]
        data = json.loads(p.read_text(encoding="utf-8"))
        change(data)
        p.write_text(json.dumps(data), encoding="utf-8")
    return apply


def _deep(n: int) -> str:
    return "[" * n + "]" * n


def _pop(d: dict, *keys):
    for k in keys[:-1]:
        d = d[k]
    d.pop(keys[-1])


def _set(d: dict, value, *keys):
    for k in keys[:-1]:
        d = d[k]
    d[keys[-1]] = value


def _too_large(folder: Path) -> None:
    with open(folder / "run.json", "r+b") as f:
        f.truncate(33 * 1024 * 1024)


RUN_JSON_INPUTS = {
    "no spec": _meta_edit(lambda m: m.pop("spec")),
    "empty rulesets": _meta_edit(lambda m: _set(m, [], "spec", "rulesets")),
    "one ruleset in a paired run": _meta_edit(lambda m: m["spec"]["rulesets"].pop()),
    "unknown kind": _meta_edit(lambda m: _set(m, "triple", "spec", "kind")),
    "games a string": _meta_edit(lambda m: _set(m, "10", "games")),
    "games NaN": _sub("run.json", '"games": 10', '"games": NaN'),
    "games Infinity": _sub("run.json", '"games": 10', '"games": -Infinity'),
    "games 1.5": _meta_edit(lambda m: _set(m, 1.5, "games")),
    "games true": _meta_edit(lambda m: _set(m, True, "games")),
    "chunk_size 0": _meta_edit(lambda m: _set(m, 0, "chunk_size")),
    "spec a list": _meta_edit(lambda m: _set(m, [1, 2], "spec")),
    "a ruleset a string": _meta_edit(lambda m: _set(m, "online", "spec", "rulesets", 0)),
    "bots a number": _meta_edit(lambda m: _set(m, 3, "spec", "bots")),
    "seed a list": _meta_edit(lambda m: _set(m, [1], "spec", "seed")),
    "no match_length": _meta_edit(lambda m: _pop(m, "spec", "match_length")),
    "unknown key": _meta_edit(lambda m: _set(m, 1, "spec", "extra")),
    "deep nesting": _sub("run.json", '"bots": "random"', '"bots": ' + _deep(3000)),
    "deep nesting (50 levels)": _sub("run.json", '"bots": "random"', '"bots": ' + _deep(50)),
    "nesting within the limit": _sub("run.json", '"bots": "random"', '"bots": ' + _deep(8)),
    "the seed edited (fingerprint)": _meta_edit(lambda m: _set(m, "2", "spec", "seed")),
    "an older format": _meta_edit(lambda m: _set(m, "gouji-run/1", "format")),
    "design metrics of every 50th deal (gouji-run/2)": _meta_edit(lambda m: _set(m, "gouji-run/2", "format")),
    "an unknown format": _meta_edit(lambda m: _set(m, "gouji-run/9", "format")),
    "not JSON": _raw("run.json", '{"format": "gouji-run/3", "spec": {'),
    "empty": _raw("run.json", ""),
    "a JSON list": _raw("run.json", "[1, 2, 3]"),
    "not UTF-8": _raw("run.json", b'{"format": "\xff\xfe"}'),
    "a huge integer": _sub("run.json", '"games": 10', '"games": 1' + "0" * 5000),
    "too large": _too_large,
}

CHUNK_INPUTS = {
    "totals a list": _chunk_edit(lambda c: _set(c, [], "totals")),
    "totals of a single run": _chunk_edit(lambda c: _set(c, c["totals"]["a"], "totals")),
    "no side b": _chunk_edit(lambda c: _pop(c, "totals", "b")),
    "games a string": _chunk_edit(lambda c: _set(c, "5", "totals", "a", "games")),
    "games inflated": _chunk_edit(lambda c: _set(c, 500, "totals", "a", "games")),
    "sweeps inflated": _chunk_edit(lambda c: _set(c, 400, "totals", "b", "flags", "sweep_rate", "s")),
    "decisions of 50 games": _chunk_edit(lambda c: _set(c, 50, "totals", "a", "means", "decisions", "n")),
    "a seat placed too often": _chunk_edit(lambda c: _set(c, [9, 9, 9, 9, 9, 9], "totals", "a", "places", 0)),
    "places of the wrong shape": _chunk_edit(lambda c: _set(c, [[1]], "totals", "a", "places")),
    "spread histogram": _chunk_edit(lambda c: _set(c, {"4": 99}, "totals", "a", "spread_histogram")),
    "a 2x2 table of other deals": _chunk_edit(lambda c: _set(c, 77, "totals", "binary", "sweep_rate", "n00")),
    "seven seats": _chunk_edit(lambda c: _set(c, 7, "totals", "a", "n_seats")),
    "a seat score missing": _chunk_edit(lambda c: c["totals"]["a"]["seat_score"].pop()),
    "sum of squares too small": _chunk_edit(lambda c: _set(c, 0, "totals", "a", "means", "decisions", "ss")),
    "a fraction that is not one": _chunk_edit(lambda c: _set(c, "1e999999", "totals", "a", "means", "decisions", "s")),
    "a divergent deal of another chunk": _chunk_edit(lambda c: _set(c, 9999, "totals", "divergent", 0, "index")),
    "too many divergent deals": _chunk_edit(lambda c: _set(c, c["totals"]["divergent"] * 3, "totals", "divergent")),
    "range not its name": _chunk_edit(lambda c: _set(c, 6, "stop")),
    "another run's fingerprint": _chunk_edit(lambda c: _set(c, "0123456789abcdef", "run")),
    "another seed": _chunk_edit(lambda c: _set(c, "2", "seed")),
    "an older format": _chunk_edit(lambda c: _set(c, "gouji-chunk/1", "format")),
    "design metrics of every 50th deal (gouji-chunk/2)": _chunk_edit(lambda c: _set(c, "gouji-chunk/2", "format")),
    "NaN": _sub("0", '"n":5', '"n":NaN'),
    "deep nesting": _sub("0", '"places":[', '"places":[' + _deep(2000) + ","),
    "cut short (damaged)": _sub("0", '"totals":', '"totals'),
    "empty (damaged)": _raw("0", ""),
    "not UTF-8 (damaged)": _raw("0", b"\x00\xff\xfe"),
}


def _refused(r, *names: str) -> None:
    assert r.exit_code == 1, r.output
    assert "internal error" not in r.output and "Traceback" not in r.output, r.output
    for name in names:
        assert name in r.output, (name, r.output)
    first = r.output.strip().splitlines()[0]
    assert first.startswith("error: ") and ":" in first[7:], first


def _resume(folder: Path):
    return run("diff", "online", "rulebook", "--simulate", "10", "--out", str(folder), "--resume", "--executor",
               "local", "--format", "json")


@pytest.mark.parametrize("name", list(RUN_JSON_INPUTS))
def test_a_tampered_run_json_is_refused_with_its_place(name, paired_folder, tmp_path):
    folder = copy(paired_folder, tmp_path)
    RUN_JSON_INPUTS[name](folder)
    _refused(run("report", str(folder)), "run.json")
    _refused(_resume(folder), "run.json")


def test_a_folder_whose_design_metrics_come_from_other_deals_is_refused_not_mixed(paired_folder, tmp_path):
    # (issue 28: gouji-run/2 measured the design metrics on every 50th deal; the native core now counts
    # them on every deal it plays whole: resumed, the old chunks would be mixed with the new ones)
    folder = copy(paired_folder, tmp_path)
    RUN_JSON_INPUTS["design metrics of every 50th deal (gouji-run/2)"](folder)
    for r in (run("report", str(folder)), _resume(folder)):
        _refused(r, "run.json", "every 50th deal", "run it again into a new folder")
    folder = copy(paired_folder, tmp_path / "chunk")
    CHUNK_INPUTS["design metrics of every 50th deal (gouji-chunk/2)"](folder)
    _refused(run("report", str(folder)), "every 50th deal only")


@pytest.mark.parametrize("name", ["chunk-0-5.json", "chunk-00000000000-000000005.json", "chunk-000000000-05.json"])
def test_a_chunk_file_under_another_name_for_its_deals_is_refused(name, paired_folder, tmp_path):
    # a second file for deals 0..4 silently replaced the first (or was dropped, by the order of the names),
    # and an overlap was reported with the name gouji would write, not the file's
    folder = copy(paired_folder, tmp_path)
    shutil.copy(sorted(folder.glob("chunk-*.json"))[0], folder / name)
    for r in (run("report", str(folder)), _resume(folder)):
        _refused(r, name, "chunk-000000000-000000005.json", "move this file out of the run folder")


@pytest.mark.parametrize("name", list(CHUNK_INPUTS))
def test_a_tampered_or_foreign_chunk_is_refused_with_its_file_name(name, paired_folder, tmp_path):
    folder = copy(paired_folder, tmp_path)
    CHUNK_INPUTS[name](folder)
    chunk = sorted(folder.glob("chunk-*.json"))[0].name
    for r in (run("report", str(folder)), _resume(folder)):
        _refused(r, chunk, "remove this file: --resume plays its deals again")
        assert f"{chunk}:1:" in r.output or "bytes" in r.output, r.output  # positioned in the file


@pytest.mark.parametrize("other", [
    ["diff", "online", "qingdao", "--simulate", "10"],                  # another ruleset
    ["diff", "online", "rulebook", "--simulate", "10", "--seed", "2"],  # another seed
    ["diff", "online", "rulebook", "--simulate", "10", "--bots", "heuristic"],  # other bots
    ["diff", "online", "rulebook", "--simulate", "10", "--single-games"],  # other chunking of the deals
])
def test_a_chunk_of_another_run_copied_into_the_folder_is_refused(other, paired_folder, tmp_path):
    folder = copy(paired_folder, tmp_path)
    foreign = tmp_path / "other"
    r = run(*other, "--out", str(foreign), "--executor", "local", "--chunk-size", "5", "--format", "json")
    assert r.exit_code == 0, r.output
    name = "chunk-000000000-000000005.json"
    shutil.copy(foreign / name, folder / name)
    for r in (run("report", str(folder)), _resume(folder)):
        _refused(r, name, "a chunk of another run", "remove this file")


def test_a_removed_damaged_chunk_is_played_again_by_resume(paired_folder, tmp_path):
    folder = copy(paired_folder, tmp_path)
    want = json.loads(run("report", str(paired_folder), "--format", "json").output)
    chunk = sorted(folder.glob("chunk-*.json"))[1]
    chunk.write_text(chunk.read_text(encoding="utf-8")[:100], encoding="utf-8")
    r = run("report", str(folder))
    _refused(r, chunk.name, "remove this file: --resume plays its deals again")
    chunk.unlink()
    assert _resume(folder).exit_code == 0
    got = json.loads(run("report", str(folder), "--format", "json").output)
    got.pop("folders"), want.pop("folders")
    assert got == want


def test_chunks_and_their_folder_are_fsynced_before_the_rename(tmp_path, monkeypatch):
    import os

    from gouji_dsl import atomic
    synced: list[str] = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        synced.append(os.readlink(f"/proc/self/fd/{fd}") if os.path.exists("/proc/self/fd") else str(fd))
        real_fsync(fd)

    def replace(a, b):
        synced.append(f"rename {Path(b).name}")
        real_replace(a, b)

    monkeypatch.setattr(atomic.os, "fsync", fsync)
    monkeypatch.setattr(atomic.os, "replace", replace)
    out = tmp_path / "s"
    assert run("simulate", "online", "-n", "2", "--out", str(out), "--executor", "local", "--json").exit_code == 0
    name = "chunk-000000000-000000001.json"
    i = synced.index(f"rename {name}")
    assert ".tmp" in synced[i - 1] and name in synced[i - 1]  # the file's data before the rename
    assert synced[i + 1] == str(out.resolve())  # the folder after it (the rename itself)


# ------------------------------------------------------------------------------ 29.6: names are not rules
def test_renaming_a_ruleset_keeps_the_run_fingerprint(paired_folder, tmp_path):
    from gouji_dsl.resources import rules_dir
    copied = tmp_path / "online-copy.yaml"
    text = (rules_dir() / "online.yaml").read_text(encoding="utf-8")
    copied.write_text(text.replace("\nruleset: online\n", "\nruleset: online-copy\n")
                      .replace("title: Online platform rules", "title: A copy of the online rules"), encoding="utf-8")
    r = run("diff", "online", str(copied), "--format", "json")
    assert json.loads(r.output)["diff"]["settings"] == json.loads(r.output)["diff"]["rules"] == []
    folder = copy(paired_folder, tmp_path)
    r = run("diff", str(copied), "rulebook", "--simulate", "20", "--out", str(folder), "--resume", "--executor", "local",
            "--format", "json")
    assert r.exit_code == 0, r.output
    assert json.loads(r.output)["simulation"]["resumed_games"] == 10
    assert run("report", str(folder), str(paired_folder)).exit_code == 0
    edited = tmp_path / "online-edited.yaml"
    edited.write_text(text.replace("redeal_in_first_game: true", "redeal_in_first_game: false"), encoding="utf-8")
    r = run("diff", str(edited), "rulebook", "--simulate", "20", "--out", str(folder), "--resume", "--executor", "local")
    _refused(r, "the rules played differ")


# ------------------------------------------------------------------------------ 29.8: until, in progress
def test_report_keeps_the_until_block_of_a_run_stopped_by_halfwidth(tmp_path):
    out = tmp_path / "u"
    r = run("simulate", "online", "-n", "200", "--until-halfwidth", "1000", "--out", str(out), "--executor", "local",
            "--chunk-size", "10", "--json")
    assert r.exit_code == 0, r.output
    ran = json.loads(r.output)
    assert ran["stopped_by"] == "halfwidth" and ran["until"]["reached"] and ran["games"] == 30
    rep = json.loads(run("report", str(out), "--format", "json").output)
    assert rep["until"] == ran["until"] and rep["stopped_by"] == "halfwidth" and rep["games"] == 30
    assert not rep.get("missing")
    text = " ".join(run("report", str(out)).output.split())  # Rich wraps at 80 columns
    assert "Stopped after 30 games" in text and "within the ±1000 asked" in text


def test_report_keeps_the_until_block_of_a_paired_run(paired_folder, tmp_path):
    out = tmp_path / "u"
    r = run("diff", "online", "rulebook", "--simulate", "10", "--until-halfwidth", "0.001", "--out", str(out),
            "--executor", "local", "--format", "json")
    assert r.exit_code == 0, r.output
    until = json.loads(r.output)["simulation"]["until"]
    assert until["reached"] is False
    rep = json.loads(run("report", str(out), "--format", "json").output)
    assert rep["until"] == until
    assert "Target not reached" in " ".join(run("report", str(out)).output.split())


@pytest.mark.parametrize("kind", ["paired", "single"])
def test_report_says_a_run_is_still_in_progress(kind, paired_folder, single_folder, tmp_path):
    from gouji_dsl.tools.runfolders import lock_folder
    folder = copy(paired_folder if kind == "paired" else single_folder, tmp_path)
    sorted(folder.glob("chunk-*.json"))[-1].unlink()
    assert "interrupted run" in run("report", str(folder)).output
    lock = lock_folder(folder)  # a driver writing the folder
    try:
        text = " ".join(run("report", str(folder)).output.split())
        data = json.loads(run("report", str(folder), "--format", "json").output)
    finally:
        lock.close()
    assert "still in progress" in text and "interrupted" not in text, text
    assert data["in_progress"] == [str(folder)]


# ------------------------------------------------------------------------------ duel save files: 22.7, 22.11, 22.13
HEADER = {"duel": {"ruleset": "online", "a": "heuristic", "b": "random", "seed": "5", "think_ms": None}}
DUEL = ["duel", "online", "heuristic", "random", "--deals", "2", "--seed", "5"]


@pytest.fixture(scope="module")
def saved_duel(tmp_path_factory) -> Path:
    save = tmp_path_factory.mktemp("duel") / "run.jsonl"
    r = run(*DUEL, "--save", str(save), "--json")
    assert r.exit_code == 0, r.output
    return save


def _lines(save: Path) -> list[dict]:
    return [json.loads(x) for x in save.read_text(encoding="utf-8").splitlines()]


def _write(save: Path, lines: list) -> None:
    save.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")


def _duel_refused(save: Path, *words: str) -> str:
    before = save.read_bytes()
    r = CliRunner().invoke(cli, [*DUEL, "--save", str(save)])
    assert r.exit_code == 1, r.output
    assert "internal error" not in r.output and "Traceback" not in r.output and "duel failed" not in r.output, r.output
    for w in words:
        assert w in r.stderr, (w, r.stderr)
    assert save.read_bytes() == before  # left alone
    return r.stderr


def test_a_duel_save_file_starts_with_its_header(saved_duel, tmp_path):
    """A file without a header adopted another duel's deals (+487.50 instead of −24.00)."""
    head, *units = _lines(saved_duel)
    save = tmp_path / "s.jsonl"
    foreign = [{"games": [{**g, "diff": 487.5, "scores": {**g["scores"], "1": g["scores"]["2"] + 487.5}}
                          for g in u["games"]]} for u in units]
    for lines, where in (([*foreign], ":1:"),                # no header at all
                         ([*units[:1], head, *units[1:]], ":1:"),  # the header after a unit
                         ([head, *units, head], ":4:"),       # a second header
                         (["", *units], ":1:")):              # a blank line, then units
        _write(save, lines)
        _duel_refused(save, f"{save}{where}", "not a saved duel")
    _write(save, [head, *units])
    assert run(*DUEL, "--save", str(save)).exit_code == 0


def _game_edit(change):
    def apply(lines: list[dict]) -> None:
        change(lines[1]["games"][0])
    return apply


def _del(key, sub=None):
    def change(g):
        (g[key] if sub is not None else g).pop(sub if sub is not None else key)
    return change


UNUSABLE_LINES = {
    "empty timing": _game_edit(lambda g: g.update(timing={})),
    "timing of one bot": _game_edit(_del("timing", "b")),
    "timing of two numbers": _game_edit(lambda g: g["timing"].update(a=[1, 2])),
    "negative decisions": _game_edit(lambda g: g["timing"].update(a=[-1, 2, 0.5])),
    "a missing seat in scores": _game_edit(_del("scores", "6")),
    "a missing seat in places": _game_edit(_del("places", "3")),
    "seat 7": _game_edit(lambda g: g["scores"].update({"7": 0.0})),
    "seat 7 in both": _game_edit(lambda g: (g["scores"].update({"7": 0.0}), g["places"].update({"7": 7}))),
    "place 7": _game_edit(lambda g: g["places"].update({"1": 7})),
    "seat 0": _game_edit(lambda g: g["scores"].update({"0": 0.0})),
    "one seat only": _game_edit(lambda g: g.update(scores={"1": 1.0})),
    "a diff that is not the scores'": _game_edit(lambda g: g.update(diff=g["diff"] + 100)),
    "a huge score": _game_edit(lambda g: g.update(diff=1e300)),
    "a deal beyond the most a duel plays": _game_edit(lambda g: g.update(deal=10 ** 9)),
    # each seat takes a free place and a decision with a choice is a decision: a saved game has neither
    "every seat first": _game_edit(lambda g: g.update(places={s: 1 for s in g["places"]})),
    "two seats in one place": _game_edit(lambda g: g["places"].update({"1": g["places"]["2"]})),
    "more decisions with a choice than decisions": _game_edit(lambda g: g["timing"].update(b=[5, 70, 0.1])),
}


@pytest.mark.parametrize("name", list(UNUSABLE_LINES))
def test_a_save_line_the_report_cannot_use_is_refused_naming_it(name, saved_duel, tmp_path):
    lines = _lines(saved_duel)
    UNUSABLE_LINES[name](lines)
    save = tmp_path / "s.jsonl"
    _write(save, lines)
    _duel_refused(save, f"{save}:2:")


@pytest.mark.parametrize("value", ["NaN", "Infinity", "-Infinity"])
def test_nan_differences_in_a_save_file_are_refused(value, saved_duel, tmp_path):
    lines = saved_duel.read_text(encoding="utf-8").splitlines()
    g = json.loads(lines[1])["games"][0]
    lines[1] = lines[1].replace(f'"diff": {json.dumps(g["diff"])}', f'"diff": {value}', 1)
    assert value in lines[1]
    save = tmp_path / "s.jsonl"
    _write(save, lines)
    _duel_refused(save, f"{save}:2:", f"{value.lstrip('-')}")


@pytest.mark.parametrize("value, words", [
    ("1" + "0" * 5000, "a number of more than 4,300 digits"),
    ("[" * 5000 + "]" * 5000, "nested too deep"),
], ids=["a 5001-digit integer", "5000 nested arrays"])
def test_a_save_line_python_cannot_read_says_why_in_words(value, words, saved_duel, tmp_path):
    lines = saved_duel.read_text(encoding="utf-8").splitlines()
    g = json.loads(lines[1])["games"][0]
    lines[1] = lines[1].replace(f'"diff": {json.dumps(g["diff"])}', f'"diff": {value}', 1)
    save = tmp_path / "s.jsonl"
    _write(save, lines)
    err = _duel_refused(save, f"{save}:2:", words)
    assert "sys.set_int_max_str_digits" not in err and "recursion" not in err, err


def test_a_save_file_too_large_is_refused_before_it_is_read(saved_duel, tmp_path):
    from gouji_dsl.tools.duel import MAX_SAVE_BYTES
    save = tmp_path / "s.jsonl"
    shutil.copy(saved_duel, save)
    with open(save, "r+b") as f:
        f.truncate(MAX_SAVE_BYTES + 1)  # sparse: nothing is written
    _duel_refused(save, "MAX_SAVE_BYTES")


def test_a_renamed_copy_of_the_ruleset_resumes_its_duel(saved_duel, tmp_path):
    from gouji_dsl.resources import rules_dir
    copied = tmp_path / "online-copy.yaml"
    copied.write_text((rules_dir() / "online.yaml").read_text(encoding="utf-8")
                      .replace("\nruleset: online\n", "\nruleset: online-copy\n"), encoding="utf-8")
    save = tmp_path / "s.jsonl"
    shutil.copy(saved_duel, save)
    r = CliRunner().invoke(cli, ["duel", str(copied), *DUEL[2:], "--save", str(save)])
    assert r.exit_code == 0 and "2 of the 2 deals saved already" in r.stderr, r.output


def test_the_fast_check_of_a_save_line_is_the_schema(saved_duel):
    """Each line is read once, by a plain-Python check equal to the schema (the schema's validator ran
    twice per line: minutes for 100,000 deals); on mutated lines the two agree."""
    from gouji_dsl.tools.duel import _fast_header, _fast_unit, _line_problem
    head, unit = _lines(saved_duel)[:2]
    assert _fast_header(head) and _fast_unit(unit)
    samples = [head, unit, {"games": []}, {"games": [1]}, {"duel": {}}, {"duel": {**head["duel"], "think_ms": True}}]
    for key in unit["games"][0]:
        for value in (None, True, 1, 1.5, -1, "x", [], {}, 10 ** 6, [1, 2, 3], {"1": 1}):
            samples.append({"games": [{**unit["games"][0], key: value}]})
    for d in samples:
        fast = _fast_header(d) if isinstance(d, dict) and "duel" in d else _fast_unit(d)
        assert fast == (_line_problem(d) is None), d


# ------------------------------------------------------------------------------ 22.5: every other print site
def test_other_commands_print_names_from_files_escaped(paired_folder, saved_duel, tmp_path):
    outputs = []
    # --resume: the run's ruleset names in the refusal (other rules)
    folder = copy(paired_folder, tmp_path)

    def evil(meta):
        for r in meta["spec"]["rulesets"]:
            r["name"] = EVIL
    edit_meta(folder, evil)
    r = run("diff", "online", "qingdao", "--simulate", "10", "--out", str(folder), "--resume", "--executor", "local")
    assert r.exit_code == 1 and "differ" in r.output
    outputs.append(r.output)
    # gouji duel --save: the header of another duel
    save = tmp_path / "s.jsonl"
    head, *units = _lines(saved_duel)
    head["duel"]["a"] = EVIL
    _write(save, [head, *units])
    outputs.append(_duel_refused(save, "holds another duel"))
    # gouji replay: a record naming a ruleset
    rec = tmp_path / "r.json"
    rec.write_text(json.dumps({"format": "gouji-record/1", "ruleset": EVIL, "events": [{"type": "deal"}]}),
                   encoding="utf-8")
    r = CliRunner().invoke(cli, ["replay", str(rec)])
    assert r.exit_code == 1
    outputs.append(r.output)
    for out in outputs:
        assert not any(c in out for c in RAW), out


SINGLE_INPUTS = ["no spec", "empty rulesets", "unknown kind", "games a string", "games NaN", "deep nesting",
                 "the seed edited (fingerprint)"]


@pytest.mark.parametrize("name", SINGLE_INPUTS)
def test_a_tampered_run_json_of_gouji_simulate_is_refused(name, single_folder, tmp_path):
    folder = copy(single_folder, tmp_path)
    if name == "games NaN":
        _sub("run.json", '"games": 4', '"games": NaN')(folder)
    else:
        RUN_JSON_INPUTS[name](folder)
    _refused(run("report", str(folder)), "run.json")
    _refused(run("simulate", "online", "-n", "4", "--out", str(folder), "--resume", "--executor", "local"), "run.json")


@pytest.mark.parametrize("name", ["games inflated", "seven seats", "another run's fingerprint", "cut short (damaged)"])
def test_a_tampered_chunk_of_gouji_simulate_is_refused(name, single_folder, tmp_path):
    folder = copy(single_folder, tmp_path)
    change = {"games inflated": _chunk_edit(lambda c: _set(c, 500, "totals", "games")),
              "seven seats": _chunk_edit(lambda c: _set(c, 7, "totals", "n_seats")),
              "another run's fingerprint": CHUNK_INPUTS["another run's fingerprint"],
              "cut short (damaged)": _sub("0", '"totals":', '"totals')}[name]
    change(folder)
    chunk = sorted(folder.glob("chunk-*.json"))[0].name
    for r in (run("report", str(folder)),
              run("simulate", "online", "-n", "4", "--out", str(folder), "--resume", "--executor", "local")):
        _refused(r, chunk, "remove this file: --resume plays its deals again")


@pytest.mark.skipif(not hasattr(__import__("os"), "mkfifo"), reason="no named pipes here")
def test_a_named_pipe_for_a_chunk_or_a_save_file_is_refused_without_waiting(paired_folder, saved_duel, tmp_path):
    import os
    folder = copy(paired_folder, tmp_path)
    chunk = sorted(folder.glob("chunk-*.json"))[0]
    chunk.unlink()
    os.mkfifo(chunk)
    _refused(run("report", str(folder)), chunk.name, "not a regular file")
    (folder / "run.json").unlink()
    os.mkfifo(folder / "run.json")
    _refused(run("report", str(folder)), "run.json")
    save = tmp_path / "s.jsonl"
    os.mkfifo(save)
    r = CliRunner().invoke(cli, [*DUEL, "--save", str(save)])
    assert r.exit_code in (1, 2) and "Traceback" not in r.output, r.output
    assert r.exit_code == 1 and "internal error" not in r.output, r.output


def test_a_diagnostic_shows_a_control_character_of_its_source_line_escaped_under_its_caret(tmp_path):
    f = tmp_path / "esc.yaml"
    f.write_text("ruleset: x\ntitle: a\x1b[31mb\x9b\n", encoding="utf-8")
    r = CliRunner().invoke(cli, ["validate", str(f)])
    assert r.exit_code == 1 and not any(c in r.output for c in RAW), r.output
    lines = r.output.splitlines()
    i = next(n for n, x in enumerate(lines) if "title: a\\x1b[31mb" in x)
    assert lines[i + 1].index("^") == lines[i].index("\\x1b")


def test_report_of_a_run_in_progress_without_a_chunk_yet(single_folder, tmp_path):
    from gouji_dsl.tools.runfolders import lock_folder
    folder = copy(single_folder, tmp_path)
    for c in folder.glob("chunk-*.json"):
        c.unlink()
    r = run("report", str(folder))
    assert r.exit_code == 1 and "no finished chunk yet" in r.output and "writing" not in r.output
    lock = lock_folder(folder)
    try:
        r = run("report", str(folder))
    finally:
        lock.close()
    assert r.exit_code == 1 and f"a run is writing {folder}" in r.output, r.output


# ------------------------------------------------------------------ what json.loads takes silently (issue 22, edge)
def _twice(text: str, key: str) -> tuple[str, int]:
    """``text`` (pretty-printed JSON) with the first line that writes ``key`` written again under it."""
    lines = text.splitlines()
    i = next(n for n, x in enumerate(lines) if x.lstrip().startswith(f'"{key}":'))
    return "\n".join(lines[:i + 1] + [lines[i].rstrip(",") + ","] + lines[i + 1:]) + "\n", i + 2


@pytest.mark.parametrize("name", ["run.json", "chunk"])
def test_a_key_written_twice_in_a_run_file_is_refused_naming_it_and_its_line(name, single_folder, tmp_path):
    """A hand-edited run.json with "games" written twice was read with the last one, silently."""
    folder = copy(single_folder, tmp_path)
    target = folder / "run.json" if name == "run.json" else sorted(folder.glob("chunk-*.json"))[0]
    data = json.loads(target.read_text(encoding="utf-8"))
    text = json.dumps(data, indent=1, sort_keys=True)
    key = "games" if name == "run.json" else "format"
    twice, line = _twice(text, key)
    target.write_text(twice, encoding="utf-8")
    r = run("report", str(folder))
    _refused(r, f"{target.name}:{line}:2:", f"the key '{key}' is written twice")


def test_a_key_written_twice_in_a_save_line_is_refused_naming_it_and_its_column(saved_duel, tmp_path):
    head, unit, *rest = saved_duel.read_text(encoding="utf-8").splitlines()
    for n, key, extra in ((1, '"a": ', '"x", '), (2, '"deal": ', "0, ")):
        lines = [head, unit, *rest]
        col = lines[n - 1].index(key) + len(key + extra) + 1  # the second one
        lines[n - 1] = lines[n - 1].replace(key, key + extra + key, 1)
        save = tmp_path / "s.jsonl"
        save.write_text("\n".join(lines) + "\n", encoding="utf-8")
        _duel_refused(save, f"{save}:{n}:{col}: not a saved duel line: the key {key.split(':')[0].replace(chr(34), chr(39))} is "
                            "written twice in one object")


def test_a_save_header_with_a_key_no_duel_writes_is_refused_naming_it_and_its_column(saved_duel, tmp_path):
    """A header line with an extra key was accepted (the schema's header object took any key)."""
    head, *units = _lines(saved_duel)
    head["duel"]["notes"] = "mine"
    save = tmp_path / "s.jsonl"
    _write(save, [head, *units])
    col = save.read_text(encoding="utf-8").splitlines()[0].index('"notes"') + 1
    _duel_refused(save, f"{save}:1:{col}: not a saved duel line: duel: unknown key 'notes'")
    from gouji_dsl.tools.duel import _fast_header, _line_problem
    assert not _fast_header(head) and _line_problem(head) is not None  # the fast check and the schema agree


BIG = "x" * 1_000_000


@pytest.mark.parametrize("where", ["run.json", "save header"])
def test_a_huge_value_of_the_wrong_type_is_quoted_shortened(where, single_folder, saved_duel, tmp_path):
    """A 1 MB string where a number belongs was printed whole in the message."""
    if where == "run.json":
        folder = copy(single_folder, tmp_path)
        edit_meta(folder, lambda m: m.update(games=BIG))
        r = run("report", str(folder))
        out = r.output
        assert r.exit_code == 1
    else:
        head, *units = _lines(saved_duel)
        head["duel"]["think_ms"] = BIG
        save = tmp_path / "s.jsonl"
        _write(save, [head, *units])
        out = _duel_refused(save, "think_ms")
    assert "… (1,000,002 characters)" in out and len(out) < 1000, out[:2000]


def test_an_object_of_too_many_keys_in_a_run_file_or_a_save_line_is_refused_before_it_is_built(single_folder, saved_duel,
                                                                                                    tmp_path):
    """500,000 keys: run.json (7 MB) took 162 MB, a save line (6 MB) 48 s and 171 MB; the keys of each
    object are counted by the scan before json builds anything (MAX_RUN_KEYS, MAX_SAVE_KEYS)."""
    from gouji_dsl.tools.duel import MAX_SAVE_KEYS
    from gouji_dsl.tools.runfiles import MAX_RUN_KEYS
    folder = copy(single_folder, tmp_path)
    edit_meta(folder, lambda m: m["spec"].update(extra={str(i): 0 for i in range(MAX_RUN_KEYS + 1)}))
    _refused(run("report", str(folder)), "run.json:1:", "MAX_RUN_KEYS")
    head, unit, *rest = _lines(saved_duel)
    unit["games"][0]["scores"] = {str(i): 1 for i in range(20 * MAX_SAVE_KEYS)}  # a long line: scanned first
    save = tmp_path / "s.jsonl"
    _write(save, [head, unit, *rest])
    _duel_refused(save, f"{save}:2:", "MAX_SAVE_KEYS")
