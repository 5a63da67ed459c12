"""Lint findings about games that cannot end or go on (``NoWayOut``): no rule ends the game (an
error), every play forbidden (an error), nobody may answer a play, no rule for a question the engine
then answers plainly (the first leader, the order of answers, the next leader, what a gouji play is),
a choice nobody is asked.

To add a finding about how a game ends or goes on, write a class here: ``@a_finding``, a subclass of
:class:`~gouji_dsl.ruleset.lint.registry.Finding` with a docstring, ``code = Code.X`` (and
``severity = Severity.ERROR`` when the game cannot end or go on) and a ``run`` yielding
``(position, message, hint)`` (see :mod:`gouji_dsl.ruleset.lint`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from gouji_dsl.diagnostics import Code, Severity, SourcePos
from gouji_dsl.i18n import N_, _
from gouji_dsl.lang.fold import truthy
from gouji_dsl.ruleset.lint.registry import Context, Finding, Found, a_finding, own_raw
from gouji_dsl.ruleset.spec import ResolvedRuleset

if TYPE_CHECKING:  # pragma: no cover
    pass


def _no_rule(c: Context, hook: str, message: str, hint: str) -> Found:
    """``message`` when no rule on ``hook`` can fire: at this file's last rule on it, at the
    ``remove:`` entry that took the inherited one away, or at the file's top."""
    rules = [n for n in c.nodes if n.hook == hook]
    if any(n.id not in c.an.dead for n in rules):
        return
    ownrules = [n for n in rules if not n.inherited]
    rem = None if ownrules else _removal_origin(c.resolved, c.parent, hook)
    if ownrules:
        yield ownrules[-1].origin, message + _(" (rule {ownrules!r} can never fire)").format(ownrules=ownrules[-1].id), hint
    elif rem is not None:
        yield rem[0], message + _(" (removing {rem!r} left none)").format(rem=rem[1]), hint
    elif not rules:
        yield _top_origin(c.resolved), message, hint
    else:
        yield _top_origin(c.resolved), message + _(" (no {hook} rule can fire under these settings)").format(hook=hook), hint


def _removal_origin(resolved: ResolvedRuleset, parent: ResolvedRuleset | None, hook: str) -> tuple[SourcePos, str] | None:
    """Where the ruleset's own file removes a rule of ``parent`` on ``hook`` (and its id)."""
    raw = own_raw(resolved.path, resolved.text or "")
    if raw is None or parent is None:
        return None
    for i, rid in enumerate(raw.get(("remove",)) or ()):
        r = parent.rule(rid)
        if r is not None and r.on.text == hook:
            return raw.origin(("remove", i)), rid
    return None


def _top_origin(resolved: ResolvedRuleset) -> SourcePos:
    """Where the ruleset's own file names it (``ruleset:``), for a finding about the whole file."""
    raw = own_raw(resolved.path, resolved.text or "")
    return raw.origin(("ruleset",), key=True) if raw is not None else SourcePos(resolved.path, 1, 1)


@a_finding
class GameNeverEnds(Finding):
    """The game can never end: no rule on ``game_over`` can fire, or every one that can always
    answers no."""

    code = Code.NO_WAY_OUT
    severity = Severity.ERROR

    def run(self, c: Context) -> Found:
        yield from _no_rule(c, "game_over", _("the game can never end: no rule answers 'game_over' (the answer is always no)"),
                            _("add a rule `on: game_over` with a `value:`, e.g. count(active_seats) <= 1"))
        over = c.live("game_over")
        if over and all(truthy(c.an.eval_tree(c.an.part(n, "effect"), "game_over")) is False for n in over):
            yield (over[-1].origin, _("the game can never end: rule {over!r} always answers 'game_over' with no").format(over=over[-1].id),
                   _("the value must become true once the game is decided, e.g. count(active_seats) <= 1"))


_ANSWERED_BY_THE_ENGINE = (
    ("gouji", N_("no rule says what a gouji play is: no play is ever a gouji play"),
     N_("add a rule `on: gouji` (the engine's answer is no)")),
    ("first_leader", N_("no rule chooses the first leader: seat 1 always leads the first trick"),
     N_("add a rule `on: first_leader`")),
    ("follow_order", N_("no rule orders the answers to a play: every seat is asked once, in play order, passed or not"),
     N_("add a rule `on: follow_order`")),
    ("next_leader", N_("no rule chooses who leads the next trick: the trick's winner, or the next player still in"),
     N_("add a rule `on: next_leader`")),
)
"""Questions the game goes on without, with the engine's plain answer: a ruleset without a rule
that can fire on one most likely lost it (hook, message, hint)."""


@a_finding
class QuestionWithoutRule(Finding):
    """No rule that can fire says what a gouji play is, who leads first, the order of the answers
    to a play, or who leads the next trick: the engine's plain answer is used."""

    code = Code.NO_WAY_OUT

    def run(self, c: Context) -> Found:
        for hook, message, hint in ((h, _(m), _(t)) for h, m, t in _ANSWERED_BY_THE_ENGINE):
            yield from _no_rule(c, hook, message, hint)


def _forbids_every(c: Context, hook: str, what: str) -> Found:
    """Rules that can fire, with no guard or one that always holds, that forbid every ``hook``."""
    for n in c.live(hook):
        if n.when is not None and truthy(c.an.eval_tree(c.an.part(n, "when"), hook)) is not True:
            continue
        v = truthy(c.an.eval_tree(c.an.part(n, "effect"), hook))
        if (n.effect == "deny" and v is True) or (n.effect == "require" and v is False):
            yield (n.origin, _("rule {id!r} forbids every {hook!r}: {what}").format(id=n.id, hook=hook, what=what),
                   _("give the rule a guard (`when:`) or an effect that depends on the play"))


@a_finding
class EveryPlayForbidden(Finding):
    """A rule that forbids every play (a ``deny`` always true, a ``require`` always false, with no
    guard or one that always holds): the game cannot go on."""

    code = Code.NO_WAY_OUT
    severity = Severity.ERROR

    def run(self, c: Context) -> Found:
        yield from _forbids_every(c, "play", _("no play is ever allowed: the game cannot go on"))


@a_finding
class NobodyMayFollow(Finding):
    """A rule that forbids every answer to a play (``follow``), as :func:`every_play_forbidden`."""

    code = Code.NO_WAY_OUT

    def run(self, c: Context) -> Found:
        yield from _forbids_every(c, "follow", _("nobody may ever answer a play"))


@a_finding
class ChoiceNeverAsked(Finding):
    """A choice of this file's own (``settings.choices``) that no offer rule that can fire asks, or
    whose answer no answered rule that can fire reads."""

    code = Code.NO_WAY_OUT

    def run(self, c: Context) -> Found:
        choices = c.resolved.settings.get("choices")
        if choices is None or choices.inherited or not isinstance(choices.value, dict):
            return
        offers, answers = c.live("offer"), c.live("answered")
        for word in choices.value:
            at = choices.key_origins.get(str(word)) or choices.origin
            if at.path != c.own_path:
                continue
            if not offers:
                yield (at, _("choice {str!r} is never asked: no offer rule that can fire allows it").format(str=str(word)),
                       _("add a rule `on: offer` with `when: \"choice == '{word}'\"` and an `allow:`").format(word=word))
            elif not answers:
                yield (at, _("choice {str!r} does nothing: no answered rule that can fire reads its answer").format(str=str(word)),
                       _("add a rule `on: answered` (mark / count what the answer means), and a rule that reads it"))
