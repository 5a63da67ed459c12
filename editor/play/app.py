"""``gouji play``: the play screen as a standalone app.

    gouji play [RULESET] [--seat N] [--seed S] [--bots random|heuristic] [--record FILE]
    python -m editor.play.app online --seed 7

:data:`play_command` is a click command; the ``gouji`` group adds it with
``gouji.add_command(play_command)``. :func:`main` runs it on its own.
"""
from __future__ import annotations

import random
import sys
from functools import partial
from pathlib import Path
from typing import Any, Iterable

import click
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.screen import Screen

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.graph import RuleGraph, load_graph
from gouji_dsl.records import GameRecord, load_record, record_graph, replay_steps

from .screen import SPEEDS, PlayScreen


def palette_commands(app: App, screen: Screen) -> Iterable[SystemCommand]:
    """Every binding of the screen (shown in the footer or not) as a command-palette entry."""
    seen: set[str] = set()
    for _, active in screen.active_bindings.items():
        b = active.binding
        if not b.description or not active.enabled or b.description in seen:
            continue
        if not isinstance(active.node, (Screen, App)) and not b.show:
            continue  # a widget's own keys (cursor movement, ...): not commands
        seen.add(b.description)
        help_text = f"{b.tooltip} ({app.get_key_display(b)})" if b.tooltip else app.get_key_display(b)
        yield SystemCommand(b.description, help_text, partial(app.run_action, b.action, active.node))


class PlayApp(App[None]):
    """Test-play one ruleset (a :class:`RuleGraph`, a bundled name or a path)."""

    TITLE = "gouji play"
    CSS_PATH = "play.tcss"  # the default screen's own CSS_PATH is not loaded by Textual
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", priority=True, show=False)]

    def __init__(self, ruleset: RuleGraph | str = "online", *, seat: int = 1, seed: Any = None,
                 bots: str = "heuristic", record: GameRecord | str | None = None, hands: dict[int, Any] | None = None,
                 leader: int | None = None, speed: str = "normal", autopass: bool = True, show_steps: bool = True):
        super().__init__()
        self.graph = ruleset if isinstance(ruleset, RuleGraph) else load_graph(ruleset)
        self.play_args = dict(seat=seat, seed=random.randrange(1_000_000) if seed is None else seed, bots=bots,
                              record=record, hands=hands, leader=leader, speed=speed, autopass=autopass,
                              show_steps=show_steps)

    def get_default_screen(self) -> Screen:
        return PlayScreen(self.graph, **self.play_args)

    @property
    def play_screen(self) -> PlayScreen:
        for s in reversed(self.screen_stack):
            if isinstance(s, PlayScreen):
                return s
        raise LookupError("no play screen")

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        names = set()
        for cmd in palette_commands(self, screen):
            names.add(cmd.title)
            yield cmd
        for cmd in super().get_system_commands(screen):
            if cmd.title not in names:
                yield cmd


def _seed(value: str | None) -> Any:
    if value is None:
        return None
    return int(value) if value.lstrip("-").isdigit() else value


@click.command("play")
@click.argument("ruleset", required=False, default=None)
@click.option("--seat", type=click.IntRange(1, 6), default=1, show_default=True, help="Your seat (1-6).")
@click.option("--seed", default=None, help="Seed of the deals and bots (default: a random one, shown on screen).")
@click.option("--bots", type=click.Choice(["heuristic", "random"]), default="heuristic", show_default=True,
              help="The bots at the other seats.")
@click.option("--record", "record_path", type=click.Path(dir_okay=False), default=None,
              help="Open a saved game record and replay it step by step.")
@click.option("--speed", type=click.Choice([n for n, _ in SPEEDS]), default="normal", show_default=True,
              help="How fast the bots play.")
@click.option("--no-autopass", is_flag=True, help="Do not pass for you when pass is your only move.")
def play_command(ruleset: str | None, seat: int, seed: str | None, bots: str, record_path: str | None,
                 speed: str, no_autopass: bool) -> None:
    """Test-play RULESET (a bundled name or a file; default: online) against bots.

    Type moves in card notation (RR TTT, pass, burn BB JJJJ ...); every refused move says which
    rule forbids it, and every move of the log can be expanded into the rules that decided it.
    F1 in the app lists the keys."""
    record = None
    try:
        if record_path is not None:
            record = load_record(record_path)
            graph = load_graph(ruleset) if ruleset else record_graph(record)
            replay_steps(graph, record)  # refuse a record that does not replay, before the app starts
        else:
            graph = load_graph(ruleset or "online")
    except GoujiError as e:
        click.echo(e.format(), err=True)
        raise SystemExit(1) from None
    if seat > graph.n_seats:
        click.echo(f"--seat: this ruleset has {graph.n_seats} seats", err=True)
        raise SystemExit(2)
    PlayApp(graph, seat=seat, seed=_seed(seed), bots=bots, record=record, speed=speed,
            autopass=not no_autopass).run()


def main(argv: list[str] | None = None) -> None:
    """Run ``gouji play`` on its own: ``python -c "from editor.play.app import main; main()" online``."""
    play_command.main(args=sys.argv[1:] if argv is None else argv, prog_name="gouji play")


if __name__ == "__main__":
    main()

__all__ = ["PlayApp", "play_command", "main", "palette_commands", "Path"]
