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
from gouji_dsl.tools.figures import DESIGN_KEYS, SIDE_FIGURES, GameSummary

GRID = ["gouji_minimum.2=1,2", "yield_to=1,2"]




@pytest.fixture(scope="module")
def report() -> sweep.SweepReport:
    grids = sweep.parse_grids(GRID)
    graphs = sweep.load_points("online", grids)
    labels = [sweep.point_label(p) for p in sweep.points(grids)]
    return sweep.run_sweep(load_graph("online"), graphs, labels, GRID, 20, 3, workers=1, executor="local")


def test_the_grid_is_every_combination_and_the_base_point_is_marked_not_played(report: sweep.SweepReport,
                                                                            tmp_path: Path) -> None:
    assert report.labels == ["gouji_minimum.2=1 yield_to=1", "gouji_minimum.2=1 yield_to=2",
                             "gouji_minimum.2=2 yield_to=1", "gouji_minimum.2=2 yield_to=2"]
    # online's own values (RULES.md §3: one 2 is a gouji play; §4: a yield hands on to the next two):
    # point 2 is online itself: "= base" in every output, no figures of its own, no test
    assert report.same_as == [None, "base", None, None] and report.differences[1] is None
    assert report.point_stats[1] is report.base_stats
    assert all(k != 1 for k, _f, _e in report.family())
    text, md = sweep.report_text(report), sweep.report_markdown(report)
    assert "P2: gouji_minimum.2=1 yield_to=2  (= base: plays exactly as online; not played, no test)" in text
    assert text.count("= base") >= len(SIDE_FIGURES) + 6 and md.count("| = base |") >= len(SIDE_FIGURES) + 6
    point = json.loads(sweep.report_json(report))["points"][1]
    assert point["same_as"] == "base" and point["differences"] is None
    assert [p["same_as"] for p in json.loads(sweep.report_json(report))["points"]] == [None, "base", None, None]
    # ... and it is not played: the run folder holds the base and the three other points
    grids = sweep.parse_grids(GRID)
    out = tmp_path / "run"
    sweep.run_sweep(load_graph("online"), sweep.load_points("online", grids), report.labels, GRID, 2, 3, workers=1,
                    executor="local", out=out)
    assert len(json.loads((out / "run.json").read_text())["spec"]["rulesets"]) == 4


def test_a_point_that_plays_as_an_earlier_one_shows_its_figures_once() -> None:
    grids = sweep.parse_grids(["sweep_places=[1, 2, 3],[1,2,3],[1, 2]"])  # online's own, written twice, then another
    base = load_graph("online")
    graphs = sweep.load_points("online", grids)
    assert sweep.same_as(base, graphs) == ["base", "base", None]
    grids = sweep.parse_grids(["yield_to=1", "sweep_places=[1, 2],[1,2]"])
    graphs = sweep.load_points("online", grids)
    assert sweep.same_as(base, graphs) == [None, "P1"]
    labels = [sweep.point_label(p) for p in sweep.points(grids)]
    r = sweep.run_sweep(base, graphs, labels, ["yield_to=1", "sweep_places=[1, 2],[1,2]"], 4, 1, workers=1, executor="local")
    assert r.differences[1] is r.differences[0] and all(k == 0 for k, _f, _e in r.family())
    assert "P2: yield_to=1 sweep_places=[1,2]  (= P1: plays exactly as P1; not played again, no test)" in sweep.report_text(r)
    with pytest.raises(ValueError, match="every point of the grid plays as online"):
        sweep.run_sweep(base, sweep.load_points("online", sweep.parse_grids(["yield_to=2"])), ["yield_to=2"], ["yield_to=2"],
                        2, 1, workers=1, executor="local")


def test_holm_is_across_one_test_per_independent_figure(report: sweep.SweepReport) -> None:
    from statsmodels.stats.multitest import multipletests
    family = report.family()
    # RULES.md §7 (base.yaml score.team-sum): each player scores his team's sum, the teams alternate seats
    # (1, 3, 5 against 2, 4, 6) and the points are zero-sum: at every point seats 3 and 5 repeat seat 1's
    # differences and the even seats are their negatives — one test, marked from seat 1
    for k in (0, 2, 3):
        m = report.mirrors[k]
        assert {r: m[r] for r in m if r.startswith("seat_score.")} == {
            "seat_score.2": ("seat_score.1", -1), "seat_score.3": ("seat_score.1", 1), "seat_score.4": ("seat_score.1", -1),
            "seat_score.5": ("seat_score.1", 1), "seat_score.6": ("seat_score.1", -1)}
        d = report.differences[k]
        for row, (rep, sign) in m.items():
            e, r = sweep._get(d, row), sweep._get(d, rep)
            assert e.value == pytest.approx(sign * r.value) and e.p_adjusted == r.p_adjusted and e.p == r.p
    # every figure and seat 1 at the three points played, the design metrics too (online's whole native
    # games give them for every one of the 20 deals: MIN_PROBED or more); a mirror row is not a test of its own
    tests = len(SIDE_FIGURES) + 6
    assert len(family) == sum(tests - len(report.mirrors[k]) for k in (0, 2, 3))
    assert all(key not in report.mirrors[k] for k, key, _e in family)
    assert all(d[k].p is not None and d[k].n == 20 for d in report.differences if d is not None for k in DESIGN_KEYS)
    assert f"the {len(family)} independent differences" in sweep.report_text(report)
    assert json.loads(sweep.report_json(report))["statistics"]["family_size"] == len(family)
    assert json.loads(sweep.report_json(report))["points"][0]["mirrors"]["seat_score.2"] == "-seat_score.1"
    raw = [e.p for _k, _f, e in family if e.p is not None and e.p == e.p]
    adjusted = [e.p_adjusted for _k, _f, e in family if e.p is not None and e.p == e.p]
    want = multipletests(raw, method="holm")[1]
    assert adjusted == pytest.approx(list(want), abs=1e-12)


def _game(index: int, scores: tuple[int, ...], revolutions: int, redeals: int) -> GameSummary:
    return GameSummary(index, (1, 2, 3, 4, 5, 6), scores, False, 100, 20, None, 0, 0, 0, revolutions, redeals)


def test_mirrors_are_rows_equal_or_opposite_on_every_deal_and_merge_conservatively() -> None:
    from gouji_dsl.tools.figures import Mirrors, PairTotals, SideTotals
    # a redeal only after a revolution (online's revolution.void-deal in a first game): the two yes/no rows
    # are one test; flags that are complements ("not redealt") would be one test too (negated differences)
    a = [_game(i, (2, -2, 2, -2, 2, -2), 0, 0) for i in range(4)]
    b = [_game(i, (4, -4, 4, -4, 4, -4) if i % 2 else (0, 0, 0, 0, 0, 0), i % 2, i % 2) for i in range(4)]
    t = PairTotals(SideTotals(6, 2), SideTotals(6, 2))
    t.add_block(list(zip(a, b)), 1)
    m = sweep.mirrors_of(t)
    assert m["redeal_rate"] == ("revolution_rate", 1) and m["seat_score.2"] == ("seat_score.1", -1)
    assert "sweep_rate" not in m  # (all 0: no test to share, p = 1 stays its own)
    groups = Mirrors.rows(6)
    c = Mirrors()
    c.add({"revolution_rate": 1, "redeal_rate": -1}, groups)
    assert c.of("redeal_rate", groups[1]) == ("revolution_rate", -1)
    # JSON round trip; a chunk written before mirrors were kept has none, and a merge with it keeps none
    again = PairTotals.from_json(json.loads(json.dumps(t.to_json())))
    assert sweep.mirrors_of(again) == m
    old = t.to_json()
    old.pop("mirrors")
    t.merge(PairTotals.from_json(old))
    assert sweep.mirrors_of(t) == {}


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


def test_a_chunk_whose_mirrors_its_own_sums_deny_is_refused_at_the_pair(runner: CliRunner, tmp_path: Path) -> None:
    out = tmp_path / "run"
    made = runner.invoke(cli, ["sweep", "online", "--grid", "yield_to=1", "--simulate", "4", "--workers", "1",
                               "--executor", "local", "--out", str(out), "--format", "json"])
    assert made.exit_code == 0, made.stderr
    chunk = sorted(out.glob("chunk-*.json"))[0]
    data = json.loads(chunk.read_text())
    assert "seat_score.1|seat_score.3" in data["totals"]["points"][0]["mirrors"]["same"]
    data["totals"]["points"][0]["mirrors"]["same"].append("seat_score.1|seat_score.2")  # (seat 2 is seat 1's negative)
    chunk.write_text(json.dumps(data))
    rep = runner.invoke(cli, ["report", str(out)])
    assert rep.exit_code == 1
    assert "totals.points[0].mirrors.same[" in rep.stderr and "seat_score.1|seat_score.2 is not a pair of rows" in rep.stderr


def test_one_point_is_said_in_the_singular_and_the_base_point_has_no_skill_difference(report) -> None:
    import dataclasses

    from gouji_dsl.tools.skill import Skill
    from gouji_dsl.tools.stats import mean_ci
    one = dataclasses.replace(report, labels=report.labels[:1])
    assert "1 point × 20 deals" in sweep._title(one) and "4 points × 20 deals" in sweep._title(report)
    units = (20.0, 24.0, 22.0)
    s = Skill("heuristic", "random", 3, mean_ci(list(units)), units)
    r = dataclasses.replace(report, skills=[s] * 5)
    rows = r.skill_rows()
    assert rows[2] == "P2 − online: = base" and "[" in rows[1]  # (P2 is online itself: no 0-wide interval)
    points = r.to_dict()["skill"]["points"]
    assert points[1]["difference"] is None and points[0]["difference"] is not None


def test_the_report_of_a_sweep_folder_numbers_and_marks_the_points_as_the_run(tmp_path: Path, runner) -> None:
    out = tmp_path / "run"
    args = ["sweep", "online", *(x for g in GRID for x in ("--grid", g)), "--simulate", "2", "--workers", "1"]
    ran = runner.invoke(cli, [*args, "--out", str(out)])
    assert ran.exit_code == 0, ran.output
    rep = runner.invoke(cli, ["report", str(out)])
    assert rep.exit_code == 0, rep.output
    for line in ("P2: gouji_minimum.2=1 yield_to=2  (= base", "P3: gouji_minimum.2=2 yield_to=1",
                 "P4: gouji_minimum.2=2 yield_to=2"):
        assert line in ran.output and line in rep.output
    assert "4 points" in rep.output


def test_a_points_file_that_disagrees_with_the_chunks_is_an_error_naming_it(tmp_path: Path, runner) -> None:
    """A sweep folder's points.json edited, or copied from another run, would number and mark the
    points wrongly: gouji report names the file and why (exit 1), and reads the folder once it is gone."""
    out = tmp_path / "run"
    args = ["sweep", "online", *(x for g in GRID for x in ("--grid", g)), "--simulate", "2", "--workers", "1"]
    assert runner.invoke(cli, [*args, "--out", str(out)]).exit_code == 0
    points = out / sweep.POINTS_FILE
    good = json.loads(points.read_text(encoding="utf-8"))
    other = dict(good, labels=[lab.replace("yield_to=1", "yield_to=3") for lab in good["labels"]])
    for text, why in ((json.dumps(other), "are not the run's"), ("{", "cannot be read"),
                      (json.dumps(dict(good, same_as=[None] * len(good["labels"]))), "are not the run's"),
                      (json.dumps(dict(good, same_as=["P9"] + good["same_as"][1:])), "same_as")):
        points.write_text(text, encoding="utf-8")
        rep = runner.invoke(cli, ["report", str(out)])
        assert rep.exit_code == 1, rep.output
        assert str(points) in rep.stderr and why in rep.stderr and "Traceback" not in rep.stderr
    points.unlink()
    rep = runner.invoke(cli, ["report", str(out)])
    assert rep.exit_code == 0 and "3 points" in rep.output  # the played points, numbered anew


def test_a_sweep_resumed_with_more_deals_equals_a_fresh_sweep(runner: CliRunner, tmp_path: Path) -> None:
    """Issue 24: a sweep of 12 deals in chunks of 8 (a short last chunk 8..11) resumed with 20 deals
    plays that chunk again whole; the figures are a fresh sweep's of 20."""
    out = tmp_path / "run"
    args = ["sweep", "online", "--grid", "yield_to=1,3", "--seed", "5", "--workers", "1", "--executor", "local",
            "--chunk-size", "8", "--format", "json"]
    assert runner.invoke(cli, args + ["--simulate", "12", "--out", str(out)]).exit_code == 0
    grown = runner.invoke(cli, args + ["--simulate", "20", "--out", str(out), "--resume"])
    assert grown.exit_code == 0, grown.stderr
    fresh = runner.invoke(cli, args + ["--simulate", "20"])
    a, b = json.loads(grown.stdout), json.loads(fresh.stdout)
    assert a["resumed_games"] == 8
    for k in ("workers", "elapsed_s", "executor", "resumed_games", "games_per_s"):
        a.pop(k, None)
        b.pop(k, None)
    assert a == b
    assert sorted(p.name for p in out.glob("chunk-*.json")) == ["chunk-000000000-000000008.json",
                                                              "chunk-000000008-000000016.json",
                                                              "chunk-000000016-000000020.json"]


def test_the_same_bot_at_every_seat_is_said_once(runner: CliRunner, report) -> None:
    # (N5) random,random is random at the odd seats and at the even ones: one bot, said once
    args = ["sweep", "online", "--grid", "yield_to=1", "--simulate", "2", "--workers", "1", "--bots"]
    text = runner.invoke(cli, [*args, "random,random"])
    assert text.exit_code == 0, text.output
    assert "seed 1, random bots" in text.stdout
    assert json.loads(runner.invoke(cli, [*args, ",".join(["random"] * 6), "--format", "json"]).stdout)["bots"] == "random"
    import dataclasses
    assert "seed 3, random bots" in sweep._title(dataclasses.replace(report, bots=["random"] * 6))  # (an older run folder's)


def test_a_point_with_another_pack_is_said_paired_by_seed_per_point(tmp_path: Path) -> None:
    # RULES.md §1: four decks; a point of five deals another pack, so deal i is only seeded alike (gouji diff's
    # paired_by); the points file says so for gouji report, and is written by renaming (a planted symlink is replaced)
    import dataclasses

    from gouji_dsl.tools.skill import Skill
    from gouji_dsl.tools.stats import mean_ci
    grid = ["deck.decks=4,5", "yield_to=1"]
    grids = sweep.parse_grids(grid)
    labels = [sweep.point_label(p) for p in sweep.points(grids)]
    out = tmp_path / "run"
    out.mkdir()
    outside = tmp_path / "outside.json"
    outside.write_text("mine\n", encoding="utf-8")
    (out / sweep.POINTS_FILE).symlink_to(outside)
    r = sweep.run_sweep(load_graph("online"), sweep.load_points("online", grids), labels, grid, 2, 3, workers=1,
                        executor="local", out=out)
    assert r.paired_by == ["deal", "seed"]
    assert [p["paired_by"] for p in json.loads(sweep.report_json(r))["points"]] == ["deal", "seed"]
    assert "another pack than online: paired by seed" in sweep.legend_lines(r)[1] and "pack" not in sweep.legend_lines(r)[0]
    s = Skill("heuristic", "random", 2, mean_ci([20.0, 24.0]), (20.0, 24.0))
    rows = dataclasses.replace(r, skills=[s] * 3).skill_rows()
    assert rows[1].endswith("(paired by deal)") and "(paired by seed" in rows[2]
    assert "paired by seed" in sweep.footer_text(r)
    assert outside.read_text(encoding="utf-8") == "mine\n" and not (out / sweep.POINTS_FILE).is_symlink()
    assert json.loads((out / sweep.POINTS_FILE).read_text(encoding="utf-8"))["paired_by"] == ["deal", "seed"]
    assert sweep.load_report([out]).paired_by == ["deal", "seed"]


def test_sweep_takes_set_as_the_other_commands_do_and_plays_as_a_variant_file(runner: CliRunner, tmp_path: Path) -> None:
    """(t28d bug 9) --set makes the base (and is under every point): the same figures as a sweep of the
    variant file with that setting; its problems at --set[N] as every command gives them."""
    variant = tmp_path / "nofill.yaml"
    variant.write_text("ruleset: nofill\nextends: online\nsettings:\n  filler_rank: null\n", encoding="utf-8")
    args = ["--grid", "yield_to=1,2", "--simulate", "6", "--workers", "1", "--format", "json"]
    by_set = runner.invoke(cli, ["sweep", "online", "--set", "filler_rank=null", *args])
    by_file = runner.invoke(cli, ["sweep", str(variant), *args])
    assert by_set.exit_code == 0 and by_file.exit_code == 0, by_set.stderr + by_file.stderr
    a, b = json.loads(by_set.stdout), json.loads(by_file.stdout)
    assert a["base"] == "online --set filler_rank=null" and b["base"] == "nofill"
    assert [p["differences"] for p in a["points"]] == [p["differences"] for p in b["points"]]
    assert {**a["base_stats"], "name": "nofill"} == b["base_stats"]
    bad = runner.invoke(cli, ["sweep", "online", "--set", "filler_rank=nul", *args])
    assert bad.exit_code == 1 and bad.stderr.startswith("--set[1]:1:13: ") and "[ValueNotAllowed]" in bad.stderr
    both = runner.invoke(cli, ["sweep", "online", "--set", "yield_to=1", *args])
    assert both.exit_code == 1 and "Traceback" not in both.stderr
    assert both.stderr.startswith("--grid[1]:1:1: yield_to is set twice: by --set yield_to=1 and by --grid yield_to=1,2 "
                                  "[BadOverride]")


def test_a_grid_that_is_not_key_values_is_told_how_to_write_a_grid() -> None:
    """(t28d bug 8) the hint of a --grid syntax error speaks of --grid, not --set."""
    with pytest.raises(GoujiError) as e:
        sweep.parse_grids(["yield_to", "a..b=1,2"])
    [no_eq, empty] = e.value.diagnostics
    assert (no_eq.path, no_eq.col, no_eq.code) == ("--grid[1]", 1, Code.BAD_OVERRIDE)
    assert (empty.path, empty.col) == ("--grid[2]", 3)
    for d in (no_eq, empty):
        assert d.hint is not None and d.hint.startswith("write --grid KEY=V1,V2,...") and "--set" not in d.hint
    assert no_eq.message.startswith("a grid is KEY=V1,V2,...: no '='")
