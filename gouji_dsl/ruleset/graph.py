"""Compile a resolved ruleset into an immutable :class:`RuleGraph` and ask it questions.

The graph's nodes are rules (id, hook, guard, effect, source position, checked expression trees);
its edges are phase order, ``overrides`` (a child rule replacing a parent's) and ``before``/``after``
(which must not form a cycle). Compiling checks the ruleset first (:mod:`gouji_dsl.ruleset.rule_check`:
every setting typed, every expression parsed once and checked in the scope of its question, each rule's
hook, effect, before/after and said_by) and compiles each checked expression to a closure
(:mod:`gouji_dsl.lang.compile`); rules that can never fire under the settings (the lint's
folding analysis) are left out of the questions. The interpreter only calls closures.

Any failure while a rule runs (an expression error, a value outside its type, a bug in a
vocabulary function) is raised as :class:`RuleFailed` naming the rule, its ``file:line`` and the
values involved. A graph cannot be changed once built.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from types import MappingProxyType
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, SourcePos
from gouji_dsl.i18n import N_, _, bracketed
from gouji_dsl.lang.check import DefInfo, Definitions, check
from gouji_dsl.lang.compile import Compiler
from gouji_dsl.lang.ops import EvalError
from gouji_dsl.lang.parse import parse
from gouji_dsl.lang.types import SEAT, Enum, ListOf, category, strip
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset import sources
from gouji_dsl.ruleset.analysis import analyse
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.model import CardModel
from gouji_dsl.ruleset.game.vocabulary import (
    CONTEXT_VARS,
    FUNCTIONS,
    GLOBAL_VARS,
    HOOKS,
    PHASES,
    PLACE_WORDS,
    PLAY_ATTRS,
    Hook,
    HookKind,
    HookName,
)
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.rule_check import MAX_MATCH_LENGTH, MAX_SETUP_ROUNDS, PLACE_TYPE, RuleNode, answer_bounds, check_rules, hook_scope
from gouji_dsl.ruleset.settings import Settings, normalize_setting
from gouji_dsl.ruleset.spec import ResolvedRuleset

__all__ = ["RuleNode", "Reason", "Edge", "RuleGraph", "RuleFailed", "compile_ruleset", "load_graph", "hook_scope",
           "answer_bounds", "MAX_MATCH_LENGTH", "MAX_SETUP_ROUNDS", "PLACE_TYPE"]

Fn = Callable[[Any], Any]


class Verdict(StrEnum):
    """What one rule (or check) said in a decision (a :class:`Reason`'s ``verdict``); a str-Enum, so
    the serialised form (``"forbade"`` in JSON, records and the table protocol) is the word itself."""

    ALLOWED = "allowed"
    """a permit rule (or the engine's comparison) allowed the move"""
    FORBADE = "forbade"
    """a permit rule (or one of the engine's checks) forbade it"""
    ANSWERED = "answered"
    """a value rule answered a question"""
    NOTE = "note"
    """the engine says how it went on (who leads, who is asked next): neither allows nor forbids"""
    SETTING = "setting"
    """a setting a deciding rule read (``settings.NAME``), cited by :mod:`gouji_dsl.engine.explain`"""


@dataclass(frozen=True)
class Reason:
    """One rule's part in a decision: ``verdict`` (a :class:`Verdict`) is ``allowed``, ``forbade``,
    ``answered``, ``note`` or ``setting``; ``rule`` is None for the interpreter's own checks (turn, cards held,
    comparison), whose ``rule_id`` starts with ``engine.`` or ``setting.``. ``pos`` is where the rule
    (or the setting) was written; None for the interpreter's own checks."""

    rule_id: str
    verdict: Verdict
    text: str
    pos: SourcePos | None = None
    rule: RuleNode | None = None

    def __post_init__(self) -> None:
        if self.pos is not None and not isinstance(self.pos, SourcePos):
            raise TypeError(f"Reason.pos must be a SourcePos or None, not {type(self.pos).__name__}")

    @property
    def where(self) -> str:
        """``path:line`` of :attr:`pos` (``""`` when there is none), for display: the path as every
        other citation shows it (``<bundled>/base.yaml`` for a bundled file, else relative to the
        current folder when below it)."""
        if self.pos is None:
            return ""
        path = display_path(self.pos.path)
        return path if self.pos.line <= 0 else f"{path}:{self.pos.line}"

    def format(self) -> str:
        loc = bracketed(self.where, after=True) if self.where else ""
        verdict = _(_VERDICT_WORDS[self.verdict]) if self.verdict in _VERDICT_WORDS else self.verdict
        return f"[{verdict}] {self.rule_id}{loc}{_(': ')}{self.text}"


_VERDICT_WORDS = {Verdict.ALLOWED: N_("allowed"), Verdict.FORBADE: N_("forbade"), Verdict.NOTE: N_("note"),
                  Verdict.ANSWERED: N_("answered"), Verdict.SETTING: N_("setting")}
"""How a :class:`Reason`'s verdict is shown, translated (the serialised verdict stays the English word)."""


class RuleFailed(GoujiError):
    """A rule failed while the game ran: ``rule_id``, ``pos`` (where the rule was written), the
    ``reason`` in words (with the values involved) and, when known, ``where`` (the failing
    sub-expression). Its one diagnostic has code ``RuleFailed``."""

    def __init__(self, rule_id: str, pos: SourcePos, reason: str, where: SourcePos | None = None,
                 source_line: str | None = None, hint: str | None = None):
        said = _("the failing part is at {where}").format(where=where) if where is not None and where != pos else hint
        if source_line is None and pos.line:
            source_line = sources.source_line(pos.path, pos.line)
        super().__init__(Diagnostic.at(pos, _("rule {rule_id!r} failed while the game ran: {reason}").format(
            rule_id=rule_id, reason=reason), hint=said,
                                       source_line=source_line, code=Code.RULE_FAILED))
        self.rule_id = rule_id
        self.pos = pos
        self.reason = reason
        self.where = where
        self.hint = hint

    def __reduce__(self) -> tuple[Any, ...]:  # picklable across worker processes
        return (RuleFailed, (self.rule_id, self.pos, self.reason, self.where, self.diagnostics[0].source_line,
                             self.hint))


class _Rule:
    """A compiled rule: the node and its closures (``name``: the flag / counter of mark/unmark/count)."""

    __slots__ = ("node", "when", "fn", "name", "target", "amount", "giver")

    def __init__(self, node: RuleNode, when: Fn | None, fn: Fn | None, name: str | None = None,
                 target: Fn | None = None, amount: Fn | None = None, giver: Fn | None = None):
        self.node, self.when, self.fn, self.name = node, when, fn, name
        self.target, self.amount, self.giver = target, amount, giver


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str  # "phase" | "overrides" | "before"


def _bindings(ctx: Any) -> str:
    parts = []
    for name in ("seat", "target", "kind", "card", "amount"):
        v = getattr(ctx, name, None)
        if v is not None and not (name == "amount" and v == 0):
            parts.append(f"{name} {v!r}" if isinstance(v, str) else f"{name} {v}")
    for name in ("play", "top", "beaten"):
        v = getattr(ctx, name, None)
        if v is not None:
            text = getattr(getattr(v, "play", None), "text", None)
            parts.append(f"{name} {text}" + (_(" by seat {seat}").format(
                seat=v.seat) if getattr(v, "seat", 0) else ""))
    return ", ".join(parts)


class RuleGraph:
    """An immutable compiled ruleset. Use :func:`compile_ruleset` to build one.

    Attributes: ``name``, ``resolved`` (the :class:`ResolvedRuleset`), ``settings`` (plain values,
    map keys as text, read-only), ``typed`` (:class:`~gouji_dsl.ruleset.settings.Settings`: every
    setting with its type and typed value), ``model`` (:class:`CardModel`), ``nodes`` (rules in
    effective order), ``edges``, ``by_hook`` (hook -> the rules asked, in order, without the pruned
    ones), ``pruned`` (ids of rules that can never fire), ``definitions`` (the checked definitions),
    ``warnings`` (settings findings: :data:`~gouji_dsl.ruleset.game.model.CONSTRAINTS`)."""

    __slots__ = ("name", "resolved", "settings", "typed", "model", "_rules", "nodes", "_by_id", "edges", "by_hook", "n_seats",
                 "pruned", "definitions", "warnings", "_compiler", "_checks", "_frozen")

    def __init__(self, resolved: ResolvedRuleset, typed: Settings, model: CardModel, rules: list[_Rule], edges: list[Edge],
                 definitions: Definitions, compiler: Compiler, warnings: tuple[Diagnostic, ...] = ()):
        self.name = resolved.name
        self.resolved = resolved
        self.typed = typed
        self.settings: Mapping[str, Any] = MappingProxyType(  # as resolved, without the map keys set to null
            {k: normalize_setting(typed[k].plain if k in typed else s.value) for k, s in resolved.settings.items()})
        self.model = model
        self._rules = tuple(rules)
        self.nodes: tuple[RuleNode, ...] = tuple(r.node for r in rules)
        self._by_id: Mapping[str, RuleNode] = MappingProxyType({n.id: n for n in self.nodes})
        self.edges: tuple[Edge, ...] = tuple(edges)
        self.by_hook: Mapping[str, tuple[_Rule, ...]] = MappingProxyType(
            {h: tuple(r for r in rules if r.node.hook == h) for h in HOOKS})
        self.n_seats = int(typed.n_seats or 0)
        self.pruned: frozenset[str] = frozenset()
        self.definitions: Mapping[str, DefInfo] = definitions
        self.warnings = warnings
        self._compiler = compiler
        self._checks = {h: _answer_check(hook, self.n_seats) for h, hook in HOOKS.items() if hook.kind == HookKind.VALUE}

    def __setattr__(self, name: str, value: Any) -> None:
        if getattr(self, "_frozen", False):
            raise AttributeError(f"a RuleGraph cannot be changed once built (setting {name!r})")
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        raise AttributeError("a RuleGraph cannot be changed once built")

    def _freeze(self) -> None:
        object.__setattr__(self, "_frozen", True)

    def compile_expression(self, text: str, context: tuple[str, ...] | None = None) -> Fn:
        """Compile an expression against this ruleset (its settings and definitions), e.g.
        ``"headless(seat)"`` for a screen's markers. ``context``: the context variables it may use
        (default: all). Raises :class:`~gouji_dsl.lang.parse.ExprError`."""
        scope = hook_scope(None, self.typed, self.definitions, context=tuple(CONTEXT_VARS) if context is None else context)
        return self._compiler.compile(check(parse(text), scope))

    def node(self, rule_id: str) -> RuleNode | None:
        """The rule with this id, or None."""
        return self._by_id.get(rule_id)

    # -------------------------------------------------------------- asking
    def _failed(self, r: _Rule | None, e: BaseException, ctx: Any) -> GoujiError:
        if isinstance(e, GoujiError):
            return e
        if r is None:  # pragma: no cover - nothing ran
            return GoujiError(Diagnostic(self.resolved.path, 0, 0, _("internal error: {e}").format(e=e), code=Code.INTERNAL_ERROR))
        where = e.where if isinstance(e, EvalError) else None
        reason = e.message if isinstance(e, EvalError) else f"{type(e).__name__}: {e}"
        bound = _bindings(ctx)
        if bound:
            reason += _(" (with {bound})").format(bound=bound)
        o = r.node.origin
        return RuleFailed(r.node.id, o, reason, where, sources.source_line(o.path, o.line))

    def permit(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> bool:
        """Answer a permit question. With ``trace``, append every rule that granted or forbade.
        Raises :class:`RuleFailed` if a rule fails while it runs."""
        granted = bool(HOOKS[hook].default)
        forbidden = False
        declined: list[_Rule] = []  # allow rules that did not allow (cited when nothing grants)
        r: _Rule | None = None
        try:
            for r in self.by_hook[hook]:
                if r.when is not None and not r.when(ctx):
                    continue
                eff = r.node.effect
                v = r.fn(ctx)  # type: ignore[misc]
                verdict = _permit_verdict(eff, v)
                if verdict == Verdict.FORBADE:
                    forbidden = True
                    if trace is None:
                        return False
                elif eff == "allow" and v:
                    granted = True
                elif eff == "allow" and trace is not None:
                    declined.append(r)
                if trace is not None and verdict is not None:
                    trace.append(_reason(r, verdict))
        except Exception as e:
            raise self._failed(r, e, ctx) from None
        if trace is not None and not granted:
            # a question nothing allows by default: the allow rules that did not allow are why
            trace.extend(_reason(d, Verdict.FORBADE) for d in declined)
        return granted and not forbidden

    def value(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> Any:
        """Answer a value question: the last rule (in effective order) whose guard holds. The answer
        is checked against the question's type (a seat that exists, a word of the allowed set...).
        Raises :class:`RuleFailed` if a rule fails while it runs or answers outside the type."""
        r: _Rule | None = None
        try:
            for r in reversed(self.by_hook[hook]):
                if r.when is None or r.when(ctx):
                    v = r.fn(ctx)  # type: ignore[misc]
                    chk = self._checks[hook]
                    if chk is not None:
                        bad = chk(v)
                        if bad:
                            raise EvalError(bad)
                    if trace is not None:
                        trace.append(Reason(r.node.id, Verdict.ANSWERED, f"{r.node.sentence()} → {v!r}", r.node.origin, r.node))
                    return v
        except Exception as e:
            raise self._failed(r, e, ctx) from None
        return HOOKS[hook].default

    def has_rules(self, hook: str) -> bool:
        return bool(self.by_hook[hook])

    def trigger(self, hook: str, ctx: Any, fired: list[str] | None = None) -> None:
        """Run every matching rule of a trigger hook, in order: mark / unmark / count per-seat
        state, ``place`` a seat (it stops playing), ``give`` cards from one seat to another. A rule
        whose target (or giver) is none does nothing. Raises :class:`RuleFailed` if a rule fails."""
        r: _Rule | None = None
        try:
            for r in self.by_hook[hook]:
                if r.when is not None and not r.when(ctx):
                    continue
                seat = r.target(ctx) if r.target else ctx.seat
                if seat is None:
                    continue
                self._check_seat(seat, "target")
                effect = _TRIGGER_EFFECTS.get(r.node.effect)
                if effect is not None:
                    effect(self, r, ctx, seat)
                if fired is not None:
                    fired.append(r.node.id)
        except Exception as e:
            raise self._failed(r, e, ctx) from None

    def _mark(self, r: _Rule, ctx: Any, seat: int) -> None:
        """A ``mark`` rule: ``seat`` gets the flag."""
        ctx.g.flags.setdefault(r.name, set()).add(seat)
        ctx.g.marked_by[(r.name, seat)] = r.node.id  # for explanations: which rule set the flag

    def _unmark(self, r: _Rule, ctx: Any, seat: int) -> None:
        """An ``unmark`` rule: ``seat`` loses the flag."""
        ctx.g.flags.get(r.name, set()).discard(seat)

    def _count(self, r: _Rule, ctx: Any, seat: int) -> None:
        """A ``count`` rule: ``seat``'s counter goes up by the rule's amount."""
        amt = self._amount(r, ctx)
        d = ctx.g.counters.setdefault(r.name, {})
        d[seat] = d.get(seat, 0) + amt

    def _place(self, r: _Rule, ctx: Any, seat: int) -> None:
        """A ``place`` rule: ``seat`` stops playing, placed as the rule answers."""
        how = r.fn(ctx)  # type: ignore[misc]
        if how not in PLACE_TYPE.values:  # type: ignore[attr-defined]
            raise EvalError(_("place answered {how!r}; allowed: {place_words}").format(how=how, place_words=PLACE_WORDS))
        ctx.g.retire(seat, how, r.node.id)

    def _give(self, r: _Rule, ctx: Any, seat: int) -> None:
        """A ``give`` rule: the giver hands ``seat`` the rule's amount of the card kind it answers."""
        giver = r.giver(ctx) if r.giver else ctx.seat
        kind = r.fn(ctx)  # type: ignore[misc]
        amt = self._amount(r, ctx)
        if giver is not None and kind is not None and amt > 0:
            self._check_seat(giver, "giver")
            if kind not in self.model.kinds:
                raise EvalError(_("give answered {kind!r}, which is not a card kind of this ruleset").format(kind=kind))
            ctx.g.transfer(giver, seat, {kind: amt}, r.node.id)

    def _amount(self, r: _Rule, ctx: Any) -> int:
        if r.amount is None:
            return 1
        amt = r.amount(ctx)
        if amt is None:
            raise EvalError(_("its amount is none"))
        if not isinstance(amt, int) or isinstance(amt, bool):
            raise EvalError(_("its amount is {amt!r}, not a whole number").format(amt=amt))
        return amt

    def _check_seat(self, seat: Any, what: str) -> None:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 1 <= seat <= self.n_seats:
            raise EvalError(_("its {what} is {seat!r}, which is not a seat (1 to {n_seats})").format(what=what, seat=seat, n_seats=self.n_seats))


_TRIGGER_EFFECTS: dict[str, Callable[[RuleGraph, _Rule, Any, int], None]] = {
    "mark": RuleGraph._mark, "unmark": RuleGraph._unmark, "count": RuleGraph._count, "place": RuleGraph._place,
    "give": RuleGraph._give}
"""What each effect of a trigger rule does to its target seat."""


def _permit_verdict(effect: str, v: Any) -> Verdict | None:
    """What a permit rule whose expression is ``v`` says: allow / require true allow, deny true / require false forbid."""
    if (effect == "deny" and v) or (effect == "require" and not v):
        return Verdict.FORBADE
    if v and effect in ("allow", "require"):
        return Verdict.ALLOWED
    return None


def _reason(r: _Rule, verdict: Verdict) -> Reason:
    """Rule ``r``'s part in a permit decision."""
    return Reason(r.node.id, verdict, r.node.sentence(), r.node.origin, r.node)


_Check = Callable[[Any], str | None]
"""A check of an answer: None when it fits, else what is wrong with it."""


def _is_seat(v: Any, n_seats: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and 1 <= v <= n_seats


def _bounded_check(bounds: tuple[int, int, str], none: str | None) -> _Check:
    """A whole number from ``lo`` to ``hi`` (``what`` says which)."""
    lo, hi, what = bounds

    def bounded(v: Any) -> str | None:
        if v is None:
            return none
        if isinstance(v, bool) or not isinstance(v, int) or not lo <= v <= hi:
            return _("answered {v!r}, which is not {what}").format(v=v, what=what)
        return None
    return bounded


def _seat_check(n_seats: int, none: str | None) -> _Check:
    """A seat, 1 to ``n_seats``."""
    return lambda v: none if v is None else (None if _is_seat(v, n_seats) else _("answered {v!r}, which is not a seat (1 to {n_seats})").format(
        v=v, n_seats=n_seats))


def _seats_check(n_seats: int, none: str | None) -> _Check:
    """A list of seats (or nones)."""
    def seats(v: Any) -> str | None:
        if v is None:
            return none
        if not isinstance(v, list):
            return _("answered {v!r}, which is not a list of seats").format(v=v)
        for x in v:
            if x is not None and not _is_seat(x, n_seats):
                return _("answered {v!r}: {x!r} is not a seat (1 to {n_seats})").format(v=v, x=x, n_seats=n_seats)
        return None
    return seats


def _word_check(words: tuple[Any, ...], none: str | None) -> _Check:
    """One of the allowed ``words``."""
    return lambda v: none if v is None else (None if v in words else _("answered {v!r}; allowed: {join}").format(
        v=v, join=', '.join(map(repr, words))))


def _number_check(none: str | None) -> _Check:
    """A number."""
    return lambda v: none if v is None else (
        None if isinstance(v, (int, float)) and not isinstance(v, bool) else _("answered {v!r}, which is not a number").format(v=v))


def _answer_check(hook: Hook, n_seats: int) -> _Check | None:
    """A check of a value rule's answer against the question's type (None: nothing to check)."""
    t = strip(hook.type)
    none = None if hook.none_ok else _("answered none, which is not an answer to this question")
    bounds = answer_bounds(hook.name, n_seats)
    if bounds is not None:
        return _bounded_check(bounds, none)
    if t == SEAT:
        return _seat_check(n_seats, none)
    if t == ListOf(SEAT):
        return _seats_check(n_seats, none)
    if isinstance(t, Enum):
        return _word_check(t.values, none)
    if category(t) == "int":
        return _number_check(none)
    if none is not None:
        return lambda v: none if v is None else None
    return None


# ------------------------------------------------------------------------------ compiling


def compile_ruleset(resolved: ResolvedRuleset, *, overlay: dict[str, str] | None = None) -> RuleGraph:
    """Type every setting, check and compile every expression of ``resolved`` into a :class:`RuleGraph`.

    All problems are collected and raised together as one :class:`GoujiError` (positions are
    ``file:line:col`` of the offending text). ``overlay`` maps paths to unsaved text (the editor)
    so error lines show the buffer rather than the file."""
    if not overlay:
        return _compile(resolved)
    with sources.overlaid(overlay):
        return _compile(resolved)


def _compile(resolved: ResolvedRuleset) -> RuleGraph:
    checked = check_rules(resolved)
    typed, model, definitions = checked.typed, checked.model, checked.definitions
    strength = {k: i for i, k in enumerate(model.kinds)}
    compiler = Compiler(strength, {**CONTEXT_VARS, **GLOBAL_VARS}, FUNCTIONS, PLAY_ATTRS, definitions)
    rules = [_compile_rule(node, compiler) for node in checked.nodes]
    graph = RuleGraph(resolved, typed, model, rules, _edges(rules), definitions, compiler, checked.warnings)
    _prune(graph)
    _install_gouji(graph)
    graph._freeze()
    return graph


def _prune(graph: RuleGraph) -> None:
    """Leave out of the questions the rules that can never fire under this ruleset's settings
    (the lint's folding analysis: a guard folded to false, a question never asked, an effect that
    never grants or forbids). They stay in ``nodes`` for display; the hot path never evaluates them."""
    dead = analyse(graph).dead
    drop = {rid for rid, why in dead.items() if why.kind in ("guard", "effect", "hook")}
    graph.pruned = frozenset(drop)
    graph.by_hook = MappingProxyType({h: tuple(r for r in rules if r.node.id not in drop) for h, rules in graph.by_hook.items()})


def _compile_rule(node: RuleNode, compiler: Compiler) -> _Rule:
    c = node.checked

    def comp(part: str) -> Fn | None:
        return compiler.compile(c[part]) if part in c else None
    name = node.expr if node.effect in ("mark", "unmark", "count") else None
    return _Rule(node, comp("when"), comp("effect"), name, comp("target"), comp("amount"), comp("giver"))


def _edges(rules: list[_Rule]) -> list[Edge]:
    edges: list[Edge] = []
    by_phase: dict[str, list[str]] = {}
    for c in rules:
        by_phase.setdefault(c.node.phase, []).append(c.node.id)
        if c.node.overrides is not None:
            edges.append(Edge(c.node.id, f"{c.node.overrides}", "overrides"))
        for b in c.node.before:
            edges.append(Edge(c.node.id, b, "before"))
        for a in c.node.after:
            edges.append(Edge(a, c.node.id, "before"))
    phases = [p for p in PHASES if p in by_phase]
    for p, q in zip(phases, phases[1:]):
        edges.append(Edge(f"phase:{p}", f"phase:{q}", "phase"))
    return edges


def _install_gouji(graph: RuleGraph) -> None:
    ctx = Ctx(None)
    kinds = graph.model.kinds

    def gouji_fn(play: Any) -> bool:
        ctx.play = TablePlay(play, 0, kinds)
        return bool(graph.value(HookName.GOUJI, ctx))
    graph.model.gouji_fn = gouji_fn


def load_graph(name_or_path: str | Path) -> RuleGraph:
    """Resolve and compile a bundled ruleset name or a file path. Raises :class:`GoujiError`."""
    return compile_ruleset(resolve(str(name_or_path)))
