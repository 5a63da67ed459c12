"""Build of the native play-out core (``gouji_dsl.engine.native._core``), everything else is in
pyproject.toml.

The extension is compiled from the package's own C sources with the machine's C compiler when
``pip install .`` runs. It is optional: without a compiler (or with ``CC=/bin/false``) the build
prints a warning and the package installs without it; the interpreter and the generated module
then play, and every summary says which engine played and why
(:func:`gouji_dsl.engine.native.unavailable_reason`).
"""
import importlib.util
from pathlib import Path

from setuptools import Extension, setup

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_stamp", _HERE / "gouji_dsl/engine/native/_stamp.py")
assert _spec is not None and _spec.loader is not None
_stamp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_stamp)
# the sources' fingerprint, compiled in: the package uses no core built from other sources
SOURCE_HASH = _stamp.source_hash(_HERE / "gouji_dsl/engine/native") or ""

setup(
    ext_modules=[
        Extension(
            "gouji_dsl.engine.native._core",
            sources=["gouji_dsl/engine/native/_core.c"],
            depends=["gouji_dsl/engine/native/mt.h", "gouji_dsl/engine/native/game.h",
                     "gouji_dsl/engine/native/vm.h", "gouji_dsl/engine/native/sha512.h",
                     "gouji_dsl/engine/native/flow.h", "gouji_dsl/engine/native/flow_py.h",
                     "gouji_dsl/engine/native/_stamp.py"],
            define_macros=[("GOUJI_SOURCE_HASH", f'"{SOURCE_HASH}"')],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ],
)
