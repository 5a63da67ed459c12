"""Time the burn look-ahead (issue 22.22): ``doomed_burn`` at every burn offer and every burning seat's
lead of random games, as the play screen runs it on each keystroke that types such a move.

    python benchmarks/bench_burn_lookahead.py [--ruleset online] [--games 20]

Prints how many moves were looked at, how many are doomed, the median / p99 / max time and the most
moves one doomed look-ahead examined (at most ``BURN_LOOKAHEAD``). Games are random (seeded 0..N-1).
"""
from __future__ import annotations

import argparse
import random
import time

from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.engine.lookahead import BURN_LOOKAHEAD, doomed_burn
from gouji_dsl.engine.terms import Capacity, Verb
from gouji_dsl.ruleset.graph import load_graph

MAX_DECISIONS = 3000


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="online")
    ap.add_argument("--games", type=int, default=20)
    args = ap.parse_args()
    g = load_graph(args.ruleset)
    times: list[float] = []
    doomed = 0
    examined: list[int] = []
    for seed in range(args.games):
        st = new_game(g, seed)
        rng = random.Random(seed)
        for _ in range(MAX_DECISIONS):
            if st.over:
                break
            moves = list(st.legal_moves())
            if st.capacity == Capacity.BURN or (st.burner == st.to_act and st.capacity == Capacity.LEAD):
                for m in moves:
                    if m.verb not in (Verb.BURN, Verb.PLAY):
                        continue
                    t = time.perf_counter()
                    d = doomed_burn(st, m)
                    times.append(time.perf_counter() - t)
                    if d is not None:
                        doomed += 1
                        examined.append(d.examined)
            st.apply_in_place(rng.choice(moves), trusted=True)
    if not times:
        print(f"{args.ruleset}: no burn in {args.games} games")
        return
    times.sort()
    print(f"{args.ruleset}, {args.games} random games: {len(times)} burns and burning leads looked at, {doomed} doomed; "
          f"median {times[len(times) // 2] * 1e3:.1f} ms, p99 {times[int(len(times) * 0.99)] * 1e3:.0f} ms, "
          f"max {times[-1] * 1e3:.0f} ms; most moves examined by a doomed look-ahead: {max(examined, default=0)} "
          f"(budget {BURN_LOOKAHEAD})")


if __name__ == "__main__":
    main()
