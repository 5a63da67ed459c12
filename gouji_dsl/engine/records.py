"""Game records on disk, replay step by step, and positions as rule scenarios.

A **record file** is JSON (one event per line, so that it diffs well)::

    {
      "format": "gouji-record",
      "version": 1,
      "ruleset": "online",
      "ruleset_path": "/path/to/rules/online.yaml",
      "seed": "7",
      "bots": {"1": "human", "2": "heuristic", ...},
      "events": [
        {"type": "deal", "game_number": 1, "source": "random", "seed": "7:0", "hands": {...}},
        {"type": "move", "move": "2 play 33333"},
        ...
      ]
    }

``events`` are the engine's events (:attr:`GameState.record`) of every game of the match in order;
a ``deal`` event with a new ``game_number`` starts the next game. Only the deals (by seed, or the
dealt hands) and the ``move`` events are needed to replay; the other events are checked against the
replay (a record made under another ruleset, or edited by hand, is refused with the position of the
first event that disagrees).

Errors are :class:`GoujiError` with ``file:line:col`` (JSON syntax, a missing or mistyped field,
an unknown move, an illegal move with the rule that forbids it), never a traceback.

:func:`scenario_case` turns a position into a NOTATION.md game case for a scenario file.
"""
from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl.atomic import atomic_write
from gouji_dsl.diagnostics import Diagnostic, GoujiError, line_of
from gouji_dsl.engine.cards import SUITLESS, parse_cards
from gouji_dsl.engine.interpreter import GameState, IllegalMove, Move, new_game, next_game, parse_move
from gouji_dsl.ruleset.graph import RuleGraph

FORMAT = "gouji-record"
VERSION = 1
SETUP_PHASES = ("setup", "declare", "choose")


# ------------------------------------------------------------------------------ the record
@dataclass
class GameRecord:
    """A saved game or match: the ruleset, the run seed, who played each seat and every event.

    ``positions`` (filled by :func:`load_record`) maps an event's index to the ``(line, col)`` of
    that event in the file, and ``move_positions`` to the position of its ``move`` text."""

    ruleset: str
    seed: Any = None
    bots: dict[int, str] = field(default_factory=dict)
    events: list[dict[str, Any]] = field(default_factory=list)
    ruleset_path: str | None = None
    path: str = "<record>"
    positions: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)
    move_positions: dict[int, tuple[int, int]] = field(default_factory=dict, repr=False)
    text: str = field(default="", repr=False)
    ruleset_text: str | None = field(default=None, repr=False)

    @classmethod
    def from_states(cls, finals: Sequence[GameState], *, seed: Any = None, bots: dict[int, str] | None = None,
                    ruleset_path: str | None = None) -> GameRecord:
        """The record of the games of one match, each given by its latest state, in order."""
        if not finals:
            raise ValueError("a record needs at least one game")
        graph = finals[0].graph
        events: list[dict[str, Any]] = []
        for st in finals:
            events.extend(json.loads(json.dumps(st.record, ensure_ascii=False, default=str)))
        path = ruleset_path
        if path is None and graph.resolved.path and os.path.exists(graph.resolved.path):
            path = graph.resolved.path
        # the played ruleset file's own text, so a game played on an unsaved editor buffer (or on a
        # file that changed since) replays under the rules it was played with
        return cls(graph.name, seed, dict(bots or {}), events, path, ruleset_text=graph.resolved.text or None)

    @property
    def game_starts(self) -> list[int]:
        """Indexes of the events that start a game (a deal with a new game number)."""
        out, last = [], None
        for i, e in enumerate(self.events):
            if e.get("type") == "deal" and not e.get("redeal") and e.get("game_number", 1) != last:
                out.append(i)
                last = e.get("game_number", 1)
        return out

    def games(self) -> list[list[dict[str, Any]]]:
        """The events split by game."""
        starts = self.game_starts + [len(self.events)]
        return [self.events[a:b] for a, b in zip(starts, starts[1:])]

    @property
    def moves(self) -> list[str]:
        return [e["move"] for e in self.events if e.get("type") == "move"]

    def to_json(self) -> dict[str, Any]:
        out = {"format": FORMAT, "version": VERSION, "ruleset": self.ruleset, "ruleset_path": self.ruleset_path,
               "seed": self.seed, "bots": {str(k): v for k, v in sorted(self.bots.items())}}
        if self.ruleset_text:
            out["ruleset_text"] = self.ruleset_text
        out["events"] = self.events
        return out

    def dumps(self) -> str:
        """The file text: JSON with one event per line."""
        head = self.to_json()
        head.pop("events")
        lines = ["{"]
        for k, v in head.items():
            lines.append(f"  {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)},")
        lines.append('  "events": [')
        for i, e in enumerate(self.events):
            sep = "," if i < len(self.events) - 1 else ""
            lines.append("    " + json.dumps(e, ensure_ascii=False) + sep)
        lines.append("  ]")
        lines.append("}")
        return "\n".join(lines) + "\n"


def save_record(path: str | os.PathLike[str], record: GameRecord) -> Path:
    """Write ``record`` to ``path`` atomically (:func:`gouji_dsl.atomic.atomic_write`)."""
    p = Path(path)
    p.absolute().parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, record.dumps())
    record.path = str(path)
    return p


# ------------------------------------------------------------------------------ loading
class _Positions:
    """Where every JSON value starts: path (tuple of keys / indexes) -> (line, col), 1-based."""

    def __init__(self, text: str):
        self.text = text
        self.at: dict[tuple, tuple[int, int]] = {}
        self.keys: dict[tuple, tuple[int, int]] = {}
        self._starts = [0]
        for i, ch in enumerate(text):
            if ch == "\n":
                self._starts.append(i + 1)
        try:
            self._value(self._ws(0), ())
        except (IndexError, ValueError):  # json.loads already accepted the text; be safe anyway
            pass

    def pos(self, i: int) -> tuple[int, int]:
        import bisect
        ln = bisect.bisect_right(self._starts, i) - 1
        return ln + 1, i - self._starts[ln] + 1

    def _ws(self, i: int) -> int:
        t = self.text
        while i < len(t) and t[i] in " \t\r\n":
            i += 1
        return i

    def _value(self, i: int, path: tuple) -> int:
        t = self.text
        self.at[path] = self.pos(i)
        ch = t[i]
        if ch == "{":
            i = self._ws(i + 1)
            if t[i] == "}":
                return i + 1
            while True:
                key_end = self._string(i)
                key = json.loads(t[i:key_end])
                self.keys[path + (key,)] = self.pos(i)
                i = self._ws(key_end)
                i = self._ws(i + 1)  # the colon
                i = self._ws(self._value(i, path + (key,)))
                if t[i] == ",":
                    i = self._ws(i + 1)
                    continue
                return i + 1
        if ch == "[":
            i = self._ws(i + 1)
            if t[i] == "]":
                return i + 1
            k = 0
            while True:
                i = self._ws(self._value(i, path + (k,)))
                k += 1
                if t[i] == ",":
                    i = self._ws(i + 1)
                    continue
                return i + 1
        if ch == '"':
            return self._string(i)
        j = i
        while j < len(t) and t[j] not in ",]} \t\r\n":
            j += 1
        return j

    def _string(self, i: int) -> int:
        t = self.text
        j = i + 1
        while t[j] != '"':
            j += 2 if t[j] == "\\" else 1
        return j + 1


class _Reader:
    def __init__(self, path: str, text: str):
        self.path = path
        self.text = text
        self.pos = _Positions(text)

    def fail(self, where: tuple, message: str, hint: str | None = None, *, key: bool = False) -> GoujiError:
        ln, col = (self.pos.keys if key else self.pos.at).get(where, (1, 1))
        return GoujiError(Diagnostic(self.path, ln, col, message, hint, line_of(self.text, ln)))

    def fail_at(self, ln: int, col: int, message: str, hint: str | None = None) -> GoujiError:
        return GoujiError(Diagnostic(self.path, ln, col, message, hint, line_of(self.text, ln)))


def parse_record(text: str, path: str = "<record>") -> GameRecord:
    """Read a record from ``text`` (the contents of ``path``). Raises :class:`GoujiError`."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise GoujiError(Diagnostic(path, e.lineno, e.colno, f"not valid JSON: {e.msg}", None,
                                    line_of(text, e.lineno))) from None
    r = _Reader(path, text)
    if not isinstance(data, dict):
        raise r.fail((), "a record is a JSON object with 'ruleset' and 'events'")
    if data.get("format", FORMAT) != FORMAT:
        raise r.fail(("format",), f"not a gouji record: format is {data.get('format')!r}", f"expected {FORMAT!r}")
    if data.get("version", VERSION) != VERSION:
        raise r.fail(("version",), f"unsupported record version {data.get('version')!r}", f"this gouji reads version {VERSION}")
    known = ("format", "version", "ruleset", "ruleset_path", "ruleset_text", "seed", "bots", "events", "human")
    for k in data:
        if k not in known:
            from gouji_dsl.diagnostics import did_you_mean
            raise r.fail((k,), f"unknown record key {k!r}", did_you_mean(k, known) or "keys: " + ", ".join(known),
                         key=True)
    if not isinstance(data.get("ruleset"), str) or not data["ruleset"]:
        raise r.fail(("ruleset",) if "ruleset" in data else (), "the record names no ruleset ('ruleset': NAME)")
    rp = data.get("ruleset_path")
    if rp is not None and not isinstance(rp, str):
        raise r.fail(("ruleset_path",), "ruleset_path must be a string or null")
    bots_raw = data.get("bots") or {}
    if not isinstance(bots_raw, dict):
        raise r.fail(("bots",), "bots maps seats to bot names: {\"1\": \"human\", \"2\": \"heuristic\"}")
    bots: dict[int, str] = {}
    for k, v in bots_raw.items():
        if not str(k).isdigit() or not isinstance(v, str):
            raise r.fail(("bots", k), f"bots: seat {k!r} → {v!r}: seats are numbers, bots are names")
        bots[int(k)] = v
    events = data.get("events")
    if not isinstance(events, list) or not events:
        raise r.fail(("events",) if "events" in data else (), "the record has no events")
    positions: dict[int, tuple[int, int]] = {}
    move_pos: dict[int, tuple[int, int]] = {}
    for i, ev in enumerate(events):
        if not isinstance(ev, dict) or not isinstance(ev.get("type"), str):
            raise r.fail(("events", i), "an event is an object with a 'type'")
        positions[i] = r.pos.at.get(("events", i), (0, 0))
        if ev["type"] == "move":
            if not isinstance(ev.get("move"), str):
                raise r.fail(("events", i), "a move event needs 'move': \"<seat> <verb> [cards]\"")
            ln, col = r.pos.at.get(("events", i, "move"), (0, 0))
            move_pos[i] = (ln, col + 1)  # inside the quotes
        elif ev["type"] == "deal":
            hands = ev.get("hands")
            if ev.get("source", "random") != "random" and not isinstance(hands, dict):
                raise r.fail(("events", i), "a fixed deal needs 'hands': {seat: cards}")
    if events[0]["type"] != "deal":
        raise r.fail(("events", 0), "the first event of a record is the deal")
    rt = data.get("ruleset_text")
    if rt is not None and not isinstance(rt, str):
        raise r.fail(("ruleset_text",), "ruleset_text must be the ruleset file's text (a string) or null")
    return GameRecord(data["ruleset"], data.get("seed"), bots, events, rp, path, positions, move_pos, text, rt)


def load_record(path: str | os.PathLike[str]) -> GameRecord:
    """Read the record file ``path``. Raises :class:`GoujiError` (``file:line:col: why``)."""
    p = str(path)
    try:
        text = Path(p).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise GoujiError(Diagnostic(p, 0, 0, "no such file")) from None
    except UnicodeDecodeError as e:
        raise GoujiError(Diagnostic(p, 0, 0, f"not UTF-8 text ({e.reason})")) from None
    except OSError as e:
        raise GoujiError(Diagnostic(p, 0, 0, f"cannot read: {e.strerror or e}")) from None
    return parse_record(text, p)


def record_graph(record: GameRecord, *, search: Sequence[str | os.PathLike[str]] = ()) -> RuleGraph:
    """The ruleset a record was played under: the ruleset text it carries (resolved as if it were
    ``ruleset_path`` when that is a place rulesets may be read from, else as if it were beside the
    record), else its ``ruleset_path``, else the ruleset by name (beside the record, in ``search`` or
    the rules path, or bundled). What a record names is read only where
    :func:`gouji_dsl.ruleset.loader.find_ruleset` allows (never an absolute path elsewhere, never
    ``..`` out of the record's folder). Raises :class:`GoujiError`."""
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.loader import allowed_place, find_ruleset, resolve, resolve_text
    referrer = record.path if record.path != "<record>" else os.path.join(os.getcwd(), "<record>")
    beside = str(Path(referrer).parent / f"{record.ruleset}.yaml")
    if record.ruleset_text:
        where = record.ruleset_path
        if not where or not allowed_place(where, referrer=referrer, search=search):
            where = beside
        return compile_ruleset(resolve_text(record.ruleset_text, where, search=search))
    if record.ruleset_path:
        return compile_ruleset(resolve(find_ruleset(record.ruleset_path, referrer=referrer, search=search), search=search))
    return compile_ruleset(resolve(find_ruleset(record.ruleset, referrer=referrer, search=search), search=search))


# ------------------------------------------------------------------------------ replay
@dataclass
class Step:
    """One point of a replayed record: the state, the move that led here (None for the start of a
    game) and the index of that move's event in the record."""

    state: GameState
    move: str | None = None
    event: int | None = None


def _hands(deal: dict[str, Any]) -> dict[int, list]:
    return {int(s): parse_cards(str(t), allow_empty=True) for s, t in (deal.get("hands") or {}).items()}


def _compare_deal(state: GameState, deal: dict[str, Any]) -> bool:
    want = deal.get("hands")
    if not isinstance(want, dict):
        return True
    got = state.record[0]["hands"]
    return all(str(want.get(k, "")) == v for k, v in got.items())


def replay_steps(graph: RuleGraph, record: GameRecord) -> list[Step]:
    """Replay every game of ``record`` under ``graph``: the state at the start of each game and
    after each move (each state an independent copy). Raises :class:`GoujiError` at the event that
    cannot be replayed: a deal that the seed no longer gives, an unknown or illegal move, a result
    that differs from the recorded one."""
    r = _Reader(record.path, record.text)
    starts = record.game_starts
    steps: list[Step] = []
    prev: GameState | None = None
    for gi, start in enumerate(starts):
        end = starts[gi + 1] if gi + 1 < len(starts) else len(record.events)
        deal = record.events[start]
        where = record.positions.get(start, (0, 0))
        leader = next((e.get("forced") for e in record.events[start:end]
                       if e.get("type") == "first_leader" and e.get("forced")), None)
        try:
            hands = None if deal.get("source", "random") == "random" else _hands(deal)
            if prev is None or gi == 0:
                state = new_game(graph, deal.get("seed"), hands=hands, leader=leader,
                                 game_number=deal.get("game_number", 1))
            else:
                state = next_game(prev, deal.get("seed"), hands=hands)
        except GoujiError as e:
            d = e.diagnostics[0]
            raise r.fail_at(*where, f"game {gi + 1}: cannot deal: {d.message}") from None
        if hands is None and not _compare_deal(state, deal):
            raise r.fail_at(*where, f"game {gi + 1}: seed {deal.get('seed')!r} does not deal these hands under "
                            f"ruleset {graph.name!r}", "was the record made under another ruleset or version?")
        steps.append(Step(state.copy()))
        for i in range(start, end):
            ev = record.events[i]
            if ev.get("type") != "move":
                continue
            ln, col = record.move_positions.get(i, record.positions.get(i, (0, 0)))
            text = ev["move"]
            try:
                mv = parse_move(text, graph.model, graph.n_seats, path=record.path, line=ln, col=col)
            except GoujiError as err:
                d = err.diagnostics[0]
                raise GoujiError(Diagnostic(d.path, d.line, d.col, d.message, d.hint, line_of(r.text, ln))) from None
            if state.over:
                raise r.fail_at(ln, col, f"move {text!r} comes after the end of game {gi + 1}")
            try:
                state.apply_in_place(mv)
            except IllegalMove as err:
                forb = [x for x in err.reasons if x.verdict == "forbade"] or err.reasons
                why = "; ".join(f"{x.rule_id}: {x.text}" + (f" ({x.where})" if x.where else "") for x in forb[:3])
                raise r.fail_at(ln, col, f"move {text!r} is illegal here under {graph.name!r}: {why}",
                                f"seat {state.to_act} is to act ({state.phase}, {state.capacity})") from None
            steps.append(Step(state.copy(), text, i))
        over = next((e for e in record.events[start:end] if e.get("type") == "game_over"), None)
        if over is not None:
            got = {str(s): v for s, v in state.scores.items()}
            if not state.over or {k: got.get(k) for k in over.get("scores", {})} != over.get("scores", {}):
                i = record.events.index(over, start)
                raise r.fail_at(*record.positions.get(i, (0, 0)),
                                f"game {gi + 1}: the recorded result differs from the replay "
                                f"({'not over' if not state.over else got})",
                                "was the record made under another ruleset or version?")
        prev = state
    return steps


def replay_record(graph: RuleGraph, record: GameRecord) -> list[GameState]:
    """The final state of every game of ``record``. Raises :class:`GoujiError`."""
    steps = replay_steps(graph, record)
    out: list[GameState] = []
    for st in steps:
        if st.move is None:
            out.append(st.state)
        else:
            out[-1] = st.state
    return out


# ------------------------------------------------------------------------------ scenario cases
def _deal_text(state: GameState, s: int, suits: bool) -> str:
    if not suits:
        return state.model.text(state.dealt[s])
    order = {k: i for i, k in enumerate(state.kinds)}
    groups: dict[str, list[str]] = {}
    for c in sorted(state.dealt_cards[s], key=lambda c: (-order.get(c.symbol, 0), c.suit)):
        groups.setdefault(c.symbol, []).append(str(c))
    jokers = "".join("".join(g) for sym, g in groups.items() if sym in SUITLESS)
    ranks = ["".join(g) for sym, g in groups.items() if sym not in SUITLESS]
    return " ".join(([jokers] if jokers else []) + ranks)


def _game_events(state: GameState) -> list[dict[str, Any]]:
    """The events since the last deal (a redeal starts over)."""
    rec = state.record
    last = max(i for i, e in enumerate(rec) if e["type"] == "deal")
    return rec[last:]


def _moves_with_phase(state: GameState) -> list[tuple[str, bool]]:
    """(move text, made before play began) for the moves since the last deal."""
    out = []
    started = False
    for e in _game_events(state):
        if e["type"] == "first_leader":
            started = True
        elif e["type"] == "move":
            out.append((e["move"], not started))
    return out


def _case_moves(state: GameState, returns: bool = True, omit: bool = False) -> list[str]:
    """The moves of the game for a case: setup answers are left out when all were the defaults
    and play has begun (the runner declines a skipped setup); return-tribute moves are kept
    unless ``returns`` is false."""
    moves = _moves_with_phase(state)
    setup = [t for t, before in moves if before and t.split()[1] != "return"]
    if state.phase not in SETUP_PHASES and (omit or all(_default_answer(t) for t in setup)):
        moves = [(t, before) for t, before in moves if not before or t.split()[1] == "return"]
    return [t for t, _ in moves if returns or t.split()[1] != "return"]


def _default_answer(text: str) -> bool:
    parts = text.split()
    return parts[1] == "pass" or (parts[1] == "choose" and parts[-1] == "head")


def scenario_case(state: GameState, name: str, *, illegal: Iterable[str] = (), max_legal: int = 40,
                  previous: GameState | None = None, indent: int = 2, verify: bool = True) -> str:
    """The position ``state`` as a NOTATION.md game case (YAML text of one item of ``cases:``).

    ``deal`` is the dealt hands, ``leader`` the seat that led first, ``moves`` every move so far,
    and ``expect`` what holds now: ``to_act`` and (up to ``max_legal`` of) the ``legal`` moves, or
    ``over``, ``places`` and ``scores`` for a finished game. ``illegal``: move lines (with seat) to
    list as illegal too (e.g. an attempt that was refused). For the second game of a match give
    ``previous`` (the first game's final state): the case then plays the first game and deals the
    second with ``next_deal`` / ``next_moves``, so tribute is replayed. For a later game of a match
    the deal is the hands as play began (after tribute), noted in a comment.

    Setup answers are left out when they were all the defaults (pass, keep the head) and the game
    is past the setup: the scenario runner declines the setup for a case that goes straight to play.

    With ``verify`` the case is run through the scenario runner (:mod:`gouji_dsl.tools.scenarios`) under
    ``state.graph``; when it does not pass as written but does with the setup answers left out (the
    runner reads a leading setup ``pass`` as "skip the setup"), that version is returned with a
    comment; when neither passes, the case is returned with a comment saying why."""
    kw: dict[str, Any] = dict(illegal=list(illegal), max_legal=max_legal, indent=indent)
    exact = _case_text(state, name, omit_setup=False, previous=previous, **kw)
    if not verify:
        return exact
    errors = check_case(state.graph, exact)
    if not errors:
        return exact
    pad = " " * indent + "  "
    notes = {
        "omit": ["setup answers left out: they do not change this position, and `gouji test`",
                 "reads a leading setup 'pass' as skipping the setup"],
        "alone": ["this game on its own: the first game of the match is not replayed (`gouji test`",
                  "reads a leading setup 'pass' as skipping the setup)"],
    }
    variants: list[tuple[str, dict[str, Any]]] = []
    if state.phase not in SETUP_PHASES:
        variants.append(("omit", dict(omit_setup=True, previous=previous)))
    if previous is not None:
        variants.append(("alone", dict(omit_setup=False, previous=None)))
        if state.phase not in SETUP_PHASES:
            variants.append(("alone", dict(omit_setup=True, previous=None)))
    for why, opts in variants:
        text = _case_text(state, name, **opts, **kw)
        if text != exact and not check_case(state.graph, text):
            head, rest = text.split("\n", 1)
            return head + "\n" + "".join(f"{pad}# {ln}\n" for ln in notes[why]) + rest
    head, rest = exact.split("\n", 1)
    note = "; ".join(e.split(": ", 1)[-1] for e in errors[:2]).replace("\n", " ")
    return f"{head}\n{pad}# gouji test does not replay this case as written: {note}\n{rest}"


def check_case(graph: RuleGraph, case_text: str) -> list[str]:
    """Run one case (YAML text of a ``cases:`` item) under ``graph``; the runner's errors."""
    from gouji_dsl.tools.scenarios import run_file
    with tempfile.TemporaryDirectory() as d:
        p = Path(d) / "case.yaml"
        p.write_text(f"ruleset: {json.dumps(graph.name)}\ncases:\n{case_text}", encoding="utf-8")
        results = run_file(p, {graph.name: graph})
    return [e.replace(str(p), "<case>") for r in results for e in r.errors]


def _case_text(state: GameState, name: str, *, omit_setup: bool, illegal: list[str], max_legal: int,
               previous: GameState | None, indent: int) -> str:
    pad = " " * indent
    body = pad + "  "
    lines = [f"{pad}- name: {json.dumps(name, ensure_ascii=False)}"]
    first_leader = next((e for e in _game_events(state) if e["type"] == "first_leader"), None)
    leader = first_leader["seat"] if first_leader else None

    def deal_block(key: str, st: GameState, hands: dict[int, str] | None = None) -> None:
        lines.append(f"{body}{key}:")
        for s in st.seat_list:
            t = hands[s] if hands is not None else _deal_text(st, s, suits=leader is None)
            lines.append(f"{body}  {s}: {json.dumps(t)}")

    def move_block(key: str, st: GameState, returns: bool = True) -> None:
        moves = _case_moves(st, returns, omit_setup)
        lines.append(f"{body}{key}:" + ("" if moves else " []"))
        for t in moves:
            lines.append(f"{body}  - {t}")

    game_n = state.game_number
    if previous is not None and state.prev is not None and game_n == previous.game_number + 1 == 2:
        lines.append(f"{body}# ruleset {state.graph.name}, games 1-2 of a match (tribute replayed)")
        if previous.seed is not None:
            lines.append(f"{body}seed: {json.dumps(previous.seed)}")
        lead1 = next((e for e in _game_events(previous) if e["type"] == "first_leader"), None)
        deal_block("deal", previous, {s: previous.model.text(previous.dealt[s]) for s in previous.seat_list})
        if lead1:
            lines.append(f"{body}leader: {lead1['seat']}")
        move_block("moves", previous)
        # the next deal keeps its suits: the first-lead rule of the next game reads them
        lines.append(f"{body}next_deal:")
        for s in state.seat_list:
            lines.append(f"{body}  {s}: {json.dumps(_deal_text(state, s, suits=True))}")
        move_block("next_moves", state)
    elif state.prev is not None:
        lines.append(f"{body}# game {game_n} of a match: the deal is the hands as play began (after tribute);")
        lines.append(f"{body}# tribute and return tribute are not replayed")
        hands = _hands_at_play(state)
        lines.append(f"{body}deal:")
        for s in state.seat_list:
            lines.append(f"{body}  {s}: {json.dumps(state.model.text(hands[s]))}")
        if leader:
            lines.append(f"{body}leader: {leader}")
        move_block("moves", state, returns=False)
    else:
        if leader is None:
            lines.append(f"{body}# still in the setup: the deal keeps its suits so the first-lead rule decides")
        deal_block("deal", state)
        if leader:
            lines.append(f"{body}leader: {leader}")
        move_block("moves", state)
    lines.append(f"{body}expect:")
    ex = body + "  "
    if state.over:
        lines.append(f"{ex}over: true")
        lines.append(f"{ex}places: {{{', '.join(f'{s}: {p}' for s, p in sorted(state.places.items()))}}}")
        lines.append(f"{ex}scores: {{{', '.join(f'{s}: {v}' for s, v in sorted(state.scores.items()))}}}")
    else:
        lines.append(f"{ex}to_act: {state.to_act}")
        legal = state.legal_moves()
        texts = [m.text(state.model) for m in _legal_sample(state, legal, max_legal)]
        if len(texts) < len(legal):
            lines.append(f"{ex}# {len(legal)} legal moves; {len(texts)} listed")
        lines.append(f"{ex}legal:")
        for t in texts:
            lines.append(f"{ex}  - {t}")
        bad = [t for t in illegal if t]
        if bad:
            lines.append(f"{ex}illegal:")
            for t in bad:
                lines.append(f"{ex}  - {t}")
        lines.append(f"{ex}hand_sizes: {{{', '.join(f'{s}: {state.hand_size(s)}' for s in state.seat_list)}}}")
    return "\n".join(lines) + "\n"


def _legal_sample(state: GameState, legal: Sequence[Move], k: int) -> list[Move]:
    if len(legal) <= k:
        return list(legal)
    others = [m for m in legal if m.cards is None]
    cards = [m for m in legal if m.cards is not None]
    model = state.model

    def key(m: Move) -> tuple[int, Any, Any, int]:
        p = model.classify(m.cards or ())
        return (len(p.jokers), p.filler, p.rank, p.count)

    cards.sort(key=key)
    return cards[:max(k - len(others), 0)] + others


def _hands_at_play(state: GameState) -> dict[int, tuple[int, ...]]:
    """Dealt hands plus every transfer before the first move (tribute, buying)."""
    hands = {s: list(state.dealt[s]) for s in state.seat_list}
    for e in _game_events(state):
        if e["type"] == "move":
            break
        if e["type"] == "transfer":
            v = state.model.parse(e["cards"])
            for i, c in enumerate(v):
                hands[e["giver"]][i] -= c
                hands[e["receiver"]][i] += c
    return {s: tuple(h) for s, h in hands.items()}


def add_case_to_file(path: str | os.PathLike[str], ruleset: str, case_text: str) -> Path:
    """Append ``case_text`` (from :func:`scenario_case`) to the scenario file ``path``, creating it
    (``ruleset: NAME`` / ``cases:``) when it does not exist. Raises :class:`GoujiError` when the file
    is for another ruleset or has no ``cases:`` list at the end."""
    import yaml
    p = Path(path)
    if not p.exists():
        text = f"ruleset: {ruleset}\ncases:\n" + case_text
    else:
        old = p.read_text(encoding="utf-8")
        try:
            data = yaml.safe_load(old) or {}
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            raise GoujiError(Diagnostic(str(p), mark.line + 1 if mark else 0, mark.column + 1 if mark else 0,
                                        f"not valid YAML: {getattr(e, 'problem', e)}")) from None
        if not isinstance(data, dict) or "cases" not in data:
            raise GoujiError(Diagnostic(str(p), 1, 1, "not a scenario file: it has no 'cases:' list"))
        if str(data.get("ruleset")) != ruleset and Path(str(data.get("ruleset"))).stem != ruleset:
            raise GoujiError(Diagnostic(str(p), 1, 1, f"this scenario file is for ruleset {data.get('ruleset')!r}, not {ruleset!r}"))
        last_key = [ln for ln in old.splitlines() if ln and not ln[0].isspace() and not ln.startswith(("#", "-"))]
        if not last_key or not last_key[-1].startswith("cases:"):
            raise GoujiError(Diagnostic(str(p), 1, 1, "'cases:' is not the last key of this file: add the case by hand"))
        if last_key[-1].strip() == "cases: []":
            old = old.replace("cases: []", "cases:", 1)
        text = old + ("" if old.endswith("\n") else "\n") + case_text
    p.absolute().parent.mkdir(parents=True, exist_ok=True)
    atomic_write(p, text)
    return p


__all__ = ["GameRecord", "Step", "save_record", "load_record", "parse_record", "record_graph", "replay_steps",
           "replay_record", "scenario_case", "check_case", "add_case_to_file", "FORMAT", "VERSION"]
_ = Any
