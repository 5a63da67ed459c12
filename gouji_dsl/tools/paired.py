"""Paired simulation: the same seeded deals played under two rulesets, and the report of the outcomes.

:func:`paired_simulation` plays deal ``i`` (``i = 0 .. games-1``) of run ``seed`` under both rulesets
through :mod:`gouji_dsl.tools.runs` (chunked, streaming, any executor), so the two games of a pair
are dealt the same cards whenever the two rulesets have the same pack. As ``gouji simulate`` does,
each ruleset's games are chained into matches of its ``match_length`` (tribute between games);
``matches=False`` plays every deal as a first game.

:func:`build_report` turns merged totals (of one run, or of many folders: ``gouji report``) into a
:class:`PairedReport`, the one object every view of a comparison reads (CLI text / markdown /
JSON, the compare screen's table and charts). Its statistics (see :data:`METHODS`):

- per ruleset: means with cluster-robust 95 % intervals (clusters: the deals of one match block,
  linked by tribute; one deal per cluster without matches), rates with Wilson intervals on
  effective counts (Rao–Scott design effect);
- differences ``B − A``: paired means of per-deal differences (cluster-robust, z-test, ``d_z``);
  paired rates with Newcombe's square-and-add interval for paired data, McNemar's test and
  Cohen's ``h``; the burn success rate (attempts are not paired) with Newcombe's hybrid interval,
  a two-proportion z-test and ``h``;
- Holm's adjustment across the report's family of differences (:data:`FAMILY`: every figure of
  the table and each seat's score): ``p_adjusted`` in JSON, ``*`` only when it is below 0.05.
"""
from __future__ import annotations

import json
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from fractions import Fraction
from pathlib import Path
from typing import Any

from gouji_dsl.atomic import atomic_write
from gouji_dsl.bots import parse_bot_spec
from gouji_dsl.engine.interpreter import match_length
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.ruleset.graph import RuleGraph, compile_ruleset
from gouji_dsl.ruleset.spec import ResolvedRuleset
from gouji_dsl.tools.compare import _labels, _md, _pad, disp_width, wrap
from gouji_dsl.tools.compare import _resolved as compare_resolved
from gouji_dsl.tools.figures import (
    DESIGN_KEYS,
    DIFF_FIGURES,
    MIN_PROBED,
    PROBE_EVERY,
    SIDE_FIGURES,
    GameSummary,
    PairTotals,
    SideTotals,
    figure_label,
    place_headers,
)
from gouji_dsl.tools.played import engine_name, report_line, why_not_native, with_played_by
from gouji_dsl.tools.runchunks import Runner
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, Executor
from gouji_dsl.tools.runs import RunResult, Until, execute, until_block
from gouji_dsl.tools.runspec import RunSpec, SimulationCancelled, SimulationError
from gouji_dsl.tools.simulate import engine_summary, teams
from gouji_dsl.tools.stats import (
    ALPHA,
    Estimate,
    Sums,
    holm,
    mean_estimate,
    paired_estimate,
    paired_rate_estimate,
    rate_estimate,
    ratio_difference,
    ratio_estimate,
)

FAMILY_NOTE = N_("the figures of the table (each seat's mean score included)")

#: the confidence level the intervals are given at (the "1.96" of :data:`~gouji_dsl.tools.stats.Z95`)
LEVEL = "95%"

_METHODS: tuple[str, ...] = (
    N_("{level} intervals. Means: mean ± 1.96·SE with a cluster-robust SE (clusters: the deals of one match "
       "block, linked by tribute; one deal per cluster without matches). Rates: Wilson score intervals, "
       "on effective counts when clustering adds variance (Rao–Scott design effect)."),
    N_("B − A: mean of per-deal differences (paired; cluster-robust; z-test) with effect size d_z = mean/sd "
       "of the differences; yes/no figures: Newcombe's square-and-add interval for paired proportions, "
       "McNemar's test, Cohen's h; burn success rate (attempts are not paired): Newcombe's hybrid score "
       "interval, two-proportion z-test, Cohen's h."),
    N_("Holm's adjustment across {family}: * marks a difference whose adjusted p < {alpha}; "
       "† an interval that excludes 0 but is not significant after the adjustment."),
)
_METHODS_SHORT = N_("{level} intervals (means: cluster-robust by match; rates: Wilson). B − A: * significant after "
                    "Holm's adjustment across the table, † interval excludes 0 but not significant after it; effect: "
                    "d_z for means, Cohen's h for rates.")


def methods() -> tuple[str, ...]:
    """The statistics footer in the active language (:data:`METHODS` is the English, kept in the JSON)."""
    return tuple(_(m).format(level=LEVEL, family=_(FAMILY_NOTE), alpha=ALPHA) for m in _METHODS)


def methods_short() -> str:
    """:data:`METHODS_SHORT` in the active language."""
    return _(_METHODS_SHORT).format(level=LEVEL)


METHODS: tuple[str, ...] = tuple(m.format(level=LEVEL, family=FAMILY_NOTE, alpha=ALPHA) for m in _METHODS)
"""The footer every report prints (text, markdown) and the README explains (English: the report's JSON
keeps it; reports show :func:`methods`)."""

METHODS_SHORT = _METHODS_SHORT.format(level=LEVEL)
"""The same in two lines, for the compare screen's caption."""


# ==================================================================================================
# data


@dataclass(frozen=True)
class SideStats:
    """One ruleset's figures over the paired games, each an :class:`~gouji_dsl.tools.stats.Estimate`.
    ``seat_score[s]`` is seat ``s``'s mean score; ``place_distribution[s][p]`` the rate of seat
    ``s`` finishing in place ``p``; ``spread_histogram`` maps a team score spread to its games."""

    name: str
    games: int
    decisions: Estimate
    tricks: Estimate
    score_spread: Estimate
    first_leader_team_score: Estimate
    sweep_rate: Estimate
    burns_per_game: Estimate
    burn_success_rate: Estimate
    revolution_rate: Estimate
    redeal_rate: Estimate
    seat_score: dict[int, Estimate]
    place_distribution: dict[int, dict[int, Estimate]]
    burn_attempts: int = 0
    burn_successes: int = 0
    spread_histogram: dict[Fraction, int] = field(default_factory=dict)
    design: dict[str, Estimate] = field(default_factory=dict)  # the design metrics (probed deals)

    def figure(self, key: str) -> Estimate:
        return self.design[key] if key in self.design else getattr(self, key)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "games": self.games,
                               "burn_attempts": self.burn_attempts, "burn_successes": self.burn_successes}
        for key, _label, _kind in SIDE_FIGURES:
            out[key] = self.figure(key).to_dict()
        out["seat_score"] = {str(s): e.to_dict() for s, e in self.seat_score.items()}
        out["place_distribution"] = {str(s): {str(p): e.to_dict() for p, e in d.items()}
                                     for s, d in self.place_distribution.items()}
        out["spread_histogram"] = {_fstr(k): v for k, v in sorted(self.spread_histogram.items())}
        return out


def _fstr(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"


@dataclass(frozen=True)
class DivergentDeal:
    """A deal whose outcome differs between the two rulesets, with both full game records (when the
    rulesets were at hand to re-play it).

    ``score_difference`` = Σ over seats |score_b − score_a|; ``places_changed`` = seats whose place
    differs. ``match_start_a``/``_b``: the first game of the match each game belongs to."""

    rank: int
    index: int
    deal: str
    score_difference: int
    places_changed: int
    a: GameSummary
    b: GameSummary
    record_a: list[dict[str, Any]] = field(default_factory=list, repr=False)
    record_b: list[dict[str, Any]] = field(default_factory=list, repr=False)
    match_start_a: int = 0
    match_start_b: int = 0
    seed: Any = None

    def to_dict(self, records: bool = False) -> dict[str, Any]:
        out = {"rank": self.rank, "index": self.index, "deal": self.deal, "score_difference": self.score_difference,
               "places_changed": self.places_changed, "a": self.a.to_dict(), "b": self.b.to_dict(),
               "match_start_a": self.match_start_a, "match_start_b": self.match_start_b}
        if records:
            out["record_a"], out["record_b"] = self.record_a, self.record_b
        return out


@dataclass
class PairedReport:
    """A paired comparison's figures (from :func:`build_report`).

    ``differences`` maps each key of :data:`DIFF_FIGURES` to the difference ``b − a`` (with ``p``,
    ``p_adjusted``, ``effect``), and ``differences["seat_score"]`` maps seat → paired difference of
    that seat's score. ``same_deck`` is false when the two packs differ (then game ``i`` is only
    seeded alike, not dealt alike). ``seed`` is a list when folders of several seeds were merged.
    ``match_length_a``/``_b``: games per match as played (1: every deal a first game).
    ``totals``: the merged running totals the figures come from."""

    a_name: str
    b_name: str
    a_path: str
    b_path: str
    games: int
    seed: Any
    bots: str | list[str]
    workers: int
    elapsed_s: float
    same_deck: bool
    a: SideStats
    b: SideStats
    differences: dict[str, Any]
    divergent: list[DivergentDeal]
    match_length_a: int = 1
    match_length_b: int = 1
    executor: str = "local"
    chunk_size: int = 0
    stopped_by: str = "games"
    missing: list[str] = field(default_factory=list)
    totals: PairTotals | None = field(default=None, repr=False)
    engines: dict[str, Any] = field(default_factory=dict)  # side → engine_summary (which engine played it)
    resumed_games: int = 0  # deals read back from the output folder (--resume), not played in elapsed_s
    precision: dict[str, Any] | None = None  # --until-halfwidth: figure, target, half_width, reached
    in_progress: list[str] = field(default_factory=list)  # gouji report: folders a run is still writing

    @property
    def games_per_s(self) -> float:
        """Games played per second in this run (deals read back by --resume do not count)."""
        played = self.games - self.resumed_games
        return 2 * played / self.elapsed_s if self.elapsed_s > 0 and played > 0 else 0.0

    @property
    def bots_text(self) -> str:
        """The bots as ``--bots`` takes them: one name for every seat, or one per seat."""
        return self.bots if isinstance(self.bots, str) else ",".join(self.bots)

    @property
    def labels(self) -> tuple[str, str]:
        return _labels(self.a_name, self.b_name)

    def family(self) -> list[tuple[str, Estimate]]:
        """The differences Holm's adjustment is made across, as (key, estimate)."""
        out = [(k, self.differences[k]) for k, _, _ in SIDE_FIGURES]
        out += [(f"seat_score.{s}", e) for s, e in self.differences["seat_score"].items()]
        return out

    def figure(self, name: str) -> Estimate:
        """A difference by name: a key of :data:`DIFF_FIGURES` or ``seat_score.N``."""
        return difference_named(self.differences, name)

    def to_dict(self, records: bool = False, timing: bool = True) -> dict[str, Any]:
        """JSON-ready. Keys: ``a, b, games, seed, bots, same_deck, match_length, stats, differences,
        divergent, statistics`` (+ ``workers, elapsed_s, executor, chunk_size`` with ``timing``:
        they vary from run to run, so ``timing=False`` gives what two runs must agree on)."""
        diffs: dict[str, Any] = {k: v.to_dict() for k, v in self.differences.items() if k != "seat_score"}
        diffs["seat_score"] = {str(s): e.to_dict() for s, e in self.differences["seat_score"].items()}
        out: dict[str, Any] = {
            "a": {"name": self.a_name, "path": self.a_path}, "b": {"name": self.b_name, "path": self.b_path},
            "games": self.games, "seed": self.seed, "bots": self.bots, "same_deck": self.same_deck,
            "match_length": {"a": self.match_length_a, "b": self.match_length_b},
            "stats": {"a": self.a.to_dict(), "b": self.b.to_dict()}, "differences": diffs,
            "divergent": [d.to_dict(records) for d in self.divergent],
            "statistics": {"alpha": ALPHA, "adjustment": "holm", "family": [k for k, _ in self.family()],
                           "methods": list(METHODS)},
        }
        if self.missing:
            out["missing"] = list(self.missing)
        if self.in_progress:
            out["in_progress"] = list(self.in_progress)
        if timing:
            out["workers"], out["elapsed_s"] = self.workers, round(self.elapsed_s, 3)
            out["executor"], out["chunk_size"] = self.executor, self.chunk_size
            out["resumed_games"], out["games_per_s"] = self.resumed_games, round(self.games_per_s, 2)
            if self.engines:
                out["engine"] = dict(self.engines)
        if self.precision is not None:
            out["until"] = dict(self.precision)
        return out


def difference_named(differences: dict[str, Any], name: str) -> Estimate:
    if name.startswith("seat_score."):
        try:
            return differences["seat_score"][int(name.split(".", 1)[1])]
        except (ValueError, KeyError):
            pass
    elif name in differences and name != "seat_score":
        return differences[name]
    raise KeyError(name)


def figure_names(n_seats: int = 6) -> list[str]:
    """The names ``--figure`` accepts for a paired run."""
    return [k for k, _, _ in DIFF_FIGURES] + [f"seat_score.{s}" for s in range(1, n_seats + 1)]


# ==================================================================================================
# figures from totals


def side_stats(name: str, t: SideTotals) -> SideStats:
    seats = range(1, t.n_seats + 1)
    n = t.games

    def rate(key: str) -> Estimate:
        s = t.flags[key]
        return rate_estimate(int(s.s), int(n), s.deff())

    return SideStats(
        name=name, games=n,
        decisions=mean_estimate(t.means["decisions"]),
        tricks=mean_estimate(t.means["tricks"]),
        score_spread=mean_estimate(t.means["score_spread"]),
        first_leader_team_score=mean_estimate(t.means["first_leader_team_score"]),
        sweep_rate=rate("sweep_rate"),
        burns_per_game=mean_estimate(t.means["burns_per_game"]),
        burn_success_rate=ratio_estimate(t.burn_success),
        revolution_rate=rate("revolution_rate"),
        redeal_rate=rate("redeal_rate"),
        seat_score={s: mean_estimate(t.seat_score[s - 1]) for s in seats},
        place_distribution={s: {p: rate_estimate(t.places[s - 1][p - 1], n) for p in seats} for s in seats},
        burn_attempts=t.burn_success.x, burn_successes=t.burn_success.y,
        spread_histogram={Fraction(k): v for k, v in t.spread_histogram.items()},
        design={k: design_estimate(t.design[k]) for k in DESIGN_KEYS})


def design_estimate(s: Sums, paired: bool = False) -> Estimate:
    """A design metric (its mean, or with ``paired`` its mean difference b − a); from fewer than
    :data:`~gouji_dsl.tools.figures.MIN_PROBED` probed deals its value only (no interval, test or mark:
    out of Holm's family)."""
    e = paired_estimate(s) if paired else mean_estimate(s)
    return e if s.clusters >= MIN_PROBED else Estimate(e.value, math.nan, math.nan, e.n, e.kind)


def differences(t: PairTotals, adjust: bool = True) -> dict[str, Any]:
    """Every difference ``b − a`` with its test, Holm-adjusted across the family (``adjust=False``: not
    adjusted, for a larger family: ``gouji sweep`` adjusts across every point's)."""
    out: dict[str, Any] = {k: paired_estimate(t.diffs[k]) for k in
                           ("decisions", "tricks", "score_spread", "first_leader_team_score", "burns_per_game")}
    for k in ("sweep_rate", "revolution_rate", "redeal_rate"):
        out[k] = paired_rate_estimate(t.binary[k])
    out["burn_success_rate"] = ratio_difference(t.a.burn_success, t.b.burn_success)
    for k in DESIGN_KEYS:
        out[k] = design_estimate(t.diffs[k], paired=True)
    out["outcome_changed"] = rate_estimate(int(t.outcome_changed.s), t.outcome_changed.n, t.outcome_changed.deff())
    out["seat_score"] = {s: paired_estimate(d) for s, d in enumerate(t.seat_diffs, start=1)}
    if not adjust:
        return out
    keys: list[str | tuple[str, int]] = [k for k, _, _ in SIDE_FIGURES]
    keys += [("seat", s) for s in out["seat_score"]]
    ests = [out[k] if isinstance(k, str) else out["seat_score"][k[1]] for k in keys]
    adj = holm([e.p if e.p is not None else math.nan for e in ests])
    for key, e, a in zip(keys, ests, adj):
        if math.isnan(a):
            continue
        if isinstance(key, str):
            out[key] = e.adjusted(a)
        else:
            out["seat_score"][key[1]] = e.adjusted(a)
    return out


def _deck_key(g: RuleGraph) -> tuple[int, tuple[str, ...]]:
    return g.n_seats, tuple(str(c) for c in g.model.deck())


def same_deck(ga: RuleGraph, gb: RuleGraph) -> bool:
    """True when the two rulesets deal the same pack to as many seats: game ``i`` of a seed is then
    dealt alike under both (paired by deal); else it is only seeded alike (paired by seed)."""
    return _deck_key(ga) == _deck_key(gb)


def build_report(totals: PairTotals, *, names: tuple[str, str], paths: tuple[str, str], seed: Any,
                 bots: Any, match_lengths: tuple[int, int], same_deck: bool, workers: int = 1,
                 elapsed_s: float = 0.0, executor: str = "local", chunk_size: int = 0,
                 stopped_by: str = "games", missing: list[str] | None = None,
                 replay: tuple[RuleGraph, RuleGraph] | None = None, matches: bool = True,
                 engine: str = DEFAULT_ENGINE) -> PairedReport:
    """The :class:`PairedReport` of merged ``totals``. With ``replay`` (the two compiled rulesets) the
    divergent deals are played again to attach both game records."""
    deals = []
    runners = None
    if replay is not None:
        runners = tuple(Runner(g, RunSpec((g.resolved,), seed, _bots_tuple(bots), matches, engine))
                        for g in replay)
    for rank, d in enumerate(totals.divergent, start=1):
        rec_a: list[dict[str, Any]] = []
        rec_b: list[dict[str, Any]] = []
        if runners is not None:
            for r in runners:
                r.spec = replace(r.spec, seed=_seed_value(d.seed, seed))
            rec_a = runners[0].replay(d.index).record
            rec_b = runners[1].replay(d.index).record
        la, lb = match_lengths
        deals.append(DivergentDeal(rank, d.index, f"{d.seed}:{d.index}", d.score_difference, d.places_changed,
                                   d.a, d.b, rec_a, rec_b, d.index - d.index % la, d.index - d.index % lb,
                                   _seed_value(d.seed, seed)))
    return PairedReport(names[0], names[1], paths[0], paths[1], totals.games, seed,
                        bots if isinstance(bots, str) else list(bots), workers, elapsed_s, same_deck,
                        side_stats(names[0], totals.a), side_stats(names[1], totals.b), differences(totals), deals,
                        match_lengths[0], match_lengths[1], executor, chunk_size, stopped_by, list(missing or []),
                        totals, _engines(replay, engine, bots, match_lengths))


def _engines(graphs: tuple[RuleGraph, RuleGraph] | None, engine: str, bots: Any = "random",
             lengths: tuple[int, int] = (1, 1)) -> dict[str, Any]:
    """Which engine played each side (when the compiled rulesets are at hand), each side with its
    own reasons; ``lengths``: each side's games per match as played (1: single games). Where they
    differ the deals are played one by one on both sides (runchunks.play_chunk), so neither side's games
    are played whole in the core."""
    if graphs is None:
        return {}
    out = {}
    for side, g, n in zip(("a", "b"), graphs, lengths):
        e = engine_summary(g, engine, bots, n)
        if e.get("whole_games") == "native" and lengths[0] != lengths[1]:
            e.update(whole_games="per_game", games_fallback=_(
                "the two rulesets' matches differ in length ({a} and {b} games): the deals are played one by one "
                "on both sides, their play phase natively").format(a=lengths[0], b=lengths[1]))
        out[side] = with_played_by(e)
    return out


def engine_notes(r: PairedReport) -> list[str]:
    """A sentence for each side whose games the native core did not play whole, saying how far and
    why (:func:`~gouji_dsl.tools.played.why_not_native`), led by its label; one for both sides when
    they agree."""
    labels = dict(zip(("a", "b"), r.labels))
    if getattr(r, "executor", None) == "report":  # (gouji report DIR: no timing line names the engine; what the chunks recorded)
        lines = {side: report_line(e) for side, e in sorted(r.engines.items())}
        if len(set(lines.values())) == 1:
            return [next(iter(lines.values()))]
        return [f"{labels[side]}: {line}" for side, line in lines.items()]
    said = {side: why_not_native(e) for side, e in sorted(r.engines.items())}
    if len(said) == 2 and said["a"] is not None and said["a"] == said["b"]:
        return [_("engine, both sides: {why}").format(why=said["a"])]
    return [_("engine, {label}: {why}").format(label=labels[side], why=why) for side, why in said.items()
            if why is not None]


def _bots_tuple(bots: Any) -> str | tuple[str, ...]:
    return bots if isinstance(bots, str) else tuple(bots)


def _seed_value(text: str, seed: Any) -> Any:
    """The seed of a divergent deal as the run was given it (seeds are keyed by their text)."""
    for s in seed if isinstance(seed, list) else [seed]:
        if str(s) == text:
            return s
    return text


# ==================================================================================================
# running


def _resolved(x: Any) -> ResolvedRuleset:
    return compare_resolved(x)


def _graph(x: Any) -> RuleGraph:
    if isinstance(x, RuleGraph):
        return x
    return compile_ruleset(_resolved(x))


def check_bots(bots: str | list[str] | tuple[str, ...], n_seats: int) -> None:
    """ValueError for an unknown bot spec or a per-seat list of the wrong length."""
    names = [bots] if isinstance(bots, str) else list(bots)
    for name in names:
        parse_bot_spec(name)
    if not isinstance(bots, str) and len(names) != n_seats:
        raise ValueError(_("one bot per seat: {n_seats} names expected, got {n}").format(n_seats=n_seats, n=len(names)))


def paired_simulation(a: RuleGraph | ResolvedRuleset | str, b: RuleGraph | ResolvedRuleset | str, games: int,
                      seed: Any, bots: str | list[str] = "random", workers: int = 2,
                      progress: Callable[[int, int], None] | None = None, *, top: int = 5,
                      matches: bool = True, cancel: threading.Event | None = None,
                      executor: str | None = None, scheduler: str | None = None, chunk_size: int | None = None,
                      out: str | os.PathLike[str] | None = None, resume: bool = False,
                      until: Until | None = None, engine: str = DEFAULT_ENGINE,
                      records: bool = True) -> PairedReport:
    """Play the same ``games`` seeded deals under ``a`` and ``b`` and compare the outcomes.

    ``a``/``b``: compiled graphs, resolved rulesets (e.g. an editor's unsaved buffer via
    ``gouji_dsl.ruleset.load.resolving.resolve_text``), or bundled names / paths. ``bots``: a bot name or one per seat.
    ``executor``: ``"local"``, ``"process"`` (``workers`` spawn processes; the default when
    ``workers`` > 1) or ``"dask"`` (a local Dask cluster of ``workers`` processes, or the scheduler at
    ``scheduler``). ``progress(done, total)`` is called as deals complete (from the calling thread).
    ``top``: how many divergent deals to keep (with ``records``, re-played here to get their
    records). ``matches``: chain each ruleset's games into matches (tribute between games).
    ``cancel``: a :class:`threading.Event`; when set, the run stops (:class:`SimulationCancelled`).
    ``out``/``resume``/``until``/``chunk_size``: see :func:`gouji_dsl.tools.runs.execute`.

    The report depends only on the rulesets, ``games``, ``seed``, ``bots`` and ``matches`` — not on
    the executor, ``workers`` or the chunk size. Raises :class:`GoujiError` for a bad ruleset,
    :class:`SimulationError` when a game cannot be finished, ``ValueError`` for bad arguments."""
    if games < 1:
        raise ValueError(_("games must be at least 1"))
    ga, gb = _graph(a), _graph(b)
    check_bots(bots, ga.n_seats)
    workers = max(1, int(workers))
    if executor is None:
        executor = Executor.PROCESS if workers > 1 and games > 1 else Executor.LOCAL
    spec = RunSpec((ga.resolved, gb.resolved), seed, _bots_tuple(bots), matches, engine, top)
    hw = None
    if until is not None:
        name = until.figure or "score_spread"
        difference_named(differences(PairTotals(_side(ga), _side(gb))), name)  # KeyError for a bad name

        def hw(t: Any, name: str = name) -> float:
            return difference_named(differences(t), name).half_width

    res: RunResult = execute(spec, games, executor=executor, workers=min(workers, games), chunk_size=chunk_size,
                             out=out, resume=resume, scheduler=scheduler, until=until, halfwidth_of=hw,
                             progress=progress, cancel=cancel, graphs=(ga, gb))
    lengths = (match_length(ga) if matches else 1, match_length(gb) if matches else 1)
    assert isinstance(res.totals, PairTotals)
    report = build_report(res.totals, names=(ga.name, gb.name), paths=(ga.resolved.path, gb.resolved.path),
                          seed=seed, bots=bots, match_lengths=lengths, same_deck=same_deck(ga, gb),
                          workers=res.workers, elapsed_s=res.elapsed_s, executor=res.executor,
                          chunk_size=res.chunk_size, stopped_by=res.stopped_by,
                          replay=(ga, gb) if records else None, matches=matches, engine=engine)
    report.resumed_games = res.resumed_games
    if until is not None and hw is not None:
        report.precision = precision(until, hw(res.totals))
    return report


def precision(until: Until, half_width: float) -> dict[str, Any]:
    """What ``--until-halfwidth`` asked and got: the figure, the target, the interval's half-width at
    the end and whether the target was ``reached`` (False: --max-games came first)."""
    return until_block(until, half_width)


def precision_text(p: dict[str, Any], games: int, unit: str | None = None) -> str:
    """One line saying whether ``--until-halfwidth`` was met (see :func:`precision`); ``unit``: what
    ``games`` counts (default: deals)."""
    unit = unit or _("deals")
    got = _("no interval yet") if p.get("half_width") is None else f"±{p['half_width']:.4g}"
    if p.get("reached"):
        return (_("Stopped after {games} {unit}: the {ci} interval of {figure} is {got}, within the "
                  "±{target:g} asked (--until-halfwidth).").format(games=games, unit=unit, ci="95%", figure=p['figure'], got=got,
                                                                  target=p['target']))
    return (_("Target not reached: after {games} {unit} (--max-games) the {ci} interval of {figure} is "
              "{got}, wider than the ±{target:g} asked (--until-halfwidth).").format(games=games, unit=unit, ci="95%", figure=p['figure'],
                                                                                    got=got, target=p['target']))


def _side(g: RuleGraph) -> SideTotals:
    return SideTotals(g.n_seats, teams(g))


def save_divergent(report: PairedReport, directory: str | os.PathLike[str]) -> list[Path]:
    """Write each divergent deal of ``report`` to ``DIR/divergent-RANK-game-INDEX.json`` (the folder is
    created) and return the paths. Each file: ``format``, ``deal``, ``seed``, ``index``, ``bots``,
    ``score_difference``, ``places_changed`` and, for ``a`` and ``b``: ``ruleset``, ``path``,
    ``places``, ``scores``, ``sweep``, ``match_start``, ``match_length`` and ``record`` (the
    engine's event list). A game that is not the first of its match (``index != match_start``)
    follows the games ``match_start .. index-1`` (tribute); ``play_game`` with ``previous`` chained
    from ``match_start`` re-creates it."""
    d = Path(directory)
    d.mkdir(parents=True, exist_ok=True)
    paths = []
    for deal in report.divergent:
        data = {
            "format": "gouji-paired-deal/1", "deal": deal.deal,
            "seed": deal.seed if deal.seed is not None else report.seed, "index": deal.index,
            "bots": report.bots, "score_difference": deal.score_difference, "places_changed": deal.places_changed,
        }
        for key, name, path, gs, rec, start, length in (
                ("a", report.a_name, report.a_path, deal.a, deal.record_a, deal.match_start_a, report.match_length_a),
                ("b", report.b_name, report.b_path, deal.b, deal.record_b, deal.match_start_b, report.match_length_b)):
            g = gs.to_dict()
            data[key] = {"ruleset": name, "path": path, "places": g["places"], "scores": g["scores"],
                         "sweep": gs.sweep, "match_start": start, "match_length": length, "record": rec}
        p = d / f"divergent-{deal.rank:02d}-game-{deal.index:05d}.json"
        atomic_write(p, json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True, default=str) + "\n")
        paths.append(p)
    return paths


# ==================================================================================================
# rendering


def _fig(e: Estimate | None, kind: str, signed: bool = False, compact: bool = False) -> str:
    if e is None:
        return "—"
    rate = kind == "rate" or e.kind == "wilson"
    if not compact:
        return e.format(1, percent=True, signed=signed) if rate else e.format(2, signed=signed)
    scale, unit = (100.0, "%") if rate else (1.0, "")
    v = "n/a" if math.isnan(e.value) else f"{e.value * scale:{'+' if signed else ''}.1f}{unit}"
    if math.isnan(e.low) or math.isnan(e.high):
        return v
    if abs((e.high - e.value) - (e.value - e.low)) < 1e-9:
        d = 2 if e.half_width * scale < 0.1 else 1
        return f"{e.value * scale:{'+' if signed else ''}.{d}f}{unit} ±{e.half_width * scale:.{d}f}"
    # the interval as the compare screen writes it: [lo, hi], a difference signed; a rate's bounds with
    # one decimal where they are small (0.0–8.5%), none where they are larger ([7, 20])
    sign, d = "+" if signed else "", 1 if not unit or max(abs(e.low), abs(e.high)) * scale < 10 else 0
    return f"{v} [{e.low * scale:{sign}.{d}f}, {e.high * scale:{sign}.{d}f}]"


def mark(e: Estimate) -> str:
    """``*`` significant after Holm's adjustment, ``†`` interval excludes 0 but not significant after it."""
    if e.p is None:
        return ""
    if e.significant:
        return " *"
    return " †" if e.excludes_zero else ""


def effect_text(e: Estimate) -> str:
    """``d=+0.12`` / ``h=−0.03`` (empty when the figure has no effect size)."""
    if e.effect_kind is None or e.effect is None or math.isnan(e.effect):
        return ""
    return f"{'d' if e.effect_kind == 'd_z' else e.effect_kind}={e.effect:+.2f}"


def figure_rows(r: PairedReport, compact: bool = False, words: Sequence[Any] = ()) -> list[tuple[str, str, str, str, str]]:
    """(label, A, B, B − A with its mark, effect size) for every figure, in report order; labelled in
    the rulesets' ``words`` of the game (:func:`~gouji_dsl.tools.figures.figure_label`)."""
    rows = []
    for key, _label, kind in SIDE_FIGURES:
        d = r.differences[key]
        rows.append((figure_label(key, *words), _fig(r.a.figure(key), kind, False, compact), _fig(r.b.figure(key), kind, False, compact),
                     _fig(d, kind, True, compact) + mark(d), effect_text(d)))
    for s, e in r.differences["seat_score"].items():
        rows.append((_("mean score, seat {s}").format(s=s), _fig(r.a.seat_score.get(s), "mean", False, compact),
                     _fig(r.b.seat_score.get(s), "mean", False, compact), _fig(e, "mean", True, compact) + mark(e),
                     effect_text(e)))
    oc = r.differences["outcome_changed"]
    rows.append((figure_label("outcome_changed", *words), "", "", _fig(oc, "rate", False, compact), ""))
    return rows


def _title(r: PairedReport) -> str:
    bots = r.bots_text
    rate = r.games_per_s
    if r.match_length_a == r.match_length_b == 1:
        how = ""
    elif r.match_length_a == r.match_length_b:
        how = _(", matches of {match_length_a}").format(match_length_a=r.match_length_a)
    else:
        how = _(", matches of {match_length_a} / {match_length_b}").format(match_length_a=r.match_length_a, match_length_b=r.match_length_b)
    seed = ", ".join(map(str, r.seed)) if isinstance(r.seed, list) else r.seed
    timing = (_(" — {workers} worker(s), {elapsed_s:.1f} s").format(workers=r.workers, elapsed_s=r.elapsed_s) + (_(" ({rate:.0f} games/s)").format(
        rate=rate) if rate else "")
              if r.elapsed_s else "")
    if r.resumed_games and r.elapsed_s:
        timing += _(" — {resumed_games} deals resumed from the output folder").format(resumed_games=r.resumed_games)
    engines = dict.fromkeys(engine_name(e) for _side, e in sorted(r.engines.items()) if engine_name(e))
    if engines:
        timing += _(" — {engine} engine").format(engine="/".join(engines))
    return _("Paired simulation: {games} deals{how}, seed {seed}, {bots} bots{timing}").format(
        games=r.games, how=how, seed=seed, bots=bots, timing=timing)


def design_note(probed: int, games: int) -> str:
    """Where the design metrics come from: every deal where the native core plays the games whole (it
    counts them), else the probed deals (every PROBE_EVERY-th), played move by move."""
    if probed >= games:
        note = _("design metrics (real choice, lead changes, settled after): from all {games} deals (counted as "
                 "each game is played: by the native core, else move by move in Python)").format(games=games)
    else:
        note = _("design metrics (real choice, lead changes, settled after): from {n} of {games} deals (every {every}th, "
                 "played move by move: these games are not played whole in the native core)").format(
                     n=probed, games=games, every=PROBE_EVERY)
    if probed < MIN_PROBED:
        note += _("; too few for intervals or marks (they need {least} probed deals: {deals} deals or more)").format(
            least=MIN_PROBED, deals=MIN_PROBED if probed >= games else (MIN_PROBED - 1) * PROBE_EVERY + 1)
    return note


def _design_n(r: PairedReport) -> int:
    """The deals both sides' design metrics come from (the fewer of the two)."""
    return min(side.design["real_choice_share"].n if side.design else 0 for side in (r.a, r.b))


def few_matches_note(r: PairedReport) -> str | None:
    """Why a side's figures have no interval: its deals make fewer than two matches (clusters), and a
    cluster-robust interval needs two. None when every side has two or more."""
    short = [(label, n) for label, n in zip(r.labels, (r.match_length_a, r.match_length_b))
             if n > 1 and -(-r.games // n) < 2]
    if not short:
        return None
    least = max(n for _, n in short) + 1
    sides = ", ".join(_("{label} plays matches of {n}").format(label=label, n=n) for label, n in short)
    return (ngettext("{sides}: {games} deal make one match, and an interval over matches needs at least two — no interval for {its} "
                     "means nor for their B − A (simulate {least} deals or more).",
                     "{sides}: {games} deals make one match, and an interval over matches needs at least two — no interval for {its} "
                     "means nor for their B − A (simulate {least} deals or more).", r.games).format(
                sides=sides, games=r.games, its=_("its") if len(short) == 1 else _("their"), least=least))


def missing_note(r: PairedReport) -> str:
    """What the gaps of a merged run are: deals a run still in progress has not played yet (its folder's
    lock is held), or chunks an interrupted run did not write."""
    if r.in_progress:
        return (_("note: still in progress (a run is writing {join}; report again when it is "
                "done): deals not played yet").format(join=', '.join(r.in_progress)))
    return _("note: chunks missing (an interrupted run: --resume plays them)")


def _report_notes(r: PairedReport, width: int) -> list[str]:
    """The title and the notes under it: the precision reached, chunks missing, packs, few matches, engines, the design."""
    out = wrap(_title(r), width)
    if r.precision is not None:
        out += wrap(precision_text(r.precision, r.games), width)
    elif r.stopped_by == "halfwidth":
        out += wrap(_("Stopped when the interval was narrow enough (--until-halfwidth)."), width)
    if r.missing:
        out += wrap(missing_note(r) + ": " + "; ".join(r.missing), width)
    if not r.same_deck:
        out += wrap(_("note: the two rulesets use different packs, so game i is seeded alike but not dealt alike."),
                    width)
    few = few_matches_note(r)
    if few is not None:
        out += wrap("note: " + few, width)
    for note in engine_notes(r):
        out += wrap(note, width)
    out += wrap(design_note(_design_n(r), r.games), width)
    return out


def _figures_text(r: PairedReport, width: int, words: Sequence[Any]) -> list[str]:
    """The figures table (A, B, B − A, effect size), headed by the rulesets' names where they fit, else A and B
    with a legend; one figure after the other when even that is too wide."""
    la, lb = r.labels
    out: list[str] = []
    # the columns headed by the rulesets' names; where long names do not fit, headed A and B with a legend
    effect = _("effect")
    for head, compact in ((("", la, lb, "B − A", effect), False), (("", la, lb, "B − A", effect), True),
                          (("", "A", "B", "B − A", effect), True)):
        rows = figure_rows(r, compact, words)
        c0 = max(disp_width(x[0]) for x in rows + [head])
        cw = [max(disp_width(x[i]) for x in rows + [head]) for i in (1, 2, 3, 4)]
        if c0 + sum(cw) + 8 <= width:
            break
    if c0 + sum(cw) + 8 <= width:
        out.append("")
        if head[1] == "A":
            out += wrap(f"A: {la}", width, "") + wrap(f"B: {lb}", width, "")
        out.append(_pad(head[0], c0) + "  " + "  ".join(_pad(h, w) for h, w in zip(head[1:], cw)).rstrip())
        out.append("─" * (c0 + sum(cw) + 8))
        for row in rows:
            out.append((_pad(row[0], c0) + "  " + "  ".join(_pad(v, w) for v, w in zip(row[1:], cw))).rstrip())
    else:
        for row in rows:
            out.append("")
            out.append(row[0])
            for lab, v in zip((la, lb, "B − A", effect), row[1:]):
                if v:
                    out += wrap(f"{lab}: {v}", width, "  ")
    return out


def _places_text(r: PairedReport, width: int, words: Sequence[Any]) -> list[str]:
    """The places by seat, a table of A/B shares (one line a seat where it does not fit)."""
    la, lb = r.labels
    n = len(r.a.place_distribution)
    out = ["", _("Places by seat, {percent} of games ({la} / {lb}):").format(percent="%", la=la, lb=lb)]
    cell = 11
    if 8 + n * (cell + 1) <= width:
        seat = _("seat")
        out.append((_pad(seat, 8) + " ".join(_pad(h, cell) for h in place_headers(n, *words, width=cell - 1))).rstrip())
        for s in range(1, n + 1):
            da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
            cells = [f"{da[p].value * 100:4.1f}/" + (f"{db[p].value * 100:4.1f}" if p in db else "—")
                     for p in range(1, n + 1)]
            out.append((f"{s:<8}" + " ".join(_pad(c, cell) for c in cells)).rstrip())
    else:
        for s in range(1, n + 1):
            da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
            out.append(_("seat {s}: ").format(s=s) + "  ".join(
                f"{p}: {da[p].value * 100:.0f}/" + (f"{db[p].value * 100:.0f}" if p in db else "—")
                for p in range(1, n + 1)))
    return out


def _divergent_text(r: PairedReport, width: int) -> list[str]:
    """The deals whose outcomes differ most."""
    la, lb = r.labels
    out = ["", _("Deals whose outcomes differ most:") if r.divergent else _("No deal ended differently.")]
    for d in r.divergent:
        pa = " ".join(str(p) for p in d.a.places)
        pb = " ".join(str(p) for p in d.b.places)
        out += wrap(_("#{rank} deal {deal}: Σ|Δscore| {score_difference}, {places_changed} seat(s) placed "
                    "differently; places by seat {la}: {pa} | {lb}: {pb}").format(
                        rank=d.rank, deal=d.deal, score_difference=d.score_difference, places_changed=d.places_changed,
                        la=la, pa=pa, lb=lb, pb=pb), width, "",
                    keep=(pa, pb, la + _(": ") + pa, lb + _(": ") + pb))  # (a list of places is never split from its side)
    return out


def _statistics_text(width: int) -> list[str]:
    """The statistics footer (:data:`METHODS`)."""
    out = ["", _("Statistics:")]
    for m in methods():
        lines = wrap(m, width - 2)
        out += ["- " + lines[0]] + ["  " + x for x in lines[1:]]
    return out


def report_text(report: PairedReport, width: int = 100, words: Sequence[Any] = ()) -> str:
    """The simulation report as plain text: a figures table (A, B, B − A, effect size), places by
    seat, the most divergent deals and the statistics footer (:data:`METHODS`)."""
    r = report
    out = _report_notes(r, width) + _figures_text(r, width, words) + _places_text(r, width, words)
    out += _divergent_text(r, width) + _statistics_text(width)
    return "\n".join(out) + "\n"


def report_markdown(report: PairedReport, words: Sequence[Any] = ()) -> str:
    """The simulation report as GitHub markdown tables, with the statistics footer."""
    r = report
    la, lb = r.labels
    out = [f"## {_md(_title(r))}", ""]
    if r.missing:
        note = missing_note(r)
        out += ["> " + _md(note[6].upper() + note[7:] + ": " + "; ".join(r.missing)), ""]
    if not r.same_deck:
        out += [_("> The two rulesets use different packs: game *i* is seeded alike but not dealt alike."), ""]
    few = few_matches_note(r)
    if few is not None:
        out += ["> " + _md(few), ""]
    for note in engine_notes(r):
        out += ["> " + _md(note), ""]
    out += ["> " + _md(design_note(_design_n(r), r.games)), ""]
    out += [_("| Figure | {md} | {md2} | B − A | Effect |").format(md=_md(la), md2=_md(lb)), "| --- | --- | --- | --- | --- |"]
    for label, a, b, d, eff in figure_rows(r, words=words):
        if d.endswith(" *"):
            d = f"**{_md(d[:-2])}** \\*"  # (the mark's backslash is markdown's, not the cell's text)
        else:
            d = _md(d)
        out.append(f"| {_md(label)} | {_md(a)} | {_md(b)} | {d} | {_md(eff)} |")
    n = len(r.a.place_distribution)
    out += ["", _("### Places by seat ({percent} of games, {md} / {md2})").format(percent="%", md=_md(la), md2=_md(lb)), "",
            _("| Seat | ") + " | ".join(_md(h) for h in place_headers(n, *words)) + " |",
            "| --- |" + " --- |" * n]
    for s in range(1, n + 1):
        da, db = r.a.place_distribution[s], r.b.place_distribution.get(s, {})
        cells = [f"{da[p].value * 100:.1f} / {db[p].value * 100:.1f}" if p in db else f"{da[p].value * 100:.1f} / —"
                 for p in range(1, n + 1)]
        out.append(f"| {s} | " + " | ".join(cells) + " |")
    out += ["", _("### Deals whose outcomes differ most"), ""]
    if not r.divergent:
        out.append(_("No deal ended differently."))
    else:
        out += [_("| # | Deal | Σ\\|Δscore\\| | Seats placed differently | Places {md} | Places {md2} |").format(md=_md(la), md2=_md(lb)),
                "| --- | --- | --- | --- | --- | --- |"]
        for dd in r.divergent:
            out.append(f"| {dd.rank} | `{_md(dd.deal)}` | {dd.score_difference} | {dd.places_changed} | "
                       f"{' '.join(map(str, dd.a.places))} | {' '.join(map(str, dd.b.places))} |")
    out += ["", _("### Statistics"), ""] + [f"- {_md(m)}" for m in methods()]
    return "\n".join(out) + "\n"


def report_json(report: PairedReport, records: bool = False, indent: int | None = 2, timing: bool = True) -> str:
    """The simulation report as JSON (:meth:`PairedReport.to_dict`, keys sorted)."""
    return json.dumps(report.to_dict(records, timing), ensure_ascii=False, sort_keys=True, indent=indent,
                      default=str) + "\n"


__all__ = ["SideStats", "DivergentDeal", "PairedReport", "SimulationError", "SimulationCancelled",
           "paired_simulation", "build_report", "save_divergent", "report_text", "report_markdown", "report_json",
           "figure_rows", "mark", "effect_text", "figure_names", "difference_named", "METHODS", "methods", "methods_short", "GameSummary",
           "DIFF_FIGURES", "SIDE_FIGURES"]
