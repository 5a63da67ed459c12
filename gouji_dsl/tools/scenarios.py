"""Rule scenarios: ``gouji test FILE...`` (NOTATION.md, "Rule scenarios" — a contract).

A scenario file is YAML: ``ruleset`` (bundled name or a path relative to the file) and ``cases``.
Case kinds: ``classify``, ``compare`` and game cases (``deal``, ``leader``, ``moves``, final
``expect``). Each case gives a :class:`CaseResult`; a file that cannot be read gives one failed
result with the file, line and reason. An ``expect`` key the runner does not know is an error.
"""
from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gouji_dsl.diagnostics import Diagnostic, GoujiError, did_you_mean
from gouji_dsl.engine.interpreter import GameState, Move, hands_from_text, new_game, next_game, parse_move
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset

CLASSIFY_KEYS = ("valid", "rank", "count", "jokers", "gouji")
COMPARE_KEYS = ("beats",)
GAME_KEYS = ("to_act", "over", "places", "scores", "sweep", "hands", "hand_sizes", "legal", "illegal", "transfers")
CASE_KEYS = ("name", "ruleset", "classify", "compare", "deal", "leader", "moves", "expect", "next_deal", "next_moves", "seed")
SETUP_VERBS = ("revolt", "declare", "choose")


@dataclass
class CaseResult:
    """One case's outcome: ``passed`` and, when it failed, ``errors`` (``file:line:col: reason``)."""

    file: str
    name: str
    line: int
    passed: bool
    errors: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------ YAML with positions
class _Loc:
    """Positions of a composed YAML node's children: ``pos`` (line, col) of the node itself."""


class _PosLoader(yaml.SafeLoader):
    pass


class PosDict(dict):
    pos: tuple[int, int] = (0, 0)
    key_pos: dict[Any, tuple[int, int]]
    val_pos: dict[Any, tuple[int, int]]


class PosList(list):
    pos: tuple[int, int] = (0, 0)
    item_pos: list[tuple[int, int]]


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> PosDict:
    d = PosDict()
    d.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    d.key_pos, d.val_pos = {}, {}
    for k_node, v_node in node.value:
        k = loader.construct_object(k_node, deep=True)
        if k in d:
            raise yaml.MarkedYAMLError("while reading a mapping", node.start_mark,
                                       f"duplicate key {k!r}", k_node.start_mark)
        d[k] = loader.construct_object(v_node, deep=True)
        d.key_pos[k] = (k_node.start_mark.line + 1, k_node.start_mark.column + 1)
        d.val_pos[k] = (v_node.start_mark.line + 1, v_node.start_mark.column + 1 + (1 if getattr(v_node, "style", None) in ("'", '"') else 0))
    return d


def _sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> PosList:
    out = PosList(loader.construct_object(n, deep=True) for n in node.value)
    out.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    out.item_pos = [(n.start_mark.line + 1, n.start_mark.column + 1 + (1 if getattr(n, "style", None) in ("'", '"') else 0)) for n in node.value]
    return out


_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


class _CaseError(Exception):
    def __init__(self, line: int, col: int, msg: str):
        super().__init__(msg)
        self.line, self.col, self.msg = line, col, msg


# ------------------------------------------------------------------------ running
def _load_yaml(path: Path) -> Any:
    text = path.read_text(encoding="utf-8")
    return yaml.load(text, Loader=_PosLoader)


def _graph_for(name: str, base: Path, cache: dict[str, RuleGraph]) -> RuleGraph:
    from gouji_dsl.ruleset.loader import resolve
    cand = (base / name)
    key = str(cand.resolve()) if cand.suffix in (".yaml", ".yml") or cand.exists() else name
    if key not in cache:
        cache[key] = compile_ruleset(resolve(str(cand) if cand.exists() else name))
    return cache[key]


def run_file(path: str | Path, cache: dict[str, RuleGraph] | None = None) -> list[CaseResult]:
    """Run every case of one scenario file."""
    p = Path(path)
    cache = cache if cache is not None else {}
    disp = str(path)
    try:
        doc = _load_yaml(p)
    except OSError as e:
        return [CaseResult(disp, "<file>", 0, False, [f"{disp}: cannot read: {e.strerror or e}"])]
    except yaml.YAMLError as e:
        mark = getattr(e, "problem_mark", None)
        where = f"{disp}:{mark.line + 1}:{mark.column + 1}" if mark else disp
        return [CaseResult(disp, "<file>", mark.line + 1 if mark else 0, False,
                           [f"{where}: YAML error: {getattr(e, 'problem', e)}"])]
    if not isinstance(doc, dict) or "cases" not in doc:
        return [CaseResult(disp, "<file>", 1, False, [f"{disp}:1:1: a scenario file needs 'ruleset' and 'cases'"])]
    unknown = [k for k in doc if k not in ("ruleset", "cases", "description", "title")]
    if unknown:
        ln, col = doc.key_pos[unknown[0]]
        return [CaseResult(disp, "<file>", ln, False, [f"{disp}:{ln}:{col}: unknown key {unknown[0]!r} "
                                                       f"(expected ruleset, cases)"])]
    default_rs = doc.get("ruleset")
    cases = doc.get("cases") or []
    if not isinstance(cases, list):
        ln, col = doc.val_pos["cases"]
        return [CaseResult(disp, "<file>", ln, False, [f"{disp}:{ln}:{col}: 'cases' must be a list"])]
    results = []
    for i, case in enumerate(cases):
        line = cases.item_pos[i][0] if isinstance(cases, PosList) else 0
        name = str(case.get("name", f"case {i + 1}")) if isinstance(case, dict) else f"case {i + 1}"
        try:
            if not isinstance(case, dict):
                raise _CaseError(line, 1, "a case must be a mapping")
            rs_name = case.get("ruleset", default_rs)
            if not rs_name:
                raise _CaseError(line, 1, "no ruleset: give 'ruleset' at the top of the file or in the case")
            try:
                graph = _graph_for(str(rs_name), p.parent, cache)
            except GoujiError as e:
                where = case.val_pos["ruleset"] if "ruleset" in case else doc.val_pos.get("ruleset", (line, 1))
                raise _CaseError(*where, f"ruleset {rs_name!r} does not load: "
                                 + "; ".join(d.short() for d in e.diagnostics[:3])) from None
            errors = _run_case(case, graph, disp)
            results.append(CaseResult(disp, name, line, not errors, errors))
        except _CaseError as e:
            results.append(CaseResult(disp, name, line, False, [f"{disp}:{e.line}:{e.col}: {e.msg}"]))
        except GoujiError as e:
            results.append(CaseResult(disp, name, line, False, [d.short() for d in e.diagnostics]))
    return results


def run_files(paths: list[str | Path]) -> list[CaseResult]:
    """Run several scenario files (rulesets are compiled once and shared)."""
    cache: dict[str, RuleGraph] = {}
    out: list[CaseResult] = []
    for p in paths:
        out.extend(run_file(p, cache))
    return out


def format_results(results: list[CaseResult], as_json: bool = False) -> str:
    """One line per case and the closing ``N passed, N failed`` line (or JSON)."""
    passed = sum(r.passed for r in results)
    failed = len(results) - passed
    if as_json:
        return json.dumps({"passed": passed, "failed": failed, "cases": [asdict(r) for r in results]},
                          ensure_ascii=False, indent=2)
    lines = []
    for r in results:
        status = "PASS" if r.passed else "FAIL"
        lines.append(f"{status} {r.file}:{r.line} {r.name}")
        for e in r.errors:
            lines.append(f"     {e}")
    lines.append(f"{passed} passed, {failed} failed")
    return "\n".join(lines)


def _yaml(v: Any) -> str:
    """A value as YAML spells it (true, false, none), for messages."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "none"
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_yaml(x)}" for k, x in v.items()) + "}"
    return str(v) if not isinstance(v, str) else repr(v)


_BOOL_KEYS = ("valid", "gouji", "beats", "over", "sweep")


def _check_values(exp: Any, graph: RuleGraph) -> None:
    """Expect values of the wrong kind are errors at their position, not silent mismatches."""
    if not isinstance(exp, dict):
        return
    n = graph.n_seats

    def bad(key: str, msg: str) -> _CaseError:
        ln, col = exp.val_pos.get(key, (0, 0)) if isinstance(exp, PosDict) else (0, 0)
        return _CaseError(ln, col, f"{key}: {msg}")

    def is_int(v: Any) -> bool:
        return isinstance(v, int) and not isinstance(v, bool)

    for k in _BOOL_KEYS:
        if k in exp and not isinstance(exp[k], bool):
            raise bad(k, f"expected true or false, got {_yaml(exp[k])}")
    for k in ("count", "jokers"):
        if k in exp and (not is_int(exp[k]) or exp[k] < 0):
            raise bad(k, f"expected a whole number, got {_yaml(exp[k])}")
    if "to_act" in exp and exp["to_act"] is not None and (not is_int(exp["to_act"]) or not 1 <= exp["to_act"] <= n):
        raise bad("to_act", f"expected a seat 1..{n}, got {_yaml(exp['to_act'])}")
    for k in ("places", "scores", "hands", "hand_sizes"):
        if k not in exp:
            continue
        m = exp[k] or {}
        if not isinstance(m, dict):
            raise bad(k, f"expected a mapping seat -> value, got {_yaml(m)}")
        for seat, v in m.items():
            if not str(seat).isdigit() or not 1 <= int(seat) <= n:
                raise bad(k, f"seat must be 1..{n}, got {_yaml(seat)}")
            if k == "places" and (not is_int(v) or not 1 <= v <= n):
                raise bad(k, f"a place is 1..{n}, got {_yaml(v)}")
            if k == "hand_sizes" and (not is_int(v) or v < 0):
                raise bad(k, f"a hand size is a whole number >= 0, got {_yaml(v)}")
            if k == "scores" and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise bad(k, f"a score is a number, got {_yaml(v)}")
    for k in ("legal", "illegal", "transfers"):
        if k in exp and not isinstance(exp[k], list):
            raise bad(k, f"expected a list, got {_yaml(exp[k])}")


def _check_keys(exp: Any, allowed: tuple[str, ...], case: dict, disp: str) -> None:
    if not isinstance(exp, dict):
        ln, col = case.val_pos.get("expect", case.pos) if isinstance(case, PosDict) else (0, 0)
        raise _CaseError(ln, col, "'expect' must be a mapping")
    for k in exp:
        if k not in allowed:
            ln, col = exp.key_pos.get(k, (0, 0)) if isinstance(exp, PosDict) else (0, 0)
            hint = did_you_mean(str(k), allowed)
            raise _CaseError(ln, col, f"unknown expect key {k!r} (known here: {', '.join(allowed)})"
                             + (f"; {hint}" if hint else ""))


def _pos(d: Any, key: str) -> tuple[int, int]:
    if isinstance(d, PosDict):
        return d.val_pos.get(key, d.pos)
    return (0, 0)


def _cards(graph: RuleGraph, text: Any, where: tuple[int, int], disp: str) -> tuple[int, ...]:
    return graph.model.parse(str(text), path=disp, line=where[0], col=where[1])


def _run_case(case: dict, graph: RuleGraph, disp: str) -> list[str]:
    for k in case:
        if k not in CASE_KEYS:
            ln, col = case.key_pos.get(k, (0, 0))
            raise _CaseError(ln, col, f"unknown case key {k!r}" + (f"; {did_you_mean(str(k), CASE_KEYS)}" if did_you_mean(str(k), CASE_KEYS) else ""))
    exp = case.get("expect", {}) or {}
    errors: list[str] = []
    model = graph.model
    kinds = [k for k in ("classify", "compare", "deal") if k in case]
    if len(kinds) > 1:
        raise _CaseError(*case.key_pos[kinds[1]], f"a case is one of classify, compare or deal, not {' and '.join(kinds)}")
    if kinds and kinds[0] in ("classify", "compare") and not exp:
        raise _CaseError(*case.key_pos[kinds[0]], f"a {kinds[0]} case needs an 'expect'")
    _check_values(exp, graph)

    def fail(key: str, msg: str) -> None:
        ln, col = exp.val_pos.get(key, exp.pos) if isinstance(exp, PosDict) else (0, 0)
        errors.append(f"{disp}:{ln}:{col}: {msg}")

    if "classify" in case:
        _check_keys(exp, CLASSIFY_KEYS, case, disp)
        p = model.classify(_cards(graph, case["classify"], _pos(case, "classify"), disp))
        got = {"valid": p.valid, "rank": model.kinds[p.rank] if p.valid else None, "count": p.count,
               "jokers": len(p.jokers), "gouji": p.gouji}
        for k, v in exp.items():
            want = ("T" if str(v) == "10" else str(v)) if k == "rank" else v
            if got[k] != want:
                fail(k, f"{k}: expected {_yaml(v)}, got {_yaml(got[k])} ({p.text}{'' if p.valid else ': ' + p.why})")
        return errors
    if "compare" in case:
        _check_keys(exp, COMPARE_KEYS, case, disp)
        cmp = case["compare"]
        if not isinstance(cmp, dict) or set(cmp) != {"lead", "play"}:
            ln, col = _pos(case, "compare")
            raise _CaseError(ln, col, "compare needs {lead: CARDS, play: CARDS}")
        lead = model.classify(_cards(graph, cmp["lead"], _pos(cmp, "lead"), disp))
        play = model.classify(_cards(graph, cmp["play"], _pos(cmp, "play"), disp))
        if "beats" in exp:
            got = model.beats(lead, play)
            if got != exp["beats"]:
                fail("beats", f"beats: expected {_yaml(exp['beats'])}, got {_yaml(got)} ({play.text} over {lead.text})")
        return errors
    if "deal" not in case:
        raise _CaseError(*case.pos, "a case needs classify, compare or deal")
    _check_keys(exp, GAME_KEYS, case, disp)
    if "transfers" in exp and "next_deal" not in case:
        raise _CaseError(*exp.key_pos["transfers"], "'transfers' speaks of the next game: add next_deal")
    leader = case.get("leader")
    if leader is not None and (not isinstance(leader, int) or isinstance(leader, bool)
                               or not 1 <= leader <= graph.n_seats):
        raise _CaseError(*_pos(case, "leader"), f"leader must be a seat 1..{graph.n_seats}, got {_yaml(leader)}")
    state = new_game(graph, seed=case.get("seed", 0), hands=_deal(case, "deal", graph, disp), leader=leader)
    _run_moves(state, case, "moves", graph, disp, errors)
    if errors:
        return errors
    if "next_deal" in case:
        if not state.over:
            raise _CaseError(*case.key_pos["next_deal"], "next_deal: the first game is not over after its moves")
        state = next_game(state, case.get("seed", 0), hands=_deal(case, "next_deal", graph, disp))
        _run_moves(state, case, "next_moves", graph, disp, errors)
        if errors:
            return errors
        if "transfers" in exp:
            got = [f"{e['giver']} gives {e['receiver']}: {e['cards']}" for e in state.record if e["type"] == "transfer"]
            want = []
            items = exp["transfers"] or []
            for i, x in enumerate(items):
                m = _TRANSFER.match(str(x).strip())
                if not m:
                    ln, col = items.item_pos[i] if isinstance(items, PosList) else (0, 0)
                    raise _CaseError(ln, col, f"a transfer is written '6 gives 1: R B', got {x!r}")
                ln, col = items.item_pos[i] if isinstance(items, PosList) else (0, 0)
                cards = model.text(model.parse(m.group(3), path=disp, line=ln, col=col))
                want.append(f"{m.group(1)} gives {m.group(2)}: {cards}")
            if want != got:
                errors.append(f"{disp}:{exp.val_pos['transfers'][0]}:{exp.val_pos['transfers'][1]}: "
                              f"transfers: expected {want}, got {got}")
    _decline_if_skipped(state, case, exp)
    _check_game(state, exp, graph, disp, errors)
    return errors


_TRANSFER = __import__("re").compile(r"^(\d+)\s+gives\s+(\d+)\s*:\s*(.+)$")


def _deal(case: dict, key: str, graph: RuleGraph, disp: str) -> dict:
    deal = case[key]
    if not isinstance(deal, dict):
        raise _CaseError(*_pos(case, key), f"{key} must map seats to cards")
    for k in deal:
        if not str(k).isdigit() or not 1 <= int(k) <= graph.n_seats:
            raise _CaseError(*deal.key_pos.get(k, (0, 0)), f"{key}: seat must be 1..{graph.n_seats}, got {k!r}")
    missing = [s for s in range(1, graph.n_seats + 1) if s not in {int(k) for k in deal}]
    if missing:
        raise _CaseError(*_pos(case, key), f"{key}: every seat is given its hand; missing seat(s) "
                         + ", ".join(map(str, missing)) + " (write '\"\"' for an empty hand)")
    hands = {}
    total = [0] * len(graph.model.kinds)
    for k, v in deal.items():
        ln, col = deal.val_pos[k]
        hands[int(k)] = hands_from_text(graph, {k: "" if v is None else str(v)}, path=disp, line=ln, col=col)[int(k)]
        for c in hands[int(k)]:
            total[graph.model.kinds.index(c.symbol)] += 1
    for i, n in enumerate(total):
        if n > graph.model.deck_counts[i]:
            raise _CaseError(*_pos(case, key), f"{key}: {n} cards {graph.model.kinds[i]!r} dealt, but the "
                             f"{graph.name} pack has only {graph.model.deck_counts[i]}")
    return hands


def _decline_if_skipped(state: GameState, case: dict, exp: dict) -> None:
    listed = [str(x) for x in (exp.get("legal") or []) + (exp.get("illegal") or [])]
    if state.phase in ("setup", "declare", "choose") and not getattr(state, "_used_setup", False) and not any(
            len(x.split()) > 1 and x.split()[1] in SETUP_VERBS for x in listed):
        state.decline_setup()


def _run_moves(state: GameState, case: dict, key: str, graph: RuleGraph, disp: str, errors: list[str]) -> None:
    model = graph.model
    moves = case.get(key) or []
    used_setup = False
    for i, item in enumerate(moves):
        ln, col = moves.item_pos[i] if isinstance(moves, PosList) else (0, 0)
        want = None
        if isinstance(item, dict):
            bad = [k for k in item if k not in ("move", "expect")]
            if bad or "move" not in item:
                raise _CaseError(ln, col, "a move item is a line or {move: LINE, expect: legal|illegal}")
            want = item.get("expect")
            if want not in (None, "legal", "illegal"):
                raise _CaseError(*item.val_pos["expect"], f"move expect must be legal or illegal, got {want!r}")
            ln, col = item.val_pos["move"]
            item = item["move"]
        mv = parse_move(str(item), model, graph.n_seats, path=disp, line=ln, col=col)
        if state.phase in ("setup", "declare", "choose"):
            if mv.verb in SETUP_VERBS or (mv.verb == "pass" and (used_setup or mv.seat == state.to_act)):
                used_setup = True
                state._used_setup = True  # type: ignore[attr-defined]
            else:
                state.decline_setup()
        trace: list = []
        legal = state.check(mv, trace)
        if want == "illegal":
            if legal:
                errors.append(f"{disp}:{ln}:{col}: {item!r} was expected to be illegal but is legal")
            continue
        if not legal:
            why = "; ".join(f"{r.rule_id}: {r.text}" for r in trace if r.verdict == "forbade") or "illegal"
            errors.append(f"{disp}:{ln}:{col}: {item!r} is illegal: {why}")
            return
        state.apply_in_place(mv)


def _check_game(state: GameState, exp: dict, graph: RuleGraph, disp: str, errors: list[str]) -> None:
    model = graph.model

    def fail(key: str, msg: str) -> None:
        ln, col = exp.val_pos.get(key, exp.pos) if isinstance(exp, PosDict) else (0, 0)
        errors.append(f"{disp}:{ln}:{col}: {msg}")

    if "to_act" in exp and state.to_act != exp["to_act"]:
        fail("to_act", f"to_act: expected {_yaml(exp['to_act'])}, got {_yaml(state.to_act)}"
             + (" (the game is over)" if state.over else ""))
    if "over" in exp and state.over != bool(exp["over"]):
        fail("over", f"over: expected {_yaml(exp['over'])}, got {_yaml(state.over)}"
             + (" (the deal was voided)" if state.redealt and state.over else ""))
    if "places" in exp:
        want = {int(k): int(v) for k, v in (exp["places"] or {}).items()}
        if want != state.places:
            fail("places", f"places: expected {want}, got {dict(sorted(state.places.items()))}")
    if "scores" in exp:
        want = {int(k): v for k, v in (exp["scores"] or {}).items()}
        got = {k: state.scores.get(k) for k in want}
        if not state.over:
            fail("scores", "scores: the game is not over")
        elif any(got[k] is None or abs(float(got[k]) - float(v)) > 0.01 for k, v in want.items()):
            fail("scores", f"scores: expected {want}, got {got}")
    if "sweep" in exp and (not state.over or state.sweep != bool(exp["sweep"])):
        fail("sweep", f"sweep: expected {_yaml(exp['sweep'])}, got {_yaml(state.sweep) if state.over else 'game not over'}")
    if "hands" in exp:
        hv = exp["hands"]
        for k, v in (hv or {}).items():
            ln, col = hv.val_pos.get(k, (0, 0)) if isinstance(hv, PosDict) else (0, 0)
            want = model.parse(str(v), path=disp, line=ln, col=col) if str(v).strip() else tuple([0] * len(model.kinds))
            got = tuple(state.hands[int(k)])
            if want != got:
                errors.append(f"{disp}:{ln}:{col}: hands[{k}]: expected {model.text(want) or '(none)'}, got {model.text(got) or '(none)'}")
    if "hand_sizes" in exp:
        want = {int(k): int(v) for k, v in (exp["hand_sizes"] or {}).items()}
        got = {k: state.hand_size(k) for k in want}
        if want != got:
            fail("hand_sizes", f"hand_sizes: expected {want}, got {got}")
    for key, should in (("legal", True), ("illegal", False)):
        items = exp.get(key) or []
        for i, line in enumerate(items):
            ln, col = items.item_pos[i] if isinstance(items, PosList) else (0, 0)
            mv = parse_move(str(line), model, graph.n_seats, path=disp, line=ln, col=col)
            trace: list = []
            ok = state.check(mv, trace)
            if ok != should:
                why = "; ".join(f"{r.rule_id}: {r.text}" for r in trace if r.verdict == "forbade")
                errors.append(f"{disp}:{ln}:{col}: {line!r} expected {'legal' if should else 'illegal'}, "
                              f"but it is {'legal' if ok else 'illegal'}" + (f" ({why})" if why else ""))


_ = (Diagnostic, Move, _Loc)
