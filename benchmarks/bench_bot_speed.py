"""Decisions per second of each bot of the registry, at its default budget.

    python benchmarks/bench_bot_speed.py                         # every bot on online
    python benchmarks/bench_bot_speed.py --ruleset rulebook --games 4
    python benchmarks/bench_bot_speed.py --bots ismcts:44,pimc --json

Each bot plays ``--games`` games (deal ``i`` from seed ``S:i``) at the odd seats against the heuristic
bot at the even seats, so every bot meets the same kind of game. Only the measured bot's decisions are
timed: all of them, and those with a choice (more than one legal move; a search bot searches only
those). Times are both CPU time of this process (``time.process_time``: what a free core would
take) and wall time (what it took on this machine under its load). The load average is printed
before and after: on a shared machine the wall-time figures are slower than a free core's.
Fast bots (that do not search) play ``--fast-games`` games instead (default 200) so their figure
is not the noise of a few milliseconds.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


class Stopwatch:
    """Wraps a bot; sums CPU and wall time of its decisions, all of them and those with a choice."""

    def __init__(self, bot: Any):
        self.bot = bot
        self.name = bot.name
        self.n = [0, 0]            # decisions, decisions with a choice
        self.cpu = [0.0, 0.0]
        self.wall = [0.0, 0.0]
        self.iterations = 0

    def choose(self, state: Any, moves: Sequence[Any]) -> Any:
        c0, w0 = time.process_time(), time.perf_counter()
        m = self.bot.choose(state, moves)
        dc, dw = time.process_time() - c0, time.perf_counter() - w0
        for k in (0, 1) if len(moves) > 1 else (0,):
            self.n[k] += 1
            self.cpu[k] += dc
            self.wall[k] += dw
        last = getattr(self.bot, "last", None)
        if last is not None and len(moves) > 1:
            self.iterations += last.iterations
            self.bot.last = None
        return m


def measure(ruleset: str, spec: str, games: int, seed: str) -> dict[str, Any]:
    from gouji_dsl.bots import BOTS, make_bot, parse_bot_spec
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import play_game

    graph = load_graph(ruleset)
    kind, iters = parse_bot_spec(spec)
    watches: list[Stopwatch] = []
    for i in range(games):
        players: dict[int, Any] = {}
        for s in range(1, graph.n_seats + 1):
            rng = random.Random(f"{seed}:{i}:{s}")
            if s % 2:
                w = Stopwatch(make_bot(spec, rng))
                watches.append(w)
                players[s] = w
            else:
                players[s] = make_bot("heuristic", rng)
        names = [spec if s % 2 else "heuristic" for s in range(1, graph.n_seats + 1)]
        play_game(graph, seed, i, names, players=players)
    n = [sum(w.n[k] for w in watches) for k in (0, 1)]
    cpu = [sum(w.cpu[k] for w in watches) for k in (0, 1)]
    wall = [sum(w.wall[k] for w in watches) for k in (0, 1)]
    its = sum(w.iterations for w in watches)
    budget = (iters or kind.default_iterations) if kind.searches else None
    return {
        "ruleset": graph.name, "bot": spec, "kind": kind.name, "iterations_budget": budget, "games": games,
        "decisions": n[0], "with_choice": n[1],
        "per_s_cpu": n[0] / cpu[0] if cpu[0] else None, "per_s_wall": n[0] / wall[0] if wall[0] else None,
        "choice_per_s_cpu": n[1] / cpu[1] if cpu[1] else None,
        "choice_per_s_wall": n[1] / wall[1] if wall[1] else None,
        "ms_per_choice_cpu": 1000 * cpu[1] / n[1] if n[1] else None,
        "ms_per_choice_wall": 1000 * wall[1] / n[1] if n[1] else None,
        "iterations_per_choice": its / n[1] if (n[1] and kind.searches) else None,
        "summary": BOTS[kind.name].summary,
    }


def _f(x: float | None, digits: int = 1) -> str:
    return "n/a" if x is None else f"{x:,.{digits}f}"


HEADER = ("| ruleset | bot | budget | decisions (with a choice) | decisions/s, CPU | decisions with a choice/s, CPU "
          "| ms per choice, CPU / wall | iterations per choice |\n| --- | --- | --- | --- | --- | --- | --- | --- |")


def row(d: dict[str, Any]) -> str:
    budget = f"{d['iterations_budget']} iterations" if d["iterations_budget"] else "—"
    return (f"| {d['ruleset']} | {d['bot']} | {budget} | {d['decisions']:,} ({d['with_choice']:,}) | "
            f"{_f(d['per_s_cpu'], 0)} | {_f(d['choice_per_s_cpu'], 1)} | "
            f"{_f(d['ms_per_choice_cpu'], 2)} / {_f(d['ms_per_choice_wall'], 2)} | {_f(d['iterations_per_choice'], 1)} |")


def main(argv: list[str] | None = None) -> int:
    from gouji_dsl.bots import BOTS, parse_bot_spec

    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--ruleset", default="online", help="bundled name or path (default online)")
    ap.add_argument("--bots", default=",".join(BOTS), help=f"bot specs, comma-separated (default {','.join(BOTS)})")
    ap.add_argument("--games", type=int, default=4, help="games per search bot (default 4)")
    ap.add_argument("--fast-games", type=int, default=200, help="games per bot that does not search (default 200)")
    ap.add_argument("--seed", default="speed", help="seed of the deals (default 'speed')")
    ap.add_argument("--json", action="store_true", help="print the results as JSON")
    args = ap.parse_args(argv)
    specs = [b.strip() for b in args.bots.split(",") if b.strip()]
    for s in specs:
        try:
            parse_bot_spec(s)
        except ValueError as e:
            raise SystemExit(str(e)) from None
    load0 = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    print(f"load average at the start {load0[0]:.2f} {load0[1]:.2f} {load0[2]:.2f} on {os.cpu_count()} cores",
          file=sys.stderr)
    t0 = time.perf_counter()
    results = []
    for s in specs:
        games = args.games if parse_bot_spec(s)[0].searches else args.fast_games
        results.append(measure(args.ruleset, s, games, args.seed))
        print(f"  {s}: done ({time.perf_counter() - t0:.0f} s)", file=sys.stderr)
    load1 = os.getloadavg() if hasattr(os, "getloadavg") else (float("nan"),) * 3
    if args.json:
        print(json.dumps({"load_start": load0, "load_end": load1, "results": results}, indent=2))
    else:
        print(HEADER)
        for d in results:
            print(row(d))
        print(f"\n{time.perf_counter() - t0:.0f} s; load average at the start {load0[0]:.2f}, at the end {load1[0]:.2f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
