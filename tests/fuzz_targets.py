"""Fuzz strategies and checks shared by tests/test_fuzz.py (bounded, in CI) and benchmarks/fuzz.py
(a longer run that writes failures to a folder).

Every check takes one generated input and asserts the promise of issue 11: it loads, or it fails
with a :class:`GoujiError` (library) or exit status 1 (CLI) whose diagnostics carry a code and a
position inside the input — never another exception, a traceback or an internal error (exit 2).
A hang is caught by :func:`time_bound` (a generous wall-clock bound per input, not a speed goal).
"""
from __future__ import annotations

import contextlib
import functools
import json
import os
import signal
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st

from gouji_dsl.diagnostics import Code, Diagnostic, GoujiError
from gouji_dsl.resources import rules_dir

# ------------------------------------------------------------------------------ settings
SCALE = float(os.environ.get("GOUJI_FUZZ_SCALE", "1"))
"""Multiplies every target's number of examples (benchmarks/fuzz.py raises it; CI keeps 1)."""

INPUT_SECONDS = 120
"""Wall-clock bound for one input (a hang detector, generous so a loaded CI machine never trips it)."""

settings.register_profile(
    "gouji-fuzz", deadline=None, derandomize=True, database=None, print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much])


def fuzz_settings(examples: int) -> settings:
    """The fuzz profile with ``examples`` × :data:`SCALE` examples (derandomized: the same inputs
    on every run of the suite)."""
    return settings(settings.get_profile("gouji-fuzz"), max_examples=max(1, int(examples * SCALE)))


class Hang(AssertionError):
    pass


@contextlib.contextmanager
def time_bound(seconds: float | None = None) -> Iterator[None]:
    """Fail with :class:`Hang` when the body runs longer than ``seconds`` (default
    :data:`INPUT_SECONDS`; SIGALRM, a no-op where there is no such signal or off the main thread)."""
    seconds = INPUT_SECONDS if seconds is None else seconds
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def _hang(signum: int, frame: Any) -> None:
        raise Hang(f"no answer within {seconds} s")

    try:
        old = signal.signal(signal.SIGALRM, _hang)
    except ValueError:  # not the main thread
        yield
        return
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


# ------------------------------------------------------------------------------ assertions
def assert_positioned(d: Diagnostic, text: str | None, path: str) -> None:
    """A diagnostic that names a code, a file and, when it is in ``path``, a line of it."""
    assert d.message and d.code, d
    assert d.code != Code.INTERNAL_ERROR, d.format()
    assert d.path, d
    if text is not None and d.path == path and d.line > 0:
        assert d.line <= len(text.splitlines()) + 1, d.short()
    assert "Traceback" not in d.format()


def assert_clean_error(e: GoujiError, text: str | None, path: str) -> None:
    assert e.diagnostics
    for d in e.diagnostics:
        assert_positioned(d, text, path)


def cli(args: list[str]) -> Any:
    """Run ``gouji ARGS`` in-process (click's CliRunner) and check the exit status contract: 0 or 1,
    never a traceback or an internal error."""
    from gouji_dsl.tools.cli import cli as group
    try:
        runner = CliRunner(mix_stderr=False)  # type: ignore[call-arg]  # click < 8.2
    except TypeError:
        runner = CliRunner()
    res = runner.invoke(group, args)
    out = res.output + (res.stderr or "")
    assert res.exit_code in (0, 1), (args, res.exit_code, out[-2000:], res.exc_info)
    assert "Traceback" not in out and "internal error" not in out, out[-2000:]
    return res


def assert_cli_json_positioned(stdout: str, path: str, text: str | None) -> None:
    """``--json`` / ``--format json`` output whose diagnostics each carry a code and a position."""
    data = json.loads(stdout)
    files = data.get("files", [data])
    for f in files:
        for d in f.get("diagnostics", []):
            assert d["code"] and d["code"] != Code.INTERNAL_ERROR, d
            pos = d["position"]
            if text is not None and pos["path"] == path and pos["line"] > 0:
                assert pos["line"] <= len(text.splitlines()) + 1, d


# ------------------------------------------------------------------------------ text mutation
SNIPPETS = ["&a ", "*a", "!!timestamp ", "!!binary ", "<<: ", "? ", "- ", ": ", "{", "}", "[", "]", "'", '"',
            "\t", "\x00", "\u2028", "#", "---\n", "...\n", "9" * 5000, "1e+999", ".nan", "NaN", "-Infinity",
            "/etc/passwd", "../../../../etc/shadow", "a" * 300, "1000000", "-1", "7", "1.5", "²", "x", "99", "null",
            "[" * 300, "{" * 300, "not " * 300, "\ufeff", "é", "够级", "\\", "\\u0000", "\"\\ud800\"", "true", "[]", "{}"]


@st.composite
def mutated_text(draw: Any, base: str, snippets: list[str] = SNIPPETS) -> str:
    """``base`` with 1-4 mutations: a snippet inserted, a line deleted or duplicated, a character
    replaced, a snippet line inserted."""
    text = base
    for _ in range(draw(st.integers(1, 4))):
        lines = text.split("\n")
        kind = draw(st.sampled_from(["insert", "delete", "duplicate", "replace-char", "snippet-line"]))
        i = draw(st.integers(0, max(len(lines) - 1, 0)))
        if kind == "insert":
            j = draw(st.integers(0, len(text)))
            text = text[:j] + draw(st.sampled_from(snippets)) + text[j:]
        elif kind == "delete" and lines:
            del lines[i]
            text = "\n".join(lines)
        elif kind == "duplicate" and lines:
            lines.insert(i, lines[i])
            text = "\n".join(lines)
        elif kind == "replace-char" and text:
            j = draw(st.integers(0, len(text) - 1))
            text = text[:j] + draw(st.characters(blacklist_categories=("Cs",))) + text[j + 1:]
        else:
            lines.insert(i, draw(st.sampled_from(snippets)).rstrip("\n"))
            text = "\n".join(lines)
    return text


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from([1.5, 7, 99, -1, 0, 10**50, 2**63])
    | st.text(max_size=8) | st.sampled_from(["²", "x", "99", "-1", "7", "1.5", "", "RR", "2 play 33", "plya"]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["1", "6", "x", "type", "seat"]), inner,
                                                               max_size=3),
    max_leaves=6)


def _paths(data: Any, path: tuple = ()) -> list[tuple]:
    out = [path]
    if isinstance(data, dict):
        for k, v in data.items():
            if k != "ruleset_text":
                out.extend(_paths(v, path + (k,)))
    elif isinstance(data, list):
        for i, v in enumerate(data[:12]):   # the first events: enough structure, bounded choice
            out.extend(_paths(v, path + (i,)))
    return out


@st.composite
def mutated_json(draw: Any, base: str) -> str:
    """``base`` (a JSON document) with 1-3 structural mutations — a value replaced by another JSON
    value, a key removed, a key added, an array item removed — then written back, sometimes with a
    key written twice and a text mutation on top."""
    data = json.loads(base)
    for _ in range(draw(st.integers(1, 3))):
        paths = _paths(data)
        path = draw(st.sampled_from(paths))
        kind = draw(st.sampled_from(["replace", "remove", "add"]))
        if not path:
            if kind == "replace":
                data = draw(JSON_VALUES)
            continue
        parent = data
        try:
            for p in path[:-1]:
                parent = parent[p]
        except (KeyError, IndexError, TypeError):
            continue
        last = path[-1]
        if kind == "replace":
            parent[last] = draw(JSON_VALUES)
        elif kind == "remove":
            del parent[last]
        elif isinstance(parent, dict):
            parent[draw(st.sampled_from(["²", "x", "99", "-1", "human", "forced", "hands", "scores"]))] = draw(JSON_VALUES)
        else:
            parent.insert(last, draw(JSON_VALUES))
    text = json.dumps(data, indent=1, ensure_ascii=draw(st.booleans()))
    keys = [i for i, ln in enumerate(text.splitlines()) if ln.lstrip().startswith('"')]
    if keys and draw(st.integers(0, 4)) == 0:  # a key written twice (json.loads would keep the last silently)
        lines = text.splitlines()
        i = draw(st.sampled_from(keys))
        lines.insert(i, lines[i].rstrip(",") + ",")
        text = "\n".join(lines)
    if draw(st.integers(0, 3)) == 0:
        text = draw(mutated_text(text))
    return text


# ------------------------------------------------------------------------------ the inputs' bases
@functools.cache
def ruleset_bases() -> list[str]:
    return [(rules_dir() / f"{n}.yaml").read_text(encoding="utf-8") for n in ("online", "qingdao")]


SCENARIO_BASE = """\
# a small scenario file for fuzzing
ruleset: online
cases:
  - name: two 2s fill a group of jacks
    classify: "22 JJJ"
    expect: {valid: true, rank: J, count: 5, jokers: 0, gouji: true}
  - name: kings beat queens
    compare: ["KK", "QQ"]
    expect: {beats: true}
  - name: the pack
    pack: {}
    expect: {cards: 216}
  - name: a short game
    deal: {1: "RR 33", 2: "44", 3: "55", 4: "66", 5: "77", 6: "88"}
    leader: 1
    moves: [1 play 33, 2 play 44, 3 play 55]
    expect: {to_act: 4, legal: [4 play 66, 4 pass]}
"""


@functools.cache
def record_base() -> str:
    """A whole game of `online` as a record (its ruleset's text left out: the bundled file is used)."""
    from gouji_dsl.engine.records import GameRecord
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import play_game
    _, state = play_game(load_graph("online"), "fuzz", 0, "heuristic")
    rec = GameRecord.from_states([state], seed="fuzz", bots={s: "heuristic" for s in range(1, 7)})
    rec.ruleset_text = None
    rec.ruleset_path = None
    return rec.dumps()


EXPR_TOKENS = [
    "seat", "top", "play", "target", "burner", "leader", "active_seats", "kind", "card", "x", "settings", "trick",
    ".", ".seat", ".rank", ".count", ".gouji", ".nope", "settings.gouji_minimum", "settings.revolution",
    "settings.place_points", "settings.nope", "opposite(", "holds(", "count(", "first(", "coalesce(", "min(", "max(",
    "after(", "flag(", "hand_size(", "(", ")", "[", "]", ",", "and", "or", "not", "in", "not in", "if", "else",
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%", "0", "1", "7", "9" * 50, "'3'", "'Z'", "'10'",
    "true", "false", "none", "not " * 400, "- " * 400, "true or " * 300, "(" * 200, "¬", "够", "\"", "'", "\\",
]
HOOK_EFFECTS = [("follow", "deny"), ("lead", "allow"), ("score", "value"), ("first_leader", "value"),
                ("burn_order", "order"), ("game_over", "value"), ("gouji", "value"), ("after_play", "when")]


@st.composite
def expression_ruleset(draw: Any) -> str:
    """A child of `online` with one rule whose expression is random token soup."""
    tokens = draw(st.lists(st.sampled_from(EXPR_TOKENS), min_size=1, max_size=12))
    expr = " ".join(tokens).replace(" .", ".").replace("( ", "(")
    hook, effect = draw(st.sampled_from(HOOK_EFFECTS))
    extra = "\n    count: plays\n    amount: \"1\"" if effect == "when" else ""
    return (f"ruleset: fuzz\nextends: online\nrules:\n  - id: fuzz.rule\n    on: {hook}\n"
            f"    {effect}: {json.dumps(expr, ensure_ascii=False)}{extra}\n")


CARD_ALPHABET = "3456789TJQKA2BRhdcs10 ,xj²-*!\t\n" + "".join(chr(c) for c in range(0x20, 0x7f, 7)) + "够级é"
card_text = st.text(alphabet=CARD_ALPHABET, max_size=40) | st.sampled_from(
    ["", "RR TTT", "3h3h 10 10", "10", "1", "11", "j", "Bh", "RRRRRRRRR", "2" * 500, "T" * 5000])
move_text = st.builds(lambda seat, verb, cards: f"{seat} {verb} {cards}".strip(),
                      st.sampled_from(["1", "6", "7", "0", "-1", "²", "x", "", "99", "1.5"]),
                      st.sampled_from(["play", "pass", "yield", "burn", "plya", "choose", "declare", "return", "",
                                       "PLAY", "play play"]),
                      card_text) | st.text(max_size=30)


@functools.cache
def _graph(name: str = "online") -> Any:
    from gouji_dsl.ruleset.graph import load_graph
    return load_graph(name)


# ------------------------------------------------------------------------------ checks (one input each)
def _tmp(name: str, text: str | bytes) -> tuple[tempfile.TemporaryDirectory[str], str]:
    d = tempfile.TemporaryDirectory(prefix="gouji-fuzz-")
    p = Path(d.name) / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8", errors="surrogatepass")
    return d, str(p)


def check_ruleset_text(text: str, *, through_cli: bool = False) -> None:
    """A mutated ruleset: `check` never raises and every diagnostic is positioned; `gouji validate
    --format json` exits 0/1 with positioned diagnostics."""
    from gouji_dsl.ruleset.check import check
    d, path = _tmp("fuzz.yaml", text)
    with d, time_bound():
        result = check(path, text=text)
        for diag in result.diagnostics:
            assert_positioned(diag, text, path)
        assert result.ok or result.errors
        if through_cli:
            res = cli(["validate", "--format", "json", path])
            assert_cli_json_positioned(res.stdout, path, text)


def check_expression_ruleset(text: str) -> None:
    """A ruleset with a random expression: validated, and when it compiles, a game is played (a
    failing rule must be a RuleFailed naming it)."""
    from gouji_dsl.ruleset.check import check
    from gouji_dsl.ruleset.graph import RuleFailed
    from gouji_dsl.tools.simulate import simulate
    d, path = _tmp("fuzz.yaml", text)
    with d, time_bound():
        result = check(path, text=text)
        for diag in result.diagnostics:
            assert_positioned(diag, text, path)
        if result.graph is not None:
            try:
                simulate(result.graph, 1, "fuzz", "random", engine="interpreter")
            except RuleFailed as e:
                assert e.rule_id == "fuzz.rule", e
                assert_clean_error(e, text, path)


def check_card_text(text: str) -> None:
    """Card text (NOTATION.md): cards, or a GoujiError whose column is inside the text."""
    from gouji_dsl.ruleset.game.cards import parse_cards
    model = _graph().model
    with time_bound():
        try:
            cards = parse_cards(text, allow_empty=True, line=1)
        except GoujiError as e:
            assert_clean_error(e, text, "<cards>")
            assert all(1 <= d.col <= len(text) + 1 for d in e.diagnostics), (text, e)
            return
        try:
            model.counts_of(cards)
        except GoujiError as e:
            assert_clean_error(e, text, "<cards>")


def check_move_text(text: str) -> None:
    """A move line (NOTATION.md): a Move, or a GoujiError with a code."""
    from gouji_dsl.engine.interpreter import parse_move
    g = _graph()
    with time_bound():
        try:
            parse_move(text, g.model, g.n_seats, line=1, col=1)
        except GoujiError as e:
            assert_clean_error(e, text, "<move>")


def check_scenario_text(text: str, *, through_cli: bool = False) -> None:
    """A mutated scenario file: `run_file` never raises; every failure is `file:line:col: ...` with a
    code; `gouji test --json` exits 0/1."""
    from gouji_dsl.tools.scenarios import run_file
    d, path = _tmp("cases.yaml", text)
    with d, time_bound():
        for r in run_file(path):
            for err in r.errors:
                assert err.startswith(path) or err.startswith("<"), err
            assert all(c and c != Code.INTERNAL_ERROR for c in r.codes), r.codes
        if through_cli:
            res = cli(["test", "--json", path])
            json.loads(res.stdout)


def check_record_text(text: str | bytes, *, through_cli: bool = False, check_events: bool = False) -> None:
    """A mutated record: `load_record` + replay give a state or a positioned GoujiError; `gouji replay
    --check --json` exits 0/1 with positioned diagnostics."""
    from gouji_dsl.engine.records import check_record, load_record, record_graph, replay_steps
    d, path = _tmp("game.json", text)
    shown = text if isinstance(text, str) else None
    with d, time_bound():
        try:
            rec = load_record(path)
            graph = record_graph(rec)
            if check_events:
                check_record(graph, rec)
            else:
                replay_steps(graph, rec)
        except GoujiError as e:
            assert_clean_error(e, shown, path)
        if through_cli:
            res = cli(["replay", "--check", "--json", path])
            assert_cli_json_positioned(res.stdout, path, shown)


# ------------------------------------------------------------------------------ run folders, duel save files
@functools.cache
def run_folder_base() -> str:
    """A small paired run folder (4 deals, chunks of 2), made once per process: its run.json and
    chunk files are the bases of the run-folder targets."""
    d = tempfile.mkdtemp(prefix="gouji-fuzz-run-")
    out = str(Path(d) / "base")
    res = cli(["diff", "online", "rulebook", "--simulate", "4", "--single-games", "--chunk-size", "2", "--out", out,
               "--executor", "local", "--format", "json"])
    assert res.exit_code == 0, res.output
    return out


def run_json_base() -> str:
    return (Path(run_folder_base()) / "run.json").read_text(encoding="utf-8")


def chunk_base() -> str:
    return sorted(Path(run_folder_base()).glob("chunk-*.json"))[0].read_text(encoding="utf-8")


def _run_folder(name: str, text: str) -> tuple[tempfile.TemporaryDirectory[str], Path]:
    import shutil
    d = tempfile.TemporaryDirectory(prefix="gouji-fuzz-")
    folder = Path(d.name) / "run"
    shutil.copytree(run_folder_base(), folder)
    target = folder / "run.json" if name == "run.json" else sorted(folder.glob("chunk-*.json"))[0]
    target.write_text(text, encoding="utf-8", errors="surrogatepass")
    return d, folder


def check_run_folder(text: str, *, name: str = "run.json", through_cli: bool = False) -> None:
    """A run folder with a mutated ``run.json`` (or first chunk): :func:`load_runs` merges it or raises
    RunError naming the file; `gouji report` exits 0/1, never an internal error."""
    from gouji_dsl.tools.runfiles import RunError
    from gouji_dsl.tools.runfolders import load_runs
    d, folder = _run_folder(name, text)
    with d, time_bound():
        try:
            load_runs([folder])
        except RunError as e:
            first = str(e).splitlines()[0]
            assert str(folder) in first and "Traceback" not in str(e), str(e)
        if through_cli:
            cli(["report", str(folder), "--format", "json"])


SAVE_HEADER = {"duel": {"ruleset": "online", "a": "random", "b": "random", "seed": "5", "think_ms": None}}


@functools.cache
def save_line_base() -> str:
    """A unit line of a saved duel (online, random against random, seed 5, deal 0)."""
    from gouji_dsl.tools.duel import play_unit
    games = play_unit(_graph(), "random", "random", 0, 1, 5)
    return json.dumps({"games": [g.to_json() for g in games]})


def _one_line(text: str) -> str:
    try:
        return json.dumps(json.loads(text), ensure_ascii=False)
    except ValueError:
        return text.replace("\r", " ").replace("\n", " ")


def check_save_line(text: str, *, through_cli: bool = False) -> None:
    """A save file (its header, then a mutated unit line): :func:`load_saved` reads it or raises
    ValueError naming the line; the fast check of a line agrees with the schema; `gouji duel --save`
    exits 0/1."""
    from gouji_dsl.tools.duel import _fast_header, _fast_unit, _line_problem, load_saved
    line = _one_line(text)
    d, path = _tmp("save.jsonl", json.dumps(SAVE_HEADER) + "\n" + line + "\n")
    with d, time_bound():
        try:
            parsed = json.loads(line)
        except ValueError:
            parsed = None
        if parsed is not None:
            fast = _fast_header(parsed) if isinstance(parsed, dict) and "duel" in parsed else _fast_unit(parsed)
            assert fast == (_line_problem(parsed) is None), line[:300]
        try:
            load_saved(Path(path), SAVE_HEADER["duel"], 6)
        except ValueError as e:
            assert path in str(e) and "Traceback" not in str(e), str(e)
        if through_cli:
            cli(["duel", "online", "random", "random", "--deals", "1", "--seed", "5", "--save", path])


TARGETS: dict[str, tuple[Callable[[], Any], Callable[[Any], None]]] = {
    "ruleset": (lambda: st.sampled_from(ruleset_bases()).flatmap(mutated_text), check_ruleset_text),
    "ruleset-cli": (lambda: st.sampled_from(ruleset_bases()).flatmap(mutated_text),
                    functools.partial(check_ruleset_text, through_cli=True)),
    "expression": (expression_ruleset, check_expression_ruleset),
    "cards": (lambda: card_text, check_card_text),
    "move": (lambda: move_text, check_move_text),
    "scenario": (lambda: mutated_text(SCENARIO_BASE), check_scenario_text),
    "scenario-cli": (lambda: mutated_text(SCENARIO_BASE), functools.partial(check_scenario_text, through_cli=True)),
    "record": (lambda: mutated_json(record_base()), check_record_text),
    "record-text": (lambda: mutated_text(record_base()), check_record_text),
    "record-cli": (lambda: mutated_json(record_base()),
                   functools.partial(check_record_text, through_cli=True, check_events=True)),
    "run-json": (lambda: mutated_json(run_json_base()), check_run_folder),
    "run-json-cli": (lambda: mutated_json(run_json_base()), functools.partial(check_run_folder, through_cli=True)),
    "chunk": (lambda: mutated_json(chunk_base()), functools.partial(check_run_folder, name="chunk")),
    "chunk-cli": (lambda: mutated_json(chunk_base()), functools.partial(check_run_folder, name="chunk",
                                                                          through_cli=True)),
    "save-line": (lambda: mutated_json(save_line_base()), check_save_line),
    "save-line-cli": (lambda: mutated_json(save_line_base()), functools.partial(check_save_line, through_cli=True)),
}
"""name -> (strategy factory, check): the fuzz targets, shared by tests/test_fuzz.py and benchmarks/fuzz.py."""
