"""How long `gouji duel --save FILE` takes to read a long save file before its first deal (issue 22
item 13): a generated file of N deals (online, heuristic against random, seed 1 — one real saved
deal's line repeated with deal = 0 .. N-1, behind its header), then the command with --deals N (every
deal saved: nothing to play), timed in CPU seconds of the child process.

    python benchmarks/bench_duel_save.py                 # 100,000 deals (about 50 MB)
    python benchmarks/bench_duel_save.py --deals 10000 20000

Prints one row per size: file size, CPU seconds of the whole command, of reading the file alone
(:func:`gouji_dsl.tools.duel.load_saved`, in this process), and microseconds per deal.
"""
from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
SOURCE = ROOT / "benchmarks" / "results" / "bots" / "online__pimc-47__heuristic__iters__seed1.jsonl"
HEADER = {"duel": {"ruleset": "online", "a": "heuristic", "b": "random", "seed": "1", "think_ms": None}}


def write_save(path: Path, deals: int) -> None:
    unit = json.loads(SOURCE.read_text(encoding="utf-8").splitlines()[1])
    with path.open("w", encoding="utf-8") as f:
        f.write(json.dumps(HEADER) + "\n")
        for i in range(deals):
            for g in unit["games"]:
                g["deal"] = i
            f.write(json.dumps(unit) + "\n")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--deals", type=int, nargs="+", default=[100_000])
    args = ap.parse_args()
    from gouji_dsl.tools.duel import load_saved
    print("| deals | file | whole command (CPU) | load_saved (CPU) | µs/deal |")
    print("| --- | --- | --- | --- | --- |")
    for n in args.deals:
        with tempfile.TemporaryDirectory() as d:
            save = Path(d) / "save.jsonl"
            write_save(save, n)
            t = time.process_time()
            games = load_saved(save, None, 6)
            load = time.process_time() - t
            assert len(games) == 2 * n
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([sys.executable, "-m", "gouji_dsl", "duel", "online", "heuristic", "random", "--deals",
                            str(n), "--save", str(save), "--json"], check=True, capture_output=True, cwd=ROOT)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            print(f"| {n:,} | {save.stat().st_size / 1e6:.1f} MB | {cpu:.2f} s | {load:.2f} s | {1e6 * load / n:.0f} |")


if __name__ == "__main__":
    main()
