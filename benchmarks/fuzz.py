"""The fuzz suite of issue 11, run longer: the targets of tests/test_fuzz.py (mutated rulesets,
random expressions, card and move text, mutated scenario files and records, through the library
and the CLI) with fresh random inputs until the time is up. Every input that breaks the promise
(loads, or a GoujiError / exit 1 with a positioned message; no other exception, no traceback, no
hang, no runaway memory) is written to the failures folder — the input as a file ready to try
(`gouji validate` / `gouji test` / `gouji replay`) and what went wrong — once per distinct failure.

    python benchmarks/fuzz.py --minutes 25 [--out fuzz-failures] [--target record --target ruleset ...]
                              [--seed S] [--input-seconds 60] [--memory-mb 4096]

Prints, per target, the inputs tried and the distinct failures; exit status 1 when any failed.
The per-input bounds are a hang and runaway-memory detector (SIGALRM, RLIMIT_AS), not speed goals.
"""
from __future__ import annotations

import argparse
import hashlib
import json
import random
import sys
import time
import traceback
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

import fuzz_targets  # noqa: E402
from hypothesis import HealthCheck, Phase, Verbosity, given, settings  # noqa: E402
from hypothesis import seed as hypothesis_seed  # noqa: E402

SUFFIX = {"ruleset": ".yaml", "ruleset-cli": ".yaml", "expression": ".yaml", "scenario": ".yaml",
          "scenario-cli": ".yaml", "record": ".json", "record-text": ".json", "record-cli": ".json",
          "cards": ".txt", "move": ".txt"}
SLICE_SECONDS = 30.0
"""Each round gives every target this long (so one slow target does not starve the others)."""


class _SliceOver(Exception):
    """Ends a target's time slice (raised inside the hypothesis test, caught around it)."""


def _signature(name: str, exc: BaseException) -> str:
    """What makes two failures the same: the target, the exception type, the innermost frame of the
    project and the first line of the message without numbers."""
    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "gouji" in f.filename or "editor" in f.filename]
    where = f"{Path(frames[-1].filename).name}:{frames[-1].lineno}" if frames else "?"
    first = "".join(ch for ch in (str(exc).splitlines() or [""])[0] if not ch.isdigit())[:120]
    return f"{name}|{type(exc).__name__}|{where}|{first}"


def _save(out: Path, name: str, value: Any, exc: BaseException, sig: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(sig.encode()).hexdigest()[:10]
    data = value if isinstance(value, bytes) else str(value).encode("utf-8", errors="surrogatepass")
    inp = out / f"{name}-{digest}{SUFFIX.get(name, '.txt')}"
    inp.write_bytes(data)
    (out / f"{name}-{digest}.txt").write_text(
        f"target: {name}\nsignature: {sig}\ninput: {inp.name} ({len(data)} bytes)\n\n"
        + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)), encoding="utf-8")
    return inp


def _batch(name: str, batch_seed: int, until: float, row: dict[str, Any], out: Path) -> Any:
    """A hypothesis run of fresh inputs of target ``name`` until the monotonic time ``until``
    (generation only: no shrinking; a failure is recorded and the run goes on)."""
    factory, check = fuzz_targets.TARGETS[name]

    @hypothesis_seed(batch_seed)
    @settings(max_examples=1_000_000, deadline=None, database=None, derandomize=False, phases=[Phase.generate],
              suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)
    @given(factory())
    def batch(value: Any) -> None:
        if time.monotonic() >= until:
            raise _SliceOver
        row["inputs"] += 1
        try:
            check(value)
        except (Exception, MemoryError) as exc:  # every failure is recorded; the run goes on
            sig = _signature(name, exc)
            if sig not in row["failures"]:
                row["failures"][sig] = str(_save(out, name, value, exc, sig))
                print(f"  {name}: new failure {sig} -> {row['failures'][sig]}", flush=True)

    return batch


def run(minutes: float, out: Path, targets: list[str], run_seed: int) -> dict[str, dict[str, Any]]:
    """Round after round, each target in turn for :data:`SLICE_SECONDS` (less at the end)."""
    stop = time.monotonic() + minutes * 60
    rng = random.Random(run_seed)
    stats: dict[str, dict[str, Any]] = {t: {"inputs": 0, "failures": {}} for t in targets}
    slice_s = min(SLICE_SECONDS, minutes * 60 / len(targets))
    while time.monotonic() < stop:
        for name in targets:
            now = time.monotonic()
            if now >= stop:
                break
            try:
                _batch(name, rng.randrange(2**32), min(stop, now + slice_s), stats[name], out)()
            except _SliceOver:
                pass
    return stats


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=5.0, help="how long to run (default 5)")
    ap.add_argument("--out", type=Path, default=Path("fuzz-failures"), help="folder for failing inputs (default fuzz-failures)")
    ap.add_argument("--target", action="append", choices=sorted(fuzz_targets.TARGETS),
                    help="a target to run (repeatable; default all)")
    ap.add_argument("--seed", type=int, default=None, help="run seed (default: a random one, printed)")
    ap.add_argument("--input-seconds", type=float, default=60.0, help="hang bound per input (default 60)")
    ap.add_argument("--memory-mb", type=int, default=4096, help="address-space limit of this process (default 4096; 0 = none)")
    args = ap.parse_args(argv)
    run_seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    fuzz_targets.INPUT_SECONDS = args.input_seconds
    if args.memory_mb:
        try:
            import resource
            limit = args.memory_mb * 1024 * 1024
            resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1]))
        except (ImportError, ValueError, OSError) as e:
            print(f"memory limit not set: {e}", file=sys.stderr)
    targets = args.target or list(fuzz_targets.TARGETS)
    print(f"fuzz: {args.minutes} min, seed {run_seed}, targets {', '.join(targets)}, failures -> {args.out}", flush=True)
    t0 = time.monotonic()
    stats = run(args.minutes, args.out, targets, run_seed)
    elapsed = time.monotonic() - t0
    total = sum(r["inputs"] for r in stats.values())
    failed = sum(len(r["failures"]) for r in stats.values())
    for name, r in stats.items():
        print(f"{name:13s} {r['inputs']:7d} inputs  {len(r['failures']):3d} distinct failures")
    print(f"total {total} inputs in {elapsed:.0f} s, {failed} distinct failures")
    if failed:
        (args.out / "summary.json").write_text(json.dumps({"seed": run_seed, "minutes": args.minutes, "stats": stats},
                                                          indent=2), encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
