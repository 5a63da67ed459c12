"""Rule scenarios: ``gouji test FILE...`` (NOTATION.md, "Rule scenarios" — a contract; the format for
ruleset authors is docs/scenarios.md).

A scenario file is YAML: ``ruleset`` (a bundled ruleset's name, or a ``.yaml`` path in the scenario's
folder or below, or in a ``--rules-path`` folder) and ``cases``. Case kinds: ``classify``,
``compare``, ``pack`` and game cases (``deal``, ``leader``, ``moves``, final ``expect``; a match
adds ``next_deal`` / ``next_moves``). Each case gives a :class:`CaseResult`. Nothing a file holds
makes the runner raise: a file that cannot be read gives one failed result with its position and
reason, a case that is malformed fails with ``file:line:col``, a hint and a stable code
(:class:`gouji_dsl.diagnostics.Code`). An ``expect`` key the runner does not know is an error.

This module runs files and cases (:func:`run_file`, :func:`run_files`, :func:`format_results`) and holds the
classify, compare and pack cases; the rest of the runner, one module a part: :mod:`~gouji_dsl.tools.scenario_source`
(what a file is made of: its keys, YAML with the position of every value, a case's error, reading a file and its
ruleset), :mod:`~gouji_dsl.tools.scenario_values` (the values an ``expect:`` may hold, checked before a case runs),
:mod:`~gouji_dsl.tools.scenario_games` (game cases: the deal, the moves, a match's next game, the final
expectations, one check per ``expect:`` key).
"""
from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.scenario_games import game_case
from gouji_dsl.tools.scenario_source import (
    CASE_KEYS,
    CASE_KINDS,
    CLASSIFY_KEYS,
    COMPARE_KEYS,
    FILE_KEYS,
    GAME_KEYS,
    PACK_KEYS,
    CaseError,
    PosDict,
    as_yaml,
    graph_for,
    item_at,
    key_at,
    read_doc,
    unknown_key,
    value_at,
)
from gouji_dsl.tools.scenario_values import case_cards, case_seed, check_keys, check_values, seat_key


@dataclass
class CaseResult:
    """One case's outcome: ``passed`` and, when it failed, ``errors`` (``file:line:col: reason``)
    with a stable code for each in ``codes`` (same order)."""

    file: str
    name: str
    line: int
    passed: bool
    errors: list[str] = field(default_factory=list)
    codes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------ running
def run_file(path: str | Path, cache: dict[str, RuleGraph] | None = None, *,
             search: Sequence[str | os.PathLike[str]] = ()) -> list[CaseResult]:
    """Run every case of one scenario file. Never raises for anything the file holds.

    ``cache`` maps a ruleset as written in scenarios (or a resolved path) to its compiled graph
    (shared by :func:`run_files`); ``search``: folders where ``ruleset:`` names are also looked up
    (as ``--rules-path``)."""
    p = Path(path)
    cache = cache if cache is not None else {}
    disp = str(path)
    try:
        doc, cases = _read_cases(p, disp)
    except CaseError as e:
        return [CaseResult(disp, "<file>", e.line, False, [e.text(disp)], [str(e.code)])]
    return [_one_case(doc, cases, i, p, disp, cache, search) for i in range(len(cases))]


def _read_cases(p: Path, disp: str) -> tuple[dict[str, Any], list[Any]]:
    """A scenario file's document and its cases; CaseError where the file is not one."""
    doc = read_doc(p, disp)
    if not isinstance(doc, dict) or "cases" not in doc:
        raise CaseError((1, 1), _("a scenario file is a mapping with 'ruleset' and 'cases'"), Code.SCENARIO_KEY,
                         _("see docs/scenarios.md"))
    for k in doc:
        if k not in FILE_KEYS:
            raise unknown_key(key_at(doc, k), "file", k, FILE_KEYS)
    cases = doc.get("cases") or []
    if not isinstance(cases, list):
        raise CaseError(value_at(doc, "cases"), _("'cases' must be a list of cases"), Code.SCENARIO_VALUE)
    return doc, cases


def _one_case(doc: dict[str, Any], cases: list[Any], i: int, p: Path, disp: str, cache: dict[str, RuleGraph],
              search: Sequence[str | os.PathLike[str]]) -> CaseResult:
    """The result of case ``i`` of the file: whatever it holds, reported, never raised."""
    case = cases[i]
    line = item_at(cases, i)[0]
    name = str(case.get("name", _("case {i}").format(i=i + 1))) if isinstance(case, dict) else _("case {i}").format(i=i + 1)
    errors: list[tuple[str, str]] = []
    try:
        _run_case(case, _case_graph(doc, cases, i, p, cache, search), disp, errors)
    except CaseError as e:
        errors.append((e.text(disp), str(e.code)))
    except GoujiError as e:
        errors += [(d.short() + (_(" (hint: {hint})").format(hint=d.hint) if d.hint else ""), str(d.code)) for d in e.diagnostics]
    except RecursionError:
        errors.append((_("{disp}:{line}:1: the case is nested too deeply").format(disp=disp, line=line), str(Code.SCENARIO_VALUE)))
    except Exception as e:  # a bug must not hide the other cases: reported, never raised
        errors.append((_("{disp}:{line}:1: internal error while running the case: {type}: {e}").format(
            disp=disp, line=line, type=type(e).__name__, e=e),
                       str(Code.INTERNAL_ERROR)))
    return CaseResult(disp, name, line, not errors, [t for t, _ in errors], [c for _, c in errors])


def _case_graph(doc: dict[str, Any], cases: list[Any], i: int, p: Path, cache: dict[str, RuleGraph],
                search: Sequence[str | os.PathLike[str]]) -> RuleGraph:
    """The compiled ruleset of case ``i`` (its own ``ruleset:``, else the file's), once its keys are checked."""
    case = cases[i]
    if not isinstance(case, dict):
        raise CaseError(item_at(cases, i), _("a case must be a mapping (name, ruleset, classify / compare / "
                         "pack / deal, expect ...)"), Code.SCENARIO_VALUE)
    for k in case:
        if k not in CASE_KEYS:
            raise unknown_key(key_at(case, k), "case", k, CASE_KEYS)
    if "ruleset" in case:
        rs_name, where = case["ruleset"], value_at(case, "ruleset")
    else:
        rs_name, where = doc.get("ruleset"), value_at(doc, "ruleset") if "ruleset" in doc else item_at(cases, i)
    if rs_name is None:
        raise CaseError(where, _("no ruleset: give 'ruleset' at the top of the file or in the case"),
                         Code.SCENARIO_KEY)
    return graph_for(rs_name, where, p, cache, search)


def run_files(paths: Sequence[str | Path], *, search: Sequence[str | os.PathLike[str]] = ()) -> list[CaseResult]:
    """Run several scenario files (rulesets are compiled once and shared)."""
    cache: dict[str, RuleGraph] = {}
    out: list[CaseResult] = []
    for p in paths:
        out.extend(run_file(p, cache, search=search))
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
        status = _("PASS") if r.passed else _("FAIL")
        lines.append(f"{status} {r.file}:{r.line} {r.name}")
        for e in r.errors:
            lines.append(f"     {e}")
    lines.append(_("{passed} passed, {failed} failed").format(passed=passed, failed=failed))
    return "\n".join(lines)


# ------------------------------------------------------------------------ case kinds
def _run_case(case: dict[str, Any], graph: RuleGraph, disp: str, errors: list[tuple[str, str]]) -> None:
    kind = _case_kind(case)
    exp = _case_expect(case, kind)
    check_keys(exp, {"classify": CLASSIFY_KEYS, "compare": COMPARE_KEYS, "pack": PACK_KEYS,
                      "deal": GAME_KEYS}[kind], kind)
    check_values(exp, graph)

    def fail(key: str, msg: str) -> None:
        ln, col = value_at(exp, key)
        errors.append((f"{disp}:{ln}:{col}: {msg}", str(Code.SCENARIO_FAILED)))

    if kind == "classify":
        _classify_case(case, exp, graph, disp, fail, errors)
    elif kind == "compare":
        _compare_case(case, exp, graph, disp, fail)
    elif kind == "pack":
        _pack_case(case, exp, graph, fail)
    else:
        game_case(case, exp, graph, disp, errors)


def _case_kind(case: dict[str, Any]) -> str:
    """The kind of a case (classify, compare, pack or deal): exactly one of them is written."""
    kinds = [k for k in CASE_KINDS if k in case]
    if len(kinds) > 1:
        raise CaseError(key_at(case, kinds[1]), _("a case is one of classify, compare, pack or deal, "
                         "not {join}").format(join=' and '.join(kinds)), Code.SCENARIO_KEY)
    if not kinds:
        raise CaseError(case.pos if isinstance(case, PosDict) else (0, 0),
                         _("a case needs classify, compare, pack or deal"), Code.SCENARIO_KEY,
                         _("see docs/scenarios.md for the case kinds"))
    return kinds[0]


def _case_expect(case: dict[str, Any], kind: str) -> dict[str, Any]:
    """A case's ``expect`` (a mapping; needed but by game cases), with no key of a game case in a case of another kind."""
    exp = case.get("expect", {})
    if exp is None:
        exp = {}
    if not isinstance(exp, dict):
        raise CaseError(value_at(case, "expect"), _("'expect' must be a mapping"), Code.SCENARIO_VALUE)
    if kind in ("classify", "compare", "pack") and not exp:
        raise CaseError(key_at(case, kind), _("a {kind} case needs an 'expect'").format(kind=kind), Code.SCENARIO_KEY)
    if kind != "deal":
        stray = [k for k in ("leader", "moves", "next_deal", "next_moves", "redeal_deals") if k in case]
        if stray:
            raise CaseError(key_at(case, stray[0]), _("{stray!r} belongs to a game case (deal), not a {kind} case").format(stray=stray[0], kind=kind),
                             Code.SCENARIO_KEY)
    return exp


def _classify_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str, fail: Any,
                   errors: list[tuple[str, str]]) -> None:
    model = graph.model
    where = value_at(case, "classify")
    try:
        p = model.classify(case_cards(graph, case["classify"], where, disp))
    except GoujiError as e:
        # a text that is no play (an unknown character, a card this ruleset lacks): valid is false
        d = e.diagnostics[0]
        for k, v in exp.items():
            if k == "valid" and v is False:
                continue
            want = as_yaml(v)
            errors.append((_("{location}: {k}: expected {want}, but the text is not a play: {message}").format(
                location=d.location, k=k, want=want, message=d.message)
                           + (_(" (hint: {hint})").format(hint=d.hint) if d.hint else ""), str(d.code)))
        return
    got = {"valid": p.valid, "rank": model.kinds[p.rank] if p.valid else None, "count": p.count,
           "jokers": len(p.jokers), "gouji": p.gouji}
    for k, v in exp.items():
        want = ("T" if str(v) == "10" else str(v)) if k == "rank" and v is not None else v
        if got[k] != want:
            fail(k, _("{k}: expected {yaml}, got {yaml2} ({text}{p})").format(
                k=k, yaml=as_yaml(v), yaml2=as_yaml(got[k]), text=p.text, p='' if p.valid else ': ' + p.why))


def _compare_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str, fail: Any) -> None:
    model = graph.model
    cmp = case["compare"]
    if not isinstance(cmp, dict) or set(cmp) != {"lead", "play"}:
        raise CaseError(value_at(case, "compare"), _("compare needs {lead: CARDS, play: CARDS}"), Code.SCENARIO_VALUE)
    lead = model.classify(case_cards(graph, cmp["lead"], value_at(cmp, "lead"), disp))
    play = model.classify(case_cards(graph, cmp["play"], value_at(cmp, "play"), disp))
    got = model.beats(lead, play)
    if got != exp["beats"]:
        why = "" if got else f": {model.why_not(lead, play)}"
        fail("beats", _("beats: expected {yaml}, got {yaml2} ({text} over {text2}{why})").format(
            yaml=as_yaml(exp['beats']), yaml2=as_yaml(got), text=play.text, text2=lead.text, why=why))


def _pack_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, fail: Any) -> None:
    spec = case["pack"] if case["pack"] is not None else {}
    if not isinstance(spec, dict):
        raise CaseError(value_at(case, "pack"), _("pack takes {} or {seed: S}"), Code.SCENARIO_VALUE)
    for k in spec:
        if k != "seed":
            raise unknown_key(key_at(spec, k), "pack", k, ("seed",))
    model = graph.model
    if "cards" in exp and sum(model.deck_counts) != exp["cards"]:
        fail("cards", _("cards: expected {exp}, the {name} pack holds {sum}").format(exp=exp['cards'], name=graph.name, sum=sum(model.deck_counts)))
    if "ranks" in exp:
        _pack_ranks(exp, graph, fail)
    if "hand_sizes" in exp:
        _pack_hand_sizes(spec, exp, graph, fail)


def _pack_ranks(exp: dict[str, Any], graph: RuleGraph, fail: Any) -> None:
    """``expect: ranks``: how many cards of each kind the pack holds."""
    model = graph.model
    have = dict(zip(model.kinds, model.deck_counts))
    table = exp["ranks"] or {}
    for sym, n in table.items():
        s = "T" if str(sym) == "10" else str(sym)
        if s not in have:
            raise CaseError(key_at(table, sym), _("ranks: the {name} pack has no card {yaml}").format(name=graph.name, yaml=as_yaml(sym)),
                             Code.SCENARIO_VALUE, "cards: " + " ".join(model.kinds))
        if have[s] != n:
            ln, col = value_at(table, sym)
            fail("ranks", _("ranks[{s}]: expected {n}, the pack holds {have}").format(s=s, n=n, have=have[s]))


def _pack_hand_sizes(spec: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, fail: Any) -> None:
    """``expect: hand_sizes``: how many cards each seat is dealt (the deal of the case's seed)."""
    seed = case_seed(spec)
    state = new_game(graph, seed)
    deal = next(e for e in state.record if e["type"] == "deal")
    got = {int(s): len(text.split()) for s, text in deal["hands"].items()}
    want = {seat_key(k, graph.n_seats): v for k, v in (exp["hand_sizes"] or {}).items()}
    if any(got.get(s) != v for s, v in want.items()):
        fail("hand_sizes", _("hand_sizes: expected {dict}, the deal gives "
             "{s} (all: {got})").format(dict=dict(sorted(want.items())), s={s: got[s] for s in sorted(want)}, got=got))
