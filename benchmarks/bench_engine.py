"""Engine benchmark: bot games per second and decisions per second on one core.

    python benchmarks/bench_engine.py                    # 200 random-bot games of `online`
    python benchmarks/bench_engine.py --games 500 --seed 7 --bots heuristic
    python benchmarks/bench_engine.py --profile          # plus a cProfile top-15 (self time)

The ruleset is resolved and compiled once, outside the timed part; the timed part deals and plays
every game (legal-move generation, rule questions, apply, bots). The process is pinned to one CPU
where the OS allows it (``os.sched_setaffinity``). This is a measurement, not a test: the figures
go into the README's "Benchmarks" section.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import sys
import time
from pathlib import Path

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def pin_one_core() -> str:
    """Pin this process to a single CPU; returns a description of what was done."""
    if hasattr(os, "sched_setaffinity"):
        try:
            cpu = min(os.sched_getaffinity(0))
            os.sched_setaffinity(0, {cpu})
            return f"pinned to CPU {cpu}"
        except OSError as e:  # pragma: no cover - containers may forbid it
            return f"not pinned ({e})"
    return "not pinned (no sched_setaffinity); single-threaded anyway"


def run(graph, games: int, seed, bots: str):
    from gouji_dsl.tools.simulate import simulate

    t0 = time.perf_counter()
    results = simulate(graph, games, seed, bots)
    elapsed = time.perf_counter() - t0
    return results, elapsed


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=200, help="games to play (default 200)")
    ap.add_argument("--ruleset", default="online", help="bundled name or path (default online)")
    ap.add_argument("--seed", default="1", help="run seed (default 1)")
    ap.add_argument("--bots", choices=["random", "heuristic"], default="random", help="bot for every seat")
    ap.add_argument("--warmup", type=int, default=3, help="untimed games first (default 3)")
    ap.add_argument("--profile", action="store_true", help="also run under cProfile and print the top 15")
    ap.add_argument("--sort", default="tottime", choices=["tottime", "cumulative"],
                    help="profile order (default tottime: self time)")
    args = ap.parse_args(argv)

    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.ruleset.graph import load_graph

    pinned = pin_one_core()
    t0 = time.perf_counter()
    try:
        graph = load_graph(args.ruleset)
    except GoujiError as e:
        print(e.format(), file=sys.stderr)
        return 1
    compile_s = time.perf_counter() - t0
    seed = int(args.seed) if args.seed.lstrip("-").isdigit() else args.seed

    if args.warmup:
        run(graph, args.warmup, f"warmup-{seed}", args.bots)
    results, elapsed = run(graph, args.games, seed, args.bots)
    decisions = sum(r.decisions for r in results)
    tricks = sum(r.tricks for r in results)

    print(f"gouji-dsl engine benchmark — {platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs visible, {pinned}")
    print(f"ruleset {graph.name} ({len(graph.nodes)} rules, compiled in {compile_s * 1000:.0f} ms), "
          f"{args.bots} bots, seed {seed}")
    print(f"games:        {len(results)} in {elapsed:.2f} s")
    print(f"games/s:      {len(results) / elapsed:.1f}")
    print(f"decisions/s:  {decisions / elapsed:,.0f}  ({decisions / len(results):.1f} decisions per game)")
    print(f"tricks/game:  {tricks / len(results):.1f}")
    print(f"ms per game:  {elapsed / len(results) * 1000:.2f}")

    if args.profile:
        prof = cProfile.Profile()
        prof.enable()
        run(graph, args.games, seed, args.bots)
        prof.disable()
        buf = io.StringIO()
        stats = pstats.Stats(prof, stream=buf).strip_dirs().sort_stats(args.sort)
        stats.print_stats(15)
        print(f"\ncProfile, top 15 by {args.sort} (profiling slows the run down):")
        text = buf.getvalue()
        start = text.find("   ncalls")
        print(text[start:].rstrip() if start >= 0 else text.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
