"""Settings that make a game unlikely to start or end (``gouji validate --strict``, issue 23 item 6).

Every loop a ruleset can drive has a bound in the engine (docs/ruleset-format.md "Bounds"); this
module warns *before* a game hits one: it deals a few games of the ruleset (a fixed sample of seeds,
the setup questions answered "no") and counts the deals a ``redeal`` rule voids. A ruleset that
voids most deals is dealt many times before a game starts, and one that voids (almost) every deal
fails once a game reaches :data:`~gouji_dsl.engine.interpreter.MAX_REDEALS` void deals.

It is the lint's one finding that plays the game, so it lives on the engine floor, over the
ruleset's lint (:mod:`gouji_dsl.ruleset.lint`, which never imports the engine): its findings are
registered in :data:`PLAYED`, and :func:`gouji_dsl.check` (``gouji validate --strict``) passes them
to the ruleset's check as its last stage. A new finding that needs to play deals goes here, decorated
``@finding(Code.X, into=PLAYED)``.
"""
from __future__ import annotations

import random
from collections import Counter
from typing import Any

from gouji_dsl.diagnostics import Code, GoujiError, SourcePos
from gouji_dsl.engine.interpreter import MAX_REDEALS, GameState, Move
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.game.terms import Choice, Phase, Verb
from gouji_dsl.ruleset.lint import Context, Finding, Found, finding

__all__ = ["PLAYED", "redeal_findings", "SAMPLE_DEALS", "LIKELY_VOID"]

PLAYED: dict[str, Finding] = {}
"""The lint findings that play sample deals, by name (passed to :func:`gouji_dsl.ruleset.lint.lint` as
``also`` by :func:`gouji_dsl.check` with ``strict``)."""

SAMPLE_DEALS = 40
"""The deals sampled to estimate how often a deal is void."""
LIKELY_VOID = 0.75
"""A void rate from which ``validate --strict`` warns (four deals or more per game on average)."""

REDEAL_HOOKS = ("redeal", "redeal_before_tribute")


def redeal_findings(graph: Any) -> list[tuple[str, SourcePos, str, str]]:
    """``(rule id, where, message, hint)`` for a ruleset whose redeal rules void most deals (none when no
    live redeal rule exists). Each sampled deal is dealt once, not dealt again."""
    if not any(graph.by_hook.get(h) for h in REDEAL_HOOKS):
        return []
    void = 0
    by_rule: Counter[str] = Counter()
    for i in range(SAMPLE_DEALS):
        try:
            st = GameState(graph, None, rng=random.Random(f"lint:redeal:{i}"), seed=f"lint:redeal:{i}", _redeals=0)
            steps = 0
            while not st.redeal_pending and st.phase not in (Phase.PLAY, Phase.OVER) and st.to_act is not None \
                    and steps < 200:

                moves = st.legal_moves()
                m = next((x for x in moves if x.verb == Verb.PASS), None) or \
                    next((x for x in moves if x.arg == Choice.HEAD), None) or moves[0]
                st._apply_before_play(Move(*m))
                steps += 1

        except GoujiError:
            return []  # a rule that fails while dealing: the lint's other findings and the game say it
        if st.redeal_pending:
            void += 1
            by_rule[next((st._answered_by(h) for h in REDEAL_HOOKS if st._answered_by(h)), "")] += 1
    rate = void / SAMPLE_DEALS
    if rate < LIKELY_VOID or not by_rule:
        return []
    rule_id = by_rule.most_common(1)[0][0]
    node = graph.node(rule_id)
    if node is None:
        return []
    if void == SAMPLE_DEALS:
        msg = (f"rule {rule_id!r} voided every one of {SAMPLE_DEALS} sampled deals: a game may never start "
               f"(after {MAX_REDEALS} void deals in a row the game stops with a rule failure)")
    else:
        msg = (f"rule {rule_id!r} voided {void} of {SAMPLE_DEALS} sampled deals ({rate:.0%}): a game is dealt "
               f"about {1 / (1 - rate):.0f} times before it starts (at most {MAX_REDEALS})")
    return [(rule_id, node.origin, msg, "loosen its condition (a weak-hand threshold nearer the average hand), "
                               "or ask the players instead (a choice, docs/ruleset-format.md)")]


@finding(Code.UNLIKELY_TO_END, into=PLAYED)
def redeal_voids_most_deals(c: Context) -> Found:
    """A redeal rule that voids most sampled deals (:func:`redeal_findings`): a game unlikely to
    start. An inherited rule is reported at this file's setting it reads, if any."""
    for rule_id, at, message, hint in redeal_findings(c.graph):
        if at.path != c.own_path:  # the rule is inherited: at this file's setting it reads, if any
            mine = [c.resolved.settings[x] for x in sorted(c.an.rule_settings.get(rule_id, ()))
                    if x in c.resolved.settings and not c.resolved.settings[x].inherited]
            if not mine:
                continue
            at = mine[0].origin
            message = _("with this setting, {message}").format(message=message)
        yield at, message, hint
