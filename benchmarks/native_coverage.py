"""What of the bundled rulesets and examples/variants the native hook programs express: every
permit and value hook (its rules' guards and effects as one plan, ``hooks.plan``) and every
expression of every rule (``hooks.emit``, trigger hooks' parts included), with what does not
compile grouped by reason (most common first).

    python benchmarks/native_coverage.py          # counts and reasons
    python benchmarks/native_coverage.py -v       # ... with up to three places per reason

Trigger hooks (mark / count / place / give) are run by the game flow, not asked as one plan:
they are counted apart. Not a test (tests/test_native_core.py holds the figures at 100 %).
"""
from __future__ import annotations

import argparse
import re
import sys
from collections import Counter, defaultdict
from pathlib import Path

try:
    import gouji_dsl  # noqa: F401
except ImportError:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

ROOT = Path(__file__).resolve().parent.parent


def _reason(msg: str) -> str:
    """A message without its rule and position (so that the same gap groups)."""
    msg = re.sub(r"^rule \S+ \([^)]*\): ", "", msg)
    return re.sub(r"\s*\([^()]*:\d+:\d+: .*\)$", "", msg)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("-v", "--verbose", action="store_true")
    a = ap.parse_args()
    from gouji_dsl.engine import native
    from gouji_dsl.engine.native import hooks
    from gouji_dsl.resources import rules_dir
    from gouji_dsl.ruleset.game.vocabulary import HOOKS, HookKind
    from gouji_dsl.ruleset.graph import load_graph
    if not native.available():
        raise SystemExit(f"the native core is not available: {native.unavailable_reason()}")
    names = sorted(p.stem for p in rules_dir().glob("*.yaml")) + sorted(str(p) for p in (ROOT / "examples" / "variants").glob("*.yaml"))
    counts: Counter[str] = Counter()
    gaps: dict[str, Counter[str]] = {"hook": Counter(), "expression": Counter()}
    where: dict[str, list[str]] = defaultdict(list)
    for name in names:
        g = load_graph(name)
        for node in g.nodes:
            for tree in node.checked.values():
                counts["expressions"] += 1
                try:
                    hooks.emit(g, tree)
                    counts["expressions emitted"] += 1
                except native.Unsupported as e:
                    gaps["expression"][_reason(str(e))] += 1
                    where[_reason(str(e))].append(f"{Path(name).stem}: {e}")
        for h, spec in HOOKS.items():
            if not g.by_hook.get(h):
                continue
            if spec.kind == HookKind.TRIGGER:
                counts["trigger hooks"] += 1
                continue
            counts["hooks"] += 1
            try:
                hooks.plan(g, h)
                counts["hooks planned"] += 1
            except native.Unsupported as e:
                gaps["hook"][_reason(str(e))] += 1
                where[_reason(str(e))].append(f"{Path(name).stem} {h}: {e}")
    print(f"{len(names)} rulesets and variants: {counts['hooks planned']} of {counts['hooks']} permit/value hooks, "
          f"{counts['expressions emitted']} of {counts['expressions']} expressions ({counts['trigger hooks']} trigger hooks "
          "with rules: run by the game flow)")
    for what, c in gaps.items():
        for reason, k in c.most_common():
            print(f"{k:5d}  {what}: {reason}")
            if a.verbose:
                for w in where[reason][:3]:
                    print(f"         {w[:300]}")


if __name__ == "__main__":
    main()
