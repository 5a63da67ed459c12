"""Issue 11: the fuzz suite. Mutated rulesets, random expressions, card and move text, mutated
scenario files and records go through the public API and the CLI (click's CliRunner, in-process);
each input loads, or fails with a GoujiError / exit status 1 whose diagnostics carry a code and a
position — never another exception, a traceback or a hang (tests/fuzz_targets.py).

Bounded to about a minute in CI (derandomized: the same inputs every run); ``GOUJI_FUZZ_SCALE=10``
runs ten times as many; ``python benchmarks/fuzz.py --minutes N`` runs the same targets longer and
writes failing inputs to a folder. Below the fuzz targets: every input class of issue 11's "Found"
list as a regression case through the CLI (the library-level cases live beside their modules:
test_loader_limits, test_lang, test_scenarios, test_replay, test_atomic)."""
from __future__ import annotations

import json

import pytest
from fuzz_targets import (
    SCENARIO_BASE,
    TARGETS,
    card_text,
    check_card_text,
    check_expression_ruleset,
    check_move_text,
    check_record_text,
    check_ruleset_text,
    check_run_folder,
    check_save_line,
    check_scenario_text,
    chunk_base,
    cli,
    expression_ruleset,
    fuzz_settings,
    move_text,
    mutated_json,
    mutated_text,
    record_base,
    ruleset_bases,
    run_json_base,
    save_line_base,
)
from hypothesis import given
from hypothesis import strategies as st

from gouji_dsl.diagnostics import Code


# ------------------------------------------------------------------------------ fuzz targets
@fuzz_settings(25)
@given(st.sampled_from(ruleset_bases()).flatmap(mutated_text))
def test_fuzz_mutated_rulesets_through_the_cli(text):
    check_ruleset_text(text, through_cli=True)


@fuzz_settings(30)
@given(expression_ruleset())
def test_fuzz_random_expressions_in_a_rule(text):
    check_expression_ruleset(text)


@fuzz_settings(400)
@given(card_text)
def test_fuzz_card_text(text):
    check_card_text(text)


@fuzz_settings(400)
@given(move_text)
def test_fuzz_move_text(text):
    check_move_text(text)


@fuzz_settings(40)
@given(mutated_text(SCENARIO_BASE))
def test_fuzz_mutated_scenarios(text):
    check_scenario_text(text)


@fuzz_settings(10)
@given(mutated_text(SCENARIO_BASE))
def test_fuzz_mutated_scenarios_through_the_cli(text):
    check_scenario_text(text, through_cli=True)


@fuzz_settings(40)
@given(st.deferred(lambda: mutated_json(record_base())))  # the game is played when the test runs
def test_fuzz_mutated_records(text):
    check_record_text(text)


@fuzz_settings(20)
@given(st.deferred(lambda: mutated_text(record_base())))  # the game is played when the test runs
def test_fuzz_mutated_record_text(text):
    check_record_text(text)


@fuzz_settings(10)
@given(st.deferred(lambda: mutated_json(record_base())))  # the game is played when the test runs
def test_fuzz_mutated_records_through_gouji_replay(text):
    check_record_text(text, through_cli=True, check_events=True)


@fuzz_settings(30)
@given(st.deferred(lambda: mutated_json(run_json_base())))
def test_fuzz_mutated_run_json(text):
    check_run_folder(text)


@fuzz_settings(8)
@given(st.deferred(lambda: mutated_json(run_json_base())))
def test_fuzz_mutated_run_json_through_gouji_report(text):
    check_run_folder(text, through_cli=True)


@fuzz_settings(30)
@given(st.deferred(lambda: mutated_json(chunk_base())))
def test_fuzz_mutated_chunk_files(text):
    check_run_folder(text, name="chunk")


@fuzz_settings(8)
@given(st.deferred(lambda: mutated_json(chunk_base())))
def test_fuzz_mutated_chunk_files_through_gouji_report(text):
    check_run_folder(text, name="chunk", through_cli=True)


@fuzz_settings(60)
@given(st.deferred(lambda: mutated_json(save_line_base())))
def test_fuzz_mutated_duel_save_lines(text):
    check_save_line(text)


@fuzz_settings(8)
@given(st.deferred(lambda: mutated_json(save_line_base())))
def test_fuzz_mutated_duel_save_lines_through_gouji_duel(text):
    check_save_line(text, through_cli=True)


def test_every_target_is_in_the_suite():
    # benchmarks/fuzz.py runs TARGETS; the suite above runs each of them
    assert set(TARGETS) == {"ruleset", "ruleset-cli", "expression", "cards", "move", "scenario", "scenario-cli",
                            "record", "record-text", "record-cli", "run-json", "run-json-cli", "chunk", "chunk-cli",
                            "save-line", "save-line-cli"}


# ------------------------------------------------------------------------------ issue 11 "Found", via the CLI
def write(tmp_path, name: str, text: str | bytes) -> str:
    p = tmp_path / name
    if isinstance(text, bytes):
        p.write_bytes(text)
    else:
        p.write_text(text, encoding="utf-8")
    return str(p)


RULESETS = {
    # Loader
    "4,301-digit seats": ("ruleset: big\nextends: online\nsettings:\n  seats: 1" + "0" * 4300 + "\n", Code.NUMBER_TOO_LARGE),
    "4,301-digit integer in an expression": (
        "ruleset: big\nextends: online\nrules:\n  - id: x.big\n    on: follow\n    deny: \"play.count > 1"
        + "0" * 4300 + "\"\n", Code.INTEGER_TOO_LARGE),
    "!!timestamp file": ("!!timestamp", Code.YAML_TAG),
    "YAML nested 500 deep": ("ruleset: deep\nsettings:\n  x: " + "[" * 500 + "]" * 500 + "\n", Code.TOO_DEEP),
    "not x1000": ("ruleset: n\nextends: online\nrules:\n  - id: x.n\n    on: follow\n    deny: \""
                  + "not " * 1000 + "true\"\n", Code.EXPRESSION_TOO_DEEP),
    "unary minus x1000": ("ruleset: n\nextends: online\nrules:\n  - id: x.n\n    on: follow\n    deny: \"play.count > "
                          + "- " * 1000 + "1\"\n", Code.EXPRESSION_TOO_DEEP),
    "flat or of 400 terms": ("ruleset: n\nextends: online\nrules:\n  - id: x.n\n    on: follow\n    deny: \""
                             + " or ".join(["true"] * 400) + "\"\n", None),
    "extends of 300 characters": ("ruleset: e\nextends: " + "a" * 300 + "\n", Code.EXTENDS_NOT_FOUND),
    "377-byte alias bomb": ("ruleset: bomb\na: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
                            "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
                            "e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d]\nf: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e]\n",
                            Code.YAML_ALIAS),
    "seats: 1_000_000": ("ruleset: s\nextends: online\nsettings:\n  seats: 1_000_000\n", Code.OUT_OF_RANGE),
    # Files read that should not be
    "extends an absolute path": ("ruleset: e\nextends: /etc/passwd\n", Code.PATH_NOT_ALLOWED),
    "extends ../ out of the folder": ("ruleset: e\nextends: ../../../../etc/shadow\n", Code.PATH_NOT_ALLOWED),
    # Rules that validate and then crash a game: now refused by the checker
    "give: 'Z'": ("ruleset: g\nextends: online\nrules:\n  - id: x.give\n    on: seat_setup\n    give: \"'Z'\"\n"
                  "    target: \"opposite(seat)\"\n", Code.NOT_A_CARD),
    "on: gouji reading a game global": ("ruleset: g\nextends: online\nrules:\n  - id: x.g\n    on: gouji\n"
                                        "    value: \"count(active_seats) > 3\"\n", Code.NAME_NOT_AVAILABLE),
}


@pytest.mark.parametrize("name", list(RULESETS))
def test_found_ruleset_inputs_through_gouji_validate(name, tmp_path):
    text, code = RULESETS[name]
    path = write(tmp_path, "r.yaml", text)
    res = cli(["validate", "--format", "json", path])
    (f,) = json.loads(res.stdout)["files"]
    if code is None:   # valid: it must simply load (no RecursionError)
        assert res.exit_code == 0 and f["ok"], f
        return
    assert res.exit_code == 1
    codes = [d["code"] for d in f["diagnostics"]]
    assert code in codes, (name, f["diagnostics"])
    d = f["diagnostics"][codes.index(code)]
    assert d["position"]["line"] >= 1 or code in (Code.PATH_NOT_ALLOWED, Code.EXTENDS_NOT_FOUND)
    assert "root:" not in res.output   # nothing of a refused file is shown
    res = cli(["validate", path])
    assert res.exit_code == 1 and path in res.stderr


@pytest.mark.parametrize("rule, fragment", [
    ("on: burn_order\n    order: \"[9, 1]\"", "9 is not a seat"),
    ("on: first_leader\n    value: \"7 + 2\"", "not a seat"),
    ("on: after_play\n    count: plays\n    amount: \"place(seat)\"", "amount is none"),
    ("on: follow\n    deny: \"holds(burner, '3') > 99 or min(burner, 3) == 7\"", None),   # functions total over none
])
def test_found_rules_that_fail_while_a_game_runs_through_gouji_simulate(rule, fragment, tmp_path):
    path = write(tmp_path, "r.yaml", "ruleset: child\nextends: online\nrules:\n  - id: x.broken\n    " + rule + "\n")
    res = cli(["simulate", path, "--games", "2", "--seed", "1", "--bots", "random"])
    if fragment is None:
        assert res.exit_code == 0, res.stderr
        return
    assert res.exit_code == 1
    assert "x.broken" in res.stderr and f"{path}:4" in res.stderr and fragment in res.stderr
    assert "in game 1:0, decision " in res.stderr   # which game and decision (issue 11), on either engine
    res_i = cli(["simulate", path, "--games", "2", "--seed", "1", "--bots", "random", "--engine", "interpreter"])
    assert res_i.stderr == res.stderr


DEAL6 = '{1: "55", 2: "66", 3: "77", 4: "88", 5: "99", 6: "TT"}'
SCENARIOS = {
    "moves: 5": (f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    moves: 5\n", "ScenarioValue"),
    "seed: [1]": (f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    seed: [1]\n", "ScenarioValue"),
    "a seat written ²": (f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    leader: 1\n    moves: [² play 55]\n",
                         "BadSeat"),
    "a 300-character ruleset": ("ruleset: " + "x" * 300 + "\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n",
                                "ScenarioRuleset"),
    "ruleset outside the folder": ("ruleset: /etc/passwd\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n",
                                   "ScenarioRuleset"),
    "non-UTF-8": (b"ruleset: online\ncases:\n  - name: \xff\xfe\n    classify: KK\n", "ScenarioFile"),
    "unknown case key": ("ruleset: online\ncases:\n  - name: a\n    clasify: KK\n    expect: {gouji: true}\n", "ScenarioKey"),
    "unknown move 'plya'": (f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    leader: 1\n    moves: [1 plya 55]\n",
                            "UnknownMove"),
    "unknown card 'j'": ("ruleset: online\ncases:\n  - name: a\n    classify: jj\n    expect: {gouji: true}\n", "UnknownCard"),
}


@pytest.mark.parametrize("name", list(SCENARIOS))
def test_found_scenario_inputs_through_gouji_test(name, tmp_path):
    text, code = SCENARIOS[name]
    path = write(tmp_path, "s.yaml", text)
    res = cli(["test", "--json", path])
    assert res.exit_code == 1
    out = json.loads(res.stdout)
    codes = [c for case in out["cases"] for c in case.get("codes", [])]
    assert code in codes, out
    res = cli(["test", path])
    assert f"{path}:" in res.stdout + res.stderr
    if name in ("unknown case key", "unknown move 'plya'"):
        assert "did you mean" in res.stdout + res.stderr   # a list or a suggestion
    if name == "unknown card 'j'":
        assert "upper case" in res.stdout + res.stderr


def test_found_record_inputs_through_gouji_replay_are_in_test_replay():
    # every "Records" class of issue 11 runs through `gouji replay` there (and `gouji play --record`)
    import test_replay
    assert {"deep JSON", "5,000-digit number", "bots key ²", "hands key x", "hands key 99", "hands key -1",
            "seed [1]", "forced leader 1.5", "forced leader 7", "game_number x", "scores null", "not JSON",
            "wrong top-level type", "ruleset outside the allowed places"} <= set(test_replay.MALFORMED)
