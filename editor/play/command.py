"""``gouji play``: the click command (no Textual import until the app starts, so the ``gouji``
command group stays fast). Wire it with ``gouji.add_command(play_command)``.

    gouji play [RULESET] [--seat N] [--seed S] [--bots BOT|A,B] [--record FILE [--review]] [--speed S]
"""
from __future__ import annotations

import sys
from typing import Any

import click

from gouji_dsl.bots import BOTS, seat_bots
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.i18n import formatted_later
from gouji_dsl.tools.cli_duel import BotsType
from gouji_dsl.tools.exits import SEED, SafePath, err, seed_value, set_option

from ..i18n import N_

SPEED_NAMES = ["instant", "fast", "normal", "slow"]  # editor.play.screen.SPEEDS


@click.command("play")
@click.argument("ruleset", required=False, default=None)
@click.option("--seat", type=click.IntRange(1, 6), default=1, show_default=True, help=N_("Your seat (1-6)."))
@click.option("--seed", type=SEED, default=None, help=N_("Seed of the deals and bots (default: a random one, shown on screen)."))
@click.option("--bots", type=BotsType(), default="heuristic", show_default=True,
              help=formatted_later(N_("The bots at the other seats: one bot for all of them, A,B (A at the odd seats "
                                      "1/3/5, B at the even ones) or one per seat (A,B,C,D,E,F); your seat is yours. "
                                      "Bots: {bots}; a search bot takes an iteration budget as NAME:N (e.g. "
                                      "ismcts:200). In the app: ctrl+N (new game) chooses them, shift+F3 asks one."),
                                   bots=", ".join(BOTS)))
@click.option("--record", "record_path", type=SafePath(dir_okay=False), default=None,
              help=N_("Open a saved game record and replay it step by step."))
@click.option("--speed", type=click.Choice(SPEED_NAMES), default="normal", show_default=True,
              help=N_("How fast the bots play."))
@click.option("--no-autopass", is_flag=True, help=N_("Do not pass for you when pass is your only move."))
@click.option("--review", is_flag=True,
              help=N_("Review mode (F12 in the app): every hand open, and each decision with its legal moves and "
                      "the rules that decided them. With --record, to settle a dispute over a saved game."))
@set_option
def play_command(ruleset: str | None, seat: int, seed: str | None, bots: str, record_path: str | None,
                 speed: str, no_autopass: bool, review: bool, overrides: tuple[str, ...] = ()) -> None:
    """Test-play RULESET (a bundled name or a file; default: online) against bots.

    Type moves in card notation (RR TTT, pass, burn BB JJJJ ...); every refused move says which
    rule forbids it, and every move of the log can be expanded into the rules that decided it.
    F1 in the app lists the keys."""
    from gouji_dsl.engine.records import load_record, record_graph, replay_steps
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.exits import load_graph as with_overrides
    record = None
    try:
        if record_path is not None:
            record = load_record(record_path)
            graph = load_graph(ruleset) if ruleset else record_graph(record)
            if overrides:
                graph = with_overrides(ruleset or graph.resolved.path, overrides)
            replay_steps(graph, record)  # refuse a record that does not replay, before the app starts
        else:
            graph = with_overrides(ruleset or "online", overrides) if overrides else load_graph(ruleset or "online")
    except GoujiError as e:
        err(e.format())
        raise SystemExit(1) from None
    if seat > graph.n_seats:
        raise click.BadParameter(f"this ruleset has {graph.n_seats} seats", param_hint="'--seat'")
    try:
        seat_bots(bots, graph.n_seats)
    except ValueError as e:
        raise click.BadParameter(str(e), param_hint="'--bots'") from None
    from ..terminal_keys import run_as_command
    from .app import PlayApp  # Textual only now

    app = PlayApp(graph, seat=seat, seed=None if seed is None else seed_value(seed), bots=bots, record=record,
                  speed=speed, autopass=not no_autopass, review=review)
    run_as_command(app)  # SIGTERM: one line, exit 130 (issue 29); an internal error: exit 2


@click.command("join")
@click.argument("table")
@click.option("--name", default=None, help=N_("Your name at the table (at most 24 printable characters)."))
@click.option("--seat", type=click.IntRange(1, 6), default=None, help=N_("Take this free seat (default: the first free one)."))
@click.option("--watch", is_flag=True, help=N_("Watch the table as a spectator (you see no hand)."))
@click.option("--server", default=None, metavar="URL",
              help=N_("The table server for a bare room code (default: http://127.0.0.1:8765)."))
@click.option("--no-autopass", is_flag=True, help=N_("Do not pass for you when pass is your only move."))
@click.option("--again", is_flag=True,
              help=N_("Take back the seat you last had at this table (its token, kept when you joined it from this "
                      "account; with --name, the seat you had under that name): after a killed terminal, without the "
                      "seat link."))
def join_command(table: str, name: str | None, seat: int | None, watch: bool, server: str | None,
                 no_autopass: bool, again: bool) -> None:
    """Sit at a club table of `gouji host`: TABLE is its room code (K7QM), its link
    (http://HOST:PORT/t/K7QM) or your seat's link (…?token=…, which takes your seat back).

    The play screen, as in `gouji play`: the same keys, and F5 (why), F4 (legal moves), F3 (hint)
    answered by the table's server, the only judge. Bots fill the seats nobody takes; a seat whose
    player leaves is played by its bot (托管) until he joins again: with the seat link, or with
    --again (the token is kept for this account). ctrl+g starts the table now, ctrl+q leaves."""
    from .remote import AddressError, parse_address
    if seat is not None and watch:
        raise click.UsageError("--seat and --watch exclude each other: a spectator has no seat")
    try:
        address = parse_address(table, server)
    except AddressError as e:
        raise click.BadParameter(str(e), param_hint="'TABLE'") from None
    from ..terminal_keys import run_as_command
    from .join import JoinApp, remembered_token  # Textual only now

    if again and address.token is None:
        kept = remembered_token(address, name)
        if kept is None:
            raise click.UsageError(f"--again: no seat kept for table {address.code} at {address.server} "
                                   "(give the seat link printed when you left)")
        address = type(address)(address.server, address.code, kept)
    app = JoinApp(address, name=name, seat=seat, watch=watch, autopass=not no_autopass)
    run_as_command(app)
    if app.failure:
        err(app.failure)
        raise SystemExit(1)
    if app.seat_link:
        click.echo(f"gouji join: your seat's link (takes the seat back): {app.seat_link}")


def main(argv: list[str] | None = None) -> None:
    """Run ``gouji play`` on its own: ``python -m gouji_app.play.command online``."""
    play_command.main(args=sys.argv[1:] if argv is None else argv, prog_name="gouji play")


if __name__ == "__main__":
    main()

__all__ = ["play_command", "join_command", "main", "SPEED_NAMES"]
_ = Any
