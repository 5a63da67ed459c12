"""A random bot in ``gouji simulate`` draws from the native core's generator (issue 24: the native
flow draws from it with no state copies). It must play the same games as a bot with a
``random.Random`` seeded the same way: on the native flow, on the generated module's own loop (a
ruleset the flow refuses), and on the interpreter; and leave its generator in the same state."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from gouji_dsl.bots import make_bot
from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.simulate import bot_rng, play_game

ROOT = Path(__file__).resolve().parent.parent
POSITIONAL = str(ROOT / "examples" / "variants" / "positional-jokers.yaml")  # (the positional comparison: native too)

pytestmark = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


def test_a_random_bots_generator_is_native_and_seeded_as_pythons() -> None:
    r = bot_rng("s", 3, 2, native=True)
    assert type(r) is native.Random
    py = bot_rng("s", 3, 2)
    assert type(py) is random.Random
    assert r.getstate()[1] == py.getstate()[1]
    assert [r.randrange(n) for n in range(1, 200)] == [py.randrange(n) for n in range(1, 200)]


def _games(name: str, games: int, engine: str, native_rng: bool) -> list[tuple[object, ...]]:
    g = load_graph(name)
    length = match_length(g)
    prev = None
    out = []
    for i in range(games):
        rngs = {s: bot_rng(1, i, s, native=native_rng) for s in range(1, g.n_seats + 1)}
        players = {s: make_bot("random", rngs[s]) for s in rngs}
        res, prev = play_game(g, 1, i, previous=prev if i % length else None, engine=engine, players=players)
        out.append((res.places, res.scores, res.decisions, res.tricks, res.burns, res.record,
                    tuple(rngs[s].getstate()[1] for s in rngs)))
    return out


@pytest.mark.parametrize(("name", "games", "engine"), [("online", 24, "generated"), (POSITIONAL, 12, "generated"),
                                                       ("refused", 6, "generated"), ("online", 2, "interpreter")])
def test_native_and_python_generators_play_the_same_games(name: str, games: int, engine: str,
                                                          refused_by_the_flow: str) -> None:
    """``refused``: a ruleset the flow refuses (the generated module's own loop draws the moves)."""
    name = refused_by_the_flow if name == "refused" else name
    assert _games(name, games, engine, True) == _games(name, games, engine, False)
