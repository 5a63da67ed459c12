"""What can happen under a compiled ruleset's settings: which rules can never fire and why, which
flags and counters some live rule sets, whether tribute is paid and of which kinds, which settings
(and keys) the rules read. :func:`analyse` builds an :class:`Analysis`.

Used by the lint (:mod:`gouji_dsl.ruleset.lint`, whose findings read it), by the rule graph to prune
rules that can never fire, and by :mod:`gouji_dsl.tools.doc` to leave them out of the rulebook.

The analysis folds the checked expression trees (:class:`gouji_dsl.lang.fold.Folder`: the same
operator table as the compiled closures), with what it knows of the ruleset as
:class:`~gouji_dsl.lang.fold.Facts`: which flags and counters a live rule can set, the tribute kinds;
a rule's guard that is constant once the settings are folded in makes the rule dead (a value rule
is also dead when a later rule of its question always answers instead). The flags a live rule can
set are found by a fixpoint: every flag may be set at first, and rules that can never fire stop
counting until nothing changes.
"""
from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from enum import StrEnum
from typing import TYPE_CHECKING, Any

from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.i18n import _
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.fold import Facts, Folder, K, U, truthy
from gouji_dsl.lang.types import Nullable, Record
from gouji_dsl.resources import display_path
from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, HOOKS, MAYBE_NONE_ATTRS, MAYBE_NONE_FUNCTIONS, MAYBE_NONE_GLOBALS, PLAY_ATTRS, HookKind
from gouji_dsl.ruleset.settings import engine_types, normalize_setting
from gouji_dsl.ruleset.spec import RuleSpec

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.ruleset.graph import RuleGraph, RuleNode

__all__ = ["analyse", "Analysis", "Why", "Dead", "Cause", "ENGINE_SETTINGS", "ENGINE_FLAGS", "TRIBUTE_HOOKS", "KIND_HOOKS", "ALL",
           "walk_with_defs", "norm", "short", "where"]


def _engine_settings() -> dict[str, frozenset[str] | None]:
    out: dict[str, frozenset[str] | None] = {}
    for name, (t, _doc) in engine_types().items():
        t = t.inner if isinstance(t, Nullable) else t
        out[name] = frozenset(t.names) if isinstance(t, Record) else None
    return out


ENGINE_SETTINGS: dict[str, frozenset[str] | None] = _engine_settings()
"""Settings the interpreter reads itself (the card model, the table), with the keys it reads of the
record ones (None: not a record, or every key); from the engine's declared interface."""

ENGINE_FLAGS: frozenset[str] = frozenset({"declared", "chose_head", "chose_headless"})
"""Flags the interpreter sets itself (declare and choose moves)."""

TRIBUTE_HOOKS: frozenset[str] = frozenset({"tribute_kinds", "tribute", "tribute_card", "return_tribute"})
KIND_HOOKS: frozenset[str] = frozenset({"tribute", "return_tribute"})
ALL = None  # "every key" in a reads table
_MAYBE_NONE = MAYBE_NONE_GLOBALS | MAYBE_NONE_ATTRS | MAYBE_NONE_FUNCTIONS
_PARTS = ("when", "effect", "target", "amount", "giver")


def norm(text: str | None) -> str | None:
    """An expression text without its white space (how two rules' texts are compared)."""
    return None if text is None else "".join(text.split())


# ================================================================================= why a rule is dead
class Dead(StrEnum):
    """What makes a rule dead (:attr:`Why.kind`)."""

    GUARD = "guard"  # its guard is always false
    EFFECT = "effect"  # a permit rule that never grants / never forbids
    HOOK = "hook"  # its question is never asked (tribute in a one-game match)
    SHADOWED = "shadowed"  # a later value rule of its question always answers instead


class Cause(StrEnum):
    """What a dead rule's constant depends on (:attr:`Why.cause`)."""

    SETTINGS = "settings"  # the settings' values (and the tribute kinds)
    FLAGS = "flags"  # a flag or counter that no rule that can fire sets
    CONSTANT = "constant"  # nothing: the expression is constant whatever the settings
    RULES = "rules"  # another rule (shadowing)


@dataclass(frozen=True)
class Why:
    """Why a rule can never fire. ``kind``: a :class:`Dead` (for ``shadowed``, ``by`` is the id of
    the later rule that answers instead); ``cause``: a :class:`Cause`; ``detail`` says which values
    make it so; ``expr`` / ``tree``: the expression concerned (text / checked tree)."""

    kind: Dead
    message: str
    cause: Cause = Cause.SETTINGS
    by: str | None = None
    expr: str | None = None
    detail: str | None = None
    tree: A.Node | None = field(default=None, compare=False, repr=False)


def walk_with_defs(tree: A.Node, defs: Any) -> Iterator[A.Node]:
    """Every node of ``tree`` and of the definitions it uses (each definition once)."""
    seen: set[str] = set()
    todo = [tree]
    while todo:
        for n in A.walk(todo.pop()):
            yield n
            name = n.name if isinstance(n, A.Name) and n.ref == A.Ref.DEFINITION else \
                n.func if isinstance(n, A.Call) and n.ref == A.Ref.DEFINITION else None
            if name is not None and name not in seen:
                seen.add(name)
                info = defs.get(name)
                if info is not None and info.body is not None:
                    todo.append(info.body)


@dataclass
class Analysis:
    """What can happen under a compiled ruleset's settings. Build with :func:`analyse`.

    ``dead``: rule id -> :class:`Why` for every rule that can never fire; ``inert``: value rules whose
    answer is a setting at the question's neutral value (e.g. a one-game match); ``flags``: the flags
    some live rule or the engine sets; ``tribute_kinds``: the kinds tribute may be paid of (None:
    unknown); ``tribute_paid``: whether between-game tribute can happen; ``rule_settings``: rule id ->
    settings its expressions read (through definitions too); ``reads``: setting -> keys read (None:
    the whole value); ``used_definitions``."""

    graph: RuleGraph
    unknown_settings: frozenset[str] = frozenset()
    dead: dict[str, Why] = field(default_factory=dict)
    inert: set[str] = field(default_factory=set)
    flags: frozenset[str] | None = None
    counters: frozenset[str] | None = None
    tribute_kinds: frozenset[str] | None = None
    tribute_paid: bool = True
    rule_settings: dict[str, frozenset[str]] = field(default_factory=dict)
    reads: dict[str, set[str] | None] = field(default_factory=dict)
    used_definitions: set[str] = field(default_factory=set)

    # ------------------------------------------------------------------ set-up
    def __post_init__(self) -> None:
        g = self.graph
        self.resolved = g.resolved
        self.specs: dict[str, RuleSpec] = {r.id: r for r in g.resolved.rules}
        self.defs = g.definitions
        self.kinds = tuple(g.model.kinds)
        self.strength = {k: i for i, k in enumerate(self.kinds)}
        self._scan_reads()
        self._run()

    def texts(self, rule_id: str) -> list[str]:
        """Every expression text of a rule (guard, effect, target, amount, giver)."""
        s = self.specs[rule_id]
        out = [t.text for t in (s.when, s.target, s.amount, s.giver) if t is not None]
        if s.effect not in ("mark", "unmark", "count"):
            out.append(s.effect_expr.text)
        return out

    def trees(self, rule_id: str) -> list[A.Node]:
        """Every checked expression tree of a rule."""
        n = self.graph.node(rule_id)
        return [] if n is None else [n.checked[p] for p in _PARTS if p in n.checked]

    def _scan_reads(self) -> None:
        used: set[str] = set()
        for n in self.graph.nodes:
            names: set[str] = set()
            for p in _PARTS:
                if p not in n.checked:
                    continue
                for x in walk_with_defs(n.checked[p], self.defs):
                    if isinstance(x, A.Setting):
                        names.add(x.name)
                        key = x.path[0] if x.path else None
                        if key is None or x.name in self.reads and self.reads[x.name] is ALL:
                            self.reads[x.name] = ALL
                        else:
                            self.reads.setdefault(x.name, set()).add(str(key))  # type: ignore[union-attr]
                    elif isinstance(x, A.Name) and x.ref == A.Ref.DEFINITION:
                        used.add(x.name)
                    elif isinstance(x, A.Call) and x.ref == A.Ref.DEFINITION:
                        used.add(x.func)
            self.rule_settings[n.id] = frozenset(names)
        self.used_definitions = used

    # ------------------------------------------------------------------ folding
    def facts(self, hook: str, *, optimistic: bool = False) -> Facts:
        h = HOOKS[hook]
        kinds = self.tribute_kinds if hook in KIND_HOOKS else None
        return Facts(flags=None if optimistic else self.flags, counters=None if optimistic else self.counters,
                     tribute_kinds=kinds, unknown_settings=self.unknown_settings, maybe_none=_MAYBE_NONE,
                     hook_maybe_none=frozenset(h.maybe_none))

    def eval_tree(self, tree: A.Node | None, hook: str, *, optimistic: bool = False) -> K | U:
        """The folded value of a checked tree asked in ``hook`` (``K(True)`` for no tree: no guard)."""
        if tree is None:
            return K(True)
        folder = Folder(self.strength, FUNCTIONS, PLAY_ATTRS, self.defs, self.facts(hook, optimistic=optimistic))
        return folder.fold(tree)

    @staticmethod
    def part(n: RuleNode, name: str) -> A.Node | None:
        """The checked tree of part ``name`` (``when``, ``effect``...) of rule node ``n``, or None."""
        return n.checked.get(name) if n.checked else None

    # ------------------------------------------------------------------ the fixpoint
    def _run(self) -> None:
        nodes = self.graph.nodes
        self.flags, self.counters = None, None  # optimistic: every flag may be set
        for _round in range(len(nodes) + 2):
            self._tribute_state()
            dead: dict[str, Why] = {}
            for n in nodes:
                why = self._why(n)
                if why is not None:
                    dead[n.id] = why
            self.dead = dead
            self._shadowing()
            flags = ENGINE_FLAGS | {self.specs[n.id].effect_expr.text for n in nodes
                                    if n.effect == "mark" and n.id not in self.dead}
            counters = frozenset(self.specs[n.id].effect_expr.text for n in nodes
                                 if n.effect == "count" and n.id not in self.dead)
            if flags == self.flags and counters == self.counters:
                break
            self.flags, self.counters = frozenset(flags), counters
        self._inert()

    def _answers(self, hook: str) -> list[K] | None:
        """Possible answers of a value hook (None when some answer is unknown); the default is
        included unless a rule always answers."""
        out: list[K] = []
        always = False
        for n in self.graph.nodes:
            if n.hook != hook:
                continue
            g = self.eval_tree(self.part(n, "when"), hook)
            if truthy(g) is False:
                continue
            v = self.eval_tree(self.part(n, "effect"), hook)
            if isinstance(v, U):
                return None
            out.append(v)
            if truthy(g) is True:
                out = [v]
                always = True
        if not always:
            out.append(K(HOOKS[hook].default))
        return out

    def _tribute_state(self) -> None:
        games = self._answers("match_length")
        paid = True
        if games is not None:
            try:
                paid = any(int(a.v or 1) > 1 for a in games)
            except (TypeError, ValueError):
                paid = True
        self.tribute_kinds = None
        kinds = self._answers("tribute_kinds")
        if kinds is not None and all(isinstance(a.v, list) or a.v is None for a in kinds):
            self.tribute_kinds = frozenset(str(k) for a in kinds for k in (a.v or []))
        self.tribute_paid = paid

    def _why(self, n: RuleNode) -> Why | None:
        if n.hook in TRIBUTE_HOOKS and not self.tribute_paid:
            return Why(Dead.HOOK, _("tribute is never paid: a match is a single game (match_length)"))
        if n.hook in TRIBUTE_HOOKS - {"tribute_kinds"} and self.tribute_kinds is not None and not self.tribute_kinds:
            return Why(Dead.HOOK, _("tribute is never paid: there are no tribute kinds (tribute_kinds)"))
        hook = n.hook
        when = self.part(n, "when")
        if when is not None:
            g = self.eval_tree(when, hook)
            if truthy(g) is False:
                return self._explain(Dead.GUARD, n.when, when, hook, _("its guard `{short}` is always false").format(short=short(n.when)))
        if HOOKS[hook].kind == HookKind.PERMIT:
            eff = self.part(n, "effect")
            t = truthy(self.eval_tree(eff, hook))
            if n.effect == "allow" and t is False:
                return self._explain(Dead.EFFECT, n.expr, eff, hook, _("it never allows anything (`allow: {short}` is always false)").format(
                    short=short(n.expr)))
            if n.effect == "deny" and t is False:
                return self._explain(Dead.EFFECT, n.expr, eff, hook, _("it never forbids anything (`deny: {short}` is always false)").format(
                    short=short(n.expr)))
            if n.effect == "require" and t is True:
                return self._explain(Dead.EFFECT, n.expr, eff, hook, _("it never forbids anything (`require: {short}` is always true)").format(
                    short=short(n.expr)))
        return None

    def _explain(self, kind: Dead, text: str | None, tree: A.Node | None, hook: str, message: str) -> Why:
        """Say what makes ``tree`` constant: flags never set, tribute kinds, settings' values."""
        optimistic = truthy(self.eval_tree(tree, hook, optimistic=True))
        if optimistic is None and self.flags is not None:
            missing = sorted(f for f in self.flag_names(tree) if f not in self.flags)
            missing_c = sorted(c for c in self.counter_names(tree) if self.counters is not None and c not in self.counters)
            parts = [_("flag {f!r}").format(f=f) for f in missing] + [_("counter {c!r}").format(c=c) for c in missing_c]
            what = " and ".join(parts) or _("a flag")
            return Why(kind, _("{message}: {what} is never set (no rule that can fire marks it)").format(
                message=message, what=what), Cause.FLAGS, expr=text, tree=tree)
        details = []
        for what in self._relevant(tree, hook):
            if what == "kind":
                details.append(_("tribute is paid only of kinds ") + (", ".join(sorted(self.tribute_kinds or ())) or "none"))
            else:
                details.append(_("settings.{what} is {show}").format(what=what, show=_show(self.setting_value(what))))
        cause = Cause.SETTINGS if details else Cause.CONSTANT
        return Why(kind, message + (" (" + "; ".join(details) + ")" if details else ""), cause, expr=text, tree=tree)

    def setting_value(self, path: str) -> Any:
        """The value of ``NAME`` or ``NAME.KEY`` (as written, map keys as text)."""
        name, _, key = path.partition(".")
        v = normalize_setting(self.graph.settings.get(name))
        if key:
            v = v.get(key) if isinstance(v, dict) else None
        return v

    def _relevant(self, tree: A.Node | None, hook: str) -> list[str]:
        """The settings (``NAME`` or ``NAME.KEY``) and ``kind`` whose value makes ``tree`` constant:
        those that, made unknown one at a time, leave it unknown (all of them when none alone does)."""
        if tree is None:
            return []
        cands: list[str] = []
        reads_kind = False
        for x in walk_with_defs(tree, self.defs):
            if isinstance(x, A.Setting):
                cands.append(x.name + (f".{x.path[0]}" if x.path else ""))
            elif isinstance(x, A.Name) and x.name == "kind" and x.ref == A.Ref.CONTEXT:
                reads_kind = True
        if hook in KIND_HOOKS and self.tribute_kinds is not None and reads_kind:
            cands.append("kind")
        cands = [c for c in dict.fromkeys(cands) if c.partition(".")[0] not in self.unknown_settings]
        out = []
        for c in cands:
            saved_u, saved_k = self.unknown_settings, self.tribute_kinds
            try:
                if c == "kind":
                    self.tribute_kinds = None
                else:
                    self.unknown_settings = saved_u | {c}
                if truthy(self.eval_tree(tree, hook)) is None:
                    out.append(c)
            finally:
                self.unknown_settings, self.tribute_kinds = saved_u, saved_k
        return out or cands[:4]

    def _named(self, tree: A.Node | None, which: str) -> set[str]:
        out: set[str] = set()
        if tree is None:
            return out
        for x in walk_with_defs(tree, self.defs):
            if isinstance(x, A.Call) and x.ref == A.Ref.FUNCTION:
                at = getattr(FUNCTIONS[x.func], which)
                if at is not None and at < len(x.args):
                    arg = x.args[at]
                    if isinstance(arg, A.Literal) and isinstance(arg.value, str):
                        out.add(arg.value)
        return out

    def flag_names(self, tree: A.Node | None) -> set[str]:
        """Flags a tree names (literal arguments of flag functions, through definitions)."""
        return self._named(tree, "flag_arg")

    def counter_names(self, tree: A.Node | None) -> set[str]:
        """Counters a tree names."""
        return self._named(tree, "counter_arg")

    def _shadowing(self) -> None:
        """A value rule is dead when a later live rule of its hook always answers, or has the same
        guard (the last matching rule wins). Linear: each rule looks at the nearest such later rule."""
        by_hook: dict[str, list[RuleNode]] = {}
        for n in self.graph.nodes:
            if HOOKS[n.hook].kind == HookKind.VALUE and n.id not in self.dead:
                by_hook.setdefault(n.hook, []).append(n)
        for hook, rules in by_hook.items():
            # the first later rule that always answers, or answers with the same guard (linear:
            # scanning from the last rule, the nearest later rule of each guard is at hand)
            size = len(rules)
            checked = [_guard_key(r) for r in rules]  # the checked guard tree (None: not checked)
            norms = [norm(r.when) for r in rules]
            always = [r.when is None or truthy(self.eval_tree(self.part(r, "when"), hook)) is True for r in rules]
            next_always = size
            by_checked: dict[str, int] = {}
            by_norm_unchecked: dict[str | None, int] = {}
            by_norm: dict[str | None, int] = {}
            firsts: list[int] = [size] * size
            for i in range(size - 1, -1, -1):
                key = checked[i]
                if key is not None:
                    same = min(by_checked.get(key, size), by_norm_unchecked.get(norms[i], size))
                else:
                    same = by_norm.get(norms[i], size)
                firsts[i] = min(next_always, same)
                if always[i]:
                    next_always = i
                if key is not None:
                    by_checked[key] = i
                else:
                    by_norm_unchecked[norms[i]] = i
                by_norm[norms[i]] = i
            for i, a in enumerate(rules):
                if firsts[i] >= size:
                    continue
                b = rules[firsts[i]]
                detail = _("no guard") if b.when is None else (_("the same guard") if _same(a, b) else _("a guard that always holds"))
                self.dead[a.id] = Why(Dead.SHADOWED, _("the later rule {id!r} ({where}) answers "
                                      "{hook!r} with {detail}, and the last matching rule wins").format(
                                          id=b.id, where=where(b.origin), hook=hook, detail=detail), Cause.RULES, b.id,
                                      detail=detail)

    def _inert(self) -> None:
        seen: set[str] = set()  # hooks with an earlier live rule: returning the default there overrides it
        for n in self.graph.nodes:
            h = HOOKS[n.hook]
            if h.kind != HookKind.VALUE or n.id in self.dead:
                continue
            first = n.hook not in seen
            seen.add(n.hook)
            eff = self.part(n, "effect")
            if not first or eff is None or not any(isinstance(x, A.Setting) for x in A.walk(eff)):
                continue
            v = self.eval_tree(eff, n.hook)
            if isinstance(v, K) and v.v == h.default and truthy(self.eval_tree(self.part(n, "when"), n.hook)) is not False:
                self.inert.add(n.id)


def _guard_key(r: RuleNode) -> str | None:
    """The checked guard of a rule as text (None when it has no checked guard): :func:`_same`'s key."""
    t = r.checked.get("when") if r.checked else None
    return A.unparse(t) if t is not None else None


def _same(a: RuleNode, b: RuleNode) -> bool:
    """Two rules with the same guard (the same checked tree, or both none)."""
    ta, tb = a.checked.get("when") if a.checked else None, b.checked.get("when") if b.checked else None
    if ta is None or tb is None:
        return norm(a.when) == norm(b.when)
    return A.unparse(ta) == A.unparse(tb)


def short(text: str | None, limit: int = 70) -> str:
    """``text`` on one line, cut to ``limit`` characters (with an ellipsis), to quote in a message."""
    t = " ".join((text or "").split())
    return t if len(t) <= limit else t[: limit - 1] + "…"


def _show(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, str):
        return repr(v)
    if isinstance(v, list):
        return "[" + ", ".join(_show(x) for x in v) + "]" if v else "empty ([])"
    if isinstance(v, dict):
        return ("{" + ", ".join(f"{k}: {_show(x)}" for k, x in v.items()) + "}") if v else "empty ({})"
    return str(v)


def where(o: SourcePos) -> str:
    """``path:line`` of ``o`` as every other citation shows the path (``<bundled>/base.yaml``)."""
    try:
        return f"{display_path(o.path)}:{o.line}"
    except Exception:
        return f"{o.path}:{o.line}"


def analyse(graph: RuleGraph, unknown_settings: Iterable[str] = ()) -> Analysis:
    """Fold ``graph``'s settings into its rules: which rules can never fire, which flags are set,
    whether tribute is paid, which settings are read. ``unknown_settings`` are treated as unknown
    (used to tell a rule switched off by its own file's setting from one that is simply dead)."""
    return Analysis(graph, frozenset(unknown_settings))
