"""`gouji duel`: each deal twice with the teams' bots swapped, the figures, JSON, resuming, and the
`--bots A` / `--bots A,B` option of `gouji simulate` and `gouji diff --simulate`."""
from __future__ import annotations

import functools
import json

import pytest

from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.duel import DuelGame, duel
from gouji_dsl.tools.simulate import play_game


@functools.cache
def graph(name: str):
    return load_graph(name)




def test_each_deal_twice_with_the_bots_swapped():
    g = graph("online")
    r = duel(g, "heuristic", "random", 3, seed=4)
    assert [(x.deal, x.a_odd) for x in r.games] == [(0, True), (0, False), (1, True), (1, False), (2, True), (2, False)]
    for x in r.games:
        # the game is the one `gouji simulate` plays with these bots at these seats
        names = ["heuristic", "random"] * 3 if x.a_odd else ["random", "heuristic"] * 3
        res, _ = play_game(g, 4, x.deal, names)
        assert x.scores == {s: float(v) for s, v in res.scores.items()}
        a_seat = 1 if x.a_odd else 2
        assert x.diff == x.scores[a_seat] - x.scores[3 - a_seat]
    assert r.mean_diff.value > 0 and r.win_rate.n == 6


def test_figures_and_json():
    g = graph("online")
    r = duel(g, "heuristic", "random", 4, seed=1)
    d = r.to_dict()
    assert set(d) >= {"ruleset", "a", "b", "deals", "games", "seed", "think_ms", "match_length", "elapsed_s",
                      "mean_diff", "a_win_rate", "ties", "per_seat", "timing"}
    assert d["games"] == 8 and d["mean_diff"]["n"] == 8
    assert set(d["per_seat"]) == {str(s) for s in range(1, 7)}
    assert d["per_seat"]["1"]["a"]["games"] == 4 and d["per_seat"]["1"]["b"]["games"] == 4
    # (random and heuristic bots: the native core played the games whole, no decision was timed)
    assert d["timing"] is None and d["timed"] is False
    timed = duel(g, "heuristic", "random", 1, seed=1, engine="interpreter").to_dict()
    assert timed["timed"] is True and timed["timing"]["a"]["decisions"] > 0
    json.dumps(d)
    text = r.text()
    assert "heuristic (A) against random (B)" in text and "(95% interval)" in text


def test_matches_are_the_unit_in_match_rulesets():
    g = graph("rulebook")
    r = duel(g, "heuristic", "random", 2, seed=2)
    assert r.unit_size == 5 and len(r.games) == 4 and len(r.unit_means()) == 1
    # the report says the match was cut short ('4 games in matches of 5' puzzled a tester)
    assert "= 4 games in one match of 5, cut short after 2 deals, seed 2" in r.text()
    r7 = duel(g, "heuristic", "random", 7, seed=2)
    assert "= 14 games in matches of 5, the last cut short after 2 deals, seed 2" in r7.text()
    assert "cut short" not in duel(g, "heuristic", "random", 5, seed=2).text()


def plain(x: DuelGame) -> dict:
    d = x.to_json()
    del d["timing"]  # seconds differ from run to run
    return d


def test_resume_plays_only_missing_units():
    g = graph("online")
    seen: list[list[DuelGame]] = []
    full = duel(g, "heuristic", "random", 3, seed=9, on_unit=seen.append)
    assert len(seen) == 3
    again = duel(g, "heuristic", "random", 3, seed=9, done=[x for u in seen[:2] for x in u],
                 on_unit=lambda u: seen.append(u))
    assert len(seen) == 4 and [plain(x) for x in again.games] == [plain(x) for x in full.games]
    back = [DuelGame.from_json(json.loads(json.dumps(x.to_json()))) for x in full.games]
    assert [x.to_json() for x in back] == [x.to_json() for x in full.games]


def test_workers_do_not_change_the_result():
    g = graph("online")
    one = duel(g, "heuristic", "random", 2, seed=3)
    two = duel(g, "heuristic", "random", 2, seed=3, workers=2)
    assert [x.to_json()["scores"] for x in one.games] == [x.to_json()["scores"] for x in two.games]


def test_duel_cli_json(runner):
    res = runner.invoke(cli, ["duel", "online", "pimc:2", "heuristic", "--deals", "1", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["a"] == "pimc:2" and d["games"] == 2 and d["timing"]["a"]["searched"] > 0


def test_duel_cli_bad_bot(runner):
    res = runner.invoke(cli, ["duel", "online", "ismct", "heuristic"])
    assert res.exit_code == 2
    assert "did you mean 'ismcts'" in res.stderr and "Traceback" not in res.stderr


def test_duel_cli_help_lists_every_bot(runner):
    from gouji_dsl.bots import BOTS
    res = runner.invoke(cli, ["duel", "--help"])
    assert res.exit_code == 0
    for name, kind in BOTS.items():
        assert name in res.output
        if kind.searches:
            assert f"default {kind.default_iterations} iterations" in " ".join(res.output.split())


def test_duel_cli_think_ms_without_a_search_bot_warns(runner):
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--think-ms", "50", "--json"])
    assert res.exit_code == 0, res.output
    assert "warning: --think-ms 50 has no effect" in res.stderr
    assert json.loads(res.stdout)["think_ms"] is None


def test_duel_names_no_stronger_bot_on_a_handful_of_deals():
    from gouji_dsl.tools.duel import MIN_UNITS_FOR_VERDICT
    rep = duel(graph("online"), "heuristic", "random", 3, 1)
    assert rep.mean_diff.low > 0  # the interval alone would say "A is stronger"
    assert "too few deals for a verdict" in rep.text() and "A is stronger" not in rep.text()
    assert MIN_UNITS_FOR_VERDICT > 3


def test_simulate_bots_per_team(runner):
    res = runner.invoke(cli, ["simulate", "online", "--games", "2", "--bots", "heuristic,random", "--json"])
    assert res.exit_code == 0, res.output
    d = json.loads(res.stdout)
    assert d["team_score_mean"]["1"] > d["team_score_mean"]["2"]
    bad = runner.invoke(cli, ["simulate", "online", "--bots", "heuristic,rando"])
    assert bad.exit_code == 2 and "unknown bot 'rando'" in bad.stderr


def test_diff_simulate_bots_per_team(runner):
    res = runner.invoke(cli, ["diff", "online", "base", "--simulate", "2", "--workers", "1", "--bots", "heuristic,random",
                              "--format", "json"])
    assert res.exit_code == 0, res.output
    sim = json.loads(res.stdout)["simulation"]
    assert sim["bots"] == ["heuristic", "random"] * 3


def test_a_bot_count_that_fits_no_seating_is_a_usage_error(runner):
    """One bot, two (odd/even seats) or one per seat: three bots for six seats is refused at --bots
    (exit 2), not an internal error."""
    for args in (["simulate", "online", "--games", "1"], ["diff", "online", "base", "--simulate", "1"]):
        res = runner.invoke(cli, [*args, "--bots", "random,heuristic,random"])
        assert res.exit_code == 2 and "'--bots'" in res.stderr and "not 3" in res.stderr, res.output


def test_an_iteration_budget_is_plain_digits_and_simulate_json_names_the_bots(runner):
    for spec in ("ismcts: 2", "ismcts:+2", "ismcts:1_0", "ismcts:\u0663"):
        res = runner.invoke(cli, ["simulate", "online", "--games", "1", "--bots", spec])
        assert res.exit_code == 2 and "whole number" in res.stderr, (spec, res.output)
    res = runner.invoke(cli, ["simulate", "online", "--games", "1", "--workers", "1", "--bots", "heuristic,random",
                              "--json"])
    assert res.exit_code == 0 and json.loads(res.stdout)["bots"] == ["heuristic", "random"] * 3


def test_duel_cli_save_resumes_and_refuses_another_duels_file(runner, tmp_path):
    """--save keeps each finished deal (a fresh tester lost a long run writing to a file); the same
    command again plays only the rest and reports what the whole run would; a file of another duel is refused."""
    save = tmp_path / "run.jsonl"
    whole = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "4", "--seed", "5", "--json"])
    first = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "2", "--seed", "5", "--save", str(save)])
    assert first.exit_code == 0, first.output
    lines = save.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 3 and json.loads(lines[0])["duel"]["a"] == "heuristic"  # header + one line per deal
    # stderr is not a terminal here: progress comes as plain lines
    assert "2/2 deals, done" in first.stderr
    rest = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "4", "--seed", "5", "--save", str(save),
                               "--json"])
    assert rest.exit_code == 0, rest.output
    assert "2 of the 4 deals saved already; playing the rest" in rest.stderr and len(save.read_text(encoding="utf-8").splitlines()) == 5
    pick = ("mean_diff", "a_win_rate", "ties", "per_seat")
    assert {k: json.loads(rest.stdout)[k] for k in pick} == {k: json.loads(whole.stdout)[k] for k in pick}
    other = runner.invoke(cli, ["duel", "online", "random", "heuristic", "--deals", "4", "--seed", "5", "--save", str(save)])
    assert other.exit_code == 1 and "holds another duel" in other.stderr and "Traceback" not in other.stderr
    assert len(save.read_text(encoding="utf-8").splitlines()) == 5  # a refused run changes nothing
    save.write_text("not json\n", encoding="utf-8")
    broken = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--save", str(save)])
    assert broken.exit_code == 1 and f"{save}:1:" in broken.stderr


def test_a_save_file_of_a_ruleset_edited_since_is_refused(runner, tmp_path):
    """A tester resumed a duel of his variant after changing a setting in it: the new deals were added
    to the old ones, two rule sets in one figure. The header keeps the ruleset's fingerprint; a file
    written before it had one (the committed strength-table runs) is still read."""
    variant, save = tmp_path / "house.yaml", tmp_path / "run.jsonl"
    variant.write_text("ruleset: house\nextends: online\n", encoding="utf-8")
    args = ["duel", str(variant), "heuristic", "random", "--save", str(save)]
    first = runner.invoke(cli, [*args, "--deals", "1"])
    assert first.exit_code == 0, first.output
    moved = tmp_path / "elsewhere" / "house.yaml"  # the same rules in another folder: the same duel
    moved.parent.mkdir()
    moved.write_text(variant.read_text(encoding="utf-8"), encoding="utf-8")
    again = runner.invoke(cli, ["duel", str(moved), *args[2:], "--deals", "2"])
    assert again.exit_code == 0 and "1 of the 2 deals saved already" in again.stderr, again.output
    variant.write_text('ruleset: house\nextends: online\nsettings:\n  gouji_minimum: {"2": 2}\n', encoding="utf-8")
    before = save.read_text(encoding="utf-8")
    edited = runner.invoke(cli, [*args, "--deals", "3"])
    assert edited.exit_code == 1 and "the rules of house changed since it was saved" in edited.stderr, edited.output
    assert save.read_text(encoding="utf-8") == before
    # a file without a fingerprint (written before headers had one) is resumed as before
    lines = before.splitlines()
    head = json.loads(lines[0])
    del head["duel"]["fingerprint"]
    save.write_text("\n".join([json.dumps(head), *lines[1:]]) + "\n", encoding="utf-8")
    old = runner.invoke(cli, [*args, "--deals", "3"])
    assert old.exit_code == 0 and "2 of the 3 deals saved already" in old.stderr, old.output


def test_duel_cli_save_cut_short_is_repaired(runner, tmp_path):
    """A run killed while writing a line (kill -9, a full disk) left a last line without its end: the
    file was refused for good (and an append would have glued the next deal to it). Now that line is
    removed with a warning and its deal played again (a fresh tester's finding)."""
    save = tmp_path / "run.jsonl"
    args = ["duel", "online", "heuristic", "random", "--deals", "3", "--seed", "5", "--save", str(save), "--json"]
    whole = runner.invoke(cli, args)
    assert whole.exit_code == 0, whole.output
    save.write_bytes(save.read_bytes()[:-40])
    again = runner.invoke(cli, args)
    assert again.exit_code == 0, again.output
    assert f"warning: {save}:4: the last line was cut short" in again.stderr
    assert "2 of the 3 deals saved already" in again.stderr
    lines = save.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 4 and all(json.loads(x) for x in lines)
    pick = ("mean_diff", "a_win_rate", "ties", "per_seat")
    assert {k: json.loads(again.stdout)[k] for k in pick} == {k: json.loads(whole.stdout)[k] for k in pick}
    assert json.loads(again.stdout)["resumed_deals"] == 2 and json.loads(whole.stdout)["resumed_deals"] == 0
    # a whole last line that only lost its newline is kept (and ended), not glued to the next one
    save.write_bytes(save.read_bytes()[:-1])
    more = runner.invoke(cli, args[:4] + ["--deals", "4"] + args[6:])
    assert more.exit_code == 0 and "warning" not in more.stderr and "3 of the 4 deals" in more.stderr
    assert len(save.read_text(encoding="utf-8").splitlines()) == 5
    # fewer deals than the file holds: says so, plays nothing
    fewer = runner.invoke(cli, args[:4] + ["--deals", "2"] + args[6:-1])
    assert fewer.exit_code == 0, fewer.output
    assert "2 of the 2 deals saved already: nothing to play (2 more saved beyond --deals 2: left out)" in fewer.stderr
    assert "(this run; all of the deals read from the save file)" in fewer.stdout


def test_a_deal_saved_with_one_seating_only_is_played_again():
    g = graph("online")
    full = duel(g, "heuristic", "random", 2, seed=9)
    half = [x for x in full.games if x.deal == 0 or x.a_odd]  # deal 1 lacks its swapped seating
    again = duel(g, "heuristic", "random", 2, seed=9, done=half)
    assert [plain(x) for x in again.games] == [plain(x) for x in full.games] and again.resumed_deals == 1


def test_duel_text_wording_on_one_deal():
    from gouji_dsl.tools.duel import DuelReport
    t = {"a": [1, 1, 0.1], "b": [1, 1, 0.1]}
    sc = {s: (1.0 if s % 2 else -1.0) for s in range(1, 7)}
    pl = {s: s for s in range(1, 7)}
    games = [DuelGame(0, True, sc, pl, 2.0, t), DuelGame(0, False, {s: 0.0 for s in sc}, pl, 0.0, t)]
    text = DuelReport("online", "heuristic", "random", 1, 1, None, games, 1).text()
    assert "(95% interval)" not in text and "too few deals for an interval" in text  # none is printed
    assert "; 1 tie\n" in text


def test_duel_text_signs_both_bounds_of_the_difference():
    """A tester read '+0.75 [-4.54, 6.04]' (the upper bound unsigned, the README and the strength
    table write '+2.04 [+1.46, +2.62]'): a difference's bounds carry their sign."""
    from gouji_dsl.tools.duel import DuelReport
    t = {"a": [1, 1, 0.1], "b": [1, 1, 0.1]}
    pl = {s: s for s in range(1, 7)}

    def game(deal: int, a_odd: bool, diff: float) -> DuelGame:
        return DuelGame(deal, a_odd, {s: diff / 2 * (1 if (s % 2 == 1) == a_odd else -1) for s in pl}, pl, diff, t)

    games = [game(0, True, 4.0), game(0, False, 0.0), game(1, True, -2.0), game(1, False, 0.0)]
    r = DuelReport("online", "heuristic", "random", 2, 1, None, games, 1)
    assert r.mean_diff.low < 0 < r.mean_diff.high
    line = next(x for x in r.text().splitlines() if "A − B per game" in x)
    assert f"+0.50 [{r.mean_diff.low:+.2f}, {r.mean_diff.high:+.2f}]" in line and ", +" in line, line


def test_a_think_time_with_a_bots_own_budget_says_which_comes_first():
    """A tester ran 'gouji duel online ismcts:2 heuristic --think-ms 30': the report said '30 ms per
    decision' while the bot stopped after its 2 iterations (8 ms): the first line says both."""
    from gouji_dsl.tools.duel import DuelReport
    t = {"a": [1, 1, 0.1], "b": [1, 1, 0.1]}
    sc = {s: 0.0 for s in range(1, 7)}
    games = [DuelGame(0, True, sc, {s: s for s in sc}, 0.0, t), DuelGame(0, False, sc, {s: s for s in sc}, 0.0, t)]

    def first_line(a: str, b: str, think_ms: float | None) -> str:
        return DuelReport("online", a, b, 1, 1, think_ms, games, 1).text().splitlines()[0]

    assert first_line("ismcts:2", "pimc:8", 30.0).endswith(
        ", 30 ms per decision (ismcts:2 after 2 iterations and pimc:8 after 8 iterations if sooner)")
    assert first_line("ismcts", "heuristic", 30.0).endswith(", 30 ms per decision")
    assert "iterations" not in first_line("ismcts:2", "heuristic", None)


def test_duel_text_says_how_to_read_the_per_seat_figures(runner):
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1"])
    assert res.exit_code == 0, res.output
    assert "teammates share their team's" in res.stdout and "1 = first out" in res.stdout


def test_bot_specs_are_written_as_the_registry_writes_them(runner):
    from gouji_dsl.bots import MAX_ITERATIONS, canonical_spec
    assert canonical_spec(" ISMCTS:0002 ") == "ismcts:2" and canonical_spec("Heuristic") == "heuristic"
    res = runner.invoke(cli, ["simulate", "online", "--games", "1", "--workers", "1", "--bots", "ISMCTS:2,Heuristic",
                              "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["bots"][:2] == ["ismcts:2", "heuristic"]
    for spec, words in ((",heuristic", "a bot name is missing"), (f"pimc:{MAX_ITERATIONS + 1}", "at most"),
                        ("x" * 200, "…")):
        bad = runner.invoke(cli, ["simulate", "online", "--games", "1", "--bots", spec])
        assert bad.exit_code == 2 and words in bad.stderr and "x" * 50 not in bad.stderr, (spec, bad.stderr)
    lst = runner.invoke(cli, ["duel", "online", "random,heuristic", "heuristic"])
    assert lst.exit_code == 2 and "not a list" in lst.stderr


def test_ctrl_c_with_workers_stops_them_instead_of_playing_the_queued_deals(monkeypatch):
    """Ctrl+C in `gouji duel --workers 2` went on playing every queued deal before exiting (44 s for 14
    ismcts:2 deals; hours for a long run), its games then thrown away: the workers are now stopped."""
    import signal
    from concurrent.futures import ProcessPoolExecutor

    import gouji_dsl.tools.duel as duel_module

    pools: list[ProcessPoolExecutor] = []

    class Recorded(ProcessPoolExecutor):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            pools.append(self)

    monkeypatch.setattr(duel_module, "ProcessPoolExecutor", Recorded)
    procs: list = []

    def interrupt(done: int, total: int) -> None:
        procs.extend(pools[0]._processes.values())
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        # (the interpreter: the native core plays random and heuristic duels whole, in this process)
        duel(graph("online"), "heuristic", "random", 40, seed=4, workers=2, progress=interrupt, engine="interpreter")
    assert procs and all(p.exitcode == -signal.SIGTERM for p in procs)


@pytest.mark.parametrize("value", ["nan", "inf", "NaN", "1e999"])
def test_a_think_time_or_half_width_must_be_a_finite_number(runner, value):
    """`--think-ms nan` was accepted: a search whose deadline is nan never ends (a fresh tester's finding)."""
    res = runner.invoke(cli, ["duel", "online", "ismcts", "heuristic", "--deals", "1", "--think-ms", value])
    assert res.exit_code == 2 and "not a finite number" in res.stderr and "Traceback" not in res.stderr
    res = runner.invoke(cli, ["simulate", "online", "--games", "2", "--until-halfwidth", value])
    assert res.exit_code == 2 and "not a finite number" in res.stderr


def test_a_budget_refuses_a_think_time_that_never_ends():
    from gouji_dsl.bots import Budget
    for bad in (float("nan"), float("inf"), 0.0, -1.0):
        with pytest.raises(ValueError, match="positive finite"):
            Budget(None, bad)
    assert Budget(None, 50.0).think_ms == 50.0


def test_a_think_time_has_an_upper_bound_like_the_iteration_budget(runner):
    """`--think-ms 1e9` was accepted (eleven days a move, a program that looks hung): refused like an
    iteration budget above bots.MAX_ITERATIONS, by the option and by Budget."""
    from gouji_dsl.bots import Budget
    from gouji_dsl.bots.budget import MAX_THINK_MS
    res = runner.invoke(cli, ["duel", "online", "ismcts", "heuristic", "--deals", "1", "--think-ms", "1e9"])
    assert res.exit_code == 2 and "--think-ms" in res.stderr and "Traceback" not in res.stderr
    with pytest.raises(ValueError, match="at most"):
        Budget(None, MAX_THINK_MS * 2)
    assert Budget(None, MAX_THINK_MS).think_ms == MAX_THINK_MS


@pytest.mark.parametrize("finished", [0, 1])
def test_ctrl_c_says_what_the_save_file_holds(runner, tmp_path, monkeypatch, finished):
    """Ctrl+C before any deal had finished said "the finished deals are in FILE" though FILE was never
    written (a fresh tester's finding): it now says nothing was saved; after a deal, that FILE has it."""
    import gouji_dsl.tools.duel as duel_module

    real = duel_module.duel

    def interrupted(*args, on_unit=None, **kwargs):
        if finished:
            real(*args[:3], 1, *args[4:], on_unit=on_unit, **kwargs)
        raise KeyboardInterrupt

    monkeypatch.setattr(duel_module, "duel", interrupted)
    save = tmp_path / "run.jsonl"
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "3", "--save", str(save)])
    assert res.exit_code == 130
    assert save.exists() == bool(finished)
    if finished:
        assert f"the finished deals are in {save}" in res.stderr
    else:
        assert "nothing saved" in res.stderr and "finished deals are in" not in res.stderr


def test_a_bot_against_itself_is_reported_as_alike_not_as_a_bare_zero_width_interval():
    """"+0.00 [0.00, 0.00]" puzzled a tester: the same bot on both teams plays each deal's two seatings
    as mirror images, so every difference is 0 — the report says so."""
    r = duel(graph("online"), "heuristic", "heuristic", 3, seed=1)
    assert r.unit_means() == [0.0, 0.0, 0.0]
    assert "scored alike" in r.text()
    assert "scored alike" not in duel(graph("online"), "heuristic", "random", 3, seed=1).text()


def test_extending_an_unfinished_match_says_its_deals_are_played_again(runner, tmp_path):
    """Extending a 2-deal rulebook run to 4 deals said "2 of the 4 deals saved already" while it played
    the unfinished match again from its first deal (the figures were right; the count was not)."""
    from gouji_dsl.engine.interpreter import match_length

    assert match_length(graph("rulebook")) > 4  # the two runs end inside one match
    save = tmp_path / "run.jsonl"
    args = ["duel", "rulebook", "heuristic", "random", "--save", str(save), "--json"]
    assert runner.invoke(cli, [*args, "--deals", "2"]).exit_code == 0
    more = runner.invoke(cli, [*args, "--deals", "4"])
    assert more.exit_code == 0, more.output
    assert "0 of the 4 deals saved already; playing the rest (2 deals of an unfinished match played again" in more.stderr
    assert json.loads(more.stdout)["resumed_deals"] == 0


@pytest.mark.parametrize("content", [b"my notes, no newline at the end", b"\x7fELF\x02\x01\x01\x00binary", b"\xff\xfe\n"])
def test_save_to_a_file_that_is_not_a_duel_refuses_it_and_leaves_it_alone(tmp_path, content, runner):
    """`--save notes.txt` (one line without a newline) took the whole file for a cut last line and
    truncated it (a fresh tester's finding); a file that is not UTF-8 said only 'utf-8 codec...'."""
    save = tmp_path / "notes.txt"
    save.write_bytes(content)
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--save", str(save)])
    assert res.exit_code == 1 and f"{save}" in res.stderr and "not a saved duel" in res.stderr
    assert save.read_bytes() == content


def test_a_cut_first_line_of_a_duel_is_still_repaired(tmp_path, runner):
    save = tmp_path / "d.jsonl"
    save.write_bytes(b'{"du')  # killed while writing the header (written with the first unit)
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--save", str(save)])
    assert res.exit_code == 0 and "the last line was cut short" in res.stderr
    assert [json.loads(x).keys() for x in save.read_text().splitlines()] == [{"duel": 0}.keys(), {"games": 0}.keys()]


def test_a_bad_save_file_names_every_bad_line_with_the_schema_s_words(runner, tmp_path):
    """A malformed line said Python's exception text ("TypeError: list indices must be integers…", a
    tester's finding): each line is checked against schema/duel-save.schema.json, and every bad line
    of the file is named at once, with where in the line and what the schema wants."""
    save = tmp_path / "run.jsonl"
    head = json.dumps({"duel": {"ruleset": "online", "a": "heuristic", "b": "random", "seed": "1", "think_ms": None}})
    save.write_text(head + '\n{"games": [[1, 2]]}\n{"games": [{"deal": 0}]}\n{"games": [}\n', encoding="utf-8")
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--save", str(save)])
    assert res.exit_code == 1 and "Traceback" not in res.stderr and "TypeError" not in res.stderr
    lines = res.stderr.splitlines()
    # file:line:col, the column of the value the schema refuses
    assert any(f"{save}:2:12: not a saved duel line: games/0: [1, 2] is not of type 'object'" in x for x in lines)
    assert any(f"{save}:3:12: not a saved duel line: games/0: 'a_odd' is a required property" in x for x in lines)
    assert any(f"{save}:4:" in x and "not JSON" in x for x in lines)
    assert save.read_text(encoding="utf-8").count("\n") == 4  # left as it was


def test_every_committed_strength_table_file_follows_the_save_schema():
    """The benchmark's saved deals (benchmarks/results/bots) are read by the same reader and schema."""
    from pathlib import Path

    from gouji_dsl.tools.duel import load_saved
    folder = Path(__file__).resolve().parent.parent / "benchmarks" / "results" / "bots"
    files = sorted(folder.glob("*.jsonl"))
    if not files:
        pytest.skip("no saved strength-table runs in this checkout")
    for f in files:
        assert load_saved(f), f


@pytest.mark.skipif(not __import__("os").path.exists("/proc/self/mem"), reason="no /proc/self/mem here")
def test_a_save_file_that_cannot_be_read_names_the_file_and_what_failed(runner):
    """`--save /proc/self/mem` said only "[Errno 5] Input/output error" (a tester's finding)."""
    res = runner.invoke(cli, ["duel", "online", "heuristic", "random", "--deals", "1", "--save", "/proc/self/mem"])
    assert res.exit_code == 1 and "Errno" not in res.stderr, res.stderr
    assert "/proc/self/mem: cannot read the save file: Input/output error" in res.stderr


@pytest.mark.parametrize("errno_name, status", [("ENOSPC", 3), ("EIO", 1)])
def test_a_save_file_that_cannot_be_written_names_it_and_what_is_kept(runner, tmp_path, monkeypatch, errno_name, status):
    """A full disk while a unit is appended: the file named, what failed, what it holds; exit 3 (resumable
    once there is space, as a run's --out folder) or 1; never an internal error."""
    import errno
    import os
    from pathlib import Path
    save = tmp_path / "d\x1b[31m.jsonl"
    real_open = Path.open

    def failing_open(self, mode="r", *args, **kwargs):
        if self == save and "a" in mode:
            raise OSError(getattr(errno, errno_name), os.strerror(getattr(errno, errno_name)))
        return real_open(self, mode, *args, **kwargs)

    monkeypatch.setattr(Path, "open", failing_open)
    res = runner.invoke(cli, ["duel", "online", "random", "random", "--deals", "1", "--save", str(save)])
    assert res.exit_code == status, res.output
    assert "internal error" not in res.stderr and "\x1b" not in res.stderr
    shown = str(save).replace("\x1b", "\\x1b")
    assert f"{shown}: cannot write the save file: {os.strerror(getattr(errno, errno_name))}" in res.stderr
    assert "nothing saved" in res.stderr


@pytest.mark.parametrize("name, a, b", [("online", "heuristic", "random"), ("rulebook", "random", "heuristic"),
                                        ("qingdao", "heuristic", "heuristic")])
def test_a_duel_of_random_and_heuristic_bots_plays_the_interpreters_games_on_the_native_core(name, a, b):
    """Issue 24 (differential): no bot needs its decisions timed, so the duel's games are played whole
    in the native core, in batches; game for game (scores, places) the interpreter's. rulebook: in
    matches of 5, the last cut short."""
    from gouji_dsl.engine import native
    if not native.available():
        pytest.skip("the native core is not built here")
    g = graph(name)
    fast = duel(g, a, b, 12, seed=5)
    ref = duel(g, a, b, 12, seed=5, engine="interpreter")
    assert fast.engine["played_by"] == "native" and fast.engine["whole_games"] == "native" and not fast.timed
    assert ref.engine["played_by"] == "interpreter" and ref.timed
    assert [plain(x) for x in fast.games] == [plain(x) for x in ref.games]
    assert "decisions not timed: the native core played the games whole" in fast.text()


def test_a_duel_that_times_decisions_says_why_it_is_not_native():
    from gouji_dsl.tools.duel import duel_engine
    g = graph("online")
    searched = duel_engine(g, "generated", "pimc:2", "heuristic")
    assert searched["played_by"] != "native"
    budget = duel_engine(g, "generated", "heuristic", "random", think_ms=50)
    assert budget["played_by"] != "native"
    from gouji_dsl.engine import native
    if native.available():
        assert searched["played_by_reason"] == "a duel counts and times each bot's decisions, so every move is chosen in Python"
        assert budget["played_by_reason"].startswith("--think-ms gives every decision a time budget")
