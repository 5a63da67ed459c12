"""The ``gouji`` console script: imports the command line (:mod:`gouji_app.cli`) and runs it.

Kept tiny on purpose: a Ctrl+C while the command line is still being imported (a fraction of a
second, longer on a loaded machine) ends with one line and exit status 130, not a traceback.
"""
from __future__ import annotations

import sys

EXIT_INTERRUPTED = 130  # gouji_dsl.tools.cli.EXIT_INTERRUPTED, not imported: this module stays tiny


def main(argv: list[str] | None = None) -> None:
    """Console-script entry point (``gouji = "gouji_app.entry:main"``)."""
    try:
        from .cli import main as cli_main
    except KeyboardInterrupt:
        sys.stderr.write("interrupted\n")
        raise SystemExit(EXIT_INTERRUPTED) from None
    cli_main(argv)
