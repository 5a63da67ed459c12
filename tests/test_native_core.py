"""The native core against the reference, piece by piece, on every bundled ruleset and every
examples/variants file: its tables (seat geometry, kinds, the pack) are the interpreter's, its
deal is the interpreter's deal (same seed, same cards to the same seats, the generator left in
the same state), and what it does not play yet is refused by name (the caller falls back)."""
from __future__ import annotations

import random
from pathlib import Path

import pytest

from gouji_dsl.engine import native
from gouji_dsl.engine.interpreter import deal_hands, new_game, next_game
from gouji_dsl.engine.native import program as P
from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
from gouji_dsl.ruleset.graph import load_graph

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


# ------------------------------------------------------------------------------ hook programs
def _programs(g):
    from gouji_dsl.engine.native import hooks
    out = []
    for node in g.nodes:
        for part, tree in node.checked.items():
            try:
                out.append((node.id, part, tree, hooks.emit(g, tree)))
            except native.Unsupported:
                pass
    return out


def _contexts(g, st, rng):
    from gouji_dsl.ruleset.game.context import Ctx
    kinds = list(g.model.kinds)
    for s in st.seat_list:
        top = st.top
        c = Ctx(st, seat=s, top=top, play=top if rng.random() < 0.7 else None,
                beaten=top if rng.random() < 0.2 else None, target=rng.choice([None, *st.seat_list]),
                leading=top is None, card=rng.choice([None, *kinds]), round=rng.randrange(3),
                kind=rng.choice([None, "point", "burn", "stuck", "fall", "", "other"]),
                choice=rng.choice([None, "redeal", "", "other"]), answer=rng.choice([None, "redeal", "pass"]))
        c.amount = rng.randrange(4)
        yield c


@needs_core
@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_hook_programs_give_the_compilers_values(name):
    """Every expression of the ruleset the emitter accepts gives, run natively, the value the
    closure compiler gives (or fails with its error), on contexts from interpreter games."""
    from gouji_dsl.engine.native import hooks
    from gouji_dsl.lang.ops import EvalError
    g = load_graph(name)
    progs = _programs(g)
    assert progs, "no expression emitted"
    fns = [(rid, part, g._compiler.compile(tree), prog) for rid, part, tree, prog in progs]
    compared = 0
    prev = None
    for game in range(3):
        rng = random.Random(f"vm:{game}")
        st = new_game(g, f"vm:{name}:{game}") if prev is None else next_game(prev, f"vm:{name}:{game}")
        step = 0
        while not st.over and step < 400:
            if step % 7 == 0:
                for ctx in _contexts(g, st, rng):
                    packed = hooks.pack_context(g, ctx)
                    for rid, part, fn, prog in fns:
                        nrng = native.from_python(st.rng) if prog.draws else None  # (random_seat() draws from the game's generator)
                        try:
                            want = fn(ctx)
                        except EvalError as e:
                            with pytest.raises(EvalError) as got:
                                hooks.evaluate(prog, g, packed, nrng)
                            assert (got.value.message, got.value.where) == (e.message, e.where), (rid, part)
                            continue
                        except (KeyError, IndexError, TypeError):
                            continue  # (a seat outside the table: the interpreter's own error, not compared)
                        got = hooks.evaluate(prog, g, packed, nrng)
                        assert got == want and type(got) is type(want), (rid, part, prog.text, ctx.seat)
                        assert nrng is None or nrng.getstate() == st.rng.getstate(), (rid, part)  # the same draws
                        compared += 1
            moves = st.legal_moves()
            st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
            step += 1
        prev = st if st.over else None  # (the next game of the match: tribute, previous places and flags)
    assert compared > 0


@needs_core
@pytest.mark.parametrize("expr", ["top.seat // (count(active_seats) - count(active_seats))",
                                  "top.seat % (hand_size(top.seat) - hand_size(top.seat)) + 1",
                                  "settings.place_points[top.seat + 10]",
                                  "top.seat / (hand_size(top.seat) - hand_size(top.seat))",
                                  "after(top.seat)[top.seat + 20]", "after(top.seat)[-top.seat - 20]",
                                  "settings.sweep_places[top.seat + 10]",
                                  "holds(top.seat, settings.buy.ranks[top.seat + 30])", "min(top.seat, settings.sweep_places[-top.seat - 9])"])
def test_a_failing_program_fails_with_the_compilers_error(tmp_path, expr):
    """Division by zero or a missing key in a native program: the compiler's EvalError (message,
    position, code), so the rule's RuleFailed text (rule id and line) is the interpreter's."""
    from gouji_dsl.engine.native import hooks
    from gouji_dsl.lang.ops import EvalError
    from gouji_dsl.ruleset.game.context import Ctx
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    text = f"ruleset: fails-vm\nextends: qingdao\nrules:\n  - id: test.fails\n    on: next_leader\n    value: \"{expr}\"\n"
    path = tmp_path / "fails-vm.yaml"
    path.write_text(text, encoding="utf-8")
    g = compile_ruleset(resolve_text(text, path))
    node = g.node("test.fails")
    tree = next(t for part, t in node.checked.items())
    prog = hooks.emit(g, tree)
    st = new_game(g, "fails")
    while st.top is None:
        moves = st.legal_moves()
        st.apply_in_place(moves[0], trusted=True)
    ctx = Ctx(st, seat=1, top=st.top)
    with pytest.raises(EvalError) as want:
        g._compiler.compile(tree)(ctx)
    with pytest.raises(EvalError) as got:
        hooks.evaluate(prog, g, hooks.pack_context(g, ctx))
    assert (got.value.message, got.value.where, got.value.code) == (want.value.message, want.value.where, want.value.code)
    rule = next(r for r in g._rules if r.node.id == "test.fails")
    assert str(g._failed(rule, got.value, ctx)) == str(g._failed(rule, want.value, ctx))
    assert "test.fails" in str(g._failed(rule, got.value, ctx))


@needs_core
def test_the_verifier_refuses_malformed_programs():
    """Programs that would read outside the core's arrays, jump backwards or off the end, leave
    the stack unbalanced, or hold an unknown opcode are refused before they run."""
    from array import array

    from gouji_dsl.engine.native import _core
    from gouji_dsl.engine.native import hooks as H
    K = 15

    def ok(words):
        return _core.vm_verify(array("i", words).tobytes(), K)
    assert ok([H.OP_CONST, H.T_INT, 5, H.OP_RET])
    assert len(_core.OP_ARGS) == H.OP_BINK + 1  # (hooks.py numbers every opcode of vm.h)
    assert ok([H.OP_TEXTS, 2, 3, 255, 0, 0, 0, 0, 0, H.OP_RET])
    one = [H.OP_CONST, H.T_INT, 1]
    assert ok(one + [H.OP_TEE, 3, H.OP_LOAD, 3, H.OP_BINK, H.BINS["add"], H.T_INT, 2, H.OP_BIN, H.BINS["eq"], H.OP_RET])
    assert ok([H.OP_SLOT, 0, H.OP_TRUTH, H.OP_JFALSE_KEEP, 8, H.OP_SLOT, 1, H.OP_TRUTH, H.OP_RET])  # a and b
    bad = [
        [], [H.OP_RET], [H.OP_CONST, H.T_INT, 5], [99, H.OP_RET], [-1],
        [H.OP_SLOT, 32, H.OP_RET], [H.OP_SLOT, -1, H.OP_RET], [H.OP_PLAYATTR, 3, 0, H.OP_RET], [H.OP_PLAYATTR, 0, 16, H.OP_RET],
        [H.OP_CONST, H.T_RANK, K, H.OP_RET], [H.OP_CONST, 7, 0, H.OP_RET], [H.OP_CONST, H.T_BOOL, 2, H.OP_RET],
        [H.OP_SEATFN, 0, H.OP_RET], [H.OP_CONST, H.T_INT, 1, H.OP_SEATFN, len(H.SEAT_FNS), H.OP_RET],
        [H.OP_CONST, H.T_INT, 1, H.OP_CONST, H.T_INT, 1, H.OP_RET],  # two values left
        [H.OP_CONST, H.T_INT, 1, H.OP_JUMP, 0, H.OP_RET],  # backwards
        [H.OP_CONST, H.T_INT, 1, H.OP_JUMP, 99, H.OP_RET],  # off the end
        [H.OP_CONST, H.T_INT, 1, H.OP_JFALSE_POP, 6, H.OP_RET],  # lands with an empty stack on RET
        [H.OP_CONST, H.T_INT, 1, H.OP_BIN, len(H.BINS), H.OP_RET], [H.OP_CONST, H.T_INT, 1, H.OP_COUNTSET, len(H.SETS), H.OP_RET],
        [H.OP_CONST, H.T_LIST, 7, H.OP_RET], [H.OP_CONST, H.T_LIST, 1 | 1 << 12, H.OP_RET], [H.OP_CONST, H.T_INT, 1, H.OP_FIRSTHELD, 1, K, 0, H.OP_RET],
        [H.OP_CONST, H.T_INT, 1, H.OP_FIRSTHELD, 11, 0, 0, H.OP_RET], [H.OP_CONST, H.T_INT, 1, H.OP_MKLIST, 2, H.OP_RET],  # (a list of 7 items as a constant, an item past its length, a kind out of range, too many kinds, too few values)
        [H.OP_CONST, H.T_INT, 1, H.OP_JUMP, 4, H.OP_RET],  # into the middle of an instruction
        # ... one whose operand reads as a RET there (found by the ASan fuzz: it ran past the program)
        [H.OP_SLOT, 0, H.OP_JTRUE_KEEP, 6, H.OP_CONST, H.T_INT, H.OP_RET, H.OP_RET],
        [H.OP_CONST, H.T_INT, 1] * 65 + [H.OP_RET],  # deeper than the stack
        [H.OP_CONST, H.T_INT, 1, H.OP_RET, H.OP_CONST, H.T_INT, 2, H.OP_RET],  # unreachable code
        [H.OP_CONST, H.T_INT, 1] + [H.OP_NOT] * 4096 + [H.OP_RET],  # longer than a program may be
        # lists of texts: only from OP_TEXTS, at most 7 ids of 0..255, nothing past its length
        [H.OP_CONST, H.T_TLIST, 1, H.OP_RET], [H.OP_TEXTS, 8, 0, 0, 0, 0, 0, 0, 0, H.OP_RET],
        [H.OP_TEXTS, 1, 256, 0, 0, 0, 0, 0, 0, H.OP_RET], [H.OP_TEXTS, 1, -1, 0, 0, 0, 0, 0, 0, H.OP_RET],
        [H.OP_TEXTS, 1, 3, 4, 0, 0, 0, 0, 0, H.OP_RET], [H.OP_TEXTS, -1, 0, 0, 0, 0, 0, 0, 0, H.OP_RET],
        one + one + [H.OP_PREVBURNS, 2, H.OP_RET], one + one + [H.OP_ATLEAST, -1, H.OP_RET],
        one + [H.OP_FLAGGED, 32, H.OP_RET], one + [H.OP_NEXTWITHOUT, -1, H.OP_RET],
        one + [H.OP_WITHHELD, 1, K, 0, H.OP_RET], one + [H.OP_FIRSTHOLDING, 11, 0, 0, H.OP_RET],
        one + [H.OP_LISTITEM, H.OP_RET], one + [H.OP_RECEIVED, H.OP_RET], one + [H.OP_MAXDEALT, H.OP_RET],  # (one operand short)
        [H.OP_MINATLEAST, H.OP_RET], one + [H.OP_CARDSOF, 3, H.OP_RET], one + [H.OP_CARDSOF, -1, H.OP_RET],
        one + [H.OP_PREVCOUNTER, 16, H.OP_RET], one + one + [H.OP_BIN, len(H.BINS), H.OP_RET],
        one + [H.OP_TEE, 32, H.OP_RET], [H.OP_TEE, 0, H.OP_RET], one + [H.OP_BINK, len(H.BINS), H.T_INT, 1, H.OP_RET],
        one + [H.OP_BINK, 0, H.T_RANK, K, H.OP_RET], one + [H.OP_BINK, 0, H.T_TLIST, 0, H.OP_RET],
        one + [H.OP_BINK, 0, H.T_BOOL, 2, H.OP_RET], [H.OP_BINK, 0, H.T_INT, 1, H.OP_RET],
    ]
    for words in bad:
        assert not ok(words), words
    with pytest.raises(ValueError):
        _core.vm_eval(array("i", [H.OP_SLOT, 40, H.OP_RET]).tobytes(), bytes(8 * _core.CTX_LEN))
    with pytest.raises(ValueError):
        _core.vm_eval(array("i", [H.OP_CONST, H.T_INT, 1, H.OP_RET]).tobytes(), bytes(8))


@needs_core
def test_the_benchmark_entry_runs_only_verified_programs():
    from array import array

    from gouji_dsl.engine.native import _core
    from gouji_dsl.engine.native import hooks as H
    g = load_graph("online")
    from gouji_dsl.ruleset.game.context import Ctx
    ctx = H.pack_context(g, Ctx(new_game(g, "bench"), seat=1))
    good = array("i", [H.OP_SLOT, 0, H.OP_RET]).tobytes()
    assert _core.vm_bench([good], ctx, 10) == 10  # (seat 1, ten runs)
    with pytest.raises(ValueError):
        _core.vm_bench([good, array("i", [H.OP_SLOT, 99, H.OP_RET]).tobytes()], ctx, 1)
    with pytest.raises(ValueError):
        _core.vm_bench([good], ctx, -1)


@needs_core
@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_hooks_answer_as_the_rule_graph(name):
    """A permit or value hook whose rules all have programs answers natively what
    ``graph.permit`` / ``graph.value`` answer (allow / deny / require combined in order, the last
    matching value rule, the default, the answer checks), or fails with the same RuleFailed."""
    from gouji_dsl.engine.native import hooks
    from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
    from gouji_dsl.ruleset.graph import RuleFailed
    g = load_graph(name)
    plans = []
    for h in HOOKS:
        if HOOKS[h].kind == HookKind.TRIGGER or not g.by_hook[h]:
            continue
        try:
            plans.append(hooks.plan(g, h))
        except native.Unsupported:
            pass
    assert plans
    compared = 0
    prev = None
    for game in range(2):
        rng = random.Random(f"hooks:{game}")
        st = new_game(g, f"hooks:{name}:{game}") if prev is None else next_game(prev, f"hooks:{name}:{game}")
        step = 0
        while not st.over and step < 300:
            if step % 9 == 0:
                for ctx in _contexts(g, st, rng):
                    packed = hooks.pack_context(g, ctx)
                    for p in plans:
                        ask_ref = g.permit if p.kind == 0 else g.value
                        nrng = native.from_python(st.rng) if p.draws else None  # (a rule may draw from the game's generator)
                        try:
                            want = ask_ref(p.hook, ctx)
                        except RuleFailed as e:
                            try:
                                hooks.ask(p, g, ctx, packed, nrng)
                            except RuleFailed as got:
                                assert str(got) == str(e), p.hook
                            except native.Unsupported:
                                pass  # (a value the programs do not handle: the caller falls back)
                            else:
                                raise AssertionError(f"{p.hook}: the rule graph failed ({e}), the core answered")
                            continue
                        except (KeyError, IndexError, TypeError):
                            continue
                        try:
                            got = hooks.ask(p, g, ctx, packed, nrng)
                        except native.Unsupported:
                            continue
                        assert got == want and type(got) is type(want), (p.hook, ctx.seat)
                        assert nrng is None or nrng.getstate() == st.rng.getstate(), p.hook  # the same draws
                        compared += 1
            moves = st.legal_moves()
            st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
            step += 1
        prev = st if st.over else None
    assert compared > 0


_CRAFTED = [  # (the functions the VM learnt this round, each in a sub-expression compared on its own)
    "prev_burns(seat, target) + 10 * prev_counter_burns(seat, target) + prev_burns(target, 3) > 0",
    "count(with_held(after(seat), ['2', 'R'])) > max_dealt(after(seat), 'B') + max_dealt(team_seats(target), 'R')",
    "dealt_at_least(seat, 'J') + held_at_least(target, 'K') > min_dealt_at_least('Q') + dealt_at_least(target, 'R')",
    "first_holding(seat, ['2', 'B', 'R']) == first_held(target, ['2', 'B'])",
    "count(flagged(all_seats, 'stuck') ++ flagged(after(target), 'opened')) > 0 or next_active_without(seat, 'stuck') == target",
    "prev_seat_at(place(seat)) == target or prev_seat_at(count(all_seats)) == seat",
    "after(seat)[count(finished) - 2] == target or after(target)[-1 - count(finished)] == seat",
    "received(seat, '3') + received(target, 'R') > 0",
    "settings.tribute.point[both_or(flag(seat, 'opened'), flag(target, 'stuck'))][both_or(prev_flag(seat, 'stuck'), seat > 3)] > 1",
    "settings.tribute.order[count(finished) % 5 - 1] == 'burn' or hand_size(seat) / hand_size(target) > 1",
    "prev_counter(seat, 'dead_gouji_plays') + counter(target, 'dead_gouji_plays') > 1",
    "stronger(hand_size(seat), hand_size(target)) or stronger(first_holding(seat, ['2', 'B']), first_held(target, ['2', 'R']))",
    "stronger(first_holding(seat, ['B']), hand_size(target)) or plus(hand_size(seat), first_holding(target, ['2'])) > 3",
]


@needs_core
def test_the_new_functions_on_crafted_states(tmp_path):
    """Every sub-expression of rules using the functions the VM learnt (previous burns, flags of
    lists, kinds at least, list items, maps of maps...) gives natively the compiler's value on
    states with burns in the previous game, flags set and cards received."""
    import dataclasses

    from gouji_dsl.engine.native import hooks
    from gouji_dsl.lang import ast as A
    from gouji_dsl.lang.ops import EvalError
    from gouji_dsl.ruleset.game.context import Ctx
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    rules = "".join(f"  - id: test.new-{i}\n    on: see_count\n    allow: \"{e}\"\n" for i, e in enumerate(_CRAFTED))
    defs = ("definitions:\n  stronger(a, b):\n    expr: \"a > b\"\n  plus(a, b):\n    expr: \"a + b\"\n")
    text = f"ruleset: new-vm\nextends: qingdao\n{defs}rules:\n{rules}"
    path = tmp_path / "new-vm.yaml"
    path.write_text(text, encoding="utf-8")
    g = compile_ruleset(resolve_text(text, path))
    subs = []
    for i in range(len(_CRAFTED)):
        for x in A.walk(g.node(f"test.new-{i}").checked["effect"]):
            try:
                subs.append((x, g._compiler.compile(x), hooks.emit(g, x)))
            except native.Unsupported:
                pass
    assert len(subs) > 60
    rng = random.Random("crafted")
    compared = failed = 0
    st = new_game(g, "crafted")
    while not st.over:
        moves = st.legal_moves()
        st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
    for game in range(4):
        st = next_game(st, f"crafted:{game}")
        burns = tuple({"burner": rng.randint(1, 6), "burned": rng.randint(1, 6), "success": rng.random() < 0.7,
                       "counter": rng.random() < 0.4} for _ in range(rng.randrange(8)))
        counters = {"dead_gouji_plays": {s: rng.randrange(3) for s in st.seat_list if rng.random() < 0.5}}
        st.prev = dataclasses.replace(st.prev, burns=burns, counters=counters)
        for step in range(200):
            if st.over:
                break
            if step % 11 == 0:
                st.flags = {"stuck": {s for s in st.seat_list if rng.random() < 0.3},
                            "opened": {s for s in st.seat_list if rng.random() < 0.3}}
                st.received = {s: {k: rng.randrange(3) for k in ("3", "R", "2")} for s in st.seat_list if rng.random() < 0.5}
                st.counters = {"dead_gouji_plays": {s: rng.randrange(3) for s in st.seat_list if rng.random() < 0.5}}
                for s in st.seat_list:
                    ctx = Ctx(st, seat=s, target=rng.choice(st.seat_list))
                    packed = hooks.pack_context(g, ctx)
                    for x, fn, prog in subs:
                        try:
                            want = fn(ctx)
                        except EvalError as e:
                            with pytest.raises(EvalError) as got:
                                hooks.evaluate(prog, g, packed)
                            assert (got.value.message, got.value.where) == (e.message, e.where), A.unparse(x)
                            failed += 1
                            continue
                        got = hooks.evaluate(prog, g, packed)
                        assert got == want and type(got) is type(want), (A.unparse(x), got, want)
                        compared += 1
            moves = st.legal_moves()
            st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
    assert compared > 1000 and failed > 20  # (divisions by zero, orders and sums of a rank and a number)


@needs_core
@pytest.mark.parametrize("name", ALL, ids=lambda n: Path(n).stem)
def test_every_hook_and_expression_has_a_program(name):
    """Every expression of the ruleset (trigger hooks' parts included) and every permit and value
    hook has a native program: nothing of a bundled ruleset or example falls back for want of one
    (benchmarks/native_coverage.py lists what does not, by reason)."""
    from gouji_dsl.engine.native import hooks
    g = load_graph(name)
    missing = []
    for node in g.nodes:
        for part, tree in node.checked.items():
            try:
                hooks.emit(g, tree)
            except native.Unsupported as e:
                missing.append(f"{node.id} {part}: {e}")
    for h in HOOKS:
        if HOOKS[h].kind != HookKind.TRIGGER and g.by_hook[h]:
            try:
                hooks.plan(g, h)
            except native.Unsupported as e:
                missing.append(f"{h}: {e}")
    assert not missing, missing
