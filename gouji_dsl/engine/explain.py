"""Explanations: why a move is legal or not, as a chain of facts, each with the rules and settings
that decided it.

:func:`explain` checks the move with a trace (the
permit rules that allowed or forbade it) and adds the chain of the situation it was made in: how the
play on the table counts (the ``gouji`` question), who is offered a burn and who is asked to answer
(``burn_order``, ``follow_order``), the flags set by rules that a deciding rule reads (a dead gouji,
a stuck player), and, when the game is over, places, scores and sweep. Value questions are answered
by the rules the interpreter kept in ``GameState.decided`` when it asked them; the ``gouji`` answer
of the play on the table is asked again here, with a trace.

In words: ``KK is a gouji play (gouji.minimum, rules/base.yaml:163; setting gouji_minimum K: 2,
rules/base.yaml:57); the burn is offered to seats 3, 5, 2, 6 in turn (burn.priority, …); …``.
The play screen and the CLI show :meth:`Explanation.sentence` / :meth:`Explanation.format`;
tests and the ``explained_by`` scenario key use :attr:`Explanation.rule_ids`.
"""
from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from typing import Any

from gouji_dsl.engine import lookahead
from gouji_dsl.engine.interpreter import GameState, Move
from gouji_dsl.i18n import _
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.vocabulary import HookName
from gouji_dsl.ruleset.graph import Reason, RuleGraph, RuleNode, Verdict
from gouji_dsl.ruleset.words import Term, game_words

SETTING_PREFIX = "settings."
"""A setting cited in an explanation has the id ``settings.NAME`` (``explained_by`` may list it)."""

_SETTING_RE = re.compile(r"settings\.([a-z_][a-z0-9_]*)(?:\.([a-z_][a-z0-9_]*))?")
_NAME_RE = re.compile(r"(?<![.\w])([a-z_][a-z0-9_]*)\b")
_FLAG_RE = re.compile(r"\bflag\(\s*([a-z_.()]+)\s*,\s*'([a-z0-9_]+)'\s*\)")


@dataclass(frozen=True)
class Because:
    """One link of an explanation chain: a ``fact`` in words and the ``reasons`` (rules, then the
    settings they read, each with its position) that decided it."""

    fact: str
    reasons: tuple[Reason, ...] = ()

    def words(self) -> str:
        """``fact (rule.id, file:line; setting NAME KEY: VALUE, file:line)``."""
        cites = _("; ").join(_cite(r) for r in self.reasons)
        return _("{fact} ({cites})").format(fact=self.fact, cites=cites) if cites else self.fact

    @property
    def rule_ids(self) -> tuple[str, ...]:
        return tuple(r.rule_id for r in self.reasons)


@dataclass
class Explanation:
    """Why a move is legal or not: ``legal``; ``reasons``, the checks and permit rules in the order
    they were asked (each ``allowed`` / ``forbade`` / ``note``); ``chain``, the facts of the
    situation with the rules and settings that decided them; ``warnings``, what a legal move leads
    to that the player should know before making it (a burn that cannot succeed: the rules that
    will refuse the burner's leads); ``undecided``, said of a legal burn whose outcome the
    look-ahead could not work out (no claim either way), else empty."""

    move: str
    legal: bool
    reasons: list[Reason] = field(default_factory=list)
    chain: list[Because] = field(default_factory=list)
    warnings: list[Because] = field(default_factory=list)
    undecided: str = ""

    @property
    def rule_ids(self) -> list[str]:
        """Every rule id (and ``settings.NAME``, ``engine.*`` check) the explanation cites, once each."""
        seen: dict[str, None] = {}
        for b in (*self.chain, *self.warnings):
            for r in b.reasons:
                seen.setdefault(r.rule_id)
        for r in self.reasons:
            seen.setdefault(r.rule_id)
        return list(seen)

    def cites(self, rule_id: str) -> bool:
        return rule_id in self.rule_ids

    def sentence(self) -> str:
        """The chain in words, then the verdict's deciding rules: one paragraph."""
        parts = [b.words() for b in self.chain]
        deciding = [r for r in self.reasons if r.verdict == Verdict.FORBADE] if not self.legal else \
            [r for r in self.reasons if r.verdict == Verdict.ALLOWED]
        parts += [f"{_sentence_of(r)} ({_cite(r)})" for r in deciding]
        parts += [_cite(r) for r in self.reasons if r.verdict == Verdict.SETTING]
        sep = _("; ")
        warned = "".join(_("; but {warning}").format(warning=w.words()) for w in self.warnings)
        head = (_("{move} is legal") if self.legal else _("{move} is illegal")).format(move=self.move)
        return head + (_(": ") + sep.join(parts) if parts else "") + warned + _(".")

    def format(self) -> str:
        head = self.move + _(": ") + (_("legal") if self.legal else _("illegal"))
        lines = [head]
        if self.chain:
            lines.append("  " + _("because:"))
            lines += ["    " + b.words() for b in self.chain]
        lines += ["  " + r.format() for r in self.reasons]
        lines += ["  " + _("[warning] {warning}").format(warning=w.words()) for w in self.warnings]
        return "\n".join(lines)


# ------------------------------------------------------------------------------ citing

def _listed(items: Iterable[str]) -> str:
    """``items`` listed as the language lists them (``4, 5, 6``; in Chinese ``4、5、6``)."""
    out = ""
    for i, item in enumerate(items):
        out = _("{a}, {b}").format(a=out, b=item) if i else item
    return out


def _cite(r: Reason) -> str:
    where = r.where
    if r.rule_id.startswith(SETTING_PREFIX):
        return _("setting {text}").format(text=r.text) + (_(", {where}").format(where=where) if where else "")
    return r.rule_id + (_(", {where}").format(where=where) if where else "")


def _sentence_of(r: Reason) -> str:
    return r.rule.sentence() if r.rule is not None else r.text


def _rule_reason(node: RuleNode, verdict: Verdict = Verdict.ANSWERED, text: str | None = None) -> Reason:
    return Reason(node.id, verdict, text or node.sentence(), node.origin, node)


def settings_read(graph: RuleGraph, node: RuleNode) -> list[str]:
    """The settings a rule reads, in the order written: in its guard and effect, its target, amount
    and giver, and (transitively) in the definitions it calls. A key read with a dot is kept:
    ``revolution.dead_gouji_plays``."""
    texts = [node.when or "", node.expr or ""]
    spec = graph.resolved.rule(node.id)
    if spec is not None:
        texts += [t.text for t in (spec.target, spec.amount, spec.giver) if t is not None]
    defs = graph.resolved.definitions
    out: dict[str, None] = {}
    seen: set[str] = set()
    while texts:
        t = texts.pop(0)
        for name, sub in _SETTING_RE.findall(t):
            out.setdefault(f"{name}.{sub}" if sub else name)
        for fn in _NAME_RE.findall(t):
            if fn in defs and fn not in seen:
                seen.add(fn)
                texts.append(defs[fn].expr.text)
    return list(out)


def setting_reasons(graph: RuleGraph, names: Iterable[str], key: str | None = None) -> tuple[Reason, ...]:
    """One reason per setting: ``NAME KEY: VALUE`` at the key's position when the setting is a map
    holding ``key`` (a rank, say), else ``NAME: VALUE`` (shortened) at the setting's position."""
    out: list[Reason] = []
    names = list(names)
    # keys of one setting written on one line are said once: ``first_lead: {rank: 3, min_same_suit: 2}``
    # (not the setting twice at the same file:line)
    subs: dict[tuple[str, Any, int], list[str]] = {}
    line_of_key: dict[str, tuple[str, Any, int]] = {}
    for dotted in names:
        name, _dot, sub = dotted.partition(".")
        st = graph.resolved.settings.get(name)
        if sub and st is not None and isinstance(st.value, dict) and _has_key(st.value, sub):
            pos = st.key_origins.get(sub) or st.origin
            line_of_key[dotted] = (name, pos.path, pos.line)
            subs.setdefault(line_of_key[dotted], []).append(sub)
    for dotted in names:
        name, _dot, sub = dotted.partition(".")
        st = graph.resolved.settings.get(name)
        if st is None:
            continue
        value = st.value
        together = subs.get(line_of_key.get(dotted, ("", None, 0)), [])
        if len(together) > 1:
            if sub == together[0]:
                text = _("{name}: {short}").format(name=name, short=_short({k: _get_key(value, k) for k in together}))
                out.append(Reason(SETTING_PREFIX + name, Verdict.SETTING, text, st.key_origins.get(sub) or st.origin))
            continue
        if sub and isinstance(value, dict) and _has_key(value, sub):
            text = _("{name}.{sub}: {short}").format(name=name, sub=sub, short=_short(_get_key(value, sub)))
            out.append(Reason(SETTING_PREFIX + name, Verdict.SETTING, text, st.key_origins.get(sub) or st.origin))
            continue
        if isinstance(value, dict) and key is not None and _has_key(value, key):
            v = _get_key(value, key)
            text = _("{name} {key}: {short}").format(name=name, key=key, short=_short(v))
            pos = st.key_origins.get(key) or st.key_origins.get(str(key)) or st.origin
        else:
            text = _("{name}: {short}").format(name=name, short=_short(value))
            pos = st.origin
        out.append(Reason(SETTING_PREFIX + name, Verdict.SETTING, text, pos))
    return tuple(out)


def _has_key(d: dict[Any, Any], key: str) -> bool:
    return any(str(k) == str(key) for k in d)


def _get_key(d: dict[Any, Any], key: str) -> Any:
    return next(v for k, v in d.items() if str(k) == str(key))


def _short(v: Any, limit: int = 60) -> str:
    if v is None:
        text = "null"
    elif isinstance(v, bool):
        text = "true" if v else "false"
    elif isinstance(v, dict):
        text = "{" + ", ".join(_("{k}: {short}").format(k=k, short=_short(x, limit)) for k, x in v.items()) + "}"
    elif isinstance(v, list):
        text = "[" + ", ".join(_short(x, limit) for x in v) + "]"
    else:
        text = str(v)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def with_settings(graph: RuleGraph, reasons: Iterable[Reason], key: str | None = None) -> tuple[Reason, ...]:
    """``reasons`` followed by the settings their rules read (each setting once)."""
    rs = tuple(reasons)
    names: dict[str, None] = {}
    for r in rs:
        if r.rule is not None:
            for n in settings_read(graph, r.rule):
                names.setdefault(n)
    return rs + setting_reasons(graph, names, key)


# ------------------------------------------------------------------------------ the chain
def _seats(xs: Iterable[int]) -> str:
    xs = list(xs)
    if not xs:
        return _("nobody")
    if len(xs) == 1:
        return _("seat {seat}").format(seat=xs[0])
    return _("seats {seats}").format(seats=", ".join(map(str, xs)))


def top_play_fact(state: GameState) -> Because | None:
    """How the play on the table counts: a gouji play or not, and why (the ``gouji`` question)."""
    top = state.top
    if top is None:
        return None
    ctx = Ctx(None)
    ctx.play = TablePlay(top.play, top.seat, state.kinds)
    trace: list[Reason] = []
    is_gouji = bool(state.graph.value(HookName.GOUJI, ctx, trace))
    rank = top.rank
    what = _("is a gouji play") if is_gouji else _("is not a gouji play")
    return Because(_("{text} (seat {seat}) {what}").format(text=top.play.text, seat=top.seat, what=what), with_settings(state.graph, trace, rank))


def situation(state: GameState) -> list[Because]:
    """The facts of the current situation, each with what decided it (see the module docstring)."""
    out: list[Because] = []
    g = state.graph
    if state.phase == "play":
        for seat, place in sorted(state.places.items(), key=lambda kv: kv[1]):
            reasons = state.decided.get(f"place:{seat}", ())
            out.append(Because(_("seat {seat} took place {place}").format(seat=seat, place=place), with_settings(g, reasons)))
    if state.phase == "play" and state.top is None and state.to_act is not None:
        out.append(Because(_("seat {to_act} leads this trick").format(to_act=state.to_act), with_settings(g, state.decided.get("leader", ()))))
    if state.phase == "play" and state.top is not None:
        out += _trick_facts(state)
    if state.phase in ("return", "setup", "choose", "declare"):
        out += transfer_facts(state)
    if state.phase == "over":
        out += outcome_facts(state)
    return out


def _trick_facts(state: GameState) -> list[Because]:
    """The facts of the play on the table: whether it is a gouji play, the flags of its seat, the burn
    order, the order the others are asked in, and who yielded."""
    out: list[Because] = []
    g = state.graph
    fact = top_play_fact(state)
    if fact is not None:
        out.append(fact)
    top = state.top
    assert top is not None
    for flag, reasons in _flags_on(state, top.seat):
        out.append(Because(_("seat {seat} is marked {flag}").format(seat=top.seat, flag=flag), reasons))
    burn = state.decided.get("burn_order", ())
    if burn:
        order = [s for s, cap in _queue_plan(state) if cap == "burn" and state.graph.n_seats >= s >= 1]
        said = _("the burn order is {join}").format(join=', '.join(map(str, order)) if order else _("(none)"))
        out.append(Because(game_words(g.resolved).own(said, Term.BURN), with_settings(g, burn)))
    follow = state.decided.get("follow_order", ())
    if follow:
        order = [s for s, cap in _queue_plan(state) if cap == "follow"]
        out.append(Because(_("the others are asked in the order {join}").format(join=_listed(map(str, order)) or _("(none)")),
                           with_settings(g, follow)))
    if state.yielders:
        yt = state.decided.get("yield_to", ())
        out.append(Because(_("{seats} yielded").format(seats=_seats(state.yielders)), with_settings(g, yt)))
    return out


def transfer_facts(state: GameState) -> list[Because]:
    """The tribute paid after this deal, each with the rule that set its amount."""
    out: list[Because] = []
    for e in state.record:
        if e.get("type") != "transfer" or not e.get("kind"):
            continue
        reasons = state.decided.get(f"tribute:{e['kind']}:{e['giver']}:{e['receiver']}", ())
        out.append(Because(_("seat {giver} gave seat {receiver} {cards} as {kind} tribute").format(
            giver=e['giver'], receiver=e['receiver'], cards=e['cards'], kind=e['kind']),
                           with_settings(state.graph, reasons)))
    return out


def _queue_plan(state: GameState) -> list[tuple[int, str]]:
    """The burn offers and answers of the play on the table, in the order decided when it was made."""
    return list(getattr(state, "plan", ()))


def _flags_on(state: GameState, seat: int) -> list[tuple[str, tuple[Reason, ...]]]:
    out = []
    for flag, seats in sorted(state.flags.items()):
        if seat in seats:
            rid = state.marked_by.get((flag, seat))
            node = state.graph.node(rid) if rid else None
            if node is not None:
                out.append((flag, with_settings(state.graph, [_rule_reason(node, Verdict.ANSWERED)])))
    return out


def flag_facts(state: GameState, reasons: Iterable[Reason], ctx_seats: Iterable[int]) -> list[Because]:
    """For the deciding rules that read a flag: which rule set that flag on the seats involved."""
    out: list[Because] = []
    seen: set[tuple[str, int]] = set()
    names: set[str] = set()
    for r in reasons:
        if r.rule is not None:
            for text in (r.rule.when or "", r.rule.expr or ""):
                names.update(name for _seat, name in _FLAG_RE.findall(text))
    for seat in ctx_seats:
        for name in sorted(names):
            if (name, seat) in seen or seat not in state.flags.get(name, ()):
                continue
            seen.add((name, seat))
            rid = state.marked_by.get((name, seat))
            node = state.graph.node(rid) if rid else None
            if node is not None:
                out.append(Because(_("seat {seat} is marked {name}").format(seat=seat, name=name),
                                   with_settings(state.graph, [_rule_reason(node)])))
    return out


def outcome_facts(state: GameState) -> list[Because]:
    """Places, sweep and scores of a finished game, each with the rules that decided it."""
    out: list[Because] = []
    g = state.graph
    if state.voided:
        out.append(Because(_("the deal was voided"), with_settings(g, state.decided.get("redeal", ()))))
        return out
    for seat, place in sorted(state.places.items(), key=lambda kv: kv[1]):
        out.append(Because(_("seat {seat} took place {place}").format(
            seat=seat, place=place), with_settings(g, state.decided.get(f"place:{seat}", ()))))
    over = state.decided.get("game_over", ())
    if over:
        out.append(Because(_("the game ended"), with_settings(g, over)))
    sweep = state.decided.get("sweep", ())
    out.append(Because(_("it was a sweep (串三户)") if state.sweep else _("it was not a sweep"), with_settings(g, sweep)))
    for seat in state.seat_list:
        sc = state.decided.get(f"score:{seat}", ())
        out.append(Because(_("seat {seat} scores {state}").format(seat=seat, state=state.scores.get(seat)), with_settings(g, sc)))
    return out


def explain(state: GameState, move: Move) -> Explanation:
    """Which rules allowed or forbade ``move`` now, and the chain of the situation it is made in
    (how the play on the table counts, who is offered a burn and who is asked, the flags the
    deciding rules read, the outcome of a finished game), each with the rule ids, settings and
    file:line that decided it. See the module doc."""
    trace: list[Reason] = []
    ok = state.check(move, trace)
    deciding = [r for r in trace if r.verdict == (Verdict.ALLOWED if ok else Verdict.FORBADE)]
    trace += with_settings(state.graph, deciding)[len(deciding):]  # the settings the deciding rules read
    chain = situation(state)
    involved = [move.seat] + ([state.top.seat] if state.top is not None else [])
    chain += flag_facts(state, trace, involved)
    warnings, undecided = burn_outlook(state, move) if ok else ([], "")
    words = game_words(state.graph.resolved)  # the program's own sentences in the ruleset's words (火牌, 造反)
    chain = [replace(b, fact=words.own(b.fact)) for b in chain]
    warnings = [replace(b, fact=words.own(b.fact)) for b in warnings]
    trace = [replace(r, text=words.own(r.text)) if r.rule is None else r for r in trace]  # (engine.*, setting.*)
    return Explanation(move.text(state.model), ok, trace, chain, warnings, words.own(undecided))


def burn_warnings(state: GameState, move: Any) -> list[Because]:
    """A legal burn (or a burning seat's lead) that cannot succeed: one fact, citing the rules that
    will refuse the burner's leads (see :mod:`gouji_dsl.engine.lookahead`)."""
    return burn_outlook(state, move)[0]


def burn_outlook(state: GameState, move: Any) -> tuple[list[Because], str]:
    """:func:`burn_warnings`, and the sentence for a burn whose outcome the look-ahead could not
    work out (out of budget: no claim either way; empty otherwise)."""
    doomed = lookahead.doomed_burn(state, move)  # (through the module: a test may replace it)
    what = _("this burn") if move.verb == "burn" else _("this lead")
    if doomed is None:
        return [], ""
    if isinstance(doomed, lookahead.UndecidedBurn):
        return [], (_("whether {what} can succeed was not worked out (too many ways to play it; "
                    "{examined} positions looked at)").format(what=what, examined=doomed.examined))
    return [Because(_("{what} cannot succeed: seat {seat} cannot keep leading as burning requires with "
                    "what he holds, however the others answer (诈烧)").format(
                        what=what, seat=doomed.seat), with_settings(state.graph, doomed.reasons))], ""
