"""Bot strength table: `gouji duel` for each pair of bots on each ruleset, resumable.

    python benchmarks/bench_bots.py                                  # the README table (long: see below)
    python benchmarks/bench_bots.py --deals 20 --think-ms 50         # a quick look
    python benchmarks/bench_bots.py --pairs heuristic:random --deals 500
    python benchmarks/bench_bots.py --table                          # print the table of what is saved

Every pair ``A:B`` is a duel (:mod:`gouji_dsl.tools.duel`): each deal played twice with the teams'
bots swapped, deal ``i`` dealt from seed ``S:i``; the figure is the mean team-score difference
A − B per game with a 95 % interval over deals and their replays (matches and their replays in
match rulesets), A's win rate, and each bot's decisions per second and think time per decision
with a choice.

Resumable: every finished deal (or match) is appended as one JSON line to
``OUT/RULESET__A__B__T.jsonl`` (T: think time, or ``iters``) as soon as it is played; run the same
command again after an interruption and it plays only what is missing (``--deals`` may be raised
to extend a finished run). With ``--think-ms`` the result depends on the machine's speed: run it
on a quiet machine (the script prints the load average at the start) and give it one core per
worker.

Expected run time (defaults: online and rulebook, ISMCTS vs heuristic, PIMC vs heuristic, ISMCTS
vs PIMC, 300 deals, 100 ms): a game has about 60 decisions with a choice per team, each
searching for the think time, so a pair costs about deals × 2 games × searching teams × 60 × T:
300 × 2 × 1 × 60 × 0.1 s ≈ 1 hour for a pair with one searching team, ≈ 2 hours for ISMCTS vs PIMC,
≈ 8 hours for the whole table on one worker (``--workers 2`` halves it on two free cores). The
script prints its own estimate before it starts.
"""
from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

DEFAULT_PAIRS = ["ismcts:heuristic", "pimc:heuristic", "ismcts:pimc"]
#: decisions with a choice per game per team, for the time estimate (measured: 55-65 on online)
CHOICES_PER_TEAM = 60


def run_file(out: Path, ruleset: str, a: str, b: str, think_ms: float | None, seed: str) -> Path:
    t = f"{think_ms:g}ms" if think_ms else "iters"
    safe = [x.replace(":", "-").replace("/", "_") for x in (Path(ruleset).stem, a, b)]
    return out / f"{safe[0]}__{safe[1]}__{safe[2]}__{t}__seed{seed}.jsonl"


#: CPU milliseconds per search iteration (one play-out) on online, for the time estimate of an iteration
#: budget (measured: ~0.38 ms with ISMCTS at 270 iterations per decision, load ~10, benchmarks/bench_bot_speed.py;
#: PIMC's are about half that)
MS_PER_ITERATION = 0.38


def seconds_per_choice(spec: str, think_ms: float | None) -> float:
    """About how long ``spec`` thinks per decision with a choice (0 for a bot that does not search)."""
    from gouji_dsl.bots import parse_bot_spec
    kind, iters = parse_bot_spec(spec)
    if not kind.searches:
        return 0.0
    if think_ms:
        return think_ms / 1000
    return (iters or kind.default_iterations) * MS_PER_ITERATION / 1000


def run_pair(ruleset: str, a: str, b: str, deals: int, seed: str, think_ms: float | None, workers: int, out: Path,
             quiet: bool) -> dict:
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.duel import duel, load_saved, repair_tail, run_header, save_unit

    graph = load_graph(ruleset)
    path = run_file(out, graph.name if Path(ruleset).suffix == "" else ruleset, a, b, think_ms, seed)
    header = run_header(graph.name, a, b, seed, think_ms)
    cut = repair_tail(path)  # a line cut short by a killed run: removed, its unit played again (as `gouji duel`)
    if cut is not None:
        print(f"{path}:{cut}: a line cut short (the run was killed while writing it): removed", file=sys.stderr)
    done = load_saved(path, header)

    def save(unit_games: list) -> None:
        save_unit(path, unit_games, header)

    def progress(n: int, total: int) -> None:
        if not quiet:
            print(f"\r  {graph.name} {a} vs {b}: {n}/{total} units", end="", file=sys.stderr, flush=True)

    report = duel(graph, a, b, deals, seed, think_ms=think_ms, workers=workers, done=done, on_unit=save,
                  progress=progress)
    if not quiet:
        print(file=sys.stderr)
    return report.to_dict() | {"file": str(path)}


def row(d: dict) -> str:
    md, wr, tm = d["mean_diff"], d["a_win_rate"], d["timing"]

    def ci(e: dict, pct: bool = False) -> str:
        k = 100 if pct else 1
        if e["low"] is None:
            return f"{e['value'] * k:+.2f}"
        return f"{e['value'] * k:+.2f} [{e['low'] * k:+.2f}, {e['high'] * k:+.2f}]" if not pct else \
            f"{e['value'] * k:.1f}% [{e['low'] * k:.1f}, {e['high'] * k:.1f}]"

    def speed(t: dict) -> str:
        ms = t["ms_per_searched"]
        return f"{t['decisions_per_s'] or 0:,.0f} ({ms:.1f} ms)" if ms is not None else "n/a"

    think = f"{d['think_ms']:g} ms" if d["think_ms"] else "iterations"
    return (f"| {d['ruleset']} | {d['a']} | {d['b']} | {think} | {d['deals']} | {ci(md)} | {ci(wr, True)} | "
            f"{speed(tm['a'])} | {speed(tm['b'])} |")


HEADER = ("| ruleset | A | B | budget | deals | A − B per game (95 % CI) | A's team ahead | A decisions/s (ms per choice) "
          "| B decisions/s (ms per choice) |\n| --- | --- | --- | --- | --- | --- | --- | --- | --- |")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--ruleset", action="append", help="bundled name or path (repeatable; default online and rulebook)")
    ap.add_argument("--pairs", default=",".join(DEFAULT_PAIRS), help=f"A:B,... (default {','.join(DEFAULT_PAIRS)})")
    ap.add_argument("--deals", type=int, default=300, help="deals per pair and ruleset, each played twice (default 300)")
    ap.add_argument("--think-ms", type=float, default=100.0, help="think time per decision (default 100; 0: iteration budgets)")
    ap.add_argument("--seed", default="1", help="seed of the deals (default 1)")
    ap.add_argument("--workers", type=int, default=1, help="processes (default 1)")
    ap.add_argument("--out", default=str(Path(__file__).resolve().parent / "results" / "bots"),
                    help="folder for the per-pair result files (default benchmarks/results/bots)")
    ap.add_argument("--table", action="store_true", help="only print the table of the saved results")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    rulesets = args.ruleset or ["online", "rulebook"]
    pairs = [tuple(p.split(":", 1)) if p.count(":") == 1 else _pair(p) for p in args.pairs.split(",")]
    think = args.think_ms or None
    out = Path(args.out)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    per_game = sum(seconds_per_choice(a, think) + seconds_per_choice(b, think) for a, b in pairs) * CHOICES_PER_TEAM
    if not args.table:
        est = len(rulesets) * args.deals * 2 * per_game / max(1, args.workers)
        print(f"load average {load:.2f}; estimated {est / 3600:.1f} h on free cores for {len(rulesets)} ruleset(s) × "
              f"{len(pairs)} pair(s) × {args.deals} deals (less for what is saved already)", file=sys.stderr)
    results = []
    t0 = time.perf_counter()
    for r in rulesets:
        for a, b in pairs:
            if args.table:
                from gouji_dsl.ruleset.graph import load_graph
                from gouji_dsl.tools.duel import DuelReport, load_saved, run_header
                g = load_graph(r)
                games = load_saved(run_file(out, g.name if Path(r).suffix == "" else r, a, b, think, args.seed),
                                   run_header(g.name, a, b, args.seed, think))
                if not games:
                    continue
                from gouji_dsl.engine.interpreter import match_length
                rep = DuelReport(g.name, a, b, len({x.deal for x in games}), args.seed, think, games, match_length(g))
                results.append(rep.to_dict())
            else:
                results.append(run_pair(r, a, b, args.deals, args.seed, think, args.workers, out, args.json))
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        print(HEADER)
        for d in results:
            print(row(d))
        if not args.table:
            print(f"\n{time.perf_counter() - t0:.0f} s; load average at the start {load:.2f}")
    return 0


def _pair(p: str) -> tuple[str, str]:
    """``ismcts:200:heuristic`` style pairs (a spec with an iteration budget): split at the bot name."""
    from gouji_dsl.bots import BOTS
    parts = p.split(":")
    for i in range(1, len(parts)):
        if parts[i] in BOTS:
            return ":".join(parts[:i]), ":".join(parts[i:])
    raise SystemExit(f"cannot read the pair {p!r}: write A:B, e.g. ismcts:heuristic or ismcts:200:heuristic")


if __name__ == "__main__":
    raise SystemExit(main())
