"""Issue 11: malformed game records give positioned errors with codes (library, `gouji replay`,
`gouji play --record`), never a traceback; `gouji replay RECORD [--check] [--json]`."""
from __future__ import annotations

import functools
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.engine.records import (
    MAX_RECORD_NESTING,
    MAX_RECORD_NUMBER_CHARS,
    GameRecord,
    check_record,
    load_record,
    parse_record,
    record_graph,
    replay_steps,
    save_record,
)
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.simulate import play_game


@functools.cache
def record_text() -> str:
    """A whole game of `online` as `gouji play` saves it (the ruleset's text left out: it is bundled)."""
    g = load_graph("online")
    _, st = play_game(g, "replay", 0, "heuristic")
    rec = GameRecord.from_states([st], seed="replay", bots={s: "heuristic" for s in range(1, 7)})
    rec.ruleset_text = None
    rec.ruleset_path = None
    return rec.dumps()


def mutated(change) -> str:
    data = json.loads(record_text())
    change(data)
    return json.dumps(data, indent=1)


def fixed_deal(data: dict, **hands: str) -> None:
    deal = data["events"][0]
    deal["source"] = "fixed"
    deal["hands"] = {**{k: v for k, v in deal["hands"].items() if k != "6"}, **hands}


def six(data: dict) -> str:
    return data["events"][0]["hands"]["6"]


def first_leader(data: dict) -> dict:
    return next(e for e in data["events"] if e["type"] == "first_leader")


def game_over(data: dict) -> dict:
    return next(e for e in data["events"] if e["type"] == "game_over")


# issue 11, "Found / Records": every class, with the code it must give
MALFORMED = {
    "deep JSON": ("[" * 100_000 + "]" * 100_000, Code.TOO_DEEP),
    "deep JSON inside": (None, Code.TOO_DEEP),             # built by _text
    "5,000-digit number": (None, Code.NUMBER_TOO_LARGE),   # built by _text
    "bots key ²": (lambda d: d["bots"].update({"²": "heuristic"}), Code.BAD_SEAT),
    "hands key x": (lambda d: fixed_deal(d, x=six(d)), Code.BAD_SEAT),
    "hands key 99": (lambda d: fixed_deal(d, **{"99": six(d)}), Code.BAD_SEAT),
    "hands key -1": (lambda d: fixed_deal(d, **{"-1": six(d)}), Code.BAD_SEAT),
    "seed [1]": (lambda d: d["events"][0].update(seed=[1]), Code.WRONG_TYPE),
    "run seed [1]": (lambda d: d.update(seed=[1]), Code.WRONG_TYPE),
    "forced leader 1.5": (lambda d: first_leader(d).update(forced=1.5), Code.WRONG_TYPE),
    "forced leader 7": (lambda d: first_leader(d).update(forced=7), Code.BAD_SEAT),
    "game_number x": (lambda d: d["events"][0].update(game_number="x"), Code.WRONG_TYPE),
    "scores null": (lambda d: game_over(d).update(scores=None), Code.WRONG_TYPE),
    "wrong top-level type": ("[1, 2, 3]", Code.NOT_A_RECORD),
    "another format": ('{"format": "chess-pgn", "ruleset": "online", "events": []}', Code.NOT_A_RECORD),
    "not JSON": ("ruleset: online\nevents: []\n", Code.JSON_SYNTAX),
    "NaN": (lambda d: d.update(seed=float("nan")), Code.JSON_SYNTAX),
    "empty events": (lambda d: d.update(events=[]), Code.EMPTY_VALUE),
    "first event not a deal": (lambda d: d["events"].pop(0), Code.VALUE_NOT_ALLOWED),
    "unknown key": (lambda d: d.update(human=1), Code.UNKNOWN_KEY),
    "move not text": (lambda d: next(e for e in d["events"] if e["type"] == "move").update(move=3), Code.WRONG_TYPE),
    "unknown card in a hand": (lambda d: fixed_deal(d, **{"6": "3Z" + six(d)}), Code.UNKNOWN_CARD),
    "ruleset outside the allowed places": (lambda d: d.update(ruleset="../../../../etc/passwd"), Code.PATH_NOT_ALLOWED),
    "absolute ruleset_path": (lambda d: d.update(ruleset_path="/etc/shadow"), Code.PATH_NOT_ALLOWED),
}


def _text(name: str) -> str:
    change, _ = MALFORMED[name]
    if name == "deep JSON inside":
        return record_text().replace('"seed": "replay"', '"seed": ' + "[" * 3000 + "]" * 3000, 1)
    if name == "5,000-digit number":
        return record_text().replace('"version": 1', '"version": ' + "1" * 5000, 1)
    return change if isinstance(change, str) else mutated(change)


def read_and_replay(path: Path) -> None:
    rec = load_record(path)
    replay_steps(record_graph(rec), rec)


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_record_is_a_positioned_error_with_its_code(name, tmp_path):
    path = tmp_path / "r.json"
    text = _text(name)
    path.write_text(text, encoding="utf-8")
    with pytest.raises(GoujiError) as info:
        read_and_replay(path)
    d = info.value.diagnostics[0]
    assert d.code == MALFORMED[name][1], info.value.format()
    assert d.path == str(path)
    if d.code not in (Code.PATH_NOT_ALLOWED,):
        assert d.line >= 1 and d.col >= 1, info.value.format()
        assert d.source_line is not None or len(text.splitlines()[d.line - 1]) == 0


@pytest.mark.parametrize("name", list(MALFORMED))
def test_malformed_record_through_gouji_replay(name, tmp_path):
    path = tmp_path / "r.json"
    path.write_text(_text(name), encoding="utf-8")
    res = CliRunner().invoke(cli, ["replay", "--check", str(path)])
    assert res.exit_code == 1, res.output
    assert "Traceback" not in res.output and str(path) in res.stderr
    res = CliRunner().invoke(cli, ["replay", "--json", str(path)])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    assert out["ok"] is False and out["diagnostics"][0]["code"] == MALFORMED[name][1]


def test_hands_key_minus_one_never_goes_to_seat_six():
    # issue 11: `"-1"` silently gave the cards to seat 6 (a Python negative index); also through the library API
    from gouji_dsl.engine.interpreter import new_game
    with pytest.raises(GoujiError) as info:
        new_game(load_graph("online"), 1, hands={-1: []})
    assert info.value.diagnostics[0].code == Code.BAD_SEAT
    with pytest.raises(GoujiError) as info:
        new_game(load_graph("online"), 1, leader=7)
    assert info.value.diagnostics[0].code == Code.BAD_SEAT


def test_limits_name_their_constants_and_positions():
    with pytest.raises(GoujiError) as info:
        parse_record("{\n" + '"a": ' + "[" * (MAX_RECORD_NESTING + 5), "deep.json")
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == (Code.TOO_DEEP, 2, 6 + MAX_RECORD_NESTING - 1) and "MAX_RECORD_NESTING" in d.message
    with pytest.raises(GoujiError) as info:
        parse_record('{"seed": ' + "9" * (MAX_RECORD_NUMBER_CHARS + 1) + "}", "n.json")
    assert (info.value.diagnostics[0].code, info.value.diagnostics[0].col) == (Code.NUMBER_TOO_LARGE, 10)
    # a long number inside a string is text, not a number
    with pytest.raises(GoujiError) as info:
        parse_record('{"seed": "' + "9" * 5000 + '"}', "s.json")
    assert info.value.diagnostics[0].code == Code.MISSING_KEY


def test_non_utf8_record_points_at_the_byte(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b'{\n  "ruleset": "onl\xffine"}\n')
    with pytest.raises(GoujiError) as info:
        load_record(path)
    d = info.value.diagnostics[0]
    assert (d.code, d.line, d.col) == (Code.NOT_TEXT, 2, 18)
    res = CliRunner().invoke(cli, ["replay", str(path)])
    assert res.exit_code == 1 and "not UTF-8" in res.stderr


def test_missing_record_file(tmp_path):
    res = CliRunner().invoke(cli, ["replay", str(tmp_path / "nope.json")])
    assert res.exit_code == 1 and "Traceback" not in res.output


def test_every_problem_of_a_record_at_once():
    text = mutated(lambda d: (d.update(seed=[1], evnts=1), d["events"][0].update(game_number="x")))
    with pytest.raises(GoujiError) as info:
        parse_record(text, "r.json")
    codes = sorted(str(d.code) for d in info.value.diagnostics)
    assert codes == sorted([Code.WRONG_TYPE, Code.WRONG_TYPE, Code.UNKNOWN_KEY])
    lines = [d.line for d in info.value.diagnostics]
    assert lines == sorted(lines)


# ------------------------------------------------------------------------------ gouji replay
def saved(tmp_path: Path, text: str | None = None) -> Path:
    path = tmp_path / "game.json"
    path.write_text(text or record_text(), encoding="utf-8")
    return path


def test_replay_prints_moves_places_and_scores(tmp_path):
    path = saved(tmp_path)
    res = CliRunner().invoke(cli, ["replay", str(path)])
    assert res.exit_code == 0, res.output
    data = json.loads(record_text())
    moves = [e["move"] for e in data["events"] if e["type"] == "move"]
    over = game_over(data)
    assert f"1 game, {len(moves)} moves" in res.stdout
    assert f"   1. {moves[0]}" in res.stdout and f"{len(moves):4d}. {moves[-1]}" in res.stdout
    by_place = sorted(over["places"].items(), key=lambda kv: kv[1])
    # each place with the ruleset's name of it (base's words.places: RULES.md §6, 头科 … 大落)
    names = {1: "first out (头科)", 2: "second out (二科)", 3: "third out (三科)", 4: "fourth out (四科)",
             5: "second last (二落)", 6: "last (大落)"}
    assert "places: " + ", ".join(f"{p}. seat {s} — {names[p]}" for s, p in by_place) in res.stdout
    assert "scores: " + ", ".join(f"seat {s} {v:+}" for s, v in over["scores"].items()) in res.stdout


def test_replay_in_chinese_says_the_events_as_the_play_log_does(tmp_path):
    """t26d bug 4: ``gouji --lang zh replay`` said ``first_leader: seat 1``; each event is now the play
    screen's log text (event_words.event_text) in the language, with the ruleset's words."""
    from gouji_dsl import i18n
    from gouji_dsl.i18n import Language
    from gouji_dsl.ruleset.event_words import event_text
    from gouji_dsl.ruleset.load.resolving import resolve
    from gouji_dsl.ruleset.words import game_words
    path = saved(tmp_path)
    res = CliRunner().invoke(cli, ["--lang", "zh", "replay", str(path)])
    assert res.exit_code == 0, res.output
    data = json.loads(record_text())
    words = game_words(resolve(data.get("ruleset", "online")))
    before = i18n.current()
    i18n.use(Language.ZH)
    try:
        shown = [e for e in data["events"] if e["type"] not in ("deal", "move", "game_over")]
        said = [event_text(e, None, words, english_terms=True) for e in shown]
    finally:
        i18n.use(before)
    lines = [ln.strip()[2:] for ln in res.stdout.splitlines() if ln.strip().startswith("· ")]
    assert lines == said and any(e["type"] == "first_leader" for e in shown)
    assert any(ln.startswith("首发：") for ln in lines)
    assert not any(t in res.stdout for t in ("first_leader", "trick_won", "seat ", "retire"))


def test_replay_json_and_check(tmp_path):
    path = saved(tmp_path)
    res = CliRunner().invoke(cli, ["replay", "--json", str(path)])
    out = json.loads(res.stdout)
    data = json.loads(record_text())
    (game,) = out["games"]
    assert out["ok"] and out["ruleset"] == "online" and not out["checked"]
    assert game["moves"] == [e["move"] for e in data["events"] if e["type"] == "move"]
    assert game["scores"] == game_over(data)["scores"] and game["places"] == game_over(data)["places"]
    res = CliRunner().invoke(cli, ["replay", "--check", "--json", str(path)])
    assert res.exit_code == 0 and json.loads(res.stdout)["checked"] is True
    res = CliRunner().invoke(cli, ["replay", "--check", str(path)])
    assert res.exit_code == 0 and res.stdout.startswith(f"{path}: ok")


def test_check_names_the_decision_that_differs(tmp_path):
    data = json.loads(record_text())
    i, won = next((i, e) for i, e in enumerate(data["events"]) if e["type"] == "trick_won")
    won["seat"] = won["seat"] % 6 + 1
    path = saved(tmp_path, GameRecord(data["ruleset"], data["seed"], {}, data["events"]).dumps())
    line = next(n for n, ln in enumerate(path.read_text().splitlines(), 1) if '"trick_won"' in ln)
    res = CliRunner().invoke(cli, ["replay", str(path)])   # without --check the moves still replay
    assert res.exit_code == 0
    res = CliRunner().invoke(cli, ["replay", "--check", "--json", str(path)])
    assert res.exit_code == 1
    (d,) = json.loads(res.stdout)["diagnostics"]
    assert d["code"] == Code.RECORD_DIFFERS and d["position"]["line"] == line
    assert "trick_won" in d["message"] and "next-leader" in d["hint"]   # the rule behind the replay's answer
    with pytest.raises(GoujiError):
        rec = load_record(path)
        check_record(record_graph(rec), rec)


def test_replay_under_another_ruleset(tmp_path):
    path = saved(tmp_path)
    res = CliRunner().invoke(cli, ["replay", "--ruleset", "online", "--check", str(path)])
    assert res.exit_code == 0
    res = CliRunner().invoke(cli, ["replay", "--ruleset", "rulebook", "--json", str(path)])
    assert res.exit_code == 1
    assert json.loads(res.stdout)["diagnostics"][0]["code"] == Code.RECORD_DIFFERS  # the seed deals otherwise


def test_an_illegal_recorded_move_has_its_code(tmp_path):
    data = json.loads(record_text())
    mv = next(e for e in data["events"] if e["type"] == "move" and " play " in e["move"])
    mv["move"] = mv["move"].split()[0] + " play RRRRRRRR"
    res = CliRunner().invoke(cli, ["replay", "--json", str(saved(tmp_path, json.dumps(data)))])
    assert json.loads(res.stdout)["diagnostics"][0]["code"] == Code.ILLEGAL_RECORDED_MOVE


@pytest.mark.parametrize("name", ["hands key -1", "deep JSON", "not JSON", "forced leader 7"])
def test_gouji_play_record_review_refuses_malformed_records(name, tmp_path):
    pytest.importorskip("textual")
    from gouji_app.cli import gouji
    path = tmp_path / "r.json"
    path.write_text(_text(name), encoding="utf-8")
    res = CliRunner().invoke(gouji, ["play", "--record", str(path)])
    assert res.exit_code == 1 and "Traceback" not in res.output
    assert str(path) in res.stderr


def test_saved_records_match_the_schema(tmp_path):
    from jsonschema import Draft7Validator

    from gouji_dsl.engine.records import record_schema
    Draft7Validator.check_schema(record_schema())
    rec = load_record(save_record(tmp_path / "g.json", load_record(saved(tmp_path))))
    assert not list(Draft7Validator(record_schema()).iter_errors(rec.to_json()))


def test_a_carried_ruleset_text_resolves_beside_the_record_whatever_the_name(tmp_path):
    # the record's `ruleset` name must not move the place its carried text's `extends:` is read from
    (tmp_path / "secret.yaml").write_text("ruleset: secret\nextends: online\n# SECRET-LINE\nbogus: 1\n")
    (tmp_path / "recs").mkdir()
    data = json.loads(record_text())
    data.update(ruleset="../x", ruleset_text="ruleset: online\nextends: secret\n")
    path = tmp_path / "recs" / "r.json"
    path.write_text(json.dumps(data, indent=1))
    with pytest.raises(GoujiError) as info:
        record_graph(load_record(path))
    assert info.value.diagnostics[0].code == Code.EXTENDS_NOT_FOUND
    assert "SECRET-LINE" not in info.value.format() and "bogus" not in info.value.format()


def test_a_long_record_points_at_its_last_event(tmp_path):
    # positions are found on demand (the C decoder skips what is not asked for): the 10,000th event
    # of a long record is located exactly; a huge document that is not a record is refused at 1:1
    data = json.loads(record_text())
    game = data["events"]
    data["events"] = game * 40
    data["events"][-1] = {"type": "game_over", "scores": None}
    path = saved(tmp_path, GameRecord(data["ruleset"], data["seed"], {}, data["events"]).dumps())
    with pytest.raises(GoujiError) as info:
        load_record(path)
    d = info.value.diagnostics[0]
    last = len(path.read_text().splitlines()) - 2
    assert (d.code, d.line) == (Code.WRONG_TYPE, last) and d.col == path.read_text().splitlines()[last - 1].index("null") + 1
    with pytest.raises(GoujiError) as info:
        parse_record("[" + "1," * 200_000 + "1]", "a.json")
    assert (info.value.diagnostics[0].code, info.value.diagnostics[0].line) == (Code.NOT_A_RECORD, 1)


@pytest.mark.parametrize("kind", ["a named pipe", "/dev/zero", "a folder"])
def test_a_record_that_is_not_a_regular_file_is_refused_without_waiting(kind, tmp_path):
    """`gouji replay FIFO` waited for a writer for ever (a tester's finding): the record is read through
    the one helper that `gouji test`, rulesets and run folders use (gouji_dsl.readfile.read_regular)."""
    import os
    if kind == "a named pipe":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        path = tmp_path / "r.json"
        os.mkfifo(path)
    elif kind == "/dev/zero":
        if not os.path.exists("/dev/zero"):
            pytest.skip("no /dev/zero here")
        path = Path("/dev/zero")
    else:
        path = tmp_path / "r.json"
        path.mkdir()
    with pytest.raises(GoujiError) as info:
        load_record(path)
    d = info.value.diagnostics[0]
    assert d.code == Code.UNREADABLE and kind.split("/")[-1].replace("zero", "a device") in d.message, d.message
    if kind != "a folder":  # a folder is refused by the command line's path check already
        res = CliRunner().invoke(cli, ["replay", "--json", str(path)])
        assert res.exit_code == 1, res.output
        assert json.loads(res.stdout)["diagnostics"][0]["code"] == Code.UNREADABLE


@pytest.mark.skipif(not Path("/proc/self/mem").exists(), reason="no /proc/self/mem here")
def test_a_record_that_cannot_be_read_names_the_file_and_what_failed():
    res = CliRunner().invoke(cli, ["replay", "/proc/self/mem"])
    assert res.exit_code == 1 and "/proc/self/mem" in res.output and "cannot read" in res.output, res.output
    assert "Errno" not in res.output


def test_a_key_written_twice_in_a_record_is_refused_at_the_second_one(tmp_path):
    """json.loads keeps the last of two keys silently (a hand-edited record said seed twice)."""
    text = record_text().replace('"seed": "replay",', '"seed": "replay",\n  "seed": "other",', 1)
    path = saved(tmp_path, text)
    with pytest.raises(GoujiError) as info:
        load_record(path)
    d = info.value.diagnostics[0]
    line = next(n for n, x in enumerate(text.splitlines(), 1) if '"seed": "other"' in x)
    assert (d.code, d.line, d.col) == (Code.DUPLICATE_KEY, line, 3) and "'seed'" in d.message, info.value.format()
    nested = record_text().replace('"type": "deal",', '"type": "deal", "type": "deal",', 1)
    with pytest.raises(GoujiError) as info:
        parse_record(nested, "r.json")
    d = info.value.diagnostics[0]
    first = next(n for n, x in enumerate(nested.splitlines(), 1) if '"type": "deal", "type"' in x)
    assert (d.code, d.line) == (Code.DUPLICATE_KEY, first)
    assert d.col == nested.splitlines()[first - 1].index('"type"', nested.splitlines()[first - 1].index('"type"') + 1) + 1


def test_an_object_of_too_many_keys_is_refused_before_it_is_built():
    """500,000 keys in `bots` (7 MB) took 211 MB and 3.6 s to refuse; the keys of each object are
    counted by the limit scan (MAX_RECORD_KEYS) before json builds anything."""
    from gouji_dsl.engine.records import MAX_RECORD_KEYS
    data = json.loads(record_text())
    data["bots"] = {str(i): "x" for i in range(MAX_RECORD_KEYS + 1)}
    with pytest.raises(GoujiError) as info:
        parse_record(json.dumps(data), "r.json")
    d = info.value.diagnostics[0]
    assert d.code == Code.TOO_MANY_KEYS and "MAX_RECORD_KEYS" in d.message
    assert json.dumps(data)[d.col - 1:].startswith(f'"{MAX_RECORD_KEYS}": ')  # at the first key too many
    data["bots"] = {str(i): "x" for i in range(MAX_RECORD_KEYS)}  # at the limit: read (and refused for its seats)
    with pytest.raises(GoujiError) as info:
        parse_record(json.dumps(data), "r.json")
    assert Code.TOO_MANY_KEYS not in {x.code for x in info.value.diagnostics}


@pytest.mark.parametrize("field", ["version", "game_number", "seed"])
def test_a_huge_value_is_quoted_shortened(field):
    """A 1 MB string where a number belongs was printed whole in the message."""
    data = json.loads(record_text())
    big = "x" * 1_000_000
    if field == "game_number":
        data["events"][0]["game_number"] = big
    elif field == "seed":
        data["seed"] = [big]
    else:
        data[field] = big
    with pytest.raises(GoujiError) as info:
        parse_record(json.dumps(data), "r.json")
    d = info.value.diagnostics[0]
    assert len(d.message) < 300, d.message[:400]
    if field != "seed":  # an array is named by its type, not quoted
        assert "… (1,000,002 characters)" in d.message
