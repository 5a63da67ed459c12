"""Instruction count of the generated play-out per decision, under callgrind: the same figure on a
quiet or a loaded machine, for before/after comparisons that must not depend on the load.

    python benchmarks/bench_instructions.py [--ruleset online] [--games 50] [--warm 40] [--gc]
    python benchmarks/bench_instructions.py --functions 25     # where the bytecodes and calls go
    python benchmarks/bench_instructions.py --bots heuristic --core   # heuristic bots, inside the native core only
    python benchmarks/bench_instructions.py --simulate --games 200 --warm 50   # as gouji simulate plays (totals too)
    python benchmarks/bench_instructions.py --simulate --bots heuristic --games 100 --warm 20

Runs the workload (``--warm`` games to fill the per-ruleset tables, then ``--games`` games, random
bots, run seed 1) under ``valgrind --tool=callgrind`` twice, with and without the measured games,
and prints the difference per decision (startup, generation and warm-up cancel out). Needs
valgrind; takes about a minute per run. ``--bots heuristic``: heuristic bots at every seat;
``--core``: only the instructions inside the native core's play phase (``Flow.run``, its packing
and unpacking of the state included: callgrind ``--toggle-collect``; with ``--simulate``, inside
``Flow.play_games``: the whole games of a batch).

The cyclic garbage collector is frozen and switched off for the measured games (its passes move
the figure by about 3 % from run to run, which hides a 2 % step); ``--gc`` leaves it on.
``--functions N`` runs the workload without valgrind and prints, per Python function of the
play-out, the bytecodes it executes and its calls per decision (an opcode tracer: exact and
load-independent, but it counts bytecodes, not their cost), the top N by bytecodes, and the
builtins' calls per decision (cProfile).
"""
from __future__ import annotations

import argparse
import collections
import cProfile
import gc
import os
import pstats
import random
import re
import subprocess
import sys
import tempfile
from typing import Any


def simulate_workload(ruleset: str, games: int, warm: int, bots: str = "random") -> int:
    """``--simulate``: what ``gouji simulate`` does per game, totals included (``runchunks.play_chunk``:
    whole games in the native core in batches where it plays them); returns the decisions."""
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.runchunks import play_chunk
    from gouji_dsl.tools.runspec import RunSpec
    graph = load_graph(ruleset)
    spec = RunSpec((graph.resolved,), 1, bots, True, "generated")
    play_chunk((graph,), spec, 0, warm)
    gc.collect()
    gc.freeze()
    gc.disable()
    totals = play_chunk((graph,), spec, warm, warm + games) if games else None
    return 0 if totals is None else int(totals.means["decisions"].s)  # type: ignore[union-attr]


def workload(ruleset: str, games: int, warm: int, *, keep_gc: bool = False, measured: Any = None,
             bots: str = "random") -> int:
    """Play ``warm`` then ``games`` games; returns the decisions of the measured games.

    Unless ``keep_gc``, the collector is frozen and off for the measured games. ``measured`` is a
    context manager (a profiler) entered around the measured games only."""
    from gouji_dsl.bots import make_bot
    from gouji_dsl.engine import fast
    from gouji_dsl.engine.interpreter import match_length
    from gouji_dsl.ruleset.graph import load_graph
    graph = load_graph(ruleset)
    eng = fast.engine(graph)
    assert eng is not None, fast.fallback_reason(graph)
    length = match_length(graph)

    def run(n: int, seed: str) -> int:
        prev = None
        decisions = 0
        for i in range(n):
            players = [make_bot(bots, random.Random(f"{seed}:{i}:bot{s}")) for s in range(1, graph.n_seats + 1)]
            prev = eng.play_game(seed, i, players, previous=prev if i % length else None)
            decisions += prev.decisions
        return decisions
    run(warm, "warm")
    if not keep_gc:
        gc.collect()
        gc.freeze()
        gc.disable()
    if measured is None:
        return run(games, "1")
    with measured:
        return run(games, "1")


class OpcodeCounter:
    """Counts the bytecodes executed and the calls made per Python function (sys.settrace)."""

    def __init__(self) -> None:
        self.ops: collections.Counter[str] = collections.Counter()
        self.calls: collections.Counter[str] = collections.Counter()

    def _trace(self, frame: Any, event: str, arg: Any) -> Any:
        code = frame.f_code
        key = f"{os.path.basename(code.co_filename)}:{code.co_firstlineno}({code.co_name})"
        if event == "call":
            self.calls[key] += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
        elif event == "opcode":
            self.ops[key] += 1
        return self._trace

    def __enter__(self) -> OpcodeCounter:
        sys.settrace(self._trace)
        return self

    def __exit__(self, *exc: object) -> None:
        sys.settrace(None)


def functions(ruleset: str, games: int, warm: int, top: int, keep_gc: bool) -> None:
    """Print bytecodes and calls per decision per function, and the builtins' calls (cProfile)."""
    counter = OpcodeCounter()
    decisions = workload(ruleset, games, warm, keep_gc=keep_gc, measured=counter)
    total = sum(counter.ops.values())
    print(f"{ruleset}: {games} games, {decisions} decisions; {total / decisions:,.1f} bytecodes and "
          f"{sum(counter.calls.values()) / decisions:.2f} Python calls per decision")
    print(f"{'bytecodes/dec':>14} {'share':>6} {'calls/dec':>10}  function")
    for key, n in counter.ops.most_common(top):
        print(f"{n / decisions:14,.1f} {n / total:6.1%} {counter.calls[key] / decisions:10.3f}  {key}")
    prof = cProfile.Profile()
    decisions = workload(ruleset, games, warm, keep_gc=keep_gc, measured=prof)
    stats = pstats.Stats(prof).stats  # type: ignore[attr-defined]
    calls = sum(v[1] for v in stats.values())
    builtin = sorted(((v[1], k[2]) for k, v in stats.items() if k[0] == "~"), reverse=True)
    print(f"cProfile: {calls / decisions:.2f} calls per decision, builtins included; builtins:")
    for n, name in builtin[:top]:
        if name != "<method 'disable' of '_lsprof.Profiler' objects>":
            print(f"{n / decisions:10.3f}  {name}")


def instructions(ruleset: str, games: int, warm: int, keep_gc: bool, simulate: bool = False, bots: str = "random",
                 core: bool = False) -> tuple[int, int]:
    """(instructions, decisions) of one callgrind run of the workload (``core``: inside Flow.run only)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "cg.out")
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + (
            [f"--toggle-collect={'Flow_play_games' if simulate else 'Flow_run'}"] if core else []) + [
               sys.executable, __file__, "--workload", "--ruleset", ruleset, "--games", str(games), "--warm", str(warm),
               "--bots", bots] + (["--gc"] if keep_gc else [])
        cmd += ["--simulate"] if simulate else []
        res = subprocess.run(cmd, capture_output=True, text=True, check=True)
    ir = int(re.search(r"Collected : (\d+)", res.stderr).group(1))  # type: ignore[union-attr]
    decisions = int(re.search(r"decisions (\d+)", res.stdout).group(1))  # type: ignore[union-attr]
    return ir, decisions


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", default="online")
    ap.add_argument("--games", type=int, default=50)
    ap.add_argument("--warm", type=int, default=40)
    ap.add_argument("--gc", action="store_true", help="leave the garbage collector on for the measured games")
    ap.add_argument("--functions", type=int, metavar="N",
                    help="no valgrind: bytecodes and calls per decision per function, top N")
    ap.add_argument("--simulate", action="store_true",
                    help="measure what gouji simulate does per game (runchunks.play_chunk: native whole games, totals)")
    ap.add_argument("--bots", choices=["random", "heuristic"], default="random", help="bot for every seat")
    ap.add_argument("--core", action="store_true", help="count only inside the native core's play phase (Flow.run)")
    ap.add_argument("--workload", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.workload:
        d = simulate_workload(args.ruleset, args.games, args.warm, args.bots) if args.simulate else \
            workload(args.ruleset, args.games, args.warm, keep_gc=args.gc, bots=args.bots)
        print(f"decisions {d}")
        return 0
    if args.functions:
        functions(args.ruleset, args.games, args.warm, args.functions, args.gc)
        return 0
    base, _ = instructions(args.ruleset, 0, args.warm, args.gc, args.simulate, args.bots, args.core)
    total, decisions = instructions(args.ruleset, args.games, args.warm, args.gc, args.simulate, args.bots, args.core)
    print(f"{args.ruleset}: {args.bots} bots, {args.games} games, {decisions} decisions, {total - base:,} instructions"
          f"{' inside Flow.run' if args.core else ''}, "
          f"{(total - base) / decisions:,.0f} per decision (callgrind, after {args.warm} warm-up games, "
          f"collector {'on' if args.gc else 'frozen and off'}{', as gouji simulate plays them' if args.simulate else ''})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
