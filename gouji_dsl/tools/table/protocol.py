"""The club table protocol's words (docs/table-protocol.md): error codes, limits, room codes and seat
tokens, and what of a game each seat may see (its view, the record events it may be told, the why
answer). No aiohttp here: the server and the client library build on it."""
from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from enum import IntEnum, StrEnum
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from gouji_dsl.engine.interpreter import GameState, Move

PROTOCOL = 1
"""The protocol version a ``hello`` names (docs/table-protocol.md)."""

DEFAULT_PORT = 8765
"""The port ``gouji host`` listens on and ``gouji join CODE`` connects to unless told otherwise."""

CODE_ALPHABET = "23456789ABCDEFGHJKMNPQRSTUVWXYZ"
"""The characters of a room code: no 0/O, 1/I/L (said across a room, typed on a phone)."""
CODE_LENGTH = 4


class ErrorCode(StrEnum):
    """The stable ``code`` of an ``error`` message (docs/table-protocol.md)."""

    BAD_JSON = "bad_json"
    BAD_MESSAGE = "bad_message"
    TOO_BIG = "too_big"
    RATE_LIMITED = "rate_limited"
    HELLO_FIRST = "hello_first"
    PROTOCOL = "protocol"
    NO_SUCH_TABLE = "no_such_table"
    BAD_TOKEN = "bad_token"
    SEAT_TAKEN = "seat_taken"
    NO_FREE_SEAT = "no_free_seat"
    TOO_MANY = "too_many"
    NOT_SEATED = "not_seated"
    NOT_STARTED = "not_started"
    NOT_YOUR_TURN = "not_your_turn"
    BAD_MOVE = "bad_move"
    ILLEGAL_MOVE = "illegal_move"
    STALE = "stale"
    GAME_OVER = "game_over"
    INTERNAL = "internal"
    TABLE_FAILED = "table_failed"


class Notice(StrEnum):
    """The stable ``code`` of what the server tells a client that is not an error: a ``replaced``
    message, a note in ``welcome``'s ``notes``, or a ``why`` answer's ``hidden`` part."""

    REPLACED = "replaced"  # another connection presented this seat's token: this one no longer holds the seat
    NAME_KEPT = "name_kept"  # the hello asked for another name: the seat keeps the one it was claimed with
    HIDDEN = "hidden"  # the rules read cards or counts the asking seat cannot see: their reasons are not shown


class CloseCode(IntEnum):
    """The websocket close code the server closes a connection with (its reason: the stable code, in
    words of :class:`ErrorCode` / :class:`Notice`)."""

    NORMAL = 1000  # the client said bye
    GOING_AWAY = 1001  # the server stops
    REFUSED = 4000  # the hello was refused (the error before the close says why)
    REPLACED = 4001  # another connection took the seat with its token (the replaced message says so)
    RATE_LIMITED = 4002  # a flood: more than Limits.flood_drops messages dropped as rate_limited
    TOO_BIG = 4003  # a message over the size limit
    TOO_SLOW = 4004  # the client did not read its messages (its outgoing queue overflowed)
    HELLO_TIMEOUT = 4005  # no hello within Limits.hello_s


class AutoWhy(StrEnum):
    """Why a bot plays (or stops playing) a person's seat: the ``why`` of an ``auto`` message (托管)."""

    DISCONNECTED = "disconnected"
    TIMER = "timer"
    ASKED = "asked"
    BACK = "back"


class TableError(Exception):
    """A request refused (nothing changed): its stable code and a message; ``extra`` fields go into
    the ``error`` message (``why`` for an illegal move)."""

    def __init__(self, code: ErrorCode, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code, self.message, self.extra = code, message, extra

    def to_json(self, request_id: Any = None) -> dict[str, Any]:
        out: dict[str, Any] = {"type": "error", "code": str(self.code), "message": self.message, **self.extra}
        if request_id is not None:
            out["id"] = request_id
        return out


@dataclass(frozen=True)
class Limits:
    """The bounds of a table server (docs/table-protocol.md "Limits")."""

    tables: int = 8
    connections: int = 64
    spectators: int = 16
    message_bytes: int = 16 * 1024
    messages_per_s: float = 20.0
    burst: float = 40.0
    slowed_s: float = 5.0  # a message that would wait longer than this for its turn is dropped (rate_limited)
    flood_drops: int = 20  # more rate_limited drops in a row (none within the rate between): the socket closes (4002)
    hello_s: float = 10.0
    legal_moves: int = 500
    outbox: int = 512  # messages waiting for a slow client; more: it is dropped (its seat goes to its bot)

    def to_json(self) -> dict[str, Any]:
        return {"message_bytes": self.message_bytes, "messages_per_s": self.messages_per_s, "burst": self.burst,
                "slowed_s": self.slowed_s, "flood_drops": self.flood_drops}


def new_code(taken: set[str] | frozenset[str] = frozenset()) -> str:
    """A room code not in ``taken`` (4 characters of :data:`CODE_ALPHABET`)."""
    for _attempt in range(1000):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        if code not in taken:
            return code
    raise RuntimeError("no free room code")  # (31**4 codes, at most a few tables)


def new_token() -> str:
    """An unguessable seat token (32 URL-safe characters)."""
    return secrets.token_urlsafe(24)


def new_seed() -> str:
    """A match seed nobody can guess before it is revealed."""
    return secrets.token_hex(16)


def seed_hash(seed: Any) -> str:
    """The commitment sent before the first deal: sha256 of the seed's text (UTF-8)."""
    return hashlib.sha256(str(seed).encode("utf-8")).hexdigest()


SEED_SCHEME = "sha256(utf8(SEED)); game i (0-based) deals from random.Random(f'{SEED}:{i}')"


def normal_code(text: str) -> str:
    """A room code as typed (any case, spaces around) in its canonical form."""
    return text.strip().upper()


# ------------------------------------------------------------------------------ what a seat sees
_PUBLIC_EVENTS = frozenset({"trick_won", "place", "burn_success", "burn_failed", "game_over", "first_leader",
                            "no_lead", "revolution", "retire", "counter_burn", "burn", "burn_undone", "redeal", "discard"})


def _card_count(text: str | None) -> int:
    """Cards in a canonical card text (``RB 22 JJJ``: one character a card, a suit letter after it
    in lower case)."""
    return sum(1 for ch in text or "" if ch.isdigit() or ch.isupper())


def _move_event(e: dict[str, Any], seat: int | None) -> dict[str, Any]:
    from gouji_dsl.bots.determinize import PUBLIC_CARD_VERBS
    parts = str(e.get("move", "")).split(None, 2)
    if len(parts) == 3 and parts[1] not in PUBLIC_CARD_VERBS and (seat is None or parts[0] != str(seat)):
        return {"type": "move", "move": f"{parts[0]} {parts[1]}", "count": _card_count(parts[2])}
    return {"type": "move", "move": e.get("move")}


def visible_event(e: dict[str, Any], seat: int | None) -> dict[str, Any]:
    """Record event ``e`` as ``seat`` (None: a spectator) may be told it — what the search bots'
    determinizer takes a seat to know (:mod:`gouji_dsl.bots.determinize`): a deal without hands or
    seed; cards played, burned, discarded and given as tribute are seen by all; the cards of a
    return tribute (还贡) only by the two seats involved (the others: how many)."""
    from gouji_dsl.bots.determinize import HIDDEN_TRANSFER_RULES
    kind = e.get("type")
    if kind == "move":
        return _move_event(e, seat)
    if kind == "deal":
        out = {"type": "deal", "game_number": e.get("game_number", 1)}
        if e.get("redeal"):
            out["redeal"] = True
        return out
    if kind == "transfer":
        if e.get("rule") not in HIDDEN_TRANSFER_RULES or (seat is not None and seat in (e.get("giver"), e.get("receiver"))):
            return dict(e)
        return {**{k: v for k, v in e.items() if k != "cards"}, "cards": None, "count": _card_count(e.get("cards"))}
    if kind in _PUBLIC_EVENTS:
        return dict(e)
    return {"type": kind, **({"seat": e["seat"]} if "seat" in e else {})}


def visible_events(events: list[dict[str, Any]], seat: int | None) -> list[dict[str, Any]]:
    return [visible_event(e, seat) for e in events]


def seat_view(state: GameState, seat: int | None) -> dict[str, Any]:
    """What ``seat`` may see (:meth:`GameState.view`); for a spectator (None) the public part: no
    hand, and a seat's card count only where every other seat may see it."""
    if seat is not None:
        return state.view(seat)
    from gouji_dsl.ruleset.game.context import Ctx
    first = state.seat_list[0]
    base = state.view(first)
    others: dict[str, Any] = {}
    for t in state.seat_list:
        info: dict[str, Any] = {"team": state.team(t)}
        viewers = [s for s in state.seat_list if s != t]
        if all(state.graph.permit("see_count", Ctx(state, seat=s, target=t)) for s in viewers):
            info["count"] = state.hand_size(t)
        others[str(t)] = info
    return {**base, "seat": None, "hand": None, "others": others}


def _told(e: dict[str, Any], i: int, seat: int | None, made_by: dict[int, str]) -> dict[str, Any]:
    text = str(visible_event(e, seat).get("move"))
    head = text.split(None, 1)[0]
    return {"seat": int(head) if head.isdigit() else None, "move": text, "by": made_by.get(i)}


def trick_json(record: list[dict[str, Any]], seat: int | None, made_by: dict[int, str]) -> dict[str, Any]:
    """The current trick and the one before as ``seat`` may be told them, read from the record:
    ``trick`` (its number, counted from 1, 0 before the first lead, and its moves so far) and
    ``last_trick`` (its number, winner, the winning play and its moves; None before one was won).
    Each move ``{"seat", "move", "by"}`` (``by``: player or bot), told as :func:`visible_event`
    tells it (another seat's return without its cards). Read from the end: a state costs the two
    tricks, not the game."""
    tricks: list[list[dict[str, Any]]] = [[], []]
    won: dict[str, Any] | None = None
    part = 0
    start = 0
    for i in range(len(record) - 1, -1, -1):
        e = record[i]
        kind = e.get("type")
        if kind == "move":
            tricks[part].append(_told(e, i, seat, made_by))
        elif kind == "trick_won":
            if part == 1:
                break
            part, won = 1, e
        elif kind == "first_leader" or kind == "deal":
            start = i
            break
    number = sum(1 for e in record[start:] if e.get("type") == "trick_won") + (
        1 if any(e.get("type") == "first_leader" for e in record[start:]) else 0)
    current = {"number": number, "plays": tricks[0][::-1]}
    last = None if won is None else {"number": number - 1, "winner": won.get("seat"), "play": won.get("play"),
                                     "plays": tricks[1][::-1]}
    return {"trick": current, "last_trick": last}


def log_json(record: list[dict[str, Any]], seat: int | None, made_by: dict[int, str]) -> list[dict[str, Any]]:
    """Every move of the game so far as ``seat`` may be told it (see :func:`trick_json`), each with
    the trick it was made in (0 before the first lead; a redeal starts the count again)."""
    log: list[dict[str, Any]] = []
    number = 0
    for i, e in enumerate(record):
        kind = e.get("type")
        if kind == "deal" and i:
            number = 0
        elif kind == "first_leader":
            number = 1
        elif kind == "trick_won":
            number += 1
        elif kind == "move":
            log.append({**_told(e, i, seat, made_by), "trick": number})
    return log


def legal_json(moves: Any, model: Any, limit: int) -> dict[str, Any]:
    """The first ``limit`` legal moves as move lines, their count, and whether the list was cut."""
    n = len(moves)
    shown = [moves[i].text(model) for i in range(min(n, limit))]
    return {"count": n, "moves": shown, "more": n > limit}


_LEFT_OUT = {
    "reasons": "the rules that decided it read cards or card counts you cannot see, so which rules applied is not shown "
               "(only the server's verdict, which making the move would tell as well)",
    "chain": "a fact of the situation was decided from cards you cannot see: the facts are not shown",
    "outlook": "whether it can succeed depends on cards you cannot see: not worked out for you",
}


def why_json(state: GameState, move: Move, seat: int) -> dict[str, Any]:
    """The explanation of ``move`` by ``seat`` (the play screen's why dialog:
    :func:`gouji_dsl.engine.explain.explain`) computed from what ``seat`` may see
    (:func:`gouji_dsl.tools.table.seatview.explain_for`): when it would need another seat's hidden
    cards, those parts are left out and ``hidden`` says which and why (code ``hidden``). Facts about
    a return tribute between two other seats are left out too."""
    from gouji_dsl.bots.determinize import HIDDEN_TRANSFER_RULES
    from gouji_dsl.engine.explain import transfer_facts

    from .seatview import explain_for
    ex, left = explain_for(state, move, seat)
    hidden = []
    for e, fact in zip([e for e in state.record if e.get("type") == "transfer" and e.get("kind")], transfer_facts(state)):
        if e.get("rule") in HIDDEN_TRANSFER_RULES and seat not in (e.get("giver"), e.get("receiver")):
            hidden.append(fact)
    if hidden:
        ex.chain = [b for b in ex.chain if b not in hidden]
    out = {
        "move": ex.move, "legal": ex.legal, "sentence": ex.sentence(), "text": ex.format(),
        "reasons": [{"rule": r.rule_id, "verdict": r.verdict, "text": r.text, "where": r.where} for r in ex.reasons],
        "chain": [{"fact": b.fact, "rules": list(b.rule_ids)} for b in ex.chain],
        "warnings": [{"fact": b.fact, "rules": list(b.rule_ids)} for b in ex.warnings],
        **({"undecided": ex.undecided} if ex.undecided else {}),
    }
    if left:
        words = "; ".join(_LEFT_OUT[k] for k in left)
        out["hidden"] = {"code": str(Notice.HIDDEN), "left_out": left, "message": words}
        if "reasons" in left:
            out["sentence"] = f"{out['sentence']} ({_LEFT_OUT['reasons']})"
        out["text"] = f"{out['text']}\n  ({words})"
    return out


__all__ = ["PROTOCOL", "DEFAULT_PORT", "ErrorCode", "Notice", "CloseCode", "AutoWhy", "trick_json", "log_json",
           "TableError", "Limits", "new_code", "new_token", "new_seed",
           "seed_hash", "SEED_SCHEME", "normal_code", "visible_event", "visible_events", "seat_view", "legal_json", "why_json"]
