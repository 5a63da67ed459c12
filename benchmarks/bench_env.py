"""Decisions per CPU second of the PettingZoo environment (gouji_dsl.env), random masked actions.

    nice python benchmarks/bench_env.py                       # six-deck-eagle, 20 games
    nice python benchmarks/bench_env.py --ruleset online --games 50 --engine interpreter

Every decision is one ``env.last()`` (the seat's observation from its view and its action mask) and
one ``env.step(action)``; the action is drawn uniformly among the legal ones with numpy. CPU time is
``time.process_time`` of this process (what a free core would take); the load average is printed.
"""
from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:  # pragma: no cover
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np

from gouji_dsl.env import GoujiEnv


def play(env: GoujiEnv, seed: int, rng: np.random.Generator) -> int:
    """One game of uniformly random legal actions; its decisions."""
    env.reset(seed=seed)
    n = 0
    for _agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.integers(len(legal))]))
        n += 1
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="six-deck-eagle")
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--engine", default="generated", choices=["generated", "interpreter"])
    a = ap.parse_args()
    env = GoujiEnv(a.ruleset, engine=a.engine)
    rng = np.random.default_rng(a.seed)
    print(f"load average before: {os.getloadavg()[0]:.2f}")
    # one game first, not timed: the first game compiles the ruleset's generated module and plans its
    # native flow (seconds on six-deck-eagle), once per process
    play(env, a.seed - 1, rng)
    decisions = 0
    t0, w0 = time.process_time(), time.perf_counter()
    for g in range(a.games):
        decisions += play(env, a.seed + g, rng)
    cpu, wall = time.process_time() - t0, time.perf_counter() - w0
    print(f"{a.ruleset} ({a.engine}): {a.games} games, {decisions} decisions, {cpu:.2f} s CPU ({wall:.2f} s wall): "
          f"{decisions / cpu:,.0f} decisions per CPU second, {decisions / a.games:.0f} per game")
    print(f"load average after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
