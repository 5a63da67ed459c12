"""Native core benchmark: what its parts cost, measured inside the core (no crossing per run).

    python benchmarks/bench_native.py                 # online: hook programs and the deal
    python benchmarks/bench_native.py --ruleset rulebook --reps 20000
    python benchmarks/bench_native.py --no-callgrind  # timings only (no valgrind)

- Hook programs: every expression of the hot hooks of the ruleset (follow, follow_order, yield,
  yield_to, burn, burn_order, burn_lead, after_play, trick_won, next_leader) that the emitter
  accepts, run on contexts from an interpreter game: ns per program run (CPU time, best of 3) and,
  with valgrind, instructions per program run (callgrind, load-independent: the difference of two
  runs with and without the repetitions, divided by the runs).
- The deal: shuffle and deal of the pack by the native generator (``_core.deal``) against
  ``interpreter.deal_hands`` with ``random.Random`` (the same cards, checked), per deal.

The figures go into the README's native-core section. Not a test.
"""
from __future__ import annotations

import argparse
import os
import pickle
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

try:
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HOT = ("follow", "follow_order", "yield", "yield_to", "burn", "burn_order", "burn_lead", "after_play", "trick_won",
       "next_leader")

CHILD = r'''
import importlib.util, pickle, sys
spec = importlib.util.spec_from_file_location("gouji_dsl.engine.native._core", sys.argv[1])
core = importlib.util.module_from_spec(spec)
spec.loader.exec_module(core)
codes, ctxs = pickle.load(open(sys.argv[2], "rb"))
reps = int(sys.argv[3])
for ctx in ctxs:
    core.vm_bench(codes, ctx, reps)
'''


def workload(ruleset: str) -> tuple[list[bytes], list[bytes], int]:
    from gouji_dsl.engine.interpreter import new_game
    from gouji_dsl.engine.native import Unsupported, hooks
    from gouji_dsl.ruleset.game.context import Ctx
    from gouji_dsl.ruleset.graph import load_graph
    g = load_graph(ruleset)
    codes, total = [], 0
    for node in g.nodes:
        if node.hook not in HOT:
            continue
        for tree in node.checked.values():
            total += 1
            try:
                codes.append(hooks.emit(g, tree).code)
            except Unsupported:
                pass
    st = new_game(g, "bench")
    rng = random.Random(1)
    ctxs = []
    for i in range(200):
        if st.over:
            break
        if i % 25 == 10 and st.top is not None:
            ctxs.append(hooks.pack_context(g, Ctx(st, seat=st.to_act, top=st.top, play=st.top)))
        moves = st.legal_moves()
        st.apply_in_place(moves[rng.randrange(len(moves))], trusted=True)
    return codes, ctxs, total


def instructions(codes: list[bytes], ctxs: list[bytes], reps: int) -> float | None:
    from gouji_dsl.engine.native import _core
    if shutil.which("valgrind") is None:
        return None
    with tempfile.TemporaryDirectory() as d:
        data = Path(d) / "w.pkl"
        data.write_bytes(pickle.dumps((codes, ctxs)))
        counts = []
        for n in (0, reps):
            out = Path(d) / f"cg.{n}"
            subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, "-c", CHILD,
                            str(_core.__file__), str(data), str(n)], capture_output=True, timeout=1800, check=True)
            m = re.search(r"^summary:\s*(\d+)", out.read_text(), re.M)
            if m is None:
                return None
            counts.append(int(m.group(1)))
    return (counts[1] - counts[0]) / (reps * len(codes) * len(ctxs))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ruleset", default="online")
    ap.add_argument("--reps", type=int, default=20000)
    ap.add_argument("--deals", type=int, default=2000)
    ap.add_argument("--no-callgrind", action="store_true")
    a = ap.parse_args()
    if hasattr(os, "sched_setaffinity"):
        try:
            os.sched_setaffinity(0, {max(os.sched_getaffinity(0))})
        except OSError:
            pass
    from gouji_dsl.engine import native
    if not native.available():
        raise SystemExit(f"the native core is not available: {native.unavailable_reason()}")
    from gouji_dsl.engine.interpreter import deal_hands
    from gouji_dsl.engine.native import _core
    from gouji_dsl.engine.native import program as P
    from gouji_dsl.ruleset.graph import load_graph
    codes, ctxs, total = workload(a.ruleset)
    words = sum(len(c) // 4 for c in codes)
    print(f"{a.ruleset}: {len(codes)} of {total} expressions of the hot hooks emitted ({words} words), {len(ctxs)} contexts; "
          f"load {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    best = float("inf")
    for _ in range(3):
        t0 = time.process_time()
        for ctx in ctxs:
            _core.vm_bench(codes, ctx, a.reps)
        best = min(best, time.process_time() - t0)
    runs = a.reps * len(codes) * len(ctxs)
    print(f"hook programs: {best / runs * 1e9:.1f} ns per program run (CPU, best of 3, {runs} runs)")
    if not a.no_callgrind:
        ir = instructions(codes, ctxs, max(1, a.reps // 20))
        print("hook programs: " + (f"{ir:.0f} instructions per program run (callgrind)" if ir is not None
                                   else "no callgrind figure (valgrind missing)"))
    g = load_graph(a.ruleset)
    prog = P.program(g)
    n, k, nr = prog.n_seats, len(prog.kinds), prog.n_ranks
    t0 = time.process_time()
    for i in range(a.deals):
        rng = native.new_random(f"d:{i}")
        _core.deal(rng, prog.deck_kinds, n, k, nr, 1)
    t_native = time.process_time() - t0
    t0 = time.process_time()
    for i in range(a.deals):
        deal_hands(g.model, n, random.Random(f"d:{i}"), first=1)
    t_python = time.process_time() - t0
    print(f"deal ({len(prog.deck_kinds)} cards): native {t_native / a.deals * 1e6:.1f} µs (seeding from the text included), "
          f"interpreter {t_python / a.deals * 1e6:.1f} µs: {t_python / t_native:.1f}x")


if __name__ == "__main__":
    main()
