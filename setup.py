"""Build of the native play-out core (``gouji_dsl.engine.native._core``), everything else is in
pyproject.toml.

The extension is compiled from the package's own C sources with the machine's C compiler when
``pip install .`` runs. It is optional: without a compiler (or with ``CC=/bin/false``) the build
prints a warning and the package installs without it; the interpreter and the generated module
then play, and every summary says which engine played and why
(:func:`gouji_dsl.engine.native.unavailable_reason`).
"""
from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "gouji_dsl.engine.native._core",
            sources=["gouji_dsl/engine/native/_core.c"],
            depends=["gouji_dsl/engine/native/mt.h", "gouji_dsl/engine/native/game.h",
                     "gouji_dsl/engine/native/vm.h", "gouji_dsl/engine/native/sha512.h",
                     "gouji_dsl/engine/native/flow.h", "gouji_dsl/engine/native/flow_py.h"],
            extra_compile_args=["-O2"],
            optional=True,
        ),
    ],
)
