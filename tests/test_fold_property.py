"""Differential property test: compiling and folding are two interpretations of the same checked
tree (gouji_dsl.lang.compile, gouji_dsl.lang.fold). Random well-typed expressions are checked,
folded, compiled and run on random game states: wherever folding says "constant", the compiled
closure gives that constant (or fails loudly with an EvalError, which becomes a RuleFailed: folding
may leave out an operand whose value does not matter, but it never claims another value); and a
compiled expression never fails with anything but an EvalError."""
from __future__ import annotations

import functools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.lang.check import check
from gouji_dsl.lang.fold import Facts, Folder, K
from gouji_dsl.lang.ops import EvalError
from gouji_dsl.lang.parse import ExprError, parse
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, MAYBE_NONE_ATTRS, MAYBE_NONE_FUNCTIONS, MAYBE_NONE_GLOBALS, PLAY_ATTRS
from gouji_dsl.ruleset.graph import hook_scope, load_graph

# ------------------------------------------------------------------------------ expressions by type
LEAVES = {
    "I": ["0", "1", "2", "3", "7", "10", "none", "settings.show_count_at", "settings.yield_to", "settings.gouji_minimum['K']",
          "settings.revolution.place", "settings.tribute.resist_team", "play.count", "play.jokers", "hand_size(seat)",
          "trick_number", "place(seat)", "top.count", "places_taken"],
    "B": ["true", "false", "leading", "play.gouji", "top.gouji", "first_game", "passed(seat)", "active(target)",
          "settings.revolution.redeal_in_first_game", "flag(seat, 'opened')", "play.empties_hand"],
    "S": ["seat", "target", "top.seat", "burner", "leader", "1", "4", "play.seat"],
    "R": ["play.rank", "top.rank", "'3'", "'A'", "'2'", "'R'", "settings.stuck_rank", "settings.first_lead.rank",
          "settings.filler_rank"],
    "L": ["active_seats", "all_seats", "passed_seats", "finished", "[]", "settings.sweep_places"],
}


@functools.cache
def _node(t: str, depth: int) -> st.SearchStrategy[str]:
    leaf = st.sampled_from(LEAVES[t])
    if depth <= 0:
        return leaf

    def sub(u: str) -> st.SearchStrategy[str]:
        return _node(u, depth - 1)

    def fmt(pattern: str, *parts: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        return st.tuples(*parts).map(lambda xs: pattern.format(*xs))

    ops = st.sampled_from(["+", "-", "*", "//", "%", "/"])
    cmp = st.sampled_from(["==", "!=", "<", "<=", ">", ">="])
    rules: dict[str, list[st.SearchStrategy[str]]] = {
        "I": [fmt("({} {} {})", sub("I"), ops, sub("I")), fmt("-({})", sub("I")), fmt("min({}, {})", sub("I"), sub("I")),
              fmt("max({}, {})", sub("I"), sub("I")), fmt("count({})", sub("L")), fmt("holds({}, {})", sub("S"), sub("R")),
              fmt("coalesce({}, {})", sub("I"), sub("I")), fmt("({} if {} else {})", sub("I"), sub("B"), sub("I")),
              fmt("settings.place_points[{}]", sub("I")), fmt("team({})", sub("S"))],
        "B": [fmt("({} {} {})", sub("I"), cmp, sub("I")), fmt("({} {} {})", sub("R"), cmp, sub("R")),
              fmt("({} == {})", sub("S"), sub("S")), fmt("({} and {})", sub("B"), sub("B")),
              fmt("({} or {})", sub("B"), sub("B")), fmt("(not {})", sub("B")), fmt("({} in {})", sub("S"), sub("L")),
              fmt("({} not in {})", sub("R"), st.just("settings.buy.ranks")), fmt("({} if {} else {})", sub("B"), sub("B"), sub("B")),
              fmt("({} == {})", sub("L"), sub("L")), fmt("({} and {} > 0 and 0 == {})", sub("B"), sub("I"), sub("I"))],
        "S": [fmt("opposite({})", sub("S")), fmt("next_active({})", sub("S")), fmt("first({})", sub("L")),
              fmt("({} if {} else {})", sub("S"), sub("B"), sub("S")), fmt("coalesce({}, {})", sub("S"), sub("S"))],
        "R": [fmt("({} if {} else {})", sub("R"), sub("B"), sub("R")), fmt("coalesce({}, {})", sub("R"), sub("R"))],
        "L": [fmt("({} ++ {})", sub("L"), sub("L")), fmt("({} -- {})", sub("L"), sub("L")), fmt("({} & {})", sub("L"), sub("L")),
              fmt("after({})", sub("S")), fmt("teammates({})", sub("S")), fmt("[{}, {}]", sub("S"), sub("S")),
              fmt("active_of({})", sub("L")), fmt("flagged({}, 'opened')", sub("L"))],
    }
    return st.one_of(leaf, *rules[t])


EXPRESSIONS = st.one_of(*[_node(t, 3) for t in "IBSRL"])


# ------------------------------------------------------------------------------ random game states
@functools.cache
def _world():
    graph = load_graph("online")
    scope = hook_scope(None, graph.typed, graph.definitions)
    strength = {k: i for i, k in enumerate(graph.model.kinds)}
    facts = Facts(maybe_none=MAYBE_NONE_GLOBALS | MAYBE_NONE_ATTRS | MAYBE_NONE_FUNCTIONS,
                  hook_maybe_none=frozenset({"top", "beaten"}))
    folder = Folder(strength, FUNCTIONS, PLAY_ATTRS, graph.definitions, facts)
    return graph, scope, folder, _states(graph)


def _states(graph) -> list[Ctx]:
    rng = random.Random(7)
    out: list[Ctx] = []
    some_play = graph.model.classify(graph.model.parse("33"))
    for game in range(3):
        state = new_game(graph, game)
        steps = 0
        while not state.over and steps < 400:
            if steps % 40 == 0:
                g = state
                seat = rng.randint(1, g.n_seats)
                play = g.top if g.top is not None else TablePlay(some_play, seat, graph.model.kinds)
                out.append(Ctx(g.copy(), seat=seat, play=play, top=g.top,
                               target=rng.randint(1, g.n_seats), leading=g.top is None))
            state.apply_in_place(rng.choice(state.legal_moves()))
            steps += 1
    return out


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(EXPRESSIONS)
def test_folding_agrees_with_the_compiled_closure(text):
    graph, scope, folder, states = _world()
    try:
        tree = check(parse(text), scope)
    except ExprError:
        return  # not every generated text is well-typed (e.g. an order of two seats' ranks); the checker says so
    folded = folder.fold(tree)
    fn = graph._compiler.compile(tree)
    for ctx in states:
        try:
            got = fn(ctx)
        except EvalError:
            continue  # a loud failure (RuleFailed when a rule runs); folding never claims a value for it
        if isinstance(folded, K):
            assert got == folded.v and type(got) is type(folded.v), (text, got, folded.v)


def test_the_generator_reaches_constants_and_the_checker():
    """Guard against a vacuous property: many generated expressions check, and some fold to constants."""
    graph, scope, folder, states = _world()
    rng = random.Random(3)
    checked = constant = 0
    for _ in range(300):
        text = _sample(rng)
        try:
            tree = check(parse(text), scope)
        except ExprError:
            continue
        checked += 1
        constant += isinstance(folder.fold(tree), K)
    assert checked > 150 and constant > 20, (checked, constant)


def _sample(rng: random.Random, t: str | None = None, depth: int = 3) -> str:
    t = t or rng.choice("IBSRL")
    if depth == 0 or rng.random() < 0.3:
        return rng.choice(LEAVES[t])
    d = depth - 1
    if t == "I":
        return rng.choice([f"({_sample(rng, 'I', d)} {rng.choice(['+', '-', '*', '//'])} {_sample(rng, 'I', d)})",
                           f"min({_sample(rng, 'I', d)}, {_sample(rng, 'I', d)})", f"count({_sample(rng, 'L', d)})"])
    if t == "B":
        return rng.choice([f"({_sample(rng, 'I', d)} < {_sample(rng, 'I', d)})", f"({_sample(rng, 'B', d)} and {_sample(rng, 'B', d)})",
                           f"({_sample(rng, 'R', d)} > {_sample(rng, 'R', d)})", f"(not {_sample(rng, 'B', d)})"])
    if t == "S":
        return f"opposite({_sample(rng, 'S', d)})"
    if t == "R":
        return f"({_sample(rng, 'R', d)} if {_sample(rng, 'B', d)} else {_sample(rng, 'R', d)})"
    return f"({_sample(rng, 'L', d)} ++ {_sample(rng, 'L', d)})"
