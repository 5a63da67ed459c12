"""The native core's build: ``setup.py`` compiles it from the package's own sources with the
machine's C compiler, and without a working compiler (``CC=/bin/false``) the build still
succeeds, leaving the core out; the package then says why it is not used.

``GOUJI_REQUIRE_NATIVE=1`` (set by ``.ci/run``, which installs the package as a user does) makes
a missing core a failure instead of a skipped test."""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from gouji_dsl.engine import native

ROOT = Path(__file__).resolve().parent.parent
HAS_CC = shutil.which(str(sysconfig.get_config_var("CC") or "cc").split()[0]) is not None


def test_the_core_is_built_where_required():
    if os.environ.get("GOUJI_REQUIRE_NATIVE"):
        assert native.available(), native.unavailable_reason()
    elif not native.available():
        pytest.skip(f"native core not built: {native.unavailable_reason()}")


def _build(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "setup.py", "build_ext", "--build-lib", str(tmp_path / "lib"),
                           "--build-temp", str(tmp_path / "temp")], cwd=ROOT, env={**os.environ, **env},
                          capture_output=True, text=True, timeout=300)


def test_without_a_compiler_the_build_succeeds_without_the_core(tmp_path):
    res = _build(tmp_path, CC="/bin/false")
    assert res.returncode == 0, res.stderr
    assert "building extension \"gouji_dsl.engine.native._core\" failed" in res.stdout + res.stderr
    assert not list(tmp_path.rglob("_core*.so"))


@pytest.mark.skipif(not HAS_CC, reason="no C compiler on this machine")
def test_the_build_compiles_the_core_from_the_package_sources(tmp_path):
    res = _build(tmp_path)
    assert res.returncode == 0, res.stderr
    built = list((tmp_path / "lib").rglob("_core*.so"))
    assert len(built) == 1 and built[0].parent.name == "native"
    # the built module loads and speaks the wrappers' ABI
    code = ("import importlib.util, sys; spec = importlib.util.spec_from_file_location("
            "'gouji_dsl.engine.native._core', sys.argv[1]); m = importlib.util.module_from_spec(spec); "
            "spec.loader.exec_module(m); print(m.ABI, m.Random([1]).genrand_uint32())")
    out = subprocess.run([sys.executable, "-c", code, str(built[0])], capture_output=True, text=True, timeout=60)
    import random
    assert out.stdout.split() == [str(native.ABI), str(random.Random(1).getrandbits(32))], out.stderr


def test_the_reason_when_switched_off(monkeypatch):
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    assert native.unavailable_reason() == f"the native core is switched off ({native.DISABLE_ENV} is set)"
