"""The expression language (gouji_dsl.lang): one parser into a typed, positioned AST with limits,
one checker, one operator table shared by the compiled closures and the static folder, and a
total runtime (every failure while a rule runs is one RuleFailed naming the rule)."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.parse import MAX_DEPTH, MAX_INT_DIGITS, MAX_LENGTH, ExprError, parse
from gouji_dsl.lang.types import BOOL, INT, RANK, SEAT, Enum, ListOf
from gouji_dsl.ruleset.graph import RuleFailed, load_graph


def write(folder: Path, text: str, name: str = "child.yaml") -> str:
    p = folder / name
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(p)


def errors(path: str) -> list:
    with pytest.raises(GoujiError) as e:
        load_graph(path)
    return e.value.diagnostics


def col_of(path: str, line: int, needle: str) -> int:
    return Path(path).read_text(encoding="utf-8").splitlines()[line - 1].index(needle) + 1


# ------------------------------------------------------------------------------ parsing and limits
def test_parse_builds_positioned_nodes_with_reads():
    n = parse("play.count >= settings.gouji_minimum[play.rank] or not leading", path="f.yaml",
              locate=lambda off: (7, 10 + off))
    assert isinstance(n, A.BoolOp) and n.op == A.BoolOpKind.OR and len(n.operands) == 2
    cmp = n.operands[0]
    assert isinstance(cmp, A.Binary) and cmp.op == A.BinOp.GE
    assert (cmp.pos.path, cmp.pos.line, cmp.pos.col) == ("f.yaml", 7, 10)
    assert n.reads == {"play", "leading", "settings.gouji_minimum"}
    assert A.unparse(n) == "play.count >= settings.gouji_minimum[play.rank] or not leading"


def test_and_or_chains_are_flat():
    n = parse(" or ".join(["true"] * 400))
    assert isinstance(n, A.BoolOp) and len(n.operands) == 400


@pytest.mark.parametrize("text, code", [
    ("not " * 1000 + "x", Code.EXPRESSION_TOO_DEEP),
    ("- " * 1000 + "1", Code.EXPRESSION_TOO_DEEP),
    ("f(" * 200 + "1" + ")" * 200, Code.EXPRESSION_TOO_DEEP),
    ("1" * 4301, Code.INTEGER_TOO_LARGE),
    ("x" * (MAX_LENGTH + 1), Code.EXPRESSION_TOO_LONG),
    ("seat ==", Code.EXPRESSION_SYNTAX),
    ("seat $ 1", Code.EXPRESSION_SYNTAX),
    ("", Code.EXPRESSION_SYNTAX),
])
def test_limits_and_syntax_errors_are_clean(text, code):
    with pytest.raises(ExprError) as e:
        parse(text)
    assert e.value.code == code


def test_limits_are_generous_enough():
    parse("not " * (MAX_DEPTH - 2) + "x")
    parse("9" * MAX_INT_DIGITS)
    parse("(" * 1000 + "1" + ")" * 1000)  # brackets alone add no depth


def test_limits_in_a_ruleset_are_positioned(tmp_path):
    p = write(tmp_path, f"""
        ruleset: child
        extends: online
        rules:
          - id: x.deep
            on: follow
            deny: "{'not ' * 1000}true"
          - id: x.big
            on: follow
            deny: "seat == {'1' * 4301}"
    """)
    ds = errors(p)
    assert [(d.code, d.line) for d in ds] == [(Code.EXPRESSION_TOO_DEEP, 6), (Code.INTEGER_TOO_LARGE, 9)]
    assert ds[1].col == col_of(p, 9, "1111")


# ------------------------------------------------------------------------------ the checker
def test_checked_tree_has_types_and_resolutions():
    g = load_graph("online")
    n = g.node("gouji.minimum")
    t = n.checked["effect"]
    assert t.type == BOOL
    kinds = {type(x).__name__: x for x in A.walk(t)}
    assert kinds["Setting"].type is not None
    binaries = [x for x in A.walk(t) if isinstance(x, A.Binary)]
    assert {b.impl for b in binaries} == {"gt_int", "in_map", "ge_int"}
    attrs = [x for x in A.walk(t) if isinstance(x, A.Attr)]
    assert all(a.ref == A.Ref.PLAY_ATTR for a in attrs)
    order = g.node("trick.ask-order").checked["effect"]
    assert order.type == ListOf(SEAT)
    tr = g.node("tribute.point").checked["effect"]
    assert tr.type == INT


def test_rank_comparisons_mean_rank_order_everywhere(tmp_path):
    # `settings.filler_rank < 'A'` compares ranks (2 is above A), in the compiled rule and in the lint
    p = write(tmp_path, """
        ruleset: child
        extends: online
        rules:
          - id: x.filler-low
            on: see_hand
            allow: "settings.filler_rank < 'A'"
          - id: x.filler-high
            on: see_count
            allow: "settings.filler_rank > 'A'"
    """)
    g = load_graph(p)
    low, high = g.node("x.filler-low"), g.node("x.filler-high")
    assert low.checked["effect"].impl == "lt_rank"
    assert "x.filler-low" in g.pruned and "x.filler-high" not in g.pruned
    from gouji_dsl.lang.compile import Compiler
    c: Compiler = g._compiler
    assert c.constant(low.checked["effect"]) == (True, False)
    assert c.constant(high.checked["effect"]) == (True, True)


@pytest.mark.parametrize("expr, code", [
    ("seat == oposite(top.seat)", Code.UNKNOWN_FUNCTION),
    ("seat == oposite", Code.UNKNOWN_NAME),
    ("play.count > 2", Code.NAME_NOT_AVAILABLE),
    ("top.rnk == '3'", Code.UNKNOWN_ATTRIBUTE),
    ("top.rank == 3", Code.TYPE_MISMATCH),
    ("top.rank == 'Z'", Code.NOT_A_CARD),
    ("holds(seat, '10') > 0", Code.NOT_A_CARD),
    ("settings.gouji_minimum['X'] > 0", Code.NOT_A_CARD),
    ("settings.gouji_minimum['4'] > 0", Code.MISSING_KEY),
    ("settings.first_lead.rnk == '3'", Code.MISSING_KEY),
    ("settings.gouji_minimun == 1", Code.UNKNOWN_SETTING),
    ("hand_size(seat) / 0 > 1", Code.DIVISION_BY_ZERO),
    ("opposite(seat, seat) == 1", Code.WRONG_ARGUMENT_COUNT),
    ("seat == 9", Code.VALUE_NOT_ALLOWED),
    ("'a' < 'b'", Code.TYPE_MISMATCH),
    ("count(seat) > 0", Code.TYPE_MISMATCH),
])
def test_checker_errors_have_codes_and_positions(tmp_path, expr, code):
    p = write(tmp_path, f"""
        ruleset: child
        extends: online
        rules:
          - id: x.rule
            on: follow
            deny: "{expr}"
    """)
    (d,) = errors(p)
    assert d.code == code, d.format()
    assert d.line == 6 and d.col >= col_of(p, 6, '"') + 1


def test_a_gouji_rule_cannot_read_the_game(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        definitions:
          crowded: "count(active_seats) > 4"
        rules:
          - id: x.global
            on: gouji
            value: "play.count > 3 and trick_number > 2"
          - id: x.function
            on: gouji
            value: "hand_size(play.seat) > 3"
          - id: x.definition
            on: gouji
            value: "crowded"
          - id: x.pure
            on: gouji
            value: "max(play.count, 2) > 3"
    """)
    ds = errors(p)
    assert [(d.code, d.line) for d in ds] == [(Code.NAME_NOT_AVAILABLE, 8), (Code.NAME_NOT_AVAILABLE, 11),
                                              (Code.NAME_NOT_AVAILABLE, 14)]
    assert "without a game" in ds[0].hint


def test_definition_and_rule_cycles(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        definitions:
          ping: "pong"
          pong: "not ping"
        rules:
          - id: x.a
            on: follow
            deny: "false"
            before: [x.b]
          - id: x.b
            on: follow
            deny: "false"
            before: [x.a]
    """)
    ds = errors(p)
    codes = sorted(d.code for d in ds)
    assert codes == sorted([Code.DEFINITION_CYCLE, Code.RULE_CYCLE])
    cyc = next(d for d in ds if d.code == Code.RULE_CYCLE)
    assert "'x.a' before 'x.b' before 'x.a'" in cyc.message and cyc.line == 7


# ------------------------------------------------------------------------------ a total runtime
def _play(path: str, games: int = 3):
    from gouji_dsl.tools.simulate import simulate
    return simulate(load_graph(path), games, 1, "random", engine="interpreter")


def test_functions_are_total_over_none(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        rules:
          - id: x.none-args
            on: follow
            deny: "holds(burner, '3') > 99 or min(burner, 3) == 7 or opposite(burner) == 6 or count(none) > 0"
    """)
    _play(p)
    from gouji_dsl.engine.interpreter import new_game
    from gouji_dsl.ruleset.game.context import Ctx
    from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS
    g = new_game(load_graph("online"), 1)
    ctx = Ctx(g, seat=1)
    from gouji_dsl.lang.compile import call_closure
    for sig in FUNCTIONS.values():
        for i in range(len(sig.params)):
            args = [(lambda c: None) if j == i else _sample(sig.params[j]) for j in range(len(sig.params))]
            call_closure(sig, args)(ctx)  # never raises


def _sample(t):
    from gouji_dsl.lang.types import category
    c = category(t)
    if c == "play":
        from gouji_dsl.ruleset.game.context import TablePlay
        m = load_graph("online").model
        v = TablePlay(m.classify(tuple(m.parse("33"))), 1, m.kinds)
        return lambda ctx: v
    v = {"seat": 1, "int": 1, "rank": "3", "text": "x", "list": [1], "map": {1: 1}, "any": 1, "bool": True}[c]
    return lambda ctx: v


@pytest.mark.parametrize("rule, fragment", [
    ("on: burn_order\n    order: \"[9, 1]\"", "9 is not a seat"),
    ("on: first_leader\n    value: \"7 + 2\"", "9, which is not a seat"),
    ("on: after_play\n    count: plays\n    amount: \"place(seat)\"", "amount is none"),
    ("on: score\n    value: \"settings.place_points[hand_size(seat) + 10]\"", "no key"),
    ("on: score\n    value: \"10 // (hand_size(seat) - hand_size(seat))\"", "division by zero"),
])
def test_failures_while_a_rule_runs_are_rule_failed(tmp_path, rule, fragment):
    p = write(tmp_path, "ruleset: child\nextends: online\nrules:\n  - id: x.broken\n    " + rule + "\n")
    with pytest.raises(RuleFailed) as e:
        _play(p, 5)
    d = e.value.diagnostics[0]
    assert d.code == Code.RULE_FAILED and e.value.rule_id == "x.broken" and d.line == 4 and d.path == p
    assert fragment in d.message, d.message


def test_rule_failed_pickles():
    import pickle

    from gouji_dsl.diagnostics import SourcePos
    e = RuleFailed("x.y", SourcePos("f.yaml", 3, 5), "division by zero", SourcePos("f.yaml", 4, 9))
    e2 = pickle.loads(pickle.dumps(e))
    assert isinstance(e2, RuleFailed) and e2.rule_id == "x.y" and e2.diagnostics == e.diagnostics


def test_the_graph_is_frozen():
    g = load_graph("online")
    with pytest.raises(AttributeError):
        g.pruned = frozenset()
    with pytest.raises(TypeError):
        g.by_hook["play"] = ()  # type: ignore[index]
    with pytest.raises(TypeError):
        g.settings["seats"] = 4  # type: ignore[index]


def test_types_of_literals():
    from gouji_dsl.lang.check import Scope, check
    from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, PLAY_ATTRS
    sc = Scope({}, FUNCTIONS, PLAY_ATTRS, kinds=("3", "4"))
    assert check(parse("'a' if true else 'b'"), sc).type == Enum(("a", "b"))
    assert check(parse("[1, none]"), sc).type == ListOf(INT)
    assert check(parse("first(['3'])"), sc).type == Enum(("3",))
    assert check(parse("'3'"), sc, want=RANK).type == RANK


def test_every_hook_has_a_name_in_the_enum_and_the_interpreter_asks_by_it():
    """HookName (a str-Enum) names exactly the hooks of HOOKS, in their order, and the engine asks its
    questions by it: no bare hook name in a call to permit / value / trigger / _ask."""
    import re
    from pathlib import Path

    from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookName
    assert [h.value for h in HookName] == list(HOOKS)
    assert all(HOOKS[h] is HOOKS[str(h)] for h in HookName)
    root = Path(__file__).resolve().parent.parent / "gouji_dsl"
    bare = re.compile(r"\b(_ask|permit|value|trigger|_answered_by)\(\"(" + "|".join(HOOKS) + r")\"")
    found = [f"{p.relative_to(root)}:{i}" for p in [root / "engine" / "interpreter.py", root / "engine" / "explain.py"]
             for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1) if bare.search(line)]
    assert not found, found
