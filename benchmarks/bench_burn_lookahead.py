"""Time the burn look-ahead (issue 22.22): ``doomed_burn`` at every burn offer and every burning seat's
lead of random games, as the play screen runs it on each keystroke that types such a move.

    python benchmarks/bench_burn_lookahead.py [--ruleset online] [--games 20] [--long-hands-only]

Prints how many moves were looked at, how many are doomed, the median / p99 / max time and the most
positions one doomed look-ahead examined (at most ``BURN_LOOKAHEAD``). Games are random (seeded
0..N-1). Then the long hands of a tester's report (issue 22.22: doomed burns with 28 cards the old
400-move look-ahead missed): every burn offered to a seat holding 20 cards or more in the first 90
decisions of online seed 7 played by heuristic bots (tests/test_burn_lookahead.py has one of them).
"""
from __future__ import annotations

import argparse
import random
import time

from gouji_dsl.bots import make_bot
from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.engine.lookahead import BURN_LOOKAHEAD, DoomedBurn, doomed_burn
from gouji_dsl.ruleset.game.terms import Capacity, Verb
from gouji_dsl.ruleset.graph import load_graph

MAX_DECISIONS = 3000


def _ms(times: list[float]) -> str:
    times = sorted(times)
    return (f"median {times[len(times) // 2] * 1e3:.1f} ms, p99 {times[int(len(times) * 0.99)] * 1e3:.0f} ms, "
            f"max {times[-1] * 1e3:.0f} ms")


def long_hands() -> None:
    """The burns offered to long hands in online seed 7 (heuristic bots), as the tester met them."""
    g = load_graph("online")
    st = new_game(g, 7)
    bot = make_bot("heuristic", random.Random(7))
    doomed: list[float] = []
    other: list[float] = []
    most = 0
    while not st.over and st.decisions < 90:
        moves = list(st.legal_moves())
        if st.capacity == Capacity.BURN and st.to_act is not None and st.hand_size(st.to_act) >= 20:
            for m in moves:
                if m.verb == Verb.BURN:
                    t = time.perf_counter()
                    d = doomed_burn(st, m)
                    (doomed if isinstance(d, DoomedBurn) else other).append(time.perf_counter() - t)
                    most = max(most, d.examined if isinstance(d, DoomedBurn) else 0)
        st.apply_in_place(bot.choose(st, moves))
    print(f"long hands (online seed 7, heuristic bots, 20+ cards): {len(doomed)} doomed burns found, "
          f"{_ms(doomed)}; {len(other)} not warned, {_ms(other) if other else '-'}; most positions {most}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="online")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--long-hands-only", action="store_true")
    args = ap.parse_args()
    if args.long_hands_only:
        long_hands()
        return
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
                    if isinstance(d, DoomedBurn):
                        doomed += 1
                        examined.append(d.examined)
            st.apply_in_place(rng.choice(moves), trusted=True)
    if not times:
        print(f"{args.ruleset}: no burn in {args.games} games")
    else:
        print(f"{args.ruleset}, {args.games} random games: {len(times)} burns and burning leads looked at, {doomed} "
              f"doomed; {_ms(times)}; most positions examined by a doomed look-ahead: {max(examined, default=0)} "
              f"(budget {BURN_LOOKAHEAD})")
    long_hands()


if __name__ == "__main__":
    main()
