"""Compile a resolved ruleset into an immutable :class:`RuleGraph` and ask it questions.

The graph's nodes are rules (id, hook, guard, effect, source position); its edges are phase order,
``overrides`` (a child rule replacing a parent's) and ``before``/``after``. Every expression is
parsed once and compiled to a closure here; the interpreter only calls closures.
"""
from __future__ import annotations

import contextvars
import functools
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import Diagnostic, DiagnosticBag, GoujiError, SourcePos, did_you_mean, line_of
from gouji_dsl.engine.model import CardModel
from gouji_dsl.lang.expr import Compiled, ExprError, FnSig, RuleRuntimeError, Scope, VarSig, compile_expr, normalize_setting
from gouji_dsl.ruleset.spec import ResolvedRuleset, RuleSpec, Text
from gouji_dsl.ruleset.vocabulary import CONTEXT_VARS, EFFECTS_BY_KIND, FUNCTIONS, GLOBAL_VARS, HOOKS, PHASES, PLAY_ATTRS, Hook


@dataclass(frozen=True)
class RuleNode:
    """One rule of the graph: what it decides and where it was written."""

    id: str
    hook: str
    phase: str
    effect: str
    when: str | None
    expr: str
    says: str | None
    source: str | None
    origin: SourcePos
    file: str
    overrides: SourcePos | None = None
    before: tuple[str, ...] = ()
    after: tuple[str, ...] = ()
    reads: frozenset[str] = frozenset()
    inherited: bool = False

    @property
    def where(self) -> str:
        """``file:line`` of the rule's id."""
        return f"{self.origin.path}:{self.origin.line}"

    def sentence(self) -> str:
        """The player-facing sentence (``says``), or a generated one."""
        if self.says:
            return self.says
        w = f"when {self.when}, " if self.when else ""
        return f"{w}{self.effect} {self.expr}"


@dataclass(frozen=True)
class Reason:
    """One rule's part in a decision: ``verdict`` is ``allowed``, ``forbade``, ``granted``,
    ``answered`` or ``note``; ``rule`` is None for the interpreter's own checks (turn, cards held,
    comparison), whose ``rule_id`` starts with ``engine.`` or ``setting.``. ``pos`` is where the rule
    (or the setting) was written; None for the interpreter's own checks."""

    rule_id: str
    verdict: str
    text: str
    pos: SourcePos | None = None
    rule: RuleNode | None = None

    def __post_init__(self) -> None:
        if self.pos is not None and not isinstance(self.pos, SourcePos):
            raise TypeError(f"Reason.pos must be a SourcePos or None, not {type(self.pos).__name__}")

    @property
    def where(self) -> str:
        """``path:line`` of :attr:`pos` (``""`` when there is none), for display."""
        return self.pos.short if self.pos is not None else ""

    def format(self) -> str:
        loc = f" ({self.where})" if self.where else ""
        return f"[{self.verdict}] {self.rule_id}{loc}: {self.text}"


@dataclass
class _Compiled:
    node: RuleNode
    when: Callable[[Any], Any] | None
    fn: Callable[[Any], Any] | None
    name: str | None = None  # flag / counter for mark/unmark/count
    target: Callable[[Any], Any] | None = None
    amount: Callable[[Any], Any] | None = None
    giver: Callable[[Any], Any] | None = None


@dataclass(frozen=True)
class Edge:
    src: str
    dst: str
    kind: str  # "phase" | "overrides" | "before"


class RuleGraph:
    """An immutable compiled ruleset. Use :func:`compile_ruleset` to build one.

    Attributes: ``name``, ``resolved`` (the :class:`ResolvedRuleset`), ``settings`` (plain values,
    map keys as strings), ``model`` (:class:`CardModel`), ``nodes`` (rules in effective order),
    ``edges``."""

    def __init__(self, resolved: ResolvedRuleset, settings: dict[str, Any], model: CardModel,
                 compiled: list[_Compiled], edges: list[Edge]):
        self.name = resolved.name
        self.resolved = resolved
        self.settings = settings
        self.model = model
        self._rules = compiled
        self.nodes: tuple[RuleNode, ...] = tuple(c.node for c in compiled)
        self.edges: tuple[Edge, ...] = tuple(edges)
        self.by_hook: dict[str, tuple[_Compiled, ...]] = {
            h: tuple(c for c in compiled if c.node.hook == h) for h in HOOKS}
        self.n_seats = int(settings["seats"])
        self.pruned: frozenset[str] = frozenset()
        self.definitions: dict[str, tuple[tuple[str, ...], str, Callable]] = {}

    def compile_expression(self, text: str, context: tuple[str, ...] | None = None) -> Callable[[Any], Any]:
        """Compile an expression against this ruleset (its settings and definitions), e.g.
        ``"headless(seat)"`` for a screen's markers. ``context``: the context variables it may use
        (default: all). Raises :class:`~gouji_dsl.lang.expr.ExprError`."""
        scope = make_scope(self.settings, self.model, tuple(CONTEXT_VARS) if context is None else context)
        scope.definitions = self.definitions
        return compile_expr(text, scope).fn

    def node(self, rule_id: str) -> RuleNode | None:
        for n in self.nodes:
            if n.id == rule_id:
                return n
        return None

    # -------------------------------------------------------------- asking
    def _runtime(self, r: _Compiled, e: Exception) -> GoujiError:
        o = r.node.origin
        return GoujiError(Diagnostic(o.path, o.line, o.col, f"rule {r.node.id!r} failed while the game ran: {e}",
                                     "check the types of the settings this rule reads", _source_line(o.path, o.line)))

    def permit(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> bool:
        """Answer a permit question. With ``trace``, append every rule that granted or forbade.
        Raises :class:`GoujiError` (with the rule's position) if a rule fails at run time."""
        try:
            return self._permit(hook, ctx, trace)
        except RuleRuntimeError as e:
            raise self._runtime(self._failing(hook, ctx), e) from None

    def _failing(self, hook: str, ctx: Any) -> _Compiled:
        for r in self.by_hook[hook]:
            try:
                if (r.when is None or r.when(ctx)) and r.fn is not None:
                    r.fn(ctx)
            except RuleRuntimeError:
                return r
        return self.by_hook[hook][0]

    def _permit(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> bool:
        h = HOOKS[hook]
        granted = bool(h.default)
        forbidden = False
        for r in self.by_hook[hook]:
            if r.when is not None and not r.when(ctx):
                continue
            eff = r.node.effect
            v = r.fn(ctx)
            if eff == "allow":
                if v:
                    granted = True
                    if trace is not None:
                        trace.append(Reason(r.node.id, "allowed", r.node.sentence(), r.node.origin, r.node))
            elif (eff == "deny" and v) or (eff == "require" and not v):
                forbidden = True
                if trace is None:
                    return False
                trace.append(Reason(r.node.id, "forbade", r.node.sentence(), r.node.origin, r.node))
            elif trace is not None and eff == "require":
                trace.append(Reason(r.node.id, "allowed", r.node.sentence(), r.node.origin, r.node))
        return granted and not forbidden

    def value(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> Any:
        """Answer a value question: the last rule (in effective order) whose guard holds.
        Raises :class:`GoujiError` (with the rule's position) if a rule fails at run time."""
        try:
            return self._value(hook, ctx, trace)
        except RuleRuntimeError as e:
            raise self._runtime(self._failing(hook, ctx), e) from None

    def _value(self, hook: str, ctx: Any, trace: list[Reason] | None = None) -> Any:
        for r in reversed(self.by_hook[hook]):
            if r.when is None or r.when(ctx):
                v = r.fn(ctx)
                if trace is not None:
                    trace.append(Reason(r.node.id, "answered", f"{r.node.sentence()} → {v!r}", r.node.origin, r.node))
                return v
        return HOOKS[hook].default

    def has_rules(self, hook: str) -> bool:
        return bool(self.by_hook[hook])

    def trigger(self, hook: str, ctx: Any, fired: list[str] | None = None) -> None:
        """Run every matching rule of a trigger hook, in order: mark / unmark / count per-seat
        state, ``place`` a seat (it stops playing), ``give`` cards from one seat to another."""
        g = ctx.g
        for r in self.by_hook[hook]:
            if r.when is not None and not r.when(ctx):
                continue
            seat = r.target(ctx) if r.target else ctx.seat
            if seat is None:
                continue
            eff = r.node.effect
            if eff == "mark":
                g.flags.setdefault(r.name, set()).add(seat)
            elif eff == "unmark":
                g.flags.get(r.name, set()).discard(seat)
            elif eff == "count":
                amt = r.amount(ctx) if r.amount else 1
                d = g.counters.setdefault(r.name, {})
                d[seat] = d.get(seat, 0) + int(amt or 0)
            elif eff == "place":
                g.retire(seat, str(r.fn(ctx)), r.node.id)
            elif eff == "give":
                giver = r.giver(ctx) if r.giver else ctx.seat
                kind = r.fn(ctx)
                amt = int(r.amount(ctx)) if r.amount else 1
                if giver is not None and kind is not None and amt > 0:
                    g.transfer(giver, seat, {str(kind): amt}, r.node.id)
            if fired is not None:
                fired.append(r.node.id)


# ------------------------------------------------------------------------------ compiling
def _source_line(path: str, line: int) -> str | None:
    try:
        return line_of(_read(path), line)
    except OSError:
        return None


@functools.lru_cache(maxsize=64)
def _read_cached(path: str, mtime: float) -> str:
    return Path(path).read_text(encoding="utf-8")


_overlay: dict[str, str] = {}
_resolved_settings: contextvars.ContextVar[dict[str, Any]] = None  # set below
_overlay_lock = threading.Lock()
_resolved_settings = contextvars.ContextVar("resolved_settings", default={})  # noqa: B039 - never mutated


def _read(path: str) -> str:
    if path in _overlay:
        return _overlay[path]
    p = Path(path)
    return _read_cached(str(p), p.stat().st_mtime)


def _pos(text: Text, offset: int) -> tuple[int, int]:
    try:
        from gouji_dsl.ruleset.loader import position_in
        return position_in(text, offset)
    except Exception:
        return text.origin.line, text.origin.col + offset


def _diag(text: Text, e: ExprError, what: str) -> Diagnostic:
    line, col = _pos(text, e.offset)
    return Diagnostic(text.origin.path, line, col, f"{what}: {e.message}", e.hint,
                      _source_line(text.origin.path, line))


def _settings_diag(resolved: ResolvedRuleset, name: str, message: str) -> Diagnostic:
    s = resolved.settings.get(name)
    if s is not None:
        o = s.origin
        return Diagnostic(o.path, o.line, o.col, message, None, _source_line(o.path, o.line))
    return Diagnostic(resolved.path, 1, 1, message, f"add settings.{name} to the ruleset or a parent")


def make_scope(settings: dict[str, Any], model: CardModel, context: tuple[str, ...]) -> Scope:
    """The expression scope for a hook with the given context variables."""
    variables: dict[str, VarSig] = dict(GLOBAL_VARS)
    for v in context:
        variables[v] = CONTEXT_VARS[v]
    strength = {k: i for i, k in enumerate(model.kinds)}
    return Scope(variables=variables, functions=dict(FUNCTIONS), attrs={"play": PLAY_ATTRS},
                 settings=settings, rank_strength=strength)


def compile_ruleset(resolved: ResolvedRuleset, *, overlay: dict[str, str] | None = None) -> RuleGraph:
    """Check and compile every expression of ``resolved`` into a :class:`RuleGraph`.

    All problems are collected and raised together as one :class:`GoujiError` (positions are
    ``file:line:col`` of the offending text). ``overlay`` maps paths to unsaved text (the editor)
    so error lines show the buffer rather than the file."""
    if not overlay:
        return _compile(resolved)
    with _overlay_lock:
        _overlay.update(overlay)
        try:
            return _compile(resolved)
        finally:
            for k in overlay:
                _overlay.pop(k, None)


def _compile(resolved: ResolvedRuleset) -> RuleGraph:
    _resolved_settings.set(resolved.settings)
    bag = DiagnosticBag()
    settings = {k: normalize_setting(s.value) for k, s in resolved.settings.items()}
    for name in ("seats", "teams"):
        v = settings.get(name)
        if v is None:
            bag.add(_settings_diag(resolved, name, f"setting {name!r} is required (a whole number)"))
        elif not isinstance(v, int) or isinstance(v, bool) or v < 1:
            d = _settings_diag(resolved, name, f"setting {name!r} must be a whole number, got {v!r}")
            bag.add(Diagnostic(d.path, d.line, d.col, d.message, f"write {name}: 6 (a number, no quotes)", d.source_line))
    if isinstance(settings.get("seats"), int) and isinstance(settings.get("teams"), int) \
            and settings["teams"] >= 1 and settings["seats"] % settings["teams"]:
        bag.add(_settings_diag(resolved, "teams", "seats must split evenly into teams"))
    bag.extend(_setting_type_diags(resolved))
    bag.raise_if_errors()
    try:
        model = CardModel.from_settings(settings)
    except (ValueError, TypeError) as e:
        bad = getattr(e, "setting", None) or "ranks"
        d = _settings_diag(resolved, bad, f"card settings: {e}")
        bag.add(Diagnostic(d.path, d.line, d.col, d.message, getattr(e, "hint", None) or d.hint, d.source_line))
        bag.raise_if_errors()
        raise  # pragma: no cover

    # definitions: compile on demand (so order does not matter), detect cycles
    defs = resolved.definitions
    compiled_defs: dict[str, tuple[tuple[str, ...], str, Callable]] = {}
    in_progress: set[str] = set()
    all_context = tuple(CONTEXT_VARS)

    class _LazyDefs(dict):
        def __contains__(self, k):  # type: ignore[override]
            return k in defs

        def __getitem__(self, k):
            return get_def(k)

        def __iter__(self):
            return iter(defs)

        def keys(self):
            return defs.keys()

    def get_def(name: str):
        if name in compiled_defs:
            return compiled_defs[name]
        d = defs[name]
        if name in in_progress:
            raise ExprError(f"definition {name!r} refers to itself", 0)
        in_progress.add(name)
        try:
            scope = make_scope(settings, model, all_context)
            scope.definitions = lazy
            scope.params = {p: "any" for p in d.params}
            c = compile_expr(d.expr.text, scope)
        except ExprError as e:
            bag.add(_diag(d.expr, e, f"in definition {name!r}"))
            c = Compiled("any", lambda ctx: None)
        finally:
            in_progress.discard(name)
        fn = c.fn
        if d.params:
            def call(ctx, *args, fn=fn):
                saved = ctx.args
                ctx.args = args
                try:
                    return fn(ctx)
                finally:
                    ctx.args = saved
        else:
            def call(ctx, fn=fn):
                return fn(ctx)
        compiled_defs[name] = (d.params, c.type, call)
        return compiled_defs[name]

    lazy = _LazyDefs()
    for name in defs:
        try:
            get_def(name)
        except ExprError as e:  # cycle reported at the outer definition
            bag.add(_diag(defs[name].expr, e, f"in definition {name!r}"))

    compiled: list[_Compiled] = []
    ids = {r.id for r in resolved.rules}
    for spec in resolved.rules:
        c = _compile_rule(spec, settings, model, lazy, bag, ids)
        if c is not None:
            compiled.append(c)

    bag.raise_if_errors()
    edges = _edges(compiled)
    graph = RuleGraph(resolved, settings, model, compiled, edges)
    graph.definitions = dict(compiled_defs)
    _prune(graph)
    _install_gouji(graph)
    return graph


def _prune(graph: RuleGraph) -> None:
    """Leave out of the questions the rules that can never fire under this ruleset's settings
    (the lint's analysis: a guard folded to false, a question never asked, an effect that never
    grants or forbids). They stay in ``nodes`` for display; the hot path never evaluates them."""
    from gouji_dsl.ruleset.lint import analyse
    try:
        dead = analyse(graph).dead
    except Exception:
        return
    drop = {rid for rid, why in dead.items() if why.kind in ("guard", "effect", "hook")}
    graph.pruned = frozenset(drop)
    graph.by_hook = {h: tuple(c for c in rules if c.node.id not in drop) for h, rules in graph.by_hook.items()}


def _kind_of(v: Any) -> str | None:
    if v is None:
        return None
    if isinstance(v, bool):
        return "true/false"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "text"
    if isinstance(v, dict):
        return "a mapping"
    if isinstance(v, list):
        return "a list"
    return type(v).__name__


def _type_clash(own: Any, parent: Any, path: str) -> tuple[str, str, str] | None:
    """The first place where ``own`` has another kind of value than ``parent`` (None: no clash)."""
    a, b = _kind_of(own), _kind_of(parent)
    if a is None or b is None:
        return None
    if a != b:
        return path, a, b
    if isinstance(own, dict):
        for k, v in own.items():
            if k in parent:
                hit = _type_clash(v, parent[k], f"{path}.{k}")
                if hit:
                    return hit
            elif parent and v is not None:
                kinds = {_kind_of(x) for x in parent.values()} - {None}
                if len(kinds) == 1 and _kind_of(v) not in kinds:
                    return f"{path}.{k}", _kind_of(v) or "none", kinds.pop()
    if isinstance(own, list) and own and parent:
        kinds = {_kind_of(x) for x in parent} - {None}
        if len(kinds) == 1:
            for i, v in enumerate(own):
                if v is not None and _kind_of(v) not in kinds:
                    return f"{path}[{i}]", _kind_of(v) or "none", kinds.pop()
    return None


def _short_path(path: str) -> str:
    """A bundled file as ``<bundled>/NAME.yaml`` (not a path into site-packages); others as given."""
    from gouji_dsl.resources import rules_dir
    try:
        if Path(path).resolve().parent == rules_dir().resolve():
            return f"<bundled>/{Path(path).name}"
    except OSError:
        pass
    return path


def _setting_type_diags(resolved: ResolvedRuleset) -> list[Diagnostic]:
    """A setting a child changes must keep the kind of value its parent gave it (a number stays a
    number, text stays text...): ``place_points: {1: four}`` is caught at the child's line instead of
    failing in a parent's rule while the game runs."""
    if len(resolved.chain) < 2:
        return []
    from gouji_dsl.ruleset.loader import resolve
    try:
        parent = resolve(resolved.chain[1])
    except GoujiError:
        return []
    out = []
    for name, spec in resolved.settings.items():
        if spec.inherited or name not in parent.settings:
            continue
        own = normalize_setting(spec.value)
        hit = _type_clash(own, normalize_setting(parent.settings[name].value), name)
        if hit is None:
            continue
        where, got, want = hit
        first_key = where[len(name) + 1:].split(".")[0].split("[")[0]
        o = spec.key_origins.get(first_key, spec.origin) if first_key else spec.origin
        po = parent.settings[name].origin
        hint = f"the parent sets it at {_short_path(po.path)}:{po.line}"
        if want == "text":
            hint += "; ranks are quoted text such as '3'"
        out.append(Diagnostic(o.path, o.line, o.col, f"setting {where} is {got} here, but {want} in the parent",
                              hint, _source_line(o.path, o.line)))
    return out


def _settings_hint(spec: RuleSpec, resolved_settings: dict[str, Any]) -> str | None:
    """Where the settings a failing rule reads were set, when that is another file than the rule's."""
    import re
    texts = " ".join(t.text for t in (spec.when, spec.effect_expr, spec.target, spec.amount) if t is not None)
    notes = []
    for name in dict.fromkeys(re.findall(r"settings\.([a-z_][a-z0-9_]*)", texts)):
        st = resolved_settings.get(name)
        if st is not None and st.origin.path != spec.origin.path:
            notes.append(f"settings.{name} is set at {_short_path(st.origin.path)}:{st.origin.line}")
    return "; ".join(notes) or None


def _compile_rule(spec: RuleSpec, settings, model, lazy, bag: DiagnosticBag, ids: set[str]) -> _Compiled | None:
    hook_name = spec.on.text
    hook = HOOKS.get(hook_name)
    if hook is None:
        o = spec.on.origin
        bag.add(Diagnostic(o.path, o.line, o.col, f"unknown hook {hook_name!r} in rule {spec.id!r}",
                           did_you_mean(hook_name, HOOKS) or "hooks: " + ", ".join(HOOKS),
                           _source_line(o.path, o.line)))
        return None
    allowed = EFFECTS_BY_KIND[hook.kind]
    if spec.effect not in allowed:
        o = spec.effect_expr.origin
        bag.add(Diagnostic(o.path, o.line, max(o.col, 1),
                           f"rule {spec.id!r}: hook {hook_name!r} takes {' / '.join(allowed)}, not {spec.effect!r}",
                           f"{hook_name} is a {hook.kind} question: {hook.doc}", _source_line(o.path, o.line)))
        return None
    scope = make_scope(settings, model, hook.context)
    scope.definitions = lazy
    ok = True

    def comp(text: Text | None, want: str | None, what: str):
        nonlocal ok
        if text is None:
            return None, frozenset()
        try:
            c = compile_expr(text.text, scope, want=want)
            return c.fn, c.reads
        except ExprError as e:
            missing = _context_hint(e, hook)
            if missing:
                e = ExprError(e.message, e.offset, missing)
            where = _settings_hint(spec, _resolved_settings.get())
            if where:
                e = ExprError(e.message, e.offset, f"{e.hint}; {where}" if e.hint else where)
            bag.add(_diag(text, e, f"rule {spec.id!r} {what}"))
            ok = False
            return None, frozenset()

    when_fn, r1 = comp(spec.when, "bool", "when")
    fn = None
    r2: frozenset[str] = frozenset()
    name = None
    if hook.kind == "trigger" and spec.effect in ("mark", "unmark", "count"):
        name = spec.effect_expr.text
    elif spec.effect == "place":
        fn, r2 = comp(spec.effect_expr, "str", "place")
    elif spec.effect == "give":
        fn, r2 = comp(spec.effect_expr, "rank", "give")
    else:
        want = "bool" if hook.kind == "permit" else hook.type
        if want == "str":
            want = None
        fn, r2 = comp(spec.effect_expr, want, spec.effect)
    target_fn, r3 = comp(spec.target, "seat", "target")
    amount_fn, r4 = comp(spec.amount, "int", "amount")
    giver_fn, r5 = comp(spec.giver, "seat", "giver")
    for rel in (*spec.before, *spec.after):
        if rel not in ids:
            o = spec.origin
            bag.add(Diagnostic(o.path, o.line, o.col, f"rule {spec.id!r}: before/after names unknown rule {rel!r}",
                               did_you_mean(rel, ids), _source_line(o.path, o.line)))
            ok = False
    if not ok:
        return None
    node = RuleNode(id=spec.id, hook=hook_name, phase=hook.phase, effect=spec.effect,
                    when=spec.when.text if spec.when else None, expr=spec.effect_expr.text,
                    says=spec.says, source=spec.source, origin=spec.origin, file=spec.file or spec.origin.path,
                    overrides=spec.overrides, before=spec.before, after=spec.after,
                    reads=frozenset(r1 | r2 | r3 | r4 | r5), inherited=spec.inherited)
    return _Compiled(node, when_fn, fn, name, target_fn, amount_fn, giver_fn)


def _context_hint(e: ExprError, hook: Hook) -> str | None:
    msg = e.message
    for v in CONTEXT_VARS:
        if f"unknown name {v!r}" in msg and v not in hook.context:
            avail = ", ".join(hook.context) or "none"
            return f"{v!r} is not known when the {hook.name!r} question is asked (available here: {avail})"
    return None


def _edges(compiled: list[_Compiled]) -> list[Edge]:
    edges: list[Edge] = []
    by_phase: dict[str, list[str]] = {}
    for c in compiled:
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
    from gouji_dsl.engine.interpreter import Ctx, TablePlay

    ctx = Ctx(None)
    kinds = graph.model.kinds

    def gouji_fn(play) -> bool:
        ctx.play = TablePlay(play, 0, kinds)
        return bool(graph.value("gouji", ctx))
    graph.model.gouji_fn = gouji_fn


def load_graph(name_or_path: str | Path) -> RuleGraph:
    """Resolve and compile a bundled ruleset name or a file path. Raises :class:`GoujiError`."""
    from gouji_dsl.ruleset.loader import resolve
    return compile_ruleset(resolve(str(name_or_path)))


_ = (field, FnSig, GoujiError)
