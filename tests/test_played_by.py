"""Every summary says which engine played its games — the native core, the generated module or the
interpreter — and, when not the native core, why (issue 24: tools/played.py): ``gouji simulate``,
``gouji diff --simulate`` (per side, in text, markdown and JSON), ``gouji duel`` (``--engine``); a run
folder is resumed with the engine it was started with; a checkout without the core says so."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gouji_dsl.engine import native
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.played import engine_name, played_by, why_not_native

needs_core = pytest.mark.skipif(not native.available(), reason="the native core is not built here")


def _flat(text: str) -> str:
    return " ".join(text.split())  # (rich wraps long lines)


@pytest.mark.parametrize("summary, who, why, name", [
    ({"engine": "native", "play_phase": "native", "whole_games": "native"}, "native", None, "native"),
    ({"engine": "native", "play_phase": "native", "whole_games": "per_game", "games_fallback": "G"}, "native",
     "whole games not played by the native core, only their play phase (G)", "native (play phase only)"),
    ({"engine": "native", "play_phase": "interpreter", "native_fallback": "N"}, "interpreter",
     "the bots' play phase played by the interpreter, not the native core (N)", "interpreter"),
    # (the summaries of a run made before the native core replaced the generated play-out: read as they were)
    ({"engine": "generated", "play_phase": "native", "whole_games": "native"}, "native", None, "native"),
    ({"engine": "generated", "play_phase": "native", "whole_games": "generated", "games_fallback": "G"}, "native",
     "whole games not played by the native core, only their play phase (G)", "native (play phase only)"),
    ({"engine": "generated", "play_phase": "generated", "native_fallback": "N"}, "generated",
     "the bots' play phase played by the generated module, not the native core (N)", "generated"),
    ({"engine": "interpreter", "engine_fallback": "E"}, "interpreter",
     "played by the interpreter: the native core does not play this ruleset (E)", "interpreter"),
    ({"engine": "interpreter"}, "interpreter",
     "played by the interpreter, as asked (--engine interpreter): the reference, not the native core", "interpreter"),
])
def test_the_engine_is_named_with_why_not_native(summary, who, why, name):
    assert engine_name(summary) == name  # (the header's name: never more than why_not_native allows)
    keys = played_by(summary)
    assert keys["played_by"] == who and ("played_by_reason" in keys) == (who != "native")
    assert why_not_native(summary) == why
    assert played_by({}) == {} and why_not_native({}) is None


@needs_core
def test_simulate_names_the_native_engine(runner):
    res = runner.invoke(cli, ["simulate", "online", "-n", "20", "--executor", "local"])
    assert res.exit_code == 0, res.output
    assert "native engine" in _flat(res.stdout) and "not the native core" not in _flat(res.stdout)
    got = json.loads(runner.invoke(cli, ["simulate", "online", "-n", "20", "--executor", "local", "--json"]).stdout)
    assert got["played_by"] == "native" and "played_by_reason" not in got
    res = runner.invoke(cli, ["simulate", "online", "-n", "4", "--executor", "local", "--engine", "interpreter"])
    assert "interpreter engine" in _flat(res.stdout) and "as asked (--engine interpreter)" in _flat(res.stdout)


@needs_core
@pytest.mark.parametrize("bots", ["random", "heuristic"])
def test_simulate_names_the_native_engine_for_the_positional_comparison(runner, bots):
    """positional-jokers (card by card: comparison.model positional) is played whole by the native core."""
    res = runner.invoke(cli, ["simulate", "examples/variants/positional-jokers.yaml", "-n", "6", "--bots", bots,
                              "--executor", "local", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["played_by"] == "native" and "played_by_reason" not in got, got.get("played_by_reason")


def test_the_fallback_line_names_no_bots_that_did_not_play(runner, refused_by_the_flow):
    """Heuristic bots where the core does not play the ruleset: not "random bots' play phase"; the
    interpreter plays, and the summary says why."""
    res = runner.invoke(cli, ["simulate", refused_by_the_flow, "-n", "2", "--bots", "heuristic",
                              "--executor", "local"])
    assert res.exit_code == 0, res.output
    text = _flat(res.stdout)
    assert "random bots" not in text and "played by the interpreter: the native core does not play this ruleset" in text
    assert "interpreter engine" in text and "after_discard" in text


@needs_core
def test_diff_says_per_side_why_games_are_not_native(runner):
    """online (single games) against rulebook (matches of 5): the deals are played one by one, each
    side with its own reason (online's is not rulebook's matches)."""
    args = ["diff", "online", "rulebook", "--simulate", "10", "--executor", "local"]
    res = runner.invoke(cli, [*args, "--format", "json"])
    assert res.exit_code == 0, res.output
    eng = json.loads(res.stdout)["simulation"]["engine"]
    assert "differ in length (1 and 5 games)" in eng["a"]["games_fallback"]
    assert "matches of" not in eng["a"]["games_fallback"] and eng["b"]["whole_games"] == "per_game"
    assert eng["a"]["played_by"] == eng["b"]["played_by"] == "native"
    text = _flat(runner.invoke(cli, [*args, "--format", "text"], env={"COLUMNS": "200"}).stdout)
    md = runner.invoke(cli, [*args, "--format", "markdown"]).stdout
    # (t28d bug 10) the header says no more than the engine line under it: the core played the play phase only
    assert "— native (play phase only) engine" in text and "native engine" not in text
    for side in (["both sides"] if eng["a"] == eng["b"] else ["online", "rulebook"]):
        assert f"engine, {side}: whole games not played by the native core" in text
        assert f"> engine, {side}: whole games not played by the native core" in md


def test_diff_names_each_side_by_its_label():
    """Two sides' different sentences: one line each, led by the side's label."""
    from gouji_dsl.tools.paired import engine_notes
    r = type("R", (), {"labels": ("online", "qingdao"), "engines": {
        "a": {"engine": "generated", "play_phase": "native", "whole_games": "native"},
        "b": {"engine": "generated", "play_phase": "generated", "native_fallback": "N"}}})()
    assert engine_notes(r) == ["engine, qingdao: the bots' play phase played by the generated module, not the native core (N)"]


def test_duel_names_its_engine(runner):
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--json"])
    assert res.exit_code == 0, res.output
    got = json.loads(res.stdout)
    assert got["engine"] == "native" and got["played_by"] == "native" and got["whole_games"] == "native"
    same = json.loads(runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--json",
                                          "--engine", "interpreter"]).stdout)
    assert same["played_by"] == "interpreter"
    figures = ("mean_diff", "a_win_rate", "ties", "per_seat")
    assert {k: got[k] for k in figures} == {k: same[k] for k in figures}  # (the same games)
    text = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1"]).stdout
    assert "  engine: native" in text
    timed = runner.invoke(cli, ["duel", "online", "pimc:2", "random", "--deals", "1"]).stdout
    assert "engine: interpreter — the bots' play phase played by the interpreter, not the native core (a duel " \
           "counts and times each bot's decisions" in _flat(timed)
    bad = runner.invoke(cli, ["duel", "online", "random", "random", "--engine", "x"])
    assert bad.exit_code == 2 and "--engine" in bad.stderr


def test_a_run_folder_is_resumed_with_its_engine(runner, tmp_path):
    out = tmp_path / "run"
    base = ["simulate", "online", "-n", "4", "--executor", "local", "--out", str(out)]
    assert runner.invoke(cli, base).exit_code == 0
    res = runner.invoke(cli, [*base, "--resume", "--engine", "interpreter"])
    assert res.exit_code != 0
    assert "played with --engine native, not interpreter" in _flat(res.stderr)
    assert runner.invoke(cli, [*base, "--resume"]).exit_code == 0
    assert runner.invoke(cli, [*base, "--resume", "--engine", "generated"]).exit_code == 0  # (its name before: an alias)
    spec = json.loads((out / "run.json").read_text())
    spec["spec"]["engine"] = "generated"  # (a run folder of before the native core)
    (out / "run.json").write_text(json.dumps(spec))
    assert runner.invoke(cli, [*base, "--resume"]).exit_code == 0


def _tree(root: Path, *files: str) -> Path:
    for f in files:
        (root / f).parent.mkdir(parents=True, exist_ok=True)
        (root / f).write_text("")
    return root / "gouji_dsl" / "engine" / "native"


def test_a_checkout_without_the_core_says_so(tmp_path):
    import importlib.machinery
    here = _tree(tmp_path / "checkout", "setup.py", "pyproject.toml", "gouji_dsl/engine/native/__init__.py")
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    _tree(tmp_path / "site", f"gouji_dsl/engine/native/_core{suffix}")
    text, fields = native._not_built(here, [str(here.parents[2]), str(tmp_path / "site")])
    said = text.format(**fields)
    assert "source checkout" in said and str(tmp_path / "site" / "gouji_dsl") in said and "C compiler" not in said
    text, fields = native._not_built(here, [str(here.parents[2])])
    assert "build_ext --inplace" in text.format(**fields) and "C compiler" not in text
    installed = _tree(tmp_path / "venv", "gouji_dsl/engine/native/__init__.py")
    assert "no working C compiler" in native._not_built(installed, [])[0]


def _report(runner, folder: Path, fmt: str = "text") -> str:
    res = runner.invoke(cli, ["report", str(folder), "--format", fmt], env={"COLUMNS": "300"})
    assert res.exit_code == 0, res.output
    return res.stdout


@needs_core
def test_report_names_the_engine_its_chunks_recorded(runner, tmp_path):
    """Issue 24: `gouji report DIR` says who played, from what each chunk file recorded (``engines``);
    a folder whose chunks were played by different engines says so, with the deals of each; chunks of
    an older gouji (no ``engines``): not recorded, said."""
    out = tmp_path / "run"
    res = runner.invoke(cli, ["simulate", "online", "-n", "6", "--chunk-size", "2", "--executor", "local",
                              "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert "engine: native" in _report(runner, out)
    data = json.loads(_report(runner, out, "json"))
    assert data["played_by"] == "native" and data["engine"] == "native"
    chunk = out / "chunk-000000002-000000004.json"
    one = json.loads(chunk.read_text())
    assert one["engines"][0]["played_by"] == "native"
    one["engines"] = [{"engine": "interpreter", "played_by": "interpreter",
                       "played_by_reason": "asked for with --engine interpreter"}]
    chunk.write_text(json.dumps(one))
    text = _flat(_report(runner, out))
    assert ("engine: mixed — chunks played by different engines: 4 deals by native; 2 deals by interpreter "
            "(played by the interpreter, as asked") in text
    data = json.loads(_report(runner, out, "json"))
    assert data["played_by"] == "mixed" and [c["deals"] for c in data["by_chunk"]] == [4, 2]
    for c in out.glob("chunk-*.json"):
        d = json.loads(c.read_text())
        d.pop("engines")
        c.write_text(json.dumps(d))
    assert "engine: not recorded (chunks written by an older gouji)" in _report(runner, out)


@needs_core
def test_report_of_a_paired_or_a_sweep_folder_names_the_engine_of_each_side(runner, tmp_path):
    paired, swept = tmp_path / "p", tmp_path / "s"
    assert runner.invoke(cli, ["diff", "online", "online-xuandian", "--simulate", "4", "--executor", "local",
                               "--out", str(paired)]).exit_code == 0
    assert "engine: native" in _report(runner, paired)
    assert any(line.startswith("> ") and "engine: native" in line for line in _report(runner, paired, "markdown").splitlines())
    assert json.loads(_report(runner, paired, "json"))["engine"]["b"]["played_by"] == "native"
    res = runner.invoke(cli, ["sweep", "online", "--grid", "yield_to=1,3", "--simulate", "4", "--executor", "local",
                              "--out", str(swept)])
    assert res.exit_code == 0 and "engine: native" in res.stdout
    assert "engine: native" in _report(runner, swept)
    assert set(json.loads(_report(runner, swept, "json"))["engine"]) == {"base", "P1", "P2"}
