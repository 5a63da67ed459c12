"""The project's scenario suites (tests/scenarios/*.yaml) and the scenario runner itself."""
from pathlib import Path

import pytest

from gouji_dsl.scenarios import format_results, run_file, run_files

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
    assert not r.passed and "expected True, got False" in r.errors[0]


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
