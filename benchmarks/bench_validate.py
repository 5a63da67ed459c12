"""How long `gouji validate` takes as a ruleset grows: generated files of N rules extending `online`,
timed stage by stage (read + structure of the chain, compile, warnings) in CPU time.

Validation should grow about linearly in the number of rules (issue 11). Usage::

    python benchmarks/bench_validate.py                 # 1,000 and 10,000 rules
    python benchmarks/bench_validate.py --rules 500 2000 5000 --repeat 3

Prints one row per size: seconds per stage, the total, and microseconds per rule.
"""
from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

HOOKS = ("follow", "play", "yield", "burn")


def ruleset_text(n: int) -> str:
    """A ruleset extending online with ``n`` distinct rules (guards and effects that compile)."""
    out = ["ruleset: many", "extends: online", "rules:"]
    for i in range(n):
        hook = HOOKS[i % len(HOOKS)]
        out += [f"  - id: extra.rule-{i}", f"    on: {hook}",
                f'    when: "hand_size(seat) > {i % 40} and count(active_seats) >= {2 + i % 3}"',
                f'    {"deny" if i % 2 else "allow"}: "hand_size(seat) == {i}"',
                f'    says: "Generated rule {i}."']
    return "\n".join(out) + "\n"


def cpu() -> float:
    return time.process_time()


def measure(path: Path) -> dict[str, float]:
    from gouji_dsl.ruleset import check as check_mod
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import load_chain

    t0 = cpu()
    chain = load_chain(path)
    t1 = cpu()
    assert chain.resolved is not None and not chain.errors, [d.short() for d in chain.errors[:3]]
    graph = compile_ruleset(chain.resolved)
    t2 = cpu()
    warnings = check_mod._warnings(graph, strict=False)
    t3 = cpu()
    result = check_mod.check(path)
    t4 = cpu()
    assert result.ok, [d.short() for d in result.errors[:3]]
    del warnings
    return {"load": t1 - t0, "compile": t2 - t1, "warnings": t3 - t2, "validate": t4 - t3}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rules", type=int, nargs="+", default=[1000, 10000])
    ap.add_argument("--repeat", type=int, default=1, help="best of N runs per size")
    args = ap.parse_args(argv)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"# gouji validate time by number of rules (CPU seconds, best of {args.repeat}); load average {load:.1f}")
    print(f"{'rules':>7} {'load':>7} {'compile':>8} {'warnings':>9} {'validate':>9} {'µs/rule':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in args.rules:
            path = Path(tmp) / f"many-{n}.yaml"
            path.write_text(ruleset_text(n), encoding="utf-8")
            best: dict[str, float] | None = None
            for _ in range(args.repeat):
                got = measure(path)
                best = got if best is None or got["validate"] < best["validate"] else best
            assert best is not None
            print(f"{n:>7} {best['load']:>7.2f} {best['compile']:>8.2f} {best['warnings']:>9.2f} "
                  f"{best['validate']:>9.2f} {best['validate'] / n * 1e6:>8.0f}", flush=True)


if __name__ == "__main__":
    main()
