"""CLI tests (click CliRunner): validate, simulate, show, and the graph renderers."""
from __future__ import annotations

import json
import re
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.resources import rules_dir
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import render
from gouji_dsl.tools.cli import cli

ONLINE = str(rules_dir() / "online.yaml")




def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------ validate
def test_validate_bundled_online_is_ok(runner):
    res = runner.invoke(cli, ["validate", ONLINE])
    assert res.exit_code == 0, res.stderr
    assert re.fullmatch(r".*online\.yaml: ok \(\d+ rules\)\n", res.stdout)
    assert res.stderr == ""


def test_validate_by_bundled_name(runner):
    res = runner.invoke(cli, ["validate", "online", "base"])
    assert res.exit_code == 0, res.stderr
    assert "online: ok (" in res.stdout and "base: ok (" in res.stdout


# Structure problems (found while loading: all reported together).
BROKEN_STRUCTURE = """
ruleset: broken
extends: onlien
titel: A broken variant
description: [not, a, string]
rules:
  - id: x.rule
    on: follow
    allow: "true"
"""

# Expression problems (found while compiling a file that loads: all reported together).
BROKEN_EXPRESSIONS = """
ruleset: broken-expr
extends: online
rules:
  - id: x.misspelt
    on: follow
    allow: "seat == oposite(top.seat)"
  - id: x.syntax
    on: follow
    deny: "seat == (top.seat"
"""


def test_validate_broken_files_report_every_problem_with_position(runner, tmp_path):
    a = write(tmp_path, "broken.yaml", BROKEN_STRUCTURE)
    b = write(tmp_path, "broken-expr.yaml", BROKEN_EXPRESSIONS)
    res = runner.invoke(cli, ["validate", a, b, ONLINE])
    assert res.exit_code == 1
    err = res.stderr
    assert "Traceback" not in err and "Traceback" not in res.stdout
    # missing parent (extends), with a did-you-mean hint
    assert f"{a}:2:10: cannot find parent ruleset 'onlien'" in err
    assert "did you mean 'online'?" in err
    # unknown key
    assert f"{a}:3:1: unknown key 'titel'" in err
    assert "did you mean 'title'?" in err
    # wrong type
    assert f"{a}:4:14: 'description': expected a string or a mapping, got a list" in err
    # misspelt name in an expression, pointing at the name
    assert f"{b}:6:21: rule 'x.misspelt' allow: unknown name 'oposite'" in err
    assert "did you mean 'opposite'?" in err
    # bad expression syntax, pointing at the end of the text
    assert re.search(re.escape(b) + r":9:\d+: rule 'x\.syntax' deny: ", err)
    # long form: the source line and a caret under the offending text
    assert "    titel: A broken variant\n    ^\n" in err
    assert '        allow: "seat == oposite(top.seat)"\n' + " " * 24 + "^\n" in err
    # good files are still reported as good
    assert "online.yaml: ok (" in res.stdout
    assert "broken" not in res.stdout


def test_validate_missing_file_is_an_error_not_a_traceback(runner, tmp_path):
    res = runner.invoke(cli, ["validate", str(tmp_path / "nope.yaml")])
    assert res.exit_code == 1
    assert "nope.yaml" in res.stderr and "Traceback" not in res.stderr
    assert res.exception is None or isinstance(res.exception, SystemExit)


def test_validate_yaml_syntax_error(runner, tmp_path):
    bad = write(tmp_path, "syntax.yaml", "ruleset: x\nsettings: {a: 1\n")
    res = runner.invoke(cli, ["validate", bad])
    assert res.exit_code == 1
    assert re.search(re.escape(bad) + r":\d+:\d+: YAML syntax error", res.stderr)


def test_validate_unexpected_exception_is_internal_error(runner, tmp_path, monkeypatch):
    import gouji_dsl.ruleset.graph as graph_mod

    def boom(resolved, **kw):
        raise RuntimeError("boom")

    monkeypatch.setattr(graph_mod, "compile_ruleset", boom)
    res = runner.invoke(cli, ["validate", ONLINE])
    assert res.exit_code == 2
    assert f"{ONLINE}: internal error: RuntimeError: boom" in res.stderr
    assert "Traceback" not in res.stderr


# ------------------------------------------------------------------------------ simulate
CONTRACT_KEYS = {"ruleset", "games", "seed", "mean_decisions", "mean_tricks", "sweep_rate", "burn_rate",
                 "revolution_rate", "team_score_mean", "elapsed_s", "games_per_s"}


def test_simulate_json_contract_and_determinism(runner):
    runs = []
    for _ in range(2):
        res = runner.invoke(cli, ["simulate", "online", "--games", "3", "--seed", "5", "--json"])
        assert res.exit_code == 0, res.stderr
        runs.append(json.loads(res.stdout))
    a, b = runs
    assert set(a) >= CONTRACT_KEYS
    assert "place_distribution" in a
    assert a["games"] == 3 and a["ruleset"] == "online" and a["seed"] == 5
    assert a["mean_decisions"] > 0 and a["mean_tricks"] > 0
    assert set(a["place_distribution"]) == {"1", "2", "3", "4", "5", "6"}
    for key in ("elapsed_s", "games_per_s"):
        a.pop(key), b.pop(key)
    assert a == b


def test_simulate_text_summary(runner):
    res = runner.invoke(cli, ["simulate", "online", "--games", "2", "--seed", "1"])
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    for needle in ("online: 2 games, seed 1", "mean decisions per game", "mean tricks per game",
                   "place distribution by seat", "mean team score", "sweep rate", "burn rate",
                   "revolution rate", "elapsed", "games/s"):
        assert needle in out
    assert "\x1b[" not in out  # not a terminal: no progress bar, no colour codes


def test_simulate_unknown_ruleset(runner):
    res = runner.invoke(cli, ["simulate", "onlin", "--games", "1"])
    assert res.exit_code == 1
    assert "unknown ruleset 'onlin'" in res.stderr and "did you mean 'online'?" in res.stderr


# ------------------------------------------------------------------------------ show
def test_show_tags_values_with_their_file(runner):
    res = runner.invoke(cli, ["show", "online"])
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    line = next(ln for ln in out.splitlines() if ln.lstrip().startswith("gouji_minimum"))
    assert re.search(r"base\.yaml:\d+", line) and render.INHERITED in line
    assert "chain:" in out and "online.yaml" in out and "base.yaml" in out
    rev = next(ln for ln in out.splitlines() if "redeal_in_first_game" in ln)
    assert re.search(r"online\.yaml:\d+$", rev)  # set by online itself, not marked inherited
    # rules grouped by phase in phase order
    assert out.index("phase cards") < out.index("phase trick") < out.index("phase burn") < out.index("phase end")
    assert "burn.priority" in out


def test_show_override_and_child_settings(runner, tmp_path):
    child = write(tmp_path, "house.yaml", """
        ruleset: house
        extends: online
        settings:
          gouji_minimum: {"2": 2}
        rules:
          - id: burn.failure-last
            on: burn_failure
            value: "'after-finishers'"
    """)
    res = runner.invoke(cli, ["show", child])
    assert res.exit_code == 0, res.stderr
    lines = res.stdout.splitlines()
    two = [ln for ln in lines if ln.strip().startswith("2: 2")]
    assert two and "house.yaml:4" in two[0] and render.INHERITED not in two[0]
    t = next(ln for ln in lines if ln.strip().startswith("T: 5"))
    assert "base.yaml" in t and render.INHERITED in t
    assert any(re.search(r"overrides .*base\.yaml:\d+", ln) for ln in lines)


def test_show_graph_text(runner):
    res = runner.invoke(cli, ["show", "online", "--graph"])
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert out.startswith("rule graph of online")
    assert "phase order: cards → deal" in out
    assert "on burn_order (value)" in out and "burn.priority" in out


def test_show_mermaid(runner):
    res = runner.invoke(cli, ["show", "online", "--format", "mermaid"])
    assert res.exit_code == 0, res.stderr
    assert res.stdout.startswith("flowchart TD\n")
    assert "subgraph phase_trick" in res.stdout


def test_show_dot(runner):
    res = runner.invoke(cli, ["show", "online", "--format", "dot"])
    assert res.exit_code == 0, res.stderr
    out = res.stdout
    assert out.startswith("digraph ")
    assert out.rstrip().endswith("}")
    assert out.count("{") == out.count("}")


def test_show_vocabulary(runner):
    res = runner.invoke(cli, ["show", "--vocabulary"])
    assert res.exit_code == 0
    assert "Hooks (on:)" in res.stdout and "opposite(seat)" in res.stdout


def test_show_bad_ruleset(runner, tmp_path):
    bad = write(tmp_path, "bad.yaml", BROKEN_STRUCTURE)
    res = runner.invoke(cli, ["show", bad])
    assert res.exit_code == 1
    assert f"{bad}:3:1: unknown key 'titel'" in res.stderr and "Traceback" not in res.stderr


# ------------------------------------------------------------------------------ renderers (used by the editor)
def test_renderers_are_pure_strings():
    graph = load_graph("online")
    for fn in (render.graph_text, render.graph_mermaid, render.graph_dot):
        text = fn(graph)
        assert isinstance(text, str) and text.endswith("\n")
    marked = render.resolved_text(graph.resolved, markup=True)
    assert "[dim]" in marked and r"\[S1]" in marked  # brackets escaped for Rich / Textual markup
    plain = render.resolved_text(graph.resolved)
    assert "[dim]" not in plain


def test_library_cli_does_not_import_editor():
    import subprocess
    import sys

    code = "import sys, gouji_dsl.tools.cli; assert not any(m == 'gouji_app' or m.startswith('gouji_app.') or m.startswith('textual') for m in sys.modules)"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_gouji_help_imports_no_engine_or_textual():
    """`gouji --help` (the console script's module) imports neither Textual nor the rule engine:
    they load when a command needs them (the time itself is measured by benchmarks/bench_engine.py)."""
    import subprocess
    import sys

    heavy = ("textual", "gouji_dsl.engine", "gouji_dsl.ruleset.graph", "lark")
    code = f"import sys, gouji_app.cli; bad = [m for m in sys.modules if m.startswith({heavy!r})]; assert not bad, bad"
    subprocess.run([sys.executable, "-c", code], check=True)


def test_a_usage_error_exits_2_as_the_readme_says(runner):
    # The README said usage errors exit 1; they exit 2 (click's usage error), as documented now.
    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text(encoding="utf-8")
    assert "2 a command-line usage error" in " ".join(readme.split())
    for args in (["validate", "--format", "xml", ONLINE], ["no-such-command"], ["simulate", "online", "--games", "x"]):
        res = runner.invoke(cli, args)
        assert res.exit_code == 2 and "Traceback" not in res.output, args


_DEAL = ["--deal", "1=KK 33", "--deal", "2=AA 44", "--deal", "3=55", "--deal", "4=66", "--deal", "5=77", "--deal", "6=88"]


def test_show_explain_gives_the_whole_chain(runner):
    """Issue 9 item 3: after `1 play KK`, explaining `2 play AA` cites why KK is a gouji play
    (gouji.minimum and its threshold setting), the burn order and the rule that forbids it."""
    r = runner.invoke(cli, ["show", "online", "--explain", "2 play AA", *_DEAL, "--leader", "1", "--after", "1 play KK"])
    assert r.exit_code == 0, r.output
    assert r.output.startswith("2 play AA: illegal")
    for cited in ("gouji.minimum", "setting gouji_minimum K: 2", "burn.priority", "gouji.opposite-only"):
        assert cited in r.output


def test_show_explain_refuses_bad_input_with_codes(runner):
    r = runner.invoke(cli, ["show", "online", "--explain", "2 pass", "--deal", "1=KK"])
    assert r.exit_code == 1 and "[ScenarioValue]" in r.stderr
    r = runner.invoke(cli, ["show", "online", "--explain", "2 play AX"])
    assert r.exit_code == 1 and "[UnknownCard]" in r.stderr
    r = runner.invoke(cli, ["show", "online", "--explain", "2 pass", *_DEAL, "--leader", "1", "--after", "3 play 55"])
    assert r.exit_code == 1 and "[ScenarioFailed]" in r.stderr
    r = runner.invoke(cli, ["show", "online", "--after", "1 play KK"])
    assert r.exit_code == 2  # --after without --explain is a usage error


def test_show_explain_checks_the_deal_and_its_options(runner):
    """More cards than the pack has, a seat given twice (at the second --deal), and options that do
    not combine with --explain are refused, never ignored."""
    deal = ["--deal", "1=RRRRRRRRR", *_DEAL[2:]]
    r = runner.invoke(cli, ["show", "online", "--explain", "2 pass", *deal])
    assert r.exit_code == 1 and "[ScenarioValue]" in r.stderr and "'R'" in r.stderr
    r = runner.invoke(cli, ["show", "online", "--explain", "2 pass", "--deal", "1=KK", "--deal", "1=33"])
    assert r.exit_code == 1 and "--deal:2:1:" in r.stderr
    for extra in (["--graph"], ["--settings"], ["--format", "dot"], ["--generated"]):
        r = runner.invoke(cli, ["show", "online", "--explain", "2 pass", *extra])
        assert r.exit_code == 2, extra


@pytest.mark.parametrize("args", [
    ["simulate", "online", "--games", "2"],
    ["duel", "online", "heuristic", "random", "--deals", "1"],
    ["diff", "online", "rulebook", "--simulate", "2"],
    ["show", "online", "--explain", "3 play 3"],
    ["play", "online"],
    ["compare", "online", "rulebook"],
])
@pytest.mark.parametrize("seed", ["", "  "])
def test_every_seed_option_refuses_an_empty_seed(runner: CliRunner, args: list[str], seed: str) -> None:
    """``--seed ''`` was accepted by simulate, diff and duel (the report said "seed "), while the play
    screen's new-game dialog refuses it: one SEED type for every command, a usage error."""
    from gouji_app.cli import gouji

    r = runner.invoke(gouji, [*args, "--seed", seed])
    assert r.exit_code == 2, r.output
    assert "--seed" in r.output and "empty" in r.output
