"""Tests for gouji_dsl.tools.compare (rule diff, paired simulation), gouji_dsl.tools.stats and ``gouji diff``."""
from __future__ import annotations

import json
import math
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl import resources
from gouji_dsl.ruleset.graph import compile_ruleset, load_graph
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.ruleset.load.resolving import resolve, resolve_text
from gouji_dsl.tools import compare, figures, runspec
from gouji_dsl.tools.cli_diff import diff_command
from gouji_dsl.tools.compare import diff_json, diff_markdown, diff_text, rule_diff
from gouji_dsl.tools.paired import paired_simulation, report_json, report_markdown, report_text, save_divergent
from gouji_dsl.tools.stats import mean_ci, newcombe_diff, paired_mean_diff, wilson

VARIANT = """
ruleset: variant
extends: online
title: A test variant
source: "seed 000"
settings:
  gouji_minimum: {"2": 2}
  filler_rank:
    value: null
    says: "2s may not fill out a group (贴钱 is obsolete)."
    source: "seed 000, 牌型"
rules:
  - id: burn.who
    on: burn
    allow: "seat != opposite(top.seat)"
    says: "Anyone but the opposite may burn, even after passing."
  - id: yield.how-many
    on: yield_to
    value: "1"
  - id: view.hands-hidden
    on: see_hand
    allow: "false"
    says: "Nobody sees another player's hand."
remove: [view.count-at-ten]
"""

# Only settings change: same pack, so the paired games are dealt the same cards.
SIM_VARIANT = """
ruleset: simvariant
extends: online
source: "seed 000"
settings:
  gouji_minimum: {"2": 2}
  filler_rank: null
"""


def write(folder: Path, name: str, text: str) -> Path:
    p = folder / name
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return p


def line_of(path: Path, needle: str) -> int:
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if needle in line:
            return i
    raise AssertionError(f"{needle!r} not in {path}")


@pytest.fixture(scope="module")
def folder(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("rules")
    write(d, "variant.yaml", VARIANT)
    write(d, "simvariant.yaml", SIM_VARIANT)
    return d


@pytest.fixture(scope="module")
def online():
    return resolve("online")


@pytest.fixture(scope="module")
def variant(folder):
    return resolve(folder / "variant.yaml")


@pytest.fixture(scope="module")
def variant_diff(online, variant):
    return rule_diff(online, variant)


# ------------------------------------------------------------------------------------------ stats
def test_mean_ci_matches_formula():
    xs = [1, 2, 3, 4, 5, 6, 7, 8]
    e = mean_ci(xs)
    sd = math.sqrt(sum((x - 4.5) ** 2 for x in xs) / 7)
    assert e.value == 4.5 and e.n == 8
    assert e.high - e.value == pytest.approx(1.959964 * sd / math.sqrt(8), rel=1e-6)
    assert math.isnan(mean_ci([3]).low) and mean_ci([3]).to_dict()["low"] is None


def test_wilson_known_values():
    e = wilson(5, 10)
    assert (round(e.low, 4), round(e.high, 4)) == (0.2366, 0.7634)
    z = wilson(0, 20)
    assert z.value == 0 and z.low == 0 and 0.15 < z.high < 0.17
    assert wilson(0, 0).n == 0 and math.isnan(wilson(0, 0).value)


def test_paired_and_newcombe():
    d = paired_mean_diff([1, 2, 3], [2, 3, 4])
    assert d.value == 1 and d.low == d.high == 1 and d.kind == "paired"
    n = newcombe_diff(10, 100, 30, 100)
    assert n.value == pytest.approx(0.2) and n.low > 0 and n.high < 0.35 and n.excludes_zero


# ------------------------------------------------------------------------------------------ rule diff
def test_identity_diff_is_empty(online):
    d = rule_diff(online, online)
    assert d.empty and len(d) == 0 and d.summaries() == []
    assert "No differences" in diff_text(d)
    assert "No differences" in diff_markdown(d)
    assert json.loads(diff_json(d))["identical"] is True
    base = resolve("base")
    assert rule_diff(base, resolve("base")).empty
    g = load_graph("online")
    assert rule_diff(g, g).empty  # compiled graphs are accepted too


def test_setting_changes_with_values_and_origins(variant_diff, folder):
    vfile = folder / "variant.yaml"
    base = resources.rules_dir() / "base.yaml"
    gm = variant_diff.setting("gouji_minimum")
    assert gm is not None and gm.kind == "changed"
    assert [k.key for k in gm.keys] == ["2"]  # only the changed key of the mapping
    k = gm.keys[0]
    assert (k.a.value, k.b.value) == (1, 2)
    assert k.a.origin.path == str(base) and k.a.origin.line == line_of(base, "value: {T: 5, J: 4")
    assert k.b.origin.path == str(vfile) and k.b.origin.line == line_of(vfile, "gouji_minimum")
    assert k.a.source == resolve("base").settings["gouji_minimum"].source
    assert k.b.source == "seed 000"  # the variant file's own source
    assert k.summary == (f"gouji_minimum.2: 1 (base.yaml:{k.a.origin.line}, {k.a.source}) "
                         f"vs 2 (variant.yaml:{k.b.origin.line}, seed 000)")

    fr = variant_diff.setting("filler_rank")
    assert fr is not None and fr.kind == "changed" and fr.keys == ()
    assert (fr.a.value, fr.b.value) == ("2", None)
    assert fr.a.where == f"base.yaml:{line_of(base, 'filler_rank:') + 1}"
    assert fr.b.where == f"variant.yaml:{line_of(vfile, 'value: null')}"
    assert fr.b.says == "2s may not fill out a group (贴钱 is obsolete)." and fr.b.source == "seed 000, 牌型"
    assert fr.summary.startswith('filler_rank: "2" (base.yaml:') and "vs null (variant.yaml:" in fr.summary
    assert "贴钱 is obsolete" in fr.summary

    # settings that are equal are not reported
    assert variant_diff.setting("ranks") is None and variant_diff.setting("revolution") is None
    text = diff_text(variant_diff, 120)
    for needle in ("gouji_minimum.2: 1 (base.yaml:", "filler_rank", "seed 000, 牌型", "│"):
        assert needle in text


def test_rule_changes_added_removed_changed(variant_diff):
    kinds = {r.id: r.kind for r in variant_diff.rules}
    assert kinds == {"burn.who": "changed", "yield.how-many": "changed", "view.count-at-ten": "removed",
                     "view.hands-hidden": "added"}
    who = variant_diff.rule("burn.who")
    assert who.fields == ("expr", "says")  # its sentence changed too (issue 23 item 10)
    assert who.a.expr == resolve("base").rule("burn.who").effect_expr.text
    assert who.b.expr == "seat != opposite(top.seat)"
    assert who.a.file.endswith("base.yaml") and who.b.file.endswith("variant.yaml")
    assert "Of the players offered the burn" in who.summary and "Anyone but the opposite" in who.summary
    # no words of its own: the summary shows the expressions instead
    ym = variant_diff.rule("yield.how-many")
    assert "`settings.yield_to` → `1`" in ym.summary
    removed = variant_diff.rule("view.count-at-ten")
    assert removed.removed_by and removed.b is None and "removes it" in removed.summary
    added = variant_diff.rule("view.hands-hidden")
    assert added.a is None and added.b.says in added.summary and "variant.yaml:" in added.summary
    # inherited, unchanged rules are not reported
    assert variant_diff.rule("gouji.minimum") is None


@pytest.mark.skipif("rulebook" not in list_bundled(), reason="the rulebook ruleset is not bundled yet")
def test_online_vs_rulebook():
    d = rule_diff(resolve("online"), resolve("rulebook"))
    gm = d.setting("gouji_minimum")
    assert gm is not None and [k.key for k in gm.keys if k.key == "2"] == ["2"]
    k = next(k for k in gm.keys if k.key == "2")
    assert (k.a.value, k.b.value) == (1, 2) and k.b.where.startswith("rulebook.yaml:")
    assert d.setting("filler_rank") is not None
    assert any(s.startswith("gouji_minimum.2: 1 (") and "vs 2 (rulebook.yaml:" in s for s in d.summaries())


def test_changed_hook_and_guard_and_definitions(tmp_path):
    write(tmp_path, "g.yaml", """
        ruleset: g
        extends: online
        definitions:
          scramble: "count(active_seats) <= 3"
        rules:
          - id: pass.no-reentry
            on: follow
            when: "passed(seat)"
            require: "seat == opposite(top.seat)"
            says: "Once you pass you may not play again in this trick, except to answer your opposite."
    """)
    d = rule_diff(resolve("online"), resolve(tmp_path / "g.yaml"))
    r = d.rule("pass.no-reentry")
    assert r.kind == "changed" and r.fields == ("when",)
    assert r.a.when == "passed(seat) and not scramble" and r.b.when == "passed(seat)"
    assert [x.name for x in d.definitions] == ["scramble"]
    assert d.definitions[0].kind == "changed" and "count(active_seats) <= 3" in d.definitions[0].summary


TOWN = """
ruleset: town
title: An unrelated ruleset (no extends)
source: "a town's house rules"
settings:
  seats: 6
  gouji_minimum: {T: 5, J: 4, Q: 3, K: 2, A: 2, "2": 2}
  sweep_multiplier: 3
rules:
  - id: gouji.minimum
    on: gouji
    value: "play.jokers > 0"
    says: "Only plays with a joker are gouji plays."
"""


def test_unrelated_rulesets_and_unsaved_buffer(tmp_path):
    town = write(tmp_path, "town.yaml", TOWN)
    d = rule_diff(resolve("online"), resolve(town))
    k = d.setting("gouji_minimum").keys
    assert [(x.key, x.a.value, x.b.value) for x in k] == [("2", 1, 2)]
    assert k[0].b.where == "town.yaml:6" and k[0].b.source == "a town's house rules"
    assert d.setting("seats") is None  # equal values, different files: no difference
    assert d.setting("sweep_multiplier").summary.startswith("sweep_multiplier: 2 (base.yaml:")
    assert d.setting("ranks").kind == "removed" and d.setting("ranks").b is None
    gm = d.rule("gouji.minimum")
    assert gm.kind == "changed" and gm.b.expr == "play.jokers > 0" and "Only plays with a joker" in gm.summary
    removed = [r for r in d.rules if r.kind == "removed"]
    assert removed and not any(r.removed_by for r in removed)  # absent from B, not dropped with `remove:`
    assert all(x.kind == "removed" for x in d.definitions)
    assert rule_diff(resolve(town), resolve(town)).empty
    # an unsaved buffer compared with the file it edits (same path)
    buffer = town.read_text(encoding="utf-8").replace("multiplier: 3", "multiplier: 4")
    d2 = rule_diff(resolve(town), resolve_text(buffer, town))
    assert d2.labels == ("A town", "B town")
    assert [s.summary for s in d2.settings] == [
        "sweep_multiplier: 3 (town.yaml:7, a town's house rules) vs 4 (town.yaml:7, a town's house rules)"]


def test_diff_renderers(variant_diff):
    md = diff_markdown(variant_diff)
    assert "| Setting | online | variant |" in md and "| `gouji_minimum.2` |" in md
    assert "| Rule | Change | online | variant |" in md and "## In words" in md
    narrow = diff_text(variant_diff, 60)
    assert all(compare.disp_width(line) <= 60 for line in narrow.splitlines())
    assert "│" not in narrow and "  online:" in narrow
    wide = diff_text(variant_diff, 140)
    assert all(compare.disp_width(line) <= 140 for line in wide.splitlines())
    data = json.loads(diff_json(variant_diff))
    assert set(data) == {"a", "b", "identical", "counts", "settings", "rules", "definitions", "words", "summaries"}
    assert data["identical"] is False and data["a"]["name"] == "online" and data["b"]["name"] == "variant"
    assert data["counts"] == {"settings": 2, "rules": 4, "definitions": 0, "rules_added": 1,
                              "rules_removed": 1, "rules_changed": 2, "words": 0}
    s = next(x for x in data["settings"] if x["name"] == "gouji_minimum")
    assert set(s) == {"name", "kind", "a", "b", "keys", "summary"}
    assert set(s["keys"][0]) == {"key", "kind", "a", "b", "summary"}
    assert set(s["keys"][0]["a"]) == {"value", "origin", "where", "says", "source"}
    r = next(x for x in data["rules"] if x["id"] == "burn.who")
    assert set(r) == {"id", "kind", "fields", "a", "b", "summary", "removed_by_remove"}
    assert diff_json(variant_diff) == diff_json(variant_diff)  # stable


# ------------------------------------------------------------------------------------------ simulation
@pytest.fixture(scope="module")
def graphs(folder):
    return load_graph("online"), load_graph(folder / "simvariant.yaml")


@pytest.fixture(scope="module")
def report_w1(graphs):
    a, b = graphs
    return paired_simulation(a, b, 6, seed=11, workers=1, top=3)


def test_paired_simulation_is_reproducible_and_independent_of_workers(graphs, report_w1, folder):
    a, b = graphs
    seen = []
    again = paired_simulation(a, b, 6, seed=11, workers=1, top=3)
    two = paired_simulation(a, b, 6, seed=11, workers=2, top=3, progress=lambda d, t: seen.append((d, t)))
    assert report_w1.to_dict(records=True, timing=False) == again.to_dict(records=True, timing=False)
    assert report_w1.to_dict(records=True, timing=False) == two.to_dict(records=True, timing=False)
    assert two.workers == 2 and seen and seen[-1] == (6, 6)
    # names / paths are accepted too (resolved and compiled here)
    named = paired_simulation("online", str(folder / "simvariant.yaml"), 6, seed=11, workers=1, top=3)
    assert named.to_dict(timing=False) == report_w1.to_dict(timing=False)
    other_seed = paired_simulation(a, b, 6, seed=12, workers=1, top=3)
    assert other_seed.to_dict(timing=False)["stats"] != report_w1.to_dict(timing=False)["stats"]


def test_paired_games_match_play_game(graphs, report_w1):
    from gouji_dsl.tools.runchunks import play_chunk
    from gouji_dsl.tools.runspec import RunSpec
    from gouji_dsl.tools.simulate import play_game
    a, b = graphs
    res, _ = play_game(a, 11, 4, "random")
    t = play_chunk((a, b), RunSpec((a.resolved, b.resolved), 11), 4, 5)
    assert t.a.games == 1 and t.a.means["decisions"].s == res.decisions
    assert [s.s for s in t.a.seat_score] == [res.scores[s] for s in range(1, 7)]
    assert report_w1.same_deck
    # the two games of a pair are dealt the same cards
    ra, _ = play_game(a, 11, 0, "random")
    rb, _ = play_game(b, 11, 0, "random")
    assert ra.record[0] == rb.record[0] and ra.record[0]["type"] == "deal"


def test_report_figures_and_divergent_deals(report_w1, tmp_path):
    r = report_w1
    assert r.games == 6 and r.a.games == 6 and r.a.decisions.n == 6
    assert set(r.a.seat_score) == set(range(1, 7)) and set(r.a.place_distribution[1]) == set(range(1, 7))
    for s in range(1, 7):  # every seat finishes somewhere every game
        assert sum(e.count for e in r.a.place_distribution[s].values()) == 6
    assert r.differences["decisions"].value == pytest.approx(r.b.decisions.value - r.a.decisions.value)
    assert 0 < len(r.divergent) <= 3
    diffs = [d.score_difference for d in r.divergent]
    assert diffs == sorted(diffs, reverse=True)
    d0 = r.divergent[0]
    assert d0.deal == f"11:{d0.index}" and d0.record_a and d0.record_b
    assert d0.record_a[-1]["type"] == "game_over"
    assert {str(s): p for s, p in enumerate(d0.a.places, 1)} == d0.record_a[-1]["places"]
    paths = save_divergent(r, tmp_path / "div")
    assert len(paths) == len(r.divergent)
    saved = json.loads(paths[0].read_text(encoding="utf-8"))
    assert set(saved) == {"format", "deal", "seed", "index", "bots", "score_difference", "places_changed", "a", "b"}
    assert set(saved["a"]) == {"ruleset", "path", "places", "scores", "sweep", "match_start", "match_length",
                               "record"}
    assert saved["a"]["record"] == d0.record_a and saved["b"]["ruleset"] == "simvariant"


def test_identical_rulesets_never_diverge(graphs):
    a, _ = graphs
    r = paired_simulation(a, a, 3, seed=5, workers=1)
    assert r.divergent == [] and r.differences["outcome_changed"].value == 0
    assert r.differences["decisions"].value == 0


def test_report_renderers_and_json_keys(report_w1):
    data = json.loads(report_json(report_w1))
    assert set(data) == {"a", "b", "games", "seed", "bots", "same_deck", "match_length", "stats", "differences",
                         "divergent", "statistics", "workers", "elapsed_s", "executor", "chunk_size", "engine",
                         "resumed_games", "games_per_s"}
    side = data["stats"]["a"]
    assert set(side) == {"name", "games", "burn_attempts", "burn_successes", "decisions", "tricks", "score_spread",
                         "first_leader_team_score", "sweep_rate", "burns_per_game", "burn_success_rate",
                         "revolution_rate", "redeal_rate", "seat_score", "place_distribution", "spread_histogram",
                         "real_choice_share", "lead_changes", "settled_at"}
    assert set(side["decisions"]) == {"value", "low", "high", "n", "kind"}
    assert set(side["sweep_rate"]) == {"value", "low", "high", "n", "kind", "count"}
    assert set(data["differences"]) == {k for k, _, _ in figures.DIFF_FIGURES} | {"seat_score"}
    assert set(data["divergent"][0]) == {"rank", "index", "deal", "score_difference", "places_changed", "a", "b",
                                         "match_start_a", "match_start_b"}
    for width in (80, 120):
        text = report_text(report_w1, width)
        assert "decisions per game" in text and "Places by seat" in text
        assert all(compare.disp_width(line) <= width for line in text.splitlines())
    md = report_markdown(report_w1)
    assert "| Figure | online | simvariant | B − A | Effect |" in md


MATCH_VARIANT = """
ruleset: matchvariant
extends: online
settings:
  match_games: 3
  tribute: {order: [fall]}
"""


def test_matches_are_chained_and_independent_of_workers(tmp_path, graphs):
    """A ruleset with matches (tribute between games) against one without: chunks follow match
    boundaries, so workers=1 and workers=2 agree; single-game mode plays every deal afresh.
    The variant is an unsaved editor buffer (its file does not exist): workers compile it too."""
    from gouji_dsl.engine.interpreter import match_length
    from gouji_dsl.tools.simulate import play_game
    buffer = resolve_text(textwrap.dedent(MATCH_VARIANT), tmp_path / "matchvariant.yaml")
    mv = compile_ruleset(buffer)
    if match_length(mv) != 3:
        pytest.skip("settings.match_games does not set the match length in this version of base")
    online = graphs[0]
    one = paired_simulation(online, mv, 7, seed=4, workers=1, top=2)
    two = paired_simulation("online", buffer, 7, seed=4, workers=2, top=2)
    assert one.to_dict(records=True, timing=False) == two.to_dict(records=True, timing=False)
    assert (one.match_length_a, one.match_length_b) == (1, 3)
    # game 1 under the variant is the second game of a match: it follows game 0
    first, state = play_game(mv, 4, 0, "random")
    second, _ = play_game(mv, 4, 1, "random", previous=state)
    from gouji_dsl.tools.runchunks import play_chunk
    from gouji_dsl.tools.runspec import RunSpec
    t = play_chunk((online, mv), RunSpec((online.resolved, buffer), 4), 0, 2)
    assert t.b.means["decisions"].s == first.decisions + second.decisions
    assert t.b.means["decisions"].clusters == 1  # the two games of a match are one cluster
    for d in one.divergent:
        assert d.match_start_a == d.index and d.match_start_b == d.index - d.index % 3
    single = paired_simulation(online, mv, 2, seed=4, workers=1, matches=False)
    fresh, _ = play_game(mv, 4, 1, "random")
    assert single.match_length_b == 1
    assert single.totals.b.means["decisions"].s == first.decisions + fresh.decisions


def test_bad_arguments(graphs):
    a, b = graphs
    with pytest.raises(ValueError):
        paired_simulation(a, b, 0, seed=1)
    with pytest.raises(ValueError):
        paired_simulation(a, b, 2, seed=1, bots="clever")


def test_cancel(graphs):
    import threading
    ev = threading.Event()
    ev.set()
    with pytest.raises(runspec.SimulationCancelled):
        paired_simulation(*graphs, 2, seed=1, workers=1, cancel=ev)


# ------------------------------------------------------------------------------------------ CLI
def test_cli_diff_text_and_identity(folder):
    runner = CliRunner()
    res = runner.invoke(diff_command, ["online", "online"])
    assert res.exit_code == 0 and "No differences" in res.output
    res = runner.invoke(diff_command, ["online", str(folder / "variant.yaml")])
    assert res.exit_code == 0, res.output
    assert "gouji_minimum.2: 1 (base.yaml:" in res.output and "burn.who" in res.output


def test_cli_json_with_simulation(folder, tmp_path):
    res = CliRunner().invoke(diff_command, ["online", str(folder / "simvariant.yaml"), "--format", "json",
                                            "--simulate", "4", "--seed", "3", "--workers", "1", "--top", "2",
                                            "--save-divergent", str(tmp_path / "out")])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert set(data) == {"diff", "simulation"}
    assert data["simulation"]["games"] == 4 and data["simulation"]["seed"] == "3"
    assert data["diff"]["counts"]["settings"] == 2
    assert len(list((tmp_path / "out").glob("divergent-*.json"))) == len(data["simulation"]["divergent"])


def test_cli_bad_ruleset_reports_diagnostics(tmp_path):
    bad = write(tmp_path, "bad.yaml", """
        ruleset: bad
        extends: online
        rules:
          - id: foo
            on: burn
            allow: "seatt == 1"
    """)
    res = CliRunner().invoke(diff_command, ["online", str(bad)])
    assert res.exit_code == 1
    assert f"{bad}:6:" in res.output and "unknown name 'seatt'" in res.output and "did you mean 'seat'" in res.output
    assert "Traceback" not in res.output and isinstance(res.exception, SystemExit)
    res = CliRunner().invoke(diff_command, ["online", "no-such-ruleset"])
    assert res.exit_code == 1 and "unknown ruleset 'no-such-ruleset'" in res.output
    res = CliRunner().invoke(diff_command, ["online", "online", "--save-divergent", str(tmp_path)])
    assert res.exit_code == 2 and "--simulate" in res.output


def test_a_match_ruleset_with_fewer_than_two_matches_says_why_its_means_have_no_interval():
    """`gouji diff online rulebook --simulate 4`: rulebook's 4 deals are one 5-game match, and the
    cluster-robust interval needs two clusters — its column had no ± and nothing said why (a tester's
    finding). The report says so, and names the deal count that gives intervals."""
    from gouji_dsl.tools.paired import few_matches_note
    short = paired_simulation("online", "rulebook", 4, seed=1, workers=1, bots="heuristic")
    note = few_matches_note(short)
    assert note is not None and "rulebook plays matches of 5" in note and "simulate 6 deals" in note
    assert note.split(" — ")[0] in " ".join(report_text(short, 100).split())
    assert "rulebook plays matches of 5" in report_markdown(short)
    assert few_matches_note(paired_simulation("online", "rulebook", 6, seed=1, workers=1, bots="heuristic")) is None
    assert few_matches_note(paired_simulation("online", "online", 2, seed=1, workers=1)) is None
