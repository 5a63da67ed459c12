"""The ``gouji`` command line (library commands): validate, simulate, show, doc, test, diff, report.

This module is part of the library: it never imports the ``editor`` package. The console script
``gouji`` points at ``gouji_app.entry:main`` (which runs ``gouji_app.cli:main``); that adds the app
commands (``gouji`` with no argument, ``gouji edit``, ``gouji play``) to the :data:`cli` group
defined here; ``python -m gouji_dsl`` runs this group alone.

RULESET arguments are a bundled ruleset's name (``online``) or a path to a ``.yaml`` file.
Bad input is reported as ``file:line:col: message`` with the source line, a caret and a hint, on
stderr — never as a traceback.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import click

import gouji_dsl
from gouji_dsl import __version__, check, i18n
from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.i18n import N_, _, display_width, ngettext
from gouji_dsl.readfile import os_reason
from gouji_dsl.ruleset.spec import Wording

__all__ = ["cli", "main", "SafeGroup", "save_crash_report", "internal_error_line", "EXIT_OK", "EXIT_BAD_INPUT", "EXIT_INTERNAL",
           "EXIT_INTERRUPTED", "EXIT_PIPE_CLOSED"]

from gouji_dsl.tools import textlayout
from gouji_dsl.tools.exits import (
    EXIT_BAD_INPUT,
    EXIT_INTERNAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PIPE_CLOSED,
    SEED,
    SafePath,
    echo,
    echo_json,
    err,
    load_graph_or_exit,
    report,
    seed_value,
    set_option,
    shown,
    stdout_closed,
    stdout_console,
)

CRASH_DIR_ENV = "GOUJI_CRASH_DIR"
"""Environment variable: the folder crash reports are saved in (default: a ``gouji-crashes``
folder in the user's cache folder, else in the temporary folder)."""


_err = err
_report = report
_load_graph = load_graph_or_exit


def _crash_dir() -> Path:
    env = os.environ.get(CRASH_DIR_ENV)
    if env:
        return Path(env)
    cache = os.environ.get("XDG_CACHE_HOME") or (os.path.join(os.path.expanduser("~"), ".cache"))
    return Path(cache) / "gouji-crashes"


def _crash_report_name(stamp: str) -> str:
    """A crash report's file name: its time and 64 random bits (nobody can plant a file at it beforehand)."""
    import secrets
    return f"gouji-crash-{stamp}-{secrets.token_hex(8)}.txt"


def _is_private_folder(path: Path) -> bool:
    """``path`` is a real folder (not a link) of this user that nobody else may write in."""
    import stat
    try:
        st = os.lstat(path)
    except OSError:
        return False
    mine = not hasattr(os, "getuid") or st.st_uid == os.getuid()
    return stat.S_ISDIR(st.st_mode) and mine and not st.st_mode & 0o022


def _shared_tmp_crash_dir() -> Path:
    """The fallback folder in the shared temporary folder: ``gouji-crashes-UID`` (mode 0700) when it
    is this user's own real folder; when it is a link, another user's, or writable by others, a new
    private folder (``tempfile.mkdtemp``, mode 0700) instead."""
    import tempfile
    uid = os.getuid() if hasattr(os, "getuid") else 0
    folder = Path(tempfile.gettempdir()) / f"gouji-crashes-{uid}"
    try:
        folder.mkdir(mode=0o700)
    except FileExistsError:
        pass
    if _is_private_folder(folder):
        return folder
    return Path(tempfile.mkdtemp(prefix=f"gouji-crashes-{uid}-"))


def _write_new_file(folder: Path, stamp: str, text: str) -> Path:
    """Create a crash report in ``folder`` that did not exist (O_CREAT | O_EXCL | O_NOFOLLOW, mode
    0600, an unpredictable name) and write ``text``: a link or file planted at its name is never
    opened (another name is taken)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _attempt in range(8):
        path = folder / _crash_report_name(stamp)
        try:
            fd = os.open(path, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(text)
        return path
    raise FileExistsError(f"no free crash report name in {folder}")


def save_crash_report(exc: BaseException, argv: list[str] | None = None) -> str | None:
    """Write a crash report (command line, versions, traceback) for an unexpected exception and
    return its path (None when no folder could be written). The report is a new file of mode 0600
    with an unpredictable name, never opened through a link (see :func:`_write_new_file`), in
    ``$GOUJI_CRASH_DIR``, else the user's cache folder, else a private folder of the user's in the
    shared temporary folder (see :func:`_shared_tmp_crash_dir`)."""
    import datetime
    import platform
    import traceback

    stamp = datetime.datetime.now().strftime("%Y%m%d-%H%M%S")
    text = "\n".join([
        f"gouji {__version__} crash report, {stamp}",
        f"command: {' '.join(['gouji', *(sys.argv[1:] if argv is None else argv)])}",
        f"python {platform.python_version()} on {platform.platform()}",
        "",
        "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)),
    ])
    for where in (_crash_dir, _shared_tmp_crash_dir):
        try:
            folder = where()
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
            return str(_write_new_file(folder, stamp, text))
        except OSError:
            continue
    return None


def internal_error_line(exc: BaseException, what: str = "gouji") -> str:
    """The one line shown for an unexpected exception (after saving a crash report)."""
    path = save_crash_report(exc)
    message = str(exc).replace("\n", " ")
    if len(message) > 200:
        message = message[:199] + "…"
    where = _("; crash report saved to {path}").format(path=path) if path else ""
    return _("{what}: internal error: {error}: {message}{where} (this is a bug in gouji: please report it)").format(
        what=what, error=type(exc).__name__, message=message, where=where)


class SafeGroup(click.Group):
    """A command group whose commands never show a traceback: a :class:`GoujiError` that escapes a
    command prints its diagnostics (exit 1); any other unexpected exception prints one line with
    the path of a saved crash report (exit 2)."""

    context_class = click.Context  # (set below: ContextInLanguage)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            result = super().invoke(ctx)
            sys.stdout.flush()  # a reader that went away (`| head -1`) shows here, not at exit
            return result
        except BrokenPipeError:
            ctx.exit(stdout_closed())
        except (click.exceptions.Exit, click.exceptions.Abort, click.ClickException, SystemExit):
            raise
        except KeyboardInterrupt:  # Ctrl+C before a command's own handling (e.g. while loading): one line
            _err(_("interrupted"))
            ctx.exit(EXIT_INTERRUPTED)
        except GoujiError as e:
            _report(e)
            ctx.exit(EXIT_BAD_INPUT)
        except Exception as e:
            _err(internal_error_line(e))
            ctx.exit(EXIT_INTERNAL)

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        """The language first (``--lang``, else ``GOUJI_LANG``, else the locale), so that even
        ``gouji --help`` speaks it; a bad code is reported by the option's own check."""
        given = next((a.split("=", 1)[1] for a in args if a.startswith("--lang=")), None)
        if given is None and "--lang" in args[:-1]:
            given = args[args.index("--lang") + 1]
        try:
            i18n.use(i18n.resolve(given))
        except i18n.UnknownLanguage:  # reported by the option's check, in the language the rest would give
            i18n.use(i18n.fallback())
        _speak_click()
        _help_options_in_english(self)
        return super().parse_args(ctx, args)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        """The commands' list of ``--help`` with each command's summary in the active language."""
        from collections.abc import Callable
        from typing import cast

        from click import utils
        # (typed through a cast: click's stub of it reads as ``object`` to some mypy versions)
        make_default_short_help = cast(Callable[[str, int], str], utils.make_default_short_help)
        rows = []
        for name in self.list_commands(ctx):
            cmd = self.get_command(ctx, name)
            if cmd is not None and not cmd.hidden:
                rows.append((name, _help_text(cmd.get_short_help_str(10 ** 6))))
        if rows:
            limit = formatter.width - 6 - max(len(name) for name, _summary in rows)
            with formatter.section(_("Commands")):
                formatter.write_dl([(name, _fit(text if _wide(text) else make_default_short_help(text, limit), limit))
                                    for name, text in rows])  # (click's cut counts characters and spaces)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        """The command, its help written in the active language (:class:`HelpInLanguage`)."""
        cmd = super().get_command(ctx, cmd_name)
        if cmd is not None and cmd.context_class is click.Context:
            cmd.context_class = ContextInLanguage
        return cmd


_BLOCK_HEADINGS = (N_("Examples:"), N_("Example:"))
"""The headings of the example blocks (``\\b``) of the commands' helps, translated in them."""


class HelpInLanguage(click.HelpFormatter):
    """``--help`` in the active language: a heading, a command's help text and an option's help are
    shown translated where the catalog has them (the English text is the msgid: mark it with N_() where
    it is written, as :data:`HELP_TEXTS` does), else as written."""

    def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
        super().write_usage(prog, args, _help_text("Usage: ") if prefix is None else prefix)

    def write_heading(self, heading: str) -> None:
        said = _help_text(heading)
        if _wide(said):  # 选项：with the full-width colon, as 用法：beside it
            self.write(f"{'':>{self.current_indent}}{said}：\n")
        else:
            super().write_heading(said)

    def write_text(self, text: str) -> None:
        """Each paragraph translated on its own (its words as one line are the msgid; a ``\\b`` block
        is kept as written), so a help made of several parts still finds each."""
        paragraphs = []
        for para in text.split("\n\n"):
            words = " ".join(para.split())
            if para.startswith("\b"):  # an example block as written, its heading (Examples:) translated
                paragraphs.append("\n".join(line.replace(line.strip(), _help_text(line.strip()))
                                            if line.strip() in _BLOCK_HEADINGS else line
                                            for line in para.split("\n")))
                continue
            said = _help_text(words) if words else words
            paragraphs.append(said if said != words else para)
        indent = " " * self.current_indent
        self.write(_wrap_help("\n\n".join(paragraphs), self.width, indent))
        self.write("\n")

    def write_dl(self, rows: Any, col_max: int = 30, col_spacing: int = 2) -> None:
        """click's definition list (options, commands), the help column wrapped by display width."""
        from click.formatting import measure_table, term_len
        rows = [(term, _help_row(text)) for term, text in rows]
        widths = measure_table(rows)
        if len(widths) != 2:
            raise TypeError("Expected two columns for definition list")
        first_col = min(widths[0], col_max) + col_spacing
        for first, second in rows:
            self.write(f"{'':>{self.current_indent}}{first}")
            if not second:
                self.write("\n")
                continue
            if term_len(first) <= first_col - col_spacing:
                self.write(" " * (first_col - term_len(first)))
            else:
                self.write("\n" + " " * (first_col + self.current_indent))
            lines = _wrap_help(second, max(self.width - first_col - 2, 10)).splitlines() or [""]
            self.write(f"{lines[0]}\n")
            for line in lines[1:]:
                self.write(f"{'':>{first_col + self.current_indent}}{line}\n")


class ContextInLanguage(click.Context):
    """A click context whose ``--help`` is written by :class:`HelpInLanguage`."""

    formatter_class = HelpInLanguage


def _help_row(text: str) -> str:
    """An option's help with click's ``  [default: …]`` / ``  [required]`` tail kept as it is."""
    head, sep, tail = text.rpartition("  [")
    if sep and text.endswith("]"):
        return _help_text(head) + sep + tail
    return _help_text(text)


SafeGroup.context_class = ContextInLanguage


#: click's own words (its usage errors' frame and the checks of values it makes), marked here so that the
#: catalog has them: click translates with the standard library's gettext, which :func:`_speak_click`
#: points at this catalog (a click that words them otherwise is shown as it words them)
CLICK_TEXTS = (
    N_("Error: {message}"), N_("Try '{command} {option}' for help."), N_("Invalid value: {message}"),
    N_("Invalid value for {param_hint}: {message}"), N_("Missing argument"), N_("Missing option"),
    N_("Missing parameter"), N_("Missing {param_type}"), N_("Missing parameter: {param_name}"),
    N_("No such option {name!r}."), N_("No such command {name!r}."), N_("Option {name!r} does not take a value."),
    N_("{value!r} is not a valid {number_type}."), N_("{value} is not in the range {range}."),
    N_("Missing command."), N_("Aborted!"), N_("default: {default}"), N_("required"), N_("env var: {var}"),
)


def _possibilities(possibilities: list[str]) -> str:
    """click's "Did you mean …?" in the active language (its two plural forms have other fields,
    which one Chinese form cannot hold: the same words with one field)."""
    names = ", ".join(repr(p) for p in sorted(possibilities))
    return ngettext("Did you mean {names}?", "(Did you mean one of: {names}?)", len(possibilities)).format(names=names)


def _invalid_choice(self: click.Choice, value: Any, ctx: click.Context | None) -> str:
    """click's "'x' is not one of 'a', 'b'." in the active language (see :func:`_possibilities`)."""
    choices = ", ".join(map(repr, self._normalized_mapping(ctx=ctx).values()))
    return ngettext("{value!r} is not {choices}.", "{value!r} is not one of {choices}.", len(self.choices)).format(
        value=value, choices=choices)


def _click_plurals(n: int) -> list[str]:  # (never called: marks click's plural messages for the catalog)
    # ("Did you mean {possibility}?" and "{value!r} is not {choice}." are left out: their two forms
    # have other fields, which the one Chinese form cannot both hold under tests/test_translations.py)
    return [ngettext("Option {name!r} requires an argument.", "Option {name!r} requires {nargs} arguments.", n),
            ngettext("Got unexpected extra argument ({args})", "Got unexpected extra arguments ({args})", n)]


_HELP_OPTION = "Show this message and exit."  # click's help of --help (its msgid; shown translated)


def _help_options_in_english(group: click.Group) -> None:
    """click words a command's ``--help`` option once and keeps it (``Command._help_option``): put its
    help back to the English msgid so that each run shows it in its own language (HelpInLanguage
    translates it), not in the language of an earlier run in the same process."""
    for cmd in (group, *group.commands.values()):
        opt = getattr(cmd, "_help_option", None)
        if isinstance(opt, click.Option) and opt.help:
            opt.help = _HELP_OPTION


def _speak_click() -> None:
    """click's own words in the active language: its modules translate with the standard library's
    ``gettext``/``ngettext`` (the global domain, the locale's language); they ask this catalog instead,
    in the language chosen by ``--lang`` / ``GOUJI_LANG`` / the locale (English: click's words)."""
    import gettext
    import sys

    for name, module in list(sys.modules.items()):
        if name == "click" or name.startswith("click."):
            if getattr(module, "_", None) is gettext.gettext:
                module._ = i18n._  # type: ignore[attr-defined]
            if getattr(module, "ngettext", None) is gettext.ngettext:
                module.ngettext = i18n.ngettext  # type: ignore[attr-defined]
    # the two plural messages whose forms have other fields, in the same words with one field each
    # (click 8.2+; an older click words them otherwise and keeps its own)
    exceptions = sys.modules.get("click.exceptions")
    if exceptions is not None and hasattr(exceptions, "_format_possibilities"):
        exceptions._format_possibilities = _possibilities  # type: ignore[attr-defined]
    if hasattr(click.Choice, "get_invalid_choice_message") and hasattr(click.Choice, "_normalized_mapping"):
        click.Choice.get_invalid_choice_message = _invalid_choice  # type: ignore[method-assign]


def _wrap_help(text: str, width: int, indent: str = "") -> str:
    """click's ``wrap_text`` (paragraphs kept, a ``\\b`` block as written), by display width where the
    text holds double-width characters: click counts characters and breaks only at spaces, so a
    Chinese help would run past the width (a Chinese character takes two columns)."""
    import unicodedata
    if not any(unicodedata.east_asian_width(c) in "WF" for c in text):
        return click.formatting.wrap_text(text, width, initial_indent=indent, subsequent_indent=indent,
                                          preserve_paragraphs=True)
    out = []
    for para in text.split("\n\n"):
        if para.lstrip(" ").startswith("\b"):
            out.append("\n".join(indent + line for line in para.splitlines()[1:]))
        else:
            out.append("\n".join(textlayout.wrap(" ".join(para.split()), width, indent)))
    return "\n\n".join(out)


def _wide(text: str) -> bool:
    """``text`` holds double-width (Chinese) characters."""
    return display_width(text) != len(text)


def _fit(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns (a Chinese character takes two) with ``…``."""
    import unicodedata
    cols = [2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in text]
    if sum(cols) <= width:
        return text
    out, used = "", 1
    for c, w in zip(text, cols):
        if used + w > width:
            break
        out, used = out + c, used + w
    return out + "…"


def _help_text(text: str) -> str:
    """A help text in the active language: the library's catalog, else the app's (its commands)."""
    later = i18n.translate_later(text)
    if later is not None:
        return later
    got = _(text)
    return got if got != text else i18n.catalog(i18n.APP_DOMAIN).gettext(text)


#: each command's summary (the first sentence of its help: its line in ``gouji --help``) and the
#: group's option help, marked for translation (tests/test_cli_i18n.py checks they are the commands')
HELP_TEXTS = (
    N_("Compare rulesets A and B (bundled names or paths): settings, rules and definitions that differ, each with where it "
       "was written and a one-line summary."),
    N_("Write a printable rulebook of RULESET from its rules' sentences, settings and sources."),
    N_("Play BOT_A against BOT_B under RULESET and say which is stronger."),
    N_("Play every pair of BOTS against each other under RULESET on the same deals."),
    N_("Replay a saved game record (from `gouji play`) without the app."),
    N_("Hold a club table of RULESET: people join with gouji join, bots take the free seats."),
    N_("Merge the chunk files of one or more run folders (written with --out, on any machine) into one report: the same "
       "report a single run over all their deals gives."),
    N_("Print RULESET after inheritance, or its rule graph."),
    N_("Play GAMES seeded games of RULESET with bots and summarise them."),
    N_("Play every point of a grid of settings against RULESET on the same seeded deals."),
    N_("Each point is RULESET with one value of each --grid (checked as --set is); every point plays the same N deals "
       "as RULESET, and each figure of each point is compared with RULESET's (paired, as gouji diff --simulate), with "
       "Holm's adjustment across every independent figure of every point (a row that mirrors another on every deal, "
       "marked ≡, is that row's test). A point that plays exactly as RULESET (or as an earlier point) is marked "
       "\"= base\" (\"= Pj\") and not played. One table: a row per figure, a column per point. Resumable with --out "
       "DIR and --resume."),
    N_("With --set KEY=VALUE, B is B (or, without B, A) with those settings changed."),
    N_("Run rule scenario files (YAML: a ruleset and a list of cases)."),
    N_("Check ruleset files: every problem of every file of each `extends` chain, in one pass — structure, limits, "
       "settings, hooks, names, types and expressions."),
    N_("Show the version and exit."),
    N_("Show this message and exit."),
    N_("Usage: "),
    N_("Options"),  # click's headings
    # the paragraphs of the group's help and of validate's, doc's and test's (see HelpInLanguage.write_text)
    N_("gouji-dsl: Gouji (够级) rulesets as data — validate, show, simulate, test, compare and print them."),
    N_("RULESET is a bundled ruleset's name (e.g. `online`) or the path of a ruleset file."),
    N_("Exit status: 0 ok, 1 bad input (every problem printed as file:line:col with a hint), 2 a usage error (a bad "
       "option or command) or an internal error (one line and the path of a saved crash report; never a traceback), "
       "130 interrupted (Ctrl+C)."),
    N_("With no command, opens the editor app on the workspace (./rules or --workspace DIR)."),
    N_("Prints every problem as `file:line:col: message` (with the line, a caret and a hint) on stderr, sorted by "
       "position, and `FILE: ok (N rules)` for each good file. Warnings (a setting nothing reads, a new rule id that "
       "looks like a misspelt override) are printed with `warning:` and do not fail the file. Exit status 1 if any "
       "file has an error, 2 on an internal error."),
    N_('With --format json, stdout is {"ok": BOOL, "files": [{"file", "ok", "rules", "errors", "warnings", '
       '"diagnostics": [{"code", "severity", "message", "hint", "position": {"path", "line", "col", "end_line", '
       '"end_col"}}], "held_back"}]}; held_back names the checks a file\'s errors stopped (unread-settings, lint).'),
    N_("With --strict, each file that compiles is also linted: rules that can never fire under its settings, two "
       "rules that decide the same question for the same state, a game that cannot end or go on, settings (and keys) "
       "nothing reads, settings changed without their own sentence. Findings and warnings make the exit status 1."),
    N_("The title, description, source and the files it builds on; the cards (players, pack size, cards per player, "
       "rank order, filler, how plays compare); one section per phase of the game with the rules that can fire under "
       "the ruleset's settings, numbered, each citing its source; and the list of sources."),
    N_("Prints one line per case and `N passed, N failed`; exit status 1 if any case fails or a file cannot be read."),
    N_("Folders must be runs of the same comparison (the same rulesets by content, bots and matches); their seeds may "
       "differ (the deals of every seed are added). A chunk found in two folders counts once. Gaps (an interrupted run) "
       "are listed."),
    N_("Prints every game: its moves, numbered, with the engine's events between them (tricks won, places, tribute "
       "...), then the places and scores. With --check, verifies that the record replays to the same events and result "
       "under its ruleset (or --ruleset) and prints `RECORD: ok ...`; the first event that differs is reported with "
       "what the record says, what the replay gives and the rules behind the replay's decision."),
    N_("Without options: the header (name, title, chain of files), every setting with the file:line that set it (and "
       "each key of merged maps), inherited values marked, definitions, and the rules grouped by phase with their "
       "hook, guard, effect, sentence, source, file:line and what they override."),
    # simulate's, diff's and duel's (their 95% kept out of a '% x' that Babel reads as a % format)
    N_("The summary gives games, mean decisions and tricks per game, the place distribution by seat, mean "
       "team scores, sweep / burn / revolution rates, each with its interval at 95%, elapsed seconds and "
       "games per second. Runs are chunked: --out DIR keeps every finished chunk (Ctrl+C, then --resume)."),
    N_("With --simulate N, the same N seeded deals are played under both rulesets (in matches, with tribute "
       "between games, when a ruleset has them) and the outcomes compared with confidence intervals at 95% "
       "(decisions, tricks, score spread, first-leader and seat advantage, sweep, burns, revolutions, "
       "places), plus the deals whose outcomes differ most."),
    N_("Each deal is played twice, once with A's team at the odd seats and once at the even seats. The "
       "report gives the mean team-score difference A − B per game with its confidence interval at 95% (over"
       " deals and their replays: matches and their replays where the ruleset plays matches), A's win rate, "
       "each bot's mean score and place at every seat, and decisions per second of each bot."),
    N_("Each pair plays a duel (as gouji duel: every deal twice, with the teams' bots swapped), every pair the same "
       "deals. For each pair the report gives the mean team-score difference per game with its confidence interval "
       "at 95%. Then the table of them (row − column) and each bot's mean difference against the others; no rating "
       "(README: gouji league RULESET BOT...)."),
)


def _load_resolved(ruleset: str, overrides: tuple[str, ...] = ()):
    """Resolve RULESET (with the ``--set`` ``overrides``) or exit 1 with its diagnostics."""
    try:
        return _load_graph(ruleset, overrides).resolved if overrides else gouji_dsl.load(ruleset)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)


_noted: list[str] = []


def _note_traditional(value: str | None) -> None:
    """One line on stderr (once per run) where the language setting asks for Traditional Chinese:
    gouji speaks Simplified Chinese only, and says so rather than changing the script silently."""
    asked = i18n.traditional(value)
    if asked is not None and asked not in _noted:
        _noted.append(asked)
        quiet = "--lang zh" if asked.startswith("--lang") else f"{i18n.ENV_VAR}=zh"
        _err(i18n._("note: {asked} asks for Traditional Chinese; gouji speaks Simplified Chinese (简体中文) "
                    "({quiet}: no note)").format(asked=asked, quiet=quiet))


def use_language(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """The ``--lang`` option's callback, for commands defined elsewhere (the app's): see
    :func:`_use_language`."""
    return _use_language(ctx, param, value)


def _use_language(ctx: click.Context, param: click.Parameter, value: str | None) -> str | None:
    """``--lang`` (else ``GOUJI_LANG``, else the locale): the language of every command's output
    (:mod:`gouji_dsl.i18n`). A code that is no language is a usage error with a hint, never a quiet
    default; a language whose catalog is not installed is said on stderr."""
    try:
        lang = i18n.resolve(value)
    except i18n.UnknownLanguage as e:
        known = ", ".join(lang.value for lang in i18n.Language)
        message = i18n._("unknown language {value} (one of: {known})").format(value=shown(repr(e.value)), known=known)
        if e.source == i18n.ENV_VAR:
            raise click.UsageError(i18n._("{message}; hint: set {var} to one of them, or unset it").format(
                message=f"{i18n.ENV_VAR}: {message}", var=i18n.ENV_VAR), ctx) from None
        raise click.BadParameter(i18n._("{message}; hint: --lang zh or --lang en").format(message=message),
                                 ctx, param) from None
    i18n.use(lang)
    _note_traditional(value)
    if not i18n.has_catalog(lang):
        _err(f"warning: the {lang.value} message catalog is not installed (not compiled: "
             "python setup.py build_ext --inplace in a checkout); speaking English")
    return value


@click.group(cls=SafeGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gouji")
@click.option("--lang", "lang", metavar="zh|en", default=None, is_eager=True, expose_value=False,
              callback=_use_language,
              help=N_("The language of the output: zh (中文) or en (default: the environment variable GOUJI_LANG, "
                      "else the locale, LANG=zh_CN.UTF-8 → zh; else en)."))
@click.option("--rules-path", "rules_path", multiple=True, metavar="DIR",
              type=SafePath(file_okay=False, path_type=str),
              help=N_("A folder of rulesets: names are looked up in it and `extends:` (or a scenario's ruleset) may "
                      "read files in it. Repeatable; also the environment variable GOUJI_RULES_PATH "
                      "(folders separated by ':')."))
def cli(rules_path: tuple[str, ...] = ()) -> None:
    """gouji-dsl: Gouji (够级) rulesets as data — validate, show, simulate, test, compare and print them.

    RULESET is a bundled ruleset's name (e.g. `online`) or the path of a ruleset file.

    Exit status: 0 ok, 1 bad input (every problem printed as file:line:col with a hint), 2 a usage
    error (a bad option or command) or an internal error (one line and the path of a saved crash
    report; never a traceback), 130 interrupted (Ctrl+C).
    """
    if rules_path:
        from gouji_dsl.ruleset.load.finding import use_rules_path  # lazy: start-up
        use_rules_path(rules_path)


# ------------------------------------------------------------------------------ validate
def _held_back_note(file: str, held: tuple[str, ...]) -> str:
    """What validate did not check in a file with errors, and why (all problems at once: the
    checks that did not run are named, not silently left out)."""
    from gouji_dsl.ruleset.check import HELD_BACK_LINT  # lazy: start-up
    what = _("the warnings of settings nothing reads and the lint (--strict)") if HELD_BACK_LINT in held \
        else _("the warnings of settings nothing reads")
    return _("{file}: not checked yet: {what}; they read the ruleset as it compiles, which these errors stop "
             "(fix them and validate again)").format(file=file, what=what)


def _say_validation(f: str, result: Any, failed: bool, n_rules: int | None) -> None:
    """The text report of one validated file: its diagnostics, then one summary line."""
    errors, warnings = result.errors, result.warnings
    for d in result.diagnostics:
        _err(d.format())
    if result.lint and failed and not [d for d in errors if d not in result.lint]:
        n = len(result.lint)
        _err(ngettext("{file}: {n} lint finding (--strict)", "{file}: {n} lint findings (--strict)", n).format(file=f, n=n))
    elif errors:
        n = len(errors)
        _err(ngettext("{file}: {n} problem", "{file}: {n} problems", n).format(file=f, n=n))
        if result.held_back:
            _err(_held_back_note(f, result.held_back))
    elif failed and warnings:
        n = len(warnings)
        _err(ngettext("{file}: {n} warning (--strict)", "{file}: {n} warnings (--strict)", n).format(file=f, n=n))
    else:
        echo(_("{file}: ok ({n} rules)").format(file=f, n=n_rules))


@cli.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--strict", is_flag=True,
              help=N_("Also lint each file (rules that can never fire, rules deciding the same question, "
                   "no way to end the game, settings nothing reads) and fail on any finding."))
@click.option("--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True,
              help=N_("text: each problem as file:line:col with the line, a caret and a hint (stderr). "
                   "json: one JSON document on stdout (its keys: the README, `gouji validate`)."))
def validate_command(files: tuple[str, ...], strict: bool, fmt: str) -> None:
    """Check ruleset files: every problem of every file of each `extends` chain, in one pass —
    structure, limits, settings, hooks, names, types and expressions.

    Prints every problem as `file:line:col: message` (with the line, a caret and a hint) on stderr,
    sorted by position, and `FILE: ok (N rules)` for each good file. Warnings (a setting nothing
    reads, a new rule id that looks like a misspelt override) are printed with `warning:` and do
    not fail the file. Exit status 1 if any file has an error, 2 on an internal error.

    With --strict, each file that compiles is also linted: rules that can never fire under its
    settings, two rules that decide the same question for the same state, a game that cannot end or
    go on, settings (and keys) nothing reads, settings changed without their own sentence. Findings
    and warnings make the exit status 1.

    With --format json, stdout is {"ok": BOOL, "files": [{"file", "ok", "rules", "errors",
    "warnings", "diagnostics": [{"code", "severity", "message", "hint", "position": {"path",
    "line", "col", "end_line", "end_col"}}], "held_back"}]}; held_back names the checks a file's
    errors stopped (unread-settings, lint).
    """

    status = EXIT_OK
    report: list[dict[str, Any]] = []
    for f in files:
        try:
            result = check(f, strict=strict)
        except Exception as e:
            _err(internal_error_line(e, f))
            status = EXIT_INTERNAL
            report.append({"file": f, "ok": False, "rules": None, "errors": 1, "warnings": 0, "diagnostics": [],
                           "internal_error": f"{type(e).__name__}: {e}"})
            continue
        errors, warnings = result.errors, result.warnings
        failed = bool(errors) or result.graph is None or (strict and bool(warnings))
        n_rules = len(result.graph.nodes) if result.graph is not None else None  # type: ignore[attr-defined]
        if fmt == "json":
            report.append({"file": f, "ok": not failed, "rules": n_rules, "errors": len(errors),
                           "warnings": len(warnings), "diagnostics": [d.to_dict() for d in result.diagnostics],
                           "held_back": list(result.held_back)})
        else:
            _say_validation(f, result, failed, n_rules)
        if failed:
            status = max(status, EXIT_BAD_INPUT)
    if fmt == "json":
        echo_json(json.dumps({"ok": status == EXIT_OK, "files": report}, ensure_ascii=False, indent=2))
    sys.exit(status)


# ------------------------------------------------------------------------------ simulate, report
from gouji_dsl.tools.cli_run import report_command, simulate_command  # noqa: E402 - owned by the runs modules

cli.add_command(simulate_command)
cli.add_command(report_command)


# ------------------------------------------------------------------------------ show

def _show_refuse_mixed(as_graph: bool, fmt: str, as_settings: bool, vocabulary: bool, generated: bool,
                       explaining: bool) -> None:
    """A usage error for options of ``gouji show`` that print different things."""
    if explaining:
        for name, used in (("--graph", as_graph), ("--format", fmt != "text"), ("--settings", as_settings),
                            ("--vocabulary", vocabulary), ("--generated", generated)):
            if used:
                raise click.UsageError(_("--explain prints an explanation: it does not combine with {option}").format(option=name))
    if generated:
        for name, used in (("--graph", as_graph), ("--format", fmt != "text"), ("--settings", as_settings),
                           ("--vocabulary", vocabulary)):
            if used:
                raise click.UsageError(_("--generated prints what the native core runs: it does not combine with {option}").format(
                    option=name))
    if as_settings and as_graph:
        raise click.UsageError(_("--settings prints the settings reference: it does not combine with --graph"))


def _show_vocabulary(ruleset: str | None, fmt: str) -> None:
    """``--vocabulary``: the hooks, variables, play attributes and functions (text or markdown)."""
    from gouji_dsl.ruleset.game.vocabulary import vocabulary_markdown, vocabulary_text  # lazy: start-up
    if fmt in ("mermaid", "dot") and ruleset is None:
        raise click.UsageError(_("--vocabulary prints text or markdown (docs/vocabulary.md)"))
    if fmt == "markdown":
        echo(vocabulary_markdown(), nl=False)
    else:
        click.echo(vocabulary_text())


def _show_settings(ruleset: str | None, fmt: str, overrides: tuple[str, ...]) -> None:
    """``--settings``: the settings reference of RULESET (markdown: of every bundled ruleset without one)."""
    from gouji_dsl.tools import settings_ref  # lazy: start-up
    if fmt not in ("text", "markdown"):
        raise click.UsageError(_("--settings prints text or markdown"))
    if fmt == "markdown":
        echo(settings_ref.reference_markdown(
            None if ruleset is None else settings_ref.rows(_load_resolved(ruleset, overrides))), nl=False)
    elif ruleset is None:
        raise click.UsageError(_("missing argument RULESET (a bundled name or a .yaml path)"))
    else:
        echo(settings_ref.reference_text(_load_resolved(ruleset, overrides)), nl=False)


def _show_explain(ruleset: str, overrides: tuple[str, ...], explain_move: str, deal: tuple[str, ...],
                  after: tuple[str, ...], leader: int | None, seed: str) -> None:
    """``--explain MOVE``: legal or not, the rules asked and the chain of facts (exits 2 on a bad move or deal)."""
    from gouji_dsl.tools.explain_cli import explain_text  # lazy: start-up
    graph = _load_graph(ruleset, overrides)
    try:
        echo(explain_text(graph, explain_move, deal=deal, after=after, leader=leader,
                                seed=seed_value(seed)))
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)


def _show_generated(ruleset: str, overrides: tuple[str, ...]) -> None:
    """``--generated``: what the native core runs for RULESET (exits 1 when it does not play it)."""
    from gouji_dsl.engine import fast  # lazy: start-up
    from gouji_dsl.tools.native_view import native_view  # lazy: start-up
    graph = _load_graph(ruleset, overrides)
    if fast.engine(graph) is None:
        _err(_("{ruleset}: not native: the native core does not play this ruleset ({reason}); "
               "simulations play it with the interpreter").format(ruleset=ruleset, reason=fast.fallback_reason(graph)))
        sys.exit(1)
    echo(native_view(graph)[1], nl=False)


def _show_resolved(ruleset: str, overrides: tuple[str, ...], as_graph: bool, fmt: str) -> None:
    """The rule graph (text, mermaid or dot), or the resolved ruleset (coloured on a terminal)."""
    from gouji_dsl.tools import render  # lazy: start-up

    if as_graph or fmt != "text":
        graph = _load_graph(ruleset, overrides)
        fn = {"text": render.graph_text, "mermaid": render.graph_mermaid, "dot": render.graph_dot}[fmt]
        echo(fn(graph), nl=False)
        return
    resolved = _load_resolved(ruleset, overrides)
    if sys.stdout.isatty():
        stdout_console(highlight=False, soft_wrap=True).print(shown(render.resolved_text(resolved, markup=True), lines=True),
                                                               end="")
    else:
        echo(render.resolved_text(resolved), nl=False)


@cli.command("show")
@click.argument("ruleset", required=False)
@click.option("--graph", "as_graph", is_flag=True, help=N_("Print the rule graph instead of the resolved ruleset."))
@click.option("--format", "fmt", type=click.Choice(["text", "mermaid", "dot", "markdown"]), default="text",
              show_default=True,
              help=N_("Output format of the graph (mermaid and dot imply --graph), or of --settings and --vocabulary (markdown)."))
@click.option("--settings", "as_settings", is_flag=True,
              help=N_("Print the settings reference: every setting with its sub-keys, type, allowed values, default, "
                   "value, sentence and source (RULESET optional with --format markdown: every bundled ruleset's, "
                   "as in docs/settings.md)."))
@click.option("--vocabulary", is_flag=True,
              help=N_("Print the hooks (with the names a rule on each knows), variables, play attributes and functions "
                   "expressions may use (--format markdown: docs/vocabulary.md)."))
@click.option("--generated", is_flag=True,
              help=N_("Print what the native core runs for RULESET: whether it plays the ruleset (and why not), "
                      "its tables and its hook programs (each rule by id and line)."))
@click.option("--explain", "explain_move", metavar="MOVE",
              help=N_("Explain MOVE (e.g. '2 play AA'): legal or not, the rules asked, and the chain of facts with the "
                   "rules and settings that decided each (as the play screen's why dialog)."))
@click.option("--deal", multiple=True, metavar="SEAT=CARDS",
              help=N_("With --explain: a seat's hand, e.g. '1=KK 33' (repeat for every seat; default: the deal of --seed)."))
@click.option("--after", multiple=True, metavar="MOVE", help=N_("With --explain: a move played before it (repeat, in order)."))
@click.option("--leader", type=int, default=None, help=N_("With --explain: the seat that leads first."))
@click.option("--seed", type=SEED, default="0", show_default=True, help=N_("With --explain: the seed of the deal and of chance."))
@set_option
def show_command(ruleset: str | None, as_graph: bool, fmt: str, as_settings: bool, vocabulary: bool,
                 generated: bool, explain_move: str | None, deal: tuple[str, ...], after: tuple[str, ...],
                 leader: int | None, seed: str, overrides: tuple[str, ...] = ()) -> None:
    """Print RULESET after inheritance, or its rule graph.

    Without options: the header (name, title, chain of files), every setting with the file:line that
    set it (and each key of merged maps), inherited values marked, definitions, and the rules grouped
    by phase with their hook, guard, effect, sentence, source, file:line and what they override.
    """
    _show_refuse_mixed(as_graph, fmt, as_settings, vocabulary, generated, explain_move is not None)
    if vocabulary:
        _show_vocabulary(ruleset, fmt)
        if ruleset is None:
            return
        click.echo()
    if as_settings:
        _show_settings(ruleset, fmt, overrides)
        return
    if ruleset is None:
        raise click.UsageError(_("missing argument RULESET (a bundled name or a .yaml path)"))
    if fmt == "markdown":
        raise click.UsageError(_("--format markdown is for --settings; the graph is text, mermaid or dot"))
    if explain_move is None:
        for name, given in (("--deal", deal), ("--after", after), ("--leader", leader is not None),
                            ("--seed", seed != "0")):
            if given:
                raise click.UsageError(_("{option} needs --explain MOVE").format(option=name))
    else:
        _show_explain(ruleset, overrides, explain_move, deal, after, leader, seed)
        return
    if generated:
        _show_generated(ruleset, overrides)
        return
    _show_resolved(ruleset, overrides, as_graph, fmt)


# ------------------------------------------------------------------------------ doc
@cli.command("doc")
@click.argument("ruleset")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help=N_("Plain text wrapped at 88 columns, or markdown (headings, lists, a table)."))
@click.option("-o", "--output", "output", type=SafePath(dir_okay=False), default=None, metavar="FILE",
              help=N_("Write the rulebook to FILE instead of standard output."))
# the same --lang as gouji's own (`gouji doc online --lang zh` as well as `gouji --lang zh doc online`)
@click.option("--lang", "lang", metavar="zh|en", default=None, is_eager=True, expose_value=False,
              callback=lambda ctx, param, value: _use_language(ctx, param, value) if value else None,
              help=N_("The rulebook's language: zh (中文) or en (default: gouji's language)."))
@set_option
def doc_command(ruleset: str, fmt: str, output: str | None, overrides: tuple[str, ...] = ()) -> None:
    """Write a printable rulebook of RULESET from its rules' sentences, settings and sources.

    The title, description, source and the files it builds on; the cards (players, pack size, cards
    per player, rank order, filler, how plays compare); one section per phase of the game with the
    rules that can fire under the ruleset's settings, numbered, each citing its source; and the list
    of sources.
    """
    from gouji_dsl.tools.doc import ruleset_doc  # lazy: start-up

    graph = _load_graph(ruleset, overrides)
    _warn_stale_words(graph)
    _note_untranslated(graph)
    text = ruleset_doc(graph, fmt)
    if output is None:
        echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as e:
        _err(_("{path}: cannot write: {reason}").format(path=output, reason=os_reason(e)))
        sys.exit(EXIT_BAD_INPUT)


def _note_untranslated(graph) -> None:
    """One line on stderr where sentences of the ruleset (rules', settings' in effect) are not given in
    the rulebook's language: they are printed as written, in another language."""
    lang = i18n.current()
    texts = [(n.id, n.says) for n in graph.nodes] + [
        (name, x.says) for name, spec in graph.resolved.settings.items() for x in spec.sentences_in_effect()]
    lacking = [f"{name} ({os.path.basename(w.origin.path)}:{w.origin.line})" for name, w in texts
               if isinstance(w, Wording) and lang not in w.texts and w.origin is not None]
    if lacking:
        shown_ = ", ".join(lacking[:5]) + (" …" if len(lacking) > 5 else "")
        _err(ngettext("note: {n} sentence is not given in {lang} and is printed as written: {names}",
                      "note: {n} sentences are not given in {lang} and are printed as written: {names}",
                      len(lacking)).format(n=len(lacking), lang=lang.value, names=shown_))


def _warn_stale_words(graph) -> None:
    """The rulebook's sentences that still name a word the ruleset renamed (``StaleWord``), on stderr."""
    from gouji_dsl.ruleset.lint import lint  # lazy: start-up
    try:
        found = lint(graph, codes=(Code.STALE_WORD,))
    except GoujiError:  # pragma: no cover - validate reports the lint's own failures
        return
    for d in found:
        _err(d.format())


# ------------------------------------------------------------------------------ test
@cli.command("test")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help=N_("Print the results as JSON."))
def test_command(files: tuple[str, ...], as_json: bool) -> None:
    """Run rule scenario files (YAML: a ruleset and a list of cases).

    Prints one line per case and `N passed, N failed`; exit status 1 if any case fails or a file
    cannot be read.
    """
    try:
        from gouji_dsl.tools.scenarios import format_results, run_files  # lazy: start-up
    except ImportError as e:  # pragma: no cover - only while the module is missing
        _err(_("gouji test: the scenario runner is not available ({error})").format(error=e))
        sys.exit(EXIT_INTERNAL)
    try:
        results = run_files(list(files))
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)
    (echo_json if as_json else echo)(format_results(results, as_json=as_json))
    failed = any(not r.passed for r in results)
    sys.exit(EXIT_BAD_INPUT if failed else EXIT_OK)


# ------------------------------------------------------------------------------ diff
from gouji_dsl.tools.cli_diff import diff_command  # noqa: E402 - owned by the compare module

cli.add_command(diff_command)

# ------------------------------------------------------------------------------ sweep
from gouji_dsl.tools.cli_sweep import sweep_command  # noqa: E402 - owned by the sweep module

cli.add_command(sweep_command)

# ------------------------------------------------------------------------------ duel
from gouji_dsl.tools.cli_duel import duel_command  # noqa: E402 - owned by the bots module

cli.add_command(duel_command)

# ------------------------------------------------------------------------------ league (issue 28)
from gouji_dsl.tools.cli_league import league_command  # noqa: E402 - owned by the bots module

cli.add_command(league_command)

# ------------------------------------------------------------------------------ host (issue 27: the club table)
from gouji_dsl.tools.cli_host import host_command  # noqa: E402 - owned by the table module

cli.add_command(host_command)

# ------------------------------------------------------------------------------ replay
from gouji_dsl.tools.cli_replay import replay_command  # noqa: E402 - owned by the records module

cli.add_command(replay_command)


def main(argv: list[str] | None = None) -> None:
    """Run the library command group (``python -m gouji_dsl``)."""
    cli.main(args=argv, prog_name="gouji")


if __name__ == "__main__":  # pragma: no cover
    main()
