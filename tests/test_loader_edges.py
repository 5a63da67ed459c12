"""Issues 22 and 23, the loader's part: the work of reading a ruleset is bounded by its size, CLI
values and paths are usage errors or bad input (never an internal error), and every problem is
reported at the user's line, all of them."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code
from gouji_dsl.ruleset import settings as settings_mod
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def cli_run(*args: str):
    res = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in res.output and "Traceback" not in (res.stderr or "")
    assert "internal error" not in res.output and "internal error" not in (res.stderr or "")
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


# ------------------------------------------------------------------------------ 22.4 nested settings
def _nested(levels: int, kind: str) -> str:
    value = "1"
    for i in range(levels):
        if kind == "map" or (kind == "mixed" and i % 2):
            value = "{a: " + value + (", b: 2}" if kind == "mixed" else "}")
        else:
            value = "[" + value + "]"
    return value


@pytest.mark.parametrize("kind", ["map", "mixed"])
def test_inferring_a_nested_setting_visits_each_value_once(monkeypatch, kind):
    # issue 22 item 4: infer_type inferred each value twice per level (2**levels calls)
    import yaml
    calls = 0
    real = settings_mod.infer_type

    def counting(value, kinds):
        nonlocal calls
        calls += 1
        return real(value, kinds)

    monkeypatch.setattr(settings_mod, "infer_type", counting)
    value = yaml.safe_load(_nested(40, kind))
    counting(value, ())
    nodes = 41 if kind == "map" else 41 + 20  # every map of the mixed form has one more value (b: 2)
    assert calls == nodes


@pytest.mark.parametrize("levels", [20, 60])
@pytest.mark.parametrize("kind", ["map", "mixed"])
def test_a_deeply_nested_setting_validates_and_shows(tmp_path, levels, kind):
    p = write(tmp_path, "deep.yaml", f"ruleset: deep\nextends: base\nsettings:\n  deep: {_nested(levels, kind)}\n")
    res = cli_run("validate", str(p))
    assert res.exit_code == 0, res.stderr
    res = cli_run("show", str(p), "--settings")
    assert res.exit_code == 0, res.stderr
    child = write(tmp_path, "child.yaml", f"ruleset: child\nextends: deep.yaml\nsettings:\n"
                  f"  deep: {_nested(levels, kind).replace('1', 'x')}\n")
    res = cli_run("validate", str(child))
    assert res.exit_code == 1 and f"{child}:4:" in res.stderr and f"[{Code.SETTING_TYPE_MISMATCH}]" in res.stderr, res.stderr


# ------------------------------------------------------------------------------ 22.12 the record limit scan
@pytest.mark.parametrize("body", ["x" * 2_000_000, "\\n" * 1_000_000, "\\u00e9x\\\"" * 200_000, "汉" * 1_000_000])
def test_the_record_limit_scan_keeps_no_state_per_character(body):
    # issue 22 item 12: the scan's string pattern kept ~120 bytes of backtracking state a character
    # (a record with a 15,000,000-character string took 1.8 GB to replay)
    import tracemalloc

    from gouji_dsl.engine import records
    text = '{"format": "gouji-record/1", "ruleset": "online", "seed": "' + body + '", "events": [[[1]]]}'
    tracemalloc.start()
    try:
        records._check_limits(text, "r.json")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < len(text) // 10, peak  # nothing of the order of the string is kept (was 60x its size)


@pytest.mark.parametrize("tail", ['\\"' * 100_000, '"' + '\\"' * 100_000, "x" * 100_000 + "\\"])
def test_an_unterminated_string_stops_the_scan_and_is_a_json_error(tail):
    # each later quote started a new scan to the end of the text (quadratic)
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import parse_record
    with pytest.raises(GoujiError) as e:
        parse_record('{"format": "gouji-record/1", "seed": "' + tail, "r.json")
    assert [d.code for d in e.value.diagnostics] == [Code.JSON_SYNTAX]


def test_limits_are_still_found_after_long_strings():
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import parse_record
    for text, code in (('{"a": "' + "\\\"[" * 1000 + '", "b": ' + "[" * 100 + "]" * 100 + "}", Code.TOO_DEEP),
                       ('{"a": "x\\\\", "b": ' + "1" * 50 + "}", Code.NUMBER_TOO_LARGE),
                       ('{"a": "x", "b": NaN}', Code.JSON_SYNTAX)):
        with pytest.raises(GoujiError) as e:
            parse_record(text, "r.json")
        assert [d.code for d in e.value.diagnostics] == [code]


def _bench_record() -> dict:
    from gouji_dsl.engine.records import GameRecord
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import play_game
    st = play_game(load_graph("online"), "t", 0, "random")[1]
    return json.loads(GameRecord.from_states([st], seed="t").dumps())


@pytest.mark.parametrize("indent", [None, 1])
def test_a_record_with_thousands_of_bad_events_lists_a_bounded_number_of_them(indent):
    # 20,000 events with a bad seat (1.6 MB) took more than 120 s: every diagnostic split the whole text
    # into lines again (line_of), and printed 60,000 lines
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import MAX_RECORD_PROBLEMS, parse_record
    data = _bench_record()
    data["events"] = data["events"][:1] + [{"type": "first_leader", "seat": "x", "forced": None}] * 20_000
    with pytest.raises(GoujiError) as e:
        parse_record(json.dumps(data, indent=indent), "r.json")
    diags = e.value.diagnostics
    assert len(diags) == MAX_RECORD_PROBLEMS + 1
    assert all(d.code == Code.WRONG_TYPE and '"seat": "x"' in (d.source_line or "") for d in diags)
    assert "more problems" in diags[-1].message and "events[201].seat" in diags[-1].message


def test_the_keys_of_a_large_object_are_located_in_one_pass(monkeypatch):
    # each key of a 5,000-key 'bots' object was looked for from the object's start (20 s to report them)
    from gouji_dsl import readjson
    calls = 0

    class Counting:
        def raw_decode(self, text, i):
            nonlocal calls
            calls += 1
            return json.JSONDecoder().raw_decode(text, i)

    monkeypatch.setattr(readjson, "_DECODER", Counting())
    text = json.dumps({"ruleset": "online", "bots": {str(i): "random" for i in range(5000)}})
    pos = readjson.Positions(text)
    for i in range(0, 5000, 3):
        assert pos.keys.get(("bots", str(i)), None) == (1, text.index(f'"{i}":') + 1)
    assert calls <= 2 * 5000 + 10, calls


def test_a_record_diagnostic_shows_its_own_line_past_a_line_separator_in_a_string():
    # the source line was found by str.splitlines, which also splits at U+2028 inside a JSON string:
    # the line shown was another one than the line the position counts
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import parse_record
    data = _bench_record()
    data["seed"] = "a\u2028b"
    text = json.dumps(data, indent=1, ensure_ascii=False).replace('"bots": {}', '"bots": "none"')
    assert "\u2028" in text and text.index("\u2028") < text.index('"bots": "none"')
    with pytest.raises(GoujiError) as e:
        parse_record(text, "r.json")
    (d,) = e.value.diagnostics
    assert d.source_line is not None and '"bots": "none"' in d.source_line, d.source_line


# ------------------------------------------------------------------------------ 22.10 option values and paths
@pytest.fixture
def no_app(monkeypatch):
    """The app never starts in these tests: every value here must be refused before it would."""
    import gouji_app.cli
    import gouji_app.play.app

    def refuse(*a, **k):
        raise AssertionError("the app was started")

    monkeypatch.setattr(gouji_app.cli, "run_app", refuse)
    monkeypatch.setattr(gouji_app.play.app, "PlayApp", refuse)


def gouji_run(*args: str):
    from gouji_app.cli import gouji
    res = CliRunner().invoke(gouji, list(args))
    out = res.output + (res.stderr or "")
    assert "Traceback" not in out and "internal error" not in out, out
    assert res.exception is None or isinstance(res.exception, SystemExit), res.exception
    return res


SEED_COMMANDS = {
    "simulate": ["simulate", "online", "--games", "1"],
    "diff": ["diff", "online", "rulebook", "--simulate", "1"],
    "duel": ["duel", "online", "random", "random", "--deals", "1"],
    "show --explain": ["show", "online", "--explain", "1 pass"],
    "play": ["play", "online"],
    "compare": ["compare", "online", "rulebook"],
}


@pytest.mark.parametrize("seed", ["7" * 5000, "x" * 5000, "-" + "1" * 4400, "٣" * 201])
@pytest.mark.parametrize("command", list(SEED_COMMANDS))
def test_a_seed_beyond_its_length_is_a_usage_error_in_every_command(no_app, command, seed):
    from gouji_dsl.tools.exits import MAX_SEED_CHARS
    res = gouji_run(*SEED_COMMANDS[command], "--seed", seed)
    assert res.exit_code == 2 and "Usage:" in res.stderr and "--seed" in res.stderr, res.stderr
    assert f"at most {MAX_SEED_CHARS}" in res.stderr


def test_a_seed_of_the_longest_length_is_a_seed():
    from gouji_dsl.tools.exits import MAX_SEED_CHARS
    for seed in ("9" * MAX_SEED_CHARS, "w" * MAX_SEED_CHARS):
        res = gouji_run("simulate", "online", "--games", "1", "--seed", seed, "--json")
        assert res.exit_code == 0, res.stderr


@pytest.fixture
def bad_paths(tmp_path) -> dict[str, str]:
    (tmp_path / "folder").mkdir()
    (tmp_path / "file.txt").write_text("x", encoding="utf-8")
    (tmp_path / "dangling").symlink_to(tmp_path / "nowhere")
    (tmp_path / "loop1").symlink_to(tmp_path / "loop2")
    (tmp_path / "loop2").symlink_to(tmp_path / "loop1")
    return {
        "name too long": str(tmp_path / ("a" * 300)),
        "path too long": str(tmp_path / "/".join(["b" * 200] * 30)),
        "dangling link": str(tmp_path / "dangling"),
        "looping link": str(tmp_path / "loop1"),
        "below a file": str(tmp_path / "file.txt" / "x"),
        "a folder": str(tmp_path / "folder"),
        "a file": str(tmp_path / "file.txt"),
    }


# option -> (command line before the path, the inputs that are fine for it)
PATH_OPTIONS = {
    "--workspace": (["--workspace"], {"a folder"}),
    "edit --workspace": (["edit", "r.yaml", "--workspace"], {"a folder"}),
    "compare --workspace": (["compare", "online", "rulebook", "--workspace"], {"a folder"}),
    "--rules-path": (["--rules-path"], {"a folder"}),
    "duel --save": (["duel", "online", "random", "random", "--deals", "1", "--save"], {"a file"}),
    "doc -o": (["doc", "online", "-o"], {"a file"}),
    "play --record": (["play", "--record"], {"a file"}),
    "replay": (["replay"], {"a file"}),
    "edit": (["edit"], {"a file"}),
    "diff --save-divergent": (["diff", "online", "rulebook", "--simulate", "1", "--save-divergent"], {"a folder"}),
    "simulate --out": (["simulate", "online", "--games", "1", "--out"], {"a folder"}),
}
BAD = ["name too long", "path too long", "dangling link", "looping link", "below a file", "a folder", "a file"]


@pytest.mark.parametrize("which", BAD)
@pytest.mark.parametrize("option", list(PATH_OPTIONS))
def test_a_path_the_system_refuses_is_a_usage_error(no_app, bad_paths, option, which):
    before, fine = PATH_OPTIONS[option]
    if which in fine:
        return
    args = [*before, bad_paths[which]]
    if option in ("--workspace", "--rules-path"):
        args.append("validate") if option == "--rules-path" else None
        args += ["online"] if option == "--rules-path" else []
    res = gouji_run(*args)
    assert res.exit_code == 2 and "Usage:" in res.stderr and "Invalid value" in res.stderr, (args, res.stderr)
    assert "Errno" not in res.stderr


def test_the_new_game_dialog_refuses_a_seed_beyond_its_length():
    import asyncio

    from pilot_helpers import wait_for
    from textual.widgets import Input

    from gouji_app.play.app import PlayApp
    from gouji_app.play.dialogs import NewGameScreen
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.exits import MAX_SEED_CHARS

    async def run() -> None:
        app = PlayApp(load_graph("online"), seed=5, bots="heuristic", speed="instant", show_steps=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewGameScreen), what="the new-game dialog")
            dlg = app.screen
            dlg.query_one("#new-seed", Input).value = "7" * 5000
            await pilot.pause()
            await pilot.click("#new-deal")
            await pilot.pause()
            assert app.screen is dlg
            assert f"at most {MAX_SEED_CHARS}" in str(dlg.query_one("#new-error").render())
            assert app.play_screen.session.seed == 5

    asyncio.run(run())


# ------------------------------------------------------------------------------ 23.15 one seat reader
NOT_SEATS = ["²", "１", "٣", "+1", "1_0", "-1", "0x1", "9999", ""]


@pytest.mark.parametrize("seat", NOT_SEATS)
def test_a_seat_is_written_in_ascii_digits_everywhere(seat):
    from gouji_dsl.engine.interpreter import read_seat
    from gouji_dsl.tools.scenario_values import seat_or_none
    assert read_seat(seat) is None and seat_or_none(seat, 6) is None
    res = cli_run("show", "online", "--explain", "1 pass", "--deal", f"{seat}=KK")
    assert res.exit_code == 1 and f"[{Code.BAD_SEAT}]" in res.stderr, res.stderr
    if seat:
        res = cli_run("show", "online", "--explain", f"{seat} pass")
        assert res.exit_code == 1 and f"[{Code.BAD_SEAT}]" in res.stderr, res.stderr


def test_the_same_seats_are_read_by_deal_and_explain():
    from gouji_dsl.engine.interpreter import read_seat
    assert [read_seat(s) for s in ("1", " 6 ", "06")] == [1, 6, 6]
    deal = [f"--deal={s}={h}" for s, h in zip(range(1, 7), ("R 55 7", "2 33 4", "2 KK 9", "B 44 8", "2 66 T", "2 99 J"))]
    res = cli_run("show", "online", "--explain", "1 play 55", "--leader", "1", *deal)
    assert res.exit_code == 0, res.stderr


@pytest.mark.parametrize("seat", ["²", "１"])
def test_the_play_screen_reads_a_typed_seat_as_a_move_line_does(seat):
    from gouji_app.play.session import PlaySession
    from gouji_dsl.ruleset.graph import load_graph
    session = PlaySession(load_graph("online"), seat=1, seed=3, bots="random")
    typed = session.interpret(f"{seat} pass")
    assert typed.error and "digits 0-9" in typed.error


# ------------------------------------------------------------------------------ 23.16 removing a map key
def test_the_documented_way_to_remove_a_map_key_works(tmp_path):
    # the docs' own example `gouji_minimum: {Q: null}` was refused (SettingTypeMismatch)
    import re

    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.ruleset.settings import REMOVING_A_KEY
    from gouji_dsl.tools.scenarios import run_file
    docs = (Path(__file__).parent.parent / "docs" / "ruleset-format.md").read_text(encoding="utf-8")
    assert " ".join(REMOVING_A_KEY.split()) in " ".join(docs.split())
    example = re.search(r"`(gouji_minimum: \{Q: null\})`", REMOVING_A_KEY).group(1)
    p = write(tmp_path, "noq.yaml", f"ruleset: noq\nextends: online\nsettings:\n  {example}\n")
    assert cli_run("validate", str(p)).exit_code == 0
    minimum = load_graph(str(p)).settings["gouji_minimum"]
    assert "Q" not in minimum and minimum["K"] == 2
    cases = write(tmp_path, "noq-cases.yaml", """
        ruleset: noq.yaml
        cases:
          - name: no number of queens is a gouji play
            classify: QQQQQQQQ
            expect: {gouji: false}
          - name: kings still are
            classify: KK
            expect: {gouji: true}
        """)
    assert all(r.passed for r in run_file(cases)), [r.errors for r in run_file(cases)]


def test_the_editor_help_says_the_same_about_null_keys():
    from gouji_app.helptext import help_markdown
    from gouji_dsl.ruleset.settings import REMOVING_A_KEY
    assert " ".join(REMOVING_A_KEY.split()) in " ".join(help_markdown().split())


@pytest.mark.parametrize("setting, code", [
    ("gouji_minimum: {Qx: null}", Code.VALUE_NOT_ALLOWED),  # removing a key that is not a card kind
    ("tribute: {burn: null}", Code.SETTING_TYPE_MISMATCH),   # a record's key is no map key: null is its value
])
def test_null_where_it_removes_nothing_is_an_error(tmp_path, setting, code):
    from gouji_dsl.ruleset.check import check
    p = write(tmp_path, "bad.yaml", f"ruleset: bad\nextends: online\nsettings:\n  {setting}\n")
    result = check(p)
    assert [d.code for d in result.errors] == [code] and result.errors[0].line == 4, result.errors


# ------------------------------------------------------------------------------ 22.19, 23.12 every problem at once
def check_file(tmp_path, text: str):
    from gouji_dsl.ruleset.check import check
    return check(write(tmp_path, "r.yaml", text))


@pytest.mark.parametrize("rule", [
    "on: folow\n    require: \"sat == 1\"",
    "on: folow\n    when: \"sat == 1\"\n    allow: \"true\"",
    "on: revolution_plac\n    value: \"sat\"",
])
def test_an_unknown_name_is_reported_beside_a_misspelt_hook(tmp_path, rule):
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    {rule}\n")
    codes = [d.code for d in result.errors]
    assert codes == [Code.UNKNOWN_HOOK, Code.UNKNOWN_NAME], result.errors
    assert result.errors[1].line == 6 and "'sat'" in result.errors[1].message and "seat" in (result.errors[1].hint or "")


def test_an_unknown_name_is_reported_beside_a_wrong_effect(tmp_path):
    result = check_file(tmp_path, "ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    on: follow\n    value: \"sat\"\n")
    assert [d.code for d in result.errors] == [Code.WRONG_EFFECT, Code.UNKNOWN_NAME], result.errors


def test_a_misspelt_hook_with_known_names_reports_the_hook_only(tmp_path):
    result = check_file(tmp_path, "ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    on: folow\n"
                        "    require: \"seat == opposite(top.seat) and settings.gouji_minimum['K'] > 1\"\n")
    assert [d.code for d in result.errors] == [Code.UNKNOWN_HOOK]


@pytest.mark.parametrize("expr, names", [
    ("foo == 1 and bar == 2 or baz", ["foo", "bar", "baz"]),
    ("fooo(seat) or settings.nope > 1 or sat == 2", ["fooo", "nope", "sat"]),
])
def test_every_unknown_name_of_an_expression_is_reported(tmp_path, expr, names):
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    on: follow\n"
                        f"    require: \"{expr}\"\n")
    assert [n for n in names if any(f"{n!r}" in d.message for d in result.errors)] == names, result.errors
    assert len(result.errors) == 3 and {d.line for d in result.errors} == {6}
    assert sorted(d.col for d in result.errors) == [d.col for d in result.errors]


@pytest.mark.parametrize("expr, codes", [
    ("holds(seat, 'X') > 0 and foo", [Code.NOT_A_CARD, Code.UNKNOWN_NAME]),
    ("seat == 'J' or fooo(seat) or settings.nope > 1", [Code.TYPE_MISMATCH, Code.UNKNOWN_FUNCTION, Code.UNKNOWN_SETTING]),
])
def test_unknown_names_are_reported_whatever_the_first_problem(tmp_path, expr, codes):
    # issue 23 (new-user check): a card that is no card first hid the unknown names after it
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    on: follow\n"
                        f"    require: \"{expr}\"\n")
    assert [d.code for d in result.errors] == codes, result.errors
    assert {d.line for d in result.errors} == {6}


@pytest.mark.parametrize("name, meant", [("gouji_\\u200bminimum", "gouji_minimum"), ("gouji\\u2060_minimum", "gouji_minimum"),
                                         ("ｇｏｕｊｉ_minimum", "gouji_minimum"), ("gouji_minimum\\u00ad", "gouji_minimum")])
def test_an_invisible_character_in_a_setting_name_is_reported_and_the_value_still_checked(tmp_path, name, meant):
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nsettings:\n  \"{name}\": {{Q: many}}\n  seats: 1.5\n")
    codes = [d.code for d in result.errors]
    assert codes.count(Code.INVALID_NAME) == 1 and codes.count(Code.SETTING_TYPE_MISMATCH) == 2, result.errors
    bad_name = next(d for d in result.errors if d.code == Code.INVALID_NAME)
    assert bad_name.line == 4 and repr(meant) in (bad_name.hint or "") and "U+" in (bad_name.hint or "")
    assert "\u200b" not in bad_name.message and "\u2060" not in bad_name.message  # printed escaped
    assert {d.line for d in result.errors if d.code == Code.SETTING_TYPE_MISMATCH} == {4, 5}


def test_a_bad_setting_name_leaves_the_other_settings_checked(tmp_path):
    # one invalid name left every setting of the file out: the bad value beside it was not reported
    result = check_file(tmp_path, "ruleset: r\nextends: online\nsettings:\n  \"bad name\": 1\n  seats: 1.5\n")
    assert [(d.code, d.line) for d in result.errors] == [(Code.INVALID_NAME, 4), (Code.SETTING_TYPE_MISMATCH, 5)]


# ------------------------------------------------------------------------------ 23.11 card kinds at the user's line
@pytest.mark.parametrize("setting, code", [
    ('jokers: ["B", "B"]', Code.DUPLICATE_ENTRY),
    ('jokers: ["B", "R", "R"]', Code.DUPLICATE_ENTRY),
    ("jokers: []", Code.EMPTY_VALUE),
    ('ranks: ["3", "3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"]', Code.DUPLICATE_ENTRY),
    ('ranks: ["3", "4", "4"]', Code.DUPLICATE_ENTRY),
    ("ranks: []", Code.EMPTY_VALUE),
    ('jokers: ["B", "R", "2"]', Code.DUPLICATE_ENTRY),
    ("seats: 7", Code.VALUE_NOT_ALLOWED),
    ('ranks: ["3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K", "A", "2"]', Code.VALUE_NOT_ALLOWED),
])
@pytest.mark.parametrize("parent", ["online", "rulebook"])
def test_a_bad_card_kinds_setting_is_one_error_at_the_users_line(tmp_path, setting, code, parent):
    # reported as 7-29 errors inside the bundled base.yaml, with false follow-ons
    result = check_file(tmp_path, f"ruleset: r\nextends: {parent}\nsettings:\n  {setting}\n")
    assert [(d.code, Path(d.path).name, d.line) for d in result.errors] == [(code, "r.yaml", 4)], result.errors
    res = cli_run("simulate", str(tmp_path / "r.yaml"), "--games", "1")
    assert res.exit_code == 1 and res.stderr.count(f"[{code}]") == 1 and "base.yaml" not in res.stderr


def test_a_duplicate_kind_points_at_the_repeated_item(tmp_path):
    result = check_file(tmp_path, 'ruleset: r\nextends: online\nsettings:\n  jokers: ["B", "R", "B"]\n')
    (d,) = result.errors
    assert (d.line, d.col) == (4, 23) and "jokers[2]" in d.message and "jokers[0]" in d.message


# ------------------------------------------------------------------------------ 22.15 a record's carried ruleset text
@pytest.fixture(scope="module")
def saved_game(tmp_path_factory):
    from gouji_dsl.engine.records import GameRecord, save_record
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.simulate import play_game
    st = play_game(load_graph("online"), "carry", 0, "random")[1]
    path = save_record(tmp_path_factory.mktemp("rec") / "g.json", GameRecord.from_states([st], seed="carry"))
    import json
    return json.loads(path.read_text(encoding="utf-8"))


@pytest.mark.parametrize("bad, spot", [
    ("  seats: 1.5\n", "1.5"),
    ("  gouji_minimum: {Q: \"é\\u00e9\"}\n", 'é'),  # (inside the quotes, as in a file)
    ("  \"x\\ty\": 1\n", 'x'),
])
@pytest.mark.parametrize("ruleset_path", ["bundled", "none"])
def test_problems_of_a_records_carried_text_are_at_its_field(tmp_path, saved_game, bad, spot, ruleset_path):
    import json

    from gouji_dsl import resources
    data = dict(saved_game)
    text = data["ruleset_text"]
    # the bad line in the YAML text: escapes in `bad` are YAML's, written into the JSON string as they are
    data["ruleset_text"] = text.replace("\nsettings:\n", "\nsettings:\n" + bad.encode().decode("unicode_escape")
                                        if "\\u" not in bad else "\nsettings:\n" + bad, 1)
    data["ruleset_path"] = str(resources.rules_dir() / "online.yaml") if ruleset_path == "bundled" else None
    p = tmp_path / "carried.json"
    p.write_text(json.dumps(data, indent=2, ensure_ascii=False), encoding="utf-8")
    check_carried(p, spot)


def check_carried(p: Path, spot: str) -> None:
    from gouji_dsl.diagnostics import GoujiError
    from gouji_dsl.engine.records import load_record, record_graph
    with pytest.raises(GoujiError) as e:
        record_graph(load_record(p))
    (d,) = [d for d in e.value.diagnostics if d.severity == "error"]
    assert d.path == str(p) and "carries" in d.message, d
    line = p.read_text(encoding="utf-8").split("\n")[d.line - 1]
    assert line.lstrip().startswith('"ruleset_text"') and line[d.col - 1:].startswith(spot), (line[d.col - 10:d.col + 10], spot)
    res = cli_run("replay", str(p))
    assert res.exit_code == 1 and f"{p}:{d.line}:{d.col}:" in res.stderr and "online.yaml" not in res.stderr


def test_a_carried_text_written_with_ascii_escapes_is_placed_by_its_escapes(tmp_path, saved_game):
    # every Chinese character of the text is a 6-character \\uXXXX in the record, an emoji 12 (a surrogate pair)
    import json
    data = dict(saved_game)
    data["ruleset_text"] = data["ruleset_text"].replace("\nsettings:\n", "\nsettings:\n  # 够级 😀\n  seats: \"😀x\"\n", 1)
    p = tmp_path / "ascii.json"
    p.write_text(json.dumps(data, indent=2, ensure_ascii=True), encoding="utf-8")
    check_carried(p, "\\ud83d\\ude00x")


# ------------------------------------------------------------------------------ 23.7 answers outside their question
@pytest.mark.parametrize("hook, answer", [("revolution_place", "99"), ("revolution_place", "0"), ("match_length", "0"),
                                          ("match_length", "1001"), ("yield_to", "10"), ("yield_to", "-1"),
                                          ("setup_rounds", "65"), ("setup_rounds", "settings.rounds")])
def test_a_constant_answer_outside_its_question_is_a_validate_error(tmp_path, hook, answer):
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nsettings:\n  rounds: 100\nrules:\n  - id: my.rule\n"
                        f"    on: {hook}\n    value: \"{answer}\"\n")
    assert [(d.code, d.line) for d in result.errors] == [(Code.OUT_OF_RANGE, 8)], result.errors


def test_a_childs_setting_out_of_range_is_reported_once_at_its_line_not_in_base(tmp_path):
    # issue 23.7/23.11 (new-user check): match_games: 0 was OutOfRange at the user's line and again at
    # base.yaml's tribute.match (value: settings.match_games), a follow-on inside the bundled file
    result = check_file(tmp_path, "ruleset: r\nextends: online\nsettings:\n  match_games: 0\n")
    assert [(d.code, d.line, Path(d.path).name) for d in result.errors] == [(Code.OUT_OF_RANGE, 4, "r.yaml")], result.errors
    # a setting of the child's own type without bounds, answered by a parent's rule: at the child's line
    (tmp_path / "p.yaml").write_text("ruleset: p\nextends: online\nsettings:\n  games: {type: int, value: 2}\n"
                                     "rules:\n  - {id: my.len, on: match_length, value: settings.games}\n", encoding="utf-8")
    result = check_file(tmp_path, "ruleset: r\nextends: p\nsettings:\n  games: 0\n")
    assert [(d.code, d.line, Path(d.path).name) for d in result.errors] == [(Code.OUT_OF_RANGE, 4, "r.yaml")], result.errors


@pytest.mark.parametrize("hook, answer", [("revolution_place", "6"), ("match_length", "5"), ("yield_to", "0"),
                                          ("setup_rounds", "0")])
def test_a_constant_answer_inside_its_question_is_fine(tmp_path, hook, answer):
    result = check_file(tmp_path, f"ruleset: r\nextends: online\nrules:\n  - id: my.rule\n    on: {hook}\n"
                        f"    value: \"{answer}\"\n")
    assert result.errors == []


@pytest.mark.parametrize("engine", ["generated", "interpreter"])
@pytest.mark.parametrize("rule, bots", [
    ("on: yield_to\n    value: \"seat + 10\"", "random"),
    ("on: match_length\n    value: \"settings.rounds - 100\"", "random"),
    ("on: setup_rounds\n    value: \"settings.rounds + 1\"", "random"),
])
def test_a_computed_answer_outside_its_question_fails_with_the_rule_on_every_engine(tmp_path, rule, bots, engine):
    p = write(tmp_path, "r.yaml", f"ruleset: r\nextends: online\nsettings:\n  rounds: 100\nrules:\n  - id: my.rule\n"
              f"    {rule}\n")
    res = cli_run("simulate", str(p), "--games", "5", "--bots", bots, "--engine", engine)
    assert res.exit_code == 1 and f"{p}:6:" in res.stderr and f"[{Code.RULE_FAILED}]" in res.stderr, res.stderr
    assert "rule 'my.rule'" in res.stderr and "which is not" in res.stderr


def test_a_revolution_place_outside_the_places_is_refused_by_the_answer_check():
    from gouji_dsl.ruleset.graph import load_graph
    check = load_graph("online")._checks["revolution_place"]
    assert check(99) and check(0) and check(True) and check(2.5) and check(6) is None and check(None) is None


def test_every_unknown_name_of_a_definition_is_reported(tmp_path):
    result = check_file(tmp_path, "ruleset: r\nextends: online\ndefinitions:\n"
                        "  mine(s): \"foo(s) and bar == 1 and s == baz\"\nrules:\n  - id: my.r\n    on: follow\n"
                        "    require: \"mine(seat)\"\n")
    assert [(d.line, d.message.rsplit(" ", 1)[-1]) for d in result.errors] == [(4, "'foo'"), (4, "'bar'"), (4, "'baz'")]


def test_a_kind_left_out_of_the_users_ranks_names_where_the_kinds_were_set(tmp_path):
    # a real consequence (base.yaml's gouji_minimum names T), reported where it is, with the user's line in the hint
    result = check_file(tmp_path, 'ruleset: r\nextends: online\nsettings:\n  ranks: ["3", "4", "5", "6", "7", "8", "9", '
                        '"J", "Q", "K", "A", "2"]\n')
    (d,) = result.errors
    assert d.code == Code.VALUE_NOT_ALLOWED and "'T'" in d.message and "r.yaml:4" in (d.hint or "") and "ranks at " in (d.hint or "")
