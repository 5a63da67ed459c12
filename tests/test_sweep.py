"""``gouji sweep`` (gouji_dsl.tools.sweep; issue 28): the grid's points on the same deals as the base, Holm
across the whole family (statsmodels' multipletests as the oracle), a resumable run of kind sweep."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import sweep
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.figures import DESIGN_KEYS, SIDE_FIGURES

GRID = ["gouji_minimum.2=1,2", "yield_to=1,2"]




@pytest.fixture(scope="module")
def report() -> sweep.SweepReport:
    grids = sweep.parse_grids(GRID)
    graphs = sweep.load_points("online", grids)
    labels = [sweep.point_label(p) for p in sweep.points(grids)]
    return sweep.run_sweep(load_graph("online"), graphs, labels, GRID, 20, 3, workers=1, executor="local")


def test_the_grid_is_every_combination_and_the_base_point_is_the_base(report: sweep.SweepReport) -> None:
    assert report.labels == ["gouji_minimum.2=1 yield_to=1", "gouji_minimum.2=1 yield_to=2",
                             "gouji_minimum.2=2 yield_to=1", "gouji_minimum.2=2 yield_to=2"]
    # online's own values (RULES.md §3: one 2 is a gouji play; §4: a yield hands on to the next two):
    # point 2 is online itself, so every one of its deals ends as the base's does
    same = report.differences[1]
    assert same["outcome_changed"].value == 0.0
    assert all(same[k].value == 0.0 for k in ("decisions", "tricks", "score_spread"))
    assert report.point_stats[1].decisions.value == report.base_stats.decisions.value


def test_holm_is_across_every_figure_of_every_point(report: sweep.SweepReport) -> None:
    from statsmodels.stats.multitest import multipletests
    family = report.family()
    # every figure and each seat; the design metrics of 1 probed deal (deal 0 of 20) are no tests (MIN_PROBED)
    assert len(family) == 4 * (len(SIDE_FIGURES) - len(DESIGN_KEYS) + 6)
    assert all(d[k].p is None and d[k].low != d[k].low for d in report.differences for k in DESIGN_KEYS)
    assert f"all {len(family)} differences" in sweep.report_text(report)
    raw = [e.p for _k, _f, e in family if e.p is not None and e.p == e.p]
    adjusted = [e.p_adjusted for _k, _f, e in family if e.p is not None and e.p == e.p]
    want = multipletests(raw, method="holm")[1]
    assert adjusted == pytest.approx(list(want), abs=1e-12)


def test_bad_grid_options_are_positioned_at_the_grid() -> None:
    with pytest.raises(GoujiError) as e:
        sweep.load_points("online", sweep.parse_grids(["gouji_minimum.2=1,0", "yield_to=1,x"]))
    found = sorted((d.path, d.col, str(d.code)) for d in e.value.diagnostics)
    assert found == [("--grid[1]", 19, Code.OUT_OF_RANGE), ("--grid[2]", 12, Code.SETTING_TYPE_MISMATCH)]
    d = next(d for d in e.value.diagnostics if d.path == "--grid[1]")
    assert d.source_line == "gouji_minimum.2=1,0"
    with pytest.raises(GoujiError) as e:
        sweep.parse_grids(["yield_to=1,1", "nokey"])
    assert sorted((d.path, d.code) for d in e.value.diagnostics) == [("--grid[1]", Code.BAD_OVERRIDE),
                                                                     ("--grid[2]", Code.BAD_OVERRIDE)]
    assert [v.value for v in sweep.parse_grids(["sweep_places=[1, 2],[1,2,3]"])[0].values] == ["[1, 2]", "[1,2,3]"]


def test_a_sweep_resumes_in_its_out_folder_and_gouji_report_reads_it(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "run"
    args = ["sweep", "online", "--grid", "yield_to=1,3", "--simulate", "24", "--seed", "5", "--workers", "1",
            "--executor", "local", "--chunk-size", "8", "--out", str(out), "--format", "json"]
    whole = runner.invoke(cli, args)
    assert whole.exit_code == 0, whole.stderr
    chunks = sorted(out.glob("chunk-*.json"))
    assert len(chunks) == 3 and json.loads((out / "run.json").read_text())["spec"]["kind"] == "sweep"
    chunks[1].unlink()  # an interrupted run: one chunk never written
    again = runner.invoke(cli, args + ["--resume"])
    assert again.exit_code == 0, again.stderr
    a, b = json.loads(whole.stdout), json.loads(again.stdout)
    assert b["resumed_games"] == 16
    for k in ("workers", "elapsed_s", "executor", "resumed_games", "engine"):
        a.pop(k, None)
        b.pop(k, None)
    assert a == b
    rep = runner.invoke(cli, ["report", str(out), "--format", "json"])
    assert rep.exit_code == 0, rep.stderr
    assert json.loads(rep.stdout)["points"] == a["points"]
    text = runner.invoke(cli, ["sweep", "online", "--grid", "yield_to=1", "--simulate", "4", "--workers", "1"])
    assert text.exit_code == 0 and "P1: yield_to=1" in text.stdout and "Holm" in text.stdout
