"""The project's scenario suites (tests/scenarios/*.yaml) and the scenario runner itself."""
import functools
import os
from pathlib import Path

import pytest
import yaml

from gouji_dsl.tools.scenarios import format_results, run_file, run_files

SCEN = Path(__file__).parent / "scenarios"
VARIANT_SCENARIOS = Path(__file__).parent.parent / "examples" / "variants" / "scenarios.yml"
FILES = sorted(SCEN.glob("*.yaml")) + [VARIANT_SCENARIOS]


def _case_heads(f: Path) -> list[tuple[int, str]]:
    """(line, name) of each case of a scenario file, read from its YAML node tree only (yaml.compose, with libyaml
    where built: no value built, no ruleset compiled, nothing run), so that collecting the suite stays cheap
    (issue 25). A file whose structure cannot be read gives one item, the file itself, which then fails with the
    runner's message."""
    try:
        root = yaml.compose(f.read_text(encoding="utf-8"), Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return [(0, "<file>")]
    cases = None
    if isinstance(root, yaml.MappingNode):
        cases = next((v for k, v in root.value if isinstance(k, yaml.ScalarNode) and k.value == "cases"), None)
    if not isinstance(cases, yaml.SequenceNode):
        return [(0, "<file>")]
    heads = []
    for i, node in enumerate(cases.value):
        name = f"case {i + 1}"
        if isinstance(node, yaml.MappingNode):
            name = next((v.value for k, v in node.value if isinstance(k, yaml.ScalarNode) and k.value == "name"
                         and isinstance(v, yaml.ScalarNode)), name)
        heads.append((node.start_mark.line + 1, name))
    return heads


def _cases():
    for f in FILES:
        heads = _case_heads(f)
        for i, (line, name) in enumerate(heads):
            yield pytest.param(f, i, line, len(heads), id=f"{f.stem}:{line}:{name[:40]}")


@functools.cache
def _results(f: Path):
    """The file's cases run once (by the first of its items to run), shared by its other items."""
    return run_file(f)


@pytest.mark.parametrize(("path", "index", "line", "count"), list(_cases()))
def test_scenario_case(path, index, line, count):
    results = _results(path)
    failed_file = [e for r in results if r.name == "<file>" for e in r.errors]
    assert not failed_file, "\n".join(failed_file)  # the file as a whole does not read: the runner's message
    assert len(results) == count, f"{path}: the runner ran {len(results)} cases, collection found {count}"
    result = results[index]
    assert result.line == line, f"case {index + 1} of {path}: collected at line {line}, run at line {result.line}"
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


@pytest.mark.parametrize("kind", ["/dev/zero", "a FIFO", "a folder"])
def test_a_scenario_path_that_is_not_a_regular_file_is_a_failure_not_a_wait(kind, tmp_path):
    # /dev/zero was read to the end of memory (5 GB in 8 s); a FIFO without a writer waited forever
    if kind == "/dev/zero":
        p = Path("/dev/zero")
        if not p.exists():
            pytest.skip("no /dev/zero here")
    elif kind == "a FIFO":
        if not hasattr(os, "mkfifo"):
            pytest.skip("no named pipes here")
        p = tmp_path / "cases.yaml"
        os.mkfifo(p)
    else:
        p = tmp_path / "cases.yaml"
        p.mkdir()
    (r,) = run_files([p])
    assert not r.passed and "cannot read" in r.errors[0], r.errors
    assert "a folder" in r.errors[0] if kind == "a folder" else "not a regular file" in r.errors[0]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_a_scenarios_ruleset_that_is_a_fifo_is_refused_not_waited_for(tmp_path):
    os.mkfifo(tmp_path / "house.yaml")
    p = _write(tmp_path, "ruleset: house.yaml\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n")
    (r,) = run_files([p])
    assert not r.passed and "does not load" in r.errors[0], r.errors


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


# ------------------------------------------------------------------ issue 11: the runner never raises
def _one(tmp_path, text: str, name: str = "s.yaml"):
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    (r,) = run_files([p])
    return p, r


def test_moves_that_are_not_a_list(tmp_path):
    p, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    moves: 5\n")
    assert not r.passed and r.codes == ["ScenarioValue"]
    assert f"{p}:5:12: moves must be a list of move lines" in r.errors[0]


def test_seed_of_the_wrong_kind(tmp_path):
    p, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    seed: [1]\n")
    assert r.codes == ["ScenarioValue"] and f"{p}:5:11: seed must be a whole number or text" in r.errors[0]


@pytest.mark.parametrize("where", ["move", "deal"])
def test_a_seat_written_with_a_superscript_two(tmp_path, where):
    if where == "move":
        text = f"ruleset: online\ncases:\n  - name: x\n    deal: {DEAL6}\n    leader: 1\n    moves: [² play 55]\n"
    else:
        text = 'ruleset: online\ncases:\n  - name: x\n    deal: {²: "55", 2: "66", 3: "7", 4: "8", 5: "9", 6: "T"}\n'
    _, r = _one(tmp_path, text)
    assert r.codes == ["BadSeat"] and "digits" in r.errors[0]


def test_a_300_character_ruleset(tmp_path):
    _, r = _one(tmp_path, "ruleset: " + "x" * 300 + "\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n")
    assert r.codes == ["ScenarioRuleset"] and ":1:10:" in r.errors[0]


def test_a_ruleset_outside_the_scenario_folder_is_refused(tmp_path):
    (tmp_path / "rules.yaml").write_text("ruleset: r\nextends: online\n", encoding="utf-8")
    sub = tmp_path / "sub"
    sub.mkdir()
    _, r = _one(sub, "ruleset: ../rules.yaml\ncases:\n  - name: a\n    classify: KK\n    expect: {gouji: true}\n")
    assert r.codes == ["ScenarioRuleset"] and "leaves the folders" in r.errors[0]


def test_a_file_that_is_not_utf8(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_bytes(b"ruleset: online\ncases:\n  - name: caf\xe9\n")
    (r,) = run_files([p])
    assert r.codes == ["ScenarioFile"] and f"{p}:3:14: not UTF-8 text" in r.errors[0]


def test_unknown_case_key_lists_the_keys_and_guesses(tmp_path):
    _, r = _one(tmp_path, "ruleset: online\ncases:\n  - name: a\n    clasify: KK\n    expect: {gouji: true}\n")
    assert r.codes == ["ScenarioKey"]
    assert "unknown case key 'clasify'" in r.errors[0] and "did you mean 'classify'?" in r.errors[0]
    assert "name, ruleset, classify, compare, pack, deal" in r.errors[0]


def test_unknown_move_lists_the_verbs_and_guesses(tmp_path):
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: a\n    deal: {DEAL6}\n    moves: [1 plya 55]\n")
    assert r.codes == ["UnknownMove"]
    assert "unknown move 'plya'" in r.errors[0] and "did you mean 'play'?" in r.errors[0]
    assert "play, pass, yield, burn" in r.errors[0]


def test_unknown_card_says_ranks_are_upper_case_and_ten_is_T(tmp_path):
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: a\n    deal: {DEAL6}\n    moves: [1 play jj]\n")
    assert r.codes == ["UnknownCard"]
    assert "unknown card 'j'" in r.errors[0] and "upper case" in r.errors[0] and "T" in r.errors[0]


def test_gouji_test_gives_no_traceback_for_any_of_them(tmp_path):
    from click.testing import CliRunner

    from gouji_dsl.tools.cli import cli
    files = []
    for i, body in enumerate([f"  - name: x\n    deal: {DEAL6}\n    moves: 5\n", "  - name: x\n    seed: [1]\n    classify: K\n",
                              "  - name: x\n    plya: 1\n"]):
        p = tmp_path / f"f{i}.yaml"
        p.write_text("ruleset: online\ncases:\n" + body, encoding="utf-8")
        files.append(str(p))
    bad = tmp_path / "latin1.yaml"
    bad.write_bytes(b"ruleset: online\ncases: [\xff]\n")
    res = CliRunner().invoke(cli, ["test", *files, str(bad)])
    assert res.exit_code == 1 and "Traceback" not in res.output and res.exception is None or isinstance(res.exception, SystemExit)
    assert res.output.strip().splitlines()[-1] == "0 passed, 4 failed"


# ------------------------------------------------------------------ issue 10: scenarios that can say more
def test_classify_unknown_character_is_not_valid(tmp_path):
    p = tmp_path / "s.yaml"
    p.write_text('ruleset: online\ncases:\n  - name: ok\n    classify: "KX"\n    expect: {valid: false}\n'
                 '  - name: wrong\n    classify: "KX"\n    expect: {valid: true, gouji: true}\n', encoding="utf-8")
    ok, wrong = run_files([p])
    assert ok.passed
    assert not wrong.passed and all(c == "UnknownCard" for c in wrong.codes)
    assert f"{p}:7:17: valid: expected true" in wrong.errors[0] and "'X' at column 17" in wrong.errors[0]


def test_pack_cases(tmp_path):
    _, r = _one(tmp_path, 'ruleset: rulebook\ncases:\n  - name: p\n    pack: {}\n'
                          '    expect: {cards: 196, ranks: {"3": 6, "4": 6, R: 4, T: 16}, hand_sizes: {1: 33, 4: 33, 5: 32, 6: 32}}\n')
    assert r.passed, r.errors
    _, r = _one(tmp_path, 'ruleset: online\ncases:\n  - name: p\n    pack: {seed: 3}\n    expect: {cards: 215, hand_sizes: {1: 35}}\n')
    assert not r.passed and len(r.errors) == 2 and r.codes == ["ScenarioFailed"] * 2
    _, r = _one(tmp_path, 'ruleset: online\ncases:\n  - name: p\n    pack: {seed: 3}\n    expect: {ranks: {X: 1}}\n')
    assert r.codes == ["ScenarioValue"] and "has no card 'X'" in r.errors[0]


def test_voided_counts_shown_and_explained_by(tmp_path):
    p = tmp_path / "v.yaml"
    p.write_text("""ruleset: online
cases:
  - name: two revolutions void the deal
    deal: {1: "5", 2: "6", 3: "2 8", 4: "2 9", 5: "2 T", 6: "2 J"}
    moves: [1 revolt, 2 revolt]
    expect: {voided: true, over: true}
  - name: counts and explanations
    deal: {1: "KK 3 4", 2: "AA 5", 3: "AA 6", 4: "22 7", 5: "AA 8", 6: "AA 9"}
    leader: 1
    moves: [1 play KK]
    expect:
      counts_shown: {1: true, 2: true}
      voided: false
      explained_by:
        "2 play AA": [gouji.minimum, settings.gouji_minimum, gouji.opposite-only]
        "3 burn AA": [burn.priority, burn.who]
""", encoding="utf-8")
    for r in run_files([p]):
        assert r.passed, r.errors
    _, r = _one(tmp_path, """ruleset: online
cases:
  - name: a rule not cited
    deal: {1: "KK 3 4", 2: "AA 5", 3: "AA 6", 4: "22 7", 5: "AA 8", 6: "AA 9"}
    leader: 1
    moves: [1 play KK]
    expect: {explained_by: {"3 burn AA": [burn.priorty]}}
""")
    assert not r.passed and "does not cite burn.priorty" in r.errors[0] and "did you mean 'burn.priority'?" in r.errors[0]


def test_counts_hidden_above_ten_cards(tmp_path):
    hand = "AAAA KKKK QQQQ"
    _, r = _one(tmp_path, f'ruleset: online\ncases:\n  - name: c\n    deal: {{1: "{hand}", 2: "5", 3: "6", 4: "7", 5: "8", 6: "9"}}\n'
                          '    leader: 1\n    expect: {counts_shown: {1: false, 2: true}}\n')
    assert r.passed, r.errors


def test_next_moves_are_matched_by_seat(tmp_path):
    first = ("    deal: {1: \"K\", 2: \"Q\", 3: \"J\", 4: \"T\", 5: \"9\", 6: \"8\"}\n    leader: 1\n"
             "    moves: [1 play K, 2 pass, 3 pass, 4 pass, 5 pass, 6 pass, 2 play Q, 3 pass, 4 pass, 5 pass, 6 pass,\n"
             "            3 play J, 4 pass, 5 pass, 6 pass, 4 play T, 5 pass, 6 pass, 5 play 9]\n"
             "    next_deal: {1: \"R 5\", 2: \"B 6\", 3: \"2 7\", 4: \"R 8\", 5: \"2 9\", 6: \"B T\"}\n")
    out = []
    for order in ("[2 return 6, 1 return 5]", "[1 return 5, 2 return 6]"):
        _, r = _one(tmp_path, f"ruleset: qingdao\ncases:\n  - name: n\n{first}    next_moves: {order}\n"
                              "    expect: {hands: {1: \"R T\", 2: \"2 9\", 5: \"B 6\", 6: \"2 5\"}}\n")
        out.append((r.passed, r.errors))
    assert out == [(True, []), (True, [])]


def test_the_examples_of_docs_scenarios_pass(tmp_path):
    """Every complete example of docs/scenarios.md (a file, or cases) runs and passes."""
    import re
    doc = (Path(__file__).parent.parent / "docs" / "scenarios.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```yaml\n(.*?)```", doc, re.S)
    files = []
    for i, b in enumerate(blocks):
        if b.startswith("ruleset:"):
            text = b
        elif b.startswith("  - name:"):
            text = "ruleset: online\ncases:\n" + b
        else:
            continue
        p = tmp_path / f"doc{i}.yaml"
        p.write_text(text, encoding="utf-8")
        files.append(p)
    assert len(files) >= 6
    results = run_files(files)
    assert results and all(r.passed for r in results), [e for r in results for e in r.errors]


@pytest.mark.parametrize("tagged", ["!!timestamp expect: {valid: true}", "expect: !!int x", "expect: !!float abc"])
def test_an_explicit_tag_that_does_not_fit_is_a_positioned_yaml_error(tmp_path, tagged):
    """Found by benchmarks/fuzz.py (issue 11): PyYAML's own constructors raised AttributeError /
    ValueError out of run_file."""
    p = _write(tmp_path, f"ruleset: online\ncases:\n  - name: tagged\n    classify: \"KK\"\n    {tagged}\n")
    (r,) = run_files([p])
    assert not r.passed and ":5:" in r.errors[0] and "YAML error" in r.errors[0]


# ---------------------------------------------------------------- issue 23 items 14 and 17
def test_a_voided_deal_names_the_rule_that_voided_it(tmp_path):
    p = _write(tmp_path, """ruleset: online
cases:
  - name: a move after two revolutions
    deal: {1: "5", 2: "6", 3: "7", 4: "8", 5: "9", 6: "T"}
    moves: [1 revolt, 2 revolt, 3 play 7]
  - name: the game after two revolutions
    deal: {1: "5", 2: "6", 3: "7", 4: "8", 5: "9", 6: "T"}
    moves: [1 revolt, 2 revolt, 3 pass, 4 pass, 5 pass, 6 pass]
    expect: {to_act: 3, over: false, voided: false, legal: ["3 play 7"]}
""")
    from gouji_dsl.resources import rules_dir
    line = next(i for i, ln in enumerate((rules_dir() / "base.yaml").read_text(encoding="utf-8").splitlines(), 1)
                if "id: revolution.void-deal" in ln)
    a, b = run_files([p])
    assert not a.passed and len(a.errors) == 1
    assert "the deal was voided by rule revolution.void-deal (" in a.errors[0] and f"base.yaml:{line}): " in a.errors[0]
    assert "The game is over." not in a.errors[0]
    assert not b.passed and len(b.errors) == 4
    assert all("the deal was voided by rule revolution.void-deal" in e for e in b.errors), b.errors


def test_sees_sees_count_and_match_games_fail_with_what_the_seat_sees(tmp_path):
    p = _write(tmp_path, """ruleset: qingdao
cases:
  - name: wrong
    deal: {1: "55 7", 2: "33 4", 3: "KK 9", 4: "44 8", 5: "66 T", 6: "99 J"}
    expect: {sees: {2: {1: "55 7"}, 3: {1: null}}, sees_count: {2: {1: 4}}, match_games: 1}
""")
    (r,) = run_files([p])
    assert not r.passed and len(r.errors) == 4 and all(c == "ScenarioFailed" for c in r.codes)
    assert "sees[2][1]: expected 7 55, got nothing: seat 2 does not see seat 1's hand" in r.errors[0]
    assert "sees[3][1]: expected nothing (null), got 7 55" in r.errors[1]
    assert "sees_count[2][1]: expected 4, got 3" in r.errors[2]
    assert "match_games: expected 1, the qingdao match has 5 games" in r.errors[3]


def test_deal_valid_checks_the_deal_against_the_pack(tmp_path):
    p = _write(tmp_path, """ruleset: online
cases:
  - name: five big jokers fit no four-deck pack
    deal: {1: "RRRRR", 2: "", 3: "", 4: "", 5: "", 6: ""}
    expect: {deal_valid: false}
  - name: four fit
    deal: {1: "RRRR", 2: "", 3: "", 4: "", 5: "", 6: ""}
    expect: {deal_valid: false}
  - name: a deal_valid case has no moves
    deal: {1: "RRRR", 2: "", 3: "", 4: "", 5: "", 6: ""}
    moves: [1 play R]
    expect: {deal_valid: true}
""")
    a, b, c = run_files([p])
    assert a.passed, a.errors
    assert not b.passed and "deal_valid: expected false, got true" in b.errors[0]
    assert not c.passed and c.codes == ["ScenarioKey"] and "'moves' does not go with deal_valid" in c.errors[0]


@pytest.mark.parametrize("expect", ["{sees: 5}", '{sees: {2: {2: "5"}}}', "{sees: {9: {1: null}}}",
                                    "{sees_count: {2: {1: -1}}}", "{sees_count: {2: 3}}", "{match_games: x}",
                                    "{deal_valid: 1}"])
def test_the_new_keys_refuse_values_of_the_wrong_kind(tmp_path, expect):
    p = _write(tmp_path, f"""ruleset: online
cases:
  - name: bad
    deal: {{1: "5", 2: "6", 3: "7", 4: "8", 5: "9", 6: "T"}}
    expect: {expect}
""")
    (r,) = run_files([p])
    assert not r.passed and r.codes == ["ScenarioValue"], r.errors
    assert f"{p}:5:" in r.errors[0]


# ---------------------------------------------------------------- redeal_deals: the deals after a voided deal
REVOLT = ('    deal: {1: "5", 2: "2 6", 3: "2 7", 4: "2 8", 5: "2 9", 6: "2 T"}\n')
AGAIN = '{1: "2 5", 2: "2 6", 3: "2 7", 4: "2 8", 5: "2 9", 6: "2 T"}'


def test_redeal_deals_deal_a_voided_fixed_deal_again(tmp_path):
    # seed 001 游戏开始: 第一局出现革命的情况重新开牌 (online: a revolution in the first game voids the deal)
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n{REVOLT}    redeal_deals: [{AGAIN}]\n"
                          "    leader: 1\n    moves: [1 revolt]\n"
                          "    expect: {voided: false, to_act: 1, hands: {1: \"2 5\"}, legal: [\"1 play 5\"]}\n")
    assert r.passed, r.errors
    # without it the game ends voided, as before
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n{REVOLT}    moves: [1 revolt]\n"
                          "    expect: {voided: true}\n")
    assert r.passed, r.errors


def test_redeal_deals_never_dealt_or_not_fitting_fail_at_their_line(tmp_path):
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n{REVOLT}    redeal_deals: [{AGAIN}]\n"
                          "    leader: 1\n    moves: [1 pass]\n")
    assert not r.passed and ":5:" in r.errors[0] and "1 of the 1 deal(s) never dealt" in r.errors[0]
    assert r.codes[0] == "ScenarioFailed"
    too_many = '{1: "RRRRR", 2: "6", 3: "7", 4: "8", 5: "9", 6: "T"}'
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n{REVOLT}    redeal_deals:\n      - {AGAIN}\n"
                          f"      - {too_many}\n    moves: [1 revolt]\n")
    assert not r.passed and ":7:" in r.errors[0] and "pack has only 4" in r.errors[0], r.errors
    assert r.codes[0] == "ScenarioValue"
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n{REVOLT}    redeal_deals: {AGAIN}\n")
    assert not r.passed and "redeal_deals must be a list of deals" in r.errors[0]
    _, r = _one(tmp_path, f"ruleset: online\ncases:\n  - name: r\n    classify: KK\n    redeal_deals: [{AGAIN}]\n"
                          "    expect: {valid: true}\n")
    assert not r.passed and "belongs to a game case" in r.errors[0]


ASK_IN_MATCH = """ruleset: ask-match
extends: online
settings:
  choices: {redeal: {asked: deal}}
  tribute: {order: [fall], fall: {"6": 1, "5": 1}, return_fall: true}
  match_games: 2
rules:
  - {id: redeal.ask, on: offer, when: "choice == 'redeal'", allow: "true", says: "Anyone may ask for a redeal."}
  - {id: redeal.asked, on: answered, when: "answer == 'redeal'", mark: asked_redeal, says: "He asked."}
  - {id: redeal.void, on: redeal_before_tribute, value: "count(flagged(all_seats, 'asked_redeal')) > 0",
     says: "A request voids the deal before tribute."}
"""
# the first game of docs/scenarios.md's fall-tribute case: 1 .. 6 finish in seat order
MATCH_GAME_1 = """    deal: {1: "K", 2: "Q", 3: "J", 4: "T", 5: "9", 6: "8"}
    leader: 1
    moves: [1 play K, 2 pass, 3 pass, 4 pass, 5 pass, 6 pass, 2 play Q, 3 pass, 4 pass, 5 pass, 6 pass,
            3 play J, 4 pass, 5 pass, 6 pass, 4 play T, 5 pass, 6 pass, 5 play 9]
    next_deal: {1: "R 5", 2: "B 6", 3: "2 7", 4: "R 8", 5: "2 9", 6: "B T"}
"""


def test_next_moves_decline_a_rulesets_choice_for_a_seat_whose_line_is_a_return(tmp_path):
    # issue 23: a seat whose next line is `1 return 5` is not made to answer the ruleset's own choice with it
    (tmp_path / "ask-match.yaml").write_text(ASK_IN_MATCH, encoding="utf-8")
    _, r = _one(tmp_path, "ruleset: ask-match\ncases:\n  - name: r\n" + MATCH_GAME_1
                + "    next_moves: [1 return 5, 2 return 6]\n"
                  "    expect: {transfers: ['5 gives 2: 2', '6 gives 1: B', '2 gives 5: 6', '1 gives 6: 5']}\n")
    assert r.passed, r.errors


def test_redeal_deals_follow_a_void_of_the_next_game_too(tmp_path):
    # issue 23: "may ask for a redeal, once per game" in game 2 of a match: the request voids the deal
    # before tribute (no card of the voided deal is handed over), the next of redeal_deals is dealt
    (tmp_path / "ask-match.yaml").write_text(ASK_IN_MATCH, encoding="utf-8")
    again = '{1: "R 6", 2: "B 7", 3: "2 8", 4: "R 9", 5: "2 T", 6: "B J"}'
    _, r = _one(tmp_path, "ruleset: ask-match\ncases:\n  - name: r\n" + MATCH_GAME_1
                + f"    redeal_deals: [{again}]\n"
                  "    next_moves: [1 pass, 2 pass, 3 choose redeal, 1 return 6, 2 return 7]\n"
                  "    expect: {transfers: ['5 gives 2: 2', '6 gives 1: B', '2 gives 5: 7', '1 gives 6: 6']}\n")
    assert r.passed, r.errors
    _, r = _one(tmp_path, "ruleset: ask-match\ncases:\n  - name: r\n" + MATCH_GAME_1
                + "    next_moves: [1 pass, 2 pass, 3 choose redeal, 4 pass, 5 pass, 6 pass]\n"
                  "    expect: {voided: true, transfers: []}\n")
    assert r.passed, r.errors
    # a deal of the list the moves never needed still fails at the key
    _, r = _one(tmp_path, "ruleset: ask-match\ncases:\n  - name: r\n" + MATCH_GAME_1
                + f"    redeal_deals: [{again}]\n    next_moves: [1 return 5, 2 return 6]\n")
    assert not r.passed and "1 of the 1 deal(s) never dealt" in r.errors[0], r.errors


def test_a_game_dealt_again_by_hand_replays_from_its_record(tmp_path):
    from gouji_dsl.engine.interpreter import hands_from_text, new_game, replay
    from gouji_dsl.ruleset.graph import load_graph
    g = load_graph(str(Path(__file__).parent.parent / "examples" / "variants" / "ask-redeal.yaml"))
    weak = {s: t for s, t in zip(range(1, 7), ["2 5", "2 6", "2 8", "2 9", "2 T", "2 J"])}
    again = {s: "2 3 " + t.split()[1] for s, t in weak.items()}
    st = new_game(g, 0, hands=hands_from_text(g, weak), leader=1)
    from gouji_dsl.engine.interpreter import Move, Verb
    for s in range(1, 7):
        st.apply_in_place(Move(s, Verb.CHOOSE, None, "redeal") if s == 2 else Move(s, Verb.PASS))
    assert st.voided
    st.deal_again(hands_from_text(g, again))
    assert not st.voided and st.to_act == 1 and st.counters["redeal_requests"] == {2: 1}
    st.apply_in_place(Move(1, Verb.PASS))
    assert st.to_act == 3  # seat 2 asked once per game: not again
    back = replay(g, st.record)
    assert back.to_act == st.to_act and back.hands == st.hands and back.record == st.record
    # the record file's replay (gouji replay, the app) deals it again the same way
    from gouji_dsl.engine.records import GameRecord, load_record, replay_steps, save_record
    path = save_record(tmp_path / "g.json", GameRecord.from_states([st], seed=0))
    steps = replay_steps(g, load_record(path))
    assert steps[-1].state.record == st.record and steps[-1].state.to_act == 3
