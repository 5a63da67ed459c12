"""Issue 11: `gouji` never shows a traceback. An unexpected exception in any command prints one
line with the path of a saved crash report and exits 2; a GoujiError that escapes a command prints
its diagnostics and exits 1."""
from __future__ import annotations

import os
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError


@pytest.fixture(params=["library", "app"])
def group(request):
    if request.param == "library":
        from gouji_dsl.tools.cli import cli
        return cli
    pytest.importorskip("textual")
    from gouji_app.cli import gouji
    return gouji


def test_an_unexpected_exception_is_one_line_and_a_crash_report(group, monkeypatch, tmp_path):
    import gouji_dsl.tools.render as render

    def boom(*a, **k):
        raise ZeroDivisionError("division by zero somewhere deep")

    monkeypatch.setattr(render, "resolved_text", boom)
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(tmp_path))
    res = CliRunner().invoke(group, ["show", "online"])
    assert res.exit_code == 2
    assert "Traceback" not in res.output and "Traceback" not in res.stderr
    (line,) = res.stderr.strip().splitlines()
    assert line.startswith("gouji: internal error: ZeroDivisionError: division by zero somewhere deep")
    report = Path(line.split("crash report saved to ")[1].split(" (")[0])
    assert report.parent == tmp_path and "Traceback" in report.read_text() and "ZeroDivisionError" in report.read_text()


def test_an_escaping_gouji_error_is_reported_with_exit_1(group, monkeypatch):
    import gouji_dsl.tools.render as render

    def bad(*a, **k):
        raise GoujiError(Diagnostic("x.yaml", 3, 4, "something is wrong", "fix it", code=Code.UNKNOWN_KEY))

    monkeypatch.setattr(render, "resolved_text", bad)
    res = CliRunner().invoke(group, ["show", "online"])
    assert res.exit_code == 1 and "x.yaml:3:4: something is wrong" in res.stderr and "hint: fix it" in res.stderr
    assert "Traceback" not in res.stderr


def test_a_crash_report_folder_that_cannot_be_written_still_gives_one_line(monkeypatch, tmp_path):
    from gouji_dsl.tools.cli import internal_error_line
    blocked = tmp_path / "file"
    blocked.write_text("x")
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(blocked / "sub"))
    line = internal_error_line(RuntimeError("boom"))
    assert line.startswith("gouji: internal error: RuntimeError: boom") and "\n" not in line
    assert os.path.exists(line.split("crash report saved to ")[1].split(" (")[0])  # fell back to the temp folder


@pytest.mark.parametrize("args", [["simulate", "online", "--games", "4"], ["show", "online"],
                                  ["duel", "online", "random", "heuristic", "--deals", "1", "--json"]])
def test_a_closed_standard_output_stops_quietly_with_the_sigpipe_status(args):
    """`gouji simulate ... | head -1` exited 1 (which means bad input) when head closed the pipe: a
    closed standard output now ends the command quietly with 141, the status a shell gives a program
    that SIGPIPE ended (128 + 13); nothing on stderr."""
    import subprocess
    import sys

    from gouji_dsl.tools.cli import EXIT_PIPE_CLOSED

    proc = subprocess.Popen([sys.executable, "-m", "gouji_dsl", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader goes away before the command writes
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == EXIT_PIPE_CLOSED
    assert "Traceback" not in err and "Exception ignored" not in err and "internal error" not in err


@pytest.mark.parametrize("text, value", [("5", 5), ("-5", -5), ("007", 7), ("²", "²"), ("--5", "--5"), ("٣", "٣"),
                                         ("1:2", "1:2"), ("-", "-")])
def test_a_seed_is_an_integer_only_in_ascii_digits(text, value):
    """`--seed ²` (a digit to str.isdigit, not to int) was 'simulation failed: ValueError'."""
    from gouji_dsl.tools.exits import seed_value
    assert seed_value(text) == value


def test_a_superscript_seed_is_a_word_seed_not_a_failure():
    from gouji_dsl.tools.cli import cli
    res = CliRunner().invoke(cli, ["simulate", "online", "--games", "1", "--seed", "²", "--json"])
    assert res.exit_code == 0, res.output
    assert '"seed": "²"' in res.stdout or "\\u00b2" in res.stdout


@pytest.mark.parametrize("args", [["simulate", "online", "--games", "99999999999999999999"],
                                  ["diff", "online", "rulebook", "--simulate", "99999999999999999999"],
                                  ["simulate", "online", "--games", "3", "--until-halfwidth", "0.1",
                                   "--max-games", "1000000001"],
                                  ["duel", "online", "random", "random", "--deals", "100001"]])
def test_a_run_too_large_to_plan_is_a_usage_error_not_all_the_memory(args):
    """`--games 99999999999999999999` planned its chunks (or a duel its deals) in one list until the
    kernel killed the process (a fresh tester's finding, with the machine's memory)."""
    from gouji_dsl.tools.cli import cli
    res = CliRunner().invoke(cli, args)
    assert res.exit_code == 2 and "is not in the range" in res.stderr


def test_a_chunk_size_giving_too_many_chunks_is_refused_and_the_default_grows():
    from gouji_dsl.tools.cli import cli
    from gouji_dsl.tools.runkinds import MAX_CHUNKS, MAX_GAMES
    from gouji_dsl.tools.runspec import DEFAULT_CHUNK, default_chunk_size
    res = CliRunner().invoke(cli, ["simulate", "online", "--games", str(MAX_CHUNKS + 1), "--chunk-size", "1"])
    assert res.exit_code == 1 and "--chunk-size 2 or more" in res.stderr
    assert default_chunk_size(1000) == 63 and default_chunk_size(10 ** 6) == DEFAULT_CHUNK  # as before
    assert MAX_GAMES / default_chunk_size(MAX_GAMES) <= MAX_CHUNKS


def test_a_duel_of_too_many_deals_is_refused_by_the_library_too():
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.duel import duel
    from gouji_dsl.tools.runkinds import MAX_DUEL_DEALS
    with pytest.raises(ValueError, match="at most 100,000"):
        duel(load_graph("online"), "random", "random", MAX_DUEL_DEALS + 1)
