"""Benchmark: paired comparisons (`gouji diff A B --simulate N`) on the process pool and on a local Dask
cluster, and the peak memory of runs of two sizes (it must stay flat in the number of deals).

    python benchmarks/bench_compare.py [--a online] [--b rulebook] [--games 2000] [--seed 1] [--workers 2]
                                       [--executors process,dask] [--memory 2000,20000] [--bots random]
                                       [--sample SECONDS]

Each run is a fresh Python process (so its peak RSS is its own): it plays the N paired deals with
``--bots`` (random by default; 2·N games) through :func:`gouji_dsl.tools.paired.paired_simulation` (start-up of the
pool or cluster included; the divergent deals are not re-played) and prints wall time, games/s,
the peak RSS of the driver and of the largest worker, and a hash of the report's figures, which
must be the same for every executor. ``--memory`` runs the process pool at each size and prints
the ratio of peak RSS (largest / smallest; the target is ≤ 1.2). The load of the machine
(``uptime``) is printed first: the figures in the README say what it was. ``--sample S`` prints the
current RSS of each worker every S seconds while a run plays (needs psutil), so that a long memory
run shows whether a worker grows before it ends. Not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHILD = r"""
import json, resource, sys, time, hashlib
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.paired import paired_simulation
a, b, games, seed, workers, executor, bots, sample = sys.argv[1:9]
done = [0]
def progress(n, total):
    done[0] = n
if float(sample) > 0:
    import threading
    import psutil
    def watch(every=float(sample), me=psutil.Process(), t0=time.perf_counter()):
        while True:
            time.sleep(every)
            try:
                kids = [p.memory_info().rss for p in me.children(recursive=True)]
            except psutil.Error:
                continue
            mib = ", ".join(f"{k / 2**20:.1f}" for k in sorted(kids, reverse=True))
            print(f"sample {time.perf_counter() - t0:7.0f} s, {done[0]:>7} deals: driver {me.memory_info().rss / 2**20:.1f} MiB, "
                  f"children {mib} MiB", file=sys.stderr, flush=True)
    threading.Thread(target=watch, daemon=True).start()
ga, gb = load_graph(a), load_graph(b)
t0 = time.perf_counter()
r = paired_simulation(ga, gb, int(games), seed, workers=int(workers), executor=executor, records=False,
                      bots=bots, progress=progress)
wall = time.perf_counter() - t0
figs = json.dumps(r.to_dict(timing=False), sort_keys=True, default=str)
print(json.dumps({"wall": wall, "rss_self_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
                  "rss_children_kb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss,
                  "hash": hashlib.sha256(figs.encode()).hexdigest()[:12], "chunk_size": r.chunk_size}))
"""


def run(a: str, b: str, games: int, seed: str, workers: int, executor: str, bots: str = "random",
        sample: float = 0.0) -> dict:
    env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    proc = subprocess.Popen([sys.executable, "-c", CHILD, a, b, str(games), seed, str(workers), executor, bots,
                             str(sample)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert proc.stderr is not None and proc.stdout is not None
    errors: list[str] = []
    for line in proc.stderr:  # the samples as they come; anything else is kept for a failure's message
        if line.startswith("sample "):
            print(f"  {games} deals, {line.rstrip()}", flush=True)
        else:
            errors.append(line)
    stdout = proc.stdout.read()
    if proc.wait() != 0:
        raise SystemExit(f"{executor} run failed:\n{''.join(errors)[-2000:]}")
    return json.loads(stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    ap.add_argument("--a", default="online", help="ruleset A (name or path)")
    ap.add_argument("--b", default="rulebook", help="ruleset B (name or path)")
    ap.add_argument("--games", type=int, default=2000, help="paired deals per timed run")
    ap.add_argument("--seed", default="1")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--executors", default="process,dask", help="comma-separated executors to time")
    ap.add_argument("--repeat", type=int, default=1,
                    help="time each executor R times, alternating (a shared machine's load drifts); the median counts")
    ap.add_argument("--bots", default="random", help="the bot of every seat (e.g. heuristic)")
    ap.add_argument("--memory", default="", help="comma-separated sizes (deals) for the memory check, e.g. 2000,20000")
    ap.add_argument("--sample", type=float, default=0.0, metavar="SECONDS",
                    help="print each worker's current RSS every SECONDS while a run plays (0: never)")
    args = ap.parse_args()

    load = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    print(f"{args.a} vs {args.b}, seed {args.seed}, {args.bots} bots, {args.workers} workers; "
          f"Python {platform.python_version()}, {os.cpu_count()} CPU(s)\nload: {load}")
    times: dict[str, float] = {}
    hashes: dict[str, str] = {}
    walls: dict[str, list[float]] = {}
    executors = [e for e in args.executors.split(",") if e]
    for _ in range(max(1, args.repeat)):
        for ex in executors:
            r = run(args.a, args.b, args.games, args.seed, args.workers, ex, args.bots, args.sample)
            walls.setdefault(ex, []).append(r["wall"])
            hashes[ex] = r["hash"]
            print(f"{ex:8} {args.games} deals: {r['wall']:7.1f} s  {2 * args.games / r['wall']:6.1f} games/s  "
                  f"peak RSS driver {r['rss_self_kb'] / 1024:6.1f} MiB, largest worker "
                  f"{r['rss_children_kb'] / 1024:6.1f} MiB  figures {r['hash']}", flush=True)
    times = {ex: statistics.median(w) for ex, w in walls.items()}
    if args.repeat > 1:
        print("median: " + ", ".join(f"{ex} {t:.1f} s" for ex, t in times.items()))
    if len(set(hashes.values())) > 1:
        print("REPORTS DIFFER between executors!")
    elif len(hashes) > 1:
        print("same report on every executor")
    if "process" in times and "dask" in times:
        print(f"Dask overhead against the process pool: {(times['dask'] / times['process'] - 1) * 100:+.1f} %")
    sizes = [int(x) for x in args.memory.split(",") if x]
    if sizes:
        peaks, worker_peaks = {}, {}
        for n in sizes:
            r = run(args.a, args.b, n, args.seed, args.workers, "process", args.bots, args.sample)
            peaks[n] = max(r["rss_self_kb"], r["rss_children_kb"])
            worker_peaks[n] = r["rss_children_kb"]
            print(f"memory {n:>7} deals: {r['wall']:7.1f} s  peak RSS driver {r['rss_self_kb'] / 1024:6.1f} MiB, "
                  f"largest worker {r['rss_children_kb'] / 1024:6.1f} MiB")
        lo, hi = min(sizes), max(sizes)
        print(f"peak RSS {hi} / {lo} deals: ×{peaks[hi] / peaks[lo]:.2f}; largest worker "
              f"×{worker_peaks[hi] / worker_peaks[lo]:.2f} (target ≤ 1.2)")
    print("load after: " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())


if __name__ == "__main__":
    main()
