"""Bot strength: the heuristic team against the random team, mean team score difference with a 95% CI.

    python benchmarks/bench_bots.py                         # 1,000 games of `online`
    python benchmarks/bench_bots.py --ruleset rulebook --games 1000 --seed 1
    python benchmarks/bench_bots.py --a heuristic --b random --json

Design: ``--games`` games in all, half with bot A on seats 1/3/5 and bot B on 2/4/6, half swapped.
Both halves use the same deals (game i of each half is dealt from seed ``S:i``, as
``gouji simulate`` deals), so each deal is played once from each side; in match rulesets
(``match_length`` > 1) the games of one half run as matches with tribute between games, exactly
as ``gouji simulate`` runs them. For every game, the difference is A's team score minus B's team
score (each team's score is one of its seats' scores: every seat scores its team's sum). The
figure is the mean difference over all games with mean ± 1.96·sd/√n; the per-deal paired means
(the two seatings of a deal averaged) are printed too. A positive figure whose interval excludes 0
means A beats B.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def run_half(graph, deals: int, seed, names: list[str]) -> list[dict[int, float]]:
    """Play ``deals`` games with per-seat bot ``names``; returns each game's scores."""
    from gouji_dsl.tools.simulate import match_length, play_game

    length = match_length(graph)
    prev = None
    out = []
    for i in range(deals):
        res, state = play_game(graph, seed, i, names, previous=prev if i % length else None)
        prev = state
        out.append(dict(res.scores))
    return out


def team_diff(scores: dict[int, float], a_seats: list[int], b_seats: list[int]) -> float:
    return float(scores[a_seats[0]]) - float(scores[b_seats[0]])


def measure(ruleset: str, games: int, seed, a: str = "heuristic", b: str = "random") -> dict:
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.stats import mean_ci, wilson

    graph = load_graph(ruleset)
    n = graph.n_seats
    odd = [s for s in range(1, n + 1) if s % 2]
    even = [s for s in range(1, n + 1) if not s % 2]
    deals = games // 2
    t0 = time.perf_counter()
    first = run_half(graph, deals, seed, [a if s % 2 else b for s in range(1, n + 1)])
    second = run_half(graph, deals, seed, [b if s % 2 else a for s in range(1, n + 1)])
    elapsed = time.perf_counter() - t0
    d1 = [team_diff(sc, odd, even) for sc in first]
    d2 = [team_diff(sc, even, odd) for sc in second]
    diffs = d1 + d2
    est = mean_ci(diffs)
    paired = mean_ci((x + y) / 2 for x, y in zip(d1, d2))
    wins = sum(1 for d in diffs if d > 0)
    return {
        "ruleset": graph.name, "games": len(diffs), "seed": seed, "a": a, "b": b,
        "mean_diff": est.to_dict(), "paired_per_deal": paired.to_dict(),
        "a_on_odd": mean_ci(d1).to_dict(), "a_on_even": mean_ci(d2).to_dict(),
        "a_team_wins": wilson(wins, len(diffs)).to_dict(),
        "ties": sum(1 for d in diffs if d == 0),
        "elapsed_s": round(elapsed, 2),
        "text": (f"{graph.name}: {a} team minus {b} team, mean team score difference over {len(diffs)} games "
                 f"= {est.format(2, signed=True)} (95% CI); per deal (both seatings) {paired.format(2, signed=True)}; "
                 f"{a} team ahead in {wins / len(diffs):.1%} of games; {elapsed:.1f} s"),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ruleset", action="append", help="bundled name or path (repeatable; default online and rulebook)")
    ap.add_argument("--games", type=int, default=1000, help="games per ruleset, half of them swapped (default 1000)")
    ap.add_argument("--seed", default="1", help="run seed (default 1)")
    ap.add_argument("--a", default="heuristic", choices=["heuristic", "random"], help="bot A (default heuristic)")
    ap.add_argument("--b", default="random", choices=["heuristic", "random"], help="bot B (default random)")
    ap.add_argument("--json", action="store_true", help="print JSON")
    args = ap.parse_args(argv)
    results = [measure(r, args.games, args.seed, args.a, args.b) for r in (args.ruleset or ["online", "rulebook"])]
    if args.json:
        print(json.dumps(results, indent=2, ensure_ascii=False))
    else:
        for r in results:
            print(r["text"])
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
