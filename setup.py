"""Build of the native play-out core (``gouji_dsl.engine.native._core``) and of the message
catalogs (``gouji_dsl/locale/<lang>/LC_MESSAGES/<domain>.mo`` from the ``.po`` files beside them);
everything else is in pyproject.toml.

The extension is compiled from the package's own C sources with the machine's C compiler when
``pip install .`` runs. It is optional: without a compiler (or with ``CC=/bin/false``) the build
prints a warning and the package installs without it; the interpreter and the generated module
then play, and every summary says which engine played and why
(:func:`gouji_dsl.engine.native.unavailable_reason`).
"""
import importlib.util
import os
import shlex
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

_HERE = Path(__file__).resolve().parent
_spec = importlib.util.spec_from_file_location("_stamp", _HERE / "gouji_dsl/engine/native/_stamp.py")
assert _spec is not None and _spec.loader is not None
_stamp = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_stamp)
# the sources' fingerprint, compiled in: the package uses no core built from other sources
SOURCE_HASH = _stamp.source_hash(_HERE / "gouji_dsl/engine/native") or ""

LOCALE = Path("gouji_dsl") / "locale"


def compile_catalogs(dest_root: Path) -> list[Path]:
    """Compile every ``gouji_dsl/locale/*/LC_MESSAGES/*.po`` of the checkout to its ``.mo`` under
    ``dest_root`` (the same relative path) with Babel, fuzzy entries left out (they show in English).
    Without Babel (a build without build isolation in an environment that lacks it) a warning says
    the program will speak English only; ``pip install .`` always has it ([build-system] requires)."""
    sources = sorted((_HERE / LOCALE).glob("*/LC_MESSAGES/*.po"))
    if not sources:
        return []
    try:
        from babel.messages.mofile import write_mo
        from babel.messages.pofile import read_po
    except ImportError:
        sys.stderr.write("warning: Babel is not installed: the message catalogs (gouji_dsl/locale/*.po) are not "
                         "compiled and gouji speaks English only (pip install babel, then build again)\n")
        return []
    written = []
    for po in sources:
        mo = dest_root / po.relative_to(_HERE).with_suffix(".mo")
        with po.open("rb") as fh:
            catalog = read_po(fh, locale=po.parent.parent.name, domain=po.stem)
        mo.parent.mkdir(parents=True, exist_ok=True)
        tmp = mo.with_name(mo.name + ".tmp")
        with tmp.open("wb") as fh:
            write_mo(fh, catalog, use_fuzzy=False)
        tmp.replace(mo)
        written.append(mo)
    return written


class BuildPyWithCatalogs(build_py):
    """build_py, then the catalogs: into the build folder (a wheel), or beside the ``.po`` files for an
    editable install."""

    def run(self) -> None:
        super().run()
        compile_catalogs(_HERE if self.editable_mode else Path(self.build_lib))


class BuildExtWithCatalogs(build_ext):
    """build_ext; with ``--inplace`` (a development checkout: ``python setup.py build_ext --inplace``)
    the catalogs are compiled beside their ``.po`` files too."""

    def run(self) -> None:
        super().run()
        if self.inplace:
            compile_catalogs(_HERE)


setup(
    cmdclass={"build_py": BuildPyWithCatalogs, "build_ext": BuildExtWithCatalogs},
    ext_modules=[
        Extension(
            "gouji_dsl.engine.native._core",
            sources=["gouji_dsl/engine/native/_core.c"],
            depends=["gouji_dsl/engine/native/mt.h", "gouji_dsl/engine/native/game.h",
                     "gouji_dsl/engine/native/vm.h", "gouji_dsl/engine/native/sha512.h",
                     "gouji_dsl/engine/native/flow.h", "gouji_dsl/engine/native/flow_py.h",
                     "gouji_dsl/engine/native/heuristic.h", "gouji_dsl/engine/native/heuristic_py.h",
                     "gouji_dsl/engine/native/batch.h",
                     "gouji_dsl/engine/native/_stamp.py"],
            define_macros=[("GOUJI_SOURCE_HASH", f'"{SOURCE_HASH}"')],
            # (GOUJI_NATIVE_CFLAGS: flags after -O2, e.g. the sanitized build's -O0: benchmarks/native_asan.py)
            extra_compile_args=["-O2", *shlex.split(os.environ.get("GOUJI_NATIVE_CFLAGS", ""))],
            optional=True,
        ),
    ],
)
