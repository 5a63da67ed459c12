"""Console-script entry point ``gouji`` (``editor.cli:main``).

Minimal for now: it runs the library command group from :mod:`gouji_dsl.cli` (validate, simulate,
show, test, diff). The app engineer extends this module with ``gouji edit``, ``gouji play`` and
the no-argument app; the library never imports this package.
"""
from __future__ import annotations

from gouji_dsl.cli import cli


def main(argv: list[str] | None = None) -> None:
    """Run ``gouji``."""
    cli.main(args=argv, prog_name="gouji")


if __name__ == "__main__":  # pragma: no cover
    main()
