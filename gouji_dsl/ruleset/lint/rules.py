"""Lint findings about rules that never fire or never decide: a guard constant once the settings are
folded in (``RuleNeverFires``), a flag or counter nothing sets (``NeverChanges``), a value rule a later
one shadows (``RuleShadowed``), two permit rules with contradictory effects (``RulesContradict``).

To add a finding about what a rule can do, write a class here: ``@a_finding``, a subclass of
:class:`~gouji_dsl.ruleset.lint.registry.Finding` with a docstring, ``code = Code.X`` and a ``run``
yielding ``(position, message, hint)`` (see :mod:`gouji_dsl.ruleset.lint`).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from gouji_dsl.diagnostics import Code, did_you_mean
from gouji_dsl.i18n import N_, _
from gouji_dsl.lang import ast as A
from gouji_dsl.ruleset.analysis import ENGINE_FLAGS, Analysis, Cause, Dead, Why, norm, where
from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
from gouji_dsl.ruleset.lint.registry import Context, Finding, Found, a_finding

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleNode


_LITERALS = {"true", "false"}


@a_finding
class RuleNeverFires(Finding):
    """A rule of this file that can never fire: its guard (or a permit rule's effect) is constant
    once the settings are folded in, it needs a flag or counter no rule that can fire sets, or its
    question is never asked (tribute in a one-game match). Not reported: a rule this file's own
    setting switches off (a default-off mechanic), and ``allow: false`` over a parent's rule (it
    says "no" on purpose and keeps the sentence)."""

    code = Code.RULE_NEVER_FIRES

    def run(self, c: Context) -> Found:
        for n in c.own:
            why = c.an.dead.get(n.id)
            if why is None or why.kind == Dead.SHADOWED:
                continue
            if n.overrides is not None and why.expr is not None and why.expr.strip() in _LITERALS:
                continue
            if why.cause in (Cause.SETTINGS, Cause.FLAGS) and n.id not in c.switched.dead:
                continue  # switched off by this file's own setting: a default-off mechanic
            yield n.origin, _("rule {id!r} can never fire: {message}").format(id=n.id, message=why.message), _never_fires_hint(c.an, why)


def _never_fires_hint(an: Analysis, why: Why) -> str:
    if why.cause == Cause.FLAGS:
        return _unset_hint(an, why.tree)
    if why.kind == Dead.HOOK:
        return _("set the match length (settings.match_games) and the tribute kinds to use these rules")
    return _("check the guard against the settings shown; if the rule is meant to be off, remove it")


def _unset_hint(an: Analysis, tree: A.Node | None) -> str:
    """The hint for a rule that needs a flag or counter nothing sets: a did-you-mean when there is one."""
    hint = _("add a rule that marks the flag (`mark: NAME`), or check its name; the engine itself sets ") \
           + ", ".join(sorted(ENGINE_FLAGS))
    for f in sorted(an.flag_names(tree)):
        if an.flags is not None and f not in an.flags:
            dym = did_you_mean(f, an.flags)
            if dym:
                hint = _("flag {f!r}: {dym}").format(f=f, dym=dym)
                break
    for name in sorted(an.counter_names(tree)):
        if an.counters is not None and name not in an.counters:
            dym = did_you_mean(name, an.counters)
            return _("counter {name!r}: {dym}").format(name=name, dym=dym) if dym else \
                _("add a rule that counts it (`count: NAME`, e.g. on after_yield), or check its name")
    return hint


@a_finding
class ReadsWhatNeverChanges(Finding):
    """A rule of this file that can fire but reads a flag or counter no rule that can fire sets: it
    is always false / 0, so the rule reads something that never changes."""

    code = Code.NEVER_CHANGES

    def run(self, c: Context) -> Found:
        an = c.an
        for n in c.own:
            if n.id in an.dead:
                continue
            trees = an.trees(n.id)
            for what, read, settable, always, verb, how in (
                    (N_("flag"), set().union(*(an.flag_names(t) for t in trees)), an.flags, "false", N_("marks"), "mark: NAME"),
                    (N_("counter"), set().union(*(an.counter_names(t) for t in trees)), an.counters, "0", N_("counts"), "count: NAME")):
                if settable is None:
                    continue
                for name_read in sorted(x for x in read if x not in settable):
                    dym = did_you_mean(name_read, sorted(settable))
                    yield (n.origin, _("rule {id!r} reads {what} {name_read!r}, which no rule that can fire {verb}: "
                           "it is always {always} (the rule reads something that never changes)").format(
                               id=n.id, what=_(what), name_read=name_read, verb=_(verb), always=always),
                           dym or _("add a rule that {verb} it ({how}), or check the name").format(verb=_(verb), how=how))


@a_finding
class RuleShadowed(Finding):
    """A value rule that never decides its question because a later rule of the same question
    answers with the same guard (or none), and the last matching rule wins; reported at this
    file's rule of the two (at the later one, with how to override, when the earlier is inherited)."""

    code = Code.RULE_SHADOWED

    def run(self, c: Context) -> Found:
        for n in c.nodes:
            why = c.an.dead.get(n.id)
            if why is None or why.kind != Dead.SHADOWED or why.by is None:
                continue
            later = c.by_id[why.by]
            if not n.inherited:
                yield n.origin, _("rule {id!r} can never decide {hook!r}: {message}").format(id=n.id, hook=n.hook, message=why.message), \
                    _("delete one of the two, or give them different guards")
            elif not later.inherited:
                yield (later.origin, _("rule {id!r} makes the inherited rule {id2!r} ({where}) dead: "
                       "both answer {hook!r}, this one with {detail}, and the last matching rule wins").format(
                           id=later.id, id2=n.id, where=where(n.origin), hook=n.hook, detail=why.detail),
                       _("to replace it, give this rule the id {id!r} (it then overrides it in place), "
                       "or add {id!r} to `remove:`").format(id=n.id))


@a_finding
class RulesContradict(Finding):
    """Two permit rules (one of them this file's) with the same guard and effect text but
    contradictory effects: one allows what the other forbids, or one requires what the other
    forbids (so it is always forbidden)."""

    code = Code.RULES_CONTRADICT

    def run(self, c: Context) -> Found:
        for hook, h in HOOKS.items():
            if h.kind != HookKind.PERMIT:
                continue
            buckets: dict[tuple[str | None, str | None], list[RuleNode]] = {}  # same guard and effect text: linear
            for r in c.live(hook):
                buckets.setdefault((norm(r.when), norm(r.expr)), []).append(r)
            for a, b in ((x, y) for group in buckets.values() if len(group) > 1
                         for i, x in enumerate(group) for y in group[i + 1:]):
                pair = {a.effect, b.effect}
                if (a.inherited and b.inherited) or pair not in ({"allow", "deny"}, {"require", "deny"}):
                    continue
                at = b if not b.inherited else a
                other = a if at is b else b
                what = _("one allows what the other forbids") if pair == {"allow", "deny"} else \
                    _("one requires what the other forbids, so it is always forbidden")
                yield (at.origin, _("rules {id!r} and {id2!r} decide {hook!r} in the same state with "
                       "contradictory effects: {what} (other rule at {where})").format(
                           id=a.id, id2=b.id, hook=hook, what=what, where=where(other.origin)),
                       _("keep one of them, or give them different guards"))
