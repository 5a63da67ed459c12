"""Engine benchmark: games per second of the native engine (the interpreter's games with the bots'
play phase in the native core: "native flow", issue 24; whole games in the core: "native games"),
the interpreter (the reference, and the fallback without a C compiler) and a hand-written minimal
engine (the yardstick), measured in the same run on one core.

    python benchmarks/bench_engine.py                       # online, random bots, 300 games
    python benchmarks/bench_engine.py --all                 # every bundled ruleset
    python benchmarks/bench_engine.py --bots heuristic --games 100   # + the native heuristic bot (heuristic.h)
    python benchmarks/bench_engine.py --compile --help-time # cold-process compile / `gouji --help` CPU
    python benchmarks/bench_engine.py --differential 200    # the differential check at a larger N
    python benchmarks/bench_engine.py --profile             # cProfile top 25 of the native engine (one game at a time)
    git archive 9a737a1 | (mkdir -p /tmp/prev && tar -x -C /tmp/prev)   # an older tree
    python benchmarks/bench_engine.py --bots heuristic --previous /tmp/prev   # ... and its interpreter, timed too

Figures are CPU seconds of this process (``time.process_time``): the machine may be shared, so the
engines are run in alternation (``--repeat`` rounds, the best round of each kept) and compared
as ratios in the same run. The process pins itself to one CPU where the OS allows it. The
ruleset is compiled (and its native program loaded) outside the timed part. This is a measurement,
not a test: the figures go into the README's "Benchmarks" section.
"""
from __future__ import annotations

import argparse
import cProfile
import io
import os
import platform
import pstats
import resource
import subprocess
import sys
import time
from pathlib import Path

try:  # the installed package, or the source checkout this script lives in
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

BUNDLED = ("online", "base", "online-xuandian", "qingdao", "qingdao-classic", "rulebook", "six-deck-eagle")


def pin_one_core() -> str:
    """Pin this process to a single CPU; returns a description of what was done."""
    if hasattr(os, "sched_setaffinity"):
        try:
            cpu = max(os.sched_getaffinity(0))
            os.sched_setaffinity(0, {cpu})
            return f"pinned to CPU {cpu}"
        except OSError as e:  # pragma: no cover - containers may forbid it
            return f"not pinned ({e})"
    return "not pinned (no sched_setaffinity); single-threaded anyway"


def load() -> str:
    try:
        return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover
        return "load average unknown"


def run_engine(graph, engine: str, games: int, seed: str, bots: str) -> tuple[float, int]:
    """CPU seconds and decisions for ``games`` games (matches chained) with one engine."""
    from gouji_dsl.engine.interpreter import match_length
    from gouji_dsl.tools.simulate import play_game
    length = match_length(graph)
    prev = None
    decisions = 0
    t0 = time.process_time()
    if engine == "games":
        # whole games in the native core, in batches (as gouji simulate plays games that each start a
        # match: figures per game; the games the core leaves to Python played one by one)
        from gouji_dsl.tools.figures import summarize_game
        from gouji_dsl.tools.simulate import native_games
        # (games chained into matches: whole matches, tribute between the games in the core; a match
        # the core leaves a game of is played in Python from its first game)
        size = max(length, 50 - 50 % length)
        for lo in range(0, games, size):
            got = native_games(graph, seed, lo, min(lo + size, games), bots, match_games=length)
            assert got is not None
            for a in range(0, len(got), length):
                block = got[a:a + length]
                if all(g is not None for g in block):
                    decisions += sum(g.decisions for g in block)
                    continue
                for i in range(lo + a, lo + a + len(block)):
                    res, prev = play_game(graph, seed, i, bots, previous=prev if i % length else None, record=False)
                    decisions += summarize_game(i, res, graph.n_seats).decisions
        return time.process_time() - t0, decisions
    if engine == "interpreter":
        for i in range(games):
            res, prev = play_game(graph, seed, i, bots, previous=prev if i % length else None, engine="interpreter",
                                  record=False)
            decisions += res.decisions
    else:
        from gouji_dsl.bots import make_bot
        from gouji_dsl.engine import fast
        from gouji_dsl.tools.simulate import bot_rng
        eng = fast.engine(graph)
        assert eng is not None, fast.fallback_reason(graph)
        from gouji_dsl.engine.native import heuristic
        # "native": the random bots' play phase in the native core (issue 24), and the heuristic bot's
        # (heuristic.h); "native-py": the native flow with the heuristic bot choosing in Python
        assert engine in ("native", "native-py"), engine
        if engine == "native-py":
            os.environ[heuristic.DISABLE_ENV] = "1"
        n = graph.n_seats
        for i in range(games):
            # (as gouji simulate: a random bot on the native flow draws from a native generator, no copies)
            players = [make_bot(bots, bot_rng(seed, i, s, native=engine == "native" and bots == "random"))
                       for s in range(1, n + 1)]
            prev = eng.play_game(seed, i, players, previous=prev if i % length else None)
            decisions += prev.decisions
        os.environ.pop(heuristic.DISABLE_ENV, None)
    return time.process_time() - t0, decisions


def run_reference(games: int, seed: str) -> tuple[float, int]:
    import reference_engine
    t0 = time.process_time()
    d = reference_engine.run(games, seed)
    return time.process_time() - t0, d


def bench(name: str, games: int, seed: str, bots: str, repeat: int, interpreter_games: int) -> dict:
    from gouji_dsl.engine import fast
    from gouji_dsl.ruleset.graph import load_graph
    graph = load_graph(name)
    eng = fast.engine(graph)
    best: dict[str, tuple[float, int, int]] = {}
    if eng is not None:
        run_engine(graph, "native", 5, "warm", bots)  # (load the program and the bot's tables)
    for _ in range(repeat):
        rounds = [("interpreter", interpreter_games)]
        if eng is not None:
            rounds.insert(0, ("native", games))
            if bots == "heuristic":  # (before heuristic.h: the native flow, the bot choosing in Python)
                rounds.insert(2, ("native-py", games))
            from gouji_dsl.engine.interpreter import match_length
            from gouji_dsl.engine.native import flow
            if flow.games_fallback(graph) is None and (match_length(graph) == 1 or (
                    bots == "random" and flow.flow_plan(graph).matches_fallback is None)):
                rounds.insert(2, ("games", games))  # (random or heuristic bots; whole matches with random bots)
        if bots == "random":
            rounds.append(("reference", games))
        for engine, n in rounds:
            if engine == "reference":
                t, d = run_reference(n, seed)
            elif engine in ("native", "native-py") and eng is None:
                continue
            else:
                t, d = run_engine(graph, engine, n, seed, bots)
            if engine not in best or t / n < best[engine][0] / best[engine][2]:
                best[engine] = (t, d, n)
    out = {"ruleset": name, "fallback": fast.fallback_reason(graph)}
    for engine, (t, d, n) in best.items():
        out[engine] = {"games_per_s": n / t, "decisions_per_game": d / n, "ms_per_game": 1000 * t / n}
    return out


def cold_compile(names: list[str]) -> list[tuple[str, float, float]]:
    """CPU seconds, in a fresh process each, to import, compile the ruleset and load its native program."""
    code = ("import time, sys; t0 = time.process_time(); from gouji_dsl.ruleset.graph import load_graph; "
            "g = load_graph(sys.argv[1]); t1 = time.process_time(); from gouji_dsl.engine import fast; "
            "e = fast.engine(g); t2 = time.process_time(); print(t1 - t0, t2 - t1)")
    out = []
    for name in names:
        r = subprocess.run([sys.executable, "-c", code, name], capture_output=True, text=True, check=True)
        a, b = (float(x) for x in r.stdout.split())
        out.append((name, a, b))
    return out


PREVIOUS = """
import sys, time
sys.path.insert(0, sys.argv[1])
import gouji_dsl
assert gouji_dsl.__file__.startswith(sys.argv[1]), gouji_dsl.__file__
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.simulate import simulate
g = load_graph(sys.argv[2])
games, seed, bots, repeat = int(sys.argv[3]), sys.argv[4], sys.argv[5], int(sys.argv[6])
simulate(g, 2, "warm-up", bots)
best, dec = 1e9, 0
for _ in range(repeat):
    t0 = time.process_time()
    res = simulate(g, games, seed, bots)
    best = min(best, time.process_time() - t0)
    dec = sum(r.decisions for r in res)
print(best, dec)
"""


def previous_tree(tree: str, name: str, games: int, seed: str, bots: str, repeat: int) -> dict[str, float]:
    """The interpreter of an older source tree ``tree`` (an older commit), playing ``games`` games
    of ``name`` in a fresh process on the same CPU, CPU time."""
    out = subprocess.run([sys.executable, "-c", PREVIOUS, str(Path(tree).resolve()), name, str(games), seed, bots,
                          str(repeat)], capture_output=True, text=True, check=True).stdout.split()
    cpu, dec = float(out[0]), int(out[1])
    return {"games_per_s": games / cpu, "ms_per_game": 1000 * cpu / games, "decisions_per_game": dec / games}


def help_cpu(reps: int = 5) -> float:
    """The least CPU seconds (user + system) of ``gouji --help`` in a fresh process: the installed
    console script's entry point (``gouji_app.cli:main``, the editor's group, which adds ``gouji
    play`` and the app to the library's commands), run as the script runs it."""
    best = 1e9
    script = "import sys; from gouji_app.cli import main; sys.argv[0] = 'gouji'; sys.exit(main())"
    for _ in range(reps):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([sys.executable, "-c", script, "--help"], capture_output=True, check=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        best = min(best, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime))
    return best


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--games", type=int, default=300, help="games per round of the native engine and the reference (300)")
    ap.add_argument("--interpreter-games", type=int, default=None, help="games per round of the interpreter (games / 5)")
    ap.add_argument("--ruleset", action="append", help="bundled name or path (repeatable; default online)")
    ap.add_argument("--all", action="store_true", help="every bundled ruleset")
    ap.add_argument("--seed", default="1", help="run seed (default 1)")
    ap.add_argument("--bots", choices=["random", "heuristic"], default="random", help="bot for every seat")
    ap.add_argument("--repeat", type=int, default=3, help="rounds; the best of each engine is kept (3)")
    ap.add_argument("--compile", action="store_true", help="cold-process compile + native program CPU time per bundled ruleset")
    ap.add_argument("--help-time", action="store_true", help="CPU time of `gouji --help` in a fresh process")
    ap.add_argument("--differential", type=int, metavar="N", help="run the differential check with N games per ruleset")
    ap.add_argument("--profile", action="store_true", help="cProfile top 25 (self time) of the native engine")
    ap.add_argument("--previous", metavar="DIR", help="also time the interpreter of the source tree DIR (an older "
                                                      "commit: git archive)")
    args = ap.parse_args(argv)

    pinned = pin_one_core()
    names = list(BUNDLED) if args.all else (args.ruleset or ["online"])
    print(f"gouji-dsl engine benchmark — {platform.python_implementation()} {platform.python_version()}, "
          f"{platform.machine()}, {os.cpu_count()} CPUs visible, {pinned}, {load()}")
    if args.differential:
        from gouji_dsl.ruleset.graph import load_graph
        from gouji_dsl.tools import simulate
        variants = sorted(str(p) for p in (Path(__file__).resolve().parent.parent / "examples" / "variants").glob("*.yaml"))
        bad = 0
        for name in (list(BUNDLED) if args.all or not args.ruleset else names) + variants:
            t0 = time.perf_counter()
            diffs = simulate.differences(load_graph(name), f"diff-{args.seed}", args.differential, args.bots)
            bad += bool(diffs)
            print(f"differential {Path(name).stem:<22} {args.differential} games ({args.bots}): "
                  f"{'identical' if not diffs else f'{len(diffs)} DIFFERENCES: ' + diffs[0]} "
                  f"({time.perf_counter() - t0:.1f} s)")
        return 1 if bad else 0
    if args.compile:
        print("\ncold process, CPU seconds: import + resolve + compile | build + load the native program")
        for name, a, b in cold_compile(list(BUNDLED)):
            print(f"  {name:<18} {a:6.3f} + {b:6.3f} = {a + b:6.3f}")
    if args.help_time:
        print(f"\n`gouji --help`: {help_cpu():.3f} s CPU (least of 5 fresh processes)")
    if (args.compile or args.help_time) and not (args.ruleset or args.all or args.profile):
        return 0
    interp_games = args.interpreter_games or max(10, args.games // 5)
    print(f"\n{args.bots} bots, seed {args.seed}, {args.games} games per round "
          f"({interp_games} for the interpreter), best of {args.repeat} rounds, CPU time")
    print(f"{'ruleset':<18} {'engine':<12} {'games/s':>9} {'ms/game':>8} {'decisions':>9} {'× interp':>9} {'× reference':>11}")
    for name in names:
        r = bench(name, args.games, args.seed, args.bots, args.repeat, interp_games)
        if args.previous:
            r["previous"] = previous_tree(args.previous, name, interp_games, args.seed, args.bots, args.repeat)
        ref = r.get("reference", {}).get("games_per_s")
        itp = r.get("interpreter", {}).get("games_per_s")
        for engine in ("native-py", "native", "games", "interpreter", "reference", "previous"):
            if engine not in r:
                continue
            x = r[engine]
            gps = x["games_per_s"]
            xi = f"{gps / itp:8.2f}×" if itp else ""
            xr = f"{gps / ref:10.2f}×" if ref else ""
            label = {"reference": "hand-written", "previous": "previous", "native": "native flow",
                     "native-py": "native/pybot",
                     "games": "native games"}.get(engine, engine)
            if engine == "native" and args.bots == "heuristic":
                label = "native+heur"  # (the heuristic bot's choices in the core too: heuristic.h)
            print(f"{Path(name).stem:<18} {label:<12} {gps:9.1f} {x['ms_per_game']:8.2f} "
                  f"{x['decisions_per_game']:9.1f} {xi:>9} {xr:>11}")
        if r["fallback"]:
            print(f"{'':<18} (native engine not used, the interpreter plays: {r['fallback']})")
        if "previous" in r and "native" in r:
            gen, prev = r["native"], r["previous"]
            print(f"{'':<18} native ÷ previous interpreter: {gen['games_per_s'] / prev['games_per_s']:.2f}× per game, "
                  f"{gen['games_per_s'] * gen['decisions_per_game'] / (prev['games_per_s'] * prev['decisions_per_game']):.2f}× "
                  f"per decision ({args.previous}: its rules may differ, hence its own decisions per game)")
    print(load())

    if args.profile:
        from gouji_dsl.ruleset.graph import load_graph
        graph = load_graph(names[0])
        prof = cProfile.Profile()
        prof.enable()
        run_engine(graph, "native", args.games, args.seed, args.bots)
        prof.disable()
        buf = io.StringIO()
        pstats.Stats(prof, stream=buf).strip_dirs().sort_stats("tottime").print_stats(25)
        text = buf.getvalue()
        start = text.find("   ncalls")
        print("\ncProfile of the native engine, top 25 by self time (profiling slows the run down):")
        print(text[start:].rstrip() if start >= 0 else text.rstrip())
    return 0


if __name__ == "__main__":
    sys.exit(main())
