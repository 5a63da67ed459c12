"""Differential test: the native engine (the native core on the interpreter's states) of every
bundled ruleset and every examples/variants file plays the same games as the interpreter (the
reference semantics), game by game: the same moves, events, places, scores, decisions and tricks.
The generated play-out module, which search bots' tree walks still list and make moves with
(``fast.walker``), offers the interpreter's moves at every step.

The number of games per ruleset is ``GOUJI_DIFF_GAMES`` (default 24, plus a quarter as many with
heuristic bots); ``benchmarks/bench_engine.py --differential N`` runs it at a larger N.
"""
from __future__ import annotations

import functools
import os
import random
from pathlib import Path

import pytest
import yaml

from gouji_dsl.bots.heuristic import random_policies
from gouji_dsl.engine import codegen, fast
from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import simulate

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in rules_dir().glob("*.yaml"))
VARIANTS = sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))
GAMES = int(os.environ.get("GOUJI_DIFF_GAMES", "24"))


def _graph(name: str):
    return load_graph(name)


def test_the_reference_side_is_the_interpreter(monkeypatch):
    """The differential check plays its reference games with the interpreter (whatever the
    default engine of play_game is) and its other side with the native engine."""
    from gouji_dsl.tools import simulate
    seen = []
    real = simulate.play_game

    def spy(*args, **kw):
        seen.append(kw.get("engine"))
        return real(*args, **kw)
    monkeypatch.setattr(simulate, "play_game", spy)
    assert simulate.differences(_graph("online"), "which", 2) == []
    assert seen == ["interpreter", "interpreter"]


@pytest.mark.parametrize("name", BUNDLED + VARIANTS, ids=lambda n: Path(n).stem)
def test_random_games_identical(name):
    g = _graph(name)
    assert simulate.differences(g, "diff", GAMES) == []


@functools.cache
def _plain_yaml(path: Path):
    return yaml.load(path.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))


def _written_match_games(name: str) -> int | None:
    """The games of a match as the files of ``name``'s chain write them (``settings.match_games``, read as plain
    YAML, nothing compiled: compiling the 26 rulesets here took most of the suite's collection time), or None when a
    file of the chain writes or removes a ``match_length`` rule of its own (then only the compiled ruleset knows).
    test_the_rulesets_with_matches_are_found_without_compiling checks it against ``match_length`` of the graph."""
    path = Path(name) if name.endswith(".yaml") else rules_dir() / f"{name}.yaml"
    games = None
    while True:
        data = _plain_yaml(path)
        rules = [r for r in data.get("rules") or [] if isinstance(r, dict)]
        own_rule = path.stem != "base" and (any(r.get("on") == "match_length" or r.get("id") == "tribute.match" for r in rules)
                                            or "tribute.match" in (data.get("remove") or []))
        if own_rule:
            return None
        written = (data.get("settings") or {}).get("match_games")
        if games is None and written is not None:
            games = written["value"] if isinstance(written, dict) else written
        if not data.get("extends"):
            return games
        path = rules_dir() / f"{data['extends']}.yaml"


def _has_matches(name: str) -> bool:
    games = _written_match_games(name)
    return simulate.match_length(_graph(name)) > 1 if games is None else games > 1


#: the rulesets whose matches are longer than one game, found at collection without compiling them
MATCHES = [n for n in BUNDLED + VARIANTS if _has_matches(n)]


def test_the_rulesets_with_matches_are_found_without_compiling():
    assert [n for n in BUNDLED + VARIANTS if simulate.match_length(_graph(n)) > 1] == MATCHES
    assert all(_written_match_games(n) is not None for n in BUNDLED + VARIANTS)  # no ruleset compiled at collection


def _match_differences(graph, seed, matches: int = 2, bots: str | list[str] = "random") -> list[str] | None:
    """``matches`` matches of ``graph`` played whole in the native core (native_games with the
    ruleset's match length) and on the interpreter (each game after the first of its match
    following the one before it, its design metrics probed as a run probes a game Python plays):
    the differences, game by game (places, scores, sweep, decisions, tricks, first leader, burns,
    revolutions, redeals, design facts); None where the core does not play these matches."""
    from gouji_dsl.tools.design import play_probed
    from gouji_dsl.tools.figures import summarize_game
    length = simulate.match_length(graph)
    got = simulate.native_games(graph, seed, 0, matches * length, bots, match_games=length)
    if got is None:
        return None
    out, prev = [], None
    for i in range(matches * length):
        res, prev = play_probed(graph, seed, i, bots, prev if i % length else None, "interpreter")
        want = summarize_game(i, res, graph.n_seats)
        if got[i] is not None and got[i] != want:
            out.append(f"game {i} (game {i % length + 1} of its match): native {got[i]} != interpreter {want}")
    for m in range(matches):
        if all(s is None for s in got[m * length:(m + 1) * length]):
            out.append(f"match {m}: the core left every game to Python")
    return out


@pytest.mark.parametrize("name", MATCHES, ids=lambda n: Path(n).stem)
def test_whole_native_matches_identical(name):
    """Every bundled ruleset and example with matches: whole matches in the native core (tribute
    and returns between the games: batch.h bt_between) give game by game the interpreter's
    places, scores, decisions, tricks and burns (their events per game: test_random_games_identical,
    which chains the games of a match too); a ruleset whose matches the core does not play says why."""
    g = _graph(name)
    got = _match_differences(g, "match", max(1, GAMES // 12))
    if got is None:
        why = simulate.engine_summary(g, "generated", "random", simulate.match_length(g))
        assert why["whole_games"] == "per_game" and why.get("games_fallback")
        return
    assert got == []


@pytest.mark.parametrize("name", MATCHES, ids=lambda n: Path(n).stem)
def test_whole_native_matches_with_heuristic_bots_identical(name):
    """The same with the heuristic bot at every seat, and at the odd seats beside random bots: its
    return tribute (batch.h bt_heur_return) is HeuristicBot._best_return's, game by game."""
    g = _graph(name)
    for bots in (["heuristic"] * g.n_seats, ["heuristic", "random"] * (g.n_seats // 2)):
        got = _match_differences(g, "match-h", 1, bots)
        if got is None:
            why = simulate.engine_summary(g, "generated", bots, simulate.match_length(g))
            assert why["whole_games"] == "per_game" and why.get("games_fallback")
            continue
        assert got == [], bots[:2]


#: with heuristic bots: the bundled rulesets, the first variants and the positional comparison (card by card)
HEURISTIC = BUNDLED + VARIANTS[:4] + [str(ROOT / "examples" / "variants" / "positional-jokers.yaml")]


@pytest.mark.parametrize("name", HEURISTIC, ids=lambda n: Path(n).stem)
def test_heuristic_games_identical(name):
    g = _graph(name)
    assert simulate.differences(g, "diff-h", max(2, GAMES // 4), "heuristic") == []


@pytest.mark.parametrize("name", ["online", "rulebook", "six-deck-eagle", "qingdao"])
def test_legal_moves_identical_at_every_step(name):
    """The generated module (search bots' tree walks: fast.walker) offers the interpreter's moves,
    in its order, at every step (leads are counted and indexed, answers come from tables: both must
    list exactly the same moves), and applies them as the interpreter does."""
    g = _graph(name)
    eng = fast.walker(g)
    assert eng is not None
    for i in range(3):
        ref = new_game(g, f"moves:{i}")
        gen = new_game(g, f"moves:{i}")
        rng = random.Random(i)
        steps = 0
        while not ref.over:
            want = list(ref.legal_moves())
            got = list(eng.legal_moves(gen))
            assert got == want, f"game {i} step {steps}"
            m = want[rng.randrange(len(want))]
            ref.apply_in_place(m, trusted=True)
            eng.apply_move(gen, m)
            steps += 1
        assert gen.over and gen.places == ref.places


@pytest.mark.parametrize("name", ["online", "rulebook", "six-deck-eagle"])
def test_play_out_from_any_state(name):
    """From states part-way through a game (copied), the native engine and the interpreter's
    loop end the same way with the same bots."""
    g = _graph(name)
    eng = fast.engine(g)
    assert eng is not None
    for i in range(4):
        st = new_game(g, f"mid:{i}")
        rng = random.Random(i)
        for _ in range(20 + 15 * i):
            if st.over:
                break
            moves = st.legal_moves()
            st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
        ref, gen = st.copy(), st.copy()
        bots_ref = random_policies(f"mid:{i}")
        while not ref.over:
            moves = ref.legal_moves()
            ref.apply_in_place(bots_ref[ref.to_act].choose(ref, moves), trusted=True)
        out = eng.play_out(gen, random_policies(f"mid:{i}"))
        assert (out.places, out.scores, gen.decisions) == (ref.places, ref.scores, ref.decisions)
        assert eng.render_record(gen) == ref.record


def test_policies_any_callable_and_rollouts():
    g = _graph("online")
    eng = fast.engine(g)
    assert eng is not None
    st = eng.new_game("roll")
    before = list(st.hands[1])
    outs = eng.rollouts(st, 3, lambda i: random_policies(f"roll:{i}"))
    assert len(outs) == 3 and all(sorted(o.places.values()) == list(range(1, 7)) for o in outs)
    assert st.hands[1] == before and not st.over  # the state rolled out from is untouched

    def first_move(state, moves):
        return moves[0]
    out = eng.play_out(st.copy(), first_move)
    ref = st.copy()
    while not ref.over:
        ref.apply_in_place(ref.legal_moves()[0], trusted=True)
    assert out.places == ref.places and out.scores == ref.scores


def test_states_have_the_interpreters_attributes():
    """The native engine's GameStates have exactly the attributes the interpreter gives them (so
    the interpreter can explain, check and continue them)."""
    g = _graph("rulebook")
    eng = fast.engine(g)
    assert eng is not None
    # the same attributes in the same order (instances of a class share one key table only then)
    assert list(eng.new_game("attrs").__dict__) == list(new_game(g, "attrs").__dict__)


def test_generated_source_names_rules_and_positions():
    g = _graph("online")
    src = codegen.load(g).source
    assert "def h_follow(S, seat, top):" in src
    assert "# pass.no-reentry (rules/base.yaml:" in src
    assert "# yield.someone-left (rules/online.yaml:" in src
    # settings are folded: the scramble threshold (base.yaml scramble_when_active: 4) is a literal
    assert "<= 4" in src and "settings." not in src.split("# ---- hooks")[1]
    # the questions the loop asks most, written in place where nothing in them can fail
    loop = src[src.index("def _random_run("):]
    assert "h_follow(" not in loop.split("\ndef ")[0] and "# (inlined: h_follow)" in loop
    assert codegen.ruleset_hash(g) == codegen.ruleset_hash(load_graph("online"))
    assert codegen.ruleset_hash(g) != codegen.ruleset_hash(load_graph("rulebook"))


def test_unsupported_rulesets_fall_back_visibly(monkeypatch):
    g = load_graph("base")

    def refuse(self):
        raise codegen.Unsupported("a construct the generator does not know")
    monkeypatch.setattr(codegen.Generator, "generate", refuse)
    monkeypatch.setattr(codegen, "_sources", type(codegen._sources)())  # nothing generated before
    assert fast.walker(g) is None  # (search bots' tree walks on the interpreter then)
    assert fast.engine(g) is not None and fast.fallback_reason(g) is None  # (the native core plays all the same)


# ------------------------------------------------------------------------------ the CLI
def _runner():
    from click.testing import CliRunner
    try:
        return CliRunner(mix_stderr=False)  # click < 8.2
    except TypeError:
        return CliRunner()  # click >= 8.2 keeps stderr apart


def test_simulate_engines_give_identical_figures():
    """`gouji simulate online --games N --seed 1` and the same with `--engine interpreter`: the
    same figures apart from timings, and the summary says which engine played."""
    import json

    from gouji_dsl.tools.cli import cli
    runner = _runner()
    out = {}
    for engine in ("native", "interpreter", "generated"):
        res = runner.invoke(cli, ["simulate", "online", "--games", "30", "--seed", "1", "--executor", "local",
                                  "--engine", engine, "--json"])
        assert res.exit_code == 0, res.output
        out[engine] = json.loads(res.output)
    gen, ref = out["native"], out["interpreter"]
    assert gen["engine"] == "native" and ref["engine"] == "interpreter"
    assert out["generated"]["engine"] == "native"  # (the fast engine's name before the native core: an alias)
    timing = {"elapsed_s", "games_per_s", "engine", "executor", "workers", "play_phase", "native_fallback", "whole_games",
              "games_fallback", "games_replayed", "played_by", "played_by_reason"}
    assert {k: v for k, v in gen.items() if k not in timing} == {k: v for k, v in ref.items() if k not in timing}
    res = runner.invoke(cli, ["simulate", "online", "--games", "4", "--executor", "local"])
    said = " ".join(res.output.split())  # (the native core where it is built: tests/test_played_by.py)
    assert res.exit_code == 0 and ("native engine" in said or "interpreter engine" in said), said


def test_simulate_says_when_it_falls_back(monkeypatch):
    from gouji_dsl.engine.native import flow
    from gouji_dsl.tools.cli import cli
    monkeypatch.setenv(flow.DISABLE_ENV, "1")  # (as without a core: the interpreter plays, and says why)
    res = _runner().invoke(cli, ["simulate", "base", "--games", "2", "--executor", "local"])
    assert res.exit_code == 0, res.output
    text = " ".join(res.output.split())  # (rich wraps long lines)
    assert "played by the interpreter" in text and flow.DISABLE_ENV in text


@pytest.mark.parametrize("args", [["--engine", "interpreter"], ["--seed", "5"], ["--bots", "heuristic"]])
def test_diff_simulation_options_need_simulate(args):
    """`gouji diff A B --engine interpreter` (no --simulate) would change nothing: a usage error."""
    from gouji_dsl.tools.cli import cli
    res = _runner().invoke(cli, ["diff", "online", "rulebook", *args])
    assert res.exit_code == 2 and f"{args[0]} needs --simulate N" in res.stderr


def test_bad_engine_value_is_a_usage_error():
    from gouji_dsl.tools.cli import cli
    for cmd in (["simulate", "online", "--games", "2"], ["diff", "online", "rulebook", "--simulate", "2"]):
        res = _runner().invoke(cli, [*cmd, "--engine", "fast"])
        assert res.exit_code == 2 and "'fast' is not one of 'native', 'interpreter', 'generated'" in res.stderr


def test_show_generated_prints_what_the_native_core_runs():
    """Issue 24: `gouji show RULESET --generated` shows the native core's program for the ruleset (its
    tables, each hook's rules by id and line with their instructions), not the Python play-out module,
    and says first whether the core plays the ruleset."""
    from gouji_dsl.engine import native
    from gouji_dsl.tools.cli import cli
    res = _runner().invoke(cli, ["show", "rulebook", "--generated"])
    assert res.exit_code == 0, res.output
    out = res.output
    assert "def h_play(" not in out  # (not the Python module)
    assert out.startswith("# what the native core runs for rulebook")
    assert "seats: 6, teams: 2" in out and "pack: 196 cards — 3×6, 4×6, 5×16" in out
    assert "  tribute: tribute.point, tribute.burn" in out
    if native.available():
        assert out.splitlines()[1].startswith("engine: native — ")
        assert "### buy.three-pay (" in out and "    0  slot          seat" in out
    else:
        assert out.splitlines()[1].startswith("not native: ") and "no hook programs listed" in out


def test_show_generated_says_plainly_when_a_ruleset_is_not_native(monkeypatch):
    """Not native — the core missing, or a ruleset whose games it does not play — is said first, with why."""
    from gouji_dsl.engine import native
    from gouji_dsl.tools import native_view
    g = load_graph("online")
    monkeypatch.setattr(native_view, "engine_summary", lambda *a: {"engine": "interpreter", "engine_fallback": "WHY"})
    monkeypatch.setattr(native, "available", lambda: False)
    monkeypatch.setattr(native, "unavailable_reason", lambda: "NO CORE")
    native_ok, text = native_view.native_view(g)
    assert not native_ok
    assert text.splitlines()[1] == "not native: played by the interpreter: the native core does not play this ruleset (WHY)"
    assert "(no hook programs listed: the native core is not available here: NO CORE)" in text
    monkeypatch.setattr(native_view, "engine_summary", lambda *a: {"engine": "interpreter", "engine_fallback": "E"})
    assert native_view.native_status(g) == (
        False, "not native: played by the interpreter: the native core does not play this ruleset (E)")


# ------------------------------------------------------------------------------ failures
FAILING = {
    "division": ("score", "value", "sum_places(team_seats(seat), settings.place_points) // (count(active_seats) - count(active_seats))"),
    "missing-key": ("score", "value", "settings.place_points[place(seat) + 10]"),
    "not-a-seat": ("next_leader", "value", "top.seat + 10"),
    "follow-question": ("follow", "deny", "settings.place_points[count(active_seats) + 10] == 0"),
    "amount-none": ("after_play", "count: plays\n    amount", "place(seat)"),
}


def _failing_variant(tmp_path, kind: str):
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    hook, effect, expr = FAILING[kind]
    text = (f"ruleset: fails-{kind}\nextends: online\nrules:\n  - id: test.fails\n    on: {hook}\n"
            f"    {effect}: \"{expr}\"\n")
    path = tmp_path / f"fails-{kind}.yaml"
    path.write_text(text, encoding="utf-8")
    return compile_ruleset(resolve_text(text, path))


@pytest.mark.parametrize("kind", sorted(FAILING))
def test_a_failing_rule_fails_the_same_way(tmp_path, kind):
    """A rule that fails while the game runs (division by zero, a missing key, an answer that is
    not a seat, an amount that is none) stops both engines with the same error, naming the rule."""
    from gouji_dsl.ruleset.graph import RuleFailed
    g = _failing_variant(tmp_path, kind)
    eng = fast.engine(g)
    assert eng is not None, fast.fallback_reason(g)
    errors = []
    for engine in ("interpreter", "native"):
        with pytest.raises(Exception) as exc:
            if engine == "interpreter":
                st = new_game(g, "fails")
                bots = random_policies("fails")
                while not st.over:
                    moves = st.legal_moves()
                    st.apply_in_place(bots[st.to_act].choose(st, moves), trusted=True)
            else:
                eng.play_out(eng.new_game("fails"), random_policies("fails"))
        errors.append(exc.value)
    ref, gen = errors
    assert isinstance(ref, RuleFailed) and type(gen) is type(ref)
    assert str(gen) == str(ref) and "test.fails" in str(ref)


# ------------------------------------------------------------------------------ fast paths
def _variant(tmp_path, name: str, rules: str):
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    text = f"ruleset: {name}\nextends: online\nrules:\n{rules}"
    path = tmp_path / f"{name}.yaml"
    path.write_text(text, encoding="utf-8")
    return compile_ruleset(resolve_text(text, path))


def test_burn_leads_counted_only_when_the_rules_read_only_jokers(tmp_path):
    """A burner's leads are counted by arithmetic only when the burn_lead rules read nothing but
    the play's jokers and whether it empties the hand (online: "play.jokers > 0 or
    play.empties_hand"); a rule that reads the rank or the state makes them asked one by one, and
    both ways play the interpreter's games."""
    assert "BURN_LEAD_BY_JOKERS = True" in codegen.load(_graph("online")).source
    for name, cond in [("burn-rank", "play.rank != '3' or play.empties_hand"),
                       ("burn-state", "not passed(seat) or play.jokers > 0")]:
        g = _variant(tmp_path, name, f"  - id: test.burn-lead\n    on: burn_lead\n    require: \"{cond}\"\n")
        eng = fast.engine(g)
        assert eng is not None, fast.fallback_reason(g)
        assert "BURN_LEAD_BY_JOKERS = False" in codegen.load(g).source
        assert simulate.differences(g, f"diff-{name}", max(4, GAMES // 2)) == []


def test_a_bot_that_plays_other_states_while_choosing(tmp_path):
    """A policy that runs rollouts of other states while it chooses (a search bot) leaves the
    play-out of its own state unconfused: the same games as the interpreter's loop."""
    g = _graph("online")
    eng = fast.engine(g)
    assert eng is not None

    def searching(state, moves):
        eng.rollouts(state, 2, lambda i: random_policies(f"inner:{i}"))
        eng.play_out(eng.new_game("elsewhere"), random_policies("elsewhere"))
        return moves[len(moves) // 2]
    for i in range(3):
        bots = random_policies(f"search:{i}")
        gen = eng.new_game(f"search:{i}")
        eng.play_out(gen, {**bots, 1: searching})
        ref = new_game(g, f"search:{i}")
        ref_bots = random_policies(f"search:{i}")
        while not ref.over:
            moves = ref.legal_moves()
            m = moves[len(moves) // 2] if ref.to_act == 1 else ref_bots[ref.to_act].choose(ref, moves)
            ref.apply_in_place(m, trusted=True)
        assert (gen.places, gen.scores, gen.decisions) == (ref.places, ref.scores, ref.decisions)
        assert eng.render_record(gen) == ref.record


@pytest.mark.parametrize("name", BUNDLED + VARIANTS, ids=lambda n: Path(n).stem)
def test_folded_constants_are_never_rebound(name):
    """The constants folded into the module's functions (codegen.FOLDED: COVER_MODEL, FILLER, N...)
    are set only by module-level ``NAME = literal`` lines, never bound inside a function, so
    reading them as those literals is what the module would read anyway; the hot loop is folded."""
    import ast
    tree = ast.parse(codegen.load(_graph(name)).source)
    top = {id(t) for st in tree.body if isinstance(st, (ast.Assign, ast.AnnAssign))
           for t in (st.targets if isinstance(st, ast.Assign) else [st.target])}
    for st in tree.body:
        if isinstance(st, (ast.Assign, ast.AnnAssign)) and any(
                isinstance(t, ast.Name) and t.id in codegen.FOLDED
                for t in (st.targets if isinstance(st, ast.Assign) else [st.target])):
            assert isinstance(st.value, ast.Constant), ast.unparse(st)
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            assert node.id not in codegen.FOLDED or id(node) in top, node.id
        elif isinstance(node, ast.arg):
            assert node.arg not in codegen.FOLDED
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            assert not set(node.names) & set(codegen.FOLDED)
    assert "_random_run" in codegen.load(_graph(name)).folded


def test_folding_writes_literals_only_where_code_reads_the_constants():
    """codegen.fold_functions: the constants are written in as literals where a function reads
    them (identity tests against None become their results); strings, comments, attributes,
    keyword arguments and module-level lines are left alone; line numbers do not move."""
    src = ("N = 6\nFILLER = None\nX = N\n\n\n"
           "def f(S):\n    \"\"\"N seats.\"\"\"\n    a = S.N + N  # N\n    b = 'N' if FILLER is None else g(N=N)\n"
           "    return a, b, FILLER is not None\n\n\ndef h():\n    return 1\n")
    text, done = codegen.fold_functions(src)
    assert done == ["f"]
    assert text.splitlines()[:5] == src.splitlines()[:5]
    body = text.split("def f(S):\n")[1]
    assert '"""N seats."""' in body and "S.N + 6  # N" in body
    assert "b = 'N' if True else g(N=6)" in body and "return a, b, False" in body
    assert len(text.splitlines()) == len(src.splitlines())


# ------------------------------------------------------------------------------ the design metrics' facts
@pytest.mark.parametrize("name", BUNDLED + VARIANTS, ids=lambda n: Path(n).stem)
def test_native_design_facts_are_the_interpreters_probe(name):
    """The design metrics' facts the native core counts as it plays a batch (issue 28: real choices,
    decisions, lead changes, when first place is settled, of how many tricks) are, game by game, what
    the Python probe (tools/design.py) sees on the interpreter playing the same game; random bots,
    and the heuristic bot at some seats."""
    from gouji_dsl.engine import native
    from gouji_dsl.tools.design import play_probed
    if not native.available():
        pytest.skip(f"native core not built: {native.unavailable_reason()}")
    g = _graph(name)
    n = g.n_seats
    for bots, games in (("random", max(2, GAMES // 2)), (["heuristic", "random"] * (n // 2) + ["random"] * (n % 2), 3)):
        got = simulate.native_games(g, "design", 0, games, bots)
        if got is None:  # (a ruleset whose whole games the core does not play: its probe is Python's, below)
            assert simulate.engine_summary(g, "native").get("whole_games") != "native"
            return
        for i, s in enumerate(got):
            if s is None:
                continue
            ref, _state = play_probed(g, "design", i, bots, None, "interpreter")
            assert s.design == ref.design, f"game {i} ({bots})"
