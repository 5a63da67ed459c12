"""The ruleset lint behind ``gouji validate --strict``: problems a ruleset can have although every
expression compiles.

:func:`lint` returns :class:`~gouji_dsl.diagnostics.Diagnostic` s (severity ``"warning"``; ``"error"``
when the game cannot end or go on), each at the ``file:line:col`` of the rule or setting concerned:

- **rules that can never fire**: a guard, or the effect of a permit rule, that is constant once the
  settings are folded in (``play.rank == settings.stuck_rank`` with ``stuck_rank: null``;
  ``'3' in settings.buy.ranks`` with no ranks to buy); a guard that needs a flag no ``mark`` rule (nor
  the engine) ever sets; a rule on a between-game question when there is no tribute;
- **two rules deciding the same question for the same state**: a value rule followed by another on
  the same hook whose guard is the same (or absent), so the earlier one never decides; two permit
  rules with the same guard and contradictory effects;
- **no way out**: no rule ends the game, every play forbidden, no rule for the first leader, the order
  of answers, the next leader or what a gouji play is;
- **settings nothing reads** (no rule, no definition a rule uses, not the engine), and keys of map
  settings nothing reads;
- **stale sentences**: a setting changed without its own ``says``, keeping a parent's sentence.

Only problems in the file being checked are reported: an inherited mechanic that this ruleset's
settings switch off is the design (``base`` holds every mechanic, children switch them with
settings), and a rule of the file switched off by the same file's own setting is a default-off
mechanic. The analysis is also used by :mod:`gouji_dsl.tools.doc` to leave out rules that can never fire
(:func:`analyse`).

The constant folding is a small abstract interpreter over the expression tree (the language has no
loops): a value is either known or unknown (with "never none", a finite domain, and simple
comparisons of an and-chain, so ``hand_size(x) > 0 and 0 == hand_size(x)`` is seen to be false).
"""
from __future__ import annotations

import functools
import operator
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lark import Token, Tree

from gouji_dsl.diagnostics import Diagnostic, SourcePos, did_you_mean, line_of
from gouji_dsl.lang.expr import ExprError, normalize_setting, parse
from gouji_dsl.ruleset.spec import RuleSpec
from gouji_dsl.ruleset.vocabulary import FUNCTIONS, GLOBAL_VARS, HOOKS, PLAY_ATTRS

__all__ = ["lint", "analyse", "stale_says", "Analysis", "Why", "ENGINE_SETTINGS", "ENGINE_FLAGS"]

ENGINE_SETTINGS: dict[str, frozenset[str] | None] = {
    "seats": None, "teams": None, "ranks": None, "jokers": None, "filler_rank": None,
    "mixed_jokers_read_as_lowest": None,
    "deck": frozenset({"decks", "cards_per_rank", "jokers_per_deck", "remove", "add"}),
    "comparison": frozenset({"model", "same_count", "joker_cover", "spare_jokers_for_rank"}),
}
"""Settings the interpreter reads itself (the card model, the table), with the keys it reads of the
map ones (None: not a map, or every key)."""

ENGINE_FLAGS: frozenset[str] = frozenset({"declared", "chose_head", "chose_headless"})
"""Flags the interpreter sets itself (declare and choose moves)."""

TRIBUTE_HOOKS: frozenset[str] = frozenset({"tribute_kinds", "tribute", "tribute_card", "return_tribute"})
_KIND_HOOKS: frozenset[str] = frozenset({"tribute", "return_tribute"})
_FLAG_FNS = {"flag": 1, "prev_flag": 1, "flagged": 1, "next_active_without": 1}
_COUNTER_FNS = {"counter": 1, "prev_counter": 1}
_SETTING_RE = re.compile(r"\bsettings\s*\.\s*([A-Za-z_]\w*)(?:\s*\.\s*([A-Za-z_]\w*))?")
_NAME_RE = re.compile(r"\b([a-z_][a-z0-9_]*)\b")
ALL = None  # "every key" in a reads table


# ================================================================================= abstract values
@dataclass(frozen=True)
class K:
    """A known value."""

    v: Any


@dataclass(frozen=True)
class U:
    """An unknown value: ``nonnull`` (never none), ``domain`` (the values it can take, when finite and
    known), ``key`` (normalised text, for comparisons in an and-chain), ``cons`` (for a bool: what
    must hold when it is true, as ``(key, op, value)`` triples)."""

    nonnull: bool = False
    domain: frozenset | None = None
    key: str | None = None
    cons: tuple = ()


UNKNOWN = U()
UBOOL = U(nonnull=True)

_NULLABLE_INT_FNS = frozenset({"place", "prev_place", "team"})
_RANDOM_FNS = frozenset({"random_seat"})  # two calls are two values: never a comparison key
_CARD_COUNT_FNS = frozenset({"holds", "dealt", "received", "held_at_least", "dealt_at_least"})
_FLIP = {"==": "==", "!=": "!=", "<": ">", ">": "<", "<=": ">=", ">=": "<="}
_PYOPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge}


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _satisfiable(cons: Iterable[tuple[str, str, Any]]) -> bool:
    """Can every ``key op value`` hold at once? (Ints: intervals; everything: ==/!=.)"""
    by_key: dict[str, list[tuple[str, Any]]] = {}
    for k, op, v in cons:
        by_key.setdefault(k, []).append((op, v))
    for items in by_key.values():
        eq = [v for op, v in items if op == "=="]
        ne = [v for op, v in items if op == "!="]
        if any(a != eq[0] for a in eq[1:]):
            return False
        if eq and eq[0] in ne:
            return False
        lo, hi = float("-inf"), float("inf")
        for op, v in items:
            if not _is_int(v):
                continue
            if op == ">":
                lo = max(lo, v + 1)
            elif op == ">=":
                lo = max(lo, v)
            elif op == "<":
                hi = min(hi, v - 1)
            elif op == "<=":
                hi = min(hi, v)
        if lo > hi:
            return False
        if eq and _is_int(eq[0]) and not lo <= eq[0] <= hi:
            return False
    return True


def _truthy(a: K | U) -> bool | None:
    """True / False when known, None when not."""
    return bool(a.v) if isinstance(a, K) else None


def _norm(text: str | None) -> str | None:
    return None if text is None else "".join(text.split())


@functools.lru_cache(maxsize=4096)
def _parse(text: str) -> Tree | Token | None:
    try:
        return parse(text)
    except ExprError:
        return None


# ================================================================================= why a rule is dead
@dataclass(frozen=True)
class Why:
    """Why a rule can never fire. ``kind``: ``guard`` (its guard is always false), ``effect`` (a
    permit rule that never grants / never forbids), ``hook`` (the question is never asked),
    ``shadowed`` (a later value rule always answers instead: ``by`` is its id). ``cause``: ``settings``,
    ``flags`` or ``constant``; ``detail`` says which values make it so."""

    kind: str
    message: str
    cause: str = "settings"
    by: str | None = None
    expr: str | None = None
    detail: str | None = None


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
        self.defs = g.resolved.definitions
        self.kinds = tuple(g.model.kinds)
        self.strength = {k: i for i, k in enumerate(self.kinds)}
        self._def_settings: dict[str, frozenset[str]] = {}
        self._scan_reads()
        self._run()

    def texts(self, rule_id: str) -> list[str]:
        """Every expression text of a rule (guard, effect, target, amount, giver)."""
        s = self.specs[rule_id]
        out = [t.text for t in (s.when, s.target, s.amount, s.giver) if t is not None]
        if s.effect not in ("mark", "unmark", "count"):
            out.append(s.effect_expr.text)
        return out

    def _def_names(self, text: str) -> set[str]:
        return {n for n in _NAME_RE.findall(text) if n in self.defs}

    def _settings_of_def(self, name: str, seen: frozenset[str] = frozenset()) -> frozenset[str]:
        if name in self._def_settings:
            return self._def_settings[name]
        if name in seen:
            return frozenset()
        text = self.defs[name].expr.text
        out = {m.group(1) for m in _SETTING_RE.finditer(text)}
        for d in self._def_names(text):
            out |= self._settings_of_def(d, seen | {name})
        self._def_settings[name] = frozenset(out)
        return self._def_settings[name]

    def _scan_reads(self) -> None:
        used: set[str] = set()
        todo: list[str] = []
        texts: list[str] = []
        for n in self.graph.nodes:
            ts = self.texts(n.id)
            texts += ts
            names: set[str] = set()
            for t in ts:
                names |= {m.group(1) for m in _SETTING_RE.finditer(t)}
                for d in self._def_names(t):
                    names |= self._settings_of_def(d)
                    todo.append(d)
            self.rule_settings[n.id] = frozenset(names)
        while todo:
            d = todo.pop()
            if d in used:
                continue
            used.add(d)
            texts.append(self.defs[d].expr.text)
            todo += self._def_names(self.defs[d].expr.text)
        self.used_definitions = used
        for t in texts:
            for m in _SETTING_RE.finditer(t):
                name, key = m.group(1), m.group(2)
                if key is None or name in self.reads and self.reads[name] is ALL:
                    self.reads[name] = ALL
                else:
                    self.reads.setdefault(name, set()).add(key)  # type: ignore[union-attr]

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

    def _answers(self, hook: str) -> list[K | U] | None:
        """Possible answers of a value hook (None when some answer is unknown); the default is
        included unless a rule always answers."""
        out: list[K | U] = []
        always = False
        for n in self.graph.nodes:
            if n.hook != hook:
                continue
            g = self.eval_text(n.when, hook) if n.when else K(True)
            if _truthy(g) is False:
                continue
            v = self.eval_text(n.expr, hook)
            if isinstance(v, U):
                return None
            out.append(v)
            if _truthy(g) is True:
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
                paid = any(int(a.v or 1) > 1 for a in games)  # type: ignore[union-attr]
            except (TypeError, ValueError):
                paid = True
        self.tribute_kinds = None
        kinds = self._answers("tribute_kinds")
        if kinds is not None and all(isinstance(a.v, list) or a.v is None for a in kinds):  # type: ignore[union-attr]
            self.tribute_kinds = frozenset(str(k) for a in kinds for k in (a.v or []))  # type: ignore[union-attr]
        self.tribute_paid = paid

    def _why(self, n) -> Why | None:
        if n.hook in TRIBUTE_HOOKS and not self.tribute_paid:
            return Why("hook", "tribute is never paid: a match is a single game (match_length)")
        if n.hook in TRIBUTE_HOOKS - {"tribute_kinds"} and self.tribute_kinds is not None and not self.tribute_kinds:
            return Why("hook", "tribute is never paid: there are no tribute kinds (tribute_kinds)")
        hook = n.hook
        if n.when:
            g = self.eval_text(n.when, hook)
            if _truthy(g) is False:
                return self._explain("guard", n.when, hook, f"its guard `{_short(n.when)}` is always false")
        if HOOKS[hook].kind == "permit":
            v = self.eval_text(n.expr, hook)
            t = _truthy(v)
            if n.effect == "allow" and t is False:
                return self._explain("effect", n.expr, hook, f"it never allows anything (`allow: {_short(n.expr)}` is always false)")
            if n.effect == "deny" and t is False:
                return self._explain("effect", n.expr, hook, f"it never forbids anything (`deny: {_short(n.expr)}` is always false)")
            if n.effect == "require" and t is True:
                return self._explain("effect", n.expr, hook, f"it never forbids anything (`require: {_short(n.expr)}` is always true)")
        return None

    def _explain(self, kind: str, text: str, hook: str, message: str) -> Why:
        """Say what makes ``text`` constant: flags never set, tribute kinds, settings' values."""
        saved = self.flags, self.counters
        self.flags, self.counters = None, None
        try:
            optimistic = _truthy(self.eval_text(text, hook))
        finally:
            self.flags, self.counters = saved
        baseline = message
        if optimistic is None and self.flags is not None:
            missing = sorted(f for f in self._flag_names(text) if f not in self.flags)
            missing_c = sorted(c for c in self._counter_names(text) if self.counters is not None and c not in self.counters)
            parts = [f"flag {f!r}" for f in missing] + [f"counter {c!r}" for c in missing_c]
            what = " and ".join(parts) or "a flag"
            return Why(kind, f"{baseline}: {what} is never set (no rule that can fire marks it)", "flags", expr=text)
        details = []
        for what in self._relevant(text, hook):
            if what == "kind":
                details.append("tribute is paid only of kinds " + (", ".join(sorted(self.tribute_kinds or ())) or "none"))
            else:
                details.append(f"settings.{what} is {_show(self.setting_value(what))}")
        cause = "settings" if details else "constant"
        return Why(kind, baseline + (" (" + "; ".join(details) + ")" if details else ""), cause, expr=text)

    def setting_value(self, path: str) -> Any:
        """The value of ``NAME`` or ``NAME.KEY``."""
        name, _, key = path.partition(".")
        v = normalize_setting(self.graph.settings.get(name))
        if key:
            v = v.get(key) if isinstance(v, dict) else None
        return v

    def _relevant(self, text: str, hook: str) -> list[str]:
        """The settings (``NAME`` or ``NAME.KEY``) and ``kind`` whose value makes ``text`` constant:
        those that, made unknown one at a time, leave it unknown (all of them when none alone does)."""
        cands: list[str] = []
        texts = [text] + [self.defs[d].expr.text for d in sorted(self._defs_reachable(text))]
        for t in texts:
            for m in _SETTING_RE.finditer(t):
                cands.append(m.group(1) + (f".{m.group(2)}" if m.group(2) else ""))
        if hook in _KIND_HOOKS and self.tribute_kinds is not None and re.search(r"\bkind\b", text):
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
                if _truthy(self.eval_text(text, hook)) is None:
                    out.append(c)
            finally:
                self.unknown_settings, self.tribute_kinds = saved_u, saved_k
        return out or cands[:4]

    def _flag_names(self, text: str, fns: dict[str, int] = _FLAG_FNS) -> set[str]:
        out: set[str] = set()
        texts = [text] + [self.defs[d].expr.text for d in self._defs_reachable(text)]
        for t in texts:
            for m in re.finditer(r"\b(" + "|".join(fns) + r")\s*\([^,()]*(?:\([^()]*\)[^,()]*)*,\s*['\"]([^'\"]+)['\"]", t):
                out.add(m.group(2))
        return out

    def _counter_names(self, text: str) -> set[str]:
        return self._flag_names(text, _COUNTER_FNS)

    def _defs_reachable(self, text: str) -> set[str]:
        out: set[str] = set()
        todo = list(self._def_names(text))
        while todo:
            d = todo.pop()
            if d not in out:
                out.add(d)
                todo += self._def_names(self.defs[d].expr.text)
        return out

    def _shadowing(self) -> None:
        by_hook: dict[str, list] = {}
        for n in self.graph.nodes:
            if HOOKS[n.hook].kind == "value" and n.id not in self.dead:
                by_hook.setdefault(n.hook, []).append(n)
        for hook, rules in by_hook.items():
            for i, a in enumerate(rules):
                for b in rules[i + 1:]:
                    always = b.when is None or _truthy(self.eval_text(b.when, hook)) is True
                    if always or _norm(a.when) == _norm(b.when):
                        same = "no guard" if b.when is None else (
                            "the same guard" if _norm(a.when) == _norm(b.when) else "a guard that always holds")
                        self.dead[a.id] = Why("shadowed", f"the later rule {b.id!r} ({_where(b.origin)}) answers "
                                              f"{hook!r} with {same}, and the last matching rule wins", "rules", b.id,
                                              detail=same)
                        break

    def _inert(self) -> None:
        seen: set[str] = set()  # hooks with an earlier live rule: returning the default there overrides it
        for n in self.graph.nodes:
            h = HOOKS[n.hook]
            if h.kind != "value" or n.id in self.dead:
                continue
            first = n.hook not in seen
            seen.add(n.hook)
            if not first or "settings." not in n.expr:
                continue
            v = self.eval_text(n.expr, n.hook)
            if isinstance(v, K) and v.v == h.default and (n.when is None or _truthy(self.eval_text(n.when, n.hook)) is not False):
                self.inert.add(n.id)

    # ------------------------------------------------------------------ evaluation
    def eval_text(self, text: str, hook: str) -> K | U:
        tree = _parse(text)
        if tree is None:
            return UNKNOWN
        return _Eval(self, hook, text, {}, 0).ev(tree)


def _short(text: str, limit: int = 70) -> str:
    t = " ".join(text.split())
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


class _Eval:
    """Abstract evaluation of one expression tree in one hook's context."""

    def __init__(self, an: Analysis, hook: str, text: str, env: dict[str, K | U], depth: int,
                 keyed: bool = True):
        self.an, self.hook, self.text, self.env, self.depth = an, hook, text, env, depth
        self.keyed = keyed  # inside a definition with parameters, texts are not stable keys
        self.context = HOOKS[hook].context

    def key(self, t) -> str | None:
        if not self.keyed or not isinstance(t, Tree) or t.meta.empty:
            return None
        return "".join(self.text[t.meta.start_pos:t.meta.end_pos].split())

    def ev(self, t) -> K | U:
        if isinstance(t, Token):
            return UNKNOWN
        meth = getattr(self, "e_" + t.data.rstrip("_"), None)
        if meth is None:
            return UNKNOWN
        try:
            return meth(t)
        except (TypeError, ValueError, KeyError, IndexError, ZeroDivisionError, AttributeError):
            return UNKNOWN

    # literals
    def e_number(self, t):
        return K(int(t.children[0]))

    def e_string(self, t):
        return K(str(t.children[0])[1:-1])

    def e_true(self, t):
        return K(True)

    def e_false(self, t):
        return K(False)

    def e_none(self, t):
        return K(None)

    def e_list(self, t):
        items = [self.ev(c) for c in t.children]
        if all(isinstance(i, K) for i in items):
            return K([i.v for i in items])  # type: ignore[union-attr]
        return U(nonnull=True)

    # names
    def e_name(self, t):
        name = str(t.children[0])
        if name in self.env:
            return self.env[name]
        if name in self.context:
            if name == "kind" and self.an.tribute_kinds is not None:
                return U(nonnull=True, domain=self.an.tribute_kinds, key=name)
            nullable = name == "beaten" or (name == "top" and self.hook == "play")
            return U(nonnull=not nullable, key=name)
        if name in GLOBAL_VARS:
            return U(nonnull=GLOBAL_VARS[name].type not in ("seat",), key=name)
        if name in self.an.defs:
            return self.call_def(name, [])
        return UNKNOWN

    def e_attr(self, t):
        base_node, attr_tok = t.children
        attr = str(attr_tok)
        if isinstance(base_node, Tree) and base_node.data == "name" and str(base_node.children[0]) == "settings" \
                and "settings" not in self.env:
            if attr in self.an.unknown_settings:
                return UNKNOWN
            return K(normalize_setting(self.an.graph.settings.get(attr)))
        if isinstance(base_node, Tree) and base_node.data == "attr" and isinstance(base_node.children[0], Tree) \
                and base_node.children[0].data == "name" and str(base_node.children[0].children[0]) == "settings" \
                and f"{base_node.children[1]}.{attr}" in self.an.unknown_settings:
            return UNKNOWN
        base = self.ev(base_node)
        if isinstance(base, K):
            if isinstance(base.v, dict):
                return K(base.v.get(attr))
            if base.v is None:
                return K(None)
            return UNKNOWN
        if attr in PLAY_ATTRS:
            nonnull = base.nonnull and attr not in ("beaten", "yielder")
            return U(nonnull=nonnull, key=self.key(t))
        return UNKNOWN

    def e_index(self, t):
        base, key = self.ev(t.children[0]), self.ev(t.children[1])
        if isinstance(base, K) and isinstance(key, K):
            b, k = base.v, key.v
            if isinstance(b, dict):
                return K(b.get(str(k) if _is_int(k) or isinstance(k, str) else k))
            if isinstance(b, list):
                return K(b[k]) if _is_int(k) and -len(b) <= k < len(b) else K(None)
            if b is None:
                return K(None)
        return U(key=self.key(t))

    def call_def(self, name: str, args: list[K | U]) -> K | U:
        if self.depth > 24:
            return UNKNOWN
        d = self.an.defs[name]
        tree = _parse(d.expr.text)
        if tree is None or len(args) != len(d.params):
            return UNKNOWN
        env = dict(zip(d.params, args))
        sub = _Eval(self.an, self.hook, d.expr.text, env, self.depth + 1, keyed=self.keyed and not d.params)
        return sub.ev(tree)

    def e_call(self, t):
        name_tok, *arg_nodes = t.children
        name = str(name_tok)
        args = [self.ev(a) for a in arg_nodes]
        if name in self.an.defs:
            return self.call_def(name, args)
        sig = FUNCTIONS.get(name)
        if sig is None:
            return UNKNOWN
        folded = self.fold(name, args)
        if folded is not None:
            return folded
        key = None if name in _RANDOM_FNS else self.key(t)
        if sig.returns in ("seat", "rank", "any") or name in _NULLABLE_INT_FNS:
            return U(key=key)
        return U(nonnull=True, key=key)

    def fold(self, name: str, args: list[K | U]) -> K | None:
        an = self.an

        def known(i: int) -> bool:
            return i < len(args) and isinstance(args[i], K)

        def val(i: int) -> Any:
            return args[i].v  # type: ignore[union-attr]

        def not_a_kind(v: Any) -> bool:
            return v is None or str(v) not in an.strength

        if name in _CARD_COUNT_FNS and known(1) and not_a_kind(val(1)):
            return K(0)
        if name in ("dealt_of", "holds_of") and known(1) and all(not_a_kind(x) for x in (val(1) or [])):
            return K(0)
        if name == "first_held" and known(1) and all(not_a_kind(x) for x in (val(1) or [])):
            return K(None)
        if name == "with_at_least" and (known(0) and not val(0) or known(1) and not_a_kind(val(1))
                                        and known(2) and _is_int(val(2)) and val(2) > 0):
            return K([])
        if name == "max_dealt" and (known(0) and not val(0) or known(1) and not_a_kind(val(1))):
            return K(0)
        if name in ("active_of", "flagged") and known(0) and not val(0):
            return K([])
        if name == "count" and known(0):
            return K(len(val(0) or []))
        if name == "first" and known(0):
            return K((val(0) or [None])[0])
        if name == "coalesce" and args:
            a = args[0]
            if isinstance(a, K):
                return a if a.v is not None else (args[1] if isinstance(args[1], K) else None)
            return None
        if name in ("min", "max") and known(0) and known(1) and _is_int(val(0)) and _is_int(val(1)):
            return K(min(val(0), val(1)) if name == "min" else max(val(0), val(1)))
        if name in _FLAG_FNS and an.flags is not None and known(1) and str(val(1)) not in an.flags:
            return K([] if name == "flagged" else False) if name != "next_active_without" else None
        if name in _COUNTER_FNS and an.counters is not None and known(1) and str(val(1)) not in an.counters:
            return K(0)
        return None

    # logic
    def e_and(self, t):
        a, b = self.ev(t.children[0]), self.ev(t.children[1])
        ta, tb = _truthy(a), _truthy(b)
        if ta is False or tb is False:
            return K(False)
        if ta is True and tb is True:
            return K(True)
        if ta is True:
            return b if isinstance(b, U) else UBOOL
        if tb is True:
            return a if isinstance(a, U) else UBOOL
        cons = a.cons + b.cons  # type: ignore[union-attr]
        if cons and not _satisfiable(cons):
            return K(False)
        return U(nonnull=True, cons=cons)

    def e_or(self, t):
        a, b = self.ev(t.children[0]), self.ev(t.children[1])
        ta, tb = _truthy(a), _truthy(b)
        if ta is True or tb is True:
            return K(True)
        if ta is False and tb is False:
            return K(False)
        if ta is False:
            return b
        if tb is False:
            return a
        return UBOOL

    def e_not(self, t):
        a = self.ev(t.children[0])
        ta = _truthy(a)
        return UBOOL if ta is None else K(not ta)

    def e_cond(self, t):
        then, cond, other = t.children
        c = _truthy(self.ev(cond))
        if c is True:
            return self.ev(then)
        if c is False:
            return self.ev(other)
        a, b = self.ev(then), self.ev(other)
        if isinstance(a, K) and isinstance(b, K) and a.v == b.v:
            return a
        nonnull = all((isinstance(x, K) and x.v is not None) or (isinstance(x, U) and x.nonnull) for x in (a, b))
        return U(nonnull=nonnull)

    def e_compare(self, t):
        left, op_tok, right = t.children
        a, b = self.ev(left), self.ev(right)
        op = str(op_tok)
        if isinstance(a, K) and isinstance(b, K):
            return K(self._cmp(a.v, op, b.v))
        if isinstance(a, K):
            a, b, op = b, a, _FLIP[op]
        # a is unknown from here on
        if isinstance(b, U):
            return UBOOL
        v = b.v
        if v is None:
            if op in _PYOPS:
                return K(False)
            if a.nonnull:  # type: ignore[union-attr]
                return K(op == "!=")
            return UBOOL
        dom = a.domain  # type: ignore[union-attr]
        if dom is not None and op in ("==", "!=") and str(v) not in dom and v not in dom:
            return K(op == "!=")
        key = a.key  # type: ignore[union-attr]
        if key is not None and (_is_int(v) or op in ("==", "!=")):
            return U(nonnull=True, cons=((key, op, v),))
        return UBOOL

    def _cmp(self, x: Any, op: str, y: Any) -> bool:
        if op == "==":
            return x == y
        if op == "!=":
            return x != y
        if x is None or y is None:
            return False
        if isinstance(x, str) and isinstance(y, str):
            sx, sy = self.an.strength.get(x), self.an.strength.get(y)
            if sx is None or sy is None:
                return False
            return _PYOPS[op](sx, sy)
        return _PYOPS[op](x, y)

    def _member(self, t, negate: bool):
        a, b = self.ev(t.children[0]), self.ev(t.children[1])
        if isinstance(b, K):
            m = b.v
            if not m:
                return K(negate)
            if isinstance(a, K):
                k = a.v
                if isinstance(m, dict):
                    k = str(k) if _is_int(k) or isinstance(k, str) else k
                return K((k in m) != negate)
            if isinstance(a, U) and a.domain is not None:
                inside = {x for x in a.domain if x in m or str(x) in m}
                if not inside:
                    return K(negate)
                if inside == set(a.domain):
                    return K(not negate)
        return UBOOL

    def e_in(self, t):
        return self._member(t, False)

    def e_not_in(self, t):
        return self._member(t, True)

    def e_listop(self, t):
        left, op_tok, right = t.children
        a, b = self.ev(left), self.ev(right)
        if isinstance(a, K) and isinstance(b, K):
            x, y = list(a.v or []), list(b.v or [])
            op = str(op_tok)
            if op == "++":
                return K(x + y)
            if op == "--":
                return K([i for i in x if i not in y])
            return K([i for i in x if i in y])
        return U(nonnull=True)

    def e_arith(self, t):
        left, op_tok, right = t.children
        a, b = self.ev(left), self.ev(right)
        if (isinstance(a, K) and a.v is None) or (isinstance(b, K) and b.v is None):
            return K(None)
        if isinstance(a, K) and isinstance(b, K):
            op = str(op_tok)
            if op in ("//", "/", "%") and b.v == 0:
                return K(None)
            fn = {"+": operator.add, "-": operator.sub, "*": operator.mul, "//": operator.floordiv,
                  "/": operator.truediv, "%": operator.mod}[op]
            return K(fn(a.v, b.v))
        return UNKNOWN

    def e_neg(self, t):
        a = self.ev(t.children[0])
        if isinstance(a, K) and a.v is not None:
            return K(-a.v)
        return UNKNOWN


def analyse(graph, unknown_settings: Iterable[str] = ()) -> Analysis:
    """Fold ``graph``'s settings into its rules: which rules can never fire, which flags are set,
    whether tribute is paid, which settings are read. ``unknown_settings`` are treated as unknown
    (used to tell a rule switched off by its own file's setting from one that is simply dead)."""
    return Analysis(graph, frozenset(unknown_settings))


# ================================================================================= the lint
class _Lines:
    def __init__(self, resolved):
        self.resolved = resolved
        self.cache: dict[str, str | None] = {resolved.path: resolved.text}

    def line(self, path: str, n: int) -> str | None:
        if path not in self.cache:
            try:
                self.cache[path] = Path(path).read_text(encoding="utf-8")
            except OSError:
                self.cache[path] = None
        text = self.cache[path]
        return None if text is None else line_of(text, n)


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

    def diag(o: SourcePos, message: str, hint: str | None = None, severity: str = "warning") -> None:
        out.append(Diagnostic(o.path, o.line, o.col, message, hint, lines.line(o.path, o.line), severity))

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
            names = sorted(an._flag_names(why.expr or "")) if why.expr else []
            hint = "add a rule that marks the flag (`mark: NAME`), or check its name; the engine itself sets " \
                   + ", ".join(sorted(ENGINE_FLAGS))
            for f in names:
                if an.flags is not None and f not in an.flags:
                    dym = did_you_mean(f, an.flags)
                    if dym:
                        hint = f"flag {f!r}: {dym}"
                        break
        elif why.kind == "hook":
            hint = "set the match length (settings.match_games) and the tribute kinds to use these rules"
        else:
            hint = "check the guard against the settings shown; if the rule is meant to be off, remove it"
        diag(n.origin, f"rule {n.id!r} can never fire: {why.message}", hint)

    # (b) two rules deciding the same question for the same state ---------------------------------
    for n in nodes:
        why = an.dead.get(n.id)
        if why is None or why.kind != "shadowed" or why.by is None:
            continue
        later = by_id[why.by]
        if not n.inherited:
            diag(n.origin, f"rule {n.id!r} can never decide {n.hook!r}: {why.message}",
                 "delete one of the two, or give them different guards")
        elif not later.inherited:
            diag(later.origin, f"rule {later.id!r} makes the inherited rule {n.id!r} ({_where(n.origin)}) dead: "
                 f"both answer {n.hook!r}, this one with {why.detail}, and the last matching rule wins",
                 f"to replace it, give this rule the id {n.id!r} (it then overrides it in place), "
                 f"or add {n.id!r} to `remove:`")
    for hook, h in HOOKS.items():
        if h.kind != "permit":
            continue
        rules = [n for n in nodes if n.hook == hook and n.id not in an.dead]
        for i, a in enumerate(rules):
            for b in rules[i + 1:]:
                if _norm(a.when) != _norm(b.when) or (a.inherited and b.inherited):
                    continue
                ea, eb = (a.effect, _norm(a.expr)), (b.effect, _norm(b.expr))
                pair = {ea[0], eb[0]}
                if ea[1] != eb[1] or pair not in ({"allow", "deny"}, {"require", "deny"}):
                    continue
                at = b if not b.inherited else a
                other = a if at is b else b
                what = "one allows what the other forbids" if pair == {"allow", "deny"} else \
                    "one requires what the other forbids, so it is always forbidden"
                diag(at.origin, f"rules {a.id!r} and {b.id!r} decide {hook!r} in the same state with "
                     f"contradictory effects: {what} (other rule at {_where(other.origin)})",
                     "keep one of them, or give them different guards")

    # (c) phases with no way out ------------------------------------------------------------------
    def missing(hook: str, message: str, hint: str, severity: str = "warning") -> None:
        rules = [n for n in nodes if n.hook == hook]
        live = [n for n in rules if n.id not in an.dead]
        if live:
            return
        ownrules = [n for n in rules if not n.inherited]
        if ownrules:
            diag(ownrules[-1].origin, message + f" (rule {ownrules[-1].id!r} can never fire)", hint, severity)
            return
        rem = _removal_origin(resolved, hook)
        if rem is not None:
            diag(rem[0], message + f" (removing {rem[1]!r} left none)", hint, severity)
        elif not rules:
            diag(_top_origin(resolved), message, hint, severity)
        else:
            diag(_top_origin(resolved), message + f" (no {hook} rule can fire under these settings)", hint, severity)

    missing("game_over", "the game can never end: no rule answers 'game_over' (the answer is always no)",
            "add a rule `on: game_over` with a `value:`, e.g. count(active_seats) <= 1", "error")
    over = [n for n in nodes if n.hook == "game_over" and n.id not in an.dead]
    if over and all(_truthy(an.eval_text(n.expr, "game_over")) is False for n in over):
        n = over[-1]
        diag(n.origin, f"the game can never end: rule {n.id!r} always answers 'game_over' with no",
             "the value must become true once the game is decided, e.g. count(active_seats) <= 1", "error")
    missing("gouji", "no rule says what a gouji play is: no play is ever a gouji play",
            "add a rule `on: gouji` (the engine's answer is no)")
    missing("first_leader", "no rule chooses the first leader: seat 1 always leads the first trick",
            "add a rule `on: first_leader`")
    missing("follow_order", "no rule orders the answers to a play: every seat is asked once, in play order, "
            "passed or not", "add a rule `on: follow_order`")
    missing("next_leader", "no rule chooses who leads the next trick: the trick's winner, or the next "
            "player still in", "add a rule `on: next_leader`")
    for hook, severity, what in (("play", "error", "no play is ever allowed: the game cannot go on"),
                                 ("follow", "warning", "nobody may ever answer a play")):
        for n in nodes:
            if n.hook != hook or n.id in an.dead:
                continue
            if n.when is not None and _truthy(an.eval_text(n.when, hook)) is not True:
                continue
            v = _truthy(an.eval_text(n.expr, hook))
            if (n.effect == "deny" and v is True) or (n.effect == "require" and v is False):
                diag(n.origin, f"rule {n.id!r} forbids every {hook!r}: {what}",
                     "give the rule a guard (`when:`) or an effect that depends on the play", severity)

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
            diag(s.origin, f"setting {name!r} is read by no rule, no definition a rule uses, and not by the engine",
                 hint)
            continue
        keys_read = an.reads.get(name, set())
        if keys_read is ALL or not isinstance(s.value, dict):
            continue
        known = set(keys_read) | set(engine_keys)
        raw = _own_raw(resolved.path, resolved.text or "")
        written = (raw.get(("settings", name)) if raw is not None else None)
        base_loc = ("settings", name, "value") if isinstance(written, dict) and "value" in written else ("settings", name)
        for k in s.value:
            o = s.key_origins.get(str(k)) or s.key_origins.get(k)  # type: ignore[call-overload]
            if o is None or o.path != own_path or str(k) in known:
                continue
            if raw is not None and (base_loc + (k,)) in raw.keys:
                o = raw.origin(base_loc + (k,), key=True)
            diag(o, f"key {k!r} of setting {name!r} is read by nothing",
                 did_you_mean(str(k), known) or f"keys read: {', '.join(sorted(known)) or 'none'}")

    # (e) a setting changed without its own sentence ------------------------------------------------
    long_form = "write the long form {value: ..., says: \"...\", source: \"...\"}"
    for name in sorted(stale_says(graph)):
        s = resolved.settings[name]
        diag(s.origin, f"setting {name!r} is changed here but keeps an inherited sentence, which may no longer "
             f"be true: {_short(s.says or '', 90)!r}", long_form)
    parent = _parent(resolved)
    for name, s in resolved.settings.items():
        before = parent.settings.get(name) if parent is not None else None
        if s.inherited or s.says or before is None or not before.says \
                or normalize_setting(before.value) == normalize_setting(s.value):
            continue
        diag(s.origin, f"setting {name!r} is changed here without a sentence (says): the rulebook (gouji doc) "
             f"loses the parent's {_short(before.says, 70)!r} and says nothing instead", long_form)

    uniq: dict[tuple, Diagnostic] = {}
    for d in out:
        uniq.setdefault((d.path, d.line, d.col, d.message), d)
    return sorted(uniq.values(), key=lambda d: (d.path != own_path, d.path, d.line, d.col, d.message))


def quick_warnings(graph) -> list[Diagnostic]:
    """The findings worth showing even without ``--strict``: a setting (or key) nothing reads is
    most likely a misspelt name (``sweep_multipler``). Never raises: a lint problem yields nothing."""
    try:
        return [d for d in lint(graph) if "is read by no rule" in d.message or "is read by nothing" in d.message]
    except Exception:
        return []
