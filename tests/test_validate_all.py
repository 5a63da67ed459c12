"""Issue 9 item 4: `gouji validate` reports every problem of every file of the chain in one pass,
sorted by position, each with a stable code; `--format json` gives code, position, message, hint."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

from click.testing import CliRunner

from gouji_dsl.diagnostics import Code, Severity
from gouji_dsl.ruleset.check import check
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


# One problem of each stage: structure (an unknown key, a rule without effect), a setting of the
# wrong type, a misspelt hook, a misspelt function, an unknown name, an expression syntax error.
BROKEN = """
ruleset: broken
extends: online
titel: A broken variant
settings:
  seats: "six"
rules:
  - id: x.hook
    on: folow
    allow: "true"
  - id: x.function
    on: follow
    allow: "lenn(active_seats) > 0"
  - id: x.name
    on: follow
    deny: "nosuch > 1"
  - id: x.syntax
    on: follow
    deny: "seat == (top.seat"
  - id: x.no-effect
    on: follow
"""


def test_a_file_with_one_problem_of_each_stage_reports_all_of_them(tmp_path):
    p = write(tmp_path, "broken.yaml", BROKEN)
    result = check(p)
    assert not result.ok and result.graph is None
    got = [(d.line, d.code) for d in result.errors]
    assert got == sorted(got)  # sorted by position
    assert got == [(3, Code.UNKNOWN_KEY), (5, Code.SETTING_TYPE_MISMATCH), (8, Code.UNKNOWN_HOOK),
                   (12, Code.UNKNOWN_FUNCTION), (15, Code.UNKNOWN_NAME), (18, Code.EXPRESSION_SYNTAX),
                   (19, Code.NO_EFFECT)]


def test_every_file_of_the_chain_is_checked(tmp_path):
    write(tmp_path, "parent.yaml", """
        ruleset: parent
        extends: online
        titel: misspelt
        rules:
          - id: p.bad
            on: follow
            allow: "oposite(seat) == 1"
    """)
    child = write(tmp_path, "child.yaml", """
        ruleset: child
        extends: parent
        rules:
          - id: c.bad
            on: follow
            deny: "nosuch"
          - id: c.no-effect
            on: follow
    """)
    result = check(child)
    where = [(Path(d.path).name, d.line) for d in result.errors]
    assert ("child.yaml", 6) in where and ("child.yaml", 7) in where  # c.bad's expression, c.no-effect
    assert ("parent.yaml", 3) in where and ("parent.yaml", 7) in where  # the parent's titel and p.bad
    assert where.index(("child.yaml", 7)) < where.index(("parent.yaml", 3))  # the file asked for first


def test_a_likely_misspelt_override_is_a_warning(tmp_path):
    p = write(tmp_path, "town.yaml", """
        ruleset: town
        extends: online
        rules:
          - id: yield.someone-lfet
            on: yield
            require: "true"
    """)
    result = check(p)
    (w,) = [d for d in result.warnings if d.code == Code.LIKELY_MISSPELT_OVERRIDE]
    assert w.severity == Severity.WARNING and "yield.someone-left" in w.hint and w.line == 4
    assert result.ok  # a warning does not fail the file


def test_an_override_answering_another_question_is_a_warning(tmp_path):
    # burn.failure-last answers burn_failure in base; a child rule with its id on no_lead silently
    # left burn_failure without that rule (its default answer applies)
    p = write(tmp_path, "town.yaml", """
        ruleset: town
        extends: online
        rules:
          - id: burn.failure-last
            on: no_lead
            value: "'next'"
            says: "A player with no allowed lead takes the best free place."
    """)
    result = check(p)
    (w,) = [d for d in result.warnings if d.code == Code.OVERRIDE_CHANGES_HOOK]
    assert (w.line, w.col) == (5, 9) and "burn_failure" in w.message and "on: burn_failure" in w.hint
    assert result.ok


def test_bundled_rulesets_check_clean():
    from gouji_dsl.ruleset.load.finding import list_bundled
    for name in list_bundled():
        result = check(name)
        assert result.ok and not result.diagnostics, (name, [d.short() for d in result.diagnostics])


def test_validate_json_format(tmp_path):
    p = write(tmp_path, "broken.yaml", BROKEN)
    res = CliRunner().invoke(cli, ["validate", "--format", "json", str(p), "online"])
    assert res.exit_code == 1
    doc = json.loads(res.stdout)
    assert doc["ok"] is False
    bad, good = doc["files"]
    assert good == {"file": "online", "ok": True, "rules": good["rules"], "errors": 0, "warnings": 0, "diagnostics": [],
                    "held_back": []}
    assert bad["held_back"] == ["unread-settings"]  # (the checks its errors stop are named)
    assert bad["ok"] is False and bad["errors"] == len(bad["diagnostics"]) >= 7
    d = bad["diagnostics"][0]
    assert set(d) == {"code", "severity", "message", "hint", "position"}
    assert d["code"] == "UnknownKey" and d["severity"] == "error" and "did you mean 'title'" in d["hint"]
    assert d["position"] == {"path": str(p), "line": 3, "col": 1, "end_line": 3, "end_col": 6}


def test_validate_text_lists_everything_sorted(tmp_path):
    p = write(tmp_path, "broken.yaml", BROKEN)
    res = CliRunner().invoke(cli, ["validate", str(p)])
    assert res.exit_code == 1
    heads = [line for line in res.stderr.splitlines() if line.startswith(f"{p}:")]
    assert heads[-1].startswith(f"{p}: not checked yet: ")  # what the errors hold back, said last
    heads = heads[:-1]
    nums = [int(h.split(":")[1]) for h in heads[:-1]]
    assert nums == sorted(nums) and len(nums) >= 7 and heads[-1].endswith("problems")


def test_a_value_the_reader_refused_is_reported_once(tmp_path):
    # A number too large is read as null; the setting types then said "is null, but must be a
    # whole number" at the same spot: one problem per spot, from the earlier stage.
    p = write(tmp_path, "big.yaml", """
        ruleset: big
        extends: online
        settings:
          scramble_when_active: 99999999999999999999
          show_count_at: "ten"
    """)
    r = check(str(p))
    assert [(d.code, d.line) for d in r.diagnostics] == [(Code.NUMBER_TOO_LARGE, 4), (Code.SETTING_TYPE_MISMATCH, 5)]


def test_a_broken_new_setting_is_not_also_an_unknown_setting(tmp_path):
    # The compile is retried without the broken settings; a new setting left out that way was then
    # reported again in every rule reading it as "unknown setting 'mode'".
    p = write(tmp_path, "modes.yaml", """
        ruleset: modes
        extends: online
        settings:
          mode: {type: "'fast' | 'slow'", value: fsat, says: "How fast we play."}
          level: {type: "int(1..3)", value: 5, says: "The level."}
        rules:
          - id: house.mode
            on: play
            deny: "settings.mode == 'fast' and settings.level > 1 and play.count > 9"
            says: "x"
          - id: house.typo
            on: play
            deny: "settings.mode == 'fats'"
            says: "y"
    """)
    codes = [(d.code, d.line) for d in check(str(p)).diagnostics]
    assert codes == [(Code.VALUE_NOT_ALLOWED, 4), (Code.OUT_OF_RANGE, 5), (Code.VALUE_NOT_ALLOWED, 13)]  # (a word outside the words: did you mean fast?), codes
