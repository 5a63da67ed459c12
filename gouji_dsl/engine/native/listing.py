"""What the native core runs of a ruleset, as text: every rule's expressions with their verified
programs, one instruction a line, operands by name (a slot by its variable, a function, a set, a
flag or counter by the ruleset's word, a constant as its value, a jump by its target). For
``gouji show RULESET --generated`` once the core plays the game flow, and for reading a program
that answers differently from the interpreter.
"""
from __future__ import annotations

from array import array
from typing import Any

from gouji_dsl.engine.native import Unsupported, _core_module
from gouji_dsl.engine.native import hooks as H
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.ops import _show
from gouji_dsl.ruleset.game.vocabulary import HOOKS
from gouji_dsl.ruleset.graph import RuleGraph

_OPS = {v: k[3:].lower() for k, v in vars(H).items() if k.startswith("OP_") and isinstance(v, int)}
_BINS = {v: k for k, v in H.BINS.items()}
_SLOTS = {v: k for k, v in H.SLOTS.items()}
_SETS = {v: k for k, v in H.SETS.items()}
_SEAT_FNS = {v: k for k, v in H.SEAT_FNS.items()}
_LIST_FNS = {v: k for k, v in H.LIST_FNS.items()}
_PLAYS = {v: k for k, v in H.PLAYS.items()}
_ATTRS = {v[0]: k for k, v in H.ATTRS.items()}


def _const(graph: RuleGraph, tag: int, value: int) -> str:
    try:
        return _show(H._value(graph, tag, value))
    except (Unsupported, IndexError):
        return f"<tag {tag} value {value}>"


def _kinds(graph: RuleGraph, n: int, words: list[int]) -> str:
    kinds = graph.model.kinds
    return ", ".join(kinds[(words[k // 5] >> (6 * (k % 5))) & 63] for k in range(n))


def _mask(graph: RuleGraph, op: int, args: list[int]) -> str:
    mask = (args[1] & 0xFFFFFFFF) | (args[2] & 0xFFFFFFFF) << 32
    bits = [i for i in range(64) if mask >> i & 1]
    kinds = graph.model.kinds
    shown = ", ".join(kinds[i] for i in bits if i < len(kinds)) if op == H.OP_SUMKINDS or args[0] == 0 else ", ".join(map(str, bits))
    what = ("held", "dealt")[args[0]] if op == H.OP_SUMKINDS else ("ranks", "numbers")[args[0]]
    return f"{what} [{shown}]"


def _mapget(graph: RuleGraph, op: int, args: list[int]) -> str:
    pairs = [f"{_const(graph, args[1 + 4 * i], args[2 + 4 * i])}: {_const(graph, args[3 + 4 * i], args[4 + 4 * i])}"
             for i in range(args[0])]
    return "{" + ", ".join(pairs) + "}"


def _named(names: dict[int, str]) -> Any:
    return lambda graph, op, args: names.get(args[0], str(args[0]))


def _flag(graph: RuleGraph, op: int, args: list[int]) -> str:
    table = H.names(graph)
    counters = op in (H.OP_COUNTER, H.OP_PREVCOUNTER)
    words = {v: k for k, v in (table.counters if counters else table.flags).items()}
    return repr(words.get(args[0], args[0]))


def _play(graph: RuleGraph, op: int, args: list[int]) -> str:
    play = _PLAYS.get(args[0], str(args[0]))
    return f"{play}.{_ATTRS.get(args[1], args[1])}" if op == H.OP_PLAYATTR else play


_FORMATS: dict[int, Any] = {
    H.OP_CONST: lambda graph, op, args: _const(graph, args[0], args[1]),
    H.OP_BINK: lambda graph, op, args: f"{_BINS.get(args[0], args[0])} {_const(graph, args[1], args[2])}",
    H.OP_BIN: _named(_BINS), H.OP_SLOT: _named(_SLOTS), H.OP_SEATFN: _named(_SEAT_FNS), H.OP_LISTFN: _named(_LIST_FNS),
    **{o: _named(_SETS) for o in (H.OP_SETLIST, H.OP_COUNTSET, H.OP_INSET)},
    **{o: _play for o in (H.OP_PLAYATTR, H.OP_PLAYIS, H.OP_CARDSOF)},
    **{o: _flag for o in (H.OP_FLAG, H.OP_PREVFLAG, H.OP_FLAGGED, H.OP_NEXTWITHOUT, H.OP_COUNTER, H.OP_PREVCOUNTER)},
    **{o: (lambda graph, op, args: f"-> {args[0]}") for o in H._JUMPS},
    **{o: (lambda graph, op, args: f"[{_kinds(graph, args[0], args[1:])}]")
       for o in (H.OP_FIRSTHELD, H.OP_FIRSTHOLDING, H.OP_WITHHELD)},
    H.OP_MAPGET: _mapget, H.OP_SUMKINDS: _mask, H.OP_INMASK: _mask,
    H.OP_SUMPLACES: lambda graph, op, args: "{" + ", ".join(f"{args[1 + 2 * i]}: {args[2 + 2 * i]}" for i in range(args[0])) + "}",
    H.OP_TEXTS: lambda graph, op, args: _show([H._text_of(graph, t) for t in args[1:1 + args[0]]]),
    H.OP_ATLEAST: lambda graph, op, args: ("held", "dealt")[args[0]],
    H.OP_PREVBURNS: lambda graph, op, args: ("burns", "counter-burns")[args[0]],
}


def _operands(graph: RuleGraph, op: int, args: list[int]) -> str:
    fmt = _FORMATS.get(op)
    return str(fmt(graph, op, args)) if fmt is not None else " ".join(map(str, args))


def disassemble(graph: RuleGraph, prog: H.HookProgram) -> list[str]:
    """The program's instructions, one a line: ``pc  name  operands``."""
    words = array("i")
    words.frombytes(prog.code)
    op_args = _core_module().OP_ARGS
    out, pc = [], 0
    while pc < len(words):
        op = words[pc]
        n = op_args[op] if 0 <= op < len(op_args) else 0
        args = list(words[pc + 1:pc + 1 + n])
        out.append(f"{pc:5d}  {_OPS.get(op, f'op{op}'):<13} {_operands(graph, op, args)}".rstrip())
        pc += 1 + n
    return out


def listing(graph: RuleGraph) -> str:
    """Every rule ``graph`` asks, by hook (the rule graph's order): each expression, its program, or
    why it has none; then the rules pruned (never asked)."""
    out: list[str] = [f"# native hook programs of {graph.name}"]
    for hook in HOOKS:
        rules = graph.by_hook.get(hook)
        if not rules:
            continue
        out.append(f"\n## {hook} ({HOOKS[hook].kind})")
        for r in rules:
            node = r.node
            out.append(f"\n### {node.id} ({node.where}): {node.effect}")
            for part, tree in node.checked.items():
                out.append(f"{part}: {A.unparse(tree)}")
                try:
                    prog = H.emit(graph, tree)
                except Unsupported as e:
                    out.append(f"    (no program: {e})")
                    continue
                out += [f"  {line}" for line in disassemble(graph, prog)]
    if graph.pruned:
        out.append(f"\n(never asked: {', '.join(sorted(graph.pruned))}: they can never fire under these settings)")
    return "\n".join(out) + "\n"


def main(argv: Any = None) -> None:
    """``python -m gouji_dsl.engine.native.listing RULESET``: print the listing."""
    import sys

    from gouji_dsl.ruleset.graph import load_graph
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        raise SystemExit("usage: python -m gouji_dsl.engine.native.listing RULESET")
    sys.stdout.write(listing(load_graph(args[0])))


if __name__ == "__main__":
    main()
