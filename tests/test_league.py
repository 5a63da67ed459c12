"""`gouji league RULESET BOT...` (issue 28): every pair on the same deals, the duel's figures per pair."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from gouji_dsl.bots import external
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.duel import duel
from gouji_dsl.tools.league import league

MYBOT = Path(__file__).resolve().parents[1] / "examples" / "bots" / "mybot.py"




def test_every_pair_is_the_duel_on_the_same_deals():
    g = load_graph("online")
    bot = f"exec:{MYBOT}"
    rep = league(g, ["random", "heuristic", bot], 1, seed=3)
    assert [(d.a, d.b) for d in rep.duels] == [("random", "heuristic"), ("random", bot), ("heuristic", bot)]
    one = duel(g, "random", bot, 1, 3)
    external.close_all()
    assert rep.pair("random", bot)[0] == one.mean_diff.value
    assert rep.pair(bot, "random")[0] == -one.mean_diff.value
    assert set(rep.field_means()) == {"random", "heuristic", bot}
    assert "too few deals for a verdict" in rep.text()


def test_league_cli_with_an_exec_bot(runner):
    out = runner.invoke(cli, ["league", "online", "heuristic", f"exec:{MYBOT}", "--deals", "1", "--json"])
    external.close_all()
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["bots"] == ["heuristic", f"exec:{MYBOT}"] and len(d["pairs"]) == 1 and d["rating"] is None
    assert d["pairs"][0]["games"] == 2


@pytest.mark.parametrize("args", [["heuristic"], ["heuristic", "heuristic"], ["heuristic", "nosuchbot"]])
def test_league_needs_two_distinct_known_bots(runner, args):
    out = runner.invoke(cli, ["league", "online", *args, "--deals", "1"])
    assert out.exit_code == 2 and "Traceback" not in out.stderr


def test_the_league_report_speaks_chinese(runner):
    out = runner.invoke(cli, ["--lang", "zh", "league", "online", "random", "heuristic", "--deals", "1"])
    assert out.exit_code == 0, out.output
    for zh in ("个机器人的联赛", "每一对", "表（行 − 列）", "对全体", "不给等级分"):
        assert zh in out.stdout, out.stdout
    assert "league of" not in out.stdout and "against the field" not in out.stdout


def _largest_team_difference(ruleset: str) -> float:
    """From the ruleset's scores as written (base.yaml: place_points, sweep_multiplier): one team
    takes the best half of the places, the other the rest, and a sweep multiplies (README: "24 is the
    largest team-score difference of a game")."""
    import gouji_dsl
    s = gouji_dsl.load(ruleset).settings
    points = sorted(s["place_points"].value.values(), reverse=True)
    half = len(points) // 2
    return (sum(points[:half]) - sum(points[half:])) * s["sweep_multiplier"].value


def test_the_interval_is_cut_to_the_largest_team_score_difference_and_says_so(runner):
    """Issue 28 F6: heuristic against random takes nearly every sweep, so the normal interval of the
    mean reaches past the largest difference a game can have; it is cut there (from the ruleset's
    scores: engine.interpreter.score_range), marked ‡ with a footnote, and the JSON says clipped_to."""
    from gouji_dsl.engine.interpreter import score_range
    from gouji_dsl.tools.stats import CLIPPED
    cap = _largest_team_difference("online")
    assert cap == 24 and score_range(load_graph("online")) == cap
    out = runner.invoke(cli, ["league", "online", "random", "heuristic", "--deals", "30", "--json"])
    assert out.exit_code == 0, out.output
    m = json.loads(out.stdout)["pairs"][0]["mean_diff"]
    assert -cap <= m["low"] <= m["value"] <= m["high"] <= cap and m["clipped_to"] == [-cap, cap]
    text = runner.invoke(cli, ["league", "online", "random", "heuristic", "--deals", "30"]).stdout
    assert f"[{-cap:+.2f}, " in text and f"]{CLIPPED}" in text and f"{CLIPPED} interval cut to the possible range ±{cap:g}" in text
    duel_text = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "30"]).stdout
    assert f"{cap:+.2f}]{CLIPPED}" in duel_text and "interval cut to the possible range" in duel_text


def test_the_league_footer_names_a_real_readme_heading(runner):
    import re
    text = runner.invoke(cli, ["league", "online", "random", "heuristic", "--deals", "1"]).stdout
    named = re.search(r"see README, section “([^”]+)”", text).group(1)
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert f"### `{named}`" in readme.splitlines()
