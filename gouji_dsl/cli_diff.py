"""``gouji diff`` (placeholder until the compare module lands)."""
from __future__ import annotations

import click


@click.command("diff")
@click.argument("a")
@click.argument("b")
def diff_command(a: str, b: str) -> None:
    """Compare two rulesets (not implemented yet)."""
    raise click.ClickException("gouji diff is not implemented yet")
