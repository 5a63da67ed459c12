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
