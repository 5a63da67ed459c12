"""The heuristic bot's play-phase choices in the native core (``heuristic.h``).

A bot offers itself to the native core by its ``native_policy`` (a :class:`NativePolicy`:
:class:`gouji_dsl.bots.heuristic.HeuristicBot` has one, a subclass has none, since it may choose
otherwise). The core then plays that seat's play-phase moves itself, choosing what the bot's
``choose`` would choose in every state (the same first-best keys over the legal moves in the
interpreter's order; the bot draws no random number). The phases before play (setup, declare,
choose, ask, return) stay with the bot in Python, except in whole native games (``batch.h``:
``Flow.play_games`` with these tables), where the core makes its revolt / choose / declare
decisions by ``hand_power`` as ``HeuristicBot.choose`` does.

:func:`tables` builds the core's tables of a ruleset's flow program (the card values, the sums of
each joker combination's classified jokers, the ``see_count`` rules as hook programs); what it
cannot build (a see_count rule the programs do not express, or one that draws) is
:class:`~gouji_dsl.engine.native.Unsupported`, named; the bot then chooses in Python, and
:func:`fallback_reason` says why (the simulation summaries' ``native_fallback``).
"""
from __future__ import annotations

import os
from array import array
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from gouji_dsl.engine.native import Unsupported, _core_module
from gouji_dsl.i18n import _

#: set to a non-empty value to let the heuristic bot choose in Python (the native flow still plays random bots)
DISABLE_ENV = "GOUJI_NO_NATIVE_HEURISTIC"


@dataclass(frozen=True)
class NativePolicy:
    """What the native core needs of a bot it plays: ``kind`` (``"heuristic"``), the card values of
    a card model (``card_values(model) -> list[float]``) and the bot's constants."""

    kind: str
    card_values: Callable[[Any], list[float]]
    gouji_penalty: float
    late: float


def policy_of(chooser: Any) -> NativePolicy | None:
    """The native policy of a chooser (a bot's bound ``choose``), or None."""
    owner = getattr(chooser, "__self__", None)
    pol = getattr(owner, "native_policy", None) if owner is not None else None
    if isinstance(pol, NativePolicy) and pol.kind == "heuristic" and getattr(chooser, "__name__", "") == "choose":
        return pol
    return None


def seats(choosers: Mapping[int, Any], n: int) -> dict[int, NativePolicy]:
    """The seats of ``choosers`` (1..n) whose bot the native core can play, with its policy."""
    out = {}
    for s, c in choosers.items():
        pol = policy_of(c)
        if pol is not None and isinstance(s, int) and 1 <= s <= n:
            out[s] = pol
    return out


def tables(plan: Any, pol: NativePolicy) -> Any:
    """The core's Heuristic for a flow plan (kept on the plan per policy), or Unsupported."""
    if os.environ.get(DISABLE_ENV):
        raise Unsupported(_("the native heuristic bot is switched off ({var} is set)").format(var=DISABLE_ENV))
    key = (pol.kind, pol.card_values, pol.gouji_penalty, pol.late)
    got = plan.heuristic.get(key)
    if got is None:
        try:
            got = _build(plan, pol)
        except Unsupported as e:
            got = str(e)
        plan.heuristic[key] = got
    if isinstance(got, str):
        raise Unsupported(got)
    return got


def fallback_reason(plan: Any, pol: NativePolicy) -> str | None:
    """Why the native core does not play the bot of ``pol`` on ``plan``'s ruleset (None: it does)."""
    try:
        tables(plan, pol)
    except Unsupported as e:
        return str(e)
    return None


def _build(plan: Any, pol: NativePolicy) -> Any:
    core = _core_module()
    graph = plan.graph
    model = graph.model
    vals = [float(v) for v in pol.card_values(model)]
    if len(vals) != plan.k:
        raise Unsupported("the heuristic bot's card values do not cover the kinds")
    words, programs = see_count_words(graph)
    return core.heuristic_load(plan.flow, vals, joker_sums(plan), words, programs, float(pol.gouji_penalty),
                               float(pol.late))


def joker_sums(plan: Any) -> list[int]:
    """Per joker combination of a flow plan: the sum of its jokers' kinds as the model reads them
    (``sum(Play.jokers)``: the burner's tie-break; mixed jokers may read as the lowest)."""
    model, nr = plan.graph.model, plan.nr
    return [sum(model.classify((0,) * nr + c).jokers) if any(c) else 0 for c in plan.combos]


def see_count_words(graph: Any) -> tuple[bytes, list[bytes]]:
    """The see_count hook as heuristic_load takes it (flow.py's hook words) and its programs."""
    from gouji_dsl.engine.native import hooks as H
    from gouji_dsl.ruleset.game.vocabulary import HOOKS
    p = H.plan(graph, "see_count")
    if p.draws:
        raise Unsupported("a see_count rule draws from the game's generator: the native heuristic bot does not")
    spec = HOOKS["see_count"]
    programs: list[bytes] = []

    def prog(b: bytes | None) -> int:
        if b is None:
            return -1
        programs.append(b)
        return len(programs) - 1

    words = [len(p.rules), p.kind, H.T_BOOL, int(bool(spec.default)), int(spec.none_ok)]
    for when, eff, code in p.rules:
        words += [prog(when), eff, prog(code)]
    return array("i", words).tobytes(), programs
