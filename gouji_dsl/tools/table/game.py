"""One club table without the network: seats, the match, the one move path, bots, the record.

A :class:`Table` holds the only full game state. A move reaches the game only through
:meth:`Table.move` (a person's, checked and applied by the interpreter: ``GameState.apply_in_place``)
or :meth:`Table.bot_move` (a bot's choice among ``legal_moves``, applied the same way). The match is
the ruleset's (``match_length``); game ``i`` deals from ``SEED:i`` and the next game of a match sees
the previous one (tribute: :func:`gouji_dsl.engine.interpreter.next_game`), seeded as ``gouji
simulate`` and the play screen seed theirs; seat ``s``'s bot in game ``i`` draws from ``SEED:i:botS``.
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

from gouji_dsl.bots import is_outside, make_bot, parse_bot_spec, seat_bots
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine.interpreter import GameState, IllegalMove, Move, choice_words, game_seed, match_length, new_game, next_game, parse_move
from gouji_dsl.engine.records import GameRecord
from gouji_dsl.ruleset.graph import RuleGraph

from .protocol import AutoWhy, ErrorCode, TableError, new_token, seed_hash, why_json

MAX_NAME = 24


class Who:
    """Who holds a seat: ``free`` (before the start), ``player`` (a person), ``bot`` (a bot from the start)."""

    FREE = "free"
    PLAYER = "player"
    BOT = "bot"


@dataclass
class Seat:
    """One seat: its token (the pass back to it), whether it is kept for a person, the bot that
    plays it when nobody does (托管), and who holds it now."""

    number: int
    token: str
    people: bool
    bot: str
    who: str = Who.FREE
    name: str | None = None
    connected: bool = False
    auto: bool = False
    ready: bool = False

    @property
    def bot_plays(self) -> bool:
        return self.who == Who.BOT or self.auto

    def to_json(self) -> dict[str, Any]:
        return {"seat": self.number, "who": self.who, "name": self.name if self.who != Who.BOT else self.bot,
                "connected": self.connected, "auto": self.bot_plays}


def clean_name(name: Any) -> str | None:
    """A player's name as shown to the table: printable, at most :data:`MAX_NAME` characters."""
    if not isinstance(name, str):
        return None
    text = "".join(ch for ch in name if ch.isprintable()).strip()[:MAX_NAME]
    return text or None


@dataclass(frozen=True)
class TableRules:
    """What a table plays: the compiled ruleset and the text of its file (it travels with the table)."""

    graph: RuleGraph
    name: str
    path: str
    text: str


class Table:
    """A table: ``rules``, seats (``people``: the seats kept for persons; the others are bots from
    the start), one match seeded ``seed``. ``bots``: the bot spec of every seat (``A``, ``A,B`` or
    one per seat, as ``gouji simulate`` reads it), which also plays a person's seat in 托管."""

    def __init__(self, rules: TableRules, code: str, *, seed: str, people: set[int] | None = None, bots: str = "heuristic"):
        self.rules = rules
        self.graph = rules.graph
        self.code = code
        self.seed = seed
        self.seed_sha256 = seed_hash(seed)
        n = self.graph.n_seats
        specs = seat_bots(bots, n)
        people = set(range(1, n + 1)) if people is None else people
        self.seats = {s: Seat(s, new_token(), s in people, specs[s - 1]) for s in range(1, n + 1)}
        for seat in self.seats.values():
            if not seat.people:
                seat.who = Who.BOT
        self.length = match_length(self.graph)
        self.words = choice_words(self.graph)
        self.started = False
        self.game_index = 0
        self.finals: list[GameState] = []
        self.seq = 0
        self.matches = 1
        self._bots: dict[tuple[int, int], Any] = {}
        self.made_by: dict[int, str] = {}
        """Who made each move of the current game: the index of its ``move`` event in the record ->
        ``player`` or ``bot`` (a person's seat in 托管 is played by its bot: ``bot``)."""

    # ------------------------------------------------------------------ seats
    @property
    def state(self) -> GameState:
        return self.finals[-1]

    @property
    def n_seats(self) -> int:
        return self.graph.n_seats

    def seat_of_token(self, token: str) -> Seat | None:
        import secrets
        for seat in self.seats.values():
            if secrets.compare_digest(seat.token.encode(), str(token).encode("utf-8", "surrogatepass")):
                return seat
        return None

    def free_seat(self, wanted: int | None = None) -> Seat:
        """The seat a newcomer takes (``wanted``, else the first free one). Raises TableError."""
        if wanted is not None:
            seat = self.seats.get(wanted)
            if seat is None:
                raise TableError(ErrorCode.BAD_MESSAGE, f"seat must be 1..{self.n_seats}, got {wanted!r}")
            if seat.who == Who.FREE:
                return seat
            if seat.who == Who.PLAYER and seat.connected:
                raise TableError(ErrorCode.SEAT_TAKEN, f"seat {wanted} is taken")
            if seat.who == Who.BOT:
                raise TableError(ErrorCode.NO_FREE_SEAT, f"seat {wanted} is a bot's at this table: take another seat or watch")
            raise TableError(ErrorCode.NO_FREE_SEAT, f"seat {wanted} is not free: its player's seat link takes it back")
        for seat in self.seats.values():
            if seat.who == Who.FREE:
                return seat
        raise TableError(ErrorCode.NO_FREE_SEAT, "no free seat at this table: watch instead")

    def sit(self, seat: Seat, name: str | None) -> list[AutoWhy]:
        """A person takes ``seat`` (a free one, or his own back by its token). Returns the 托管 change
        to announce. The seat's name is fixed when the seat is first claimed: a later hello's name
        (the token's holder on a new connection) does not rename it (see :meth:`name_kept`)."""
        seat.who = Who.PLAYER
        seat.connected = True
        if seat.name is None:
            seat.name = name or f"seat {seat.number}"
        if seat.auto:
            seat.auto = False
            return [AutoWhy.BACK]
        return []

    @staticmethod
    def name_kept(seat: Seat, asked: str | None) -> bool:
        """A hello asked for another name than the one ``seat`` was claimed with (which it keeps)."""
        return asked is not None and asked != seat.name

    def leave(self, seat: Seat) -> bool:
        """A person's connection went: a bot plays his seat until he is back. True when 托管 began."""
        seat.connected = False
        if self.started and seat.who == Who.PLAYER and not seat.auto:
            seat.auto = True
            return True
        return False

    @property
    def people_waited_for(self) -> list[int]:
        """Seats kept for people that nobody holds yet (the table starts by itself when none is left)."""
        return [s.number for s in self.seats.values() if s.people and s.who == Who.FREE]

    def start(self) -> None:
        """Bots take every free seat; the first game is dealt."""
        if self.started:
            return
        for seat in self.seats.values():
            if seat.who == Who.FREE:
                seat.who = Who.BOT
        self.started = True
        self.finals = [new_game(self.graph, game_seed(self.seed, 0))]
        self.game_index = 0
        self.made_by = {}
        self.seq += 1

    # ------------------------------------------------------------------ the match
    @property
    def game_in_match(self) -> int:
        """The current game's number within the match (1-based)."""
        return self.game_index + 1

    @property
    def match_over(self) -> bool:
        return self.started and self.state.over and self.game_index + 1 >= self.length

    def next_game(self) -> GameState:
        """Deal the next game of the match (its between-game rules see this one)."""
        if not self.state.over or self.match_over:
            raise TableError(ErrorCode.GAME_OVER, "no next game now")
        self.game_index += 1
        new = next_game(self.state, game_seed(self.seed, self.game_index))
        self.finals.append(new)
        self.made_by = {}
        for seat in self.seats.values():
            seat.ready = False
        self.seq += 1
        return new

    def new_match(self, seed: str) -> None:
        """After the match: the next one on the same seats, seeded ``seed`` (its hash is sent anew)."""
        if not self.match_over:
            raise TableError(ErrorCode.GAME_OVER, "the match is not over")
        self.seed, self.seed_sha256 = seed, seed_hash(seed)
        self.matches += 1
        self._bots.clear()
        self.finals = [new_game(self.graph, game_seed(seed, 0))]
        self.game_index = 0
        self.made_by = {}
        for seat in self.seats.values():
            seat.ready = False
        self.seq += 1

    def record(self) -> GameRecord:
        """The match as a game record (``gouji replay --check`` verifies it); the ruleset's text travels in it."""
        bots = {s.number: ("human" if s.who == Who.PLAYER else s.bot) for s in self.seats.values()}
        rec = GameRecord.from_states(self.finals, seed=self.seed, bots=bots, ruleset_path=self.rules.path)
        rec.ruleset_text = self.rules.text
        return rec

    # ------------------------------------------------------------------ moves
    def _playing(self) -> GameState:
        if not self.started:
            raise TableError(ErrorCode.NOT_STARTED, "the table has not started")
        st = self.state
        if st.over:
            raise TableError(ErrorCode.GAME_OVER, "no game is being played now")
        return st

    def read_move(self, seat: int, text: Any) -> Move:
        """A move line sent by ``seat`` (with or without its seat number). Raises TableError."""
        if not isinstance(text, str) or not text.strip() or len(text) > 200:
            raise TableError(ErrorCode.BAD_MESSAGE, "'move' must be a move line such as '3 play KK'")
        line = text.strip()
        if not line.split()[0].isdigit():
            line = f"{seat} {line}"
        try:
            mv = parse_move(line, self.graph.model, self.n_seats, words=self.words)
        except GoujiError as e:
            d = e.diagnostics[0]
            raise TableError(ErrorCode.BAD_MOVE, d.message + (f" ({d.hint})" if d.hint else ""), diagnostic=str(d.code)) from None
        if mv.seat != seat:
            raise TableError(ErrorCode.NOT_YOUR_TURN, f"you are seat {seat}, not seat {mv.seat}")
        return mv

    def move(self, seat: int, text: Any, at: Any = None) -> Move:
        """A person's move: refused with a TableError (nothing changes) unless it is ``seat``'s turn
        and the interpreter finds it legal."""
        st = self._playing()
        if at is not None and at != self.seq:
            raise TableError(ErrorCode.STALE, f"the move was chosen on state {at!r}; the table is at {self.seq}")
        mv = self.read_move(seat, text)
        if st.to_act != seat:
            raise TableError(ErrorCode.NOT_YOUR_TURN, f"seat {st.to_act} is to act, not seat {seat}")
        n = len(st.record)
        try:
            st.apply_in_place(mv)
        except IllegalMove as e:
            raise TableError(ErrorCode.ILLEGAL_MOVE, e.diagnostics[0].message, why=why_json(st, mv, seat)) from None
        self._made(n, "player")
        self.seq += 1
        return mv

    def _made(self, start: int, by: str) -> None:
        """The move just applied (its ``move`` event is the first one from ``start``) was made by ``by``."""
        record = self.state.record
        for i in range(start, len(record)):
            if record[i].get("type") == "move":
                self.made_by[i] = by
                return

    def why(self, seat: int, text: Any) -> dict[str, Any]:
        st = self._playing()
        return why_json(st, self.read_move(seat, text), seat)

    def bot_for(self, seat: int) -> Any:
        key = (self.game_index, seat)
        bot = self._bots.get(key)
        if bot is None:
            bot = make_bot(self.seats[seat].bot, random.Random(f"{game_seed(self.seed, self.game_index)}:bot{seat}"))
            self._bots[key] = bot
        return bot

    def bot_searches(self, seat: int) -> bool:
        """The bot of ``seat`` may think for a while (a search bot, or a bot from outside: an exec
        bot waits on its process): the server asks it in a thread."""
        spec = self.seats[seat].bot
        return parse_bot_spec(spec)[0].searches or is_outside(spec)

    def bot_to_move(self) -> int | None:
        """The seat a bot is to move for now (None: a person is to act, or no game is being played)."""
        if not self.started or self.state.over:
            return None
        seat = self.state.to_act
        return seat if seat is not None and self.seats[seat].bot_plays else None

    def bot_draws(self, seat: int) -> Any:
        """Where ``seat``'s bot stands in its random draws (its generator's state; None: it has
        none), taken before it chooses: :meth:`bot_move` puts it back when the choice is dropped."""
        rng = getattr(self.bot_for(seat), "rng", None)
        return rng.getstate() if isinstance(rng, random.Random) else None

    def bot_move(self, seat: int, move: Move, seq: int, draws: Any = None) -> bool:
        """Apply the move ``seat``'s bot chose on state ``seq``; False (nothing changes) when the
        table moved on meanwhile or the seat's player took it back. ``draws`` (:meth:`bot_draws`,
        taken before the bot chose): a dropped choice gives its random draws back, so the bot's
        next choice is the one it would have made had it never been asked (the table's games
        depend only on the seed and the moves made, never on when a choice came)."""
        if seq != self.seq or self.bot_to_move() != seat:
            if draws is not None:
                self.bot_for(seat).rng.setstate(draws)
            return False
        n = len(self.state.record)
        self.state.apply_in_place(move)
        self._made(n, "bot")
        self.seq += 1
        return True


__all__ = ["Table", "TableRules", "Seat", "Who", "clean_name", "MAX_NAME"]
