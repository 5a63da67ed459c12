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
import types
from pathlib import Path

import pytest

from gouji_dsl.engine import native
from gouji_dsl.engine.native._stamp import source_hash

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
            "spec.loader.exec_module(m); print(m.ABI, m.Random([1]).genrand_uint32(), m.SOURCE_HASH)")
    out = subprocess.run([sys.executable, "-c", code, str(built[0])], capture_output=True, text=True, timeout=60)
    import random
    assert out.stdout.split() == [str(native.ABI), str(random.Random(1).getrandbits(32)), source_hash()], out.stderr


def test_the_reason_when_switched_off(monkeypatch):
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    assert native.unavailable_reason() == f"the native core is switched off ({native.DISABLE_ENV} is set)"


def test_a_core_built_from_other_sources_is_not_used_and_the_reason_says_rebuild():
    """t23 (issue 24): a checkout rebased onto new C sources without a rebuild loaded the old core,
    which read the new tables with its old layout ("ValueError: a joker combination is out of
    range"). A core carries its sources' fingerprint; one that differs from the shipped sources'
    is not used, and the reason names the rebuild."""
    stale = native._stale_reason(types.SimpleNamespace(SOURCE_HASH="0" * 64))
    assert stale is not None and "built from other C sources" in stale and "build_ext --inplace" in stale
    assert native._stale_reason(types.SimpleNamespace()) == stale  # (a core from before the fingerprint)
    assert native._stale_reason(types.SimpleNamespace(SOURCE_HASH=source_hash())) is None
    if native.available():
        assert source_hash() == native._core_module().SOURCE_HASH


def test_the_fingerprint_covers_every_c_source(tmp_path):
    folder = Path(native.__file__).parent
    for p in folder.iterdir():
        if p.suffix in (".c", ".h"):
            shutil.copy(p, tmp_path / p.name)
    assert source_hash(tmp_path) == source_hash()
    for name in ("flow_py.h", "_core.c"):
        p = tmp_path / name
        kept = p.read_bytes()
        p.write_bytes(kept + b"\n")
        assert source_hash(tmp_path) != source_hash()
        p.write_bytes(kept)
    (tmp_path / "new.h").write_bytes(b"")
    assert source_hash(tmp_path) != source_hash()
    (tmp_path / "empty").mkdir()
    assert source_hash(tmp_path / "empty") is None  # (a package without its sources: nothing to compare)
