"""What reading a hostile ruleset or record costs (issue 22 items 4 and 12), in CPU seconds and peak
memory of a child ``gouji`` process:

- a setting of maps nested N levels deep (``deep: {a: {a: ... 1}}``, extending ``online``):
  ``gouji validate`` (was exponential in N: 20 levels 3 s, 24 levels 42 s, 60 never finished);
- a saved game record whose seed is one string of N characters: ``gouji replay`` (the limit scan's
  pattern kept ~120 bytes a character: 15,000,000 characters peaked at 1.8 GB).

    python benchmarks/bench_inputs.py
    python benchmarks/bench_inputs.py --levels 20 60 --chars 1000000 15000000
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


def run(args: list[str]) -> tuple[float, float, int]:
    """CPU seconds, peak RSS (MB) and exit status of ``gouji ARGS`` in a child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    p = subprocess.run([sys.executable, "-m", "gouji_dsl", *args], capture_output=True, timeout=600, cwd=ROOT)
    _ = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, after.ru_maxrss / 1024, p.returncode


def nested(folder: Path, levels: int) -> Path:
    value = "1"
    for _ in range(levels):
        value = "{a: " + value + "}"
    path = folder / f"deep{levels}.yaml"
    path.write_text(f"ruleset: deep{levels}\nextends: online\nsettings:\n  deep: {value}\n", encoding="utf-8")
    return path


def record(folder: Path, chars: int) -> Path:
    from gouji_dsl.engine.records import GameRecord, save_record
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import play_game
    st = play_game(load_graph("online"), "bench", 0, "random")[1]
    base = save_record(folder / "game.json", GameRecord.from_states([st], seed="bench"))
    data = json.loads(base.read_text(encoding="utf-8"))
    data["seed"] = "x" * chars
    path = folder / f"long{chars}.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="+", default=[20, 40, 60])
    ap.add_argument("--chars", type=int, nargs="+", default=[1_000_000, 15_000_000])
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        print("| input | command | exit | CPU s | peak MB |\n| --- | --- | --- | --- | --- |")
        for n in a.levels:
            cpu, mb, rc = run(["validate", str(nested(folder, n))])
            print(f"| setting nested {n} levels | validate | {rc} | {cpu:.2f} | {mb:.0f} |", flush=True)
        for n in a.chars:
            path = record(folder, n)
            size = path.stat().st_size / 1e6
            cpu, mb, rc = run(["replay", str(path)])
            print(f"| record with a {n:,}-character string ({size:.1f} MB) | replay | {rc} | {cpu:.2f} | {mb:.0f} |", flush=True)


if __name__ == "__main__":
    main()
