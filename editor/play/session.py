"""The test-play session behind the play screen: no Textual here, so it can be tested on its own.

A :class:`PlaySession` keeps a **timeline**: one :class:`Entry` per point of the game (the state at
the start of each game and after each move, every one an independent copy), and a cursor. Undo and
redo move the cursor; a move made while the cursor is not at the end discards the rest of the
timeline (a new branch). Bots (one per seat but yours, seeded like ``gouji simulate``: game ``i``
deals from ``SEED:i`` and seat ``s``'s bot draws from ``SEED:i:botS``) move only at the end of the
timeline, when the screen asks them to. A record loaded for replay becomes the timeline, with the
cursor at its start.
"""
from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gouji_dsl.bots import BOTS, HeuristicBot, is_outside, make_bot, parse_bot_spec, seat_bots
from gouji_dsl.bots.search import Analysis
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine.explain import Explanation, explain
from gouji_dsl.engine.interpreter import (
    CARD_VERBS,
    VERBS,
    GameState,
    Move,
    choice_words,
    game_seed,
    hands_from_text,
    match_length,
    new_game,
    next_game,
    read_seat,
)
from gouji_dsl.engine.records import GameRecord, Step, replay_steps
from gouji_dsl.ruleset.game.cards import Card
from gouji_dsl.ruleset.game.model import Play
from gouji_dsl.ruleset.game.terms import Verb
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.spec import said
from gouji_dsl.ruleset.words import GameWords, game_words, term_of
from gouji_dsl.tools.cases import scenario_case
from gouji_dsl.tools.scoreboard import team_score, tribute_of

from ..i18n import _, chinese, ngettext


@dataclass(frozen=True)
class GameSummary:
    """One finished game of a match, for the scoreboard."""

    number: int                          # game number within the match (1-based)
    places: dict[int, int]               # seat -> place
    scores: dict[int, Any]               # seat -> score
    team_scores: dict[int, Any]          # team -> score
    sweep: bool
    tribute: list[dict[str, Any]]        # the tribute transfers paid before this game's play
    over: bool = True
    voided: bool = False                 # the deal was voided and not dealt again (no places, no score)

    def order(self) -> list[int]:
        """Seats by place, first out first."""
        return [s for s, _place in sorted(self.places.items(), key=lambda kv: kv[1])]


def summarize(state: GameState) -> GameSummary:
    teams = sorted({state.team(s) for s in state.seat_list})
    return GameSummary(state.game_number, dict(state.places), dict(state.scores),
                       {t: team_score(state, t) for t in teams}, bool(state.sweep), tribute_of(state), state.over,
                       voided=bool(state.voided))


def card_word(kind: str, words: GameWords | None = None) -> str:
    """A rank of the notation as said in the active language: in Chinese the ruleset's name of the
    card (``words.cards``: ``R`` → 大王), else the notation's symbol (typed and shown in hands: R / B)."""
    return (words.card(kind) or kind) if chinese() and words is not None else kind


def ordinal(n: int) -> str:
    return f"{n}{'th' if 10 <= n % 100 <= 20 else {1: 'st', 2: 'nd', 3: 'rd'}.get(n % 10, 'th')}"


@dataclass
class Entry:
    """One point of the timeline: ``state`` after ``move`` (None: the start of a game) made by
    ``seat``; ``by`` says who chose it: ``you``, ``bot``, ``auto`` (auto-pass / run to the end) or
    ``record`` (replayed)."""

    state: GameState
    move: str | None = None
    seat: int | None = None
    by: str = ""
    game_index: int = 0

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.state.record


@dataclass
class Typed:
    """What the text in the move box means now (the play screen's live feedback)."""

    text: str
    move: Move | None = None
    error: str = ""          # a parse error (with its column)
    play: Play | None = None
    explanation: Explanation | None = None
    your_turn: bool = True

    @property
    def legal(self) -> bool:
        return self.explanation is not None and self.explanation.legal

    @property
    def forbidding(self) -> list:
        if self.explanation is None:
            return []
        return [r for r in self.explanation.reasons if r.verdict == "forbade"]


class _Probe:
    """Evaluates a ruleset's own definitions (``headless(s)``, ``scramble``) for the markers, when
    the ruleset defines them; ``None`` when it does not (or they fail)."""

    def __init__(self, graph: RuleGraph):
        self.fns: dict[str, Callable] = {}
        for name, text in (("headless", "headless(seat)"), ("scramble", "scramble")):
            if name in graph.definitions:
                try:
                    self.fns[name] = graph.compile_expression(text)
                except Exception:
                    pass

    def ask(self, name: str, state: GameState, seat: int | None = None) -> bool | None:
        fn = self.fns.get(name)
        if fn is None:
            return None
        from gouji_dsl.ruleset.game.context import Ctx
        try:
            return bool(fn(Ctx(state, seat=seat)))
        except Exception:
            return None


def _known_bot(spec: str) -> bool:
    try:
        parse_bot_spec(spec)
    except ValueError:
        return False
    return True


def bot_choices() -> list[tuple[str, str]]:
    """(label, name) of every bot of the registry, for a choice in the app."""
    return [(f"{k.name} — {k.summary}", k.name) for k in BOTS.values()]


class Timeline:
    """What the play screen shows and asks, whoever plays the game (the seam between the screen and
    its game source): a **timeline** of :class:`Entry` (a state per point of the game, each its own
    copy) with a cursor, read by the seats, the trick, the log and the dialogs.

    Two sources fill it: :class:`PlaySession` (this process: the interpreter and the bots, undo,
    records) and :class:`editor.play.remote.RemoteSession` (a seat at a club table: the table
    server judges and sends views; ``remote`` is True and the screen sends moves instead of making
    them). A source provides :meth:`legal` and :meth:`interpret`; the rest reads the timeline."""

    #: moves go to a table server (the screen sends them; bots, undo, records are the server's)
    remote: bool = False

    def __init__(self, graph: RuleGraph, *, seat: int = 1, seed: Any = 0):
        self.graph = graph
        self.seat = seat
        self.seed = seed
        self.length = match_length(graph)
        self.probe = _Probe(graph)
        self.mode = "play"              # "play" or "replay" (a loaded record, nothing moves by itself)
        self.record_path: str | None = None
        self.saved_state: GameState | None = None  # the end of the timeline when the record was last saved
        self.last_illegal: str | None = None
        self.bot_names: dict[int, str] = {}
        self._terms: dict[str, str | None] = {}
        self.entries: list[Entry] = []
        self.cursor = 0
        #: the ruleset's words of the game (places 头科…大落, events and markers: ``words:``)
        self.words: GameWords = game_words(graph.resolved) if graph.resolved is not None else GameWords({}, {})

    def legal(self) -> Sequence[Move]:
        """Legal moves at the cursor."""
        raise NotImplementedError

    def interpret(self, text: str) -> Typed:
        """What the text in the move box means now."""
        raise NotImplementedError

    @property
    def unfinished(self) -> bool:
        """Leaving now would lose a game nobody else keeps."""
        return False

    def seat_caption(self, seat: int) -> str:
        """Who plays ``seat``, under its box: ``heuristic bot``."""
        bot = self.bot_names.get(seat, "")
        return _("{bot} bot").format(bot=bot) if bot else ""

    def who_may_answer(self, state: GameState | None = None) -> tuple[list[int], list[int]]:
        """The seats that may follow / burn the play on the table (none known here)."""
        return [], []

    def over_keys(self) -> str | None:
        """What the keys do at the end of a game, when the source has keys of its own (a club
        table: :class:`editor.play.remote.RemoteSession`); None: the play screen's own (F10 deals,
        F11, ctrl+s)."""
        return None

    @property
    def viewer(self) -> int | None:
        """The seat the screen speaks to as "you" (its partner, its opposite ...); None for a
        spectator of a club table, who sees the seats by number from nobody's side."""
        return self.seat

    @property
    def entry(self) -> Entry:
        return self.entries[self.cursor]

    @property
    def state(self) -> GameState:
        return self.entries[self.cursor].state

    @property
    def model(self):
        return self.graph.model

    @property
    def live(self) -> bool:
        """The cursor is at the end of the timeline (not looking back)."""
        return self.cursor == len(self.entries) - 1

    @property
    def game_index(self) -> int:
        return self.entry.game_index

    @property
    def your_turn(self) -> bool:
        st = self.state
        return not st.over and st.to_act == self.seat

    def legal_verbs(self) -> set[str]:
        out = set()
        for m in self.legal():
            out.add(m.verb if m.verb != "choose" else f"choose {m.arg}")
        return out

    def only_pass(self) -> bool:
        moves = self.legal()
        return bool(moves) and all(m.verb == "pass" for m in moves)

    def default_verb(self, state: GameState | None = None) -> str:
        st = state or self.state
        if st.phase == "return":
            return "return"
        if st.capacity == "burn":
            return "burn"
        return "play"

    def move_word(self, move: Move, state: GameState | None = None) -> str:
        """What to type in the move box for ``move`` (``KK``, ``pass``, ``burn RR TTT``, ``head``)."""
        if move.verb == "choose":
            return str(move.arg)
        if move.cards is None:
            return str(move.verb)
        text = self.model.text(move.cards)
        return text if move.verb == self.default_verb(state) else f"{move.verb} {text}"

    def describe_play(self, p: Play) -> str:
        if not p.valid:
            return _("{cards} is not a play: {why}").format(cards=p.text, why=p.why)
        kinds = self.model.kinds
        bits = [ngettext("{n} card", "{n} cards", p.count).format(n=p.count), _("rank {rank}").format(rank=card_word(kinds[p.rank], self.words))]
        if p.filler:
            bits.append(_("{n} filler {rank}").format(n=p.filler, rank=card_word(kinds[self.model.filler], self.words)))
        if p.jokers:
            bits.append(ngettext("{n} joker", "{n} jokers", len(p.jokers)).format(n=len(p.jokers)))
        if p.gouji:
            bits.append(_("gouji play"))
        return _(", ").join(bits)

    def finals(self, upto: int | None = None) -> list[GameState]:
        """The latest state of each game of the current match, up to the cursor (or ``upto``)."""
        end = self.cursor if upto is None else upto
        cur = self.entries[end].game_index
        first = cur - cur % self.length
        games: dict[int, GameState] = {}
        for e in self.entries[:end + 1]:
            if e.game_index >= first:
                games[e.game_index] = e.state
        return [games[i] for i in sorted(games)]

    def scoreboard(self) -> list[tuple[int, dict[int, Any]]]:
        """(game number, scores per seat) for every finished game of the current match."""
        return [(st.game_number, dict(st.scores)) for st in self.finals() if st.over]

    def match_summary(self, upto: int | None = None) -> list[GameSummary]:
        """Every game of the current match so far (the last one possibly still being played)."""
        return [summarize(st) for st in self.finals(upto)]

    def match_totals(self, upto: int | None = None) -> dict[int, Any]:
        """Running team totals over the finished games of the current match."""
        totals: dict[int, Any] = {}
        for g in self.match_summary(upto):
            if g.over:
                for t, v in g.team_scores.items():
                    totals[t] = totals.get(t, 0) + v
        return totals

    @property
    def match_over(self) -> bool:
        """The last game of the match is over."""
        st = self.state
        return st.over and self.length > 1 and (self.game_index + 1) % self.length == 0

    def next_game_label(self) -> str:
        """What F10 deals now: ``game 3 of 5``, or ``a new match`` after the last game."""
        if self.length <= 1:
            return _("the next game")
        nxt = self.game_index % self.length + 2
        return (_("game {n} of {length}") if nxt <= self.length else _("a new match (game 1 of {length})")).format(
            n=nxt, length=self.length)

    def previous_game(self) -> GameState | None:
        """The final state of the game before the current one in this match."""
        fin = self.finals()
        return fin[-2] if len(fin) >= 2 and self.state.prev is not None else None

    def back(self) -> bool:
        if self.cursor == 0:
            return False
        self.cursor -= 1
        return True

    def forward(self) -> bool:
        if self.live:
            return False
        self.cursor += 1
        return True

    def trick_starts(self) -> list[int]:
        """Timeline indexes where a trick (or a game) begins."""
        out = []
        for i, e in enumerate(self.entries):
            if i == 0 or e.move is None or e.state.trick_no != self.entries[i - 1].state.trick_no:
                out.append(i)
        return out

    def jump_trick(self, direction: int) -> bool:
        """Back to the start of this trick (or the one before), or on to the next trick."""
        starts = self.trick_starts()
        if direction < 0:
            before = [i for i in starts if i < self.cursor]
            if not before:
                return False
            self.cursor = before[-1]
        else:
            after = [i for i in starts if i > self.cursor]
            self.cursor = after[0] if after else len(self.entries) - 1
        return True

    def goto(self, index: int) -> None:
        self.cursor = max(0, min(index, len(self.entries) - 1))

    def headless(self, seat: int) -> bool:
        st = self.state
        v = self.probe.ask("headless", st, seat)  # the ruleset's own definition; none: no marker
        return bool(v) and st.is_active(seat)

    def scramble(self, state: GameState | None = None) -> bool:
        return bool(self.probe.ask("scramble", state or self.state))

    def scramble_started(self, index: int | None = None) -> bool:
        """The four-way scramble began with entry ``index`` (default: the cursor)."""
        i = self.cursor if index is None else index
        if i <= 0 or self.entries[i].move is None:
            return False
        return self.scramble(self.entries[i].state) and not self.scramble(self.entries[i - 1].state)

    def flag_changes(self, index: int | None = None) -> list[tuple[str, int, bool]]:
        """Ruleset flags (``opened``, ``dead_gouji`` ...) that entry ``index`` set (True) or cleared
        (False), as (flag, seat, set)."""
        i = self.cursor if index is None else index
        if i <= 0 or self.entries[i].move is None:
            return []
        before, after = self.entries[i - 1].state.flags, self.entries[i].state.flags
        out = []
        for name in sorted(set(before) | set(after)):
            b, a = before.get(name, set()), after.get(name, set())
            out += [(name, seat, True) for seat in sorted(a - b)] + [(name, seat, False) for seat in sorted(b - a)]
        return out

    def flag_rule(self, name: str) -> Any:
        """The first rule that marks flag ``name`` (its sentence explains the term), or None."""
        return next((n for n in self.graph.nodes if n.effect == "mark" and n.expr == name), None)

    def flag_term(self, name: str) -> str | None:
        """The Chinese term for flag ``name``: from the sentence of the rule that marks it, else from
        any rule or setting sentence that names it ("dead gouji (够死级)", "declare the point (宣点)")."""
        if name in self._terms:
            return self._terms[name]
        rule = self.flag_rule(name)
        term = term_of(rule.says) if rule is not None else None
        if term is None:
            words = name.replace("_", " ")
            stems = [words] + ([words[:-1], words[:-2]] if words.endswith("ed") else [])
            says = [n.says for n in self.graph.nodes if n.says]
            if self.graph.resolved is not None:
                says += [v.says for v in self.graph.resolved.settings.values() if v.says]
            for stem in stems:
                pat = re.compile(re.escape(stem) + r"[a-z]*(?: [a-z]+){0,3} ?[(（]([\u3400-\u9fff][^)）]*)[)）]", re.I)
                term = next((m.group(1) for t in says if (m := pat.search(t))), None)
                if term:
                    break
        self._terms[name] = term
        return term

    def definition_says(self, name: str) -> str | None:
        spec = self.graph.resolved.definitions.get(name) if self.graph.resolved is not None else None
        return said(spec.says) if spec is not None and spec.says else None

    def count_rule(self) -> tuple[str, str] | None:
        """How a hidden card count becomes visible: (short, full) from the ruleset's ``see_count``
        rule, its settings written out: ("shown at ≤ 10", "view.count-at-ten: hand_size(target) <= 10 — ...");
        in Chinese the full one is the rule's sentence (持牌人手中剩余牌等于或少于报牌张数……)."""
        node = next((n for n in self.graph.nodes if n.hook == "see_count"), None)
        if node is None:
            return None
        expr = re.sub(r"settings\.(\w+)", lambda m: _setting_text(self.graph.settings.get(m.group(1), m.group(0))),
                      node.expr)
        m = re.fullmatch(r"\s*hand_size\(target\)\s*(<=|<)\s*(\d+)\s*", expr)
        short = (_("shown at ≤ {n}").format(n=int(m.group(2)) - (1 if m.group(1) == '<' else 0)) if m
                 else _("shown when {expr}").format(expr=expr))
        if chinese() and node.says:  # the seed's sentence alone: the id and expression would push it off the line
            return short, node.sentence()
        return short, f"{node.id}: {expr}" + (f" — {node.sentence()}" if node.says else "")

    def trick_events(self) -> list[dict[str, Any]]:
        """The events of the trick on the table (since the last trick began)."""
        rec = self.state.record
        start = 0
        for i in range(len(rec) - 1, -1, -1):
            if rec[i]["type"] in ("trick_won", "first_leader", "deal"):
                start = i + 1
                break
        return rec[start:]

    def new_events(self, index: int | None = None) -> list[dict[str, Any]]:
        """Events that entry ``index`` (default: the cursor) added to the record."""
        i = self.cursor if index is None else index
        e = self.entries[i]
        if e.move is None:
            return list(e.state.record)
        prev = self.entries[i - 1].state.record
        return e.state.record[len(prev):]


class PlaySession(Timeline):
    """A test-play game (or match) of ``graph`` from seat ``seat`` against bots.

    ``bots``: a bot spec of the registry (:data:`gouji_dsl.bots.BOTS`: ``heuristic``, ``ismcts``,
    ``ismcts:200`` ...) for every other seat, ``A,B`` (odd seats, even seats, as in ``gouji
    simulate``), or a dict seat → spec; a bad spec raises ValueError naming it.
    ``hands`` (seat → cards or card text) deals a fixed first game; ``leader`` forces its first
    leader. ``seed`` seeds the deals and the bots (``gouji simulate`` compatible)."""

    def __init__(self, graph: RuleGraph, *, seat: int = 1, seed: Any = 0, bots: str | dict[int, str] = "heuristic",
                 hands: dict[int, Any] | None = None, leader: int | None = None):
        super().__init__(graph, seat=seat, seed=seed)
        n = graph.n_seats
        if isinstance(bots, str):
            per_seat = seat_bots(bots, n)
            self.bot_names = {s: per_seat[s - 1] for s in range(1, n + 1) if s != seat}
        else:
            self.bot_names = {s: bots.get(s, "heuristic") for s in range(1, n + 1) if s != seat}
            for name in self.bot_names.values():
                parse_bot_spec(name)
        self._legal_cache: tuple[int, Sequence[Move]] | None = None
        self._bots: dict[tuple[int, int], Any] = {}
        fixed = None
        if hands is not None:
            text = {s: v for s, v in hands.items() if isinstance(v, str)}
            parsed = hands_from_text(graph, text) if text else {}
            fixed = {int(s): (parsed[int(s)] if isinstance(v, str) else list(v)) for s, v in hands.items()}
        self.fixed_hands: dict[int, list[Card]] | None = fixed
        self.leader = leader
        first = new_game(graph, game_seed(seed, 0), hands=fixed, leader=leader)
        self.entries = [Entry(first, game_index=0)]

    # ------------------------------------------------------------------ where we are
    @property
    def bots_to_move(self) -> bool:
        """A bot is to act at the end of the timeline in play mode."""
        st = self.state
        return self.mode == "play" and self.live and not st.over and st.to_act is not None and st.to_act != self.seat

    def legal(self) -> Sequence[Move]:
        """Legal moves at the cursor (cached; a lazy sequence)."""
        cache = self._legal_cache
        if cache is None or cache[0] != id(self.state):
            cache = self._legal_cache = (id(self.state), self.state.legal_moves())
        return cache[1]

    # ------------------------------------------------------------------ typing
    def interpret(self, text: str) -> Typed:
        """Read what the player typed: cards (``RR TTT``: a play, or a burn / return when that is
        what is asked), a verb with its argument (``pass``, ``burn RR TTT``, ``choose head``,
        ``head``), or a whole move line (``3 play KK``)."""
        st = self.state
        t = Typed(text, your_turn=self.your_turn)
        toks = [(m.group(0), m.start()) for m in re.finditer(r"\S+", text)]
        if not toks:
            return t
        seat, i = self.seat, 0
        if toks[0][0].isdigit() and len(toks) > 1 and toks[1][0].lower() in VERBS:
            typed_seat = read_seat(toks[0][0])  # digits 0-9 only, as in every move line ('²' is no seat)
            if typed_seat is None:
                t.error = _("a move starts with a seat 1..{n} written in digits 0-9, got {got!r}").format(
                    n=self.graph.n_seats, got=toks[0][0][:20])
                return t
            seat, i = typed_seat, 1
            if not 1 <= seat <= self.graph.n_seats:
                t.error = _("seat must be 1..{n}, got {seat}").format(n=self.graph.n_seats, seat=seat)
                return t
        word = toks[i][0].lower() if i < len(toks) else ""
        arg = ""
        words = ("head", "headless", *choice_words(self.graph))  # (the ruleset's own choices: 'choose redeal')
        if word in VERBS:
            verb, i = word, i + 1
        elif word in words:
            verb, arg, i = "choose", word, i + 1
        else:
            verb = self.default_verb()
        rest_at = toks[i][1] if i < len(toks) else len(text)
        rest = text[rest_at:].strip()
        try:
            if verb in CARD_VERBS:
                if not rest:
                    t.error = _("'{verb}' needs cards, e.g. '{verb} RR TTT'").format(verb=verb)
                    return t
                mv = Move(seat, Verb(verb), self.model.parse(text[rest_at:], path="<typed>", col=rest_at + 1))
            elif verb == "choose":
                arg = arg or rest.lower()
                if arg not in words:
                    t.error = _("choose takes {words}").format(words=_(" or ").join(repr(w) for w in words))
                    return t
                mv = Move(seat, Verb.CHOOSE, None, arg)
            else:
                if rest:
                    t.error = _("'{verb}' takes no cards (column {col})").format(verb=verb, col=rest_at + 1)
                    return t
                mv = Move(seat, Verb(verb))
        except GoujiError as e:
            d = e.diagnostics[0]
            t.error = d.message + ((f"（{d.hint}）" if chinese() else f" ({d.hint})") if d.hint else "")
            return t
        t.move = mv
        if mv.cards is not None:
            t.play = self.model.classify(mv.cards)
        if not st.over:
            t.explanation = self.judge(mv)
        return t

    def judge(self, move: Move) -> Explanation:
        """Whether ``move`` is legal at the cursor, and the rules that decide it (the interpreter's
        :func:`explain`; a table's seat asks the server instead)."""
        return explain(self.state, move)

    # ------------------------------------------------------------------ moving
    def _push(self, state: GameState, move: Move | None, by: str, game_index: int | None = None) -> None:
        if not self.live:
            del self.entries[self.cursor + 1:]
        self.entries.append(Entry(state, move.text(self.model) if move else None, move.seat if move else None, by,
                                  self.game_index if game_index is None else game_index))
        self.cursor = len(self.entries) - 1
        self.mode = "play"

    def apply(self, move: Move, by: str = "you") -> None:
        """Make ``move`` at the cursor (a new branch when looking back). Raises IllegalMove."""
        st = self.state.copy()
        st.apply_in_place(move)
        self._push(st, move, by)
        self.last_illegal = None

    def bot_for(self, seat: int) -> Any:
        key = (self.game_index, seat)
        bot = self._bots.get(key)
        if bot is None:
            name = self.bot_names.get(seat, "heuristic")
            bot = make_bot(name, random.Random(f"{game_seed(self.seed, self.game_index)}:bot{seat}"))
            self._bots[key] = bot
        return bot

    def bot_move(self) -> Move | None:
        """The move of the bot to act (None when it is your turn or the game is over)."""
        st = self.state
        if st.over or st.to_act is None or st.to_act == self.seat:
            return None
        return self.bot_for(st.to_act).choose(st, self.legal())

    def bot_searches(self, seat: int | None = None) -> bool:
        """The bot of ``seat`` (default: the seat to act) is a search bot or a bot from outside (an
        exec bot or a plug-in): it may think for a while, so the screen asks it in a worker thread
        (and shows its failure there)."""
        seat = self.state.to_act if seat is None else seat
        name = self.bot_names.get(seat) if seat is not None else None
        return name is not None and (parse_bot_spec(name)[0].searches or is_outside(name))

    def bot_request(self) -> tuple[GameState, list[Move], Any] | None:
        """What a bot needs to choose at the end of the timeline, taken on the UI thread: the state,
        its legal moves (a list) and the bot; ``bot.choose(state, moves)`` may then run in another
        thread (nothing here changes meanwhile: every timeline entry is its own copy). None when no
        bot is to act."""
        if not self.bots_to_move:
            return None
        st = self.state
        assert st.to_act is not None
        return st, list(self.legal()), self.bot_for(st.to_act)

    def analyse(self, spec: str, state: GameState | None = None, moves: Sequence[Move] | None = None,
                stop: Callable[[], bool] | None = None) -> Analysis:
        """What the bot ``spec`` (``ismcts``, ``pimc:400``, ``heuristic`` ...) would play for the seat
        to act at ``state`` (default: the cursor), and for a search bot every candidate move it
        searched with its estimated value (the mean final score of that seat over the sampled deals),
        its standard error and the number of deals. The bot draws from a seed made of the session's
        seed, the game and the position: asking again gives the same answer. A bot that does not
        search gives its move with no candidates. Safe to run in a worker thread; ``stop()`` true ends
        the search after its current round (a question nobody waits for any more)."""
        st = self.state if state is None else state
        legal = st.legal_moves() if moves is None else moves  # (a sequence: ways to return cards are counted, not listed)
        if st.over or st.to_act is None or not legal:
            raise ValueError("the game is over: there is no move to analyse")
        kind, iters = parse_bot_spec(spec)
        # the same bot asked as ISMCTS, ismcts or ismcts:500 draws the same deals (the seed names it one way)
        same = f"{kind.name}:{iters or kind.default_iterations}" if kind.searches else kind.name
        rng = random.Random(f"{game_seed(self.seed, self.game_index)}:hint:{len(st.record)}:{same}")
        bot = make_bot(spec, rng)
        if kind.searches and len(legal) > 1:
            bot.stop = stop  # type: ignore[attr-defined]
            a: Analysis = bot.analyse(st, legal)  # type: ignore[attr-defined]
            if not a.forced:
                return a
            return Analysis(a.best, [], 0, 0.0, a.best, forced=True)  # one candidate: nothing was searched
        mv = bot.choose(st, legal)
        return Analysis(mv, [], 0, 0.0, mv, forced=len(legal) == 1)

    def step_bot(self) -> Move | None:
        mv = self.bot_move()
        if mv is not None:
            self.apply(mv, "bot")
        return mv

    def hint(self) -> Move | None:
        """What the heuristic bot would play for the seat to act."""
        moves = self.legal()
        if not moves:
            return None
        return HeuristicBot(random.Random(0)).choose(self.state, moves)

    def run(self, until: str = "trick", limit: int = 5000) -> int:
        """Play on (bots, and the hint for your seat) to the end of the trick (``until="trick"``)
        or of the game. Returns the number of moves made."""
        start_trick = self.state.trick_no
        n = 0
        while not self.state.over and n < limit:
            if self.state.to_act == self.seat:
                mv = self.hint()
                if mv is None:
                    break
                self.apply(mv, "auto")
            elif self.step_bot() is None:
                break
            n += 1
            if until == "trick" and self.state.trick_no != start_trick:
                break
        return n

    def run_bots(self, limit: int = 5000) -> int:
        """Let the bots move until it is your turn or the game is over."""
        n = 0
        while self.bots_to_move and n < limit:
            self.step_bot()
            n += 1
        return n

    # ------------------------------------------------------------------ games of a match
    @property
    def unfinished(self) -> bool:
        """Leaving now would lose a game being played: you made moves in play (not only watched the
        bots open the game, not only replayed a record) since the record was last saved, and the
        game — or, within a match, the match — is not over at the end of the timeline."""
        if not any(e.by in ("you", "auto") or (e.game_index > 0 and e.by != "record") for e in self.entries):
            return False
        last = self.entries[-1]
        if self.saved_state is last.state:
            return False
        return not (last.state.over and (self.length <= 1 or (last.game_index + 1) % self.length == 0))

    def mark_saved(self) -> None:
        """The record was saved as it is now (:attr:`unfinished` is False until the next move)."""
        self.saved_state = self.entries[-1].state

    @property
    def can_next_game(self) -> bool:
        return self.state.over and self.live

    def next_game(self) -> GameState:
        """Deal the next game: within a match (``match_length`` > 1) the between-game rules see this
        game; after the last game of a match a new match starts."""
        st = self.state
        idx = self.game_index + 1
        seed = game_seed(self.seed, idx)
        if idx % self.length:
            new = next_game(st, seed)
        else:
            new = new_game(self.graph, seed)
            self.record_path = None  # a new match is a record of its own: saving it must not replace the last one's
        self._push(new, None, "", idx)
        return new

    # ------------------------------------------------------------------ looking back
    def _decision_points(self) -> list[int]:
        """Timeline indexes where you were to decide (before your move), plus game starts."""
        out = []
        for i, e in enumerate(self.entries):
            nxt = self.entries[i + 1] if i + 1 < len(self.entries) else None
            if nxt is not None and nxt.seat == self.seat or e.move is None:
                out.append(i)
        return out

    def undo(self) -> bool:
        """Back to before your previous move (or the start of the game)."""
        points = [i for i in self._decision_points() if i < self.cursor]
        if not points:
            if self.cursor == 0:
                return False
            self.cursor = 0
            return True
        self.cursor = points[-1]
        return True

    def redo(self) -> bool:
        """Forward to your next decision (or the end of the timeline)."""
        if self.live:
            return False
        points = [i for i in self._decision_points() if i > self.cursor]
        self.cursor = points[0] if points else len(self.entries) - 1
        return True

    def resume_here(self) -> None:
        """Play on from the position shown: the rest of the timeline is dropped."""
        del self.entries[self.cursor + 1:]
        self.mode = "play"

    # ------------------------------------------------------------------ records
    def record(self, upto_cursor: bool = False) -> GameRecord:
        """The record of the current match (the whole timeline, or up to the cursor)."""
        end = self.cursor if upto_cursor else len(self.entries) - 1
        bots = {s: self.bot_names.get(s, "human") for s in range(1, self.graph.n_seats + 1)}
        bots[self.seat] = "human"
        return GameRecord.from_states(self.finals(end), seed=self.seed, bots=bots)

    def load(self, record: GameRecord) -> None:
        """Replace the timeline with ``record`` replayed step by step (cursor at its start).
        Raises :class:`GoujiError` (nothing changes then)."""
        steps: list[Step] = replay_steps(self.graph, record)
        entries = []
        gi = -1
        for st in steps:
            if st.move is None:
                gi += 1
            seat = int(st.move.split()[0]) if st.move else None
            entries.append(Entry(st.state, st.move, seat, "record", gi))
        humans = [s for s, b in record.bots.items() if b == "human"]
        if humans:
            self.seat = humans[0]
        self.bot_names = {s: (b if _known_bot(b) else "heuristic")
                          for s, b in record.bots.items() if s != self.seat} or self.bot_names
        self.bot_names.pop(self.seat, None)
        self.seed = record.seed if record.seed is not None else self.seed
        self.entries = entries
        self.cursor = 0
        self.mode = "replay"
        self._bots.clear()
        self.record_path = record.path

    def scenario(self, name: str) -> str:
        """The position at the cursor as a NOTATION.md scenario case."""
        illegal = [self.last_illegal] if self.last_illegal else []
        return scenario_case(self.state, name, illegal=illegal, previous=self.previous_game())

    # ------------------------------------------------------------------ the table
    def who_may_answer(self, state: GameState | None = None) -> tuple[list[int], list[int]]:
        """For the play on the table: the seats still to be asked that may follow it, and those that
        may burn it (the ruleset's follow / burn rules, in the order they will be asked)."""
        from gouji_dsl.ruleset.game.context import Ctx
        st = state or self.state
        if st.top is None or st.over or st.phase != "play":
            return [], []
        follow, burn = [], []
        for seat, cap in st.queue:
            if seat is None or seat == st.top.seat or not st.is_active(seat):
                continue
            ctx = Ctx(st, seat=seat, top=st.top)
            if cap == "burn" and st.graph.permit("burn", ctx) and seat not in burn:
                burn.append(seat)
            elif cap == "follow" and st.graph.permit("follow", ctx) and seat not in follow:
                follow.append(seat)
        return follow, burn


def _setting_text(value: Any) -> str:
    return str(value) if isinstance(value, (int, float, str)) else "…"


__all__ = ["PlaySession", "Timeline", "Entry", "Typed", "GameSummary", "ordinal", "term_of", "team_score",
           "summarize", "tribute_of", "field"]
