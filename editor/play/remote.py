"""A seat at a club table (issue 27): the play screen as a client of ``gouji host``.

The table server is the only judge (docs/table-protocol.md): it holds the game, checks every move
with the interpreter and sends each seat its own view. This module turns what it sends into what
the play screen reads — a :class:`~editor.play.session.Timeline` of states — so the screen, its
seats, trick, log and dialogs work unchanged:

- :class:`ViewState`: one ``state`` message (the seat's ``view``, the events it may see, the legal
  moves when it is to act) read as the attributes of a :class:`GameState` the screen uses; another
  seat's hidden cards are not in it (there is nothing to leak).
- :class:`RemoteSession`: the timeline of those states, the seats (name, bot / human / 托管,
  connection) and the table (code, seed hash, the seed after the match); a move typed is *sent*
  (:meth:`RemoteSession.apply`), its result comes back as the next state, or as an error the screen
  shows as it shows a refused move.
- :class:`TableLink`: the websocket (aiohttp, on the app's event loop), the ``hello`` (with the seat
  token once the server gave one: a reconnection takes the seat back) and reconnection with bounded
  backoff.
- :func:`parse_address`: ``http://HOST:PORT/t/CODE?token=T``, ``…/t/CODE`` or a bare ``CODE``.
"""
from __future__ import annotations

import asyncio
import itertools
import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, cast

from gouji_dsl.diagnostics import GoujiError, SourcePos
from gouji_dsl.engine.explain import Explanation
from gouji_dsl.engine.interpreter import Move, choice_words, parse_move
from gouji_dsl.ruleset.game.context import TablePlay
from gouji_dsl.ruleset.graph import Reason, RuleGraph, Verdict

from ..i18n import _
from .session import Entry, GameSummary, PlaySession, Timeline

PROTOCOL = 1
DEFAULT_SERVER = "http://127.0.0.1:8765"
#: seconds between reconnection tries: doubled from the first to the last, then kept at the last
BACKOFF = (0.5, 1.0, 2.0, 4.0, 8.0)
#: tries before the client gives up on a server that does not answer (about five minutes)
MAX_TRIES = 40
#: tries before a table that never answered is given up (a wrong address or a server not started)
FIRST_TRIES = 5
#: a connection that stayed up this long starts the backoff again when it is lost (one dropped at once —
#: the seat taken by another connection with the same token — goes on backing off, and gives up)
STEADY_S = 10.0
#: a websocket message larger than this is not read (the protocol's limit is 16 KB each way;
#: the server's own states of a long game with ``full: true`` are larger)
MAX_MESSAGE = 4 * 1024 * 1024


class AddressError(ValueError):
    """``gouji join`` was given something that is no table's address."""


@dataclass(frozen=True)
class Address:
    """Where a table is: the server's ``http://HOST:PORT``, the room code, the seat token (or None)."""

    server: str
    code: str
    token: str | None = None

    @property
    def websocket(self) -> str:
        return re.sub(r"^http", "ws", self.server) + "/ws"

    @property
    def link(self) -> str:
        return f"{self.server}/t/{self.code}" + (f"?token={self.token}" if self.token else "")


def parse_address(text: str, server: str | None = None) -> Address:
    """A room link, a seat link or a bare room code (then ``server``, default 127.0.0.1:8765), read
    by the protocol's own reader (:func:`gouji_dsl.tools.table.client.parse_address`); only an
    ``http(s)`` server, and only a code the server could have made."""
    from gouji_dsl.tools.table.client import parse_address as read
    from gouji_dsl.tools.table.protocol import CODE_ALPHABET as CODE_CHARS
    try:
        where, code, token = read(text, server)
    except ValueError as e:
        raise AddressError(str(e)) from None
    if not re.fullmatch(f"[{CODE_CHARS}]{{4}}", code):
        raise AddressError(f"{code[:20]!r} is not a room code: 4 of {CODE_CHARS} (no 0/O, 1/I/L)")
    if not re.fullmatch(r"https?://[^/?#@\s]+", where):
        raise AddressError(f"{text[:80]!r}: a table's server is http://HOST:PORT")
    return Address(where, code, token)


def graph_from_text(name: str, text: str) -> RuleGraph:
    """The table's ruleset from its text (resolved as a file of that name in the current folder, as
    a record's carried text is: its ``extends:`` names a bundled ruleset or one beside it)."""
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    stem = re.sub(r"[^\w-]", "_", os.path.basename(name)).strip("_") or "table"
    return compile_ruleset(resolve_text(text, os.path.join(os.getcwd(), f"{stem}.yaml")))


# ------------------------------------------------------------------------------ the state shown
class ViewState:
    """A ``state`` message read as the play screen reads a :class:`GameState`: the seat's own hand,
    the counts / hands the ruleset lets it see, the public table, the events of this game so far."""

    def __init__(self, graph: RuleGraph, view: dict[str, Any], record: list[dict[str, Any]], *, game_number: int,
                 legal: Sequence[str] = (), over: dict[str, Any] | None = None, seat: int | None = None):
        self.graph = graph
        self.model = graph.model
        self.kinds = graph.model.kinds
        self.n_seats = graph.n_seats
        self.n_teams = int(graph.settings.get("teams", 2))
        self.seat_list = tuple(range(1, self.n_seats + 1))
        self.game_number = game_number
        self.record = record
        self.legal_texts = list(legal)
        self.seat = seat
        self._view = {"others": {}, **view}
        others = view.get("others") or {}
        self.places = {int(k): int(v) for k, v in (view.get("places") or {}).items()}
        if over is not None:
            self.places = {int(k): int(v) for k, v in (over.get("places") or {}).items()} or self.places
        self.scores: dict[int, Any] = {int(k): v for k, v in ((over or {}).get("scores") or {}).items()}
        self.sweep = bool((over or {}).get("sweep"))
        self.phase = "over" if over is not None else str(view.get("phase") or "play")
        self.to_act = None if over is not None else view.get("to_act")
        self.passed = set(view.get("passed") or [])
        self.revolted = set(view.get("revolted") or [])
        self.failed: set[int] = set()
        self.burner = view.get("burner")
        self.flags: dict[str, set[int]] = {}
        self.prev = None
        self.voided = over is not None and not self.places
        self.hands: dict[int, list[int]] = {s: [0] * len(self.kinds) for s in self.seat_list}
        self._counts: dict[int, int] = {}
        if seat is not None and view.get("hand") is not None:
            self.hands[seat] = self._cards(view.get("hand") or "")
        for k, info in others.items():
            if "hand" in info:
                self.hands[int(k)] = self._cards(info["hand"] or "")
            if "count" in info:
                self._counts[int(k)] = int(info["count"])
        top = view.get("top")
        self.top: TablePlay | None = None
        if top:
            cards = self._cards(top.get("cards") or "")
            self.top = TablePlay(self.model.classify(tuple(cards)), int(top["seat"]), self.kinds)
        self.trick_no = 1 + sum(1 for e in record if e.get("type") == "trick_won")
        self.capacity = self._capacity()
        self.return_queue = self._returns()
        self.ask_queue = [(self.to_act, m.split()[2]) for m in self.legal_texts if m.split()[1:2] == ["choose"]][:1]
        self.queue: list[tuple[int | None, str]] = []

    def _cards(self, text: str) -> list[int]:
        try:
            return list(self.model.parse(text, path="<table>"))
        except GoujiError:
            return [0] * len(self.kinds)

    def _capacity(self) -> str:
        verbs = {m.split()[1] for m in self.legal_texts if len(m.split()) > 1}
        if self.phase != "play":
            return self.phase
        if "burn" in verbs and "play" not in verbs:
            return "burn"
        return "lead" if self.top is None else "follow"

    def _returns(self) -> list[tuple[int, int, int]]:
        if self.phase != "return" or self.to_act is None:
            return []
        got = [e for e in self.record if e.get("type") == "transfer" and e.get("receiver") == self.to_act
               and str(e.get("rule", "")).startswith("tribute")]
        n = next((len(m.split()) - 2 for m in self.legal_texts if m.split()[1:2] == ["return"]), len(got) or 1)
        giver = got[-1].get("giver") if got else 0
        return [(self.to_act, int(giver or 0), max(n, 1))]

    # -------------------------------------------------------------- what GameState answers
    @property
    def over(self) -> bool:
        return self.phase == "over"

    def view(self, seat: int | None = None) -> dict[str, Any]:
        return self._view

    def team(self, s: int) -> int:
        return (s - 1) % self.n_teams + 1

    def opposite(self, s: int) -> int:
        return (s - 1 + self.n_seats // 2) % self.n_seats + 1

    def is_active(self, s: int) -> bool:
        return s not in self.places and s not in self.revolted and s not in self.failed

    def hand_size(self, s: int) -> int:
        if s in self._counts:
            return self._counts[s]
        return sum(self.hands[s])

    def hand_text(self, s: int) -> str:
        return str(self.model.text(self.hands[s]))

    def legal_moves(self) -> list[Move]:
        words = choice_words(self.graph)
        out = []
        for m in self.legal_texts:
            try:
                out.append(parse_move(m, self.model, self.n_seats, words=words))
            except GoujiError:
                pass
        return out

    def copy(self) -> ViewState:
        return self


def _seat_of(line: str) -> int | None:
    """The seat of a move line (``3 play KK`` → 3), or None."""
    head = line.split(None, 1)[:1]
    return int(head[0]) if head and head[0].isdigit() else None


def _entry(state: ViewState, move: str | None = None, seat: int | None = None, by: str = "", game_index: int = 0) -> Entry:
    """A timeline entry holding a view (read as a GameState by the screen: the attributes it uses)."""
    return Entry(cast(Any, state), move, seat, by, game_index)


# ------------------------------------------------------------------------------ the seats
@dataclass
class SeatInfo:
    """Who holds a seat, from the ``table`` message: ``who`` player / bot / free, the player's
    name, connected, ``auto`` (a bot plays it now: 托管 for a player)."""

    seat: int
    who: str = "free"
    name: str | None = None
    connected: bool = False
    auto: bool = False

    def caption(self) -> str:
        if self.who == "bot":
            return _("{bot} bot").format(bot=self.name or "")
        if self.who == "free":
            return _("free seat")
        bits = [self.name or _("player")]
        if self.auto:
            bits.append(_("托管 (a bot plays)"))
        bits.append(_("connected") if self.connected else _("disconnected"))
        return " · ".join(bits)


def reason_of(d: dict[str, Any]) -> Reason:
    """A reason of a ``why`` answer: its rule, verdict, text and where (``path:line``)."""
    pos = None
    where = str(d.get("where") or "")
    m = re.fullmatch(r"(.+):(\d+)", where)
    if m:
        path = m.group(1)
        if path.startswith("<bundled>/"):
            from gouji_dsl import resources
            path = str(resources.rules_dir() / path[len("<bundled>/"):])
        pos = SourcePos(path, int(m.group(2)))
    try:
        verdict = Verdict(str(d.get("verdict") or "note"))
    except ValueError:  # (a verdict of a later protocol: said as a note)
        verdict = Verdict.NOTE
    return Reason(str(d.get("rule") or "?"), verdict, str(d.get("text") or ""), pos)


def explanation_of(d: dict[str, Any]) -> Explanation:
    """A ``why`` answer (or an ``illegal_move`` error's ``why``) as the play screen's Explanation."""
    from gouji_dsl.engine.explain import Because
    chain = [Because(str(c.get("fact", "")), tuple(Reason(str(r), Verdict.NOTE, "") for r in c.get("rules") or []))
             for c in d.get("chain") or []]
    warnings = [Because(str(c.get("fact", "")), tuple(Reason(str(r), Verdict.NOTE, "") for r in c.get("rules") or []))
                for c in d.get("warnings") or []]
    return Explanation(str(d.get("move") or ""), bool(d.get("legal")), [reason_of(r) for r in d.get("reasons") or []],
                       chain, warnings)


# ------------------------------------------------------------------------------ the session
class RemoteSession(PlaySession):
    """The play screen's game source at a club table (see the module docstring). ``seat`` is None
    for a spectator (the screen then shows the table from seat 1, with no hand)."""

    remote = True

    def __init__(self, graph: RuleGraph, *, seat: int | None, address: Address, name: str | None = None):
        Timeline.__init__(self, graph, seat=seat or 1, seed="?")
        self._legal_cache = None
        self._bots = {}
        self.fixed_hands = None
        self.leader = None
        self.watching = seat is None
        self.address = address
        self.name = name
        self.seats: dict[int, SeatInfo] = {s: SeatInfo(s) for s in range(1, graph.n_seats + 1)}
        self.started = False
        self.games = self.length
        self.seq = 0
        self.seed_sha256: str | None = None
        self.seed_revealed: str | None = None
        self.record_link: str | None = None
        self.connection = "connecting"   # connecting / connected / lost / gave up
        self.pending: str | None = None   # the move sent, not answered yet
        self.timer_s: float | None = None
        self.totals: dict[int, Any] = {}
        self._told: dict[int, GameSummary] = {}  # this match's finished games as the table told them (game number ->)
        self.answers: dict[str, Explanation] = {}  # why answers of this position: move line -> explanation
        self.link: TableLink | None = None
        self._record: list[dict[str, Any]] = []
        self._view: dict[str, Any] = {}
        self._game = 0
        self._match_base = 0  # the timeline's game index of this match's first game
        self._legal: list[str] = []
        self.legal_cut = False  # the table listed only the first of the legal moves (it judges the others)
        self.entries = [_entry(ViewState(graph, {"seat": seat, "hand": ""}, [], game_number=1, seat=seat))]

    # -------------------------------------------------------------- what the screen asks
    @property
    def viewer(self) -> int | None:
        """None for a spectator: the seats are shown by number, from nobody's side (no "you")."""
        return None if self.watching else self.seat

    @property
    def your_turn(self) -> bool:
        st = self.state
        return not self.watching and not st.over and st.to_act == self.seat and self.live

    @property
    def match_done(self) -> bool:
        """The last game of the table's match is over (a match of one game too: F10 then asks for
        a new match; :attr:`match_over`, the final scoreboard's, is for matches of several games)."""
        return self.state.over and self.game_index + 1 - self._match_base >= self.games

    @property
    def bots_to_move(self) -> bool:
        return False

    @property
    def unfinished(self) -> bool:
        return False

    def bot_searches(self, seat: int | None = None) -> bool:
        return False

    def who_may_answer(self, state: Any = None) -> tuple[list[int], list[int]]:
        return [], []  # (the rules would read the other seats' hands: the table does not send them)

    def seat_caption(self, seat: int) -> str:
        return self.seats[seat].caption() if seat in self.seats else ""

    def legal(self) -> Sequence[Move]:
        st = self.state
        cache = self._legal_cache
        if cache is None or cache[0] != id(st):
            cache = self._legal_cache = (id(st), st.legal_moves() if self.your_turn else [])  # type: ignore[union-attr]
        return cache[1]

    def judge(self, move: Move) -> Explanation:
        """Legal when the server listed it for this position; the rules come from the server's
        ``why`` answer (F5, or a refused move), never from a guess here."""
        text = move.text(self.model)
        known = self.answers.get(text)
        if known is not None:
            return known
        legal = text in {m.text(self.model) for m in self.legal()}
        if not legal and self.legal_cut and self.your_turn:  # not in the list the table cut short: it judges it
            return Explanation(text, True, [], undecided=_("the table judges this move when it is sent"))
        why = [] if legal else [Reason("table.legal", Verdict.FORBADE, _("not among the moves the table allows now "
                                                                    "(F5 asks the table why)") if self.your_turn
                                       else _("it is not your turn at the table"))]
        return Explanation(text, legal, why)

    def hint(self) -> Move | None:
        return None  # the screen asks the table (RemoteSession.link.ask("hint"))

    def apply(self, move: Move, by: str = "you") -> None:
        """Send ``move`` to the table; the next ``state`` (or an ``error``) answers it."""
        text = move.text(self.model)
        self.pending = text
        if self.link is not None:
            self.link.send({"type": "move", "move": text, "at": self.seq})

    def over_keys(self) -> str:
        """The keys that do something at the table when a game is over (no others are offered)."""
        bits = []
        if not self.watching:
            bits.append(_("F10 asks for a new match") if self.match_done else
                        _("F10: ready for {next}").format(next=self.next_game_label()))
        bits.append(_("F11 the scoreboard"))
        if self.record_link is not None:
            bits.append(_("ctrl+s saves the match's record"))
        return " · ".join(bits)

    def match_summary(self, upto: int | None = None) -> list[GameSummary]:
        """The match's games as this client saw them, with the finished ones it did not see (it
        joined or came back later) as the table's game_over / match_over told them."""
        own = Timeline.match_summary(self, upto)
        if not self._told or not own:
            return own
        games = {g.number: g for g in own}
        for n, g in self._told.items():
            if n <= max(games) and (n not in games or not games[n].over):
                games[n] = g
        return [games[n] for n in sorted(games)]

    def _learn_games(self, games: Any) -> None:
        for g in games if isinstance(games, list) else []:
            if isinstance(g, dict) and isinstance(g.get("game"), int):
                def ints(d: Any) -> dict[int, Any]:
                    return {int(k): v for k, v in (d or {}).items()}
                self._told[g["game"]] = GameSummary(g["game"], ints(g.get("places")), ints(g.get("scores")),
                                                    ints(g.get("team_scores")), bool(g.get("sweep")), [],
                                                    voided=bool(g.get("voided")))

    @property
    def match_number(self) -> int:
        """The match being played at the table (1 first; a new one after each match's end)."""
        return self._match_base // max(self.games, 1) + 1

    async def fetch_record(self) -> str:
        """The match's record as the table keeps it (``GET /t/CODE/record``, once the match is over:
        the protocol's record link, asked of the server this client joined). Raises TableError."""
        import aiohttp
        url = f"{self.address.server}/t/{self.address.code}/record"
        try:
            async with aiohttp.ClientSession() as http, \
                    http.get(url, headers={"Accept": "application/json"}, timeout=aiohttp.ClientTimeout(total=60)) as r:
                text = await r.text()
                if r.status != 200:
                    try:
                        code = str((await r.json(content_type=None)).get("error") or r.status)
                    except (ValueError, AttributeError):
                        code = str(r.status)
                    raise TableError(code, _("the table answered {status} for {url}").format(status=r.status, url=url))
                return text
        except (aiohttp.ClientError, TimeoutError, OSError) as e:
            raise TableError("not_connected", f"{url}: {type(e).__name__}: {e}"[:300]) from None

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A question to the table (``why``, ``hint``, ``legal``): its answer, or a TableError."""
        if self.link is None:
            raise TableError("not_connected", _("not connected to the table"))
        return await self.link.ask(kind, **fields)

    def status_text(self) -> str:
        a = self.address
        bits = [_("table {code}").format(code=a.code)]
        bits.append(_("watching") if self.watching else _("you: seat {seat}").format(seat=self.seat))
        bits.append({"connecting": _("connecting…"), "connected": _("connected"), "lost": _("connection lost: retrying…"),
                     "gave up": _("connection lost"), "replaced": _("left: the seat is held by another connection")
                     }.get(self.connection, self.connection))
        if not self.started:
            bits.append(_("waiting for the start (the host, or any player with ctrl+g)"))
        if self.timer_s is not None and self.your_turn:
            bits.append(_("{s} s left").format(s=int(self.timer_s)))
        return " · ".join(bits)

    # -------------------------------------------------------------- what the table sends
    def handle(self, msg: dict[str, Any]) -> str | None:
        """Take in one message of the server; returns what the screen should say (or None)."""
        kind = msg.get("type")
        handler = _HANDLERS.get(str(kind))
        return handler(self, msg) if handler is not None else None

    def _on_welcome(self, msg: dict[str, Any]) -> str | None:
        seat = msg.get("seat")
        self.watching = msg.get("role") == "spectator" or seat is None
        if seat is not None:
            self.seat = int(seat)
        if msg.get("token"):
            self.address = Address(self.address.server, self.address.code, str(msg["token"]))
        self.games = int(msg.get("games") or self.length)
        self.connection = "connected"
        return None

    def _on_table(self, msg: dict[str, Any]) -> str | None:
        self.started = bool(msg.get("started"))
        for d in msg.get("seats") or []:
            s = int(d.get("seat", 0))
            if s in self.seats:
                self.seats[s] = SeatInfo(s, str(d.get("who") or "free"), d.get("name"), bool(d.get("connected")),
                                         bool(d.get("auto")))
        return None

    def _on_seed(self, msg: dict[str, Any]) -> str | None:
        known = self.seed_sha256
        self.seed_sha256 = str(msg.get("sha256") or "") or None
        if known == self.seed_sha256:
            return None  # (sent again after a reconnection)
        if known is not None:  # a new match at the table: its games follow the last match's in the timeline
            self._match_base += self.games
            self._told = {}
            self.record_link = None
            self.seed_revealed = None
        self.seed = _("hash {hash}…").format(hash=(self.seed_sha256 or "?")[:12])
        return _("Before the first deal, the table's seed hash: {hash}").format(hash=self.seed_sha256)

    def _on_state(self, msg: dict[str, Any]) -> str | None:
        self.seq = int(msg.get("seq") or self.seq)
        game = int(msg.get("game") or self._game or 1)
        events = [e for e in (msg.get("events") or []) if isinstance(e, dict)]
        dealt = any(e.get("type") == "deal" for e in events)
        starts = bool(msg.get("full")) or dealt or game != self._game
        if starts:  # a new game (or a redeal, or the whole game again after a reconnection)
            self._record = []
        self._record = self._record + events
        self._view = msg.get("view") or {}
        legal = msg.get("legal") or {}
        self._legal = [str(m) for m in (legal.get("moves") or [])]
        self.legal_cut = bool(legal.get("more"))
        self.timer_s = msg.get("timer_s")
        self.answers = {}
        self.pending = None
        self._game = game
        me = None if self.watching else self.seat
        result = msg.get("result") if isinstance(msg.get("result"), dict) else None  # (a game's end: its scores)
        st = ViewState(self.graph, self._view, self._record, game_number=game, legal=self._legal, seat=me, over=result)
        told = [str(d.get("by") or "") for d in msg.get("log") or [] if isinstance(d, dict)]  # who chose each move
        last = msg.get("last") or {}
        index = self._match_base + game - 1
        before = len(self._record) - len(events)  # where this message's events begin in the game's record
        moves = [before + i for i, e in enumerate(events) if e.get("type") == "move"]
        if starts:
            self.entries = [e for e in self.entries if e.game_index != index or not e.state.record] \
                if msg.get("full") else self.entries
            self.entries = [e for e in self.entries if e.state.record or e.game_index != index]  # the waiting screen
            if moves:  # the game so far (a reconnection, a spectator coming late): its start, then each move
                self.entries.append(_entry(self._past(moves[0], moves[0], game), None, None, "", index))
            else:
                self.entries.append(_entry(st, None, None, "", index))
        elif not moves:  # the same position again (a view asked, the timer): it replaces the last state
            e = self.entries[-1]
            self.entries[-1] = _entry(st, e.move, e.seat, e.by, e.game_index)
        # one entry per move (several moves in one message: each its own line in the log), the last
        # one the state as sent; the ones before it as they were (:meth:`_past`)
        for k, at in enumerate(moves):
            line = str(self._record[at].get("move") or "")
            seat = _seat_of(line)
            if k == len(moves) - 1:
                by = str(last.get("by") or "table") if last.get("move") == line else "table"
                by = "you" if seat == self.seat and by == "player" and not self.watching else by
                self.entries.append(_entry(st, line, seat, by, index))
            else:
                by = told[k] if starts and len(told) == len(moves) else "table"
                self.entries.append(_entry(self._past(moves[k + 1], moves[k + 1], game), line, seat,
                                           "you" if seat == me and by == "player" else by or "table", index))
        del self.entries[:-5000]
        self.cursor = len(self.entries) - 1
        if not self.your_turn:
            self.last_illegal = None
        return None

    def _past(self, upto: int, next_move: int, game: int) -> ViewState:
        """The position before the record's event ``upto`` (a move that came in the same message
        as later ones, or before this client joined): the public table as the events tell it (the
        play to beat, the passes, places, revolutions, who acts: the seat of the move ``next_move``),
        this seat's hand with the cards it played or gave after it back in it, its cards received
        after it out. Only what the record says: the phase is guessed from the moves' verbs."""
        record = self._record[:upto]
        later = self._record[upto:]
        view: dict[str, Any] = {**self._view, "to_act": _seat_of(str(self._record[next_move].get("move") or "")),
                                "legal": None}
        top: dict[str, Any] | None = None
        passed: list[int] = []
        places: dict[str, int] = {}
        revolted: list[int] = []
        playing = False
        for e in record:
            typ = e.get("type")
            if typ in ("trick_won", "first_leader"):
                top, passed, playing = None, [], True
            elif typ == "place":
                places[str(e.get("seat"))] = int(e.get("place") or 0)
            elif typ == "revolution":
                revolted.append(int(e.get("seat") or 0))
            elif typ == "move":
                seat, verb, *rest = str(e.get("move") or "0 pass").split(None, 2)
                if verb in ("play", "burn") and rest:
                    top, passed, playing = {"seat": int(seat), "cards": rest[0]}, [], True
                elif verb == "pass" and playing:
                    passed.append(int(seat))
        verb = (str(self._record[next_move].get("move") or "").split()[1:2] or ["pass"])[0]
        phase = "play" if playing or verb in ("play", "burn", "yield") else \
            {"revolt": "setup", "declare": "declare", "choose": "choose", "return": "return"}.get(verb, "setup")
        view.update(top=top, passed=passed, places=places, revolted=revolted, phase=phase)
        me = None if self.watching else self.seat
        if me is not None and view.get("hand") is not None:
            view["hand"] = self._hand_before(me, later)
        return ViewState(self.graph, view, record, game_number=game, seat=me)

    def _hand_before(self, me: int, later: list[dict[str, Any]]) -> str:
        """This seat's hand before the events ``later``: what it played, burned, discarded or gave
        in them back in it, what it received out of it."""
        model = self.model
        try:
            hand = list(model.parse(str(self._view.get("hand") or ""), path="<table>"))
            for e in later:
                typ = e.get("type")
                sign, cards = 0, None
                if typ == "move" and _seat_of(str(e.get("move") or "")) == me:
                    _s, verb, *rest = str(e.get("move")).split(None, 2)
                    if verb in ("play", "burn", "discard") and rest:
                        sign, cards = 1, rest[0]
                elif typ == "transfer" and e.get("cards"):
                    if e.get("giver") == me:
                        sign, cards = 1, e.get("cards")
                    elif e.get("receiver") == me:
                        sign, cards = -1, e.get("cards")
                if cards:
                    for i, n in enumerate(model.parse(str(cards), path="<table>")):
                        hand[i] = max(hand[i] + sign * n, 0)
            return str(model.text(hand))
        except (GoujiError, ValueError, TypeError):
            return str(self._view.get("hand") or "")

    def _on_game_over(self, msg: dict[str, Any]) -> str | None:
        self.totals = {int(k): v for k, v in (msg.get("totals") or {}).items()}
        self._learn_games(msg.get("match_games"))
        game = int(msg.get("game") or self._game or 1)
        st = ViewState(self.graph, self._view, self._record, game_number=game, over=msg,
                       seat=None if self.watching else self.seat)
        e = self.entries[-1]
        self.entries[-1] = _entry(st, e.move, e.seat, e.by, e.game_index)
        self.cursor = len(self.entries) - 1
        return None

    def _on_match_over(self, msg: dict[str, Any]) -> str | None:
        self.seed_revealed = str(msg.get("seed") or "") or None
        self.record_link = msg.get("record")
        self._learn_games(msg.get("games"))
        check = ""
        if self.seed_revealed and self.seed_sha256:
            import hashlib
            ok = hashlib.sha256(self.seed_revealed.encode()).hexdigest() == self.seed_sha256
            check = " " + (_("(its hash matches the one shown before the first deal)") if ok else
                           _("(its hash does NOT match the one shown before the first deal)"))
        self.seed = self.seed_revealed or self.seed
        return _("The match is over. The seed was {seed}{check}; the record: {link}").format(
            seed=self.seed_revealed, check=check, link=self.record_link or "—")

    def _on_auto(self, msg: dict[str, Any]) -> str | None:
        s = int(msg.get("seat") or 0)
        if s in self.seats:
            self.seats[s].auto = bool(msg.get("on"))
            if msg.get("why") in ("disconnected",):
                self.seats[s].connected = False
            if msg.get("why") == "back":
                self.seats[s].connected = True
        why = {"disconnected": _("disconnected"), "timer": _("the turn timer ran out"), "asked": _("asked"),
               "back": _("back")}.get(str(msg.get("why")), str(msg.get("why")))
        if s == self.seat and not self.watching:
            return (_("A bot plays your seat (托管: {why})") if msg.get("on") else _("You play your seat again ({why})")).format(
                why=why)
        return (_("Seat {seat}: a bot plays it (托管: {why})") if msg.get("on") else
                _("Seat {seat} is played by its player again ({why})")).format(seat=s, why=why)

    def _on_replaced(self, msg: dict[str, Any]) -> str | None:
        self.connection = "replaced"
        why = str(msg.get("message") or "").strip()
        return _("Your seat was taken by another connection with its seat link (the same person on another "
                 "terminal or tab?): this one has left the table and does not try again.") + (f" ({why})" if why else "")

    def _on_why(self, msg: dict[str, Any]) -> str | None:
        self.answers[str(msg.get("move") or "")] = explanation_of(msg)
        return None


_HANDLERS: dict[str, Callable[[RemoteSession, dict[str, Any]], str | None]] = {
    "welcome": RemoteSession._on_welcome, "table": RemoteSession._on_table, "seed": RemoteSession._on_seed,
    "state": RemoteSession._on_state, "game_over": RemoteSession._on_game_over,
    "match_over": RemoteSession._on_match_over, "auto": RemoteSession._on_auto, "why": RemoteSession._on_why,
    "replaced": RemoteSession._on_replaced,
}


# ------------------------------------------------------------------------------ the connection
class TableError(Exception):
    """The server refused a request: ``code`` (the protocol's stable code) and its message."""

    def __init__(self, code: str, message: str, why: dict[str, Any] | None = None):
        super().__init__(message)
        self.code = code
        self.why = why


#: errors after which trying again cannot help: the client stops and says why
FATAL = frozenset({"no_such_table", "bad_token", "seat_taken", "no_free_seat", "protocol", "too_many"})


@dataclass
class TableLink:
    """The websocket to the table: ``run()`` (a coroutine on the app's loop) connects, says
    ``hello``, hands every message to ``on_message(msg)``, and reconnects with bounded backoff
    (:data:`BACKOFF`, at most :data:`MAX_TRIES` tries in a row) saying so through
    ``on_connection(state, detail)``. ``send`` / ``ask`` queue requests."""

    address: Address
    on_message: Callable[[dict[str, Any]], None]
    on_connection: Callable[[str, str], None]
    name: str | None = None
    seat: int | None = None
    watch: bool = False
    tries: int = 0
    joined: bool = False  # a welcome came once (then a lost connection is tried for longer)
    closed: bool = False
    _ws: Any = None
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _waiting: dict[str, asyncio.Future[dict[str, Any]]] = field(default_factory=dict)

    def hello(self) -> dict[str, Any]:
        msg: dict[str, Any] = {"type": "hello", "protocol": PROTOCOL, "code": self.address.code}
        if self.address.token:
            msg["token"] = self.address.token
        elif self.watch:
            msg["watch"] = True
        elif self.seat is not None:
            msg["seat"] = self.seat
        if self.name:
            msg["name"] = self.name
        return msg

    def send(self, msg: dict[str, Any]) -> bool:
        """Send ``msg`` now (False: not connected; nothing is queued for later)."""
        ws = self._ws
        if ws is None or ws.closed:
            return False
        asyncio.ensure_future(ws.send_json(msg))
        return True

    async def ask(self, kind: str, **fields: Any) -> dict[str, Any]:
        """A request with an ``id``; its answer (or a :class:`TableError`)."""
        rid = f"c{next(self._ids)}"
        fut: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._waiting[rid] = fut
        if not self.send({"type": kind, "id": rid, **fields}):
            self._waiting.pop(rid, None)
            raise TableError("not_connected", _("not connected to the table"))
        try:
            return await fut
        finally:
            self._waiting.pop(rid, None)

    def close(self) -> None:
        self.closed = True
        ws = self._ws
        if ws is not None and not ws.closed:
            asyncio.ensure_future(ws.close())

    async def run(self) -> None:
        import aiohttp
        async with aiohttp.ClientSession() as http:
            while not self.closed:
                try:
                    fatal = await self._session(http)
                except (TimeoutError, aiohttp.ClientError, OSError) as e:
                    fatal = None
                    detail = f"{type(e).__name__}: {e}"[:200]
                else:
                    detail = ""
                self._ws = None
                self._fail_waiting()
                if self.closed:
                    return
                if fatal is not None:
                    self.on_connection("gave up", fatal)
                    return
                self.tries += 1
                limit = MAX_TRIES if self.joined else FIRST_TRIES
                if self.tries > limit:
                    self.on_connection("gave up", _("the table did not answer {n} times: gave up").format(n=limit)
                                       + (f" ({detail})" if detail else ""))
                    return
                delay = BACKOFF[min(self.tries - 1, len(BACKOFF) - 1)]
                self.on_connection("lost", _("retrying in {s:g} s").format(s=delay) + (f" ({detail})" if detail else ""))
                await asyncio.sleep(delay)

    async def _session(self, http: Any) -> str | None:
        """One connection: returns a fatal error's message (no retry), or None (lost: retry)."""
        import aiohttp
        async with http.ws_connect(self.address.websocket, max_msg_size=MAX_MESSAGE, heartbeat=20) as ws:
            self._ws = ws
            began = time.monotonic()
            await ws.send_json(self.hello())
            async for m in ws:
                if m.type != aiohttp.WSMsgType.TEXT:
                    if m.type in (aiohttp.WSMsgType.ERROR, aiohttp.WSMsgType.CLOSE):
                        break
                    continue
                try:
                    msg = m.json()
                except ValueError:
                    continue
                fatal = self._receive(msg) if isinstance(msg, dict) else None
                if fatal is not None:
                    return fatal
            if time.monotonic() - began >= STEADY_S:
                self.tries = 0  # (a connection that held: the next loss starts the backoff again)
        return None

    def _receive(self, msg: dict[str, Any]) -> str | None:
        """One message: an answer to a request (its future), else ``on_message``; returns a fatal
        error's words (no retry) or None."""
        if msg.get("type") == "welcome":
            self.joined = True
            if msg.get("token"):
                self.address = Address(self.address.server, self.address.code, str(msg["token"]))
        if msg.get("type") == "error" and msg.get("code") in FATAL and msg.get("id") is None:
            return f"{msg.get('code')}: {msg.get('message', '')}"
        if msg.get("type") == "replaced":  # another connection took the seat with its token: trying again would
            self.on_message(msg)           # push it out in turn (the two would take the seat from each other)
            return _("replaced: another connection holds the seat now")
        rid = msg.get("id")
        fut = self._waiting.get(str(rid)) if rid is not None else None
        if fut is not None and not fut.done():
            if msg.get("type") == "error":
                fut.set_exception(TableError(str(msg.get("code")), str(msg.get("message", "")), msg.get("why")))
            else:
                fut.set_result(msg)
            return None
        self.on_message(msg)
        return None

    def _fail_waiting(self) -> None:
        for fut in self._waiting.values():
            if not fut.done():
                fut.set_exception(TableError("not_connected", _("the connection to the table was lost")))
        self._waiting.clear()


__all__ = ["Address", "AddressError", "parse_address", "ViewState", "RemoteSession", "TableLink", "TableError",
           "SeatInfo", "graph_from_text", "explanation_of"]
