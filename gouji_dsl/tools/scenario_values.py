"""The values of a scenario case, checked before it runs (:func:`check_values`: what each ``expect:`` key may hold,
plain values, seats, the ``sees`` maps; :func:`check_keys`: the keys a kind of case allows), and the case's cards,
seats and seed as the runner reads them (:func:`case_cards`, :func:`seat_key`, :func:`seat_or_none`, :func:`case_seed`).
"""
from __future__ import annotations

from typing import Any

from gouji_dsl.diagnostics import Code
from gouji_dsl.engine.interpreter import read_seat
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.tools.exits import MAX_SEED_CHARS
from gouji_dsl.tools.scenario_source import CaseError, as_yaml, key_at, unknown_key, value_at

# ------------------------------------------------------------------------ checking values
_BOOL_KEYS = ("valid", "gouji", "beats", "over", "sweep", "voided", "deal_valid")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def seat_or_none(k: Any, n: int) -> int | None:
    """A seat written as a key or value: a whole number 1..n (ASCII digits), else None."""
    if _is_int(k):
        return k if 1 <= k <= n else None
    if isinstance(k, str) and (s := read_seat(k)) is not None:
        return s if 1 <= s <= n else None
    return None


def seat_key(k: Any, n: int) -> int:
    """A seat key of an expectation already checked by :func:`check_values`."""
    s = seat_or_none(k, n)
    assert s is not None
    return s


_EXAMPLE_SEEN = {"sees": '"55 7"', "sees_count": "3"}


def _bad_value(exp: Any, key: str, msg: str, hint: str | None = None) -> CaseError:
    return CaseError(value_at(exp, key), f"{key}: {msg}", Code.SCENARIO_VALUE, hint)


def check_values(exp: Any, graph: RuleGraph) -> None:
    """Expect values of the wrong kind are errors at their position, not silent mismatches."""
    n = graph.n_seats
    _check_plain_values(exp)
    for k in ("sees", "sees_count"):  # viewer seat -> {seat -> cards or null / count or null}
        if k in exp:
            _check_sees(exp, k, n)
    if "to_act" in exp and exp["to_act"] is not None and seat_or_none(exp["to_act"], n) is None:
        raise _bad_value(exp, "to_act", _("expected a seat 1..{n}, got {yaml}").format(n=n, yaml=as_yaml(exp['to_act'])))
    for k in ("places", "scores", "hands", "hand_sizes", "counts_shown", "explained_by", "ranks"):
        if k in exp:
            _check_map(exp, k, n)
    for k in ("legal", "illegal", "transfers"):
        if k in exp and not isinstance(exp[k], list):
            raise _bad_value(exp, k, _("expected a list, got {yaml}").format(yaml=as_yaml(exp[k])))


def _check_plain_values(exp: Any) -> None:
    """The keys of ``expect:`` that hold true / false or a whole number."""
    for k in _BOOL_KEYS:
        if k in exp and not isinstance(exp[k], bool):
            raise _bad_value(exp, k, _("expected true or false, got {yaml}").format(yaml=as_yaml(exp[k])))
    for k in ("count", "jokers", "cards", "match_games"):
        if k in exp and (not _is_int(exp[k]) or exp[k] < 0):
            raise _bad_value(exp, k, _("expected a whole number, got {yaml}").format(yaml=as_yaml(exp[k])))


def _check_sees(exp: Any, k: str, n: int) -> None:
    """``sees`` / ``sees_count``: viewer seat -> {another seat -> cards or null / a count or null}."""
    m = exp[k] if exp[k] is not None else {}
    if not isinstance(m, dict):
        raise _bad_value(exp, k, _("expected a mapping seat -> {{another seat -> {cards} or null}}, "
                  "got {yaml}").format(
                      cards='cards' if k == 'sees' else 'count', yaml=as_yaml(m)), _("e.g. {k}: {{2: {{4: {example_seen}, 5: null}}}}").format(
                          k=k, example_seen=_EXAMPLE_SEEN[k]))
    for viewer, inner in m.items():
        if seat_or_none(viewer, n) is None:
            raise CaseError(key_at(m, viewer), _("{k}: seat must be 1..{n}, got {yaml}").format(
                k=k, n=n, yaml=as_yaml(viewer)), Code.SCENARIO_VALUE)
        if not isinstance(inner, dict):
            raise CaseError(value_at(m, viewer), _("{k}: seat {yaml} maps to another seat -> "
                             "{cards} or null, got {yaml2}").format(
                                 k=k, yaml=as_yaml(viewer), cards='cards' if k == 'sees' else 'count', yaml2=as_yaml(inner)), Code.SCENARIO_VALUE)
        for target, v in inner.items():
            t = seat_or_none(target, n)
            if t is None or t == seat_or_none(viewer, n):
                raise CaseError(key_at(inner, target), _("{k}: another seat 1..{n} than {yaml}, "
                                 "got {yaml2}").format(k=k, n=n, yaml=as_yaml(viewer), yaml2=as_yaml(target)), Code.SCENARIO_VALUE)
            if k == "sees_count" and v is not None and (not _is_int(v) or v < 0):
                raise CaseError(value_at(inner, target), _("sees_count: a count is a whole number >= 0 or null, "
                                 "got {yaml}").format(yaml=as_yaml(v)), Code.SCENARIO_VALUE)
            if k == "sees" and (isinstance(v, bool) or not isinstance(v, (str, int, type(None)))):
                raise CaseError(value_at(inner, target), _("sees: cards such as \"55 7\" (\"\" for an empty hand) "
                                 "or null, got {yaml}").format(yaml=as_yaml(v)), Code.SCENARIO_VALUE)


def _check_map(exp: Any, k: str, n: int) -> None:
    """A map of ``expect:`` (places, scores, hands, hand_sizes, counts_shown: by seat; explained_by, ranks)."""
    m = exp[k] if exp[k] is not None else {}
    if not isinstance(m, dict):
        what = _("card -> count") if k == "ranks" else (_("move line -> rule ids") if k == "explained_by" else _("seat -> value"))
        raise _bad_value(exp, k, _("expected a mapping {what}, got {yaml}").format(what=what, yaml=as_yaml(m)))
    for key, v in m.items():
        _check_map_value(m, k, key, v, n)


def _check_map_value(m: Any, k: str, key: Any, v: Any, n: int) -> None:
    vpos = value_at(m, key)
    if k not in ("explained_by", "ranks") and seat_or_none(key, n) is None:
        raise CaseError(key_at(m, key), _("{k}: seat must be 1..{n}, got {yaml}").format(k=k, n=n, yaml=as_yaml(key)), Code.SCENARIO_VALUE)
    if k == "places" and (not _is_int(v) or not 1 <= v <= n):
        raise CaseError(vpos, _("places: a place is 1..{n}, got {yaml}").format(n=n, yaml=as_yaml(v)), Code.SCENARIO_VALUE)
    if k in ("hand_sizes", "ranks") and (not _is_int(v) or v < 0):
        raise CaseError(vpos, _("{k}: a count is a whole number >= 0, got {yaml}").format(k=k, yaml=as_yaml(v)), Code.SCENARIO_VALUE)
    if k == "scores" and (isinstance(v, bool) or not isinstance(v, (int, float))):
        raise CaseError(vpos, _("scores: a score is a number, got {yaml}").format(yaml=as_yaml(v)), Code.SCENARIO_VALUE)
    if k == "counts_shown" and not isinstance(v, bool):
        raise CaseError(vpos, _("counts_shown: expected true or false, got {yaml}").format(yaml=as_yaml(v)), Code.SCENARIO_VALUE)
    if k == "explained_by" and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
        raise CaseError(vpos, _("explained_by: expected a list of rule ids, got {yaml}").format(yaml=as_yaml(v)),
                         Code.SCENARIO_VALUE, "e.g. {\"2 play AA\": [gouji.minimum, gouji.opposite-only]}")


def check_keys(exp: Any, allowed: tuple[str, ...], kind: str) -> None:
    for k in exp:
        if k not in allowed:
            raise unknown_key(key_at(exp, k), "expect", k, allowed, _(" of a {kind} case").format(kind=kind))


def case_cards(graph: RuleGraph, text: Any, where: tuple[int, int], disp: str) -> tuple[int, ...]:
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise CaseError(where, _("expected cards such as \"RR TTT\", got {yaml}").format(yaml=as_yaml(text)), Code.SCENARIO_VALUE)
    return graph.model.parse(str(text), path=disp, line=where[0], col=where[1])


def case_seed(case: dict[str, Any]) -> int | str:
    s = case.get("seed", 0)
    if isinstance(s, bool) or not isinstance(s, (int, str)):
        raise CaseError(value_at(case, "seed"), _("seed must be a whole number or text, got {yaml}").format(yaml=as_yaml(s)),
                         Code.SCENARIO_VALUE, _("e.g. 'seed: 7'"))
    if len(str(s)) > MAX_SEED_CHARS:
        raise CaseError(value_at(case, "seed"), _("seed: at most {max_seed_chars} characters").format(
            max_seed_chars=MAX_SEED_CHARS), Code.SCENARIO_VALUE)
    return s
