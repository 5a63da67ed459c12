"""``gouji sweep RULESET --grid KEY=V1,V2,... --simulate N``: every point of a grid of settings against
the base ruleset on the same seeded deals (扫参).

A point is the base with one override per ``--grid`` (:mod:`gouji_dsl.ruleset.overrides`: checked as
a variant file's settings, problems at the option ``--grid[N]``); the grid is the product of the
``--grid`` options' values. The run is one chunked run of the run engine (:mod:`gouji_dsl.tools.runs`,
kind ``sweep``: the base and every point play deal ``i``; resumable with ``--out``, on the process
pool or Dask); each point is compared with the base as ``gouji diff --simulate`` compares two rulesets
(:func:`gouji_dsl.tools.paired.differences`), and Holm's adjustment is made across the whole family:
one test per independent figure of every point.

Not in the family: a row that *mirrors* an earlier row of its point — its per-deal differences equal
that row's, or their negatives, on every deal played (:class:`~gouji_dsl.tools.figures.Mirrors`; in a
two-team game each seat's score is its team's, so seats 3 and 5 repeat seat 1 and the even seats are its
negative; in ``online`` a game is redealt only after a revolution) is the same test by construction:
it takes its representative's adjusted p and mark (and the report names it). A row whose differences
are all 0 mirrors nothing (its test, p = 1, stays). A point whose ruleset plays exactly as the base
(the same :func:`~gouji_dsl.tools.runspec.fingerprint`: ``--grid gouji_minimum.2=1,2`` where the base has
1) is marked ``= base`` and not played; one that plays as an earlier point ``= Pj`` is not played
again and shows that point's figures; neither is in the family.
"""
from __future__ import annotations

import itertools
import json
import math
import os
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gouji_dsl.atomic import atomic_write
from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError, Severity, printable
from gouji_dsl.i18n import _, ngettext
from gouji_dsl.readfile import FileTooLarge, NotRegularFile, read_regular
from gouji_dsl.ruleset.graph import RuleGraph
from gouji_dsl.ruleset.overrides import Override, load_point, parse_overrides, twice
from gouji_dsl.tools.figures import SIDE_FIGURES, SweepTotals
from gouji_dsl.tools.played import report_line
from gouji_dsl.tools.runfiles import RunError
from gouji_dsl.tools.runkinds import DEFAULT_ENGINE, MAX_SWEEP_POINTS, Executor, RunKind
from gouji_dsl.tools.stats import ALPHA, Estimate, clipped_note, holm

OPTION = "--grid"


@dataclass(frozen=True)
class Grid:
    """One ``--grid KEY=V1,V2,...``: its place ``index`` (from 1), the option text and one
    :class:`Override` per value (each positioned in the option text)."""

    index: int
    text: str
    key: str
    values: tuple[Override, ...]


def _split_values(text: str) -> list[tuple[str, int]]:
    """The comma-separated values of ``text`` with their offsets; a comma inside brackets, braces or
    quotes belongs to its value (``[2, B],[2]`` is two values)."""
    out, depth, quote, start = [], 0, "", 0
    for i, c in enumerate(text):
        if quote:
            quote = "" if c == quote else quote
        elif c in "\"'":
            quote = c
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth <= 0:
            out.append((text[start:i], start))
            start = i + 1
    out.append((text[start:], start))
    return out


def parse_grids(texts: Sequence[str]) -> list[Grid]:
    """Each ``--grid`` option; :class:`GoujiError` (code ``BadOverride``, at the option ``--grid[N]``)
    for one that is not ``KEY=V1,V2,...``, has a value twice, or makes the grid larger than
    :data:`~gouji_dsl.tools.runkinds.MAX_SWEEP_POINTS` points."""
    grids, errors = [], []
    for i, text in enumerate(texts, start=1):
        try:
            [whole] = parse_overrides([text], OPTION)
        except GoujiError as e:
            errors += [_at_grid(d, i) for d in e.diagnostics]
            continue
        values = []
        for value, at in _split_values(whole.value):
            values.append(Override(i, text, whole.parts, value, whole.value_at + at, OPTION))
        seen: set[str] = set()
        for v in values:
            if v.value.strip() in seen:
                errors.append(Diagnostic(f"{OPTION}[{i}]", 1, v.value_at, _("the value {value} is given twice").format(
                    value=json.dumps(v.value)), None, text, Severity.ERROR, Code.BAD_OVERRIDE))
            seen.add(v.value.strip())
        grids.append(Grid(i, text, text.partition("=")[0], tuple(values)))
    errors += twice([v for g in grids for v in g.values])  # (each at its --grid[N])
    points = math.prod(len(g.values) for g in grids) if grids else 0
    if grids and points > MAX_SWEEP_POINTS:
        errors.append(Diagnostic(f"{OPTION}[1]", 1, 1, _("the grid has {n} points; a sweep plays at most {most}").format(
            n=points, most=MAX_SWEEP_POINTS), _("fewer values, or several sweeps"), texts[0], Severity.ERROR, Code.BAD_OVERRIDE))
    if errors:
        raise GoujiError(errors)
    return grids


def _at_grid(d: Diagnostic, index: int) -> Diagnostic:
    from dataclasses import replace
    return replace(d, path=f"{OPTION}[{index}]")


def points(grids: Sequence[Grid]) -> list[tuple[Override, ...]]:
    """Every point of the grid (the product of the options' values, the last option varying fastest)."""
    return list(itertools.product(*(g.values for g in grids)))


def point_label(point: Sequence[Override]) -> str:
    """``gouji_minimum.2=1 yield_to=2``: a point's settings as the options would set them."""
    return " ".join(f"{ov.key}={ov.value}" for ov in point)


def load_points(ruleset: str, grids: Sequence[Grid], search: Sequence[str] = (), sets: Sequence[str] = ()) -> list[RuleGraph]:
    """Each point's compiled ruleset (``search``: the folders ``extends`` looks in; ``sets``: the
    command's ``--set`` options, the base's overrides, under every point's), named as the base
    (:func:`~gouji_dsl.ruleset.overrides.label`) then the point's settings; :class:`GoujiError` with
    every problem of every point, once each (a key both in a ``--set`` and a ``--grid`` is one)."""
    base = parse_overrides(sets) if sets else []
    clash = twice([*base, *(v for g in grids for v in g.values)])
    if clash:
        raise GoujiError(clash)
    graphs, problems = [], []
    for point in points(grids):
        shown = " ".join([f"--set {t}" for t in sets] + [f"--set {ov.key}={ov.value}" for ov in point])
        try:
            graphs.append(load_point(ruleset, [*base, *point], shown, search))
        except GoujiError as e:
            problems += list(e.diagnostics)
    if problems:
        unique = {(d.path, d.line, d.col, d.message): d for d in problems}
        raise GoujiError(sorted(unique.values(), key=lambda d: (d.path, d.col)))
    return graphs


# ==================================================================================================
# the report


@dataclass
class SweepReport:
    """A sweep's figures: per point, each difference point − base (with ``p_adjusted``: Holm across
    every figure of every point), and the base's and each point's own values."""

    base: str
    grids: list[str]
    labels: list[str]
    games: int
    seed: Any
    bots: str | list[str]
    base_stats: Any
    point_stats: list[Any]
    differences: list[dict[str, Any]]
    workers: int = 1
    elapsed_s: float = 0.0
    executor: str = "local"
    resumed_games: int = 0
    missing: list[str] = field(default_factory=list)
    engines: dict[str, Any] = field(default_factory=dict)
    skills: list[Any] | None = None  # the skill traces (tools/skill.py) of the base and each point (--skill N)
    same_as: list[str | None] = field(default_factory=list)  # per point: "base", "P{j}" or None (played)
    mirrors: list[dict[str, tuple[str, int]]] = field(default_factory=list)  # per point: row -> (its representative, sign)
    paired_by: list[str | None] = field(default_factory=list)  # per point: "deal", "seed" (another pack) or None (not known)

    def same(self, k: int) -> str | None:
        """``"base"`` or ``"P{j}"`` when point ``k`` (from 0) plays as the base or an earlier point."""
        return self.same_as[k] if k < len(self.same_as) else None

    def paired(self, k: int) -> str | None:
        """How point ``k`` (from 0) is paired with the base: ``"deal"`` (the same pack: deal i is dealt
        alike), ``"seed"`` (another pack: deal i is only seeded alike) or None (a folder that does not say)."""
        return self.paired_by[k] if k < len(self.paired_by) else None

    def skill_rows(self) -> list[str]:
        """The skill trace of the base and, for each point, its difference from the base's (paired by deal;
        not in the Holm family)."""
        from gouji_dsl.tools.skill import not_measured, skill_difference, skill_line
        if not self.skills:
            return [not_measured()]
        base, *rest = self.skills
        out = [skill_line(self.base, base)]
        shown = [base.estimate]
        for k, s in enumerate(rest, start=1):
            if self.same(k - 1) == "base":  # not played: no difference to measure (as in the table)
                out.append(_("P{k} − {base}: = base").format(k=k, base=self.base))
                continue
            diff = skill_difference(base, s)
            shown.append(diff)
            out.append(_("P{k} − {base}: {value}").format(k=k, base=self.base, value=diff.format(2, signed=True))
                       + _paired_note(self.paired(k - 1), self.base))
        if note := clipped_note(shown):
            out.append(note)
        return out

    def family(self) -> list[tuple[int, str, Estimate]]:
        """(point, figure, difference) of the whole family Holm's adjustment is made across: one test per
        independent figure (the differences with a test — not a design metric from too few probed deals —
        less the rows that mirror another and the points equal to the base or an earlier point)."""
        out = []
        for k, d in enumerate(self.differences):
            if self.same(k) or d is None:
                continue
            mirrored = self.mirrors[k] if k < len(self.mirrors) else {}
            out += [(k, key, d[key]) for key, _l, _k in SIDE_FIGURES if key not in mirrored]
            out += [(k, f"seat_score.{s}", e) for s, e in d["seat_score"].items() if f"seat_score.{s}" not in mirrored]
        return [x for x in out if x[2].p is not None]

    def to_dict(self, timing: bool = True) -> dict[str, Any]:
        out: dict[str, Any] = {
            "base": self.base, "grid": list(self.grids), "games": self.games, "seed": self.seed, "bots": self.bots,
            "base_stats": self.base_stats.to_dict(),
            "points": [{"label": label, "same_as": self.same(k), "paired_by": self.paired(k), "stats": st.to_dict(),
                        "differences": None if d is None else
                        {**{k: v.to_dict() for k, v in d.items() if k != "seat_score"},
                         "seat_score": {str(s): e.to_dict() for s, e in d["seat_score"].items()}},
                        "mirrors": {row: ("-" if sign < 0 else "") + rep
                                    for row, (rep, sign) in (self.mirrors[k] if k < len(self.mirrors) else {}).items()}}
                       for k, (label, st, d) in enumerate(zip(self.labels, self.point_stats, self.differences))],
            "statistics": {"alpha": ALPHA, "adjustment": "holm", "family_size": len(self.family()),
                           "family": FAMILY_JSON},
        }
        if self.missing:
            out["missing"] = list(self.missing)
        if self.skills:
            from gouji_dsl.tools.skill import skill_difference
            out["skill"] = {"base": self.skills[0].to_dict(),
                            "points": [{"skill": s.to_dict(), "paired_by": self.paired(k),
                                        "difference": None if self.same(k) == "base" else
                                        skill_difference(self.skills[0], s).to_dict()}
                                       for k, s in enumerate(self.skills[1:])]}
        if timing:
            out.update(workers=self.workers, elapsed_s=round(self.elapsed_s, 3), executor=self.executor,
                       resumed_games=self.resumed_games)
            if self.engines:
                out["engine"] = dict(self.engines)
        return out


def _paired_note(paired_by: str | None, base: str) -> str:
    """What a point's difference from the base is paired by, as its skill row says it."""
    if paired_by == "deal":
        return _(" (paired by deal)")
    if paired_by == "seed":
        return _(" (paired by seed: its pack is not {base}'s, so deal i is seeded alike but not dealt alike)").format(base=base)
    return ""


def paired_by(base: RuleGraph, graphs: Sequence[RuleGraph]) -> list[str]:
    """Per point: ``"deal"`` where it deals the base's pack to as many seats (deal i is dealt alike),
    else ``"seed"`` (:func:`gouji_dsl.tools.paired.same_deck`; ``gouji diff``'s ``paired_by``)."""
    from gouji_dsl.tools.paired import same_deck
    return ["deal" if same_deck(base, g) else "seed" for g in graphs]


FAMILY_JSON = ("one test per independent figure: every figure of the table (each seat's mean score included) at "
               "every point, less the rows that mirror an earlier row of their point (its per-deal differences, or "
               "their negatives, on every deal: marked from it, see each point's mirrors) and the points that play "
               "as the base or an earlier point (same_as)")


def _varies(t: Any, row: str) -> bool:
    """Row ``row`` of pair totals ``t`` has a non-zero difference on some deal."""
    if row.startswith("seat_score."):
        return bool(t.seat_diffs[int(row.split(".")[1]) - 1].ss)
    if row in t.binary:
        b = t.binary[row]
        return bool(b.n10 + b.n01)
    return bool(t.diffs[row].ss)


def mirrors_of(t: Any) -> dict[str, tuple[str, int]]:
    """Each row of pair totals ``t`` that mirrors an earlier one on every deal: row → (representative,
    sign). The representative is the earliest such row, and one whose differences are not all 0."""
    from gouji_dsl.tools.figures import Mirrors
    out: dict[str, tuple[str, int]] = {}
    for group in Mirrors.rows(len(t.seat_diffs)):
        for row in group:
            got = t.mirrors.of(row, group)
            if got is not None and got[0] not in out and _varies(t, got[0]):
                out[row] = got
    return out


def _get(d: dict[str, Any], row: str) -> Estimate:
    return d["seat_score"][int(row.split(".")[1])] if row.startswith("seat_score.") else d[row]  # type: ignore[no-any-return]


def _put(d: dict[str, Any], row: str, e: Estimate) -> None:
    if row.startswith("seat_score."):
        d["seat_score"][int(row.split(".")[1])] = e
    else:
        d[row] = e


def _copy_repeated(same: Sequence[str | None], labels: Sequence[str], diffs: list[Any], stats: list[Any],
                   mirrors: list[dict[str, tuple[str, int]]]) -> None:
    """A point that plays as an earlier one (``same[k] == "P{j}"``) takes that point's figures."""
    for k, x in enumerate(same):
        if x is not None and x != "base":
            j = int(x[1:]) - 1
            diffs[k], stats[k], mirrors[k] = diffs[j], replace(stats[j], name=labels[k]), mirrors[j]


def _mark_mirrors(played: Sequence[int], diffs: list[Any], mirrors: list[dict[str, tuple[str, int]]]) -> None:
    """A mirror row is its representative's test: it takes the representative's p and adjusted p (its mark)."""
    for k in played:
        for row, (rep, _sign) in mirrors[k].items():
            r = _get(diffs[k], rep)
            if r.p_adjusted is not None:
                _put(diffs[k], row, replace(_get(diffs[k], row), p=r.p, p_adjusted=r.p_adjusted))


def build_report(totals: SweepTotals, *, base: str, grids: Sequence[str], labels: Sequence[str], seed: Any,
                 bots: Any, same_as: Sequence[str | None] | None = None,
                 paired_by: Sequence[str | None] | None = None, **timing: Any) -> SweepReport:
    """The :class:`SweepReport` of merged sweep ``totals``: Holm across every point's independent figures.
    ``same_as`` (per point of ``labels``): ``"base"`` or ``"P{j}"`` for a point not played (it plays as the
    base or as point j); ``totals.points`` are the played points, in order. ``paired_by`` (per point):
    ``"deal"`` or ``"seed"`` (:func:`paired_by`; None: not known)."""
    from gouji_dsl.tools.paired import differences, side_stats
    same: list[str | None] = list(same_as) if same_as is not None else [None] * len(labels)
    played = [k for k, x in enumerate(same) if x is None]
    if len(played) != len(totals.points):
        raise ValueError(f"{len(totals.points)} points played, {len(played)} expected")
    if not totals.points:
        raise ValueError("a sweep with no point to play")
    base_stats = side_stats(base, totals.points[0].a)
    diffs: list[Any] = [None] * len(labels)
    stats: list[Any] = [base_stats] * len(labels)
    mirrors: list[dict[str, tuple[str, int]]] = [{} for _ in labels]
    for k, t in zip(played, totals.points):
        diffs[k], stats[k], mirrors[k] = differences(t, adjust=False), side_stats(labels[k], t.b), mirrors_of(t)
    _copy_repeated(same, labels, diffs, stats, mirrors)
    report = SweepReport(base, list(grids), list(labels), totals.games, seed, bots if isinstance(bots, str) else list(bots),
                         base_stats, stats, diffs, same_as=same, mirrors=mirrors,
                         paired_by=list(paired_by) if paired_by is not None else [None] * len(labels), **timing)
    family = report.family()
    adjusted = holm([e.p if e.p is not None else math.nan for _k, _f, e in family])
    for (k, key, e), a in zip(family, adjusted):
        if not math.isnan(a):
            _put(diffs[k], key, e.adjusted(a))
    _mark_mirrors(played, diffs, mirrors)
    return report


def same_as(base: RuleGraph, graphs: Sequence[RuleGraph]) -> list[str | None]:
    """Per point: ``"base"`` when it plays exactly as the base (the same
    :func:`~gouji_dsl.tools.runspec.fingerprint`: its settings, definitions and rules), ``"P{j}"`` when it plays
    as the earlier point j (from 1), else None (a point to play)."""
    from gouji_dsl.tools.runspec import fingerprint
    seen = {fingerprint(base.resolved): "base"}
    out: list[str | None] = []
    for k, g in enumerate(graphs, start=1):
        f = fingerprint(g.resolved)
        out.append(seen.get(f))
        seen.setdefault(f, f"P{k}")
    return out


def run_sweep(base: RuleGraph, graphs: Sequence[RuleGraph], labels: Sequence[str], grids: Sequence[str], games: int,
              seed: Any, bots: str | list[str] = "random", *, workers: int = 2, executor: str | None = None,
              scheduler: str | None = None, chunk_size: int | None = None, out: str | os.PathLike[str] | None = None,
              resume: bool = False, matches: bool = True, engine: str = DEFAULT_ENGINE,
              progress: Callable[[int, int], None] | None = None, cancel: threading.Event | None = None) -> SweepReport:
    """Play ``games`` deals under ``base`` and every point ``graphs`` (one run of the run engine, kind
    ``sweep``; a point that plays as the base or an earlier point is not played: :func:`same_as`; ValueError
    when no point is left) and build the report. The result depends only on the rulesets, ``games``, ``seed``,
    ``bots`` and ``matches``. ``cancel``: when set, the run stops
    (:class:`~gouji_dsl.tools.runspec.SimulationCancelled`; with ``out``, its finished chunks are kept)."""
    from gouji_dsl.tools.paired import _bots_tuple, check_bots
    from gouji_dsl.tools.runs import execute
    from gouji_dsl.tools.runspec import RunSpec
    check_bots(bots, base.n_seats)
    same = same_as(base, graphs)
    played = [g for g, x in zip(graphs, same) if x is None]
    if not played:
        raise ValueError(_("every point of the grid plays as {base}: nothing to compare").format(base=base.name))
    workers = max(1, int(workers))
    if executor is None:
        executor = Executor.PROCESS if workers > 1 and games > 1 else Executor.LOCAL
    spec = RunSpec((base.resolved, *(g.resolved for g in played)), seed, _bots_tuple(bots), matches, engine, 0,
                   sweep=True)
    res = execute(spec, games, executor=executor, workers=min(workers, games), chunk_size=chunk_size, out=out,
                  resume=resume, scheduler=scheduler, progress=progress, cancel=cancel, graphs=(base, *played))
    assert isinstance(res.totals, SweepTotals)
    pairing = paired_by(base, graphs)
    if out is not None:
        _write_points(Path(out), labels, same, grids, pairing)
    engines = sweep_engines(res.engines, same)
    return build_report(res.totals, base=base.name, grids=grids, labels=labels, seed=seed, bots=bots, same_as=same,
                        paired_by=pairing,
                        workers=res.workers, elapsed_s=res.elapsed_s, executor=res.executor,
                        resumed_games=res.resumed_games, engines=engines)


def report_of_runs(merged: Any) -> SweepReport:
    """The report of merged sweep run folders (:func:`gouji_dsl.tools.runfolders.load_runs` of ``--out``
    folders of ``gouji sweep``): ``gouji report DIR`` and the app's sweep view read them so."""
    names = [r.get("name", "?") for r in merged.spec.get("rulesets", [])]
    base = names[0]
    labels = [n[len(base):].strip().replace("--set ", "") if n.startswith(base) else n for n in names[1:]]
    seed = merged.seeds[0] if len(merged.seeds) == 1 else merged.seeds
    kept = _read_points(merged.folders, labels)
    same, grids = None, []
    # (a folder of one pack says so in run.json; where the packs differ, its points file says per point)
    pairing: list[str | None] = ["deal"] * len(labels) if merged.spec.get("same_deck") else [None] * len(labels)
    if kept is not None:  # the run's own numbering, its = base / = Pj points included
        labels, same, grids = kept["labels"], kept["same_as"], kept.get("grids", [])
        pairing = kept.get("paired_by") or (["deal"] * len(labels) if merged.spec.get("same_deck") else [None] * len(labels))
    return build_report(merged.totals, base=base, grids=grids, labels=labels, seed=seed, bots=merged.spec.get("bots"),
                        same_as=same, paired_by=pairing, executor="report", missing=merged.missing,
                        engines=sweep_engines(merged.engines, same or [None] * len(labels)))


def sweep_engines(engines: Sequence[dict[str, Any]], same: Sequence[str | None]) -> dict[str, Any]:
    """Who played the base's and every played point's games (``engines``: the run's rulesets in
    order, the base first), keyed ``base`` and ``P{k}`` (a point not played has none)."""
    if not engines:
        return {}
    played = [f"P{k + 1}" for k, x in enumerate(same) if x is None]
    return dict(zip(["base", *played], engines))


def engine_lines(r: SweepReport) -> list[str]:
    """What the sweep says of who played (:func:`~gouji_dsl.tools.played.report_line`): one line where
    every ruleset was played alike, else one per ruleset (``base``, ``P{k}``)."""
    if not r.engines:
        return []
    said = {k: report_line(e) for k, e in r.engines.items()}
    if len(set(said.values())) == 1:
        return [next(iter(said.values()))]
    return [f"{k}: {line}" for k, line in said.items()]


POINTS_FILE = "points.json"
MAX_POINTS_BYTES = 1_000_000
"""The largest points file read (64 points of long labels: a few kB)."""
"""Beside a sweep's ``run.json``: every point of the grid (labels, ``same_as``, ``paired_by``), so ``gouji report DIR``
numbers and marks them as the run did (a folder without it: the played points only, numbered anew)."""


def _write_points(out: Path, labels: Sequence[str], same: Sequence[str | None], grids: Sequence[str],
                  pairing: Sequence[str]) -> None:
    """The points file, written atomically (a temporary file renamed over it: a planted symlink of that
    name is replaced, never followed; a run killed midway leaves the old file or none)."""
    data = {"labels": list(labels), "same_as": list(same), "grids": list(grids), "paired_by": list(pairing)}
    atomic_write(out / POINTS_FILE, json.dumps(data, ensure_ascii=False, indent=1) + "\n")


def _read_points(folders: Sequence[str], played: Sequence[str]) -> dict[str, Any] | None:
    """The points file of the folders (None where none has one): the ``played`` points' labels (as the
    chunks name their rulesets) must be its points not marked ``= base`` / ``= Pj``, in order;
    :class:`~gouji_dsl.tools.runfiles.RunError` naming the file and why where one disagrees (edited, or
    from another run), never a renumbering that would be silently wrong."""
    found = None
    for f in folders:
        path = Path(f) / POINTS_FILE
        if not path.exists():
            continue
        why, data = _points_problem(path, played)
        if why is not None:
            raise RunError(_("{file}: {why}; remove it to number the played points anew").format(
                file=printable(str(path)), why=why))
        found = found or data
    return found


def _points_problem(path: Path, played: Sequence[str]) -> tuple[str | None, dict[str, Any]]:
    """Why the points file ``path`` disagrees with the ``played`` points (None: it agrees), and its data."""
    try:
        data = json.loads(read_regular(path, MAX_POINTS_BYTES).decode("utf-8"))
    except (OSError, ValueError, FileTooLarge, NotRegularFile) as e:
        return _("cannot be read as the points of the sweep ({e})").format(e=e), {}
    labels = data.get("labels") if isinstance(data, dict) else None
    same = data.get("same_as") if isinstance(data, dict) else None
    if not (isinstance(labels, list) and isinstance(same, list) and len(labels) == len(same)
            and all(isinstance(x, str) for x in labels)):
        return _("not a points file (labels and same_as: two lists of one length)"), {}
    refs = {"base"} | {f"P{k}" for k in range(1, len(same) + 1)}
    if any(x is not None and (not isinstance(x, str) or x not in refs) for x in same):
        return _("same_as holds a value that is not base or a point Pk"), {}
    pairing = data.get("paired_by")
    if pairing is not None and not (isinstance(pairing, list) and len(pairing) == len(labels)
                                    and all(x in ("deal", "seed") for x in pairing)):
        return _("paired_by is not a list of deal or seed, one per point"), {}
    mine = [lab for lab, x in zip(labels, same) if x is None]
    if mine != list(played):
        return _("its played points ({mine}) are not the run's ({played})").format(
            mine=", ".join(mine) or "-", played=", ".join(played) or "-"), {}
    return None, data


def load_report(folders: Sequence[str | os.PathLike[str]]) -> SweepReport:
    """The report of the sweep run folder(s) ``folders``; :class:`~gouji_dsl.tools.runfiles.RunError` when
    they cannot be read or are the run of another command."""
    from gouji_dsl.tools.runfolders import load_runs
    merged = load_runs(list(folders))
    if merged.kind != RunKind.SWEEP:
        raise RunError(_("{folder}: the run of another command ({kind}), not of gouji sweep: gouji report reads it").format(
            folder=printable(str(folders[0])), kind=merged.kind))
    return report_of_runs(merged)


# ==================================================================================================
# rendering


def _cell(e: Estimate, kind: str, signed: bool, compact: bool, bare: bool) -> str:
    """A figure as the table shows it; ``bare``: its value only (a table too wide for its intervals)."""
    from gouji_dsl.tools.paired import _fig
    if not bare:
        return _fig(e, kind, signed, compact)
    rate = kind == "rate" or e.kind == "wilson"
    return "n/a" if math.isnan(e.value) else (f"{e.value * 100:{'+' if signed else ''}.1f}%" if rate
                                               else f"{e.value:{'+' if signed else ''}.2f}")


def _same_cell(x: str) -> str:
    """The cell of a point that plays as the base (``= base``) or as an earlier point (``= P1``)."""
    return _("= base") if x == "base" else f"= {x}"


def _rows(r: SweepReport, compact: bool, bare: bool = False) -> list[list[str]]:
    """(figure, base, then point − base with its mark for each point) for every figure; a mirror row's
    cell ends with ``≡`` (its mark is its representative's); a point that plays as the base or an earlier
    point has ``= base`` / ``= Pj`` in every row."""
    from gouji_dsl.tools.paired import mark

    def cell(k: int, d: dict[str, Any] | None, row: str, kind: str) -> str:
        x = r.same(k)
        if x is not None or d is None:
            return _same_cell(x or "base")
        e = _get(d, row)
        return _cell(e, kind, True, compact, bare) + mark(e) + (" ≡" if row in (r.mirrors[k] if k < len(r.mirrors) else {}) else "")

    rows = []
    for key, label, kind in SIDE_FIGURES:
        rows.append([_(label), _cell(r.base_stats.figure(key), kind, False, compact, bare)]
                    + [cell(k, d, key, kind) for k, d in enumerate(r.differences)])
    for s in r.base_stats.seat_score:
        rows.append([_("mean score, seat {s}").format(s=s), _cell(r.base_stats.seat_score[s], "mean", False, compact, bare)]
                    + [cell(k, d, f"seat_score.{s}", "mean") for k, d in enumerate(r.differences)])
    return rows


def _row_label(row: str) -> str:
    if row.startswith("seat_score."):
        return _("mean score, seat {s}").format(s=row.split(".")[1])
    return next(_(label) for key, label, _k in SIDE_FIGURES if key == row)


def mirror_lines(r: SweepReport) -> list[str]:
    """The mirror rows, each once with the points where it mirrors: ``≡ mean score, seat 3 = mean score,
    seat 1 (P1, P2)``; none when no row mirrors another."""
    by: dict[tuple[str, str, int], list[str]] = {}
    for k, m in enumerate(r.mirrors):
        if r.same(k) is None:
            for row, (rep, sign) in m.items():
                by.setdefault((row, rep, sign), []).append(f"P{k + 1}")
    played = sum(1 for k in range(len(r.labels)) if r.same(k) is None)
    out = []
    for (row, rep, sign), where in by.items():
        at = _("every point") if len(where) == played else ", ".join(where)
        out.append(_("{row} ≡ {sign}{rep} ({at})").format(row=_row_label(row), sign="−" if sign < 0 else "",
                                                         rep=_row_label(rep), at=at))
    if not out:
        return []
    return [_("≡ a row that mirrors another (its per-deal differences, or their negatives, on every deal): one test, "
              "marked from that row:")] + ["  " + x for x in out]


def legend_lines(r: SweepReport) -> list[str]:
    out = []
    for k, label in enumerate(r.labels, start=1):
        x = r.same(k - 1)
        note = "" if x is None else "  " + (_("(= base: plays exactly as {base}; not played, no test)").format(base=r.base)
                                            if x == "base" else _("(= {p}: plays exactly as {p}; not played again, no test)").format(p=x))
        if x is None and r.paired(k - 1) == "seed":
            note += "  " + _("(another pack than {base}: paired by seed, deal i seeded alike but not dealt alike)").format(
                base=r.base)
        out.append(f"P{k}: {label}{note}")
    return out


def footer_text(r: SweepReport) -> str:
    seeded = any(r.paired(k) == "seed" and r.same(k) is None for k in range(len(r.labels)))
    return (_("Each column P is the point − {base} on the same deals (paired, as gouji diff --simulate); Holm's "
             "adjustment across the {n} independent differences of the table (a mirror row ≡ is its row's test; a point "
             "= base or = Pj is none): * adjusted p < {alpha}; † the interval excludes 0 but not significant after "
             "it.").format(base=r.base, n=len(r.family()), alpha=ALPHA)
            + (" " + _("A point with another pack than {base} is paired by seed (deal i seeded alike, not dealt "
                       "alike).").format(base=r.base) if seeded else ""))


def _title(r: SweepReport) -> str:
    timing = _(" — {workers} worker(s), {elapsed_s:.1f} s").format(workers=r.workers, elapsed_s=r.elapsed_s) if r.elapsed_s else ""
    bots = r.bots if isinstance(r.bots, str) else r.bots[0] if len(set(r.bots)) == 1 else ",".join(r.bots)
    return ngettext("Sweep of {base}: {points} point × {games} deals, seed {seed}, {bots} bots{timing}",
                    "Sweep of {base}: {points} points × {games} deals, seed {seed}, {bots} bots{timing}",
                    len(r.labels)).format(
        base=r.base, points=len(r.labels), games=r.games, seed=r.seed, bots=bots, timing=timing)


def report_text(r: SweepReport, width: int = 100) -> str:
    """The sweep as plain text: the legend of the points, one table (a row per figure, a column per
    point) and the statistics footer."""
    from gouji_dsl.tools.compare import _pad, disp_width, wrap
    from gouji_dsl.tools.paired import design_note
    out = wrap(_title(r), width) + wrap(design_note(r.base_stats.design["real_choice_share"].n, r.games), width)
    out += [line for e in engine_lines(r) for line in wrap(e, width)]
    out += [""] + legend_lines(r) + [""]
    head = ["", r.base] + [f"P{k}" for k in range(1, len(r.labels) + 1)]
    for compact, bare in ((False, False), (True, False), (True, True)):
        rows = _rows(r, compact, bare)
        widths = [max(disp_width(row[i]) for row in rows + [head]) for i in range(len(head))]
        if sum(widths) + 2 * len(widths) <= width:
            break
    if bare:
        out += wrap(_("(the values only: the intervals do not fit {width} columns; --format markdown or json has them)").format(
            width=width), width) + [""]
    out.append("  ".join(_pad(h, w) for h, w in zip(head, widths)).rstrip())
    out.append("─" * (sum(widths) + 2 * (len(widths) - 1)))
    for row in rows:
        out.append("  ".join(_pad(v, w) for v, w in zip(row, widths)).rstrip())
    if r.missing:
        out += [""] + wrap(_("note: chunks missing (an interrupted run: --resume plays them)") + ": " + "; ".join(r.missing), width)
    mirrors = mirror_lines(r)
    if mirrors:
        out += [""] + wrap(mirrors[0], width) + [line for m in mirrors[1:] for line in wrap(m.strip(), width, "  ")]
    out += [""] + [line for row in r.skill_rows() for line in wrap(row, width)]
    out += [""] + wrap(footer_text(r), width)
    return "\n".join(out) + "\n"


def report_markdown(r: SweepReport) -> str:
    """The sweep as a GitHub markdown table."""
    from gouji_dsl.tools.compare import _md
    from gouji_dsl.tools.paired import design_note
    out = [f"## {_md(_title(r))}", "", "> " + _md(design_note(r.base_stats.design["real_choice_share"].n, r.games)), ""]
    out += [x for e in engine_lines(r) for x in ("> " + _md(e), "")]
    out += [f"- {_md(x)}" for x in legend_lines(r)] + [""]
    out.append("| " + " | ".join([_("Figure"), _md(r.base)] + [f"P{k}" for k in range(1, len(r.labels) + 1)]) + " |")
    out.append("|" + " --- |" * (2 + len(r.labels)))
    for row in _rows(r, False):
        cells = [f"**{_md(c[:-2])}** \\*" if c.endswith(" *") else f"**{_md(c[:-4])}** \\* ≡" if c.endswith(" * ≡")
                 else _md(c) for c in row]
        out.append("| " + " | ".join(cells) + " |")
    mirrors = mirror_lines(r)
    more = ([""] + [_md(mirrors[0])] + [f"- {_md(x.strip())}" for x in mirrors[1:]]) if mirrors else []
    return "\n".join(out + more + [""] + [f"- {_md(x)}" for x in r.skill_rows()] + ["", _md(footer_text(r))]) + "\n"


def report_json(r: SweepReport, timing: bool = True) -> str:
    return json.dumps(r.to_dict(timing), ensure_ascii=False, sort_keys=True, indent=2, default=str) + "\n"


__all__ = ["Grid", "SweepReport", "parse_grids", "points", "point_label", "load_points", "run_sweep", "build_report",
           "same_as", "mirrors_of", "mirror_lines", "report_of_runs", "load_report", "legend_lines", "footer_text",
           "report_text", "report_markdown", "report_json"]
