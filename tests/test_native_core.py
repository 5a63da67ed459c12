"""The native core against the reference, piece by piece, on every bundled ruleset and every
examples/variants file: its tables (seat geometry, kinds, the pack) are the interpreter's, its
deal is the interpreter's deal (same seed, same cards to the same seats, the generator left in
the same state), and what it does not play yet is refused by name (the caller falls back)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import deal_hands, new_game
from gouji_dsl.engine.native import program as P
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.vocabulary import HOOKS

ROOT = Path(__file__).resolve().parent.parent
BUNDLED = sorted(p.stem for p in rules_dir().glob("*.yaml"))
VARIANTS = sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))
ALL = BUNDLED + VARIANTS

needs_core = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")


@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_tables_are_the_interpreters(name):
    g = load_graph(name)
    prog = P.program(g)
    st = new_game(g, "tables")
    assert prog.n_seats == st.n_seats and prog.kinds == tuple(st.kinds) and prog.n_teams == st.n_teams
    deck = g.model.deck()
    assert [prog.kinds[k] for k in prog.deck_kinds] == [c.symbol for c in deck]
    for s in st.seat_list:
        assert prog.after[s] == st.after(s)
        assert prog.opposite[s] == st.opposite(s) and prog.team[s] == st.team(s)
    assert all(g.model.is_joker(i) == (i >= prog.n_ranks) for i in range(len(prog.kinds)))
    assert P.program(g) is prog  # cached by the ruleset's hash
    assert [h for h, _ in prog.hooks] == [h for h in HOOKS if g.by_hook[h]]


@needs_core
@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_the_deal_is_the_interpreters(name):
    g = load_graph(name)
    prog = P.program(g)
    deck = g.model.deck()
    kidx = {k: i for i, k in enumerate(prog.kinds)}
    for i in range(12):
        seed = f"deal:{name}:{i}" if i % 3 else i * 7919
        first = 1 + i % g.n_seats
        ref_rng, rng = random.Random(seed), native.new_random(seed)
        want = deal_hands(g.model, g.n_seats, ref_rng, first=first)
        order, hands = P.deal(prog, rng, first)
        got = {s: [] for s in range(1, g.n_seats + 1)}
        for j, pos in enumerate(order):
            got[(first - 1 + j) % g.n_seats + 1].append(deck[pos])
        assert got == want
        for s, cards in want.items():
            counts = [0] * len(prog.kinds)
            for c in cards:
                counts[kidx[c.symbol]] += 1
            assert hands[s] == counts
        assert hands[0] == [0] * len(prog.kinds)
        assert rng.getstate() == ref_rng.getstate()  # the generator advanced as Python's did


@needs_core
def test_the_deal_refuses_bad_tables():
    prog = P.program(load_graph("online"))
    rng = native.new_random(1)
    from gouji_dsl.engine.native import _core
    ok = (prog.deck_kinds, prog.n_seats, len(prog.kinds), prog.n_ranks, 1)
    _core.deal(rng, *ok)
    bad = [
        (bytes([len(prog.kinds)]) + prog.deck_kinds, *ok[1:]),  # a card of no kind
        (bytes([255]) * 3, *ok[1:]),
        (bytes(3000), *ok[1:]),  # more cards than the core holds
        (prog.deck_kinds, 0, *ok[2:]), (prog.deck_kinds, 17, *ok[2:]), (prog.deck_kinds, -1, *ok[2:]),
        (prog.deck_kinds, prog.n_seats, 0, prog.n_ranks, 1), (prog.deck_kinds, prog.n_seats, 65, prog.n_ranks, 1),
        (prog.deck_kinds, prog.n_seats, len(prog.kinds), len(prog.kinds) + 1, 1),
        (prog.deck_kinds, prog.n_seats, len(prog.kinds), -1, 1),
        (*ok[:4], 0), (*ok[:4], prog.n_seats + 1), (*ok[:4], -3),
    ]
    for args in bad:
        before = rng.getstate()
        with pytest.raises(ValueError):
            _core.deal(rng, *args)
        assert rng.getstate() == before  # refused before drawing
    with pytest.raises(TypeError):
        _core.deal(random.Random(1), *ok)  # a Python generator is not the core's


@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_what_is_not_played_yet_is_refused_by_name(name):
    g = load_graph(name)
    with pytest.raises(native.Unsupported) as e:
        P.check(g)
    assert "game flow" in str(e.value)
    gaps = P.missing(g)
    hooks = [h for h, _ in P.program(g).hooks]
    assert len(gaps) == 1 + len([h for h in hooks if h not in P.NATIVE_HOOKS])
    if hooks:
        first = g.by_hook[hooks[0]][0].node
        assert f"the hook {hooks[0]!r} (rule {first.id} at {first.where}" in gaps[1]
