"""What a simulation measures, as mergeable running totals (no per-game lists).

A game is reduced to a :class:`GameSummary` (places, scores, counts); blocks of linked games (the
deals of one match block: a cluster) are added to :class:`SideTotals` (one ruleset) or
:class:`PairTotals` (the same deals under two rulesets). Totals are exact (integers, fractions), so
chunks merged in any order, on any machine, give the same totals; :meth:`to_json` /
:meth:`from_json` carry them in chunk files. The figures and their estimates are computed from
totals by :mod:`gouji_dsl.tools.paired` (reports) with :mod:`gouji_dsl.tools.stats`.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from gouji_dsl.i18n import N_, _, display_width
from gouji_dsl.tools.stats import Number, PairedBinary, Ratio, Sums

# (key, label, kind) — kind: "mean" (a number per game) or "rate" (shown as a percentage)
SIDE_FIGURES: tuple[tuple[str, str, str], ...] = (
    ("decisions", N_("decisions per game"), "mean"),
    ("tricks", N_("tricks per game"), "mean"),
    ("score_spread", N_("team score spread"), "mean"),
    ("first_leader_team_score", N_("first leader's team score"), "mean"),
    ("sweep_rate", N_("sweep rate (串三户)"), "rate"),
    ("burns_per_game", N_("burn attempts per game"), "mean"),
    ("burn_success_rate", N_("burn success rate"), "rate"),
    ("revolution_rate", N_("games with a revolution"), "rate"),
    ("redeal_rate", N_("games redealt"), "rate"),
    # the design metrics (README: Design metrics), from the probed deals only (PROBE_EVERY)
    ("real_choice_share", N_("decisions with a real choice"), "rate"),
    ("lead_changes", N_("lead changes per game"), "mean"),
    ("settled_at", N_("first place settled after"), "rate"),
)
"""The per-ruleset figures of a report side, in report order."""

DESIGN_KEYS = ("real_choice_share", "lead_changes", "settled_at")
"""The design metrics: measured move by move, on the probed deals (:data:`PROBE_EVERY`) only."""

PROBE_EVERY = 50
"""Deal ``i`` is probed (played move by move, each decision's legal moves and hand sizes looked at) when
``i % PROBE_EVERY == 0``: the native batch core returns no per-move data, so the design metrics are
measured on every 50th deal (the same deals whatever the chunk size, workers or executor)."""

MIN_PROBED = 10
"""Below this many probed deals (clusters) a design metric has its value only: no interval, no test, no
mark (``gouji duel`` gives no verdict under 10 deals either); the reports say so."""


def probed(index: int) -> bool:
    """Deal ``index`` is one the design metrics are measured on."""
    return index % PROBE_EVERY == 0


@dataclass(frozen=True)
class Design:
    """The per-move facts of one probed game: ``choices`` of its ``decisions`` had more than one legal
    move; ``lead_changes``; the first place was settled after ``settled`` of its ``tricks`` (README:
    Design metrics)."""

    choices: int
    decisions: int
    lead_changes: int
    settled: int
    tricks: int

    def values(self) -> dict[str, Number]:
        out: dict[str, Number] = {"lead_changes": self.lead_changes}
        if self.decisions:
            out["real_choice_share"] = _ratio(self.choices, self.decisions)
        if self.tricks:
            out["settled_at"] = _ratio(self.settled, self.tricks)
        return out


DESIGN_GRAIN = 10**6
"""A probed game's shares (real choice, settled at) are kept to the nearest millionth (round half to even,
exactly): sums of exact C/D over many games would need the least common multiple of every D as their
denominator, past what a chunk file holds (60 digits); on a grid of millionths every total of any run
stays a short exact fraction, merged in any order to the same bits."""


def _units(x: int, y: int) -> int:
    """x / y in millionths (:data:`DESIGN_GRAIN`), rounded half to even, in integers only."""
    q, r = divmod(x * DESIGN_GRAIN, y)
    return q + 1 if 2 * r > y or (2 * r == y and q % 2) else q


def _ratio(x: int, y: int) -> Number:
    f = Fraction(_units(x, y), DESIGN_GRAIN)
    return f.numerator if f.denominator == 1 else f


#: the design metrics that are shares (C / D, s / T), on the grid of :data:`DESIGN_GRAIN`
_SHARES = {"real_choice_share": ("choices", "decisions"), "settled_at": ("settled", "tricks")}

def _add_units(sums: Sums, units: list[int]) -> None:
    """``sums.add_singles`` of the values u / DESIGN_GRAIN for each u of ``units``: the same exact totals."""
    if not units:
        return
    n, s, ss = len(units), sum(units), sum(u * u for u in units)
    total, squares = Fraction(s, DESIGN_GRAIN), Fraction(ss, DESIGN_GRAIN * DESIGN_GRAIN)
    sums.n += n
    sums.clusters += n
    sums.s += total
    sums.ss += squares
    sums.cs2 += squares
    sums.cns += total
    sums.cn2 += n


DIFF_FIGURES: tuple[tuple[str, str, str], ...] = tuple(
    f for f in SIDE_FIGURES) + (("outcome_changed", N_("deals whose places differ"), "rate"),)
"""The keys of a paired report's ``differences`` (besides ``seat_score``), in report order."""

def figure_label(key: str, *words: Any) -> str:
    """The label of the figure ``key`` (of :data:`DIFF_FIGURES`) in the active language: the one
    place reports and the compare screen take it from (``sweep rate (串三户)`` / ``串三户率``); with
    the rulesets' ``words`` (:class:`~gouji_dsl.ruleset.words.GameWords`) in their words of the game,
    as ``gouji simulate`` says its figures (:meth:`~gouji_dsl.ruleset.words.GameWords.own`: ``words.terms:
    {burn: 火牌}`` → 火牌成功率); where two rulesets name it otherwise, both labels (烧牌成功率/火牌成功率)."""
    label = next((lab for k, lab, _kind in DIFF_FIGURES if k == key), None)
    text = _(label) if label is not None else key
    return "/".join(dict.fromkeys(w.own(text) for w in words)) if words and label is not None else text


def place_headers(n: int, *words: Any, width: int | None = None) -> list[str]:
    """The names of places 1..``n`` for a table's header, in the active language: the rulesets' own
    words (``words: places``, :class:`~gouji_dsl.ruleset.words.GameWords`) when every one given
    names the place alike (头科 … 大落), else ``place N``; ``place N`` throughout where a word is
    wider than ``width`` columns."""
    out = []
    for p in range(1, n + 1):
        named = {w.place(p) for w in words if str(p) in w.places}
        given = bool(words) and all(str(p) in w.places for w in words) and len(named) == 1
        out.append(named.pop() if given else _("place {p}").format(p=p))
    if width is not None and any(display_width(h) > width for h in out):
        return [_("place {p}").format(p=p) for p in range(1, n + 1)]
    return out


MEAN_KEYS = ("decisions", "tricks", "score_spread", "first_leader_team_score", "burns_per_game")
BINARY_KEYS = ("sweep_rate", "revolution_rate", "redeal_rate", "burn_rate")


@dataclass(frozen=True)
class GameSummary:
    """The figures of one game (no record): seat-indexed tuples (index 0 is seat 1)."""

    index: int
    places: tuple[int, ...]
    scores: tuple[int, ...]
    sweep: bool
    decisions: int
    tricks: int
    first_leader: int | None
    burn_attempts: int
    burn_successes: int
    burn_failures: int
    revolutions: int
    redeals: int
    design: Design | None = None  # a probed deal's per-move facts (not in to_dict: a record's game keeps its keys)

    def to_dict(self) -> dict[str, Any]:
        return {"index": self.index, "places": {str(s + 1): p for s, p in enumerate(self.places)},
                "scores": {str(s + 1): v for s, v in enumerate(self.scores)}, "sweep": self.sweep,
                "decisions": self.decisions, "tricks": self.tricks, "first_leader": self.first_leader,
                "burn_attempts": self.burn_attempts, "burn_successes": self.burn_successes,
                "burn_failures": self.burn_failures, "revolutions": self.revolutions, "redeals": self.redeals}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> GameSummary:
        places, scores = d["places"], d["scores"]
        return cls(index=int(d["index"]), places=tuple(int(places[k]) for k in sorted(places, key=int)),
                   scores=tuple(int(scores[k]) for k in sorted(scores, key=int)), sweep=bool(d["sweep"]),
                   decisions=int(d["decisions"]), tricks=int(d["tricks"]), first_leader=d["first_leader"],
                   burn_attempts=int(d["burn_attempts"]), burn_successes=int(d["burn_successes"]),
                   burn_failures=int(d["burn_failures"]), revolutions=int(d["revolutions"]),
                   redeals=int(d["redeals"]))


def summarize_game(index: int, res: Any, n_seats: int) -> GameSummary:
    """A :class:`GameSummary` of a :class:`~gouji_dsl.tools.simulate.GameResult`."""
    seats = range(1, n_seats + 1)
    return GameSummary(
        index=index, places=tuple(int(res.places.get(s, 0)) for s in seats),
        scores=tuple(int(res.scores.get(s, 0)) for s in seats), sweep=bool(res.sweep),
        decisions=int(res.decisions), tricks=int(res.tricks), first_leader=res.first_leader,
        burn_attempts=len(res.burns), burn_successes=sum(1 for b in res.burns if b.get("success")),
        burn_failures=sum(1 for b in res.burns if b.get("failed")),
        revolutions=int(res.revolutions), redeals=int(res.redeals), design=getattr(res, "design", None))


# ------------------------------------------------------------------------------ per-game values
def team_of(seat: int, teams: int) -> int:
    """Seat ``s`` plays in team ``(s − 1) mod teams + 1`` (seats alternate between the teams)."""
    return (seat - 1) % max(1, teams) + 1


def team_scores(g: GameSummary, teams: int) -> dict[int, Number]:
    """Each team's mean seat score in game ``g``, exactly: a whole number where the mean is one
    (the common case: no Fraction arithmetic in the totals), else a Fraction."""
    by: dict[int, list[int]] = {}
    for s, v in enumerate(g.scores, start=1):
        by.setdefault(team_of(s, teams), []).append(v)
    return {t: _mean(v) for t, v in sorted(by.items())}


def _mean(v: list[int]) -> Number:
    q, r = divmod(sum(v), len(v))
    return q if r == 0 else Fraction(sum(v), len(v))


def spread(g: GameSummary, teams: int, by_team: dict[int, Number] | None = None) -> Number:
    """Highest minus lowest team score of game ``g`` (``by_team``: its :func:`team_scores`, if known)."""
    ts = list((team_scores(g, teams) if by_team is None else by_team).values())
    return max(ts) - min(ts) if ts else 0


def leader_team_score(g: GameSummary, teams: int, by_team: dict[int, Number] | None = None) -> Number | None:
    """The score of the first leader's team (None when no first leader was recorded)."""
    if g.first_leader is None:
        return None
    return (team_scores(g, teams) if by_team is None else by_team)[team_of(g.first_leader, teams)]


def _value(g: GameSummary, key: str, teams: int, by_team: dict[int, Number] | None = None) -> Number | None:
    if key == "decisions":
        return g.decisions
    if key == "tricks":
        return g.tricks
    if key == "score_spread":
        return spread(g, teams, by_team)
    if key == "first_leader_team_score":
        return leader_team_score(g, teams, by_team)
    if key == "burns_per_game":
        return g.burn_attempts
    raise KeyError(key)


def _flag(g: GameSummary, key: str) -> bool:
    if key == "sweep_rate":
        return g.sweep
    if key == "revolution_rate":
        return g.revolutions > 0
    if key == "redeal_rate":
        return g.redeals > 0
    if key == "burn_rate":
        return g.burn_attempts > 0
    raise KeyError(key)


def _fkey(x: Number) -> str:
    if isinstance(x, int):
        return str(x)
    f = Fraction(x)
    return str(f.numerator) if f.denominator == 1 else f"{f.numerator}/{f.denominator}"


# ------------------------------------------------------------------------------ totals
@dataclass
class SideTotals:
    """One ruleset's totals: ``means`` (per-game values), ``flags`` (yes/no per game), the burn
    success ratio, per-seat and per-team scores, places by seat, and the spread histogram."""

    n_seats: int
    teams: int
    games: int = 0
    means: dict[str, Sums] = field(default_factory=dict)
    flags: dict[str, Sums] = field(default_factory=dict)
    burn_success: Ratio = field(default_factory=Ratio)
    seat_score: list[Sums] = field(default_factory=list)
    team_score: list[Sums] = field(default_factory=list)
    places: list[list[int]] = field(default_factory=list)
    spread_histogram: dict[str, int] = field(default_factory=dict)
    replayed: int = 0  # games the native core left to Python in a whole-game batch (played there one by one)
    design: dict[str, Sums] = field(default_factory=dict)  # DESIGN_KEYS over the probed games

    def __post_init__(self) -> None:
        for k in DESIGN_KEYS:
            self.design.setdefault(k, Sums())
        for k in MEAN_KEYS:
            self.means.setdefault(k, Sums())
        for k in BINARY_KEYS:
            self.flags.setdefault(k, Sums())
        if not self.seat_score:
            self.seat_score = [Sums() for _ in range(self.n_seats)]
        if not self.team_score:
            self.team_score = [Sums() for _ in range(self.teams)]
        if not self.places:
            self.places = [[0] * self.n_seats for _ in range(self.n_seats)]

    def add_block(self, games: list[GameSummary]) -> None:
        """Add the games of one cluster (linked games: one match block)."""
        self.games += len(games)
        by_team = [team_scores(g, self.teams) for g in games]  # (once per game: exact fractions cost)
        for k in MEAN_KEYS:
            self.means[k].add_cluster(v for v in (_value(g, k, self.teams, ts) for g, ts in zip(games, by_team))
                                      if v is not None)
        for k in BINARY_KEYS:
            self.flags[k].add_cluster(int(_flag(g, k)) for g in games)
        self.burn_success.add_cluster((g.burn_successes, g.burn_attempts) for g in games)
        self._add_design(games, clustered=True)
        for s in range(self.n_seats):
            self.seat_score[s].add_cluster(g.scores[s] for g in games)
        for t in range(self.teams):
            self.team_score[t].add_cluster(ts.get(t + 1, 0) for ts in by_team)
        for g, ts in zip(games, by_team):
            for s, p in enumerate(g.places):
                if 1 <= p <= self.n_seats:
                    self.places[s][p - 1] += 1
            k = _fkey(spread(g, self.teams, ts))
            self.spread_histogram[k] = self.spread_histogram.get(k, 0) + 1

    def add_singles(self, games: list[GameSummary]) -> None:
        """``add_block([g])`` for each game ``g`` (every game its own cluster: games that each
        start a match), one pass per figure: the same totals."""
        teams = self.teams
        by_team = [team_scores(g, teams) for g in games]
        self.games += len(games)
        for k in MEAN_KEYS:
            self.means[k].add_singles(_value(g, k, teams, ts) for g, ts in zip(games, by_team))
        for k in BINARY_KEYS:
            self.flags[k].add_singles(int(_flag(g, k)) for g in games)
        for g in games:
            self.burn_success.add_cluster(((g.burn_successes, g.burn_attempts),))
        self._add_design(games, clustered=False)
        for s in range(self.n_seats):
            self.seat_score[s].add_singles(g.scores[s] for g in games)
        for t in range(teams):
            self.team_score[t].add_singles(ts.get(t + 1, 0) for ts in by_team)
        for g, ts in zip(games, by_team):
            for s, p in enumerate(g.places):
                if 1 <= p <= self.n_seats:
                    self.places[s][p - 1] += 1
            k = _fkey(spread(g, teams, ts))
            self.spread_histogram[k] = self.spread_histogram.get(k, 0) + 1

    def _add_design(self, games: list[GameSummary], clustered: bool) -> None:
        """The design metrics of the probed games among ``games`` (one cluster, or each its own)."""
        if not clustered:  # (every game its own cluster: the shares summed in whole millionths, one Fraction each)
            designs = [g.design for g in games if g.design is not None]
            for k, (top, bottom) in _SHARES.items():
                units = [_units(getattr(d, top), getattr(d, bottom)) for d in designs if getattr(d, bottom)]
                _add_units(self.design[k], units)
            self.design["lead_changes"].add_singles(d.lead_changes for d in designs)
            return
        values = [g.design.values() for g in games if g.design is not None]
        for k in DESIGN_KEYS:
            if values:
                self.design[k].add_cluster([v[k] for v in values if k in v])

    def merge(self, o: SideTotals) -> None:
        if (o.n_seats, o.teams) != (self.n_seats, self.teams):
            raise ValueError("cannot merge totals of rulesets with different seats or teams")
        self.games += o.games
        for k, s in o.means.items():
            self.means.setdefault(k, Sums()).merge(s)
        for k, s in o.flags.items():
            self.flags.setdefault(k, Sums()).merge(s)
        for k, s in o.design.items():
            self.design.setdefault(k, Sums()).merge(s)
        self.burn_success.merge(o.burn_success)
        for a, b in zip(self.seat_score, o.seat_score):
            a.merge(b)
        for a, b in zip(self.team_score, o.team_score):
            a.merge(b)
        for row, orow in zip(self.places, o.places):
            for i, c in enumerate(orow):
                row[i] += c
        for k, c in o.spread_histogram.items():
            self.spread_histogram[k] = self.spread_histogram.get(k, 0) + c
        self.replayed += o.replayed

    def to_json(self) -> dict[str, Any]:
        return {"n_seats": self.n_seats, "teams": self.teams, "games": self.games,
                "means": {k: v.to_json() for k, v in sorted(self.means.items())},
                "flags": {k: v.to_json() for k, v in sorted(self.flags.items())},
                "burn_success": self.burn_success.to_json(),
                "seat_score": [s.to_json() for s in self.seat_score],
                "team_score": [s.to_json() for s in self.team_score],
                "places": self.places,
                "spread_histogram": dict(sorted(self.spread_histogram.items(), key=lambda kv: Fraction(kv[0]))),
                **({"replayed": self.replayed} if self.replayed else {}),
                "design": {k: v.to_json() for k, v in sorted(self.design.items())}}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SideTotals:
        return cls(n_seats=int(d["n_seats"]), teams=int(d["teams"]), games=int(d["games"]),
                   means={k: Sums.from_json(v) for k, v in d["means"].items()},
                   flags={k: Sums.from_json(v) for k, v in d["flags"].items()},
                   burn_success=Ratio.from_json(d["burn_success"]),
                   seat_score=[Sums.from_json(v) for v in d["seat_score"]],
                   team_score=[Sums.from_json(v) for v in d["team_score"]],
                   places=[[int(c) for c in row] for row in d["places"]],
                   spread_histogram={str(k): int(v) for k, v in d["spread_histogram"].items()},
                   replayed=int(d.get("replayed", 0)),
                   design={k: Sums.from_json(v) for k, v in d.get("design", {}).items()})


@dataclass(frozen=True)
class Divergence:
    """A deal that ended differently under the two rulesets (ranked by Σ|Δscore|, then seats placed
    differently, then deal)."""

    seed: str
    index: int
    score_difference: int
    places_changed: int
    a: GameSummary
    b: GameSummary

    @property
    def sort_key(self) -> tuple[int, int, str, int]:
        return (-self.score_difference, -self.places_changed, self.seed, self.index)

    def to_json(self) -> dict[str, Any]:
        return {"seed": self.seed, "index": self.index, "score_difference": self.score_difference,
                "places_changed": self.places_changed, "a": self.a.to_dict(), "b": self.b.to_dict()}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Divergence:
        return cls(str(d["seed"]), int(d["index"]), int(d["score_difference"]), int(d["places_changed"]),
                   GameSummary.from_dict(d["a"]), GameSummary.from_dict(d["b"]))


MIRROR_GROUPS: tuple[tuple[str, ...], ...] = (MEAN_KEYS, ("sweep_rate", "revolution_rate", "redeal_rate"))
"""The rows of a paired report whose tests are one function of the per-deal differences ``b − a`` (the
paired z-test of the mean figures and each seat's score ``seat_score.N``, which joins the first group;
McNemar's test of the yes/no figures): two rows of one group whose differences are equal, or opposite,
on every deal have the same p-value by construction — one test (:class:`Mirrors`)."""


def _pair_key(x: str, y: str) -> str:
    return f"{x}|{y}"


@dataclass
class Mirrors:
    """Which rows of a paired run mirror another on every deal added: ``same`` holds ``"X|Y"`` when
    row Y's per-deal difference equalled row X's on every deal, ``opposite`` when it was X's negative
    (X before Y in report order: :data:`MIRROR_GROUPS`, seats after the mean figures). ``None``: no deal
    yet (every pair still holds). Merged by intersection; a chunk without them (written before they
    were kept) holds none, so a merge with it keeps none (each row its own test: conservative)."""

    same: set[str] | None = None
    opposite: set[str] | None = None

    @staticmethod
    def rows(n_seats: int) -> list[list[str]]:
        """The groups of rows compared: the mean figures and each seat's score; the yes/no figures."""
        return [list(MIRROR_GROUPS[0]) + [f"seat_score.{s}" for s in range(1, n_seats + 1)], list(MIRROR_GROUPS[1])]

    def add(self, values: dict[str, Number | None], groups: list[list[str]]) -> None:
        """Add one deal's differences by row (None: the row has no value in this deal)."""
        if self.same is None or self.opposite is None:
            self.same, self.opposite = set(), set()
            for g in groups:
                for i, x in enumerate(g):
                    for y in g[i + 1:]:
                        self.same.add(_pair_key(x, y))
                        self.opposite.add(_pair_key(x, y))
        for k in list(self.same):
            x, _b, y = k.partition("|")
            if values.get(x) != values.get(y):
                self.same.discard(k)
        for k in list(self.opposite):
            x, _b, y = k.partition("|")
            vx, vy = values.get(x), values.get(y)
            if (vx is None) != (vy is None) or (vx is not None and vy is not None and vx != -vy):
                self.opposite.discard(k)

    def merge(self, o: Mirrors) -> None:
        if o.same is not None:
            self.same = set(o.same) if self.same is None else self.same & o.same
        if o.opposite is not None:
            self.opposite = set(o.opposite) if self.opposite is None else self.opposite & o.opposite

    def of(self, row: str, order: list[str]) -> tuple[str, int] | None:
        """The earliest row of ``order`` before ``row`` that ``row`` mirrors, with the sign (1: equal,
        −1: opposite); None when it mirrors none."""
        for x in order:
            if x == row:
                return None
            k = _pair_key(x, row)
            if self.same is not None and k in self.same:
                return x, 1
            if self.opposite is not None and k in self.opposite:
                return x, -1
        return None

    def to_json(self) -> dict[str, Any] | None:
        if self.same is None or self.opposite is None:
            return None
        return {"same": sorted(self.same), "opposite": sorted(self.opposite)}

    @classmethod
    def from_json(cls, d: dict[str, Any] | None) -> Mirrors:
        if d is None:
            return cls(set(), set())  # (an older chunk: none known)
        return cls(set(d["same"]), set(d["opposite"]))


@dataclass
class PairTotals:
    """Totals of the same deals under rulesets A and B: each side's :class:`SideTotals`, the per-deal
    differences ``b − a`` of the mean figures and seat scores, the 2×2 tables of the yes/no
    figures, how many deals ended with different places, and the ``top`` most divergent deals."""

    a: SideTotals
    b: SideTotals
    top: int = 5
    diffs: dict[str, Sums] = field(default_factory=dict)
    seat_diffs: list[Sums] = field(default_factory=list)
    binary: dict[str, PairedBinary] = field(default_factory=dict)
    outcome_changed: Sums = field(default_factory=Sums)
    divergent: list[Divergence] = field(default_factory=list)
    mirrors: Mirrors = field(default_factory=Mirrors)  # rows whose differences mirror another's on every deal

    def __post_init__(self) -> None:
        for k in MEAN_KEYS + DESIGN_KEYS:
            self.diffs.setdefault(k, Sums())
        for k in BINARY_KEYS:
            self.binary.setdefault(k, PairedBinary())
        if not self.seat_diffs:
            self.seat_diffs = [Sums() for _ in range(min(self.a.n_seats, self.b.n_seats))]

    @property
    def games(self) -> int:
        return self.a.games

    def add_block(self, pairs: list[tuple[GameSummary, GameSummary]], seed: Any,
                  lengths: tuple[int, int] = (0, 0)) -> None:
        """Add the deals of one cluster, each played under A and under B. A paired cluster holds whole
        matches of both rulesets; each side's own figures are clustered by its own matches
        (``lengths``: games per match of A and B; 0: the whole block)."""
        self._add_sides(pairs, lengths)
        per_deal = self._add_mean_differences(pairs)
        self._add_mirrors(pairs, per_deal)
        both = [(x.design.values(), y.design.values()) for x, y in pairs if x.design is not None and y.design is not None]
        for k in DESIGN_KEYS if both else ():
            self.diffs[k].add_cluster([vy[k] - vx[k] for vx, vy in both if k in vx and k in vy])
        for k in BINARY_KEYS:
            self.binary[k].add_cluster([(_flag(x, k), _flag(y, k)) for x, y in pairs])
        for s, d in enumerate(self.seat_diffs):
            d.add_cluster(y.scores[s] - x.scores[s] for x, y in pairs)
        self.outcome_changed.add_cluster(int(x.places != y.places) for x, y in pairs)
        self._add_divergent(pairs, seed)

    def _add_sides(self, pairs: list[tuple[GameSummary, GameSummary]], lengths: tuple[int, int]) -> None:
        """Each side's own figures, clustered by its own matches."""
        for side, games, length in ((self.a, [x for x, _y in pairs], lengths[0]),
                                    (self.b, [y for _x, y in pairs], lengths[1])):
            step = length or len(games)
            for i in range(0, len(games), step):
                side.add_block(games[i:i + step])

    def _add_mean_differences(self, pairs: list[tuple[GameSummary, GameSummary]]) -> list[dict[str, Number | None]]:
        """The per-deal differences b − a of the mean figures (added as one cluster each); each deal's row."""
        ta, tb = self.a.teams, self.b.teams
        per_deal: list[dict[str, Number | None]] = [{} for _ in pairs]
        for k in MEAN_KEYS:
            vals = []
            for (x, y), row in zip(pairs, per_deal):
                va, vb = _value(x, k, ta), _value(y, k, tb)
                row[k] = None if va is None or vb is None else vb - va
                if va is not None and vb is not None:
                    vals.append(vb - va)
            self.diffs[k].add_cluster(vals)
        return per_deal

    def _add_mirrors(self, pairs: list[tuple[GameSummary, GameSummary]], per_deal: list[dict[str, Number | None]]) -> None:
        """Each deal's row of differences (with the seat scores and the mirrored flags) to the mirror check."""
        groups = Mirrors.rows(len(self.seat_diffs))
        for (x, y), row in zip(pairs, per_deal):
            for s in range(len(self.seat_diffs)):
                row[f"seat_score.{s + 1}"] = y.scores[s] - x.scores[s]
            for k in MIRROR_GROUPS[1]:
                row[k] = int(_flag(y, k)) - int(_flag(x, k))
            self.mirrors.add(row, groups)

    def _add_divergent(self, pairs: list[tuple[GameSummary, GameSummary]], seed: Any) -> None:
        """The deals of the cluster that ended differently, kept if among the ``top`` most divergent."""
        new = []
        for x, y in pairs:
            ds = sum(abs(p - q) for p, q in zip(x.scores, y.scores))
            dp = sum(1 for p, q in zip(x.places, y.places) if p != q)
            if ds or dp:
                new.append(Divergence(str(seed), x.index, ds, dp, x, y))
        if new:
            self._keep(self.divergent + new)

    def _keep(self, items: list[Divergence]) -> None:
        seen: dict[tuple[str, int], Divergence] = {}
        for d in items:
            seen.setdefault((d.seed, d.index), d)
        self.divergent = sorted(seen.values(), key=lambda d: d.sort_key)[:max(0, self.top)]

    def merge(self, o: PairTotals) -> None:
        self.a.merge(o.a)
        self.b.merge(o.b)
        for k, s in o.diffs.items():
            self.diffs.setdefault(k, Sums()).merge(s)
        for k, t in o.binary.items():
            self.binary.setdefault(k, PairedBinary()).merge(t)
        for x, y in zip(self.seat_diffs, o.seat_diffs):
            x.merge(y)
        self.outcome_changed.merge(o.outcome_changed)
        self.mirrors.merge(o.mirrors)
        self._keep(self.divergent + o.divergent)

    def to_json(self) -> dict[str, Any]:
        return {"a": self.a.to_json(), "b": self.b.to_json(), "top": self.top,
                "diffs": {k: v.to_json() for k, v in sorted(self.diffs.items())},
                "seat_diffs": [s.to_json() for s in self.seat_diffs],
                "binary": {k: v.to_json() for k, v in sorted(self.binary.items())},
                "outcome_changed": self.outcome_changed.to_json(),
                "divergent": [d.to_json() for d in self.divergent],
                **({"mirrors": m} if (m := self.mirrors.to_json()) is not None else {})}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> PairTotals:
        return cls(a=SideTotals.from_json(d["a"]), b=SideTotals.from_json(d["b"]), top=int(d["top"]),
                   diffs={k: Sums.from_json(v) for k, v in d["diffs"].items()},
                   seat_diffs=[Sums.from_json(v) for v in d["seat_diffs"]],
                   binary={k: PairedBinary.from_json(v) for k, v in d["binary"].items()},
                   outcome_changed=Sums.from_json(d["outcome_changed"]),
                   divergent=[Divergence.from_json(x) for x in d["divergent"]], mirrors=Mirrors.from_json(d.get("mirrors")))


@dataclass
class SweepTotals:
    """Totals of a sweep (``gouji sweep``): the same deals under a base ruleset and each point of a
    grid; ``points[k]`` is the :class:`PairTotals` of the base (A) against point ``k`` (B). The base's
    games are played once and added to every pair."""

    points: list[PairTotals]

    @property
    def games(self) -> int:
        return self.points[0].games if self.points else 0

    def add_block(self, base: list[GameSummary], points: list[list[GameSummary]], seed: Any,
                  lengths: tuple[int, ...]) -> None:
        """Add one cluster: the base's games and each point's games of the same deals (``lengths``: games
        per match of the base, then of each point)."""
        for k, (t, games) in enumerate(zip(self.points, points)):
            t.add_block(list(zip(base, games)), seed, (lengths[0], lengths[k + 1]))

    def merge(self, o: SweepTotals) -> None:
        if len(o.points) != len(self.points):
            raise ValueError("cannot merge sweeps of different grids")
        for a, b in zip(self.points, o.points):
            a.merge(b)

    def to_json(self) -> dict[str, Any]:
        return {"points": [t.to_json() for t in self.points]}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> SweepTotals:
        return cls([PairTotals.from_json(x) for x in d["points"]])


__all__ = ["SIDE_FIGURES", "DIFF_FIGURES", "DESIGN_KEYS", "MIRROR_GROUPS", "Mirrors", "PROBE_EVERY", "MIN_PROBED", "probed", "Design", "GameSummary",
           "summarize_game", "SideTotals", "PairTotals", "SweepTotals",
           "Divergence", "team_of", "team_scores", "spread", "leader_team_score"]
