"""The ``gouji`` command line (library commands): validate, simulate, show, doc, test, diff, report.

This module is part of the library: it never imports the ``editor`` package. The console script
``gouji`` points at ``gouji_app.cli:main``, which adds the app commands (``gouji`` with no argument,
``gouji edit``, ``gouji play``) to the :data:`cli` group defined here; ``python -m gouji_dsl`` runs
this group alone.

RULESET arguments are a bundled ruleset's name (``online``) or a path to a ``.yaml`` file.
Bad input is reported as ``file:line:col: message`` with the source line, a caret and a hint, on
stderr — never as a traceback.
"""
from __future__ import annotations

import sys

import click

from gouji_dsl import __version__
from gouji_dsl.diagnostics import GoujiError

__all__ = ["cli", "main"]

EXIT_OK, EXIT_BAD_INPUT, EXIT_INTERNAL = 0, 1, 2


def _err(text: str) -> None:
    click.echo(text, err=True)


def _report(e: GoujiError) -> None:
    """Every diagnostic of ``e`` in its long form (caret and hint), on stderr."""
    for d in e.diagnostics:
        _err(d.format())


def _load_resolved(ruleset: str):
    """Resolve RULESET or exit 1 with its diagnostics."""
    from gouji_dsl.ruleset.loader import resolve
    try:
        return resolve(ruleset)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)


def _load_graph(ruleset: str):
    """Resolve and compile RULESET or exit 1 with its diagnostics."""
    from gouji_dsl.ruleset.graph import compile_ruleset
    resolved = _load_resolved(ruleset)
    try:
        return compile_ruleset(resolved)
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="gouji")
def cli() -> None:
    """gouji-dsl: Gouji (够级) rulesets as data — validate, show, simulate, test, compare and print them.

    RULESET is a bundled ruleset's name (e.g. `online`) or the path of a ruleset file.
    """


# ------------------------------------------------------------------------------ validate
@cli.command("validate")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--strict", is_flag=True,
              help="Also lint each file (rules that can never fire, rules deciding the same question, "
                   "no way to end the game, settings nothing reads) and fail on any finding.")
def validate_command(files: tuple[str, ...], strict: bool) -> None:
    """Check ruleset files: structure, `extends`, every expression's names and types.

    Prints every problem as `file:line:col: message` (with the line, a caret and a hint) on stderr
    and `FILE: ok (N rules)` for each good file. Exit status 1 if any file is bad, 2 on an internal
    error.

    With --strict, each file that compiles is also linted: rules that can never fire under its
    settings, two rules that decide the same question for the same state, a game that cannot end or
    go on, settings (and keys) nothing reads, settings changed without their own sentence. Findings
    are printed like errors (`warning:` before the message) and make the exit status 1.
    """
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.loader import resolve

    status = EXIT_OK
    for f in files:
        try:
            graph = compile_ruleset(resolve(f))
        except GoujiError as e:
            _report(e)
            n = len(e.diagnostics)
            _err(f"{f}: {n} problem{'s' if n != 1 else ''}")
            status = max(status, EXIT_BAD_INPUT)
            continue
        except Exception as e:
            _err(f"{f}: internal error: {type(e).__name__}: {e}")
            status = EXIT_INTERNAL
            continue
        if strict:
            from gouji_dsl.ruleset.lint import lint
            try:
                findings = lint(graph)
            except Exception as e:
                _err(f"{f}: internal error in the lint: {type(e).__name__}: {e}")
                status = EXIT_INTERNAL
                continue
            if findings:
                for d in findings:
                    _err(d.format())
                n = len(findings)
                _err(f"{f}: {n} lint finding{'s' if n != 1 else ''} (--strict)")
                status = max(status, EXIT_BAD_INPUT)
                continue
        else:
            # even without --strict, a setting nothing reads is most likely a misspelt name
            from gouji_dsl.ruleset.lint import quick_warnings
            for d in quick_warnings(graph):
                _err(d.format())
        click.echo(f"{f}: ok ({len(graph.nodes)} rules)")
    sys.exit(status)


# ------------------------------------------------------------------------------ simulate, report
from gouji_dsl.tools.cli_run import report_command, simulate_command  # noqa: E402 - owned by the runs modules

cli.add_command(simulate_command)
cli.add_command(report_command)


# ------------------------------------------------------------------------------ show
@cli.command("show")
@click.argument("ruleset", required=False)
@click.option("--graph", "as_graph", is_flag=True, help="Print the rule graph instead of the resolved ruleset.")
@click.option("--format", "fmt", type=click.Choice(["text", "mermaid", "dot"]), default="text", show_default=True,
              help="Output format of the graph (mermaid and dot imply --graph).")
@click.option("--vocabulary", is_flag=True,
              help="Print the hooks, variables, play attributes and functions expressions may use.")
def show_command(ruleset: str | None, as_graph: bool, fmt: str, vocabulary: bool) -> None:
    """Print RULESET after inheritance, or its rule graph.

    Without options: the header (name, title, chain of files), every setting with the file:line that
    set it (and each key of merged maps), inherited values marked, definitions, and the rules grouped
    by phase with their hook, guard, effect, sentence, source, file:line and what they override.
    """
    from gouji_dsl.tools import render

    if vocabulary:
        from gouji_dsl.ruleset.vocabulary import vocabulary_text
        click.echo(vocabulary_text())
        if ruleset is None:
            return
        click.echo()
    if ruleset is None:
        raise click.UsageError("missing argument RULESET (a bundled name or a .yaml path)")
    if as_graph or fmt != "text":
        graph = _load_graph(ruleset)
        fn = {"text": render.graph_text, "mermaid": render.graph_mermaid, "dot": render.graph_dot}[fmt]
        click.echo(fn(graph), nl=False)
        return
    resolved = _load_resolved(ruleset)
    if sys.stdout.isatty():
        from rich.console import Console
        Console(highlight=False, soft_wrap=True).print(render.resolved_text(resolved, markup=True), end="")
    else:
        click.echo(render.resolved_text(resolved), nl=False)


# ------------------------------------------------------------------------------ doc
@cli.command("doc")
@click.argument("ruleset")
@click.option("--format", "fmt", type=click.Choice(["text", "markdown"]), default="text", show_default=True,
              help="Plain text wrapped at 88 columns, or markdown (headings, lists, a table).")
@click.option("-o", "--output", "output", type=click.Path(dir_okay=False), default=None, metavar="FILE",
              help="Write the rulebook to FILE instead of standard output.")
def doc_command(ruleset: str, fmt: str, output: str | None) -> None:
    """Write a printable rulebook of RULESET from its rules' sentences, settings and sources.

    The title, description, source and the files it builds on; the cards (players, pack size, cards
    per player, rank order, filler, how plays compare); one section per phase of the game with the
    rules that can fire under the ruleset's settings, numbered, each citing its source; and the list
    of sources.
    """
    from gouji_dsl.tools.doc import ruleset_doc

    graph = _load_graph(ruleset)
    text = ruleset_doc(graph, fmt)
    if output is None:
        click.echo(text, nl=False)
        return
    try:
        with open(output, "w", encoding="utf-8") as fh:
            fh.write(text)
    except OSError as e:
        _err(f"{output}: cannot write: {e.strerror or e}")
        sys.exit(EXIT_BAD_INPUT)


# ------------------------------------------------------------------------------ test
@cli.command("test")
@click.argument("files", nargs=-1, required=True, metavar="FILE...")
@click.option("--json", "as_json", is_flag=True, help="Print the results as JSON.")
def test_command(files: tuple[str, ...], as_json: bool) -> None:
    """Run rule scenario files (YAML: a ruleset and a list of cases).

    Prints one line per case and `N passed, N failed`; exit status 1 if any case fails or a file
    cannot be read.
    """
    try:
        from gouji_dsl.tools.scenarios import format_results, run_files
    except ImportError as e:  # pragma: no cover - only while the module is missing
        _err(f"gouji test: the scenario runner is not available ({e})")
        sys.exit(EXIT_INTERNAL)
    try:
        results = run_files(list(files))
    except GoujiError as e:
        _report(e)
        sys.exit(EXIT_BAD_INPUT)
    click.echo(format_results(results, as_json=as_json))
    failed = any(not r.passed for r in results)
    sys.exit(EXIT_BAD_INPUT if failed else EXIT_OK)


# ------------------------------------------------------------------------------ diff
from gouji_dsl.tools.cli_diff import diff_command  # noqa: E402 - owned by the compare module

cli.add_command(diff_command)


def main(argv: list[str] | None = None) -> None:
    """Run the library command group (``python -m gouji_dsl``)."""
    cli.main(args=argv, prog_name="gouji")


if __name__ == "__main__":  # pragma: no cover
    main()
