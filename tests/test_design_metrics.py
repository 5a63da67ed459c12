"""The design metrics (issue 28; README: Design metrics): real choice, lead changes, when first place is
settled — counted by the native core on every deal it plays whole, else measured move by move on the
probed deals (every PROBE_EVERY-th) — and the skill trace."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest
from click.testing import CliRunner

from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.design import design_of, play_probed, provisional_first
from gouji_dsl.tools.figures import MIN_PROBED, PROBE_EVERY, Design, probed
from gouji_dsl.tools.simulate import play_game


def snap(trick: int, moves: int, sizes: tuple[int, ...], places: dict[int, int] | None = None):
    return (trick, moves, sizes, places or {})


def test_the_definitions_on_a_hand_made_game() -> None:
    # four seats, two teams (1, 3 | 2, 4); the first decision of each trick is a snapshot
    log = [
        snap(1, 5, (10, 10, 10, 10)),          # a tie: no provisional first place
        snap(1, 1, (8, 10, 10, 10)),           # (same trick: not a snapshot; a forced decision)
        snap(2, 3, (8, 7, 10, 10)),            # seat 2 (team 2) leads
        snap(3, 2, (5, 7, 10, 10)),            # seat 1 (team 1): a lead change
        snap(4, 1, (0, 4, 9, 10), {1: 1}),     # seat 1 is out first: 头科 from here on
    ]
    d = design_of(log, decisions=5, tricks=4, places={1: 1, 2: 2, 3: 3, 4: 4}, teams=2)
    assert d == Design(choices=3, decisions=5, lead_changes=1, settled=2, tricks=4)
    # the first place was someone else (or nobody) after 0 and 1 tricks, then seat 1 from 2 tricks on
    assert d.values() == {"real_choice_share": Fraction(3, 5), "lead_changes": 1, "settled_at": Fraction(1, 2)}
    assert provisional_first((3, 3, 5), {}) is None and provisional_first((0, 0, 5), {2: 1}) == 2


def test_a_probed_deal_is_the_same_game() -> None:
    g = load_graph("online")
    assert probed(0) and probed(PROBE_EVERY) and not probed(1)
    plain, _ = play_game(g, 7, 0, "random", record=False)
    looked, _ = play_probed(g, 7, 0, "random", None, "generated")
    assert (looked.places, looked.scores, looked.decisions, looked.tricks) == \
        (plain.places, plain.scores, plain.decisions, plain.tricks)
    d = looked.design
    # every decision a bot was asked (setup ones too: a declaration the game's count may leave out)
    assert 0 < d.choices <= d.decisions and d.decisions >= plain.decisions and d.tricks == plain.tricks
    assert 0 <= d.settled <= d.tricks


def test_simulate_reports_them_with_the_deals_they_come_from(runner: CliRunner, monkeypatch: pytest.MonkeyPatch) -> None:
    # online: whole games in the native core, which counts the design facts of every deal (issue 24)
    res = runner.invoke(cli, ["simulate", "online", "-n", str(PROBE_EVERY + 2), "--workers", "1", "--json"])
    assert res.exit_code == 0, res.stderr
    iv = json.loads(res.stdout)["intervals"]
    assert iv["real_choice_share"]["n"] == iv["settled_at"]["n"] == iv["lead_changes"]["n"] == PROBE_EVERY + 2
    assert 0 < iv["real_choice_share"]["value"] < 1
    assert {f"seat_score.{s}" for s in range(1, 7)} <= set(iv)  # each seat's advantage
    text = runner.invoke(cli, ["simulate", "online", "-n", "3", "--workers", "1"])
    assert "from all 3 deals" in text.stdout and "skill trace: not measured" in text.stdout
    # games not played whole in the core (its game flow switched off): the probed deals only
    monkeypatch.setenv("GOUJI_NO_NATIVE_FLOW", "1")
    res = runner.invoke(cli, ["simulate", "online", "-n", str(PROBE_EVERY + 2), "--workers", "1", "--json"])
    assert res.exit_code == 0, res.stderr
    assert json.loads(res.stdout)["intervals"]["real_choice_share"]["n"] == 2  # deals 0 and 50


def test_the_skill_trace_is_a_duel_on_the_same_deals(runner: CliRunner) -> None:
    res = runner.invoke(cli, ["diff", "online", "--set", "yield_to=1", "--simulate", "2", "--workers", "1",
                              "--skill", "2", "--format", "json"])
    assert res.exit_code == 0, res.stderr
    skill = json.loads(res.stdout)["skill"]
    assert skill["a"]["strong"] == "heuristic" and skill["a"]["weak"] == "random"
    assert skill["a"]["gain"]["n"] == 4  # two deals, each twice with the seats swapped
    assert skill["a"]["gain"]["value"] > 0  # the heuristic bot beats random play
    bad = runner.invoke(cli, ["simulate", "online", "-n", "2", "--skill", "1", "--skill-bots", "heuristic"])
    assert bad.exit_code == 2 and "STRONG,WEAK" in bad.stderr
    assert runner.invoke(cli, ["diff", "online", "rulebook", "--skill", "2"]).exit_code == 2


@pytest.mark.parametrize("fmt", ["text", "markdown", "json"])
def test_the_skill_difference_of_rulesets_with_different_packs_is_paired_by_seed(runner: CliRunner, fmt: str) -> None:
    """Issue 28 F12: where the packs differ (five decks against four) deal i is seeded alike but not
    dealt alike, and the skill trace's B − A says so, as the simulation's note does."""
    res = runner.invoke(cli, ["diff", "online", "--set", "deck.decks=5", "--simulate", "2", "--workers", "1",
                              "--skill", "1", "--format", fmt])
    assert res.exit_code == 0, res.stderr
    if fmt == "json":
        assert json.loads(res.stdout)["skill"]["paired_by"] == "seed"
    else:
        assert "not dealt alike" in res.stdout
        line = next(x for x in res.stdout.splitlines() if "skill trace, B − A" in x)
        assert "(paired by seed" in line and "paired by deal" not in line
    same = runner.invoke(cli, ["diff", "online", "--set", "yield_to=1", "--simulate", "2", "--workers", "1",
                               "--skill", "1", "--format", "json"])
    assert same.exit_code == 0 and json.loads(same.stdout)["skill"]["paired_by"] == "deal"


def test_the_skill_difference_pairs_the_same_deals_when_one_ruleset_plays_matches() -> None:
    # (h28view: online plays single games, rulebook matches of 5: 40 deals are 40 units of online and 8 of
    # rulebook; zip paired online's deals 0..7 with rulebook's matches 0..7, other deals)
    from gouji_dsl.tools.skill import Skill, skill_difference
    from gouji_dsl.tools.stats import mean_ci
    singles = tuple(float(i) for i in range(10))                # deal i: a gain of i
    matches = (sum(range(5)) / 5 + 1, sum(range(5, 10)) / 5 + 1)  # each match: its deals' mean + 1
    a = Skill("ismcts", "heuristic", 10, mean_ci(list(singles)), singles, 1)
    b = Skill("ismcts", "heuristic", 10, mean_ci(list(matches)), matches, 5)
    d = skill_difference(a, b)
    assert d.value == pytest.approx(1.0) and d.n == 2  # two pairs: deals 0-4 and 5-9, each +1
    assert skill_difference(a, a).n == 10


def _side_schema_problems(totals: dict) -> list[str]:
    from jsonschema import Draft7Validator

    from gouji_dsl import resources
    schema = json.loads(resources.chunk_schema_path().read_text(encoding="utf-8"))
    side = {**schema["definitions"]["side"], "definitions": schema["definitions"]}
    return [e.message for e in Draft7Validator(side).iter_errors(totals)]


def test_a_chunk_of_many_probed_deals_stays_within_the_chunk_schema() -> None:
    # (t28: exact C/D shares summed over ~10 probed games passed the schema's 60 digits; the run's own
    # report and --resume refused its chunks) — shares on a grid of millionths keep every sum short
    from gouji_dsl.tools.figures import DESIGN_GRAIN, GameSummary, SideTotals
    games = [GameSummary(index=i, places=(1, 2), scores=(1, -1), sweep=False, decisions=d, tricks=t,
                         first_leader=1, burn_attempts=0, burn_successes=0, burn_failures=0, revolutions=0,
                         redeals=0, design=Design(choices=d // 3 + i % 7, decisions=d, lead_changes=i % 4,
                                                  settled=i % t, tricks=t))
             for i, (d, t) in enumerate((97 + k, 31 + k % 29) for k in range(1000))]
    one, blocks = SideTotals(2, 2), SideTotals(2, 2)
    one.add_singles(games)
    for i in range(0, 1000, 4):
        part = SideTotals(2, 2)
        part.add_block(games[i:i + 4])
        blocks.merge(part)
    for totals in (one, blocks):
        data = json.loads(json.dumps(totals.to_json()))
        assert _side_schema_problems(data) == []
        again = SideTotals.from_json(data)
        assert again.design == totals.design and again.design["real_choice_share"].n == 1000
    # each share is its game's C/D to the nearest millionth (exact when D divides a million)
    assert Design(1, 3, 0, 1, 8).values() == {"real_choice_share": Fraction(333333, DESIGN_GRAIN),
                                              "lead_changes": 0, "settled_at": Fraction(1, 8)}


def test_games_added_one_by_one_give_the_totals_of_their_values() -> None:
    # (every native game has its design facts now: SideTotals.add_singles sums the shares in whole
    # millionths, one Fraction per batch; the totals are those of the games' values added one by one)
    import random

    from gouji_dsl.tools.figures import DESIGN_KEYS, GameSummary, SideTotals
    from gouji_dsl.tools.stats import Sums
    rng = random.Random(28)
    for _trial in range(40):
        designs = []
        for _ in range(rng.randrange(0, 25)):
            d, t = rng.choice([0, 1, 3, 7, 250, 999_999, 2_000_000]), rng.choice([0, 1, 8, 33, 40])
            designs.append(Design(rng.randrange(d + 1), d, rng.randrange(6), rng.randrange(t + 1), t))
        games = [GameSummary(index=i, places=(1, 2), scores=(1, -1), sweep=False, decisions=1, tricks=1, first_leader=1,
                             burn_attempts=0, burn_successes=0, burn_failures=0, revolutions=0, redeals=0, design=d)
                 for i, d in enumerate(designs + [None])]
        totals = SideTotals(2, 2)
        totals.add_singles(games)
        for k in DESIGN_KEYS:
            want = Sums()
            want.add_singles([d.values()[k] for d in designs if k in d.values()])
            assert totals.design[k] == want and totals.design[k].to_json() == want.to_json()


def test_a_saved_run_with_design_metrics_is_reported_and_resumed(runner: CliRunner, tmp_path) -> None:
    out = tmp_path / "sim"
    args = ["simulate", "online", "-n", str(2 * PROBE_EVERY + 1), "--chunk-size", str(PROBE_EVERY + 1),
            "--workers", "1", "--json", "--out", str(out)]
    res = runner.invoke(cli, args)
    assert res.exit_code == 0, res.stderr
    first = json.loads(res.stdout)["intervals"]
    assert len(list(out.glob("chunk-*.json"))) == 2 and first["real_choice_share"]["n"] == 2 * PROBE_EVERY + 1
    rep = runner.invoke(cli, ["report", str(out), "--format", "json"])
    assert rep.exit_code == 0, rep.stderr
    assert {k: json.loads(rep.stdout)["intervals"][k] for k in ("real_choice_share", "lead_changes", "settled_at")} \
        == {k: first[k] for k in ("real_choice_share", "lead_changes", "settled_at")}
    sorted(out.glob("chunk-*.json"))[-1].unlink()
    again = runner.invoke(cli, args + ["--resume"])
    assert again.exit_code == 0, again.stderr
    assert json.loads(again.stdout)["intervals"]["real_choice_share"] == first["real_choice_share"]


def test_too_few_probed_deals_give_values_without_intervals_or_marks(runner: CliRunner) -> None:
    # (t28: intervals and † marks from 2 probed deals) — under MIN_PROBED, as gouji duel under 10 deals
    from gouji_dsl.tools.paired import design_estimate, design_note
    from gouji_dsl.tools.stats import Sums
    few, enough = Sums(), Sums()
    few.add_singles([Fraction(1, 2), Fraction(3, 4)] * ((MIN_PROBED - 1) // 2))
    enough.add_singles([Fraction(1, 2), Fraction(3, 4)] * MIN_PROBED)
    e = design_estimate(few, paired=True)
    assert e.value == pytest.approx(0.625) and e.low != e.low and e.p is None and not e.significant
    assert design_estimate(enough, paired=True).p is not None and design_estimate(enough).low > 0
    assert "too few for intervals" in design_note(MIN_PROBED - 1, 1000)
    assert "too few" not in design_note(MIN_PROBED, 1000)
    res = runner.invoke(cli, ["diff", "online", "--set", "yield_to=1", "--simulate", "3", "--workers", "1",
                              "--format", "json"])
    assert res.exit_code == 0, res.stderr
    d = json.loads(res.stdout)["simulation"]["differences"]["lead_changes"]
    assert d["low"] is None and "p" not in d and "significant" not in d
    text = runner.invoke(cli, ["simulate", "online", "-n", "2", "--workers", "1"]).stdout
    assert "too few for intervals or marks" in text and "real choice:" in text
