"""The native core under AddressSanitizer and UBSan: ``benchmarks/native_asan.py`` builds it
sanitized and feeds it random and mutated generator states, deal tables, hook programs and
contexts (a couple of hundred rounds here; the script runs as many as asked). No input may make
it read or write outside its arrays: a sanitizer report fails the test."""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


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
    res = native_asan.run(rounds=200, seed=11, timeout=600)
    assert res.returncode == 0, res.stdout + res.stderr[-4000:]
    assert "no sanitizer report" in res.stdout
