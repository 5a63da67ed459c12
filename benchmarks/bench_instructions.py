"""Instruction count of the generated play-out per decision, under callgrind: the same figure on a
quiet or a loaded machine, for before/after comparisons that must not depend on the load.

    python benchmarks/bench_instructions.py [--ruleset online] [--games 50] [--warm 40]

Runs the workload (``--warm`` games to fill the per-ruleset tables, then ``--games`` games, random
bots, run seed 1) under ``valgrind --tool=callgrind`` twice, with and without the measured games,
and prints the difference per decision (startup, generation and warm-up cancel out). Needs
valgrind; takes about a minute per run.
"""
from __future__ import annotations

import argparse
import os
import random
import re
import subprocess
import sys
import tempfile


def workload(ruleset: str, games: int, warm: int) -> int:
    """Play ``warm`` then ``games`` games; returns the decisions of the measured games."""
    from gouji_dsl.bots import make_bot
    from gouji_dsl.engine import fast
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import match_length
    graph = load_graph(ruleset)
    eng = fast.engine(graph)
    assert eng is not None, fast.fallback_reason(graph)
    length = match_length(graph)

    def run(n: int, seed: str) -> int:
        prev = None
        decisions = 0
        for i in range(n):
            bots = [make_bot("random", random.Random(f"{seed}:{i}:bot{s}")) for s in range(1, graph.n_seats + 1)]
            prev = eng.play_game(seed, i, bots, previous=prev if i % length else None)
            decisions += prev.decisions
        return decisions
    run(warm, "warm")
    return run(games, "1")


def instructions(ruleset: str, games: int, warm: int) -> tuple[int, int]:
    """(instructions, decisions) of one callgrind run of the workload."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__,
               "--workload", "--ruleset", ruleset, "--games", str(games), "--warm", str(warm)]
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ir = int(re.search(r"Collected : (\d+)", res.stderr).group(1))  # type: ignore[union-attr]
    decisions = int(re.search(r"decisions (\d+)", res.stdout).group(1))  # type: ignore[union-attr]
    return ir, decisions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="online")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--warm", type=int, default=40)
    ap.add_argument("--workload", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workload:
        print(f"decisions {workload(args.ruleset, args.games, args.warm)}")
        return 0
    base, _ = instructions(args.ruleset, 0, args.warm)
    total, decisions = instructions(args.ruleset, args.games, args.warm)
    print(f"{args.ruleset}: {args.games} games, {decisions} decisions, {total - base:,} instructions, "
          f"{(total - base) / decisions:,.0f} per decision (callgrind, after {args.warm} warm-up games)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
