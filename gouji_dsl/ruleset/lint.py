"""The ruleset lint behind ``gouji validate --strict``: problems a ruleset can have although every
expression compiles, each found by one *finding* registered in this module.

**To add a finding**, write one function at the end of the findings below (the section "the
findings"), decorated with ``@finding(Code.X)`` (``Severity.ERROR`` as a second argument when the
game cannot end or go on): the function's name is the finding's name, its docstring says what it
finds, and it yields ``(position, message, hint)`` for each problem, from what the
:class:`Context` holds (the graph, this file's rules and settings, the parent ruleset, the
:class:`~gouji_dsl.ruleset.analysis.Analysis`). Give it a code of
:class:`~gouji_dsl.diagnostics.Code` (a new one there if no code says it), a test in
tests/test_lint.py matching that code, and the code in docs/ruleset-format.md ("Diagnostics").
:func:`lint` runs every registered finding (:data:`FINDINGS`) in the order they are written and
returns all their diagnostics at once, each at the ``file:line:col`` of the rule or setting
concerned. What the rules can do under the settings (which rules can never fire and why, which
flags are set, which settings are read) is :mod:`gouji_dsl.ruleset.analysis`.

The findings (severity ``"warning"``; ``"error"`` when the game cannot end or go on):

- **rules that can never fire** (``RuleNeverFires``): a guard, or the effect of a permit rule, that
  is constant once the settings are folded in (``play.rank == settings.stuck_rank`` with
  ``stuck_rank: null``; ``'3' in settings.buy.ranks`` with no ranks to buy); a guard that needs a
  flag no ``mark`` rule (nor the engine) ever sets; a rule on a between-game question when there is
  no tribute; and a rule that reads a flag or counter nothing sets (``NeverChanges``);
- **two rules deciding the same question for the same state** (``RuleShadowed``,
  ``RulesContradict``): a value rule followed by another on the same hook whose guard is the same
  (or absent), so the earlier one never decides; two permit rules with the same guard and
  contradictory effects;
- **no way out** (``NoWayOut``): no rule ends the game, every play forbidden, no rule for the first
  leader, the order of answers, the next leader or what a gouji play is; a choice nobody is asked;
- **settings nothing reads** (``UnreadSetting``: no rule, no definition a rule uses, not the
  engine), keys of map settings nothing reads, tribute kinds no tribute rule asks about;
- **lookups that fail for some keys** (``MissingKey``): a map setting without every word of the
  enumerated key a rule looks it up by;
- **stale sentences** (``StaleSentence``): a setting changed without its own ``says``, keeping a
  parent's sentence or losing it; an inherited rule whose sentence states a number that a setting
  it reads had in the parent and no longer has;
- **settings that do nothing** (``SettingHasNoEffect``): another setting disables them (found by
  :mod:`gouji_dsl.ruleset.settings` when the graph is built), or only rules of a question never
  asked read them;
- **games unlikely to start** (``UnlikelyToEnd``): redeal rules voiding most deals. This finding
  plays sample deals, so it lives on the engine floor (:mod:`gouji_dsl.engine.bounds`, registered
  in its own :data:`~gouji_dsl.engine.bounds.PLAYED`) and runs when the caller passes it
  (``lint(graph, also=PLAYED.values())``; :func:`gouji_dsl.check` and ``gouji validate --strict`` do);
- **texts missing a language** (``MissingLanguage``): a sentence, title, description or word of
  this file not given in every language the ruleset declares (``languages:``,
  :mod:`gouji_dsl.ruleset.languages`);
- **renamed words still used** (``StaleWord``, shown without ``--strict`` too): a word of the game
  this file renames (``words:``) while inherited sentences the rulebook prints keep the parent's.

Only problems in the file being checked are reported: an inherited mechanic that this ruleset's
settings switch off is the design (``base`` holds every mechanic, children switch them with
settings), and a rule of the file switched off by the same file's own setting is a default-off
mechanic.
"""
from __future__ import annotations

import functools
import inspect
import re
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gouji_dsl.diagnostics import Code, Diagnostic, Severity, SourcePos, did_you_mean, quoted
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.fold import truthy
from gouji_dsl.lang.types import Enum, strip
from gouji_dsl.ruleset.analysis import (
    ALL,
    ENGINE_FLAGS,
    ENGINE_SETTINGS,
    KIND_HOOKS,
    Analysis,
    Cause,
    Dead,
    Why,
    analyse,
    norm,
    short,
    walk_with_defs,
    where,
)
from gouji_dsl.ruleset.game.model import CONSTRAINTS
from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
from gouji_dsl.ruleset.languages import declared, missing_languages
from gouji_dsl.ruleset.load.checking import is_setting_long_form, load_file, load_text
from gouji_dsl.ruleset.load.reading import RawRuleset
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.settings import normalize_setting
from gouji_dsl.ruleset.spec import ResolvedRuleset, SettingSpec, Wording, said
from gouji_dsl.ruleset.words import Renamed, renamed_words

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleGraph, RuleNode

__all__ = ["lint", "quick_warnings", "stale_says", "setting_sentences", "no_effect", "chain_files",
           "finding", "Finding", "FINDINGS", "Context", "Found"]


# ================================================================================= the registry
Found = Iterator["tuple[SourcePos, str, str | None] | Diagnostic"]
"""What a finding yields: ``(position, message, hint)`` for each problem (a ready
:class:`Diagnostic` is passed on as it is)."""


@dataclass(frozen=True)
class Finding:
    """A registered finding: its ``name`` (the function's), stable ``code``, ``severity``, and the
    function that yields its problems (:data:`Found`) from a :class:`Context`."""

    name: str
    code: Code
    severity: Severity
    run: Callable[[Context], Found]

    @property
    def doc(self) -> str:
        """What it finds (the function's docstring)."""
        return inspect.getdoc(self.run) or ""


FINDINGS: dict[str, Finding] = {}
"""Every finding by name, in the order :func:`lint` runs them (the order they are written)."""


def finding(code: Code, severity: Severity = Severity.WARNING, *, into: dict[str, Finding] | None = None
            ) -> Callable[[Callable[[Context], Found]], Callable[[Context], Found]]:
    """Register the decorated function as a finding of ``code`` and ``severity`` (see the module doc)
    in :data:`FINDINGS`, or in ``into``: the registry of a floor above that passes its findings to
    :func:`lint` (``also``), such as :data:`gouji_dsl.engine.bounds.PLAYED` (findings that play deals)."""
    def register(run: Callable[[Context], Found]) -> Callable[[Context], Found]:
        registry = FINDINGS if into is None else into
        if run.__name__ in registry or run.__name__ in FINDINGS or not inspect.getdoc(run):
            raise ValueError(f"finding {run.__name__!r}: registered twice, or without a docstring saying what it finds")
        registry[run.__name__] = Finding(run.__name__, code, severity, run)
        return run
    return register


class _Lines:
    """Source lines of the files a ruleset's findings point into (each file read and split once)."""

    def __init__(self, resolved: Any):
        self.resolved = resolved
        self.cache: dict[str, list[str] | None] = {resolved.path: (resolved.text or "").splitlines()}

    def line(self, path: str, n: int) -> str | None:
        if path not in self.cache:
            try:
                self.cache[path] = Path(path).read_text(encoding="utf-8").splitlines()
            except OSError:
                self.cache[path] = None
        lines = self.cache[path]
        return lines[n - 1] if lines is not None and 1 <= n <= len(lines) else None


class Context:
    """What every finding reads: ``graph``, ``resolved`` (its ruleset), ``own_path`` (the file
    checked), ``an`` (the :class:`~gouji_dsl.ruleset.analysis.Analysis`), ``nodes`` (every rule),
    ``own`` (the rules this file writes), ``by_id``; :attr:`parent` and :attr:`switched` are
    computed when a finding first asks."""

    def __init__(self, graph: RuleGraph):
        self.graph = graph
        self.resolved: ResolvedRuleset = graph.resolved
        self.own_path: str = self.resolved.path
        self.lines = _Lines(self.resolved)
        self.an = analyse(graph)
        self.nodes: list[RuleNode] = list(graph.nodes)
        self.own = [n for n in self.nodes if not n.inherited]
        self.by_id = {n.id: n for n in self.nodes}

    @functools.cached_property
    def parent(self) -> ResolvedRuleset | None:
        """The resolved parent ruleset (None: none, or it cannot be resolved again)."""
        return _parent(self.resolved)

    @functools.cached_property
    def switched(self) -> Analysis:
        """The analysis with this file's own settings unknown: a rule dead here but live there is
        switched off by this file's own setting."""
        own_settings = frozenset(name for name, s in self.resolved.settings.items() if not s.inherited)
        return analyse(self.graph, own_settings) if own_settings else self.an

    def live(self, hook: str) -> list[RuleNode]:
        """The rules on ``hook`` that can fire, in graph order."""
        return [n for n in self.nodes if n.hook == hook and n.id not in self.an.dead]

    def own_settings(self) -> Iterator[tuple[str, SettingSpec]]:
        """The settings this file writes, by name."""
        return ((name, s) for name, s in self.resolved.settings.items() if not s.inherited)

    def diagnostic(self, f: Finding, at: SourcePos, message: str, hint: str | None) -> Diagnostic:
        return Diagnostic.at(at, message, hint=hint, source_line=self.lines.line(at.path, at.line),
                             severity=f.severity, code=f.code)


def lint(graph: RuleGraph, *, codes: Collection[Code] | None = None, also: Iterable[Finding] = ()) -> list[Diagnostic]:
    """Every lint finding of a compiled ruleset's own file (see the module doc), sorted by position
    (this file's first); ``codes``: only the findings of those codes; ``also``: findings of a floor
    above run after the registered ones (:data:`gouji_dsl.engine.bounds.PLAYED`, which play deals).

    Severity ``"warning"``, or ``"error"`` when the game can never end or no play is ever allowed;
    ``gouji validate --strict`` fails on either."""
    c = Context(graph)
    out: list[Diagnostic] = []
    for f in (*FINDINGS.values(), *also):
        if codes is None or f.code in codes:
            out.extend(d if isinstance(d, Diagnostic) else c.diagnostic(f, *d) for d in f.run(c))
    uniq: dict[tuple[Any, ...], Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.path, d.line, d.col, d.message), d)
    return sorted(uniq.values(), key=lambda d: (d.path != c.own_path, d.path, d.line, d.col, d.message))


_QUICK = (Code.UNREAD_SETTING, Code.SETTING_HAS_NO_EFFECT, Code.STALE_WORD)


def quick_warnings(graph: RuleGraph) -> list[Diagnostic]:
    """The findings worth showing even without ``--strict``: a setting (or key) nothing reads is
    most likely a misspelt name (``sweep_multipler``); a setting another setting disables does
    nothing. Runs only the findings of those codes. Never raises: a lint problem yields nothing."""
    try:
        return [d for d in lint(graph, codes=_QUICK) if d.code in _QUICK]
    except Exception:
        return []


# ================================================================================= the findings
_LITERALS = {"true", "false"}


@finding(Code.RULE_NEVER_FIRES)
def rule_never_fires(c: Context) -> Found:
    """A rule of this file that can never fire: its guard (or a permit rule's effect) is constant
    once the settings are folded in, it needs a flag or counter no rule that can fire sets, or its
    question is never asked (tribute in a one-game match). Not reported: a rule this file's own
    setting switches off (a default-off mechanic), and ``allow: false`` over a parent's rule (it
    says "no" on purpose and keeps the sentence)."""
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


@finding(Code.NEVER_CHANGES)
def reads_what_never_changes(c: Context) -> Found:
    """A rule of this file that can fire but reads a flag or counter no rule that can fire sets: it
    is always false / 0, so the rule reads something that never changes."""
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


@finding(Code.RULE_SHADOWED)
def rule_shadowed(c: Context) -> Found:
    """A value rule that never decides its question because a later rule of the same question
    answers with the same guard (or none), and the last matching rule wins; reported at this
    file's rule of the two (at the later one, with how to override, when the earlier is inherited)."""
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


@finding(Code.RULES_CONTRADICT)
def rules_contradict(c: Context) -> Found:
    """Two permit rules (one of them this file's) with the same guard and effect text but
    contradictory effects: one allows what the other forbids, or one requires what the other
    forbids (so it is always forbidden)."""
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


@finding(Code.NO_WAY_OUT, Severity.ERROR)
def game_never_ends(c: Context) -> Found:
    """The game can never end: no rule on ``game_over`` can fire, or every one that can always
    answers no."""
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


@finding(Code.NO_WAY_OUT)
def question_without_rule(c: Context) -> Found:
    """No rule that can fire says what a gouji play is, who leads first, the order of the answers
    to a play, or who leads the next trick: the engine's plain answer is used."""
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


@finding(Code.NO_WAY_OUT, Severity.ERROR)
def every_play_forbidden(c: Context) -> Found:
    """A rule that forbids every play (a ``deny`` always true, a ``require`` always false, with no
    guard or one that always holds): the game cannot go on."""
    yield from _forbids_every(c, "play", _("no play is ever allowed: the game cannot go on"))


@finding(Code.NO_WAY_OUT)
def nobody_may_follow(c: Context) -> Found:
    """A rule that forbids every answer to a play (``follow``), as :func:`every_play_forbidden`."""
    yield from _forbids_every(c, "follow", _("nobody may ever answer a play"))


@finding(Code.UNREAD_SETTING)
def unread_setting(c: Context) -> Found:
    """A setting of this file that no rule, no definition a rule uses, and not the engine reads
    (most likely a misspelt name: did-you-mean)."""
    for name, s in c.own_settings():
        if name in c.an.reads or name in ENGINE_SETTINGS:
            continue
        meant = did_you_mean(name, [m for m in c.an.reads if m != name] + list(ENGINE_SETTINGS))
        hint = meant or _("rules read a setting as settings.") + name + _("; remove it, or check the name")
        at = s.name_origin or s.origin
        message = _("setting {name!r} is read by no rule, no definition a rule uses, and not by the engine").format(name=name)
        if meant and (c.parent is None or name not in c.parent.settings):
            # a new name next to one that is read: a misspelling, which would leave the setting meant
            # at its inherited value without a word: an error, not a warning
            yield Diagnostic.at(at, message, hint=meant + _(" (an error: a new setting nothing reads, named like one that is "
                                                            "read, is taken for a misspelling)"),
                                source_line=c.lines.line(at.path, at.line), severity=Severity.ERROR,
                                code=Code.UNREAD_SETTING)
            continue
        yield (at, message, hint)


@finding(Code.UNREAD_SETTING)
def unread_setting_key(c: Context) -> Found:
    """A key this file writes in a map setting that the rules and the engine read key by key, and
    that nothing reads (did-you-mean, or the keys that are read)."""
    raw = _own_raw(c.resolved.path, c.resolved.text or "")
    for name, s in c.own_settings():
        if name in ENGINE_SETTINGS and ENGINE_SETTINGS[name] is None:
            continue  # the engine reads all of it
        if name not in c.an.reads and name not in ENGINE_SETTINGS:
            continue  # nothing reads the setting at all: unread_setting
        keys_read = c.an.reads.get(name, set())
        if keys_read is ALL or not isinstance(s.value, dict):
            continue
        known = set(keys_read) | set(ENGINE_SETTINGS.get(name) or frozenset())
        written = (raw.get(("settings", name)) if raw is not None else None)
        base_loc = ("settings", name, "value") if isinstance(written, dict) and "value" in written else ("settings", name)
        for k in s.value:
            o = s.key_origins.get(str(k)) or s.key_origins.get(k)
            if o is None or o.path != c.own_path or str(k) in known:
                continue
            if raw is not None and (base_loc + (k,)) in raw.keys:
                o = raw.origin(base_loc + (k,), key=True)
            yield (o, _("key {k!r} of setting {name!r} is read by nothing").format(k=k, name=name),
                   did_you_mean(str(k), known) or _("keys read: {join}").format(join=', '.join(sorted(known)) or 'none'))


_LONG_FORM = N_("write the long form {value: ..., says: \"...\", source: \"...\"}")


@finding(Code.STALE_SENTENCE)
def inherited_sentence_kept(c: Context) -> Found:
    """A setting this file changes without its own ``says``, keeping the parent's sentence, which
    may no longer be true (:func:`stale_says`)."""
    for name in sorted(stale_says(c.graph)):
        s = c.resolved.settings[name]
        yield (s.origin, _("setting {name!r} is changed here but keeps an inherited sentence, which may no longer "
               "be true: {short!r}").format(name=name, short=short(s.says or '', 90)), _(_LONG_FORM))


@finding(Code.STALE_SENTENCE)
def sentence_lost(c: Context) -> Found:
    """A setting this file changes without a sentence where the parent's value had one: the
    rulebook (``gouji doc``) loses the parent's sentence and says nothing instead."""
    for name, s in c.resolved.settings.items():
        before = c.parent.settings.get(name) if c.parent is not None else None
        if s.inherited or s.says or before is None or not before.says \
                or normalize_setting(before.value) == normalize_setting(s.value):
            continue
        yield (s.origin, _("setting {name!r} is changed here without a sentence (says): the rulebook (gouji doc) "
               "loses the parent's {short!r} and says nothing instead").format(name=name, short=short(before.says, 70)), _(_LONG_FORM))


_NUMBER_WORDS = {"a card": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
                 "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twice": 2, "double": 2, "doubles": 2}
_NUMBER = re.compile(r"\d+|\b(?:" + "|".join(sorted(_NUMBER_WORDS, key=len, reverse=True)) + r")\b", re.IGNORECASE)


def _numbers_said(text: str) -> set[int]:
    """The numbers a sentence states, in digits or words ("two cards", "a card", "doubles")."""
    return {int(m) if m.isdigit() else _NUMBER_WORDS[m.casefold()] for m in _NUMBER.findall(text)}


def _numbers_in(value: Any) -> set[int]:
    """The numbers among a setting value's leaves (not a map's keys)."""
    if isinstance(value, bool) or value is None:
        return set()
    if isinstance(value, int):
        return {value}
    if isinstance(value, str):
        return {int(value)} if value.isdigit() else set()
    if isinstance(value, dict):
        return set().union(*map(_numbers_in, value.values())) if value else set()
    if isinstance(value, (list, tuple)):
        return set().union(*map(_numbers_in, value)) if value else set()
    return set()


def _settings_read(c: Context, n: RuleNode) -> list[tuple[str, str | None]]:
    """The settings rule ``n`` reads (through its definitions too), each with the key it looks up, in order."""
    paths: set[tuple[str, str | None]] = set()
    for tree in c.an.trees(n.id):
        for x in walk_with_defs(tree, c.an.defs):
            if isinstance(x, A.Setting):
                paths.add((x.name, str(x.path[0]) if x.path else None))
    return sorted(paths, key=lambda p: (p[0], p[1] or ""))


def _said_by_setting(n: RuleNode, name: str, key: str | None) -> bool:
    """Rule ``n`` is ``said_by`` setting ``name`` (or its key ``key``)."""
    return any(e == name or e == f"{name}.{key}" or (key is None and e.startswith(name + ".")) for e in n.said_by)


def _numbers_gone(c: Context, n: RuleNode, said: set[int], stale: Collection[str], name: str,
                  key: str | None) -> list[int]:
    """The numbers rule ``n``'s sentence states that setting ``name`` (its key ``key``) had in the parent and no
    longer has here; none where the setting has no sentence of its own or the rule is said_by it."""
    s = c.resolved.settings.get(name)
    before = c.parent.settings.get(name) if c.parent is not None else None
    if s is None or s.inherited or before is None or not s.says or name in stale:
        return []  # a setting changed here without its own sentence: the two findings above
    if _said_by_setting(n, name, key):
        return []
    now, then = s.value, before.value
    if key is not None and isinstance(now, dict) and isinstance(then, dict):
        now, then = now.get(key, now.get(int(key)) if key.isdigit() else None), then.get(key)
    if normalize_setting(now) == normalize_setting(then):
        return []
    return sorted(said & _numbers_in(then) - _numbers_in(now))


@finding(Code.STALE_SENTENCE)
def inherited_rule_sentence_kept(c: Context) -> Found:
    """A rule inherited with a sentence that states a number ("two cards") which a setting it reads
    (or the key of a map setting) had in the parent and no longer has here: the rulebook prints the
    parent's number. Not where the rule is ``said_by`` that setting and the setting has a sentence
    (that is printed in the rule's place; a stale setting sentence is the finding above)."""
    if c.parent is None:
        return
    stale = stale_says(c.graph)
    for n in c.nodes:
        said = _numbers_said(n.says or "")
        if not n.inherited or not said or n.id in c.an.dead or n.id in c.an.inert:
            continue
        for name, key in _settings_read(c, n):
            gone = _numbers_gone(c, n, said, stale, name, key)
            if not gone:
                continue
            s = c.resolved.settings[name]
            what = name if key is None else f"{name}.{key}"
            at = (s.key_origins.get(key) if key is not None else None) or s.origin
            yield (at, _("setting {what!r} no longer has {join} here, but rule {id!r}, which "
                   "reads it, keeps its inherited sentence, which says so: {short!r}").format(
                       what=what, join=', '.join(map(str, gone)), id=n.id, short=short(n.says or '', 70)),
                   _("override rule {id!r} with its own says, or give it said_by: [{what}] and the setting a "
                   "sentence with its values").format(id=n.id, what=what))
            break


def _enum_lookups(an: Analysis, n: RuleNode) -> Iterator[tuple[A.Index, A.Setting, Enum]]:
    """The lookups (and their map setting) of a map setting by a key of an enumerated type (not a
    literal) in rule ``n``."""
    for tree in an.trees(n.id):
        for x in walk_with_defs(tree, an.defs):
            if isinstance(x, A.Index) and isinstance(x.base, A.Setting) and isinstance(x.base.value, dict):
                kt = strip(x.key.type) if x.key.type is not None else None
                if isinstance(kt, Enum) and not isinstance(x.key, A.Literal):
                    yield x, x.base, kt


@finding(Code.MISSING_KEY)
def lookup_without_every_key(c: Context) -> Found:
    """A map setting without every word of an enumerated key that a rule that can fire looks it up
    by: the rule fails while the game runs when the key is one of the absent words. Reported at the
    table when this file writes it, else at this file's rule."""
    for n in c.nodes:
        if n.id in c.an.dead:
            continue
        for x, base, kt in _enum_lookups(c.an, n):
            absent = [w for w in kt.values if w not in base.value]
            spec = c.resolved.settings.get(base.name)
            if not absent or spec is None:
                continue
            at = spec.positions.get(base.path, spec.origin) if base.path else spec.origin
            if at.path != c.own_path and n.origin.path != c.own_path:
                continue  # neither the rule nor the table is written here
            if at.path != c.own_path:
                at = n.origin
            label = A.unparse(base)
            yield (at, _("{label} has no key ").format(label=label) + ", ".join(map(repr, absent)) + _(": rule {id!r} "
                   "({where}) fails while the game runs when its key {a} is one of them").format(id=n.id, where=where(n.origin), a=A.unparse(x.key)),
                   _("give {label} every key ({join}), or test the key first (k in {label})").format(
                       label=label, join=', '.join(map(repr, kt.values))))


def _get(d: dict[Any, Any], key: Any) -> Any:
    """``d[key]`` with the key compared as text (YAML keys ``1`` and ``"1"``), or None."""
    return next((v for k, v in d.items() if str(k) == str(key)), None)


def _changed(s: SettingSpec, before: SettingSpec) -> list[tuple[str | None, SourcePos]]:
    """What this file changes of a setting: each changed key of a map (with its position), or the
    whole value (key None)."""
    if isinstance(s.value, dict) and isinstance(before.value, dict):
        return [(str(k), s.key_origins.get(str(k)) or s.key_origins.get(k) or s.origin) for k, v in s.value.items()
                if normalize_setting(v) != normalize_setting(_get(before.value, k))]
    return [(None, s.origin)]


def _key_readers(an: Analysis, name: str, readers_of: list[str]) -> dict[str | None, set[str]]:
    """Key of setting ``name`` (None: the whole value) -> the rules that read it."""
    out: dict[str | None, set[str]] = {}
    for rid in readers_of:
        for tree in an.trees(rid):
            for x in walk_with_defs(tree, an.defs):
                if isinstance(x, A.Setting) and x.name == name:
                    out.setdefault(str(x.path[0]) if x.path else None, set()).add(rid)
    return out


def _never_asked(w: Why | None) -> bool:
    return w is not None and w.kind == Dead.HOOK


@finding(Code.SETTING_HAS_NO_EFFECT)
def change_without_effect(c: Context) -> Found:
    """A setting (or key) this file changes that only rules of a question never asked read (tribute
    settings in a one-game ruleset): the change does nothing."""
    an = c.an
    for name, s in c.resolved.settings.items():
        before = c.parent.settings.get(name) if c.parent is not None else None
        if s.inherited or before is None or name in ENGINE_SETTINGS \
                or normalize_setting(before.value) == normalize_setting(s.value):
            continue
        readers_of = [n.id for n in c.nodes if name in an.rule_settings.get(n.id, ())]
        if not any(_never_asked(an.dead.get(r)) for r in readers_of):
            continue  # no reader of it is on a question never asked: nothing to say (and no walk)
        key_readers = _key_readers(an, name, readers_of)
        for key, at in _changed(s, before):
            if at.path != c.own_path:
                continue
            readers = key_readers.get(None, set()) | (key_readers.get(key, set()) if key else
                                                      {r for rs in key_readers.values() for r in rs})
            whys = [an.dead.get(r) for r in sorted(readers)]
            if not readers or not all(_never_asked(w) for w in whys):
                continue
            label = f"{name}.{key}" if key else name
            yield (at, _("setting {label} is changed here but has no effect: every rule that reads it answers a "
                   "question that is never asked ({whys})").format(label=label, whys=whys[0].message if whys[0] else ''),
                   _("remove the change, or make the question asked (tribute needs a match of several games)"))


@finding(Code.UNREAD_SETTING)
def unpaid_tribute_kind(c: Context) -> Found:
    """A tribute kind the ruleset pays (``tribute: {order: [fal]}``) that no ``tribute`` /
    ``return_tribute`` rule compares ``kind`` with: nothing is paid of it, silently."""
    yield from _unpaid_tribute_kinds(c.graph, c.an, c.nodes, c.own_path)


@finding(Code.NO_WAY_OUT)
def choice_never_asked(c: Context) -> Found:
    """A choice of this file's own (``settings.choices``) that no offer rule that can fire asks, or
    whose answer no answered rule that can fire reads."""
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


@finding(Code.SETTING_HAS_NO_EFFECT)
def disabled_by_another_setting(c: Context) -> Found:
    """A setting of this file that another setting disables (found by
    :mod:`gouji_dsl.ruleset.settings` when the graph was built: passed on as found)."""
    yield from (d for d in c.graph.warnings if d.path == c.own_path)


@finding(Code.MISSING_LANGUAGE)
def text_missing_a_language(c: Context) -> Found:
    """A text of this file (a ``says``, the title, the description, a word of ``words:``) given in
    one language the file declares (its own ``languages:``) and not in another. A file that declares
    none writes in the language it inherits and is not asked for the others."""
    raw = _own_raw(c.resolved.path, c.resolved.text or "")
    if raw is not None and declared(raw.data) is not None:
        yield from missing_languages(c.resolved)


@finding(Code.STALE_WORD)
def inherited_sentence_names_old_word(c: Context) -> Found:
    """A word of the game this file renames (``words: {places: {6: 落科}}``) while sentences it
    inherits, printed in the rulebook, still use the parent's word (``大落``): the rulebook would
    call one place or event by two names. Reported at the new word, naming each such sentence (a
    rule that can fire, or a setting's), in every language the ruleset declares."""
    if c.parent is None:
        return
    sentences = _inherited_sentences(c)
    for r in renamed_words(c.resolved, c.parent):
        stale: dict[str, None] = {}
        olds: dict[str, None] = {}
        for lang in c.resolved.languages:
            forms = r.stale_forms(lang)
            for label, w in sentences:
                found = [f for f in forms if f in w.in_lang(lang)]
                if found:
                    stale.setdefault(label)
                    olds.update(dict.fromkeys(sorted(found)))
        if stale and r.new.origin is not None:  # (renamed_words gives only words written in a file)
            yield (r.new.origin, _stale_word_message(r, list(olds), list(stale)),
                   _("give each of them its own says with the new word: a rule of the same id with `says:`, or "
                     "the setting's long form"))


def _inherited_sentences(c: Context) -> list[tuple[str, Wording]]:
    """(label, sentence) of each sentence the rulebook prints that another file wrote: the rules
    that can fire, and the settings' sentences that still hold."""
    out: list[tuple[str, Wording]] = []
    for n in c.nodes:
        w = n.says
        if isinstance(w, Wording) and n.id not in c.an.dead and w.origin is not None and w.origin.path != c.own_path:
            out.append((_("rule {id} ({where})").format(id=quoted(n.id), where=_short_pos(w.origin)), w))
    for name, s in c.resolved.settings.items():
        for x in s.sentences_in_effect():
            w = x.says
            if isinstance(w, Wording) and w.origin is not None and w.origin.path != c.own_path:
                out.append((_("setting {name} ({where})").format(name=quoted(name), where=_short_pos(w.origin)), w))
    return out


def _short_pos(o: SourcePos) -> str:
    return f"{Path(o.path).name}:{o.line}"


def _stale_word_message(r: Renamed, olds: list[str], labels: list[str]) -> str:
    what = _("place {n}").format(n=r.key) if r.group == "places" else _("the term {term}").format(term=quoted(r.key))
    shown = _(", ").join(labels[:6]) + (_(" and {n} more").format(n=len(labels) - 6) if len(labels) > 6 else "")
    return ngettext("{what} is called {new} here, but {n} inherited sentence printed in the rulebook still says "
                    "{old}: {sentences}",
                    "{what} is called {new} here, but {n} inherited sentences printed in the rulebook still say "
                    "{old}: {sentences}", len(labels)).format(
        what=what, new=quoted(said(r.new)), n=len(labels), old=_(", ").join(map(quoted, olds)), sentences=shown)


# ================================================================================= helpers
@functools.lru_cache(maxsize=64)
def _own_raw(path: str, text: str) -> RawRuleset | None:
    """The ruleset's own file as parsed (None when it cannot be read again)."""
    try:
        return load_text(text, path) if text else None
    except Exception:
        return None


def stale_says(graph: RuleGraph | ResolvedRuleset) -> set[str]:
    """Settings this ruleset's own file (or ``--set`` option) changes without a ``says``, keeping an
    inherited sentence that may no longer be true (a map merged into the parent's keeps the parent's
    sentence). ``graph``: the rule graph or the resolved ruleset."""
    resolved = graph if isinstance(graph, ResolvedRuleset) else graph.resolved
    raw = _own_raw(resolved.path, resolved.text or "")
    if raw is None:
        return set()
    written_all = raw.get(("settings",)) or {}
    out: set[str] = set()
    parent = None
    for name, s in resolved.settings.items():
        if s.inherited or not s.says or name not in written_all:
            continue
        written = written_all[name]
        if is_setting_long_form(written) and written.get("says"):
            continue
        if parent is None:
            parent = _parent(resolved)
        before = parent.settings.get(name) if parent is not None else None
        if before is not None and normalize_setting(before.value) == normalize_setting(s.value):
            continue  # written again, unchanged: the sentence still holds
        out.add(name)
    return out


def no_effect(values: Any) -> dict[tuple[str, ...], str]:
    """The settings (name, then keys) another setting disables (the setting-type layer's
    constraints, which validate reports as ``SettingHasNoEffect``), each with why. ``values``: the
    settings' values by name (a graph's ``settings``)."""
    values = dict(values)
    return {c.path: c.message.split(":")[0] for c in CONSTRAINTS if c.holds(values)}


def chain_files(resolved: ResolvedRuleset) -> dict[str, str]:
    """Each ruleset name of the chain to its file (a name two files share: the root-most one's)."""
    out: dict[str, str] = {}
    for i, path in enumerate(resolved.chain):
        name = resolved.name if i == 0 else Path(path).stem
        if i:
            try:
                name = str(load_file(path).data.get("ruleset") or name)
            except Exception:
                pass
        out[name] = path
    return out


def setting_sentences(s: SettingSpec, stale: Collection[str] = (), off: dict[tuple[str, ...], str] | None = None,
                      files: dict[str, str] | None = None) -> list[tuple[tuple[str, ...], str, str | None]]:
    """The sentences in effect of setting ``s``, each with the keys of the map it is about (empty:
    the whole value), its text and source: what ``gouji doc`` prints of the setting and ``gouji show``
    beside it (the one place that decides). None when ``s`` is in ``stale`` (:func:`stale_says`: the
    value was changed without a sentence, so the inherited one no longer describes it). A file's
    sentence replaces every earlier one about a key it changed — a sentence about the whole value (a
    parent's "216 cards, 36 each") describes every key, so any later sentence replaces it — and a
    sentence about other keys of the map stays (a child's `says:` on one key does not replace what
    another file says of the others).

    ``off`` maps the paths another setting disables (:func:`no_effect`, the lint's
    ``SettingHasNoEffect`` finding) to why; ``files`` each ruleset name of the chain to its file
    (:func:`chain_files`). A sentence whose file wrote only such values is left out; one whose file
    also wrote values that apply is marked with what does not."""
    if s.name in stale or not s.says:
        return []
    sentences = list(getattr(s, "sentences", ()) or ())
    if not sentences:
        return [((), said(s.says) or "", s.source)]
    kept: list[tuple[Any, str]] = []
    for x in sentences:
        text = said(x.says) or ""
        path = (files or {}).get(x.ruleset)
        dead = {p[1:]: why for p, why in (off or {}).items()
                if p[0] == s.name and len(p) > 1 and (not x.keys or str(p[1]) in x.keys)
                and path is not None and getattr(s.positions.get(p[1:]), "path", None) == path}
        if dead:
            written = [q for q, at in s.positions.items() if at.path == path and q and (not x.keys or str(q[0]) in x.keys)]
            leaves = [q for q in written if not any(len(r) > len(q) and r[:len(q)] == q for r in written)]
            if not [q for q in leaves if not any(q[:len(d)] == d for d in dead)]:
                continue  # it speaks only of values that take no effect (and replaces nothing)
            text += _(" (Not in effect here: {what}.)").format(what="; ".join(
                f"{s.name}.{'.'.join(map(str, d))} {why}" for d, why in dead.items()))
        kept.append((x, text))
    return [(tuple(x.keys), text, x.source) for i, (x, text) in enumerate(kept)
            if not any(not x.keys or not y.keys or set(x.keys) & set(y.keys) for y, _t in kept[i + 1:])]


def _parent(resolved: ResolvedRuleset) -> ResolvedRuleset | None:
    """The resolved parent ruleset, or None."""
    if len(resolved.chain) < 2:
        return None
    try:
        return resolve(resolved.chain[1])
    except Exception:
        return None


def _removal_origin(resolved: ResolvedRuleset, parent: ResolvedRuleset | None, hook: str) -> tuple[SourcePos, str] | None:
    """Where the ruleset's own file removes a rule of ``parent`` on ``hook`` (and its id)."""
    raw = _own_raw(resolved.path, resolved.text or "")
    if raw is None or parent is None:
        return None
    for i, rid in enumerate(raw.get(("remove",)) or ()):
        r = parent.rule(rid)
        if r is not None and r.on.text == hook:
            return raw.origin(("remove", i)), rid
    return None


def _top_origin(resolved: ResolvedRuleset) -> SourcePos:
    """Where the ruleset's own file names it (``ruleset:``), for a finding about the whole file."""
    raw = _own_raw(resolved.path, resolved.text or "")
    return raw.origin(("ruleset",), key=True) if raw is not None else SourcePos(resolved.path, 1, 1)


def _kind_words(an: Analysis, nodes: Sequence[RuleNode]) -> set[str]:
    """The words the tribute rules compare ``kind`` with (``kind == 'fall'``, ``kind in [...]``),
    and the words any rule looks for in the order itself (``'declare' in settings.tribute.order``)."""
    words: set[str] = set()
    for n in nodes:
        if n.hook not in KIND_HOOKS and "tribute" not in an.rule_settings.get(n.id, ()):
            continue
        for tree in an.trees(n.id):
            for x in walk_with_defs(tree, an.defs):
                if not (isinstance(x, A.Binary) and x.op in (A.BinOp.EQ, A.BinOp.NE, A.BinOp.IN, A.BinOp.NOT_IN)):
                    continue
                if isinstance(x.right, A.Setting) and x.right.name == "tribute" and x.right.path == ("order",) \
                        and isinstance(x.left, A.Literal) and isinstance(x.left.value, str):
                    words.add(x.left.value)
                if n.hook not in KIND_HOOKS:
                    continue
                sides = (x.left, x.right)
                if not any(isinstance(y, A.Name) and y.name == "kind" for y in sides):
                    continue
                for y in sides:
                    items = y.items if isinstance(y, A.ListLit) else (y,)
                    words |= {i.value for i in items if isinstance(i, A.Literal) and isinstance(i.value, str)}
    return words


def _unpaid_tribute_kinds(graph: RuleGraph, an: Analysis, nodes: Sequence[RuleNode], own_path: str) -> list[tuple[SourcePos, str, str]]:
    """Each tribute kind the ruleset pays (``tribute_kinds``) that no ``tribute`` / ``return_tribute``
    rule compares ``kind`` with: (position, message, hint), at the ``tribute.order`` value that lists
    it when this file wrote it, else at this file's ``tribute_kinds`` rule (nothing for a parent's)."""
    if not an.tribute_paid or not an.tribute_kinds:
        return []
    words = _kind_words(an, nodes)
    unknown = sorted(an.tribute_kinds - words)
    if not words or not unknown:
        return []
    spec = graph.resolved.settings.get("tribute")
    at: SourcePos | None = None
    if spec is not None and isinstance(spec.value, dict) and "order" in spec.value:
        o = spec.key_origins.get("order")
        at = o if o is not None and o.path == own_path else None
    if at is None:
        own_rules = [n for n in nodes if n.hook == "tribute_kinds" and not n.inherited and n.id not in an.dead]
        at = own_rules[-1].origin if own_rules else None
    if at is None:
        return []
    known = ", ".join(map(repr, sorted(words)))
    order = list(spec.value["order"]) if spec is not None and isinstance(spec.value, dict) \
        and isinstance(spec.value.get("order"), list) else []

    fallback: SourcePos = at

    def listed_at(k: str) -> SourcePos:
        p = spec.positions.get(("order", order.index(k))) if spec is not None and k in order else None
        return p if p is not None and p.path == own_path else fallback

    return [(listed_at(k), _("tribute kind {k!r} is paid by no rule: no tribute rule asks about it (the rules know {known})").format(
        k=k, known=known),
             did_you_mean(k, words) or _("add rules `on: tribute` with `when: kind == '{k}'`, or remove it").format(k=k))
            for k in unknown]

