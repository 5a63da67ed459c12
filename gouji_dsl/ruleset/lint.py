"""The ruleset lint behind ``gouji validate --strict``: problems a ruleset can have although every
expression compiles.

:func:`lint` returns :class:`~gouji_dsl.diagnostics.Diagnostic` s (severity ``"warning"``; ``"error"``
when the game cannot end or go on), each at the ``file:line:col`` of the rule or setting concerned
and with a code (:class:`~gouji_dsl.diagnostics.Code`):

- **rules that can never fire** (``RuleNeverFires``): a guard, or the effect of a permit rule, that
  is constant once the settings are folded in (``play.rank == settings.stuck_rank`` with
  ``stuck_rank: null``; ``'3' in settings.buy.ranks`` with no ranks to buy); a guard that needs a
  flag no ``mark`` rule (nor the engine) ever sets; a rule on a between-game question when there is
  no tribute;
- **two rules deciding the same question for the same state** (``RuleShadowed``,
  ``RulesContradict``): a value rule followed by another on the same hook whose guard is the same
  (or absent), so the earlier one never decides; two permit rules with the same guard and
  contradictory effects;
- **no way out** (``NoWayOut``): no rule ends the game, every play forbidden, no rule for the first
  leader, the order of answers, the next leader or what a gouji play is;
- **settings nothing reads** (``UnreadSetting``: no rule, no definition a rule uses, not the
  engine), and keys of map settings nothing reads;
- **stale sentences** (``StaleSentence``): a setting changed without its own ``says``, keeping a
  parent's sentence;
- **settings another setting disables** (``SettingHasNoEffect``, found by
  :mod:`gouji_dsl.ruleset.settings` when the graph is built).

Only problems in the file being checked are reported: an inherited mechanic that this ruleset's
settings switch off is the design (``base`` holds every mechanic, children switch them with
settings), and a rule of the file switched off by the same file's own setting is a default-off
mechanic. The analysis is also used by :mod:`gouji_dsl.tools.doc` to leave out rules that can never
fire, and by the rule graph to prune them (:func:`analyse`).

The analysis folds the checked expression trees (:class:`gouji_dsl.lang.fold.Folder`: the same
operator table as the compiled closures), with what it knows of the ruleset as
:class:`~gouji_dsl.lang.fold.Facts`: which flags and counters a live rule can set, the tribute kinds.
"""
from __future__ import annotations

import functools
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.diagnostics import Code, Diagnostic, Severity, SourcePos, did_you_mean
from gouji_dsl.lang import ast as A
from gouji_dsl.lang.fold import Facts, Folder, K, U, truthy
from gouji_dsl.lang.types import Enum, Nullable, Record, strip
from gouji_dsl.ruleset.settings import engine_types, normalize_setting
from gouji_dsl.ruleset.spec import RuleSpec
from gouji_dsl.ruleset.vocabulary import FUNCTIONS, HOOKS, MAYBE_NONE_ATTRS, MAYBE_NONE_FUNCTIONS, MAYBE_NONE_GLOBALS, PLAY_ATTRS

__all__ = ["lint", "analyse", "quick_warnings", "stale_says", "Analysis", "Why", "ENGINE_SETTINGS", "ENGINE_FLAGS"]


def _engine_settings() -> dict[str, frozenset[str] | None]:
    out: dict[str, frozenset[str] | None] = {}
    for name, (t, _) in engine_types().items():
        t = t.inner if isinstance(t, Nullable) else t
        out[name] = frozenset(t.names) if isinstance(t, Record) else None
    return out


ENGINE_SETTINGS: dict[str, frozenset[str] | None] = _engine_settings()
"""Settings the interpreter reads itself (the card model, the table), with the keys it reads of the
record ones (None: not a record, or every key); from the engine's declared interface."""

ENGINE_FLAGS: frozenset[str] = frozenset({"declared", "chose_head", "chose_headless"})
"""Flags the interpreter sets itself (declare and choose moves)."""

TRIBUTE_HOOKS: frozenset[str] = frozenset({"tribute_kinds", "tribute", "tribute_card", "return_tribute"})
_KIND_HOOKS: frozenset[str] = frozenset({"tribute", "return_tribute"})
ALL = None  # "every key" in a reads table
_MAYBE_NONE = MAYBE_NONE_GLOBALS | MAYBE_NONE_ATTRS | MAYBE_NONE_FUNCTIONS
_PARTS = ("when", "effect", "target", "amount", "giver")


def _norm(text: str | None) -> str | None:
    return None if text is None else "".join(text.split())


# ================================================================================= why a rule is dead
@dataclass(frozen=True)
class Why:
    """Why a rule can never fire. ``kind``: ``guard`` (its guard is always false), ``effect`` (a
    permit rule that never grants / never forbids), ``hook`` (the question is never asked),
    ``shadowed`` (a later value rule always answers instead: ``by`` is its id). ``cause``: ``settings``,
    ``flags`` or ``constant``; ``detail`` says which values make it so; ``expr`` / ``tree``: the
    expression concerned (text / checked tree)."""

    kind: str
    message: str
    cause: str = "settings"
    by: str | None = None
    expr: str | None = None
    detail: str | None = None
    tree: A.Node | None = field(default=None, compare=False, repr=False)


def _walk_with_defs(tree: A.Node, defs: Any) -> Iterator[A.Node]:
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

    graph: Any
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
                for x in _walk_with_defs(n.checked[p], self.defs):
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
        kinds = self.tribute_kinds if hook in _KIND_HOOKS else None
        return Facts(flags=None if optimistic else self.flags, counters=None if optimistic else self.counters,
                     tribute_kinds=kinds, unknown_settings=self.unknown_settings, maybe_none=_MAYBE_NONE,
                     hook_maybe_none=frozenset(h.maybe_none))

    def eval_tree(self, tree: A.Node | None, hook: str, *, optimistic: bool = False) -> K | U:
        """The folded value of a checked tree asked in ``hook`` (``K(True)`` for no tree: no guard)."""
        if tree is None:
            return K(True)
        folder = Folder(self.strength, FUNCTIONS, PLAY_ATTRS, self.defs, self.facts(hook, optimistic=optimistic))
        return folder.fold(tree)

    def eval_text(self, text: str, hook: str) -> K | U:
        """Fold an expression text asked in ``hook`` (checked in the ruleset's scope); unknown when
        it does not check."""
        from gouji_dsl.lang.check import check
        from gouji_dsl.lang.parse import ExprError, parse
        from gouji_dsl.ruleset.graph import hook_scope
        try:
            tree = check(parse(text), hook_scope(HOOKS[hook], self.graph.typed, self.defs))
        except ExprError:
            return U()
        return self.eval_tree(tree, hook)

    @staticmethod
    def part(n: Any, name: str) -> A.Node | None:
        return n.checked.get(name) if n.checked else None

    # ------------------------------------------------------------------ the fixpoint
    def _run(self) -> None:
        nodes = self.graph.nodes
        self.flags, self.counters = None, None  # optimistic: every flag may be set
        for _ in range(len(nodes) + 2):
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

    def _why(self, n: Any) -> Why | None:
        if n.hook in TRIBUTE_HOOKS and not self.tribute_paid:
            return Why("hook", "tribute is never paid: a match is a single game (match_length)")
        if n.hook in TRIBUTE_HOOKS - {"tribute_kinds"} and self.tribute_kinds is not None and not self.tribute_kinds:
            return Why("hook", "tribute is never paid: there are no tribute kinds (tribute_kinds)")
        hook = n.hook
        when = self.part(n, "when")
        if when is not None:
            g = self.eval_tree(when, hook)
            if truthy(g) is False:
                return self._explain("guard", n.when, when, hook, f"its guard `{_short(n.when)}` is always false")
        if HOOKS[hook].kind == "permit":
            eff = self.part(n, "effect")
            t = truthy(self.eval_tree(eff, hook))
            if n.effect == "allow" and t is False:
                return self._explain("effect", n.expr, eff, hook, f"it never allows anything (`allow: {_short(n.expr)}` is always false)")
            if n.effect == "deny" and t is False:
                return self._explain("effect", n.expr, eff, hook, f"it never forbids anything (`deny: {_short(n.expr)}` is always false)")
            if n.effect == "require" and t is True:
                return self._explain("effect", n.expr, eff, hook, f"it never forbids anything (`require: {_short(n.expr)}` is always true)")
        return None

    def _explain(self, kind: str, text: str, tree: A.Node | None, hook: str, message: str) -> Why:
        """Say what makes ``tree`` constant: flags never set, tribute kinds, settings' values."""
        optimistic = truthy(self.eval_tree(tree, hook, optimistic=True))
        if optimistic is None and self.flags is not None:
            missing = sorted(f for f in self.flag_names(tree) if f not in self.flags)
            missing_c = sorted(c for c in self.counter_names(tree) if self.counters is not None and c not in self.counters)
            parts = [f"flag {f!r}" for f in missing] + [f"counter {c!r}" for c in missing_c]
            what = " and ".join(parts) or "a flag"
            return Why(kind, f"{message}: {what} is never set (no rule that can fire marks it)", "flags", expr=text, tree=tree)
        details = []
        for what in self._relevant(tree, hook):
            if what == "kind":
                details.append("tribute is paid only of kinds " + (", ".join(sorted(self.tribute_kinds or ())) or "none"))
            else:
                details.append(f"settings.{what} is {_show(self.setting_value(what))}")
        cause = "settings" if details else "constant"
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
        for x in _walk_with_defs(tree, self.defs):
            if isinstance(x, A.Setting):
                cands.append(x.name + (f".{x.path[0]}" if x.path else ""))
            elif isinstance(x, A.Name) and x.name == "kind" and x.ref == A.Ref.CONTEXT:
                reads_kind = True
        if hook in _KIND_HOOKS and self.tribute_kinds is not None and reads_kind:
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
        for x in _walk_with_defs(tree, self.defs):
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
        by_hook: dict[str, list[Any]] = {}
        for n in self.graph.nodes:
            if HOOKS[n.hook].kind == "value" and n.id not in self.dead:
                by_hook.setdefault(n.hook, []).append(n)
        for hook, rules in by_hook.items():
            # the first later rule that always answers, or answers with the same guard (linear:
            # scanning from the last rule, the nearest later rule of each guard is at hand)
            n = len(rules)
            checked = [_guard_key(r) for r in rules]  # the checked guard tree (None: not checked)
            norm = [_norm(r.when) for r in rules]
            always = [r.when is None or truthy(self.eval_tree(self.part(r, "when"), hook)) is True for r in rules]
            next_always = n
            by_checked: dict[str, int] = {}
            by_norm_unchecked: dict[str | None, int] = {}
            by_norm: dict[str | None, int] = {}
            firsts: list[int] = [n] * n
            for i in range(n - 1, -1, -1):
                key = checked[i]
                if key is not None:
                    same = min(by_checked.get(key, n), by_norm_unchecked.get(norm[i], n))
                else:
                    same = by_norm.get(norm[i], n)
                firsts[i] = min(next_always, same)
                if always[i]:
                    next_always = i
                if key is not None:
                    by_checked[key] = i
                else:
                    by_norm_unchecked[norm[i]] = i
                by_norm[norm[i]] = i
            for i, a in enumerate(rules):
                if firsts[i] >= n:
                    continue
                b = rules[firsts[i]]
                same = _same(a, b)
                detail = "no guard" if b.when is None else ("the same guard" if same else "a guard that always holds")
                self.dead[a.id] = Why("shadowed", f"the later rule {b.id!r} ({_where(b.origin)}) answers "
                                      f"{hook!r} with {detail}, and the last matching rule wins", "rules", b.id,
                                      detail=detail)

    def _inert(self) -> None:
        seen: set[str] = set()  # hooks with an earlier live rule: returning the default there overrides it
        for n in self.graph.nodes:
            h = HOOKS[n.hook]
            if h.kind != "value" or n.id in self.dead:
                continue
            first = n.hook not in seen
            seen.add(n.hook)
            eff = self.part(n, "effect")
            if not first or eff is None or not any(isinstance(x, A.Setting) for x in A.walk(eff)):
                continue
            v = self.eval_tree(eff, n.hook)
            if isinstance(v, K) and v.v == h.default and truthy(self.eval_tree(self.part(n, "when"), n.hook)) is not False:
                self.inert.add(n.id)


def _guard_key(r: Any) -> str | None:
    """The checked guard of a rule as text (None when it has no checked guard): :func:`_same`'s key."""
    t = r.checked.get("when") if r.checked else None
    return A.unparse(t) if t is not None else None


def _same(a: Any, b: Any) -> bool:
    """Two rules with the same guard (the same checked tree, or both none)."""
    ta, tb = a.checked.get("when") if a.checked else None, b.checked.get("when") if b.checked else None
    if ta is None or tb is None:
        return _norm(a.when) == _norm(b.when)
    return A.unparse(ta) == A.unparse(tb)


def _short(text: str | None, limit: int = 70) -> str:
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


def _where(o: SourcePos) -> str:
    try:
        from gouji_dsl.tools.render import display_path
        return f"{display_path(o.path)}:{o.line}"
    except Exception:
        return f"{o.path}:{o.line}"


def analyse(graph: Any, unknown_settings: Iterable[str] = ()) -> Analysis:
    """Fold ``graph``'s settings into its rules: which rules can never fire, which flags are set,
    whether tribute is paid, which settings are read. ``unknown_settings`` are treated as unknown
    (used to tell a rule switched off by its own file's setting from one that is simply dead)."""
    return Analysis(graph, frozenset(unknown_settings))


# ================================================================================= the lint
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


@functools.lru_cache(maxsize=64)
def _own_raw(path: str, text: str):
    """The ruleset's own file as parsed (None when it cannot be read again)."""
    from gouji_dsl.ruleset.loader import load_text
    try:
        return load_text(text, path) if text else None
    except Exception:
        return None


def stale_says(graph) -> set[str]:
    """Settings this ruleset's own file changes without a ``says``, keeping an inherited sentence
    that may no longer be true (a map merged into the parent's keeps the parent's sentence)."""
    from gouji_dsl.ruleset.loader import _is_setting_long_form
    resolved = graph.resolved
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
        if _is_setting_long_form(written) and written.get("says"):
            continue
        if parent is None:
            parent = _parent(resolved)
        before = parent.settings.get(name) if parent is not None else None
        if before is not None and normalize_setting(before.value) == normalize_setting(s.value):
            continue  # written again, unchanged: the sentence still holds
        out.add(name)
    return out


def _get(d: dict[Any, Any], key: Any) -> Any:
    """``d[key]`` with the key compared as text (YAML keys ``1`` and ``"1"``), or None."""
    return next((v for k, v in d.items() if str(k) == str(key)), None)


def _parent(resolved):
    """The resolved parent ruleset, or None."""
    from gouji_dsl.ruleset.loader import resolve
    if len(resolved.chain) < 2:
        return None
    try:
        return resolve(resolved.chain[1])
    except Exception:
        return None


def _removal_origin(resolved, hook: str) -> tuple[SourcePos, str] | None:
    """Where the ruleset's own file removes an inherited rule on ``hook`` (and its id)."""
    raw = _own_raw(resolved.path, resolved.text or "")
    parent = _parent(resolved) if raw is not None else None
    if parent is None:
        return None
    for i, rid in enumerate(raw.get(("remove",)) or ()):
        r = parent.rule(rid)
        if r is not None and r.on.text == hook:
            return raw.origin(("remove", i)), rid
    return None


def _top_origin(resolved) -> SourcePos:
    raw = _own_raw(resolved.path, resolved.text or "")
    return raw.origin(("ruleset",), key=True) if raw is not None else SourcePos(resolved.path, 1, 1)


_LITERALS = {"true", "false"}


def lint(graph) -> list[Diagnostic]:
    """Every lint finding of a compiled ruleset's own file (see the module doc), sorted by position.

    Severity ``"warning"``, or ``"error"`` when the game can never end or no play is ever allowed;
    ``gouji validate --strict`` fails on either."""
    resolved = graph.resolved
    own_path = resolved.path
    lines = _Lines(resolved)
    an = analyse(graph)
    out: list[Diagnostic] = []

    def diag(o: SourcePos, message: str, hint: str | None = None, severity: str = Severity.WARNING,
             code: str = Code.RULE_NEVER_FIRES) -> None:
        out.append(Diagnostic.at(o, message, hint=hint, source_line=lines.line(o.path, o.line), severity=severity, code=code))

    nodes = graph.nodes
    own = [n for n in nodes if not n.inherited]
    by_id = {n.id: n for n in nodes}

    # (a) rules that can never fire -----------------------------------------------------------
    own_settings = frozenset(name for name, s in resolved.settings.items() if not s.inherited)
    switched: Analysis | None = None
    for n in own:
        why = an.dead.get(n.id)
        if why is None or why.kind == "shadowed":
            continue
        if n.overrides is not None and why.expr is not None and why.expr.strip() in _LITERALS:
            continue  # `allow: false` over a parent's rule: says "no" on purpose, keeps the sentence
        if why.cause in ("settings", "flags"):
            if switched is None:
                switched = analyse(graph, own_settings) if own_settings else an
            if n.id not in switched.dead:
                continue  # switched off by this file's own setting: a default-off mechanic
        if why.cause == "flags":
            names = sorted(an.flag_names(why.tree))
            hint = "add a rule that marks the flag (`mark: NAME`), or check its name; the engine itself sets " \
                   + ", ".join(sorted(ENGINE_FLAGS))
            for f in names:
                if an.flags is not None and f not in an.flags:
                    dym = did_you_mean(f, an.flags)
                    if dym:
                        hint = f"flag {f!r}: {dym}"
                        break
            for c in sorted(an.counter_names(why.tree)):
                if an.counters is not None and c not in an.counters:
                    dym = did_you_mean(c, an.counters)
                    hint = f"counter {c!r}: {dym}" if dym else \
                        "add a rule that counts it (`count: NAME`, e.g. on after_yield), or check its name"
                    break
        elif why.kind == "hook":
            hint = "set the match length (settings.match_games) and the tribute kinds to use these rules"
        else:
            hint = "check the guard against the settings shown; if the rule is meant to be off, remove it"
        diag(n.origin, f"rule {n.id!r} can never fire: {why.message}", hint)

    # (a') a rule that reads a flag or counter nothing sets: what it reads never changes ------------
    for n in own:
        if n.id in an.dead:
            continue
        trees = an.trees(n.id)
        for what, read, settable, always, verb, how in (
                ("flag", set().union(*(an.flag_names(t) for t in trees)), an.flags, "false", "marks", "mark: NAME"),
                ("counter", set().union(*(an.counter_names(t) for t in trees)), an.counters, "0", "counts", "count: NAME")):
            if settable is None:
                continue
            for name_read in sorted(x for x in read if x not in settable):
                dym = did_you_mean(name_read, sorted(settable))
                diag(n.origin, f"rule {n.id!r} reads {what} {name_read!r}, which no rule that can fire {verb}: "
                     f"it is always {always} (the rule reads something that never changes)",
                     dym or f"add a rule that {verb} it ({how}), or check the name", code=Code.NEVER_CHANGES)

    # (b) two rules deciding the same question for the same state ---------------------------------
    for n in nodes:
        why = an.dead.get(n.id)
        if why is None or why.kind != "shadowed" or why.by is None:
            continue
        later = by_id[why.by]
        if not n.inherited:
            diag(n.origin, f"rule {n.id!r} can never decide {n.hook!r}: {why.message}",
                 "delete one of the two, or give them different guards", code=Code.RULE_SHADOWED)
        elif not later.inherited:
            diag(later.origin, f"rule {later.id!r} makes the inherited rule {n.id!r} ({_where(n.origin)}) dead: "
                 f"both answer {n.hook!r}, this one with {why.detail}, and the last matching rule wins",
                 f"to replace it, give this rule the id {n.id!r} (it then overrides it in place), "
                 f"or add {n.id!r} to `remove:`", code=Code.RULE_SHADOWED)
    for hook, h in HOOKS.items():
        if h.kind != "permit":
            continue
        rules = [n for n in nodes if n.hook == hook and n.id not in an.dead]
        buckets: dict[tuple[str | None, str | None], list[Any]] = {}  # same guard and effect text: linear
        for r in rules:
            buckets.setdefault((_norm(r.when), _norm(r.expr)), []).append(r)
        for a, b in ((x, y) for group in buckets.values() if len(group) > 1
                     for i, x in enumerate(group) for y in group[i + 1:]):
            if a.inherited and b.inherited:
                continue
            pair = {a.effect, b.effect}
            if pair not in ({"allow", "deny"}, {"require", "deny"}):
                continue
            at = b if not b.inherited else a
            other = a if at is b else b
            what = "one allows what the other forbids" if pair == {"allow", "deny"} else \
                "one requires what the other forbids, so it is always forbidden"
            diag(at.origin, f"rules {a.id!r} and {b.id!r} decide {hook!r} in the same state with "
                 f"contradictory effects: {what} (other rule at {_where(other.origin)})",
                 "keep one of them, or give them different guards", code=Code.RULES_CONTRADICT)

    # (c) phases with no way out ------------------------------------------------------------------
    def missing(hook: str, message: str, hint: str, severity: str = Severity.WARNING) -> None:
        rules = [n for n in nodes if n.hook == hook]
        live = [n for n in rules if n.id not in an.dead]
        if live:
            return
        ownrules = [n for n in rules if not n.inherited]
        if ownrules:
            diag(ownrules[-1].origin, message + f" (rule {ownrules[-1].id!r} can never fire)", hint, severity, Code.NO_WAY_OUT)
            return
        rem = _removal_origin(resolved, hook)
        if rem is not None:
            diag(rem[0], message + f" (removing {rem[1]!r} left none)", hint, severity, Code.NO_WAY_OUT)
        elif not rules:
            diag(_top_origin(resolved), message, hint, severity, Code.NO_WAY_OUT)
        else:
            diag(_top_origin(resolved), message + f" (no {hook} rule can fire under these settings)", hint, severity, Code.NO_WAY_OUT)

    missing("game_over", "the game can never end: no rule answers 'game_over' (the answer is always no)",
            "add a rule `on: game_over` with a `value:`, e.g. count(active_seats) <= 1", Severity.ERROR)
    over = [n for n in nodes if n.hook == "game_over" and n.id not in an.dead]
    if over and all(truthy(an.eval_tree(an.part(n, "effect"), "game_over")) is False for n in over):
        n = over[-1]
        diag(n.origin, f"the game can never end: rule {n.id!r} always answers 'game_over' with no",
             "the value must become true once the game is decided, e.g. count(active_seats) <= 1", Severity.ERROR, Code.NO_WAY_OUT)
    missing("gouji", "no rule says what a gouji play is: no play is ever a gouji play",
            "add a rule `on: gouji` (the engine's answer is no)")
    missing("first_leader", "no rule chooses the first leader: seat 1 always leads the first trick",
            "add a rule `on: first_leader`")
    missing("follow_order", "no rule orders the answers to a play: every seat is asked once, in play order, "
            "passed or not", "add a rule `on: follow_order`")
    missing("next_leader", "no rule chooses who leads the next trick: the trick's winner, or the next "
            "player still in", "add a rule `on: next_leader`")
    for hook, severity, what in (("play", Severity.ERROR, "no play is ever allowed: the game cannot go on"),
                                 ("follow", Severity.WARNING, "nobody may ever answer a play")):
        for n in nodes:
            if n.hook != hook or n.id in an.dead:
                continue
            if n.when is not None and truthy(an.eval_tree(an.part(n, "when"), hook)) is not True:
                continue
            v = truthy(an.eval_tree(an.part(n, "effect"), hook))
            if (n.effect == "deny" and v is True) or (n.effect == "require" and v is False):
                diag(n.origin, f"rule {n.id!r} forbids every {hook!r}: {what}",
                     "give the rule a guard (`when:`) or an effect that depends on the play", severity, Code.NO_WAY_OUT)

    # (d) settings nothing reads --------------------------------------------------------------------
    for name, s in resolved.settings.items():
        if s.inherited:
            continue
        if name in ENGINE_SETTINGS and ENGINE_SETTINGS[name] is None:
            continue  # the engine reads all of it
        engine_keys = ENGINE_SETTINGS.get(name) or frozenset()
        if name not in an.reads and name not in ENGINE_SETTINGS:
            hint = "rules read a setting as settings." + name + "; remove it, or check the name"
            dym = did_you_mean(name, [m for m in an.reads if m != name] + list(ENGINE_SETTINGS))
            if dym:
                hint = dym
            diag(s.name_origin or s.origin, f"setting {name!r} is read by no rule, no definition a rule uses, and not by the engine",
                 hint, code=Code.UNREAD_SETTING)
            continue
        keys_read = an.reads.get(name, set())
        if keys_read is ALL or not isinstance(s.value, dict):
            continue
        known = set(keys_read) | set(engine_keys)
        raw = _own_raw(resolved.path, resolved.text or "")
        written = (raw.get(("settings", name)) if raw is not None else None)
        base_loc = ("settings", name, "value") if isinstance(written, dict) and "value" in written else ("settings", name)
        for k in s.value:
            o = s.key_origins.get(str(k)) or s.key_origins.get(k)
            if o is None or o.path != own_path or str(k) in known:
                continue
            if raw is not None and (base_loc + (k,)) in raw.keys:
                o = raw.origin(base_loc + (k,), key=True)
            diag(o, f"key {k!r} of setting {name!r} is read by nothing",
                 did_you_mean(str(k), known) or f"keys read: {', '.join(sorted(known)) or 'none'}", code=Code.UNREAD_SETTING)

    # (e) a setting changed without its own sentence ------------------------------------------------
    long_form = "write the long form {value: ..., says: \"...\", source: \"...\"}"
    for name in sorted(stale_says(graph)):
        s = resolved.settings[name]
        diag(s.origin, f"setting {name!r} is changed here but keeps an inherited sentence, which may no longer "
             f"be true: {_short(s.says or '', 90)!r}", long_form, code=Code.STALE_SENTENCE)
    parent = _parent(resolved)
    for name, s in resolved.settings.items():
        before = parent.settings.get(name) if parent is not None else None
        if s.inherited or s.says or before is None or not before.says \
                or normalize_setting(before.value) == normalize_setting(s.value):
            continue
        diag(s.origin, f"setting {name!r} is changed here without a sentence (says): the rulebook (gouji doc) "
             f"loses the parent's {_short(before.says, 70)!r} and says nothing instead", long_form, code=Code.STALE_SENTENCE)

    # (g) lookups that fail for some values of their key: a map setting without every word of an
    # enumerated key, read by a rule that can fire
    for n in nodes:
        if n.id in an.dead:
            continue
        for tree in an.trees(n.id):
            for x in _walk_with_defs(tree, an.defs):
                if not (isinstance(x, A.Index) and isinstance(x.base, A.Setting) and isinstance(x.base.value, dict)):
                    continue
                kt = strip(x.key.type) if x.key.type is not None else None
                if not isinstance(kt, Enum) or isinstance(x.key, A.Literal):
                    continue
                absent = [w for w in kt.values if w not in x.base.value]
                spec = resolved.settings.get(x.base.name)
                if not absent or spec is None:
                    continue
                at = spec.positions.get(x.base.path, spec.origin) if x.base.path else spec.origin
                if at.path != own_path and n.origin.path != own_path:
                    continue  # neither the rule nor the table is written here
                if at.path != own_path:
                    at = n.origin
                label = A.unparse(x.base)
                diag(at, f"{label} has no key " + ", ".join(map(repr, absent)) + f": rule {n.id!r} "
                     f"({_where(n.origin)}) fails while the game runs when its key {A.unparse(x.key)} is one of them",
                     f"give {label} every key ({', '.join(map(repr, kt.values))}), or test the key first (k in {label})",
                     code=Code.MISSING_KEY)

    # (d') a setting (or key) changed here that only rules whose question is never asked read
    # (tribute settings in a one-game ruleset): the change does nothing
    for name, s in resolved.settings.items():  # `parent` as in (e): loading it again costs a parse
        before = parent.settings.get(name) if parent is not None else None
        if s.inherited or before is None or name in ENGINE_SETTINGS \
                or normalize_setting(before.value) == normalize_setting(s.value):
            continue
        readers_of = [n.id for n in nodes if name in an.rule_settings.get(n.id, ())]
        if not any(w is not None and w.kind == "hook" for w in map(an.dead.get, readers_of)):
            continue  # no reader of it is on a question never asked: nothing to say (and no walk)
        key_readers: dict[str | None, set[str]] = {}
        for rid in readers_of:
            for tree in an.trees(rid):
                for x in _walk_with_defs(tree, an.defs):
                    if isinstance(x, A.Setting) and x.name == name:
                        key_readers.setdefault(str(x.path[0]) if x.path else None, set()).add(rid)
        changed: list[tuple[str | None, SourcePos]]
        if isinstance(s.value, dict) and isinstance(before.value, dict):
            changed = [(str(k), s.key_origins.get(str(k)) or s.key_origins.get(k) or s.origin) for k, v in s.value.items()
                       if normalize_setting(v) != normalize_setting(_get(before.value, k))]
        else:
            changed = [(None, s.origin)]
        for key, at in changed:
            if at.path != own_path:
                continue
            readers = key_readers.get(None, set()) | (key_readers.get(key, set()) if key else
                                                      {r for rs in key_readers.values() for r in rs})
            whys = [an.dead.get(r) for r in sorted(readers)]
            if not readers or not all(w is not None and w.kind == "hook" for w in whys):
                continue
            label = f"{name}.{key}" if key else name
            diag(at, f"setting {label} is changed here but has no effect: every rule that reads it answers a "
                 f"question that is never asked ({whys[0].message if whys[0] else ''})",
                 "remove the change, or make the question asked (tribute needs a match of several games)",
                 code=Code.SETTING_HAS_NO_EFFECT)

    # (h) a tribute kind no tribute rule asks about (`tribute: {order: [fal]}`): nothing is paid
    # of it, silently
    for at, message, hint in _unpaid_tribute_kinds(graph, an, nodes, own_path):
        diag(at, message, hint, code=Code.UNREAD_SETTING)

    # (c') a choice of the ruleset's own nobody is asked, or whose answer does nothing
    choices = resolved.settings.get("choices")
    if choices is not None and not choices.inherited and isinstance(choices.value, dict):
        offers = [n for n in nodes if n.hook == "offer" and n.id not in an.dead]
        answers = [n for n in nodes if n.hook == "answered" and n.id not in an.dead]
        for word in choices.value:
            at = choices.key_origins.get(str(word)) or choices.origin
            if at.path != own_path:
                continue
            if not offers:
                diag(at, f"choice {str(word)!r} is never asked: no offer rule that can fire allows it",
                     f"add a rule `on: offer` with `when: \"choice == '{word}'\"` and an `allow:`", code=Code.NO_WAY_OUT)
            elif not answers:
                diag(at, f"choice {str(word)!r} does nothing: no answered rule that can fire reads its answer",
                     "add a rule `on: answered` (mark / count what the answer means), and a rule that reads it",
                     code=Code.NO_WAY_OUT)

    # (i) settings that make a game unlikely to start: redeal rules voiding most deals (bounds.py)
    from gouji_dsl.ruleset.bounds import redeal_findings
    for rule_id, at, message, hint in redeal_findings(graph):
        if at.path != own_path:  # the rule is inherited: at this file's setting it reads, if any
            mine = [resolved.settings[x] for x in sorted(an.rule_settings.get(rule_id, ()))
                    if x in resolved.settings and not resolved.settings[x].inherited]
            if not mine:
                continue
            at = mine[0].origin
            message = f"with this setting, {message}"
        diag(at, message, hint, code=Code.UNLIKELY_TO_END)

    # (f) settings another setting disables (found when the graph was built)
    out.extend(d for d in graph.warnings if d.path == own_path)

    uniq: dict[tuple[Any, ...], Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.path, d.line, d.col, d.message), d)
    return sorted(uniq.values(), key=lambda d: (d.path != own_path, d.path, d.line, d.col, d.message))


def _kind_words(an: Analysis, nodes: Any) -> set[str]:
    """The words the tribute rules compare ``kind`` with (``kind == 'fall'``, ``kind in [...]``),
    and the words any rule looks for in the order itself (``'declare' in settings.tribute.order``)."""
    words: set[str] = set()
    for n in nodes:
        if n.hook not in _KIND_HOOKS and "tribute" not in an.rule_settings.get(n.id, ()):
            continue
        for tree in an.trees(n.id):
            for x in _walk_with_defs(tree, an.defs):
                if not (isinstance(x, A.Binary) and x.op in (A.BinOp.EQ, A.BinOp.NE, A.BinOp.IN, A.BinOp.NOT_IN)):
                    continue
                if isinstance(x.right, A.Setting) and x.right.name == "tribute" and x.right.path == ("order",) \
                        and isinstance(x.left, A.Literal) and isinstance(x.left.value, str):
                    words.add(x.left.value)
                if n.hook not in _KIND_HOOKS:
                    continue
                sides = (x.left, x.right)
                if not any(isinstance(y, A.Name) and y.name == "kind" for y in sides):
                    continue
                for y in sides:
                    items = y.items if isinstance(y, A.ListLit) else (y,)
                    words |= {i.value for i in items if isinstance(i, A.Literal) and isinstance(i.value, str)}
    return words


def _unpaid_tribute_kinds(graph: Any, an: Analysis, nodes: Any, own_path: str) -> list[tuple[SourcePos, str, str]]:
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

    def where(k: str) -> SourcePos:
        p = spec.positions.get(("order", order.index(k))) if spec is not None and k in order else None
        return p if p is not None and p.path == own_path else fallback

    return [(where(k), f"tribute kind {k!r} is paid by no rule: no tribute rule asks about it (the rules know {known})",
             did_you_mean(k, words) or f"add rules `on: tribute` with `when: kind == '{k}'`, or remove it")
            for k in unknown]


def quick_warnings(graph) -> list[Diagnostic]:
    """The findings worth showing even without ``--strict``: a setting (or key) nothing reads is
    most likely a misspelt name (``sweep_multipler``); a setting another setting disables does
    nothing. Never raises: a lint problem yields nothing."""
    try:
        return [d for d in lint(graph) if d.code in (Code.UNREAD_SETTING, Code.SETTING_HAS_NO_EFFECT)]
    except Exception:
        return []
