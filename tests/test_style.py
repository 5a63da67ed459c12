"""The code style gate: ruff (configured in pyproject.toml; installed by the test extra) is clean."""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ruff_clean():
    out = subprocess.run([sys.executable, "-m", "ruff", "check", "gouji_dsl", "editor", "tests", "benchmarks"],
                         cwd=ROOT, capture_output=True, text=True)
    assert out.returncode == 0, out.stdout + out.stderr
