"""What reading a hostile ruleset or record costs (issue 22 items 4 and 12), in CPU seconds and peak
memory of a child ``gouji`` process:

- a setting of maps nested N levels deep (``deep: {a: {a: ... 1}}``, extending ``online``):
  ``gouji validate`` (was exponential in N: 20 levels 3 s, 24 levels 42 s, 60 never finished);
- a saved game record whose seed is one string of N characters: ``gouji replay`` (the limit scan's
  pattern kept ~120 bytes a character: 15,000,000 characters peaked at 1.8 GB);
- one object of ``--keys`` keys (500,000) in a record, a run folder's run.json and a duel save line, and
  a run.json holding a 20,000,000-character string (``gouji replay``, ``report``, ``duel --save``).

    python benchmarks/bench_inputs.py
    python benchmarks/bench_inputs.py --levels 20 60 --chars 1000000 15000000 --keys 500000
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


_MEASURE = ("import json, resource, subprocess, sys; p = subprocess.run(sys.argv[1:], capture_output=True); "
            "r = resource.getrusage(resource.RUSAGE_CHILDREN); "
            "print(json.dumps([r.ru_utime + r.ru_stime, r.ru_maxrss / 1024, p.returncode]))")


def run(args: list[str]) -> tuple[float, float, int]:
    """CPU seconds, peak RSS (MB) and exit status of ``gouji ARGS`` in a child process (started by a
    grandparent of its own, so that each peak is this command's, not the largest so far)."""
    out = subprocess.run([sys.executable, "-c", _MEASURE, sys.executable, "-m", "gouji_dsl", *args],
                         capture_output=True, text=True, timeout=600, cwd=ROOT, check=True)
    cpu, mb, rc = json.loads(out.stdout)
    return cpu, mb, rc


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


def many_keys(folder: Path, keys: int) -> list[tuple[str, str, list[str]]]:
    """One object of ``keys`` keys in a record (its bots), a run folder's run.json (its spec) and a
    duel save line (a game's scores); and a run.json whose bots are one string of 20,000,000
    characters: (what, command, arguments)."""
    rec = record(folder, 10)
    data = json.loads(rec.read_text(encoding="utf-8"))
    data["bots"] = {str(i): "x" for i in range(keys)}
    rec.write_text(json.dumps(data), encoding="utf-8")
    out = []
    for name, change in (("keys", lambda m: m["spec"].update(extra={str(i): "x" for i in range(keys)})),
                         ("string", lambda m: m["spec"].update(bots="x" * 20_000_000))):
        run_dir = folder / f"run-{name}"
        subprocess.run([sys.executable, "-m", "gouji_dsl", "simulate", "online", "-n", "2", "--out", str(run_dir),
                        "--executor", "local", "--json"], capture_output=True, timeout=600, cwd=ROOT, check=True)
        meta = json.loads((run_dir / "run.json").read_text(encoding="utf-8"))
        change(meta)
        (run_dir / "run.json").write_text(json.dumps(meta), encoding="utf-8")
        what = f"run.json, one object of {keys:,} keys" if name == "keys" else "run.json, a 20,000,000-character string"
        out.append((what, "report", ["report", str(run_dir)]))
    save = folder / "save.jsonl"
    duel = ["duel", "online", "random", "random", "--deals", "1", "--save", str(save)]
    subprocess.run([sys.executable, "-m", "gouji_dsl", *duel], capture_output=True, timeout=600, cwd=ROOT, check=True)
    head, unit = save.read_text(encoding="utf-8").splitlines()[:2]
    line = json.loads(unit)
    line["games"][0]["scores"] = {str(i): 1 for i in range(keys)}
    save.write_text(head + "\n" + json.dumps(line) + "\n", encoding="utf-8")
    return [(f"record, one object of {keys:,} keys", "replay", ["replay", str(rec)]), *out,
            (f"duel save line, one object of {keys:,} keys", "duel --save", duel)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--levels", type=int, nargs="+", default=[20, 40, 60])
    ap.add_argument("--chars", type=int, nargs="+", default=[1_000_000, 15_000_000])
    ap.add_argument("--keys", type=int, default=500_000, help="keys of one object in a record, run.json, save line")
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
        for what, command, args in many_keys(folder, a.keys):
            cpu, mb, rc = run(args)
            print(f"| {what} | {command} | {rc} | {cpu:.2f} | {mb:.0f} |", flush=True)


if __name__ == "__main__":
    main()
