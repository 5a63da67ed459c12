"""Check the rules of a resolved ruleset before the graph is built (:func:`check_rules`).

Every setting is typed (:mod:`gouji_dsl.ruleset.settings`) and the card model built; every expression is
parsed once (:mod:`gouji_dsl.lang.parse`) and checked in the scope of its question (:func:`hook_scope`;
:mod:`gouji_dsl.lang.check`: a name the question does not know is an error); each rule's hook, effect,
``before``/``after`` (which must not form a cycle) and ``said_by`` are checked, and a value rule's constant
answer against its question's numbers (:func:`answer_bounds`). Every problem is collected and raised together.
The result is the :class:`RuleNode` of each rule; :mod:`gouji_dsl.ruleset.graph` compiles them into the graph.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType

from gouji_dsl.diagnostics import Code, Diagnostic, DiagnosticBag, Severity, SourcePos, did_you_mean
from gouji_dsl.i18n import _
from gouji_dsl.lang.ast import Literal, Node, Setting, Unary, UnOp
from gouji_dsl.lang.check import DefInfo, Definitions, Scope, VarSig, check, unknown_names
from gouji_dsl.lang.parse import ExprError, parse
from gouji_dsl.lang.types import BOOL, INT, RANK, SEAT, Enum, Int, Type, parse_type, strip
from gouji_dsl.ruleset import sources
from gouji_dsl.ruleset.game.model import CardModel, SettingError
from gouji_dsl.ruleset.game.vocabulary import (
    CONTEXT_VARS,
    EFFECTS_BY_KIND,
    FUNCTIONS,
    GLOBAL_VARS,
    HOOKS,
    PLACE_WORDS,
    PLAY_ATTRS,
    Hook,
    HookKind,
)
from gouji_dsl.ruleset.load.locating import locator
from gouji_dsl.ruleset.settings import Settings, check_settings
from gouji_dsl.ruleset.spec import ResolvedRuleset, RuleSpec, Text, said

__all__ = ["RuleNode", "CheckedRules", "check_rules", "hook_scope", "answer_bounds", "MAX_MATCH_LENGTH", "MAX_SETUP_ROUNDS",
           "PLACE_TYPE"]


PLACE_TYPE = parse_type(PLACE_WORDS)


@dataclass(frozen=True)
class RuleNode:
    """One rule of the graph: what it decides and where it was written. ``checked`` holds the type-checked
    expression trees (:mod:`gouji_dsl.lang.ast`) by part: ``when``, ``effect``, ``target``, ``amount``,
    ``giver`` (a mark/unmark/count rule has no ``effect`` tree: its effect is a name)."""

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
    checked: Mapping[str, Node] = field(default_factory=lambda: MappingProxyType({}), compare=False, repr=False)
    said_by: tuple[str, ...] = ()

    @property
    def where(self) -> str:
        """``file:line`` of the rule's id."""
        return f"{self.origin.path}:{self.origin.line}"

    def sentence(self) -> str:
        """The player-facing sentence (``says``) in the active language (:func:`~gouji_dsl.ruleset.spec.said`),
        or a generated one."""
        if self.says:
            return said(self.says) or ""
        w = _("when {when}, ").format(when=self.when) if self.when else ""
        return f"{w}{self.effect} {self.expr}"


MAX_MATCH_LENGTH = 1000
"""The most games a ``match_length`` rule may make a match of."""


MAX_SETUP_ROUNDS = 64
"""The most rounds of ``seat_setup`` rules a ruleset may ask for (``setup_rounds``)."""


def answer_bounds(hook: str, n_seats: int) -> tuple[int, int, str] | None:
    """The whole numbers a value question's answer may be, ``(lo, hi, what)``, or None (any number):
    a place 1..N (``revolution_place``), the following players a yield hands the decision to
    0..N-1 (``yield_to``), the games of a match 1..:data:`MAX_MATCH_LENGTH`, the rounds of
    ``seat_setup`` rules 0..``MAX_SETUP_ROUNDS``. An answer outside is a rule failure (and a validate
    error where the answer is a constant), never taken in as the nearest value."""
    n = max(n_seats, 1)
    return {"revolution_place": (1, n, _("a place 1..{n}").format(n=n)),
            "yield_to": (0, n - 1, _("a number of players 0..{n}").format(n=n - 1)),
            "match_length": (1, MAX_MATCH_LENGTH, _("a number of games 1..{max_match_length}").format(max_match_length=MAX_MATCH_LENGTH)),
            "setup_rounds": (0, MAX_SETUP_ROUNDS, _("a number of rounds 0..{max_setup_rounds} (MAX_SETUP_ROUNDS)").format(
                max_setup_rounds=MAX_SETUP_ROUNDS)),
            }.get(hook)


_ENGINE_QUESTIONS = ("revolt", "declare", "choose")


_ENGINE_ANSWERS = ("pass", "revolt", "declare", "head", "headless")


def _choice_var(name: str, sig: VarSig, settings: Settings) -> VarSig:
    """``choice`` / ``answer`` typed as the words they can be (the ruleset's choices and the
    engine's questions and answers): ``choice == 'redael'`` is ValueNotAllowed with did-you-mean."""
    if name not in ("choice", "answer"):
        return sig
    words = tuple(str(w) for w in (settings.typed().get("choices") or {}))
    values = words + (_ENGINE_QUESTIONS if name == "choice" else _ENGINE_ANSWERS)
    return VarSig(Enum(tuple(dict.fromkeys(values))), sig.get, sig.doc, game=sig.game)


def hook_scope(hook: Hook | None, settings: Settings, definitions: Mapping[str, DefInfo], *,
               context: tuple[str, ...] | None = None, params: tuple[str, ...] = ()) -> Scope:
    """The scope of an expression asked in ``hook`` (None: a definition or a tool's expression,
    which may use every context variable, or ``context``). Names of other questions and, where
    there is no game, the game's names are listed as unavailable, with the reason."""
    ctx_names = hook.context if hook is not None else (context if context is not None else tuple(CONTEXT_VARS))
    game = hook.game if hook is not None else True
    variables = {}
    unavailable: dict[str, str] = {}
    where = _("the {name!r} question is asked").format(name=hook.name) if hook is not None else _("here")
    avail = ", ".join(ctx_names) or "none"
    for name, sig in CONTEXT_VARS.items():
        if name in ctx_names:
            variables[name] = _choice_var(name, sig, settings)
        else:
            unavailable[name] = _("{name!r} is not known when {where} (available here: {avail})").format(name=name, where=where, avail=avail)
    known_fns = ", ".join(n for n, f in FUNCTIONS.items() if not f.game)
    no_game = (_("the {name!r} question is asked without a game going on: game variables and functions "
               "(game_number, trick_number, hand_size(...), a definition that reads one) are not known there; "
               "settings.NAME and {known_fns} are").format(name=hook.name, known_fns=known_fns)) if hook is not None else ""
    for name, sig in GLOBAL_VARS.items():
        if game:
            variables[name] = sig
        else:
            unavailable[name] = no_game
    if not game:
        for name, fsig in FUNCTIONS.items():
            if fsig.game:
                unavailable[name] = no_game
    return Scope(variables=variables, functions=FUNCTIONS, play_attrs=PLAY_ATTRS, settings=settings.for_expressions(),
                 kinds=settings.kinds, n_seats=settings.n_seats, definitions=definitions, params=params,
                 unavailable=unavailable)


class _Texts:
    """Parses the expression texts of one ruleset, placing every node in its file."""

    def __init__(self, bag: DiagnosticBag):
        self.bag = bag
        self.sources: dict[str, str | None] = {}
        self.scopes: dict[str, Scope] = {}

    def source(self, path: str) -> str | None:
        if path not in self.sources:
            try:
                self.sources[path] = sources.source_text(path)
            except OSError:
                self.sources[path] = None
        return self.sources[path]

    def locate(self, text: Text) -> Callable[[int], tuple[int, int]]:
        return locator(text, self.source(text.origin.path))

    def parse(self, text: Text) -> Node | ExprError:
        try:
            return parse(text.text, path=text.origin.path, locate=self.locate(text))
        except ExprError as e:
            return e

    def report(self, text: Text, e: ExprError, what: str, hint: str | None = None) -> None:
        locate = self.locate(text)
        line, col = locate(e.offset)
        end_line, end_col = locate(e.end) if e.end > e.offset else (0, 0)
        pos = SourcePos(text.origin.path, line, col, end_line, end_col)
        h = e.hint if hint is None else (f"{e.hint}; {hint}" if e.hint else hint)
        self.bag.add(Diagnostic.at(pos, _("{what}: {message}").format(
            what=what, message=e.message), hint=h, source_line=sources.source_line(pos.path, line), code=e.code))


def _card_model(resolved: ResolvedRuleset, typed: Settings, bag: DiagnosticBag) -> CardModel | None:
    """The card model of the typed settings, or None with the problem reported at the setting."""
    try:
        return CardModel.from_settings(typed.typed())
    except SettingError as e:
        s = resolved.settings.get(e.setting)
        pos = s.origin if s is not None else SourcePos(resolved.path, 1, 1)
        bag.add(Diagnostic.at(pos, _("card settings: {e}").format(e=e), hint=e.hint, source_line=sources.source_line(pos.path, pos.line),
                              code=Code.CARD_MODEL))
        return None


def _check_definitions(resolved: ResolvedRuleset, typed: Settings, definitions: Definitions,
                       def_sources: dict[str, tuple[tuple[str, ...], Node | ExprError, SourcePos]], texts: _Texts) -> None:
    """Every definition checked, those no rule uses too; each problem reported at the definition."""
    for name in definitions:
        definitions[name]  # check the definitions no rule uses too
    for name, err in definitions.errors.items():
        texts.report(resolved.definitions[name].expr, err, _("in definition {name!r}").format(name=name))
        params, tree, _source = def_sources[name]
        if not isinstance(tree, ExprError):  # every unknown name of the body, whatever the first problem
            for other in unknown_names(tree, hook_scope(None, typed, definitions, params=params)):
                if other.offset != err.offset:
                    texts.report(resolved.definitions[name].expr, other, _("in definition {name!r}").format(name=name))


_CHOICE_WORD = re.compile(r"[a-z][a-z0-9-]{0,31}")


def _choice_words(resolved: ResolvedRuleset) -> list[Diagnostic]:
    """A word of ``settings.choices`` is a move's word (``3 choose redeal``): lower-case letters,
    digits and ``-``, at most 32, and not a word the engine's own ``choose`` takes."""
    s = resolved.settings.get("choices")
    out: list[Diagnostic] = []
    if s is None or not isinstance(s.value, dict):
        return out
    for w in s.value:
        word = str(w)
        pos = s.key_origins.get(word) or s.origin
        why = None
        if not _CHOICE_WORD.fullmatch(word):
            why = _("a choice is answered 'SEAT choose WORD': lower-case letters, digits and '-', starting with a letter, at most 32")
        elif word in ("head", "headless", "pass"):
            why = _("{word!r} is a word of the engine's own questions ('choose head' / 'choose headless', 'pass')").format(word=word)
        if why:
            out.append(Diagnostic.at(pos, _("choice {word!r} cannot be a move word: {why}").format(
                word=word, why=why), hint=_("e.g. redeal, ask-redeal"),
                                     source_line=sources.source_line(pos.path, pos.line), code=Code.VALUE_NOT_ALLOWED))
    return out


def _settings_hint(spec: RuleSpec, typed: Settings, node_reads: frozenset[str]) -> str | None:
    """Where the settings a failing rule reads were set, when that is another file than the rule's."""
    notes = []
    for r in sorted(node_reads):
        if not r.startswith("settings.") or r.count(".") != 1:
            continue
        name = r.split(".", 1)[1]
        st = typed.get(name)
        if st is not None and st.origin.path != spec.origin.path:
            notes.append(_("settings.{name} is set at {short_path}:{line}").format(
                name=name, short_path=sources.short_path(st.origin.path), line=st.origin.line))
    return "; ".join(notes) or None


def _constant_answer(spec: RuleSpec, node: RuleNode, typed: Settings, texts: _Texts) -> None:
    """A value rule whose answer is a constant outside its question's numbers (``revolution_place:
    99``, ``match_length: 0``): an error at the answer, before any game (at run time it would be a
    rule failure)."""
    bounds = answer_bounds(node.hook, typed.n_seats) if node.effect == "value" and typed.n_seats else None
    tree = node.checked.get("effect")
    if bounds is None or tree is None or spec.effect_expr is None:
        return
    sign, at = 1, tree
    if isinstance(tree, Unary) and tree.op == UnOp.NEG:
        sign, tree = -1, tree.operand
    if not isinstance(tree, Literal | Setting) or isinstance(tree, Setting) and tree.path:  # (a setting's key: not here)
        return
    lo, hi, what = bounds
    v = tree.value if isinstance(tree.value, bool) or not isinstance(tree.value, int) else sign * tree.value
    if not isinstance(v, int) or isinstance(v, bool) or lo <= v <= hi:
        return
    info = typed.get(tree.name) if isinstance(tree, Setting) and sign == 1 else None
    if info is not None and info.origin.path != spec.effect_expr.origin.path:
        # the answer is a setting set in another file than the rule (a child's match_games: 0 read by
        # base's tribute.match): its own type has already refused a value outside its bounds at the
        # line that set it; otherwise the problem is said there, not in the (bundled) rule reading it
        o = info.origin
        t = strip(info.type)
        if isinstance(t, Int) and ((t.lo is not None and v < t.lo) or (t.hi is not None and v > t.hi)) or any(
                (d.path, d.line, d.col) == (o.path, o.line, o.col) for d in texts.bag.errors):
            return
        texts.bag.add(Diagnostic.at(o, _("setting {name} is {v}, but rule {id!r} answers it to "
                                       "{hook!r}, which needs {what}").format(
                                           name=info.name, v=v, id=spec.id, hook=node.hook, what=what), hint=_("{hook} answers {what}").format(
                                               hook=node.hook, what=what),
                                    source_line=sources.source_line(o.path, o.line), code=Code.OUT_OF_RANGE))
        return
    texts.report(spec.effect_expr, ExprError(_("the answer {v} is not {what}").format(v=v, what=what), at.start,
                                             _("{hook} answers {what}").format(hook=node.hook, what=what), Code.OUT_OF_RANGE, at.end),
                 _("rule {id!r} value").format(id=spec.id))


def _report_unknown_names(spec: RuleSpec, typed: Settings, definitions: Definitions, texts: _Texts) -> None:
    """The names no question knows in a rule whose hook is unknown (misspelt: ``on: folow``) or
    takes another effect (``on: follow`` with ``value:``): its
    expressions are checked against every question's names at once (types are not checked: what
    the question wants is not known), so `sat` beside `folow` is reported too."""
    scope = texts.scopes.get("")
    if scope is None:
        scope = texts.scopes[""] = hook_scope(None, typed, definitions)
    parts: list[tuple[str, Text | None]] = [("when", spec.when), ("target", spec.target), ("amount", spec.amount),
                                            ("giver", spec.giver)]
    if spec.effect not in ("mark", "unmark", "count"):  # those name a flag or counter, not an expression
        parts.insert(1, (spec.effect, spec.effect_expr))
    for part, text in parts:
        if text is None:
            continue
        tree = texts.parse(text)
        if isinstance(tree, ExprError):
            texts.report(text, tree, _("rule {id!r} {part}").format(id=spec.id, part=part))
            continue
        for e in unknown_names(tree, scope):
            texts.report(text, e, _("rule {id!r} {part}").format(id=spec.id, part=part))


def _hook_of(spec: RuleSpec, bag: DiagnosticBag) -> Hook | None:
    """The hook the rule is on, which takes its effect; None (reported) when it is unknown or takes other effects."""
    hook_name = spec.on.text
    hook = HOOKS.get(hook_name)
    if hook is None:
        o = spec.on.origin
        bag.add(Diagnostic.at(o, _("unknown hook {hook_name!r} in rule {id!r}").format(hook_name=hook_name, id=spec.id),
                              hint=did_you_mean(hook_name, HOOKS) or _("hooks: ") + ", ".join(HOOKS),
                              source_line=sources.source_line(o.path, o.line), code=Code.UNKNOWN_HOOK))
        return None
    allowed = EFFECTS_BY_KIND[hook.kind]
    if spec.effect not in allowed:
        o = spec.effect_expr.origin
        bag.add(Diagnostic.at(o, _("rule {id!r}: hook {hook_name!r} takes {join}, not {effect!r}").format(
            id=spec.id, hook_name=hook_name, join=' / '.join(allowed), effect=spec.effect),
                              hint=_("{hook_name} is a {kind} question: {doc}").format(
                                  hook_name=hook_name, kind=hook.kind, doc=hook.doc), source_line=sources.source_line(o.path, o.line),
                              code=Code.WRONG_EFFECT))
        return None
    return hook


def _effect_wants(spec: RuleSpec, hook: Hook) -> tuple[Type | None, str] | None:
    """The type the rule's effect expression must have and what it is, or None (a flag or counter's name)."""
    if hook.kind == HookKind.TRIGGER and spec.effect in ("mark", "unmark", "count"):
        return None
    if spec.effect == "place":
        return PLACE_TYPE, _("a place")
    if spec.effect == "give":
        return RANK, _("the card kind given")
    if hook.kind == HookKind.PERMIT:
        return BOOL, f"{spec.effect}"
    return hook.type, _("the answer to {hook_name!r}").format(hook_name=hook.name)


def _rule_parts(spec: RuleSpec, hook: Hook) -> list[tuple[str, Text | None, Type | None, str]]:
    """The expressions of a rule to check: (part, text, type wanted, what it is)."""
    parts: list[tuple[str, Text | None, Type | None, str]] = [("when", spec.when, BOOL, _("the guard (when)"))]
    effect = _effect_wants(spec, hook)
    if effect is not None:
        parts.append(("effect", spec.effect_expr, *effect))
    parts += [("target", spec.target, SEAT, _("the target")), ("amount", spec.amount, INT, _("the amount")),
              ("giver", spec.giver, SEAT, _("the giver"))]
    return parts


def _check_part(spec: RuleSpec, typed: Settings, texts: _Texts, scope: Scope, part: str, text: Text,
                want: Type | None, what: str) -> Node | None:
    """One expression of a rule checked against its question's scope, or None with its problems reported."""
    tree = texts.parse(text)
    try:
        if isinstance(tree, ExprError):
            raise tree
        return check(tree, scope, want=want, what=what)
    except ExprError as e:
        hint = None
        if e.code in (Code.TYPE_MISMATCH, Code.MISSING_KEY) and not isinstance(tree, ExprError):
            hint = _settings_hint(spec, typed, tree.reads)
        what = _("rule {id!r} {part}").format(id=spec.id, part=part if part != 'effect' else spec.effect)
        texts.report(text, e, what, hint)
        if not isinstance(tree, ExprError):  # every unknown name, not the first problem only (a NotACard first too)
            for other in unknown_names(tree, scope):
                if other.offset != e.offset:
                    texts.report(text, other, what)
        return None


def _check_relations(spec: RuleSpec, ids: set[str], bag: DiagnosticBag) -> bool:
    """The rules ``before`` / ``after`` name exist (each one that does not reported)."""
    ok = True
    at = dict(reversed(spec.relation_origins))  # (a name listed twice: its first place)
    for rel in (*spec.before, *spec.after):
        if rel not in ids:
            o = at.get(rel, spec.origin)
            bag.add(Diagnostic.at(o, _("rule {id!r}: before/after names unknown rule {rel!r}").format(id=spec.id, rel=rel),
                                  hint=did_you_mean(rel, ids), source_line=sources.source_line(o.path, o.line),
                                  code=Code.UNKNOWN_RULE_REFERENCE))
            ok = False
    return ok


def _check_rule(spec: RuleSpec, typed: Settings, definitions: Definitions, texts: _Texts, ids: set[str],
                settings_ok: bool = True) -> RuleNode | None:
    """The rule checked (hook, effect, expressions, before/after, said_by) as a :class:`RuleNode`, or
    None with its problems in ``texts.bag``; ``said_by`` is checked even where another part of the
    rule is broken, unless a setting is (``settings_ok`` false: it may be one said_by names)."""
    bag = texts.bag
    hook = _hook_of(spec, bag)
    if hook is None:
        _report_unknown_names(spec, typed, definitions, texts)
        return None
    scope = texts.scopes.get(hook.name)
    if scope is None:
        scope = texts.scopes[hook.name] = hook_scope(hook, typed, definitions)
    ok = True
    checked: dict[str, Node] = {}
    for part, text, want, what in _rule_parts(spec, hook):
        if text is None:
            continue
        tree = _check_part(spec, typed, texts, scope, part, text, want, what)
        if tree is None:
            ok = False
        else:
            checked[part] = tree
    ok = _check_relations(spec, ids, bag) and ok
    reads: set[str] = set().union(*(tree.reads for tree in checked.values()))
    said_ok = _check_said_by(spec, typed, definitions, reads, bag, complete=ok) if ok or settings_ok else True
    if not ok or not said_ok:
        return None
    return RuleNode(id=spec.id, hook=hook.name, phase=hook.phase, effect=spec.effect,
                    when=spec.when.text if spec.when else None, expr=spec.effect_expr.text,
                    says=spec.says, source=spec.source, origin=spec.origin, file=spec.file or spec.origin.path,
                    overrides=spec.overrides, before=spec.before, after=spec.after,
                    reads=frozenset(reads), inherited=spec.inherited, checked=MappingProxyType(checked),
                    said_by=spec.said_by)


def _check_said_by(spec: RuleSpec, typed: Settings, definitions: Definitions, reads: set[str], bag: DiagnosticBag,
                   complete: bool = True) -> bool:
    """``said_by:`` names settings of the ruleset that the rule reads (in its expressions or the
    definitions they call): an unknown name is ``UnknownSetting`` with did-you-mean, a setting the rule
    does not read ``SaidByNotRead`` (its sentence would state something the rule does not do). Not
    ``complete`` (a part of the rule did not check, so ``reads`` lacks what it reads): no
    ``SaidByNotRead``, which would only echo that part's problem (``--set seats=4``)."""
    if not spec.said_by:
        return True
    o = spec.said_by_origin or spec.origin
    names = set(reads)
    for name in [r for r in reads if r in definitions.sources]:
        try:
            names |= definitions[name].reads
        except ExprError:  # a broken definition: reported at the definition
            pass
    read = {r.split(".")[1] for r in names if r.startswith("settings.")}
    ok = True
    values = typed.typed()
    for entry in spec.said_by:
        name, _dot, key = entry.partition(".")
        value = values.get(name)
        if name in typed and key and not (isinstance(value, dict) and key in {str(k) for k in value}):
            keys = ", ".join(map(str, value)) if isinstance(value, dict) else "none: it is not a map"
            bag.add(Diagnostic.at(o, _("rule {id!r}: said_by names {entry!r}, but setting {name!r} has no key {key!r}").format(
                id=spec.id, entry=entry, name=name, key=key),
                                  hint=(did_you_mean(key, [str(k) for k in value]) if isinstance(value, dict) else None)
                                  or _("its keys: {keys}").format(keys=keys),
                                  source_line=sources.source_line(o.path, o.line), code=Code.UNKNOWN_SETTING))
            ok = False
        if name not in typed:
            bag.add(Diagnostic.at(o, _("rule {id!r}: said_by names {name!r}, which is not a setting of this ruleset").format(id=spec.id, name=name),
                                  hint=did_you_mean(name, list(typed)) or _("said_by lists settings the rule reads"),
                                  source_line=sources.source_line(o.path, o.line), code=Code.UNKNOWN_SETTING))
            ok = False
        elif name not in read and complete:
            bag.add(Diagnostic.at(o, _("rule {id!r}: said_by names setting {name!r}, which this rule does not read: "
                                     "its sentence would be printed for a rule it does not describe").format(id=spec.id, name=name),
                                  hint=_("settings this rule reads: ") + (", ".join(sorted(read)) or "none"),
                                  source_line=sources.source_line(o.path, o.line), code=Code.SAID_BY_NOT_READ))
            ok = False
    return ok


def _comes_after(nodes: list[RuleNode]) -> dict[str, set[str]]:
    """Rule id -> the ids of the rules that must come after it (by its before: and their after:)."""
    after: dict[str, set[str]] = {n.id: set() for n in nodes}
    for n in nodes:
        after[n.id].update(b for b in n.before if b in after)
        for a in n.after:
            if a in after:
                after[a].add(n.id)
    return after


def _cycles_from(start: str, after: dict[str, set[str]], state: dict[str, int]) -> Iterator[list[str]]:
    """The cycles a depth-first walk from ``start`` finds (``state``: 1 on the path, 2 done), each as its rules
    with the first again at the end."""
    stack: list[tuple[str, list[str]]] = [(start, sorted(after[start]))]
    path = [start]
    state[start] = 1
    while stack:
        cur, todo = stack[-1]
        if not todo:
            state[cur] = 2
            stack.pop()
            path.pop()
            continue
        nxt = todo.pop(0)
        if state.get(nxt) == 1:
            yield path[path.index(nxt):] + [nxt]
        elif not state.get(nxt):
            state[nxt] = 1
            path.append(nxt)
            stack.append((nxt, sorted(after[nxt])))


def _cycles(nodes: list[RuleNode]) -> list[Diagnostic]:
    """before/after relations that form a cycle (each cycle reported once, at its first rule)."""
    after = _comes_after(nodes)
    by_id = {n.id: n for n in nodes}
    out: list[Diagnostic] = []
    state: dict[str, int] = {}
    reported: set[frozenset[str]] = set()
    for start in after:
        if state.get(start):
            continue
        for cycle in _cycles_from(start, after, state):
            key = frozenset(cycle)
            if key not in reported:
                reported.add(key)
                o = by_id[cycle[0]].origin
                out.append(Diagnostic.at(o, _("before/after form a cycle: ") + " before ".join(repr(c) for c in cycle),
                                         hint=_("remove one of the before/after entries"), source_line=sources.source_line(o.path, o.line),
                                         code=Code.RULE_CYCLE))
    return out


@dataclass(frozen=True)
class CheckedRules:
    """A ruleset whose settings and rules all check: the typed settings, the card model, the definitions, the
    :class:`RuleNode` of every rule (in the ruleset's order) and the settings' warnings."""

    typed: Settings
    model: CardModel
    definitions: Definitions
    nodes: list[RuleNode]
    warnings: tuple[Diagnostic, ...]


def check_rules(resolved: ResolvedRuleset) -> CheckedRules:
    """Type every setting and check every rule and definition of ``resolved``. Raises
    :class:`~gouji_dsl.diagnostics.GoujiError` with every problem found (``file:line:col`` of the offending text)."""
    bag = DiagnosticBag()
    typed, setting_diags = check_settings(resolved)
    bag.extend(setting_diags)
    warnings = tuple(d for d in setting_diags if d.severity != Severity.ERROR)
    model = _card_model(resolved, typed, bag) if not bag.errors else None
    if not bag.errors:
        bag.extend(_choice_words(resolved))
    texts = _Texts(bag)

    # definitions: checked on first use (their order does not matter)
    def_sources = {name: (d.params, texts.parse(d.expr), d.origin) for name, d in resolved.definitions.items()}
    definitions = Definitions(def_sources, lambda params: hook_scope(None, typed, {}, params=params))
    checked_rules = []
    ids = {r.id for r in resolved.rules}
    settings_ok = not bag.errors  # (a broken setting is left out of typed: no said_by problems for it)
    for spec in resolved.rules:
        c = _check_rule(spec, typed, definitions, texts, ids, settings_ok)
        if c is not None:
            checked_rules.append(c)
            _constant_answer(spec, c, typed, texts)
    _check_definitions(resolved, typed, definitions, def_sources, texts)
    bag.extend(_cycles(checked_rules))
    bag.raise_if_errors()
    assert model is not None
    return CheckedRules(typed, model, definitions, checked_rules, warnings)
