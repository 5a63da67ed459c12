"""The native core under AddressSanitizer and UBSan: ``benchmarks/native_asan.py`` builds it
sanitized and feeds it random and mutated generator states, deal tables, hook programs and
contexts, flow programs and states, whole-game batches with random and heuristic bots. No input
may make it read or write outside its arrays: a sanitizer report fails the test.

What the suite runs is cheaper than the script's default (the README's "native core" section):
the build at -O0 (~3 s CPU instead of ~16 s at -O1; the sanitizers see every access the source
makes) and the programs and states of :data:`RULESETS` (12 of the 26 bundled rulesets and
variants, chosen for the features they exercise: set-up ~15 s CPU instead of ~30 s), 400 rounds.
The full set is ``python benchmarks/native_asan.py`` (every ruleset, -O1, 3,000 rounds)."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: the rulesets whose programs and states are fuzzed here: revolutions, dead gouji and yields
#: (online, base), seat_start rules (online-xuandian), declaring and tribute (qingdao), buying rounds (rulebook), fractional scores
#: (six-deck-eagle), positional jokers, the free-count comparison (big-jokers-two-kill-one), other
#: packs (deck-198), see_count rules (hidden-counts), burn rules (burn-no-fours), offers
#: (ask-redeal), joker covers (jokers-equal-cover)
RULESETS = ("online", "base", "online-xuandian", "qingdao", "rulebook", "six-deck-eagle", "positional-jokers",
            "big-jokers-two-kill-one", "deck-198", "hidden-counts", "burn-no-fours", "ask-redeal", "jokers-equal-cover")


def _has_sanitizers() -> bool:
    if shutil.which("gcc") is None:
        return False
    out = subprocess.run(["gcc", "-print-file-name=libasan.so"], capture_output=True, text=True, timeout=60).stdout.strip()
    return Path(out).is_absolute() and Path(out).exists()


@pytest.mark.skipif(not _has_sanitizers(), reason="no gcc with AddressSanitizer on this machine")
def test_the_core_under_address_sanitizer():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    try:
        import native_asan
    finally:
        sys.path.remove(str(ROOT / "benchmarks"))
    res = native_asan.run(rounds=400, seed=11, timeout=600, rulesets=",".join(RULESETS), opt="-O0")
    assert res.returncode == 0, res.stdout + res.stderr[-4000:]
    assert "no sanitizer report" in res.stdout and f"({len(RULESETS)} rulesets;" in res.stdout
