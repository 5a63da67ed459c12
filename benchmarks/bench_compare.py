"""Benchmark: time for N paired deals (default 1,000) with random bots, one worker vs several.

    python benchmarks/bench_compare.py [--a base] [--b online] [--games 1000] [--seed 1] [--workers 1,2]

Each paired deal is two full games (one per ruleset). Prints, per worker count, the wall time of
:func:`gouji_dsl.tools.compare.paired_simulation` (worker start-up and the re-play of the divergent deals
included), paired deals per second and games per second, and checks that every worker count gives
the same report. Not a test: the figures go in the README.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.compare import paired_simulation


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--a", default="base", help="ruleset A (name or path)")
    ap.add_argument("--b", default="online", help="ruleset B (name or path)")
    ap.add_argument("--games", type=int, default=1000)
    ap.add_argument("--seed", default="1")
    ap.add_argument("--bots", default="random")
    ap.add_argument("--workers", default="1,2", help="comma-separated worker counts to time")
    args = ap.parse_args()

    ga, gb = load_graph(args.a), load_graph(args.b)
    print(f"{args.a} vs {args.b}: {args.games} paired deals ({2 * args.games} games), seed {args.seed}, "
          f"{args.bots} bots; Python {platform.python_version()}, {os.cpu_count()} CPU(s)")
    reference = None
    first = None
    times: dict[int, float] = {}
    for w in (int(x) for x in args.workers.split(",")):
        t0 = time.perf_counter()
        report = paired_simulation(ga, gb, args.games, args.seed, bots=args.bots, workers=w)
        times[w] = wall = time.perf_counter() - t0
        data = report.to_dict(timing=False)
        same = "" if reference is None else (
            f"  (same report as workers={first})" if data == reference else "  (REPORT DIFFERS!)")
        if reference is None:
            reference, first = data, w
        print(f"workers={w}: {wall:6.2f} s  {args.games / wall:6.1f} paired deals/s  "
              f"{2 * args.games / wall:6.1f} games/s{same}")
    if 1 in times:
        print("speed-up over one worker: " + ", ".join(f"workers={w} x{times[1] / t:.2f}" for w, t in times.items()
                                                    if w != 1))

if __name__ == "__main__":
    main()
