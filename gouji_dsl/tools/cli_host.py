"""``gouji host RULESET [--port P] [--host 127.0.0.1] [--seats 1,3] [--bots SPEC] [--timer S]``: a club
table server (issue 27; :mod:`gouji_dsl.tools.table`, the protocol in docs/table-protocol.md)."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from gouji_dsl.bots import seat_bots
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import N_, _, ngettext
from gouji_dsl.tools.cli_duel import BotsType, PositiveFloat, bots_help
from gouji_dsl.tools.exits import SEED, SafePath, err, seed_value

__all__ = ["host_command", "read_seats", "table_rules"]

# the paragraphs of the command's help (shown in the active language: HelpInLanguage.write_text)
HELP_PARAGRAPHS = (
    N_('RULESET is a bundled name or a file (its text travels with the table); several open one table each (at most '
       '--max-tables). A table plays one match as the ruleset defines it (tribute between games, the scoreboard). It '
       'prints the room code, the room link and one seat link per seat kept for people. The server alone judges moves;'
       ' each seat is sent only what the ruleset lets it see; a seat whose player drops out or runs out of time is '
       'played by its bot (托管) until he is back with his seat link.'),
    N_('There is no login: anyone who can reach the server and has the code or a link can join. It binds 127.0.0.1 '
       '(this machine only) unless --host says otherwise. Stop it with Ctrl+C.'),
)


def read_seats(text: str | None, n_seats: int) -> set[int] | None:
    """``--seats``: ``all`` (or nothing: every seat is kept for people), ``none``, or seat numbers
    ``1,3,5``. Raises ValueError naming a bad one."""
    if text is None or text.strip().lower() == "all":
        return None
    if text.strip().lower() == "none":
        return set()
    out = set()
    for part in text.split(","):
        p = part.strip()
        if not (p.isascii() and p.isdigit() and 1 <= int(p) <= n_seats):
            raise ValueError(f"{p[:20]!r} is no seat: give seat numbers 1..{n_seats} separated by commas, 'all' or 'none'")
        out.add(int(p))
    return out


def table_rules(ruleset: str) -> Any:
    """The table's ruleset (a bundled name or a file) with its file's text. Raises GoujiError."""
    from gouji_dsl.ruleset.graph import compile_ruleset  # lazy: start-up
    from gouji_dsl.ruleset.load.resolving import resolve  # lazy: start-up
    from gouji_dsl.tools.table.game import TableRules  # lazy: start-up
    resolved = resolve(ruleset)
    return TableRules(compile_ruleset(resolved), resolved.name, resolved.path, resolved.text)


@click.command("host")
@click.argument("rulesets", nargs=-1, required=True, metavar="RULESET...")
@click.option("--host", default="127.0.0.1", show_default=True,
              help=N_("Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every network it is on)."))
@click.option("--port", type=click.IntRange(1, 65535), default=8765, show_default=True, help=N_("Port to listen on."))
@click.option("--seats", default="all", show_default=True, metavar="all|none|1,3,...",
              help=N_("The seats kept for people; the others are bots from the start. The table starts when they are all "
                   "taken, or when a seated player asks to start (bots take the free seats)."))
@click.option("--bots", type=BotsType(), default="heuristic", show_default=True,
              help=bots_help(N_("The bots (they also play a person's seat while he is away or out of time: 托管)")))
@click.option("--timer", type=PositiveFloat(), default=None, metavar="S",
              help=N_("Seconds a person has for a move; then his bot plays for him until he is back. Default: no timer."))
@click.option("--between", type=click.FloatRange(min=0, max=3600), default=15.0, show_default=True, metavar="S",
              help=N_("Seconds between two games of a match, unless every connected player is ready sooner."))
@click.option("--start-after", type=click.FloatRange(min=0, max=86400), default=None, metavar="S",
              help=N_("Start S seconds after the first person sits, bots taking the free seats (also: Enter in this terminal "
                   "starts every table now)."))
@click.option("--seed", type=SEED, default=None,
              help=N_("The match's seed (default: a random one; its sha256 is shown before the first deal, the seed after the match)."))
@click.option("--record-dir", type=SafePath(file_okay=False), default=".", show_default=True,
              help=N_("Folder where the match's game record is saved (table-CODE-TIME.json; `gouji replay --check` verifies it)."))
@click.option("--max-tables", type=click.IntRange(1, 64), default=8, show_default=True, help=N_("Tables at once."))
@click.option("--max-connections", type=click.IntRange(1, 1024), default=64, show_default=True, help=N_("Connections at once."))
def host_command(rulesets: tuple[str, ...], host: str, port: int, seats: str, bots: str, timer: float | None, between: float,
                 start_after: float | None, seed: str | None, record_dir: str, max_tables: int, max_connections: int) -> None:
    """Hold a club table of RULESET: people join with gouji join, bots take the free seats.

    RULESET is a bundled name or a file (its text travels with the table); several open one table
    each (at most --max-tables). A table plays one match
    as the ruleset defines it (tribute between games, the scoreboard). It prints the room code, the
    room link and one seat link per seat kept for people. The server alone judges moves; each seat is
    sent only what the ruleset lets it see; a seat whose player drops out or runs out of time is played
    by its bot (托管) until he is back with his seat link.

    There is no login: anyone who can reach the server and has the code or a link can join. It binds
    127.0.0.1 (this machine only) unless --host says otherwise. Stop it with Ctrl+C.

    \b
    Example:
      gouji host rules/house.yaml --bots heuristic --timer 30
    """
    from gouji_dsl.tools.netguard import CannotListen, check_listen  # lazy: start-up
    from gouji_dsl.tools.table import WebExtraMissing, require_aiohttp  # lazy: start-up
    try:
        require_aiohttp()
    except WebExtraMissing as e:
        err(f"gouji host: {e}")
        sys.exit(1)
    if len(rulesets) > max_tables:
        raise click.BadParameter(f"{len(rulesets)} rulesets, at most {max_tables} tables (--max-tables)", param_hint="'RULESET...'")
    tables = []
    for ruleset in rulesets:
        try:
            rules = table_rules(ruleset)
        except GoujiError as e:
            err(e.format())
            sys.exit(1)
        tables.append((rules, _people_and_bots(rules, seats, bots)))
    try:
        check_listen(host, port, "gouji host")
    except CannotListen as e:
        err(f"gouji host: {e}")
        sys.exit(1)
    _serve(tables, host, port, bots=bots, timer=timer, between=between, start_after=start_after, seed=seed,
           record_dir=Path(record_dir), max_tables=max_tables, max_connections=max_connections)


def _people_and_bots(rules: Any, seats: str, bots: str) -> set[int] | None:
    """``--seats`` for this ruleset's seats (``--bots`` checked against them too)."""
    try:
        people = read_seats(seats, rules.graph.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--seats'") from None
    try:
        seat_bots(bots, rules.graph.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--bots'") from None
    return people


def _serve(tables: list[tuple[Any, set[int] | None]], host: str, port: int, *, bots: str, timer: float | None, between: float,
           start_after: float | None, seed: str | None, record_dir: Path, max_tables: int, max_connections: int) -> None:
    import logging

    from aiohttp import web

    from gouji_dsl.tools.table.protocol import Limits  # lazy: start-up
    from gouji_dsl.tools.table.server import TableServer  # lazy: start-up
    logging.basicConfig(level="INFO", format="%(message)s", stream=sys.stderr)
    server = TableServer(host, port, limits=Limits(tables=max_tables, connections=max_connections), record_dir=record_dir)
    for i, (rules, people) in enumerate(tables):
        table_seed = None if seed is None else str(seed_value(seed)) + (f":table{i + 1}" if i else "")
        server.open_table(rules, people=people, bots=bots, timer=timer, between=between, seed=table_seed,
                          start_after=start_after)
    app = server.make_app()

    async def say(_app: Any) -> None:
        click.echo("\n".join(server.listening_lines()))
        if sys.stdin is not None and sys.stdin.isatty():
            import asyncio
            click.echo("  " + _("press Enter to start every table now (bots take the free seats)"))

            def enter() -> None:
                if not sys.stdin.readline():  # (end of input: stop listening to it)
                    asyncio.get_running_loop().remove_reader(sys.stdin)
                    return
                n = server.start_all()
                click.echo(ngettext("gouji host: started {n} table", "gouji host: started {n} tables", n).format(n=n) if n
                           else _("gouji host: every table has started"))
            asyncio.get_running_loop().add_reader(sys.stdin, enter)
    app.on_startup.append(say)
    web.run_app(app, host=host, port=port, print=None, handle_signals=True)
