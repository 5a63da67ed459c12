"""The project's scenario suites (tests/scenarios/*.yaml) and the scenario runner itself."""
from pathlib import Path

import pytest

from gouji_dsl.tools.scenarios import format_results, run_file, run_files

SCEN = Path(__file__).parent / "scenarios"
FILES = sorted(SCEN.glob("*.yaml"))


def _cases():
    for f in FILES:
        for r in run_file(f):
            yield pytest.param(r, id=f"{f.stem}:{r.line}:{r.name[:40]}")


@pytest.mark.parametrize("result", list(_cases()))
def test_scenario_case(result):
    assert result.passed, "\n".join(result.errors)


def test_online_suite_is_substantial():
    results = run_file(SCEN / "online.yaml")
    assert len(results) >= 50


def _write(tmp_path, text):
    p = tmp_path / "s.yaml"
    p.write_text(text, encoding="utf-8")
    return p


def test_unknown_expect_key_is_an_error_with_position(tmp_path):
    p = _write(tmp_path, "ruleset: online\ncases:\n  - name: x\n    classify: KK\n    expect: {gouji: true, goji: true}\n")
    (r,) = run_files([p])
    assert not r.passed
    assert f"{p}:5:" in r.errors[0] and "unknown expect key 'goji'" in r.errors[0]


def test_wrong_expectation_fails_and_names_values(tmp_path):
    p = _write(tmp_path, "ruleset: online\ncases:\n  - name: ace\n    classify: A\n    expect: {gouji: true}\n")
    (r,) = run_files([p])
    assert not r.passed and "expected true, got false" in r.errors[0]


def test_illegal_move_expected_legal_fails_with_rule_id(tmp_path):
    p = _write(tmp_path, """ruleset: online
cases:
  - name: not your turn
    deal: {1: "55", 2: "66", 3: "7", 4: "8", 5: "9", 6: "T"}
    leader: 1
    moves: [3 play 7]
""")
    (r,) = run_files([p])
    assert not r.passed
    assert ":6:" in r.errors[0] and "engine.turn" in r.errors[0]


def test_bad_card_text_names_the_column(tmp_path):
    p = _write(tmp_path, "ruleset: online\ncases:\n  - name: bad\n    classify: \"KX\"\n    expect: {valid: true}\n")
    (r,) = run_files([p])
    assert not r.passed and "'X'" in r.errors[0] and ":4:" in r.errors[0]


def test_unreadable_file_is_a_failure(tmp_path):
    (r,) = run_files([tmp_path / "missing.yaml"])
    assert not r.passed and "cannot read" in r.errors[0]


def test_closing_line():
    out = format_results(run_file(SCEN / "online.yaml")[:3])
    assert out.splitlines()[-1] == "3 passed, 0 failed"


DEAL6 = '{1: "55", 2: "66", 3: "7", 4: "8", 5: "9", 6: "T"}'


@pytest.mark.parametrize("leader", ["9", "one", "0"])
def test_bad_leader_is_an_error(tmp_path, leader):
    p = _write(tmp_path, f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    leader: {leader}\n")
    (r,) = run_files([p])
    assert not r.passed and ":5:13: leader must be a seat 1..6" in r.errors[0]


def test_deal_must_give_every_seat_and_fit_the_pack(tmp_path):
    p = _write(tmp_path, 'ruleset: online\ncases:\n  - name: a\n    deal: {1: "55 6", 2: "66"}\n'
                         '  - name: b\n    deal: {1: "RRRRR", 2: "6", 3: "7", 4: "8", 5: "9", 6: "T"}\n')
    a, b = run_files([p])
    assert "missing seat(s) 3, 4, 5, 6" in a.errors[0]
    assert "5 cards 'R' dealt, but the online pack has only 4" in b.errors[0]


def test_expect_values_of_the_wrong_kind(tmp_path):
    p = _write(tmp_path, f"ruleset: online\ncases:\n  - name: a\n    deal: {DEAL6}\n    expect: {{to_act: 9}}\n"
                         "  - name: b\n    classify: KK\n    expect: {gouji: maybe}\n"
                         "  - name: c\n    classify: KK\n")
    a, b, c = run_files([p])
    assert "to_act: expected a seat 1..6, got 9" in a.errors[0]
    assert "gouji: expected true or false, got 'maybe'" in b.errors[0]
    assert "needs an 'expect'" in c.errors[0]


def test_unknown_ruleset_is_reported_at_its_line(tmp_path):
    p = _write(tmp_path, "ruleset: nosuch\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n")
    (r,) = run_files([p])
    assert f"{p}:1:10: ruleset 'nosuch' does not load" in r.errors[0]


def test_setup_answers_may_be_written_out(tmp_path):
    p = _write(tmp_path, """ruleset: rulebook
cases:
  - name: every setup answer written out, then play
    deal: {1: "2 5", 2: "2 6", 3: "2 7", 4: "2 8", 5: "2 9", 6: "7 8"}
    leader: 1
    moves: [6 pass, 1 pass, 2 pass, 3 pass, 4 pass, 5 pass, 6 pass, 1 play 5]
    expect: {to_act: 2}
""")
    (r,) = run_files([p])
    assert r.passed, r.errors


def test_first_lead_ties_do_not_depend_on_the_written_order(tmp_path):
    body = "ruleset: online\ncases:\n"
    for i, one in enumerate(["3c3c 55 4", "55 4 3c3c"]):
        body += (f"  - name: order {i}\n    deal: {{1: \"{one}\", 2: \"6\", 3: \"7\", 4: \"3h3h 8\", 5: \"9\", 6: \"T\"}}\n"
                 "    expect: {to_act: 1}\n")
    p = _write(tmp_path, body)
    assert all(r.passed for r in run_files([p]))
