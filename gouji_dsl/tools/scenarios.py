"""Rule scenarios: ``gouji test FILE...`` (NOTATION.md, "Rule scenarios" — a contract; the format for
ruleset authors is docs/scenarios.md).

A scenario file is YAML: ``ruleset`` (a bundled ruleset's name, or a ``.yaml`` path in the scenario's
folder or below, or in a ``--rules-path`` folder) and ``cases``. Case kinds: ``classify``,
``compare``, ``pack`` and game cases (``deal``, ``leader``, ``moves``, final ``expect``; a match
adds ``next_deal`` / ``next_moves``). Each case gives a :class:`CaseResult`. Nothing a file holds
makes the runner raise: a file that cannot be read gives one failed result with its position and
reason, a case that is malformed fails with ``file:line:col``, a hint and a stable code
(:class:`gouji_dsl.diagnostics.Code`). An ``expect`` key the runner does not know is an error.
"""
from __future__ import annotations

import json
import os
import re
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import yaml

from gouji_dsl.diagnostics import Code, GoujiError, did_you_mean, shortened
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import MAX_REDEALS, GameState, Move, choice_words, hands_from_text, new_game, next_game, parse_move, read_seat
from gouji_dsl.i18n import _, ngettext
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, os_reason, read_regular
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.game.terms import SETUP_VERBS, Choice, Phase, Verb
from gouji_dsl.ruleset.graph import RuleGraph, Verdict, compile_ruleset
from gouji_dsl.ruleset.load.finding import find_ruleset
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.tools.exits import MAX_SEED_CHARS

FILE_KEYS = ("ruleset", "cases", "title", "description")
CLASSIFY_KEYS = ("valid", "rank", "count", "jokers", "gouji")
COMPARE_KEYS = ("beats",)
PACK_KEYS = ("cards", "ranks", "hand_sizes")
GAME_KEYS = ("to_act", "over", "places", "scores", "sweep", "hands", "hand_sizes", "legal", "illegal",
             "voided", "counts_shown", "explained_by", "transfers", "sees", "sees_count", "match_games",
             "deal_valid")
CASE_KEYS = ("name", "ruleset", "classify", "compare", "pack", "deal", "leader", "moves", "expect",
             "next_deal", "next_moves", "seed", "redeal_deals")
CASE_KINDS = ("classify", "compare", "pack", "deal")
MOVE_ITEM_KEYS = ("move", "expect")

MAX_SCENARIO_BYTES = 4_000_000
"""A scenario file larger than this is refused before it is parsed."""
MAX_RULESET_REF = 255
"""The longest ``ruleset:`` value (a name or a path) the runner looks up."""


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


# ------------------------------------------------------------------------ YAML with positions
class _PosLoader(yaml.SafeLoader):
    def construct_object(self, node: yaml.Node, deep: bool = False) -> Any:
        """PyYAML's constructors raise plain exceptions on an explicit tag whose text does not fit
        (``!!timestamp expect``, ``!!int x``, ``!!float abc``): those become a positioned YAML error."""
        try:
            return super().construct_object(node, deep=deep)
        except (ValueError, TypeError, AttributeError, OverflowError) as e:
            raise yaml.MarkedYAMLError(_("while reading a value"), node.start_mark,
                                       _("{node} cannot read {getattr!r}").format(
                                           node=node.tag.replace('tag:yaml.org,2002:', '!!'), getattr=getattr(node, 'value', ''))
                                       if isinstance(node, yaml.ScalarNode) else _("cannot read this value ({e})").format(e=e),
                                       node.start_mark) from None


class PosDict(dict):
    """A mapping from a scenario file with the positions of the mapping, its keys and values."""

    pos: tuple[int, int] = (0, 0)
    key_pos: dict[Any, tuple[int, int]]
    val_pos: dict[Any, tuple[int, int]]


class PosList(list):
    """A list from a scenario file with the position of the list and of each item."""

    pos: tuple[int, int] = (0, 0)
    item_pos: list[tuple[int, int]]


def _quoted(node: yaml.Node) -> int:
    return 1 if getattr(node, "style", None) in ("'", '"') else 0


def _mapping(loader: yaml.SafeLoader, node: yaml.MappingNode) -> PosDict:
    d = PosDict()
    d.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    d.key_pos, d.val_pos = {}, {}
    for k_node, v_node in node.value:
        k = loader.construct_object(k_node, deep=True)
        try:
            hash(k)
        except TypeError:
            raise yaml.MarkedYAMLError(_("while reading a mapping"), node.start_mark,
                                       _("a key must be a plain value"), k_node.start_mark) from None
        if k in d:
            raise yaml.MarkedYAMLError(_("while reading a mapping"), node.start_mark,
                                       _("duplicate key {k!r}").format(k=k), k_node.start_mark)
        d[k] = loader.construct_object(v_node, deep=True)
        d.key_pos[k] = (k_node.start_mark.line + 1, k_node.start_mark.column + 1)
        d.val_pos[k] = (v_node.start_mark.line + 1, v_node.start_mark.column + 1 + _quoted(v_node))
    return d


def _sequence(loader: yaml.SafeLoader, node: yaml.SequenceNode) -> PosList:
    out = PosList(loader.construct_object(n, deep=True) for n in node.value)
    out.pos = (node.start_mark.line + 1, node.start_mark.column + 1)
    out.item_pos = [(n.start_mark.line + 1, n.start_mark.column + 1 + _quoted(n)) for n in node.value]
    return out


_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _mapping)
_PosLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_SEQUENCE_TAG, _sequence)


class _CaseError(Exception):
    """A problem that ends a case (or a file): its position, message, code and hint."""

    def __init__(self, pos: tuple[int, int], msg: str, code: str = Code.SCENARIO_VALUE, hint: str | None = None):
        super().__init__(msg)
        self.line, self.col = pos
        self.msg, self.code, self.hint = msg, code, hint

    def text(self, disp: str) -> str:
        return f"{disp}:{self.line}:{self.col}: {self.msg}" + (_(" (hint: {hint})").format(hint=self.hint) if self.hint else "")


class _PackError(_CaseError):
    """A deal the ruleset's pack cannot hold (``expect: {deal_valid: false}`` expects it)."""


def _pos(d: Any, key: Any) -> tuple[int, int]:
    """Where the value of ``key`` of a mapping from the file was written ((0, 0) when unknown)."""
    if isinstance(d, PosDict):
        return d.val_pos.get(key, d.pos)
    return (0, 0)


def _kpos(d: Any, key: Any) -> tuple[int, int]:
    if isinstance(d, PosDict):
        return d.key_pos.get(key, d.pos)
    return (0, 0)


def _ipos(items: Any, i: int) -> tuple[int, int]:
    if isinstance(items, PosList) and i < len(items.item_pos):
        return items.item_pos[i]
    return (0, 0)


def _yaml(v: Any) -> str:
    """A value as YAML spells it (true, false, none), for messages (long values cut short)."""
    if isinstance(v, bool):
        text = "true" if v else "false"
    elif v is None:
        text = "none"
    elif isinstance(v, dict):
        text = "{" + ", ".join(f"{k}: {_yaml(x)}" for k, x in v.items()) + "}"
    elif isinstance(v, list):
        text = "[" + ", ".join(_yaml(x) for x in v) + "]"
    elif isinstance(v, str):
        text = repr(v)
    else:
        text = str(v)
    return shortened(text)


def _unknown_key(where: tuple[int, int], what: str, key: Any, known: Sequence[str], detail: str = "") -> _CaseError:
    guess = did_you_mean(str(key), known)
    hint = (f"{guess} " if guess else "") + _("{what} keys{detail}: {join}").format(what=what, detail=detail, join=', '.join(known))
    said = detail.strip()
    if said and not said.startswith(("(", "（")):
        said = f" ({said})"
    # (the known keys are in the hint, once)
    return _CaseError(where, _("unknown {what} key {yaml}").format(what=what, yaml=_yaml(key)) + said, Code.SCENARIO_KEY, hint)


# ------------------------------------------------------------------------ reading a file
def _read_doc(p: Path, disp: str) -> Any:
    """The parsed YAML of a scenario file, or :class:`_CaseError` (never another exception)."""
    try:  # /dev/zero was read to the end of memory (5 GB in 8 s), a FIFO waited
        data = read_regular(p, MAX_SCENARIO_BYTES)
    except NotRegularFile as e:
        raise _CaseError((0, 0), _("cannot read: {kind}").format(kind=e.kind), Code.SCENARIO_FILE, _("give the path of a .yaml file")) from None
    except FileTooLarge as e:
        raise _CaseError((0, 0), _("the file is {strerror}: a scenario file may have at most {max_scenario_bytes:,}").format(
            strerror=e.strerror, max_scenario_bytes=MAX_SCENARIO_BYTES),
                         Code.SCENARIO_FILE, _("split the cases over several files")) from None
    except OSError as e:
        raise _CaseError((0, 0), _("cannot read: {e}").format(e=os_reason(e)), Code.SCENARIO_FILE) from None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise _CaseError((line, col), _("not UTF-8 text: byte 0x{data:02x} cannot be read").format(data=data[e.start]),
                         Code.SCENARIO_FILE, _("save the file as UTF-8")) from None
    try:
        return yaml.load(text, Loader=_PosLoader)  # a SafeLoader subclass
    except yaml.MarkedYAMLError as e:
        mark = e.problem_mark or e.context_mark
        where = (mark.line + 1, mark.column + 1) if mark else (0, 0)
        raise _CaseError(where, _("YAML error: {e}").format(e=e.problem or e.context), Code.SCENARIO_FILE) from None
    except yaml.YAMLError as e:
        raise _CaseError((0, 0), _("YAML error: {e}").format(e=e), Code.SCENARIO_FILE) from None
    except RecursionError:
        raise _CaseError((0, 0), _("the YAML is nested too deeply"), Code.SCENARIO_FILE) from None
    except ValueError as e:  # e.g. an integer with thousands of digits
        raise _CaseError((0, 0), _("a value cannot be read: {e}").format(e=e), Code.SCENARIO_FILE) from None


def _graph_for(ref: Any, where: tuple[int, int], path: Path, cache: dict[str, RuleGraph],
               search: Sequence[str | os.PathLike[str]]) -> RuleGraph:
    """The compiled ruleset a scenario names (see :func:`gouji_dsl.ruleset.load.finding.find_ruleset`)."""
    if not isinstance(ref, str) or not ref.strip():
        raise _CaseError(where, _("ruleset must be a bundled ruleset's name or a .yaml path, got {yaml}").format(yaml=_yaml(ref)),
                         Code.SCENARIO_VALUE, _("e.g. 'ruleset: online' or 'ruleset: house.yaml'"))
    if ref in cache:  # a graph the caller gave for this name (tools.cases.check_case)
        return cache[ref]
    memo = f"{path.parent}::{ref}"
    if memo in cache:
        return cache[memo]
    if len(ref) > MAX_RULESET_REF:
        raise _CaseError(where, _("ruleset: a name or path of {n} characters (at most {max_ruleset_ref})").format(
            n=len(ref), max_ruleset_ref=MAX_RULESET_REF),
                         Code.SCENARIO_RULESET, _("name a bundled ruleset or a .yaml file beside the scenario"))
    try:
        found = find_ruleset(ref, referrer=path, search=search)
        if _is_scenario_file(found):
            # tests/scenarios/online.yaml (the scenarios of online) beside this file is not the ruleset
            found = find_ruleset(ref, referrer=found, search=search)
        key = str(found)
        if key not in cache:
            cache[key] = compile_ruleset(resolve(key, search=search))
        cache[memo] = cache[key]
        return cache[key]
    except GoujiError as e:
        d = e.diagnostics[0]
        msgs = "; ".join(x.short() if x.line > 0 else x.message for x in e.diagnostics[:3])
        raise _CaseError(where, _("ruleset {ref!r} does not load: {msgs}").format(ref=ref, msgs=msgs), Code.SCENARIO_RULESET, d.hint) from None
    except (OSError, ValueError) as e:
        raise _CaseError(where, _("ruleset {ref!r} does not load: {e}").format(ref=ref, e=e), Code.SCENARIO_RULESET) from None


_CASES_LINE = re.compile(r"^cases\s*:", re.MULTILINE)


def _is_scenario_file(path: Path) -> bool:
    """A file with a top-level ``cases:`` key: scenarios, not a ruleset."""
    try:
        data = read_regular(path, MAX_SCENARIO_BYTES)  # a FIFO would wait for a writer: not a scenario file
    except OSError:
        return False
    return _CASES_LINE.search(data.decode("utf-8", errors="replace")) is not None


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

    def file_failure(e: _CaseError) -> list[CaseResult]:
        return [CaseResult(disp, "<file>", e.line, False, [e.text(disp)], [str(e.code)])]

    try:
        doc = _read_doc(p, disp)
        if not isinstance(doc, dict) or "cases" not in doc:
            raise _CaseError((1, 1), _("a scenario file is a mapping with 'ruleset' and 'cases'"), Code.SCENARIO_KEY,
                             _("see docs/scenarios.md"))
        for k in doc:
            if k not in FILE_KEYS:
                raise _unknown_key(_kpos(doc, k), "file", k, FILE_KEYS)
        cases = doc.get("cases") or []
        if not isinstance(cases, list):
            raise _CaseError(_pos(doc, "cases"), _("'cases' must be a list of cases"), Code.SCENARIO_VALUE)
    except _CaseError as e:
        return file_failure(e)
    default_rs = doc.get("ruleset")
    results = []
    for i, case in enumerate(cases):
        line = _ipos(cases, i)[0]
        name = str(case.get("name", _("case {i}").format(i=i + 1))) if isinstance(case, dict) else _("case {i}").format(i=i + 1)
        errors: list[tuple[str, str]] = []
        try:
            if not isinstance(case, dict):
                raise _CaseError(_ipos(cases, i), _("a case must be a mapping (name, ruleset, classify / compare / "
                                 "pack / deal, expect ...)"), Code.SCENARIO_VALUE)
            for k in case:
                if k not in CASE_KEYS:
                    raise _unknown_key(_kpos(case, k), "case", k, CASE_KEYS)
            if "ruleset" in case:
                rs_name, where = case["ruleset"], _pos(case, "ruleset")
            else:
                rs_name, where = default_rs, _pos(doc, "ruleset") if "ruleset" in doc else _ipos(cases, i)
            if rs_name is None:
                raise _CaseError(where, _("no ruleset: give 'ruleset' at the top of the file or in the case"),
                                 Code.SCENARIO_KEY)
            graph = _graph_for(rs_name, where, p, cache, search)
            _run_case(case, graph, disp, errors)
        except _CaseError as e:
            errors.append((e.text(disp), str(e.code)))
        except GoujiError as e:
            errors += [(d.short() + (_(" (hint: {hint})").format(hint=d.hint) if d.hint else ""), str(d.code)) for d in e.diagnostics]
        except RecursionError:
            errors.append((_("{disp}:{line}:1: the case is nested too deeply").format(disp=disp, line=line), str(Code.SCENARIO_VALUE)))
        except Exception as e:  # a bug must not hide the other cases: reported, never raised
            errors.append((_("{disp}:{line}:1: internal error while running the case: {type}: {e}").format(
                disp=disp, line=line, type=type(e).__name__, e=e),
                           str(Code.INTERNAL_ERROR)))
        results.append(CaseResult(disp, name, line, not errors, [t for t, _ in errors], [c for _, c in errors]))
    return results


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


# ------------------------------------------------------------------------ checking values
_BOOL_KEYS = ("valid", "gouji", "beats", "over", "sweep", "voided", "deal_valid")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _seat_of(k: Any, n: int) -> int | None:
    """A seat written as a key or value: a whole number 1..n (ASCII digits), else None."""
    if _is_int(k):
        return k if 1 <= k <= n else None
    if isinstance(k, str) and (s := read_seat(k)) is not None:
        return s if 1 <= s <= n else None
    return None


def _seat(k: Any, n: int) -> int:
    """A seat key of an expectation already checked by :func:`_check_values`."""
    s = _seat_of(k, n)
    assert s is not None
    return s


_EXAMPLE_SEEN = {"sees": '"55 7"', "sees_count": "3"}


def _bad_value(exp: Any, key: str, msg: str, hint: str | None = None) -> _CaseError:
    return _CaseError(_pos(exp, key), f"{key}: {msg}", Code.SCENARIO_VALUE, hint)


def _check_values(exp: Any, graph: RuleGraph) -> None:
    """Expect values of the wrong kind are errors at their position, not silent mismatches."""
    n = graph.n_seats
    _check_plain_values(exp)
    for k in ("sees", "sees_count"):  # viewer seat -> {seat -> cards or null / count or null}
        if k in exp:
            _check_sees(exp, k, n)
    if "to_act" in exp and exp["to_act"] is not None and _seat_of(exp["to_act"], n) is None:
        raise _bad_value(exp, "to_act", _("expected a seat 1..{n}, got {yaml}").format(n=n, yaml=_yaml(exp['to_act'])))
    for k in ("places", "scores", "hands", "hand_sizes", "counts_shown", "explained_by", "ranks"):
        if k in exp:
            _check_map(exp, k, n)
    for k in ("legal", "illegal", "transfers"):
        if k in exp and not isinstance(exp[k], list):
            raise _bad_value(exp, k, _("expected a list, got {yaml}").format(yaml=_yaml(exp[k])))


def _check_plain_values(exp: Any) -> None:
    """The keys of ``expect:`` that hold true / false or a whole number."""
    for k in _BOOL_KEYS:
        if k in exp and not isinstance(exp[k], bool):
            raise _bad_value(exp, k, _("expected true or false, got {yaml}").format(yaml=_yaml(exp[k])))
    for k in ("count", "jokers", "cards", "match_games"):
        if k in exp and (not _is_int(exp[k]) or exp[k] < 0):
            raise _bad_value(exp, k, _("expected a whole number, got {yaml}").format(yaml=_yaml(exp[k])))


def _check_sees(exp: Any, k: str, n: int) -> None:
    """``sees`` / ``sees_count``: viewer seat -> {another seat -> cards or null / a count or null}."""
    m = exp[k] if exp[k] is not None else {}
    if not isinstance(m, dict):
        raise _bad_value(exp, k, _("expected a mapping seat -> {{another seat -> {cards} or null}}, "
                  "got {yaml}").format(
                      cards='cards' if k == 'sees' else 'count', yaml=_yaml(m)), _("e.g. {k}: {{2: {{4: {example_seen}, 5: null}}}}").format(
                          k=k, example_seen=_EXAMPLE_SEEN[k]))
    for viewer, inner in m.items():
        if _seat_of(viewer, n) is None:
            raise _CaseError(_kpos(m, viewer), _("{k}: seat must be 1..{n}, got {yaml}").format(
                k=k, n=n, yaml=_yaml(viewer)), Code.SCENARIO_VALUE)
        if not isinstance(inner, dict):
            raise _CaseError(_pos(m, viewer), _("{k}: seat {yaml} maps to another seat -> "
                             "{cards} or null, got {yaml2}").format(
                                 k=k, yaml=_yaml(viewer), cards='cards' if k == 'sees' else 'count', yaml2=_yaml(inner)), Code.SCENARIO_VALUE)
        for target, v in inner.items():
            t = _seat_of(target, n)
            if t is None or t == _seat_of(viewer, n):
                raise _CaseError(_kpos(inner, target), _("{k}: another seat 1..{n} than {yaml}, "
                                 "got {yaml2}").format(k=k, n=n, yaml=_yaml(viewer), yaml2=_yaml(target)), Code.SCENARIO_VALUE)
            if k == "sees_count" and v is not None and (not _is_int(v) or v < 0):
                raise _CaseError(_pos(inner, target), _("sees_count: a count is a whole number >= 0 or null, "
                                 "got {yaml}").format(yaml=_yaml(v)), Code.SCENARIO_VALUE)
            if k == "sees" and (isinstance(v, bool) or not isinstance(v, (str, int, type(None)))):
                raise _CaseError(_pos(inner, target), _("sees: cards such as \"55 7\" (\"\" for an empty hand) "
                                 "or null, got {yaml}").format(yaml=_yaml(v)), Code.SCENARIO_VALUE)


def _check_map(exp: Any, k: str, n: int) -> None:
    """A map of ``expect:`` (places, scores, hands, hand_sizes, counts_shown: by seat; explained_by, ranks)."""
    m = exp[k] if exp[k] is not None else {}
    if not isinstance(m, dict):
        what = _("card -> count") if k == "ranks" else (_("move line -> rule ids") if k == "explained_by" else _("seat -> value"))
        raise _bad_value(exp, k, _("expected a mapping {what}, got {yaml}").format(what=what, yaml=_yaml(m)))
    for key, v in m.items():
        _check_map_value(m, k, key, v, n)


def _check_map_value(m: Any, k: str, key: Any, v: Any, n: int) -> None:
    vpos = _pos(m, key)
    if k not in ("explained_by", "ranks") and _seat_of(key, n) is None:
        raise _CaseError(_kpos(m, key), _("{k}: seat must be 1..{n}, got {yaml}").format(k=k, n=n, yaml=_yaml(key)), Code.SCENARIO_VALUE)
    if k == "places" and (not _is_int(v) or not 1 <= v <= n):
        raise _CaseError(vpos, _("places: a place is 1..{n}, got {yaml}").format(n=n, yaml=_yaml(v)), Code.SCENARIO_VALUE)
    if k in ("hand_sizes", "ranks") and (not _is_int(v) or v < 0):
        raise _CaseError(vpos, _("{k}: a count is a whole number >= 0, got {yaml}").format(k=k, yaml=_yaml(v)), Code.SCENARIO_VALUE)
    if k == "scores" and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise _CaseError(vpos, _("scores: a score is a number, got {yaml}").format(yaml=_yaml(v)), Code.SCENARIO_VALUE)
    if k == "counts_shown" and not isinstance(v, bool):
        raise _CaseError(vpos, _("counts_shown: expected true or false, got {yaml}").format(yaml=_yaml(v)), Code.SCENARIO_VALUE)
    if k == "explained_by" and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
        raise _CaseError(vpos, _("explained_by: expected a list of rule ids, got {yaml}").format(yaml=_yaml(v)),
                         Code.SCENARIO_VALUE, "e.g. {\"2 play AA\": [gouji.minimum, gouji.opposite-only]}")


def _check_keys(exp: Any, allowed: tuple[str, ...], kind: str) -> None:
    for k in exp:
        if k not in allowed:
            raise _unknown_key(_kpos(exp, k), "expect", k, allowed, _(" of a {kind} case").format(kind=kind))


def _cards(graph: RuleGraph, text: Any, where: tuple[int, int], disp: str) -> tuple[int, ...]:
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise _CaseError(where, _("expected cards such as \"RR TTT\", got {yaml}").format(yaml=_yaml(text)), Code.SCENARIO_VALUE)
    return graph.model.parse(str(text), path=disp, line=where[0], col=where[1])


def _seed(case: dict[str, Any]) -> int | str:
    s = case.get("seed", 0)
    if isinstance(s, bool) or not isinstance(s, (int, str)):
        raise _CaseError(_pos(case, "seed"), _("seed must be a whole number or text, got {yaml}").format(yaml=_yaml(s)),
                         Code.SCENARIO_VALUE, _("e.g. 'seed: 7'"))
    if len(str(s)) > MAX_SEED_CHARS:
        raise _CaseError(_pos(case, "seed"), _("seed: at most {max_seed_chars} characters").format(
            max_seed_chars=MAX_SEED_CHARS), Code.SCENARIO_VALUE)
    return s


# ------------------------------------------------------------------------ case kinds
def _run_case(case: dict[str, Any], graph: RuleGraph, disp: str, errors: list[tuple[str, str]]) -> None:
    kinds = [k for k in CASE_KINDS if k in case]
    if len(kinds) > 1:
        raise _CaseError(_kpos(case, kinds[1]), _("a case is one of classify, compare, pack or deal, "
                         "not {join}").format(join=' and '.join(kinds)), Code.SCENARIO_KEY)
    if not kinds:
        raise _CaseError(case.pos if isinstance(case, PosDict) else (0, 0),
                         _("a case needs classify, compare, pack or deal"), Code.SCENARIO_KEY,
                         _("see docs/scenarios.md for the case kinds"))
    kind = kinds[0]
    exp = case.get("expect", {})
    if exp is None:
        exp = {}
    if not isinstance(exp, dict):
        raise _CaseError(_pos(case, "expect"), _("'expect' must be a mapping"), Code.SCENARIO_VALUE)
    if kind in ("classify", "compare", "pack") and not exp:
        raise _CaseError(_kpos(case, kind), _("a {kind} case needs an 'expect'").format(kind=kind), Code.SCENARIO_KEY)
    if kind != "deal":
        stray = [k for k in ("leader", "moves", "next_deal", "next_moves", "redeal_deals") if k in case]
        if stray:
            raise _CaseError(_kpos(case, stray[0]), _("{stray!r} belongs to a game case (deal), not a {kind} case").format(stray=stray[0], kind=kind),
                             Code.SCENARIO_KEY)
    _check_keys(exp, {"classify": CLASSIFY_KEYS, "compare": COMPARE_KEYS, "pack": PACK_KEYS,
                      "deal": GAME_KEYS}[kind], kind)
    _check_values(exp, graph)

    def fail(key: str, msg: str) -> None:
        ln, col = _pos(exp, key)
        errors.append((f"{disp}:{ln}:{col}: {msg}", str(Code.SCENARIO_FAILED)))

    if kind == "classify":
        _classify_case(case, exp, graph, disp, fail, errors)
    elif kind == "compare":
        _compare_case(case, exp, graph, disp, fail)
    elif kind == "pack":
        _pack_case(case, exp, graph, fail)
    else:
        _game_case(case, exp, graph, disp, errors)


def _classify_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str, fail: Any,
                   errors: list[tuple[str, str]]) -> None:
    model = graph.model
    where = _pos(case, "classify")
    try:
        p = model.classify(_cards(graph, case["classify"], where, disp))
    except GoujiError as e:
        # a text that is no play (an unknown character, a card this ruleset lacks): valid is false
        d = e.diagnostics[0]
        for k, v in exp.items():
            if k == "valid" and v is False:
                continue
            want = _yaml(v)
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
                k=k, yaml=_yaml(v), yaml2=_yaml(got[k]), text=p.text, p='' if p.valid else ': ' + p.why))


def _compare_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str, fail: Any) -> None:
    model = graph.model
    cmp = case["compare"]
    if not isinstance(cmp, dict) or set(cmp) != {"lead", "play"}:
        raise _CaseError(_pos(case, "compare"), _("compare needs {lead: CARDS, play: CARDS}"), Code.SCENARIO_VALUE)
    lead = model.classify(_cards(graph, cmp["lead"], _pos(cmp, "lead"), disp))
    play = model.classify(_cards(graph, cmp["play"], _pos(cmp, "play"), disp))
    got = model.beats(lead, play)
    if got != exp["beats"]:
        why = "" if got else f": {model.why_not(lead, play)}"
        fail("beats", _("beats: expected {yaml}, got {yaml2} ({text} over {text2}{why})").format(
            yaml=_yaml(exp['beats']), yaml2=_yaml(got), text=play.text, text2=lead.text, why=why))


def _pack_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, fail: Any) -> None:
    spec = case["pack"] if case["pack"] is not None else {}
    if not isinstance(spec, dict):
        raise _CaseError(_pos(case, "pack"), _("pack takes {} or {seed: S}"), Code.SCENARIO_VALUE)
    for k in spec:
        if k != "seed":
            raise _unknown_key(_kpos(spec, k), "pack", k, ("seed",))
    model = graph.model
    if "cards" in exp and sum(model.deck_counts) != exp["cards"]:
        fail("cards", _("cards: expected {exp}, the {name} pack holds {sum}").format(exp=exp['cards'], name=graph.name, sum=sum(model.deck_counts)))
    if "ranks" in exp:
        have = dict(zip(model.kinds, model.deck_counts))
        table = exp["ranks"] or {}
        for sym, n in table.items():
            s = "T" if str(sym) == "10" else str(sym)
            if s not in have:
                raise _CaseError(_kpos(table, sym), _("ranks: the {name} pack has no card {yaml}").format(name=graph.name, yaml=_yaml(sym)),
                                 Code.SCENARIO_VALUE, "cards: " + " ".join(model.kinds))
            if have[s] != n:
                ln, col = _pos(table, sym)
                fail("ranks", _("ranks[{s}]: expected {n}, the pack holds {have}").format(s=s, n=n, have=have[s]))
    if "hand_sizes" in exp:
        seed = _seed(spec)
        state = new_game(graph, seed)
        deal = next(e for e in state.record if e["type"] == "deal")
        got = {int(s): len(text.split()) for s, text in deal["hands"].items()}
        want = {_seat(k, graph.n_seats): v for k, v in (exp["hand_sizes"] or {}).items()}
        if any(got.get(s) != v for s, v in want.items()):
            fail("hand_sizes", _("hand_sizes: expected {dict}, the deal gives "
                 "{s} (all: {got})").format(dict=dict(sorted(want.items())), s={s: got[s] for s in sorted(want)}, got=got))


_TRANSFER = re.compile(r"^(\d{1,3})\s+gives\s+(\d{1,3})\s*:\s*(.+)$")


def _game_case(case: dict[str, Any], exp: dict[str, Any], graph: RuleGraph, disp: str,
               errors: list[tuple[str, str]]) -> None:
    if "next_moves" in case and "next_deal" not in case:
        raise _CaseError(_kpos(case, "next_moves"), _("'next_moves' needs a next_deal"), Code.SCENARIO_KEY)
    leader = case.get("leader")
    if leader is not None and _seat_of(leader, graph.n_seats) is None or isinstance(leader, str):
        raise _CaseError(_pos(case, "leader"), _("leader must be a seat 1..{n_seats}, got {yaml}").format(n_seats=graph.n_seats, yaml=_yaml(leader)),
                         Code.SCENARIO_VALUE)
    seed = _seed(case)
    if "deal_valid" in exp:  # the case is about whether the deal fits the pack (and has no moves)
        stray = ([k for k in ("moves", "next_deal", "next_moves", "redeal_deals") if k in case]
                 + [k for k in exp if k != "deal_valid"])
        if stray:
            raise _CaseError(_kpos(case, stray[0]) if stray[0] in case else _kpos(exp, stray[0]),
                             _("{stray!r} does not go with deal_valid: a case expecting whether a deal fits the "
                             "pack has no moves and expects nothing else").format(stray=stray[0]), Code.SCENARIO_KEY)
        try:
            _deal(case, "deal", graph, disp)
            fits, why = True, _("the {name} pack holds every card of it").format(name=graph.name)
        except _PackError as e:
            fits, why = False, e.msg
        if fits != exp["deal_valid"]:
            ln, col = _pos(exp, "deal_valid")
            errors.append((_("{disp}:{ln}:{col}: deal_valid: expected {yaml}, got {yaml2} "
                           "({why})").format(
                               disp=disp, ln=ln, col=col, yaml=_yaml(exp['deal_valid']), yaml2=_yaml(fits), why=why), str(Code.SCENARIO_FAILED)))
        return
    again = _redeal_deals(case, graph, disp)
    state = new_game(graph, seed=seed, hands=_deal(case, "deal", graph, disp), leader=leader)
    _deal_again_if_void(state, again)
    _run_moves(state, case, "moves", graph, disp, errors, again)
    if "next_deal" not in case:
        _check_all_dealt(case, again, disp, errors)
    if errors:
        return
    if "next_deal" in case:
        if not state.over:
            raise _CaseError(_kpos(case, "next_deal"), _("next_deal: the first game is not over after its moves"),
                             Code.SCENARIO_VALUE, _("seat {to_act} is still to act").format(to_act=state.to_act))
        state = next_game(state, seed, hands=_deal(case, "next_deal", graph, disp))
        _run_next_moves(state, case, graph, disp, errors, exp, again)
        _check_all_dealt(case, again, disp, errors)
        if errors:
            return
        if "transfers" in exp:
            _check_transfers(state, exp, graph, disp, errors)
    elif "transfers" in exp:  # the cards handed over after this game's deal (buying 3s ...)
        _check_transfers(state, exp, graph, disp, errors)
    _decline_if_skipped(state, exp)
    _check_game(state, exp, graph, disp, errors)


def _check_transfers(state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                     errors: list[tuple[str, str]]) -> None:
    model = graph.model
    got = [f"{e['giver']} gives {e['receiver']}: {e['cards']}" for e in state.record if e["type"] == "transfer"]
    want = []
    items = exp["transfers"] or []
    for i, x in enumerate(items):
        m = _TRANSFER.match(str(x).strip())
        ln, col = _ipos(items, i)
        if not m:
            raise _CaseError((ln, col), _("a transfer is written '6 gives 1: R B', got {yaml}").format(yaml=_yaml(x)), Code.SCENARIO_VALUE)
        cards = model.text(model.parse(m.group(3), path=disp, line=ln, col=col))
        want.append(f"{m.group(1)} gives {m.group(2)}: {cards}")
    if want != got:
        ln, col = _pos(exp, "transfers")
        errors.append((_("{disp}:{ln}:{col}: transfers: expected {want}, got {got}").format(
            disp=disp, ln=ln, col=col, want=want, got=got), str(Code.SCENARIO_FAILED)))


def _deal(case: dict[str, Any], key: str, graph: RuleGraph, disp: str) -> dict[int, list[Any]]:
    deal = case[key]
    if not isinstance(deal, dict):
        raise _CaseError(_pos(case, key), _("{key} must map seats to cards").format(key=key), Code.SCENARIO_VALUE,
                         _("e.g. deal: {1: \"55 7\", 2: \"33 4\", ...}"))
    seats: dict[int, Any] = {}
    for k in deal:
        s = _seat_of(k, graph.n_seats)
        if s is None:
            raise _CaseError(_kpos(deal, k), _("{key}: seat must be 1..{n_seats} in digits, got {yaml}").format(
                key=key, n_seats=graph.n_seats, yaml=_yaml(k)),
                             Code.BAD_SEAT)
        if s in seats:
            raise _CaseError(_kpos(deal, k), _("{key}: seat {s} is given twice").format(key=key, s=s), Code.SCENARIO_VALUE)
        seats[s] = k
    missing = [s for s in range(1, graph.n_seats + 1) if s not in seats]
    if missing:
        raise _CaseError(_pos(case, key), _("{key}: every seat is given its hand; missing seat(s) ").format(key=key)
                         + ", ".join(map(str, missing)), Code.SCENARIO_VALUE, _("write '\"\"' for an empty hand"))
    hands = {}
    total = [0] * len(graph.model.kinds)
    for s, k in sorted(seats.items()):
        v = deal[k]
        ln, col = _pos(deal, k)
        if isinstance(v, bool) or not isinstance(v, (str, int, type(None))):
            raise _CaseError((ln, col), _("{key}: seat {s}'s cards must be text such as \"55 7\", got {yaml}").format(key=key, s=s, yaml=_yaml(v)),
                             Code.SCENARIO_VALUE)
        hands[s] = hands_from_text(graph, {s: "" if v is None else str(v)}, path=disp, line=ln, col=col)[s]
        for c in hands[s]:
            total[graph.model.kinds.index(c.symbol)] += 1
    for i, n in enumerate(total):
        if n > graph.model.deck_counts[i]:
            raise _PackError(_pos(case, key), _("{key}: {n} cards {graph!r} dealt, but the "
                             "{name} pack has only {graph2}").format(
                                 key=key, n=n, graph=graph.model.kinds[i], name=graph.name, graph2=graph.model.deck_counts[i]), Code.SCENARIO_VALUE)
    return hands


def _redeal_deals(case: dict[str, Any], graph: RuleGraph, disp: str) -> list[dict[int, list[Any]]]:
    """``redeal_deals``: the deals that follow, in order, each time the fixed deal is voided (a
    redeal rule, a player's request, two revolutions); each is a full ``deal`` and fits the pack."""
    if "redeal_deals" not in case:
        return []
    items = case["redeal_deals"]
    if not isinstance(items, list) or not items:
        raise _CaseError(_pos(case, "redeal_deals"), _("redeal_deals must be a list of deals (seat -> cards)"),
                         Code.SCENARIO_VALUE, _("e.g. redeal_deals: [{1: \"55 7\", 2: \"33 4\", ...}]"))
    if len(items) >= MAX_REDEALS:
        raise _CaseError(_pos(case, "redeal_deals"), _("redeal_deals: at most {max_redeals} deals "
                         "(MAX_REDEALS: the redeals of one game)").format(max_redeals=MAX_REDEALS - 1), Code.SCENARIO_VALUE)
    out = []
    for i, item in enumerate(items):
        one = PosDict({"redeal_deals": item})
        one.pos = _ipos(items, i)
        one.key_pos, one.val_pos = {"redeal_deals": _ipos(items, i)}, {"redeal_deals": _ipos(items, i)}
        out.append(_deal(one, "redeal_deals", graph, disp))
    return out


def _check_all_dealt(case: dict[str, Any], again: list[dict[int, list[Any]]], disp: str,
                     errors: list[tuple[str, str]]) -> None:
    """Every deal of ``redeal_deals`` was dealt (never silently unused: the case meant a redeal that
    did not happen); otherwise, when the moves went through, a failure at the key."""
    if errors or not again:
        return
    ln, col = _pos(case, "redeal_deals")
    given = len(case["redeal_deals"])
    errors.append((_("{disp}:{ln}:{col}: redeal_deals: {n} of the {given} deal(s) never dealt: the deal "
                   "was voided {given2} time(s) during the moves").format(
                       disp=disp, ln=ln, col=col, n=len(again), given=given, given2=given - len(again)), str(Code.SCENARIO_FAILED)))


def _deal_again_if_void(state: GameState, again: list[dict[int, list[Any]]]) -> None:
    """A voided fixed deal is dealt again with the next of the case's ``redeal_deals``."""
    while again and state.voided:
        state.deal_again(again.pop(0))


def _decline_if_skipped(state: GameState, exp: dict[str, Any]) -> None:
    """A case that goes straight to play declines the setup questions, unless its expectations
    speak of them (a ``legal`` / ``illegal`` line with a setup verb)."""
    listed = [str(x) for x in (exp.get("legal") or []) + (exp.get("illegal") or [])]
    if Phase(state.phase).before_play and not getattr(state, "_used_setup", False) and not any(
            len(x.split()) > 1 and x.split()[1] in SETUP_VERBS for x in listed):
        state.decline_setup()


def _move_items(case: dict[str, Any], key: str) -> list[tuple[str, tuple[int, int], str | None]]:
    """The lines of ``moves`` / ``next_moves``: (line, position, expected legality or None)."""
    moves = case.get(key)
    if moves is None:
        return []
    if not isinstance(moves, list):
        raise _CaseError(_pos(case, key), _("{key} must be a list of move lines, got {yaml}").format(key=key, yaml=_yaml(moves)),
                         Code.SCENARIO_VALUE, _("e.g. {key}: [1 play 55, 2 pass]").format(key=key))
    out = []
    for i, item in enumerate(moves):
        where = _ipos(moves, i)
        want = None
        if isinstance(item, dict):
            bad = [k for k in item if k not in MOVE_ITEM_KEYS]
            if bad:
                raise _unknown_key(_kpos(item, bad[0]), _("move item"), bad[0], MOVE_ITEM_KEYS)
            if "move" not in item:
                raise _CaseError(where, _("a move item is a line or {move: LINE, expect: legal | illegal}"),
                                 Code.SCENARIO_KEY)
            want = item.get("expect")
            if want not in (None, "legal", "illegal"):
                raise _CaseError(_pos(item, "expect"), _("a move's expect is legal or illegal, got {yaml}").format(yaml=_yaml(want)),
                                 Code.SCENARIO_VALUE)
            where = _pos(item, "move")
            item = item["move"]
        if isinstance(item, bool) or not isinstance(item, (str, int)):
            raise _CaseError(where, _("a move is a line such as '3 play RR TTT', got {yaml}").format(yaml=_yaml(item)), Code.BAD_MOVE)
        out.append((str(item), where, want))
    return out


def _voided_by(state: GameState) -> str:
    """Which rule voided the deal, with its file:line and sentence ("" when the deal stands)."""
    if not state.voided:
        return ""
    reasons = [r for key, rs in state.decided.items() if key.startswith("redeal") for r in rs if r.rule is not None]
    if not reasons:
        return _("the deal was voided")
    r = reasons[-1]
    where = f" ({display_path(r.pos.path)}:{r.pos.line})" if r.pos is not None else ""
    says = getattr(r.rule, "says", None) or r.text
    return _("the deal was voided by rule {rule_id}{where}").format(rule_id=r.rule_id, where=where) + (f": {says}" if says else "")


def _forbade(trace: list[Any], state: GameState) -> str:
    """The reasons a move is illegal, one text; "the game is over" of a voided deal names the rule
    that voided it."""
    parts = []
    for r in trace:
        if r.verdict != Verdict.FORBADE:
            continue
        if r.rule_id == "engine.over" and state.voided:
            parts.append(f"{r.rule_id}: {_voided_by(state)}")
        else:
            parts.append(f"{r.rule_id}: {r.text}")
    return "".join(p if i == len(parts) - 1 else p + (" " if p.endswith("。") else "; ")
                   for i, p in enumerate(parts))  # a Chinese sentence ends with its own 。


def _try_move(state: GameState, text: str, where: tuple[int, int], want: str | None, graph: RuleGraph,
              disp: str, errors: list[tuple[str, str]]) -> bool:
    """Check one move line and, unless it is expected illegal, apply it. False: stop the case."""
    mv = parse_move(text, graph.model, graph.n_seats, path=disp, line=where[0], col=where[1],
                    words=choice_words(graph))
    trace: list[Any] = []
    legal = state.check(mv, trace)
    ln, col = where
    if want == "illegal":
        if legal:
            errors.append((_("{disp}:{ln}:{col}: {text!r} was expected to be illegal but is legal").format(disp=disp, ln=ln, col=col, text=text),
                           str(Code.SCENARIO_FAILED)))
        return True
    if not legal:
        why = _forbade(trace, state) or "illegal"
        errors.append((_("{disp}:{ln}:{col}: {text!r} is illegal: {why}").format(
            disp=disp, ln=ln, col=col, text=text, why=why), str(Code.SCENARIO_FAILED)))
        return False
    state.apply_in_place(mv)
    return True


def _run_moves(state: GameState, case: dict[str, Any], key: str, graph: RuleGraph, disp: str,
               errors: list[tuple[str, str]], again: list[dict[int, list[Any]]] | None = None) -> None:
    """The first game's moves, in the order written. A setup question the case skips by going
    straight to play is declined. A deal voided by a move is dealt again from ``again``
    (``redeal_deals``) and the moves go on in the new deal."""
    used_setup = False
    for text, where, want in _move_items(case, key):
        mv = parse_move(text, graph.model, graph.n_seats, path=disp, line=where[0], col=where[1],
                    words=choice_words(graph))
        if Phase(state.phase).before_play:
            if mv.verb in SETUP_VERBS or (mv.verb == Verb.PASS and (used_setup or mv.seat == state.to_act)):
                used_setup = True
                state._used_setup = True  # type: ignore[attr-defined]
            else:
                state.decline_setup()
        if not _try_move(state, text, where, want, graph, disp, errors):
            return
        _deal_again_if_void(state, again or [])


_BETWEEN_VERBS = frozenset({Verb.RETURN, Verb.REVOLT, Verb.DECLARE, Verb.CHOOSE, Verb.PASS})


def _answers(verb: Verb, phase: Phase) -> bool:
    """A line with this verb answers the question of this between-game phase: a return line the
    return tribute, the setup verbs (and pass) the ruleset's choices and the setup questions."""
    if phase == Phase.RETURN:
        return verb == Verb.RETURN
    return verb in _BETWEEN_VERBS and verb != Verb.RETURN


def _run_next_moves(state: GameState, case: dict[str, Any], graph: RuleGraph, disp: str,
                    errors: list[tuple[str, str]], exp: dict[str, Any],
                    again: list[dict[int, list[Any]]] | None = None) -> None:
    """The next game's moves. Its between-game and setup choices are matched by seat: each seat's
    lines are used in the order written for that seat, whatever the order between seats
    (NOTATION.md); a setup question of a seat whose next line is not a setup answer (a return
    line, say) is declined. Once play begins, the lines not used yet are played in the order
    written (a case may go on into the next game). A deal voided by a move is dealt again from
    ``again`` (what is left of ``redeal_deals``)."""
    items = _move_items(case, "next_moves")
    seat_of = [parse_move(t, graph.model, graph.n_seats, path=disp, line=w[0], col=w[1], words=choice_words(graph)) for t, w, _ in items]
    used = [False] * len(items)
    pending: dict[int, list[int]] = {}
    for i, mv in enumerate(seat_of):
        pending.setdefault(mv.seat, []).append(i)
    while not state.over and state.phase != Phase.PLAY and state.to_act is not None:
        s = state.to_act
        queue = pending.get(s, [])
        if queue and _answers(seat_of[queue[0]].verb, Phase(state.phase)):
            i = queue.pop(0)
            used[i] = True
            state._used_setup = True  # type: ignore[attr-defined]
            text, where, want = items[i]
            if not _try_move(state, text, where, want, graph, disp, errors):
                return
            _deal_again_if_void(state, again or [])
            continue
        waiting = any(seat_of[q[0]].verb in _BETWEEN_VERBS for q in pending.values() if q)
        if state.phase == Phase.RETURN:
            if not waiting:
                break  # the return tribute is left open: expect speaks of it
            ln, col = _pos(case, "next_moves")
            errors.append((_("{disp}:{ln}:{col}: next_moves: seat {s} must return "
                           "{state} card(s) to seat {state2} (还贡) before "
                           "the other seats' lines are used: give it a line such as '{s} return CARDS'").format(
                               disp=disp, ln=ln, col=col, s=s, state=state.return_queue[0][2], state2=state.return_queue[0][1]),
                           str(Code.SCENARIO_VALUE)))
            return
        if not waiting and not any(not u for u in used):
            break  # the setup questions left are declined, or spoken of by expect
        state.apply_in_place(Move(s, Verb.PASS) if state.phase != Phase.CHOOSE else Move(s, Verb.CHOOSE, None, Choice.HEAD))
        _deal_again_if_void(state, again or [])
    for i, (text, where, want) in enumerate(items):
        if used[i]:
            continue
        if Phase(state.phase).before_play:
            state.decline_setup()
        if not _try_move(state, text, where, want, graph, disp, errors):
            return
        _deal_again_if_void(state, again or [])


# ------------------------------------------------------------------------ final expectations
class _GameCheck:
    """A game case's ``expect:`` and the state the case reached: what each key's check reads, and
    :meth:`fail`, which adds a failure at the key's position."""

    def __init__(self, state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                 errors: list[tuple[str, str]]):
        self.state, self.exp, self.graph, self.disp, self.errors = state, exp, graph, disp, errors
        self.model = graph.model
        self.n = graph.n_seats

    def fail(self, key: str, msg: str, where: tuple[int, int] | None = None) -> None:
        ln, col = where or _pos(self.exp, key)
        self.errors.append((f"{self.disp}:{ln}:{col}: {msg}", str(Code.SCENARIO_FAILED)))


def _check_game(state: GameState, exp: dict[str, Any], graph: RuleGraph, disp: str,
                errors: list[tuple[str, str]]) -> None:
    """Each key of a game case's ``expect:`` checked against ``state``, in a fixed order (failures go to ``errors``)."""
    c = _GameCheck(state, exp, graph, disp, errors)
    for check in _GAME_CHECKS:
        check(c)


def _expect_outcome(c: _GameCheck) -> None:
    """expect: to_act, over, voided."""
    state, exp = c.state, c.exp
    if "to_act" in exp and state.to_act != exp["to_act"]:
        c.fail("to_act", _("to_act: expected {yaml}, got {yaml2}").format(yaml=_yaml(exp['to_act']), yaml2=_yaml(state.to_act))
             + (f" ({_voided_by(state)})" if state.voided else _(" (the game is over)") if state.over else f" ({state.capacity})"))
    if "over" in exp and state.over != bool(exp["over"]):
        c.fail("over", _("over: expected {yaml}, got {yaml2}").format(yaml=_yaml(exp['over']), yaml2=_yaml(state.over))
             + (f" ({_voided_by(state)})" if state.voided else ""))
    if "voided" in exp and state.voided != exp["voided"]:
        c.fail("voided", _("voided: expected {yaml}, got {yaml2}").format(yaml=_yaml(exp['voided']), yaml2=_yaml(state.voided))
             + (f" ({_voided_by(state)})" if state.voided else ""))

def _expect_results(c: _GameCheck) -> None:
    """expect: places, scores, sweep."""
    state, exp, n = c.state, c.exp, c.n
    if "places" in exp:
        want = {_seat(k, n): int(v) for k, v in (exp["places"] or {}).items()}
        if want != state.places:
            c.fail("places", _("places: expected {dict}, got {dict2}").format(
                dict=dict(sorted(want.items())), dict2=dict(sorted(state.places.items()))))
    if "scores" in exp:
        want_s = {_seat(k, n): v for k, v in (exp["scores"] or {}).items()}
        got_s = {k: state.scores.get(k) for k in want_s}
        if not state.over:
            c.fail("scores", _("scores: the game is not over"))
        elif any(got_s[k] is None or abs(float(got_s[k] or 0) - float(v)) > 0.01 for k, v in want_s.items()):
            c.fail("scores", _("scores: expected {want_s}, got {got_s}").format(want_s=want_s, got_s=got_s))
    if "sweep" in exp and (not state.over or state.sweep != bool(exp["sweep"])):
        c.fail("sweep", _("sweep: expected {yaml}, got {yaml2}").format(
            yaml=_yaml(exp['sweep']), yaml2=_yaml(state.sweep) if state.over else 'game not over'))

def _expect_hands(c: _GameCheck) -> None:
    """expect: hands, hand_sizes."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    if "hands" in exp:
        hv = exp["hands"] or {}
        for k, v in hv.items():
            where = _pos(hv, k)
            s = _seat(k, n)
            text = "" if v is None else str(v)
            want_h = model.parse(text, path=disp, line=where[0], col=where[1]) if text.strip() else tuple([0] * len(model.kinds))
            got_h = tuple(state.hands[s])
            if want_h != got_h:
                c.fail("hands", _("hands[{s}]: expected {model}, got {model2}").format(
                    s=s, model=model.text(want_h) or '(none)', model2=model.text(got_h) or '(none)'),
                     where)
    if "hand_sizes" in exp:
        want_n = {_seat(k, n): int(v) for k, v in (exp["hand_sizes"] or {}).items()}
        got_n = {k: state.hand_size(k) for k in want_n}
        if want_n != got_n:
            c.fail("hand_sizes", _("hand_sizes: expected {want_n}, got {got_n}").format(want_n=want_n, got_n=got_n))

def _expect_counts_shown(c: _GameCheck) -> None:
    """expect: counts_shown."""
    state, exp, n = c.state, c.exp, c.n
    if "counts_shown" in exp:
        cs = exp["counts_shown"] or {}
        for k, v in cs.items():
            s = _seat(k, n)
            seen_by = [o for o in state.seat_list if o != s and "count" in state.view(o)["others"][str(s)]]
            shown = len(seen_by) == n - 1
            if shown != v:
                detail = _("seen by {join} only").format(join=', '.join(map(str, seen_by))) if seen_by and not shown else \
                    (_("seen by every other seat") if shown else _("seen by nobody"))
                c.fail("counts_shown", _("counts_shown[{s}]: expected {yaml}, got {yaml2} "
                     "(seat {s} holds {state} cards, {detail})").format(
                         s=s, yaml=_yaml(v), yaml2=_yaml(shown), state=state.hand_size(s), detail=detail), _pos(cs, k))

def _expect_sees(c: _GameCheck) -> None:
    """expect: sees, sees_count."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    for key in ("sees", "sees_count"):
        table = exp.get(key) or {}
        for viewer_key, inner in table.items():
            viewer = _seat(viewer_key, n)
            others = state.view(viewer)["others"]
            for target_key, v in inner.items():
                t = _seat(target_key, n)
                where = _pos(inner, target_key)
                info = others[str(t)]
                if key == "sees":
                    got_text = info.get("hand")
                    want_cards = None if v is None else (
                        model.parse(str(v), path=disp, line=where[0], col=where[1]) if str(v).strip() else tuple([0] * len(model.kinds)))
                    got_cards = None if got_text is None else tuple(state.hands[t])
                    if want_cards != got_cards:
                        expected = _("nothing (null)") if want_cards is None else model.text(want_cards) or _("(none)")
                        got = (_("nothing: seat {viewer} does not see seat {seat}'s hand").format(viewer=viewer, seat=t)
                               if got_cards is None else model.text(got_cards) or _("(none)"))
                        c.fail(key, _("sees[{viewer}][{seat}]: expected {expected}, got {got}").format(
                            viewer=viewer, seat=t, expected=expected, got=got), where)
                else:
                    got_n = info.get("count")
                    if got_n != v:
                        c.fail(key, _("sees_count[{viewer}][{t}]: expected {yaml}, got {yaml2}").format(
                            viewer=viewer, t=t, yaml=_yaml(v), yaml2=_yaml(got_n))
                             + (_(" (seat {t} holds {state} cards)").format(t=t, state=state.hand_size(t)) if got_n is None else ""), where)

def _expect_match_games(c: _GameCheck) -> None:
    """expect: match_games."""
    exp, graph = c.exp, c.graph
    if "match_games" in exp:
        from gouji_dsl.engine.interpreter import match_length
        got_m = match_length(graph)
        if got_m != exp["match_games"]:
            c.fail("match_games", ngettext("match_games: expected {exp}, the {name} match has {got_m} game",
                                         "match_games: expected {exp}, the {name} match has {got_m} games", got_m).format(
                exp=exp['match_games'], name=graph.name, got_m=got_m))

def _expect_legal(c: _GameCheck) -> None:
    """expect: legal, illegal."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    for key, should in (("legal", True), ("illegal", False)):
        items = exp.get(key) or []
        for i, line in enumerate(items):
            where = _ipos(items, i)
            mv = parse_move(str(line), model, n, path=disp, line=where[0], col=where[1], words=choice_words(state.graph))
            trace: list[Any] = []
            ok = state.check(mv, trace)
            if ok != should:
                why = _forbade(trace, state)
                c.fail(key, _("{line!r} expected {expected}, but it is {got}").format(
                    line=line, expected=_("legal") if should else _("illegal"), got=_("legal") if ok else _("illegal"))
                     + (f" ({why})" if why else ""), where)

def _expect_explained_by(c: _GameCheck) -> None:
    """expect: explained_by."""
    state, exp, disp, model, n = c.state, c.exp, c.disp, c.model, c.n
    if "explained_by" in exp:
        eb = exp["explained_by"] or {}
        for line, ids in eb.items():
            where = _kpos(eb, line)
            mv = parse_move(str(line), model, n, path=disp, line=where[0], col=where[1], words=choice_words(state.graph))
            ex = explain(state, mv)
            cited = ex.rule_ids
            missing = [r for r in ids if r not in cited]
            if missing:
                hint = "; ".join(filter(None, (did_you_mean(m, cited) for m in missing)))
                c.fail("explained_by", _("explained_by[{line!r}]: the explanation does not cite "
                     "{join}; it cites {join2}").format(line=line, join=', '.join(missing), join2=', '.join(cited)) + (f" ({hint})" if hint else ""),
                     _pos(eb, line))


_GAME_CHECKS = (_expect_outcome, _expect_results, _expect_hands, _expect_counts_shown, _expect_sees, _expect_match_games,
                _expect_legal, _expect_explained_by)
"""The checks of a game case's ``expect:``, in the order their failures are listed."""
