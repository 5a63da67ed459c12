"""Bot against bot: ``gouji duel RULESET BOT_A BOT_B --deals N`` (how strong is a bot?).

Every deal is played twice: once with bot A at the odd seats (1, 3, 5) and bot B at the even ones,
once with the teams' bots swapped; deal ``i`` is dealt from seed ``S:i`` as ``gouji simulate`` deals
it, and each seat's bot draws from its own generator ``S:i:botSEAT``. In rulesets played in
matches (``match_length`` > 1, tribute between games) each seating plays the deals as matches, as
``gouji simulate`` does.

Figures (:class:`DuelReport`):

- the mean team-score difference A − B per game, with a 95 % interval over *units* — a deal and
  its swapped replay (a whole match and its replay in match rulesets), because the two games of a
  deal share the cards and are not independent;
- A's win rate: the share of games where A's team scored more than B's (Wilson interval), and ties;
- per seat: each bot's mean score and mean place at that seat;
- per bot: decisions, searched decisions (more than one legal move), time spent and decisions per
  second.

With iteration budgets (the default) the result depends only on the ruleset, bots, deals and seed,
never on ``workers`` or the machine; with ``--think-ms`` it depends on the machine's speed.
"""
from __future__ import annotations

import functools
import json
import math
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gouji_dsl import resources
from gouji_dsl.bots import deciding, make_bot, parse_bot_spec
from gouji_dsl.bots.outside import worker_died
from gouji_dsl.diagnostics import quoted, shortened
from gouji_dsl.engine.interpreter import GameState, Move, match_length, score_range
from gouji_dsl.i18n import _, bracketed, ngettext
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, read_regular
from gouji_dsl.readjson import DuplicateKeyError, Positions, json_limit, load_json, schema_message, strict_validator_class
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.tools.exits import os_failure, shown
from gouji_dsl.tools.played import engine_name, why_not_native, with_played_by
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_DUEL_DEALS
from gouji_dsl.tools.runpools import close_pool, ignore_sigint, sigterm_interrupts
from gouji_dsl.tools.simulate import BATCH_BOTS, bot_rng, engine_summary, native_games, play_game
from gouji_dsl.tools.stats import Estimate, clipped_note, mean_ci, wilson


class TimedBot:
    """Wraps a bot and counts its decisions and the time it spends on them."""

    def __init__(self, bot: Any):
        self.bot = bot
        self.name = bot.name
        self.decisions = 0
        self.searched = 0
        self.seconds = 0.0

    def choose(self, state: GameState, moves: Sequence[Move]) -> Move:
        t0 = time.perf_counter()
        m = self.bot.choose(state, moves)
        self.seconds += time.perf_counter() - t0
        self.decisions += 1
        if len(moves) > 1:
            self.searched += 1
        return m


@dataclass
class DuelGame:
    """One game of a duel: deal ``deal``, A at the odd seats or not, scores and places per seat,
    ``diff`` = A's team score − B's, and each bot's decision counts and time (``timing``: A / B →
    [decisions, searched, seconds])."""

    deal: int
    a_odd: bool
    scores: dict[int, float]
    places: dict[int, int]
    diff: float
    timing: dict[str, list[float]]

    def to_json(self) -> dict[str, Any]:
        return {"deal": self.deal, "a_odd": self.a_odd, "diff": self.diff,
                "scores": {str(k): v for k, v in sorted(self.scores.items())},
                "places": {str(k): v for k, v in sorted(self.places.items())}, "timing": self.timing}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> DuelGame:
        return cls(int(d["deal"]), bool(d["a_odd"]), {int(k): v for k, v in d["scores"].items()},
                   {int(k): int(v) for k, v in d["places"].items()}, float(d["diff"]),
                   {k: list(v) for k, v in d["timing"].items()})


def units(graph: RuleGraph, deals: int) -> list[tuple[int, int]]:
    """The deal ranges played as one unit (a deal, or a match of ``match_length`` deals)."""
    size = match_length(graph)
    return [(i, min(i + size, deals)) for i in range(0, deals, size)]


def play_unit(graph: RuleGraph, a: str, b: str, start: int, stop: int, seed: Any,
              think_ms: float | None = None, engine: str = DEFAULT_ENGINE) -> list[DuelGame]:
    """Deals ``start .. stop-1`` (one match, or one deal) in both seatings: A odd first, then A even;
    ``engine``: as ``gouji simulate --engine`` (:func:`duel_engine` says which played)."""
    n = graph.n_seats
    out: list[DuelGame] = []
    for a_odd in (True, False):
        prev: GameState | None = None
        for i in range(start, stop):
            names = [(a if (s % 2 == 1) == a_odd else b) for s in range(1, n + 1)]
            players = {s: TimedBot(make_bot(names[s - 1], bot_rng(seed, i, s), think_ms=think_ms)) for s in range(1, n + 1)}
            res, prev = play_game(graph, seed, i, names, previous=prev, players=players, engine=engine)
            a_seat = 1 if a_odd else 2
            b_seat = 2 if a_odd else 1
            timing: dict[str, list[float]] = {"a": [0, 0, 0.0], "b": [0, 0, 0.0]}
            for s, p in players.items():
                t = timing["a" if (s % 2 == 1) == a_odd else "b"]
                t[0] += p.decisions
                t[1] += p.searched
                t[2] = round(t[2] + p.seconds, 6)
            scores = {s: float(v) for s, v in res.scores.items()}
            out.append(DuelGame(i, a_odd, scores, dict(res.places), scores[a_seat] - scores[b_seat], timing))
    return out


#: units (deals, or matches) below which the report names no stronger bot: the interval is a normal
#: approximation over units, too narrow on a handful of them (zero-wide when they happen to agree)
MIN_UNITS_FOR_VERDICT = 10


@dataclass
class DuelReport:
    """The figures of a duel (see the module docstring); ``games`` holds every game."""

    ruleset: str
    a: str
    b: str
    deals: int
    seed: Any
    think_ms: float | None
    games: list[DuelGame] = field(repr=False)
    unit_size: int
    elapsed_s: float = 0.0
    #: deals read from a save file (a resumed run): ``elapsed_s`` is the time of the others
    resumed_deals: int = 0
    #: which engine played the deals of this run (:func:`duel_engine`; empty: not said)
    engine: dict[str, Any] = field(default_factory=dict)
    #: the largest team-score difference of a game, from the ruleset's scores
    #: (:func:`~gouji_dsl.engine.interpreter.score_range`; None: unknown, nothing is clipped)
    score_cap: float | None = None
    #: whether each bot's decisions were counted and timed (False: the native core played the games
    #: whole, :func:`duel_engine`; no decision crossed into Python to be timed)
    timed: bool = True

    # --------------------------------------------------------------- figures
    def unit_means(self) -> list[float]:
        by: dict[int, list[float]] = {}
        for g in self.games:
            by.setdefault(g.deal // self.unit_size, []).append(g.diff)
        return [math.fsum(v) / len(v) for _, v in sorted(by.items())]

    @property
    def mean_diff(self) -> Estimate:
        """Mean A − B per game, with the 95 % interval over units, cut to the possible range (the one
        place a duel's, league's and skill trace's interval is made: :meth:`Estimate.within`)."""
        est = mean_ci(self.unit_means())
        return Estimate(est.value, est.low, est.high, len(self.games), "paired").within(self.bound)

    @property
    def bound(self) -> float | None:
        """The possible range of a game's A − B: the ruleset's :attr:`score_cap`, never below a
        difference actually played (a score rule the bound could not read in full)."""
        if self.score_cap is None:
            return None
        return max([self.score_cap] + [abs(g.diff) for g in self.games])

    @property
    def win_rate(self) -> Estimate:
        return wilson(sum(1 for g in self.games if g.diff > 0), len(self.games))

    @property
    def ties(self) -> int:
        return sum(1 for g in self.games if g.diff == 0)

    def per_seat(self) -> dict[int, dict[str, dict[str, float | None]]]:
        """seat → bot ("a"/"b") → mean score and mean place there."""
        out: dict[int, dict[str, dict[str, float | None]]] = {}
        seats = sorted({s for g in self.games for s in g.scores})
        for s in seats:
            row: dict[str, dict[str, float | None]] = {}
            for who in ("a", "b"):
                gs = [g for g in self.games if ((s % 2 == 1) == g.a_odd) == (who == "a")]
                row[who] = {"games": len(gs),
                            "score": round(math.fsum(g.scores[s] for g in gs) / len(gs), 4) if gs else None,
                            "place": round(sum(g.places[s] for g in gs) / len(gs), 4) if gs else None}
            out[s] = row
        return out

    def _score_note(self) -> str:
        """A note for the per-seat line when teammates scored alike in every game (the scores are the team's)."""
        for g in self.games:
            for parity in (0, 1):
                if len({v for s, v in g.scores.items() if s % 2 == parity}) > 1:
                    return ""
        return _(", teammates share their team's")

    def timing(self) -> dict[str, dict[str, float | None]]:
        """bot ("a"/"b") → decisions, searched decisions, seconds, decisions per second, ms per searched decision."""
        out: dict[str, dict[str, float | None]] = {}
        for who in ("a", "b"):
            d = sum(g.timing[who][0] for g in self.games)
            sd = sum(g.timing[who][1] for g in self.games)
            sec = math.fsum(g.timing[who][2] for g in self.games)
            out[who] = {"decisions": d, "searched": sd, "seconds": round(sec, 3),
                        "decisions_per_s": round(d / sec, 1) if sec > 0 else None,
                        "ms_per_searched": round(1000 * sec / sd, 2) if sd else None}
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready. Keys: ``ruleset, a, b, deals, games, seed, think_ms, match_length, elapsed_s,
        resumed_deals, mean_diff`` (A − B per game, 95 % interval over units; ``clipped_to`` where it was cut
        to the possible range ``score_cap``, the largest team-score difference of a game), ``a_win_rate`` (Wilson), ``ties``,
        ``per_seat`` (seat → a/b → games, score, place), ``timing`` (a/b → decisions, searched,
        seconds, decisions_per_s, ms_per_searched); and which engine played this run's deals (``engine``,
        ``played_by``, ``played_by_reason``... as ``gouji simulate --json`` says it)."""
        return {"ruleset": self.ruleset, "a": self.a, "b": self.b, "deals": self.deals, "games": len(self.games),
                "seed": self.seed, "think_ms": self.think_ms, "match_length": self.unit_size,
                "elapsed_s": round(self.elapsed_s, 2), "resumed_deals": self.resumed_deals, "mean_diff": self.mean_diff.to_dict(),
                "a_win_rate": self.win_rate.to_dict(), "ties": self.ties,
                "per_seat": {str(s): v for s, v in self.per_seat().items()},
                "timing": self.timing() if self.timed else None, "timed": self.timed,
                "score_cap": self.score_cap, **self.engine}

    def text(self) -> str:
        """The report for people."""
        md, wr, tm = self.mean_diff, self.win_rate, self.timing()
        budget = _(", {ms:g} ms per decision").format(ms=self.think_ms) if self.think_ms else ""
        if self.think_ms:  # a bot with its own iteration budget stops at whichever comes first
            capped = [_("{name} after {iters} iterations").format(name=name, iters=iters) for name in dict.fromkeys((self.a, self.b))
                      for kind, iters in [parse_bot_spec(name)] if kind.searches and iters is not None]
            if capped:
                budget += _(" ({capped} if sooner)").format(capped=_(" and ").join(capped))
        match = _(" in matches of {n}").format(n=self.unit_size) if self.unit_size > 1 else ""
        cut = self.deals % self.unit_size  # rulebook --deals 2: one match of 5 played to its 2nd game only
        if cut and self.deals < self.unit_size:
            match = ngettext(" in one match of {n}, cut short after {cut} deal", " in one match of {n}, cut short after {cut} deals",
                             cut).format(n=self.unit_size, cut=cut)
        elif cut:
            match += ngettext(", the last cut short after {cut} deal", ", the last cut short after {cut} deals", cut).format(cut=cut)
        units = len(self.unit_means())
        interval = "" if math.isnan(md.low) else bracketed(_("{level} interval").format(level="95%"), after=True)
        if math.isnan(md.low):
            verdict = _("too few deals for an interval")
        elif units > 1 and not any(self.unit_means()):  # no spread: the interval has no width
            verdict = (_("A and B scored alike: each match's two seatings cancelled exactly, so the interval has no width "
                         "(other seeds or more matches may differ)") if self.unit_size > 1 else
                       _("A and B scored alike: each deal's two seatings cancelled exactly, so the interval has no width "
                         "(other seeds or more deals may differ)"))
        elif units < MIN_UNITS_FOR_VERDICT:
            verdict = (_("too few matches for a verdict (the interval needs at least {n})") if self.unit_size > 1 else
                       _("too few deals for a verdict (the interval needs at least {n})")).format(n=MIN_UNITS_FOR_VERDICT)
        else:
            verdict = _("A is stronger") if md.low > 0 else _("B is stronger") if md.high < 0 else _("no clear difference")
        lines = [
            ngettext("{ruleset}: {a} (A) against {b} (B), {deals} deal × 2 seatings = {games} games{match}, seed {seed}{budget}",
                     "{ruleset}: {a} (A) against {b} (B), {deals} deals × 2 seatings = {games} games{match}, seed {seed}{budget}",
                     self.deals).format(ruleset=self.ruleset, a=self.a, b=self.b, deals=self.deals, games=len(self.games),
                                        match=match, seed=self.seed, budget=budget),
            _("  mean team score A − B per game: {diff}{interval} — {verdict}").format(
                diff=md.format(2, signed=True), interval=interval, verdict=verdict),
            ngettext("  A's team ahead in {rate} of games; {ties} tie", "  A's team ahead in {rate} of games; {ties} ties",
                     self.ties).format(rate=wr.format(1, percent=True), ties=self.ties),
            _("  per seat (mean score{note} / mean place, 1 = first out):").format(note=self._score_note()),
        ]
        for s, row in self.per_seat().items():
            lines.append(_("    seat {seat}: A {a_score} / {a_place}   B {b_score} / {b_place}").format(
                seat=s, a_score=_f(row['a']['score']), a_place=_f(row['a']['place']), b_score=_f(row['b']['score']),
                b_place=_f(row['b']['place'])))
        lines += self._timing_lines(tm)
        k = self.resumed_deals
        resumed = ((_(" (this run; all of the deals read from the save file)") if k == self.deals else
                    _(" (this run; {k} of the deals read from the save file)").format(k=k)) if k else "")
        lines.append(_("  {s:.1f} s{resumed}").format(s=self.elapsed_s, resumed=resumed))
        lines += self._engine_lines() + [f"  {note}" for note in [clipped_note([md])] if note]
        return "\n".join(lines)

    def _timing_lines(self, tm: dict[str, dict[str, float | None]]) -> list[str]:
        """Each bot's decisions and their speed; where the native core played the games whole, that they were not timed."""
        if not self.timed:
            return [_("  decisions not timed: the native core played the games whole (random and heuristic "
                      "bots, no time budget per decision)")]
        lines = []
        for who, name in (("a", self.a), ("b", self.b)):
            t = tm[who]
            per = (_(", {ms:.1f} ms per decision with a choice").format(ms=t['ms_per_searched'])
                   if t["ms_per_searched"] is not None else "")
            lines.append(_("  {who} {name}: {decisions} decisions ({searched} with a choice), {rate} decisions/s{per}").format(
                who=who.upper(), name=name, decisions=t['decisions'], searched=t['searched'], rate=_f(t['decisions_per_s'], 0), per=per))
        return lines

    def _engine_lines(self) -> list[str]:
        """Which engine played this run's deals and, when not the native core, why."""
        if not engine_name(self.engine):
            return []
        why = why_not_native(self.engine)
        head = (_("  engine: {engine} (the deals played in this run)") if self.resumed_deals else
                _("  engine: {engine}")).format(engine=engine_name(self.engine))
        return [head + (f" — {why}" if why else "")]


def _f(x: float | None, digits: int = 2) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


# ------------------------------------------------------------------------------ saved runs
class SavedRunMismatch(ValueError):
    """A save file holds another duel (other ruleset, bots, seed or think time) than the one asked for."""


def run_header(ruleset: str, a: str, b: str, seed: Any, think_ms: float | None,
               fingerprint: str | None = None) -> dict[str, Any]:
    """What a save file's first line records, so that a resumed run never mixes two duels;
    ``fingerprint`` (:func:`gouji_dsl.tools.runspec.fingerprint` of the ruleset) tells an edited
    ruleset file from the one the file was started with."""
    out: dict[str, Any] = {"ruleset": ruleset, "a": a, "b": b, "seed": str(seed), "think_ms": think_ms}
    if fingerprint is not None:
        out["fingerprint"] = fingerprint
    return out


def _header_mismatch(saved: dict[str, Any], header: dict[str, Any]) -> str | None:
    """How a save file's header differs from the duel asked for, or None. A file written before
    headers had a fingerprint is not checked for it."""
    diff = [k for k in header if saved.get(k) != header[k] and not (k == "fingerprint" and k not in saved)]
    if "ruleset" in diff and "fingerprint" in diff:  # another ruleset: its rules differ, of course
        diff.remove("fingerprint")
    if "ruleset" in diff and "fingerprint" in saved and saved.get("fingerprint") == header.get("fingerprint"):
        diff.remove("ruleset")  # the same rules under another name (a renamed copy): the same duel
    if not diff:
        return None
    return ", ".join(_("the rules of {ruleset} changed since it was saved: fingerprint {saved}, now {now}").format(
                         ruleset=header['ruleset'], saved=shortened(str(saved[k])), now=header[k]) if k == "fingerprint" else
                     _("{k} {saved}, not {now}").format(k=k, saved=quoted(saved.get(k)), now=quoted(header[k]))
                     for k in diff)


MAX_SAVE_BYTES = 100 * 1024 * 1024
"""The largest save file read: twice what :data:`~gouji_dsl.tools.runkinds.MAX_DUEL_DEALS` deals of a
six-seat ruleset take (about 500 bytes a deal: 50 MB for 100,000 deals); a larger file is refused
before it is read."""


def _no_constant(name: str) -> Any:
    raise ValueError(_("{name} is not a JSON value").format(name=name))


def _read_bytes(path: Path) -> bytes | None:
    """The bytes of the save file ``path`` (None when there is none yet); ValueError naming the file
    for what cannot be a save file (a folder, a named pipe or a device: they would block or never end;
    larger than :data:`MAX_SAVE_BYTES`) or cannot be read (``/proc/self/mem``: "[Errno 5]" named no file)."""
    try:
        return read_regular(path, MAX_SAVE_BYTES)
    except FileNotFoundError:
        return None
    except NotRegularFile as e:
        raise ValueError(_("{shown}: not a saved duel ({kind}); use another file").format(shown=shown(path), kind=e.kind)) from None
    except FileTooLarge as e:
        raise ValueError(_("{shown}: {size:,} bytes: not a saved duel (a save file of {max_duel_deals:,} deals "
                         "is about 50 MB; at most {max_save_bytes:,} bytes are read, MAX_SAVE_BYTES); use another "
                         "file").format(shown=shown(path), size=e.size, max_duel_deals=MAX_DUEL_DEALS, max_save_bytes=MAX_SAVE_BYTES)) from None
    except OSError as e:
        raise ValueError(os_failure(path, _("read the save file"), e)) from None


def _read_save(path: Path) -> str:
    raw = _read_bytes(path) or b""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(_("{shown}: not a saved duel (not UTF-8 text); use another file").format(shown=shown(path))) from None


MAX_SAVE_KEYS = 100
"""The most keys of one object in a save line (a game's scores and places have one per seat, at most
64); checked before ``json`` reads a line longer than :data:`SCANNED_LINE_CHARS`."""

SCANNED_LINE_CHARS = 16 * 1024
"""Lines longer than this (a unit line is about 500 characters a deal) are scanned for their objects'
keys and nesting before ``json`` reads them (a line of 500,000 seat keys, 6 MB, took 48 s and 171 MB)."""


def _parse_line(line: str) -> tuple[Any, str | None]:
    """A line's JSON value, or what is wrong with it (NaN and Infinity are not JSON, a key written twice
    is refused, an object of more than :data:`MAX_SAVE_KEYS` keys)."""
    found = json_limit(line, nesting=8, keys=MAX_SAVE_KEYS) if len(line) > SCANNED_LINE_CHARS else None
    if found is not None:
        why = {"keys": _("an object of more than {max_save_keys} keys (MAX_SAVE_KEYS; a game has one per seat)").format(max_save_keys=MAX_SAVE_KEYS),
               "nesting": "nested too deep (a saved line nests 5 levels)"}.get(found.kind, f"{found.token} is not a JSON value")
        return None, f"{found.offset + 1}: not a saved duel line: {why}"
    try:
        return load_json(line, parse_constant=_no_constant), None
    except json.JSONDecodeError as e:
        return None, f"{e.colno}: not a saved duel line: not JSON ({e.msg})"
    except DuplicateKeyError as e:  # json keeps the last one silently
        return None, _("{e}: not a saved duel line: {e2}").format(e=e.offset + 1, e2=e)
    except RecursionError:
        return None, _(" not a saved duel line: nested too deep (a saved line nests 5 levels)")
    except ValueError as e:  # an integer of more than 4,300 digits (Python's limit), NaN, Infinity
        text = str(e)
        if "integer string conversion" in text:
            text = _("a number of more than 4,300 digits")
        return None, _(" not a saved duel line: {text}").format(text=text)


def check_saved_header(path: Path, header: dict[str, Any]) -> None:
    """Refuse ``path`` before anything in it is changed when it is not a save file of this duel: its
    first line is not a header (``{"duel": ...}``), or another duel's (:class:`SavedRunMismatch`). A
    file that does not exist, is empty, or is one line cut short while the header was written
    (:func:`repair_tail` mends it) passes."""
    data = _read_bytes(path)
    if not data:
        return
    first = data[:data.find(b"\n") + 1 or 64 * 1024]
    if not first.endswith(b"\n"):
        try:
            json.loads(first)
        except ValueError:
            return  # cut short (or not a duel at all: repair_tail says which)
    try:
        text = first.decode("utf-8")
    except UnicodeDecodeError:
        raise ValueError(_("{path}: not a saved duel (not UTF-8 text); use another file").format(path=path)) from None
    d, bad = _parse_line(text)
    if bad is not None and text.startswith(_LINE_STARTS[0].decode()):  # a header line, but bad JSON: where
        raise ValueError(f"{path}:1:{bad}")
    if not (isinstance(d, dict) and "duel" in d):
        raise ValueError(_("{path}:1: not a saved duel: a save file starts with its duel's header line "
                         "({{\"duel\": {{\"ruleset\": ...}}}}); use another file").format(path=path))
    problem = _line_problem(d, text)  # a header with a key no duel writes, of the wrong type ...: which, and where
    if problem is not None:
        raise ValueError(f"{path}:1:{problem}")
    mismatch = _header_mismatch(d["duel"], header)
    if mismatch:
        raise SavedRunMismatch(_("{path}: holds another duel ({mismatch}); use another file, or delete this one to "
                               "start again").format(path=path, mismatch=mismatch))


def load_saved(path: Path, header: dict[str, Any] | None = None, seats: int | None = None) -> list[DuelGame]:
    """The games saved in ``path`` (JSON lines: the ``{"duel": HEADER}`` line first, then one
    ``{"games": [...]}`` line per finished unit); none when the file does not exist or is empty. A
    unit saved twice (a longer run finishing a match) keeps its last games. Raises
    :class:`SavedRunMismatch` when ``header`` is given and the file's header differs, ValueError for a
    file larger than :data:`MAX_SAVE_BYTES`, one that does not start with a header (or has one after
    its units), and for lines that are not saved units (``schema/duel-save.schema.json``) or that this
    duel cannot use (``seats``: the ruleset's seats, every one in every game; ``diff`` A's team score
    minus B's): every bad line of the file, one per line of the message, each as ``path:line: what``.

    Each line is read once: a fast check that a line is what :func:`save_unit` writes, the schema's
    validator only for a line that fails it (to say what is wrong)."""
    games: dict[tuple[int, bool], DuelGame] = {}
    text = _read_save(path)
    problems: list[str] = []  # every bad line of the file at once, one per line of the message
    seen_header = seen_unit = False
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        d, bad = _parse_line(line)
        if bad is not None:
            problems.append(f"{path}:{n}:{bad}")
            continue
        is_header = isinstance(d, dict) and "duel" in d
        if not (_fast_header(d) if is_header else _fast_unit(d)):
            problem = _line_problem(d, line)
            if problem is not None:
                problems.append(f"{path}:{n}:{problem}")
                continue
        if is_header:
            if seen_header or seen_unit:
                problems.append(_("{path}:{n}: not a saved duel: a header line after the "
                                "{units} (a save file holds one duel, its header first)").format(
                                    path=path, n=n, units='units' if seen_unit else 'header'))
                continue
            seen_header = True
            mismatch = None if header is None else _header_mismatch(d["duel"], header)
            if mismatch:
                raise SavedRunMismatch(_("{path}: holds another duel ({mismatch}); "
                                       "use another file, or delete this one to start again").format(path=path, mismatch=mismatch))
            continue
        if not seen_header and not seen_unit:
            problems.append(_("{path}:{n}: not a saved duel: a save file starts with its duel's header line "
                            "({{\"duel\": {{\"ruleset\": ...}}}}); use another file").format(path=path, n=n))
        seen_unit = True
        for i, g in enumerate(d["games"]):
            problem = _game_problem(g, seats)
            if problem is not None:
                problems.append(_("{path}:{n}: not a line of this duel: games/{i}: {problem}").format(path=path, n=n, i=i, problem=problem))
                break
            x = DuelGame.from_json(g)
            games[(x.deal, x.a_odd)] = x
        if seats is None and d["games"]:
            seats = len(d["games"][0]["scores"])
    if problems:
        raise ValueError("\n".join(problems[:20]) + (_("\n{path}: {n} more bad line(s)").format(path=path, n=len(problems) - 20)
                                                       if len(problems) > 20 else ""))
    return [games[k] for k in sorted(games)]


_SEAT_KEYS = frozenset(str(i) for i in range(1, 100))
_GAME_KEYS = frozenset({"deal", "a_odd", "diff", "scores", "places", "timing"})
_SCORE_LIMIT = 1e9


def _is_score(x: Any) -> bool:
    return type(x) in (int, float) and -_SCORE_LIMIT <= x <= _SCORE_LIMIT


def _is_count(x: Any) -> bool:
    return type(x) is int and x >= 0


def _fast_unit(d: Any) -> bool:
    """Whether a parsed line is a unit the schema takes — the same test as ``definitions/unit`` of
    ``schema/duel-save.schema.json``, in plain Python (a saved run of 100,000 deals is 200,000 games:
    the schema's validator took minutes; tests compare the two on generated lines)."""
    if type(d) is not dict or d.keys() != {"games"} or type(d["games"]) is not list or not d["games"]:
        return False
    for g in d["games"]:
        if type(g) is not dict or g.keys() != _GAME_KEYS:
            return False
        deal, scores, places, timing = g["deal"], g["scores"], g["places"], g["timing"]
        if not (type(deal) is int and 0 <= deal <= 99999 and type(g["a_odd"]) is bool and _is_score(g["diff"])):
            return False
        for by_seat, ok in ((scores, _is_score), (places, None)):
            if type(by_seat) is not dict or not 2 <= len(by_seat) <= 64 or not _SEAT_KEYS.issuperset(by_seat):
                return False
            for v in by_seat.values():
                if not (ok(v) if ok is not None else type(v) is int and 1 <= v <= 64):
                    return False
        if type(timing) is not dict or timing.keys() != {"a", "b"}:
            return False
        for t in timing.values():
            if not (type(t) is list and len(t) == 3 and _is_count(t[0]) and _is_count(t[1])
                    and type(t[2]) in (int, float) and 0 <= t[2] <= _SCORE_LIMIT):
                return False
    return True


_HEADER_KEYS = frozenset({"ruleset", "a", "b", "seed", "think_ms", "fingerprint"})


def _fast_header(d: Any) -> bool:
    """Whether a parsed line is a header the schema takes (``definitions/header``, in plain Python)."""
    if type(d) is not dict or d.keys() != {"duel"} or type(d["duel"]) is not dict:
        return False
    h = d["duel"]
    return (_HEADER_KEYS.issuperset(h) and all(type(h.get(k)) is str for k in ("ruleset", "a", "b", "seed")) and "think_ms" in h
            and (h["think_ms"] is None or type(h["think_ms"]) in (int, float))
            and type(h.get("fingerprint", "")) is str)


def _game_problem(g: dict[str, Any], seats: int | None) -> str | None:
    """What a schema-valid game lacks for this duel's report: every seat of the ruleset (``seats``),
    places among them, ``diff`` A's team score minus B's."""
    n = seats if seats is not None else len(g["scores"])
    want = {str(s) for s in range(1, n + 1)}
    for key in ("scores", "places"):
        if g[key].keys() != want:
            have = ", ".join(sorted(g[key], key=int))
            return _("{key} of seats {have}; the ruleset has {n} seats (1–{n})").format(key=key, have=have, n=n)
    if any(p > n for p in g["places"].values()):
        return _("a place beyond {n} ({join})").format(n=n, join=', '.join(str(p) for p in g['places'].values()))
    if len(set(g["places"].values())) != n:  # each seat takes a free place: a game's places are 1..n once each
        return _("a place taken twice ({join})").format(join=', '.join(str(p) for p in g['places'].values()))
    for who, (decisions, searched, _seconds) in sorted(g["timing"].items()):
        if searched > decisions:
            return _("timing/{who}: {searched} decisions with a choice of {decisions} decisions").format(
                who=who, searched=searched, decisions=decisions)
    a_seat, b_seat = ("1", "2") if g["a_odd"] else ("2", "1")
    if g["diff"] != g["scores"][a_seat] - g["scores"][b_seat]:
        return (_("diff {g} is not A's team score minus B's ({g2} − {g3}, "
                "seats {a_seat} and {b_seat})").format(g=g['diff'], g2=g['scores'][a_seat], g3=g['scores'][b_seat], a_seat=a_seat, b_seat=b_seat))
    return None


@functools.lru_cache(maxsize=1)
def _save_validators() -> dict[str, Any]:
    """The save-file schema (``schema/duel-save.schema.json``) as one validator per kind of line."""
    with open(resources.duel_save_schema_path(), encoding="utf-8") as f:
        schema = json.load(f)
    cls = strict_validator_class()
    return {kind: cls({**schema["definitions"][kind], "definitions": schema["definitions"]}) for kind in ("header", "unit")}


def _line_problem(d: Any, line: str | None = None) -> str | None:
    """What is wrong with a parsed line of a save file (where, and the schema's message, the value it
    quotes shortened), or None. With the ``line``'s text: ``COL: not a saved duel line: ...``, the
    column of the value (or of the unknown key) the schema refuses."""
    from jsonschema.exceptions import best_match

    kind = "header" if isinstance(d, dict) and "duel" in d else "unit"
    err = best_match(_save_validators()[kind].iter_errors(d))
    if err is None:
        return None
    where = "/".join(str(x) for x in err.absolute_path)
    message = schema_message(err)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = list(err.schema.get("properties", {}))
        extra = next((k for k in err.instance if k not in known), "?")
        message = _("unknown key {quoted} (keys: {join})").format(quoted=quoted(extra), join=', '.join(known))
    text = f"{where}: {message}" if where else message
    return text if line is None else _("{column}: not a saved duel line: {text}").format(column=_column(line, err), text=text)


def _column(line: str, err: Any) -> int:
    """The column of what the schema error ``err`` is about in ``line``: the unknown key of an
    ``additionalProperties`` error, else the value."""
    path = tuple(err.absolute_path)
    pos = Positions(line)
    if err.validator == "additionalProperties" and isinstance(err.instance, dict):
        known = err.schema.get("properties", {})
        extra = next((k for k in err.instance if k not in known), None)
        if extra is not None:
            return pos.keys.get(path + (extra,), (1, 1))[1]
    return pos.at.get(path, (1, 1))[1]


def repair_tail(path: Path) -> int | None:
    """Make a save file end with a whole line before it is read and appended to. A last line without
    its newline that is not JSON was cut short while being written (the run was killed, the disk
    full): it is removed and its line number returned (its unit is played again); a whole last line
    only missing its newline gets it. None when nothing was cut. Only the start of a line :func:`save_unit` writes is
    removed: any other last line (``--save notes.txt``, a file of something else) raises ValueError and
    the file is left as it is (it was truncated to its last newline: a whole one-line file lost)."""
    data = _read_bytes(path)
    if not data or data.endswith(b"\n"):
        return None
    start = data.rfind(b"\n") + 1
    try:
        json.loads(data[start:])
    except ValueError:
        tail = data[start:]
        if not any(p.startswith(tail[:len(p)]) for p in _LINE_STARTS):
            line = data.count(b"\n", 0, start) + 1
            raise ValueError(f"{path}:{line}: not a saved duel (its last line is not one a duel writes); "
                             "use another file") from None
        try:
            with path.open("r+b") as f:
                f.truncate(start)
        except OSError as e:
            raise ValueError(os_failure(path, _("remove the cut last line of the save file"), e)) from None
        return data.count(b"\n", 0, start) + 1
    try:
        with path.open("ab") as f:
            f.write(b"\n")
    except OSError as e:
        raise ValueError(os_failure(path, _("end the save file's last line"), e)) from None
    return None


_LINE_STARTS = (b'{"duel": ', b'{"games": ')
"""How every line :func:`save_unit` writes starts (``json.dumps`` of a one-key object)."""


class SaveFailed(Exception):
    """A finished unit could not be appended to the save file (a full disk, a folder that went, no
    permission): the message names the file and what failed; ``errno`` is the OS error's."""

    def __init__(self, message: str, errno: int | None):
        super().__init__(message)
        self.errno = errno


def save_unit(path: Path, games: Sequence[DuelGame], header: dict[str, Any] | None = None) -> None:
    """Append one finished unit's games to ``path`` (first the header line when the file is new or
    empty). Each unit is one line written with one call, so a killed run loses at most the unit being
    played. Raises :class:`SaveFailed`."""
    text = json.dumps({"games": [g.to_json() for g in games]}) + "\n"
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if header is not None and (not path.exists() or path.stat().st_size == 0):
            text = json.dumps({"duel": header}) + "\n" + text
        with path.open("a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
    except OSError as e:
        raise SaveFailed(os_failure(path, _("write the save file"), e), e.errno) from None


# ------------------------------------------------------------------------------ running
_WORKER: dict[str, Any] = {}


def _init_worker(resolved: Any, notes: str | None = None) -> None:
    ignore_sigint(notes=notes)  # Ctrl+C is for the parent, which stops the workers (a worker would go on to the next deal)
    _WORKER["graph"] = compile_ruleset(resolved)


def _run_unit(a: str, b: str, start: int, stop: int, seed: Any, think_ms: float | None,
              engine: str = DEFAULT_ENGINE) -> list[dict[str, Any]]:
    return [g.to_json() for g in play_unit(_WORKER["graph"], a, b, start, stop, seed, think_ms, engine)]


def still_to_play(graph: RuleGraph, deals: int, done: Iterable[DuelGame]) -> tuple[list[tuple[int, int]], list[DuelGame]]:
    """What a resumed duel of ``deals`` deals plays and keeps: the units (deal ranges: one deal, or a
    match where the ruleset plays matches) not finished in ``done`` — a unit is finished when all its
    deals were played in both seatings, so an unfinished match is played again from its first deal —
    and the games of ``done`` that are kept."""
    games = [g for g in done if g.deal < deals]
    have = {(g.deal, g.a_odd) for g in games}  # a deal is done when both seatings are
    todo = [u for u in units(graph, deals) if not all((i, odd) in have for i in range(*u) for odd in (True, False))]
    return todo, [g for g in games if not any(s <= g.deal < e for s, e in todo)]


def _play(graph: RuleGraph, a: str, b: str, todo: list[tuple[int, int]], seed: Any, think_ms: float | None,
          workers: int, take: Callable[[list[DuelGame]], None], engine: str = DEFAULT_ENGINE) -> None:
    """Play the units ``todo``, in this process or in ``workers`` processes; ``take`` each unit's games."""
    if workers <= 1 or len(todo) <= 1:
        for s, e in todo:
            take(play_unit(graph, a, b, s, e, seed, think_ms, engine))
        return
    import multiprocessing
    from concurrent.futures.process import BrokenProcessPool

    ctx = multiprocessing.get_context("spawn")
    with deciding.notes_folder() as notes:
        pool = ProcessPoolExecutor(max_workers=workers, mp_context=ctx, initializer=_init_worker,
                                   initargs=(graph.resolved, notes))
        stopped = True
        try:
            units_of = {pool.submit(_run_unit, a, b, s, e, seed, think_ms, engine): (s, e) for s, e in todo}
            pending = set(units_of)
            while pending:
                fin, pending = wait(pending, return_when=FIRST_COMPLETED)
                for fut in fin:
                    try:
                        got = fut.result()
                    except BrokenProcessPool as e:  # a worker died: a bot from outside deciding there is named
                        raise _broken(pool, notes, units_of[fut], e) from None
                    take([DuelGame.from_json(d) for d in got])
            stopped = False
        finally:
            close_pool(pool, stopped)  # Ctrl+C or an error: the deals being played and queued are not waited for


def _broken(pool: Any, notes: str, unit: tuple[int, int], e: BaseException) -> BaseException:
    """What a pool broken by a worker's death while it played ``unit`` is: the failure of the bot from
    outside that was deciding in that worker (:func:`gouji_dsl.bots.deciding.died_deciding`), else ``e``."""
    workers = deciding.workers_of(pool)
    for p in workers:  # (ended and joined: their exit codes known)
        p.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
    died = deciding.died_deciding(workers, notes)
    return worker_died(died, *unit) if died else e


def duel(graph: RuleGraph, a: str, b: str, deals: int, seed: Any = 1, *, think_ms: float | None = None,
         workers: int = 1, progress: Callable[[int, int], None] | None = None,
         done: Iterable[DuelGame] = (), on_unit: Callable[[list[DuelGame]], None] | None = None,
         engine: str = DEFAULT_ENGINE) -> DuelReport:
    """Play a duel (see the module docstring). ``progress(units_done, units)`` after each unit;
    ``done``: games already played (a resumed run: their units are not played again); ``on_unit``
    is called with each newly played unit's games (to save them as they come).
    Raises ValueError for a bad bot spec or deal count."""
    parse_bot_spec(a)
    parse_bot_spec(b)
    if deals < 1:
        raise ValueError("deals must be at least 1")
    if deals > MAX_DUEL_DEALS:
        raise ValueError(f"{deals:,} deals: a duel plays at most {MAX_DUEL_DEALS:,}")
    t0 = time.perf_counter()
    size = match_length(graph)
    todo, games = still_to_play(graph, deals, done)
    resumed = len({g.deal for g in games})
    total = len(units(graph, deals))
    finished = total - len(todo)

    def take(unit_games: list[DuelGame]) -> None:
        nonlocal finished
        games.extend(unit_games)
        finished += 1
        if on_unit is not None:
            on_unit(unit_games)
        if progress is not None:
            progress(finished, total)

    played_by = duel_engine(graph, engine, a, b, think_ms)
    whole = played_by.get("whole_games") == "native"
    restore_sigterm = sigterm_interrupts()  # SIGTERM stops the duel as Ctrl+C does (KeyboardInterrupt)
    try:
        if whole:
            _play_native(graph, a, b, todo, seed, think_ms, take, engine)
        else:
            _play(graph, a, b, todo, seed, think_ms, workers, take, engine)
    finally:
        restore_sigterm()
    games.sort(key=lambda g: (g.deal, not g.a_odd))
    return DuelReport(graph.name, a, b, deals, seed, think_ms, games, size, time.perf_counter() - t0, resumed,
                      played_by, score_range(graph), timed=not whole)


#: deals per crossing into the native core (each seating), whole units (deals or matches) each
NATIVE_DEALS = 200


def _seat_names(a: str, b: str, n: int, a_odd: bool) -> list[str]:
    return [(a if (s % 2 == 1) == a_odd else b) for s in range(1, n + 1)]


def _batches(todo: list[tuple[int, int]], deals: int) -> list[list[tuple[int, int]]]:
    """``todo`` (units in deal order) in runs of consecutive units of at most ``deals`` deals (one unit at least)."""
    out: list[list[tuple[int, int]]] = []
    for u in todo:
        if out and out[-1][-1][1] == u[0] and u[1] - out[-1][0][0] <= deals:
            out[-1].append(u)
        else:
            out.append([u])
    return out


def _native_game(g: Any, a_odd: bool) -> DuelGame:
    """A game the native core played whole (a :class:`~gouji_dsl.tools.figures.GameSummary`), as a duel's game."""
    scores = {s + 1: float(v) for s, v in enumerate(g.scores)}
    places = {s + 1: int(p) for s, p in enumerate(g.places)}
    a_seat, b_seat = (1, 2) if a_odd else (2, 1)
    return DuelGame(g.index, a_odd, scores, places, scores[a_seat] - scores[b_seat],
                    {"a": [0, 0, 0.0], "b": [0, 0, 0.0]})


def _play_native(graph: RuleGraph, a: str, b: str, todo: list[tuple[int, int]], seed: Any, think_ms: float | None,
                 take: Callable[[list[DuelGame]], None], engine: str) -> None:
    """The units ``todo`` played whole in the native core, :data:`NATIVE_DEALS` deals per crossing and
    seating (:func:`~gouji_dsl.tools.simulate.native_games`: the games :func:`play_unit` plays); a unit
    with a game the core left to Python is played by :func:`play_unit`."""
    size = match_length(graph)
    for batch in _batches(todo, max(size, NATIVE_DEALS - NATIVE_DEALS % size)):
        lo, hi = batch[0][0], batch[-1][1]
        got = {a_odd: native_games(graph, seed, lo, hi, _seat_names(a, b, graph.n_seats, a_odd), engine,
                                   match_games=size) for a_odd in (True, False)}
        for s, e in batch:
            sides = {k: None if v is None else v[s - lo:e - lo] for k, v in got.items()}
            if any(v is None or None in v for v in sides.values()):
                take(play_unit(graph, a, b, s, e, seed, think_ms, engine))
                continue
            take([_native_game(x, a_odd) for a_odd in (True, False) for x in sides[a_odd] or ()])


def duel_engine(graph: RuleGraph, engine: str = DEFAULT_ENGINE, a: str = "random", b: str = "random",
                think_ms: float | None = None) -> dict[str, Any]:
    """Which engine plays a duel's games (``gouji simulate``'s engine summary, with its ``played_by``
    keys): the interpreter where asked for (or where the generator does not handle the ruleset);
    the native core, whole games in batches, where no bot needs its decisions timed (random and
    heuristic bots, no ``think_ms``) and the core plays the games whole; else the interpreter —
    the duel counts and times every decision of a search or outside bot (or one under a time
    budget), so each move is chosen in Python (also why, where the core is missing)."""
    e = engine_summary(graph, engine, [a, b], match_length(graph))
    timed = _why_timed(a, b, think_ms)
    if timed is None and e.get("whole_games") == "native":
        return with_played_by(e)
    if e.get("play_phase") == "native":
        e = {"engine": e["engine"], "play_phase": "interpreter", "native_fallback": timed or _(
            "the native core does not play these games whole ({why}), so the duel plays them move by move in "
            "Python").format(why=e.get("games_fallback"))}
    else:
        e = {k: v for k, v in e.items() if k not in ("whole_games", "games_fallback")}
    return with_played_by(e)


def _why_timed(a: str, b: str, think_ms: float | None) -> str | None:
    """Why a duel times each decision (None: no bot needs it, random and heuristic bots without a budget)."""
    if think_ms is not None:
        return _("--think-ms gives every decision a time budget, so the duel times each decision in Python")
    if any(n not in BATCH_BOTS for n in (a, b)):
        return _("a duel counts and times each bot's decisions, so every move is chosen in Python")
    return None
