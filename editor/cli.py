"""The ``gouji`` command: the library's commands plus the editor.

``gouji`` with no command opens the app on the workspace (``./rules`` or ``--workspace DIR``);
``gouji edit FILE`` opens a file straight in the editor; every command of the library's click group
(:data:`gouji_dsl.tools.cli.cli`: validate, test, simulate, show, diff, ...) works unchanged through it.
New commands (e.g. a later ``gouji play``) are added with :func:`command` or ``gouji.add_command``.
"""
from __future__ import annotations

import inspect
import sys
from pathlib import Path

import click

from gouji_dsl.i18n import current
from gouji_dsl.tools.cli import SafeGroup, cli, use_language
from gouji_dsl.tools.cli_duel import BotsType, bots_help
from gouji_dsl.tools.exits import SEED, SafePath

from .i18n import N_


def _workspace_option(f):
    return click.option(
        "--workspace", "-w", type=SafePath(file_okay=False, path_type=Path), default=None,
        help=N_("Folder of your ruleset files (default: ./rules). New variants are created there."))(f)


def _set_language(ctx: click.Context, _param: click.Parameter, value: str | None) -> None:
    """The language of the app and the messages (语言): ``--lang``, else ``GOUJI_LANG``, else the
    locale (``LANG=zh_CN.UTF-8``), else English (:func:`gouji_dsl.i18n.resolve`). A command's own
    ``--lang`` overrides the group's; a value that is no language is an error, never a quiet default."""
    if value is None and ctx.parent is not None:
        return  # a command's --lang not given: the group's choice stands
    use_language(ctx, _param, value)  # the library's: its error and notes in the language the rest would give


def lang_option(f):
    """``--lang zh|en`` on a command (and the ``gouji`` group)."""
    return click.option(
        "--lang", default=None, metavar="zh|en", expose_value=False, callback=_set_language,
        help=N_("Language of the app and the messages: zh (中文) or en (default: GOUJI_LANG, else the locale, else en)."))(f)


def run_app(workspace: Path | None = None, open_path: Path | None = None, compare: dict | None = None) -> None:
    """Start the Textual app (imported lazily so the other commands stay fast)."""
    from .app import GoujiApp
    from .terminal_keys import run_as_command

    app = GoujiApp(workspace=workspace, open_path=open_path) if compare is None else \
        GoujiApp(workspace=workspace, open_path=open_path, compare=compare)
    run_as_command(app)  # SIGTERM: one line, exit 130; an internal error: exit 2


class GoujiGroup(SafeGroup):
    """A group whose commands are its own plus the library group's (looked up when asked for).
    Like the library's, no command shows a traceback (see :class:`gouji_dsl.tools.cli.SafeGroup`)."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        names = set(super().list_commands(ctx))
        if isinstance(cli, click.Group):
            names.update(cli.list_commands(ctx))
        return sorted(names)

    def get_command(self, ctx: click.Context, name: str) -> click.Command | None:
        cmd = super().get_command(ctx, name)
        if cmd is None and isinstance(cli, click.Group):
            cmd = cli.get_command(ctx, name)
        return cmd


def _library_params() -> list[click.Parameter]:
    return list(cli.params) if isinstance(cli, click.Group) else []


@click.pass_context
def _callback(ctx: click.Context, workspace: Path | None, **library_options) -> None:
    ctx.ensure_object(dict)
    if isinstance(ctx.obj, dict):
        ctx.obj.setdefault("workspace", workspace)
    if isinstance(cli, click.Group) and cli.callback is not None:
        ctx.invoke(cli.callback, **library_options)  # the library group's own options (if any)
    if ctx.invoked_subcommand is None:
        run_app(workspace=workspace)


gouji = GoujiGroup(
    name="gouji",
    callback=_callback,
    params=[*_library_params()],
    invoke_without_command=True,
    help=((inspect.cleandoc(cli.help) if isinstance(cli, click.Group) and cli.help else
           "Gouji (够级) rulesets: validate, test, simulate, show and edit them.")
          + "\n\nWith no command, opens the editor app on the workspace (./rules or --workspace DIR)."),
    context_settings={"help_option_names": ["-h", "--help"]},
)
_workspace_option(gouji)  # adds --workspace to the group's params
if not any(p.name == "lang" for p in gouji.params):  # (unless the library's group has its own)
    lang_option(gouji)


@gouji.command("edit")
@click.argument("file", type=SafePath(dir_okay=False, path_type=Path))
@_workspace_option
@lang_option
@click.pass_context
def edit(ctx: click.Context, file: Path, workspace: Path | None) -> None:
    """Open FILE in the editor (it is created when you save, if it does not exist).

    The workspace defaults to --workspace given before the command, else FILE's folder."""
    ws = workspace or (ctx.obj or {}).get("workspace") or file.absolute().parent
    run_app(workspace=ws, open_path=file)


@gouji.command("compare")
@click.argument("a")
@click.argument("b")
@click.option("--simulate", "games", type=click.IntRange(min=1), default=None, metavar="N",
              help=N_("Start playing N paired deals at once (else F5 in the app; default N: 200)."))
@click.option("--seed", type=SEED, default="1", show_default=True, help=N_("Seed of the simulated deals (game i deals from SEED:i)."))
@click.option("--bots", type=BotsType(), default="heuristic", show_default=True,
              help=bots_help("Bots in the simulation"))
@_workspace_option
@lang_option
@click.pass_context
def compare(ctx: click.Context, a: str, b: str, games: int | None, seed: str, bots: str,
            workspace: Path | None) -> None:
    """Open the compare screen on rulesets A and B (bundled or workspace names, or paths): the rule
    diff in two panes, and the same seeded deals played under both (F5), with figures, charts and the
    deals that end differently. (gouji diff A B prints the same on the terminal.)

    \b
    Examples:
      gouji compare online rulebook
      gouji compare qingdao qingdao-classic --simulate 500
    """
    ws = workspace or (ctx.obj or {}).get("workspace")
    request = {"a": a, "b": b, "seed": seed, "bots": bots, "simulate": games is not None}
    if games is not None:
        request["games"] = games
    run_app(workspace=ws, compare=request)


@gouji.command("serve")
@click.option("--host", default="127.0.0.1", show_default=True,
              help=N_("Address to listen on (127.0.0.1: this machine only; 0.0.0.0: every network it is on)."))
@click.option("--port", type=click.IntRange(1, 65535), default=8000, show_default=True, help=N_("Port to listen on."))
@click.option("--public-url", default=None, metavar="URL",
              help=N_("The address browsers use, when it differs (behind a proxy); default http://HOST:PORT."))
@click.option("--max-apps", type=click.IntRange(1, 64), default=4, show_default=True,
              help=N_("Apps (browser tabs) at once; a tab over the cap is told so (each app is a process of ~50 MB)."))
@_workspace_option
@lang_option
@click.pass_context
def serve(ctx: click.Context, host: str, port: int, public_url: str | None, max_apps: int, workspace: Path | None) -> None:
    """Serve the app to web browsers (the optional web extra: pip install 'gouji-dsl[web]').

    Every browser tab gets its own gouji app on the workspace, the same as in a terminal; game
    records, scenario cases and deal records it saves also go to the browser as downloads. The
    Chinese terms need a CJK font on the browser's machine (Noto Sans CJK; Windows and macOS have
    one). Open the address it prints; stop the server with Ctrl+C.

    The address it prints carries a key made anew at each start (http://127.0.0.1:8000/?key=...):
    there is no login, so anyone with that address gets an app that reads and writes your files.
    Requests that name another host, websockets from another site's page and addresses without the
    key are refused. The terminal is at most 400x200 cells. The apps speak --lang (else the
    server's GOUJI_LANG or locale); the address with &lang=zh or &lang=en added chooses for its tab.

    \b
    Example:
      gouji serve --port 8000
    """
    from .web import CannotListen, WebExtraMissing, check_listen, make_server

    ws = workspace or (ctx.obj or {}).get("workspace")
    try:
        server = make_server(host, port, ws, public_url, max_apps=max_apps, lang=current())
        check_listen(host, port)
    except (WebExtraMissing, CannotListen) as e:
        click.echo(f"gouji serve: {e}", err=True)
        raise SystemExit(1) from None
    server.serve()


#: the app commands' help paragraphs (each one's words on one line) and their summaries (their lines in
#: ``gouji --help``), marked for the app's catalog: HelpInLanguage shows them in the active language
APP_HELP_TEXTS = (
    N_("Open FILE in the editor (it is created when you save, if it does not exist)."),
    N_("The workspace defaults to --workspace given before the command, else FILE's folder."),
    N_("Open the compare screen on rulesets A and B (bundled or workspace names, or paths): the rule diff in two panes, "
       "and the same seeded deals played under both (F5), with figures, charts and the deals that end differently."),
    N_("Open the compare screen on rulesets A and B (bundled or workspace names, or paths): the rule diff in two panes, "
       "and the same seeded deals played under both (F5), with figures, charts and the deals that end differently. "
       "(gouji diff A B prints the same on the terminal.)"),
    N_("Serve the app to web browsers (the optional web extra: pip install 'gouji-dsl[web]')."),
    N_("Every browser tab gets its own gouji app on the workspace, the same as in a terminal; game records, scenario "
       "cases and deal records it saves also go to the browser as downloads. The Chinese terms need a CJK font on the "
       "browser's machine (Noto Sans CJK; Windows and macOS have one). Open the address it prints; stop the server "
       "with Ctrl+C."),
    N_("The address it prints carries a key made anew at each start (http://127.0.0.1:8000/?key=...): there is no "
       "login, so anyone with that address gets an app that reads and writes your files. Requests that name another "
       "host, websockets from another site's page and addresses without the key are refused. The terminal is at most "
       "400x200 cells. The apps speak --lang (else the server's GOUJI_LANG or locale); the address with &lang=zh or "
       "&lang=en added chooses for its tab."),
    N_("Test-play RULESET (a bundled name or a file; default: online) against bots."),
    N_("Type moves in card notation (RR TTT, pass, burn BB JJJJ ...); every refused move says which rule forbids it, "
       "and every move of the log can be expanded into the rules that decided it. F1 in the app lists the keys."),
    N_("Sit at a club table of `gouji host`: TABLE is its room code (K7QM), its link (http://HOST:PORT/t/K7QM) or your "
       "seat's link (…?token=…, which takes your seat back)."),
    N_("The play screen, as in `gouji play`: the same keys, and F5 (why), F4 (legal moves), F3 (hint) answered by the "
       "table's server, the only judge. Bots fill the seats nobody takes; a seat whose player leaves is played by its "
       "bot (托管) until he joins again: with the seat link, or with --again (the token is kept for this account). "
       "ctrl+g starts the table now, ctrl+q leaves."),
)


from .play.command import play_command  # noqa: E402 - Textual is imported only when the app starts

lang_option(play_command)
gouji.add_command(play_command)

from .play.command import join_command  # noqa: E402 - (issue 27: a seat at a club table)

lang_option(join_command)
gouji.add_command(join_command)


def main(argv: list[str] | None = None) -> None:
    """Run the ``gouji`` command group (the console script goes through :mod:`gouji_app.entry`)."""
    gouji.main(args=sys.argv[1:] if argv is None else argv, prog_name="gouji")


if __name__ == "__main__":
    main()
