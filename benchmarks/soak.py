"""Soak test: N random games of each bundled ruleset, played as matches where the ruleset has
them; checks that every card is conserved after every move and that every game ends.

    python benchmarks/soak.py --games 2000 [--ruleset NAME ...] [--seed S]

Prints one line per ruleset: games, matches, mean decisions, games/s, failures.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

from gouji_dsl.engine.interpreter import new_game, next_game
from gouji_dsl.resources import bundled_names
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.simulate import game_seed, match_length


def soak(name: str, games: int, seed: int) -> tuple[int, float, list[str]]:
    graph = load_graph(name)
    total = sum(graph.model.deck_counts)
    length = match_length(graph)
    failures: list[str] = []
    decisions = 0
    prev = None
    for i in range(games):
        gs = game_seed(seed, i)
        state = next_game(prev, gs) if (prev is not None and i % length) else new_game(graph, gs)
        rng = random.Random(gs + ":bots")
        played = 0
        steps = 0
        try:
            while not state.over:
                moves = state.legal_moves()
                if not moves:
                    raise AssertionError(f"no legal move for seat {state.to_act} in phase {state.phase}")
                m = rng.choice(moves)
                redeals = state.redealt
                if m.cards is not None and m.verb in ("play", "burn"):
                    played += sum(m.cards)
                state.apply_in_place(m)
                if state.redealt and not redeals:
                    played = 0
                held = sum(sum(state.hands[s]) for s in state.seat_list) + sum(state.discarded)
                if held + played != total:
                    raise AssertionError(f"cards not conserved: {held} held + {played} played != {total}")
                steps += 1
                if steps > 50_000:
                    raise AssertionError("game did not end")
            if sorted(state.places.values()) != list(range(1, graph.n_seats + 1)) and not state.redealt:
                raise AssertionError(f"places incomplete: {state.places}")
        except Exception as e:
            failures.append(f"{name} game {gs}: {e}")
        decisions += state.decisions
        prev = state
    return decisions, 0.0, failures


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=2000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--ruleset", action="append")
    args = ap.parse_args(argv)
    bad = 0
    for name in args.ruleset or bundled_names():
        t = time.perf_counter()
        decisions, _, failures = soak(name, args.games, args.seed)
        dt = time.perf_counter() - t
        print(f"{name:16} games={args.games} mean_decisions={decisions / args.games:.1f} "
              f"games/s={args.games / dt:.1f} failures={len(failures)}", flush=True)
        for f in failures[:5]:
            print("   ", f)
        bad += len(failures)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
