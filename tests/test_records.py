"""Game records (save, load, replay, errors with positions) and positions as scenario cases."""
from __future__ import annotations

import functools
import json
import textwrap

import pytest

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.engine.records import GameRecord, load_record, parse_record, record_graph, replay_record, replay_steps, save_record
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cases import add_case_to_file, check_case, scenario_case
from gouji_dsl.tools.scenarios import run_file
from gouji_dsl.tools.simulate import play_game

DUEL = """\
ruleset: duel
extends: base
title: two-game matches with fall tribute and its return
settings:
  tribute: {order: [fall], fall: {"6": 2, "5": 1}, return_fall: true}
  match_games: 2
"""


@functools.cache
def graph(name: str):
    return load_graph(name)


@functools.cache
def online_game(seed: str = "rec"):
    return play_game(graph("online"), seed, 0, "heuristic")[1]


def test_save_load_replay_roundtrip(tmp_path):
    st = online_game()
    rec = GameRecord.from_states([st], seed="rec", bots={s: "heuristic" for s in range(1, 7)})
    path = save_record(tmp_path / "g.json", rec)
    text = path.read_text()
    assert text.count("\n") > len(st.record)          # one event per line
    back = load_record(path)
    assert back.ruleset == "online" and back.seed == "rec" and back.bots[3] == "heuristic"
    assert back.events == st.record
    steps = replay_steps(graph("online"), back)
    assert steps[0].move is None and len(steps) == 1 + sum(1 for e in st.record if e["type"] == "move")
    assert steps[-1].state.record == st.record
    assert record_graph(back).name == "online"


def test_a_match_replays_with_its_tribute(tmp_path):
    (tmp_path / "duel.yaml").write_text(DUEL)
    g = load_graph(tmp_path / "duel.yaml")
    _, first = play_game(g, "m", 0, "heuristic")
    _, second = play_game(g, "m", 1, "heuristic", previous=first)
    assert any(e["type"] == "transfer" for e in second.record)
    assert any(e["type"] == "move" and e["move"].split()[1] == "return" for e in second.record)
    rec = GameRecord.from_states([first, second], seed="m")
    save_record(tmp_path / "m.json", rec)
    finals = replay_record(g, load_record(tmp_path / "m.json"))
    assert [f.record for f in finals] == [first.record, second.record]
    # the second game as a scenario case: both games, tribute replayed, and it passes `gouji test`
    mid = replay_steps(g, rec)[-5].state
    case = scenario_case(mid, "second game", previous=first)
    assert "next_deal:" in case and "next_moves:" in case and "gouji test does not" not in case
    assert check_case(g, case) == []


def positions_error(text: str, tmp_path, name: str = "r.json") -> str:
    return positions_diag(text, tmp_path, name).short()


def positions_diag(text: str, tmp_path, name: str = "r.json"):
    p = tmp_path / name
    p.write_text(text)
    with pytest.raises(GoujiError) as e:
        rec = load_record(p)
        replay_steps(graph(rec.ruleset), rec)
    return e.value.diagnostics[0]


def test_json_syntax_error_has_line_and_column(tmp_path):
    msg = positions_error('{\n  "ruleset": "online",\n  "events": [}\n', tmp_path)
    assert msg.startswith(f"{tmp_path / 'r.json'}:3:") and "not valid JSON" in msg


def test_missing_fields_and_unknown_keys(tmp_path):
    assert positions_diag('{"events": [{"type": "deal"}]}', tmp_path).code == Code.MISSING_KEY
    (tmp_path / "k.json").write_text('{"ruleset": "online",\n "evnts": []}')
    with pytest.raises(GoujiError) as e:
        load_record(tmp_path / "k.json")
    found = [(d.line, d.col, d.code) for d in e.value.diagnostics]   # every problem at once, by position
    assert found == [(1, 1, Code.MISSING_KEY), (2, 2, Code.UNKNOWN_KEY)]
    d = positions_diag('{"ruleset": "online",\n "events": [\n  {"type": "move", "move": 3}]}', tmp_path)
    assert (d.line, d.col, d.code) == (3, 28, Code.WRONG_TYPE)   # at the 3


def edited(tmp_path, old: str, new: str) -> tuple[str, str]:
    st = online_game()
    rec = GameRecord.from_states([st], seed="rec")
    text = rec.dumps()
    assert old in text
    return text.replace(old, new, 1), text


def test_illegal_move_points_at_the_move(tmp_path):
    st = online_game()
    first = next(e["move"] for e in st.record if e["type"] == "move" and e["move"].split()[1] == "play")
    seat = first.split()[0]
    text, orig = edited(tmp_path, f'"move": "{first}"', f'"move": "{seat} play RRRRRRRR"')
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "RRRRRRRR" in ln)
    col = text.splitlines()[line - 1].index(f"{seat} play RRRRRRRR") + 1
    msg = positions_error(text, tmp_path)
    assert f"r.json:{line}:{col}:" in msg and "is illegal" in msg and "engine.cards" in msg


def test_unknown_card_points_at_the_card(tmp_path):
    st = online_game()
    first = next(e["move"] for e in st.record if e["type"] == "move" and e["move"].split()[1] == "play")
    seat = first.split()[0]
    text, _ = edited(tmp_path, f'"move": "{first}"', f'"move": "{seat} play 9X"')
    line = next(i for i, ln in enumerate(text.splitlines(), 1) if "9X" in ln)
    col = text.splitlines()[line - 1].index("9X") + 2
    msg = positions_error(text, tmp_path)
    assert f":{line}:{col}:" in msg and "'X'" in msg


def test_a_record_under_another_ruleset_is_refused(tmp_path):
    st = online_game()
    rec = GameRecord.from_states([st], seed="rec")
    path = save_record(tmp_path / "g.json", rec)
    with pytest.raises(GoujiError) as e:
        replay_steps(graph("rulebook"), load_record(path))
    msg = e.value.diagnostics[0].short()
    assert "g.json:10:" in msg and "does not deal these hands" in msg  # line of the deal event


def test_parse_record_rejects_other_formats():
    with pytest.raises(GoujiError) as e:
        parse_record(json.dumps({"format": "other", "ruleset": "x", "events": []}), "x.json")
    assert "not a gouji record" in str(e.value)


@pytest.mark.parametrize("at", [0, 1, 40, 120, -1])
def test_scenario_case_of_a_position_passes_gouji_test(tmp_path, at):
    st = online_game()
    steps = replay_steps(graph("online"), GameRecord.from_states([st], seed="rec"))
    state = steps[at].state
    case = scenario_case(state, f"position {at}")
    assert case.startswith(f'  - name: "position {at}"')
    assert "deal:" in case and ("leader:" in case or state.phase != "play")
    if state.over:
        assert "over: true" in case and "scores:" in case
    else:
        assert f"to_act: {state.to_act}" in case and "legal:" in case
    path = tmp_path / "cases.yaml"
    add_case_to_file(path, "online", case)
    results = run_file(path)
    assert [r.errors for r in results] == [[]]


def test_scenario_case_lists_an_illegal_attempt(tmp_path):
    st = online_game()
    steps = replay_steps(graph("online"), GameRecord.from_states([st], seed="rec"))
    state = next(s.state for s in steps if s.state.phase == "play" and s.state.capacity == "follow")
    seat = state.to_act
    case = scenario_case(state, "refused", illegal=[f"{seat} play RRRRRRRRR"])
    assert f"illegal:\n        - {seat} play RRRRRRRRR" in case
    assert check_case(graph("online"), case) == []


def test_add_case_to_file_appends_and_checks_the_ruleset(tmp_path):
    case = scenario_case(online_game(), "end")
    path = tmp_path / "s.yaml"
    add_case_to_file(path, "online", case)
    add_case_to_file(path, "online", case.replace('"end"', '"end again"'))
    assert path.read_text().startswith("ruleset: online\ncases:\n")
    assert [r.name for r in run_file(path)] == ["end", "end again"]
    with pytest.raises(GoujiError) as e:
        add_case_to_file(path, "rulebook", case)
    assert "for ruleset 'online'" in str(e.value)
    other = tmp_path / "o.yaml"
    other.write_text(textwrap.dedent("""\
        cases: []
        ruleset: online
    """))
    add_case_to_file(other, "online", case)   # `cases:` need not be the last key (issue 11)
    assert [r.name for r in run_file(other)] == ["end"]
    assert other.read_text().endswith("ruleset: online\n")


@pytest.mark.parametrize("layout", ["block, keys after, comments", "dash at column 0", "flow list", "null cases"])
def test_add_case_keeps_the_rest_of_the_file(tmp_path, layout):
    """Issue 11: a case is added wherever the `cases:` list is; every other line (comments, keys after
    the list) stays byte for byte (ruamel.yaml's round-trip reader finds the list and its indentation)."""
    case = scenario_case(online_game(), "end")
    first = textwrap.indent(case.replace('"end"', '"first"'), "")
    body = {
        "block, keys after, comments": "# my scenarios\nruleset: online  # the ruleset\ncases:\n  # the first case\n"
                                       + first + "\n# about the seed\ntitle: mine   # kept\n",
        "dash at column 0": "ruleset: online\ncases:\n" + textwrap.dedent(first) + "# trailing comment\n",
        "flow list": "ruleset: online  # keep me\ncases: [{name: first, classify: \"22 JJJ\", expect: {valid: true}}]\n",
        "null cases": "ruleset: online\ncases:   # none yet\ntitle: mine\n",
    }[layout]
    path = tmp_path / "s.yaml"
    path.write_text(body)
    before = path.read_text()
    add_case_to_file(path, "online", case)
    after = path.read_text()
    names = [r.name for r in run_file(path)]
    assert names[-1] == "end" and len(names) == (1 if layout == "null cases" else 2)
    assert all(r.passed for r in run_file(path)), [r.errors for r in run_file(path)]
    kept = [ln for ln in before.splitlines() if ln.lstrip().startswith("#") or "keep" in ln or ln.startswith("title")]
    assert all(ln in after.splitlines() or ln.split("#")[0].rstrip() in after for ln in kept), after
    if layout != "flow list":   # the file's own lines are all still there, in order
        it = iter(after.splitlines())
        assert all(any(ln == x for x in it) for ln in before.splitlines() if not ln.startswith("cases:")), after


def test_a_record_replays_under_the_rules_it_was_played_with(tmp_path):
    """A game test-played on an unsaved buffer (or a file changed since) replays: the record carries
    the ruleset file's own text."""
    from gouji_dsl.engine.records import GameRecord, load_record, record_graph, save_record
    from gouji_dsl.ruleset.graph import compile_ruleset
    from gouji_dsl.ruleset.load.resolving import resolve_text
    from gouji_dsl.tools.simulate import play_game
    path = tmp_path / "house.yaml"
    path.write_text("ruleset: house\nextends: online\nsettings:\n  gouji_minimum: {\"2\": 2}\n", encoding="utf-8")
    buffer = "ruleset: house\nextends: online\nsettings:\n  filler_rank: null\n"   # never saved
    g = compile_ruleset(resolve_text(buffer, str(path)))
    _, st = play_game(g, 9, 0, "heuristic")
    save_record(tmp_path / "game.json", GameRecord.from_states([st], seed=9, ruleset_path=str(path)))
    rec = load_record(tmp_path / "game.json")
    g2 = record_graph(rec)
    assert g2.settings["filler_rank"] is None and g2.settings["gouji_minimum"]["2"] == 1


def test_a_records_ruleset_fields_read_only_allowed_places(tmp_path):
    # issue 11, "Files read": a record's ruleset_path / ruleset name / ruleset_text's extends go
    # through the loader's allowed places (never an absolute path elsewhere, never `..` out)
    from gouji_dsl.diagnostics import Code
    secret = tmp_path / "secret"
    secret.mkdir()
    (secret / "shadow").write_text("root:$6$secret-hash:19000:0:99999:7:::\n", encoding="utf-8")
    (secret / "other.yaml").write_text("ruleset: other\nextends: online\n", encoding="utf-8")
    folder = tmp_path / "records"
    folder.mkdir()
    rec = GameRecord.from_states([online_game()], seed="rec")
    path = save_record(folder / "g.json", rec)
    base = json.loads(path.read_text(encoding="utf-8"))
    for fields, code in (({"ruleset_path": str(secret / "shadow"), "ruleset_text": None}, Code.PATH_NOT_ALLOWED),
                         ({"ruleset_path": "../secret/other.yaml", "ruleset_text": None}, Code.PATH_NOT_ALLOWED),
                         ({"ruleset_path": None, "ruleset_text": None, "ruleset": "../secret/shadow"},
                          Code.PATH_NOT_ALLOWED),
                         ({"ruleset_path": str(secret / "other.yaml"),
                           "ruleset_text": "ruleset: online\nextends: ../secret/shadow\n"}, Code.PATH_NOT_ALLOWED)):
        bad = folder / "bad.json"
        bad.write_text(json.dumps({**base, **fields}), encoding="utf-8")
        with pytest.raises(GoujiError) as info:
            record_graph(load_record(bad))
        assert info.value.diagnostics[0].code == code, (fields, info.value.format())
        assert "secret-hash" not in info.value.format()
