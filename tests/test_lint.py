"""The ruleset lint (gouji_dsl.ruleset.lint) and `gouji validate --strict`."""
from __future__ import annotations

import inspect
import re
import sys
import textwrap
from pathlib import Path

import pytest
from click.testing import CliRunner

from gouji_dsl.diagnostics import Code
from gouji_dsl.ruleset.analysis import analyse
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.lint import lint
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.tools.cli import cli


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(path)


def at(path: str, needle: str, nth: int = 0) -> tuple[int, int]:
    """1-based line and column of the value after `needle` (e.g. "id: x.never" -> where x.never starts)."""
    hits = []
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        j = line.find(needle)
        if j >= 0:
            k = needle.find(": ")
            hits.append((i, j + (k + 2 if k >= 0 else 0) + 1))
    return hits[nth]


def findings(path: str) -> list:
    return lint(load_graph(path))


def one(diags, fragment: str):
    hits = [d for d in diags if fragment in d.message]
    assert len(hits) == 1, [d.short() for d in diags]
    return hits[0]


# ------------------------------------------------------------------------------ (a) never fires
NEVER = """
ruleset: never
extends: online
rules:
  - id: x.point-rank
    on: play
    when: "play.rank == settings.point_rank"
    require: "play.empties_hand"
    says: "Needs settings.point_rank, which online leaves null."
  - id: x.constant
    on: follow
    when: "1 > 2"
    deny: "true"
  - id: x.buy-empty
    on: seat_setup
    when: "'3' in settings.buy.ranks and holds(seat, '3') == 0"
    mark: bought
  - id: x.needs-bought
    on: follow
    when: "flag(seat, 'bought')"
    deny: "true"
  - id: x.flag-typo
    on: follow
    when: "flag(top.seat, 'dead_goji')"
    deny: "true"
  - id: x.never-allows
    on: see_hand
    allow: "count(settings.buy.price) > 0"
  - id: x.tribute
    on: tribute
    when: "kind == 'fall'"
    value: "1"
  - id: x.fine
    on: follow
    when: "top.gouji and flag(top.seat, 'dead_gouji')"
    deny: "true"
"""


def test_rules_that_can_never_fire(tmp_path):
    path = write(tmp_path, "never.yaml", NEVER)
    diags = findings(path)
    assert all(d.severity == "warning" and d.path == path for d in diags), [d.short() for d in diags]
    cases = {
        "x.point-rank": "settings.point_rank is null",
        "x.constant": "always false",
        "x.buy-empty": "settings.buy.ranks is empty",
        "x.needs-bought": "flag 'bought' is never set",
        "x.flag-typo": "flag 'dead_goji' is never set",
        "x.never-allows": "never allows anything",
        "x.tribute": "tribute is never paid",
    }
    for rid, why in cases.items():
        d = one(diags, f"rule {rid!r} can never fire")
        assert why in d.message, d.message
        assert (d.line, d.col) == at(path, f"id: {rid}")
        assert d.hint and d.source_line and rid in d.source_line
    assert one(diags, "'x.flag-typo'").hint == "flag 'dead_goji': did you mean 'dead_gouji'?"
    assert not [d for d in diags if "x.fine" in d.message]
    assert len(diags) == len(cases), [d.short() for d in diags]


def test_a_mechanic_switched_off_by_its_own_file_is_not_a_finding(tmp_path):
    # base's pattern: a rule and the setting that switches it, both in the file, off by default
    path = write(tmp_path, "library.yaml", """
        ruleset: library
        extends: online
        settings:
          lucky_rank:
            value: null
            says: "The rank that may never be led, or null for no such rule."
        rules:
          - id: lucky.no-lead
            on: play
            when: "leading and play.rank == settings.lucky_rank"
            deny: "true"
            says: "The lucky rank may not be led."
    """)
    assert findings(path) == []
    # ... but a child that switches it off by inheritance is not told either, and one that turns it on
    # gets the rule live
    child = write(tmp_path, "child.yaml", """
        ruleset: child
        extends: library.yaml
        settings:
          lucky_rank: {value: "7", says: "Sevens may not be led."}
    """)
    assert findings(child) == []
    assert "lucky.no-lead" not in analyse(load_graph(child)).dead
    assert "lucky.no-lead" in analyse(load_graph(path)).dead


def test_inherited_mechanics_switched_off_are_not_findings_but_are_dead():
    an = analyse(load_graph("qingdao"))
    for rid in ("buy.three-agree", "buy.three-pay", "buy.four-from-teammate", "point.fours-need-point",
                "tribute.resist"):
        assert rid in an.dead, rid
    for rid in ("tribute.fall", "tribute.point", "stuck.last-play-only", "stuck.when-beaten", "point.open"):
        assert rid not in an.dead, (rid, an.dead.get(rid))
    assert an.tribute_paid and an.tribute_kinds == {"stuck", "burn", "point", "fall"}
    classic = analyse(load_graph("qingdao-classic"))
    assert classic.tribute_kinds == {"fall"}
    assert {"tribute.point", "tribute.burn", "tribute.stuck", "stuck.when-beaten"} <= set(classic.dead)
    assert "tribute.fall" not in classic.dead and "tribute.return-fall" not in classic.dead
    online = analyse(load_graph("online"))
    assert not online.tribute_paid and "tribute.fall" in online.dead
    assert "tribute.match" in online.inert  # a one-game match: the rule answers the default


# ------------------------------------------------------------------------------ (b) same question
DUPLICATE = """
ruleset: duplicate
extends: online
rules:
  - id: x.leader-one
    on: next_leader
    when: "trick_number > 3"
    value: "top.seat"
  - id: x.leader-two
    on: next_leader
    when: "trick_number >  3"
    value: "next_active(top.seat)"
  - id: x.score
    on: score
    value: "0"
  - id: x.see-allow
    on: see_hand
    when: "team(seat) == team(target)"
    allow: "hand_size(target) <= 5"
  - id: x.see-deny
    on: see_hand
    when: "team(seat) == team(target)"
    deny: "hand_size(target) <= 5"
"""


def test_two_rules_deciding_the_same_question(tmp_path):
    path = write(tmp_path, "duplicate.yaml", DUPLICATE)
    diags = findings(path)
    d = one(diags, "rule 'x.leader-one' can never decide 'next_leader'")
    assert "'x.leader-two'" in d.message and "same guard" in d.message
    assert (d.line, d.col) == at(path, "id: x.leader-one")
    # a new rule without a guard after an inherited one: reported at the new rule, with the fix
    d = one(diags, "makes the inherited rule 'score.team-sum'")
    assert (d.line, d.col) == at(path, "id: x.score")
    assert "give this rule the id 'score.team-sum'" in d.hint
    d = one(diags, "contradictory effects")
    assert "'x.see-allow'" in d.message and "'x.see-deny'" in d.message
    assert (d.line, d.col) == at(path, "id: x.see-deny")
    assert len(diags) == 3, [x.short() for x in diags]


def test_an_override_by_id_is_not_a_duplicate(tmp_path):
    path = write(tmp_path, "override.yaml", """
        ruleset: override
        extends: online
        rules:
          - id: score.team-sum
            on: score
            value: "0"
            says: "Nobody scores."
          - id: revolution.opposite-chooses
            on: choose
            allow: "false"
            says: "The opposite has no choice."
    """)
    assert findings(path) == []


# ------------------------------------------------------------------------------ (c) no way out
def test_a_ruleset_whose_game_over_rule_is_removed(tmp_path):
    path = write(tmp_path, "endless.yaml", """
        ruleset: endless
        extends: online
        remove: [trick.ask-order, end.one-left, trick.scramble-in-turn]
    """)
    diags = findings(path)
    d = one(diags, "the game can never end")
    assert d.severity == "error"
    assert (d.path, d.line, d.col) == (path, 3, 27)
    assert "end.one-left" in d.message and d.source_line.startswith("remove:")
    d = one(diags, "no rule orders the answers")
    assert d.severity == "warning" and (d.line, d.col) == (3, 10)
    assert len(diags) == 2


def test_every_play_forbidden_and_a_game_over_that_never_says_yes(tmp_path):
    path = write(tmp_path, "stuck.yaml", """
        ruleset: stuck
        extends: online
        rules:
          - id: end.one-left
            on: game_over
            value: "false"
          - id: x.no-plays
            on: play
            deny: "true"
    """)
    diags = findings(path)
    d = one(diags, "forbids every 'play'")
    assert d.severity == "error" and (d.line, d.col) == at(path, "id: x.no-plays")
    d = one(diags, "the game can never end")
    assert d.severity == "error" and (d.line, d.col) == at(path, "id: end.one-left")


# ------------------------------------------------------------------------------ (d) unread settings
UNREAD = """
ruleset: unread
extends: online
settings:
  lucky_number:
    value: 7
    says: "Seven is lucky."
  house_limits:
    value: {seven: 7, dozen: 12}
    says: "House limits."
  place_points: {1: 5}
  deck: {decks: 4}
  show_count_at: 8
rules:
  - id: x.seven
    on: see_hand
    allow: "hand_size(target) < settings.house_limits.seven"
"""


def test_settings_nothing_reads(tmp_path):
    path = write(tmp_path, "unread.yaml", UNREAD)
    diags = findings(path)
    d = one(diags, "setting 'lucky_number' is read by no rule")
    assert (d.line, d.col) == at(path, "lucky_number:")  # the name, not its value
    d = one(diags, "key 'dozen' of setting 'house_limits'")
    assert (d.line, d.col) == (8, 23) and d.code == Code.UNREAD_SETTING
    assert d.hint == "keys read: seven"
    # a map merged without its own sentence keeps the parent's, which may now be wrong
    d = one(diags, "setting 'place_points' is changed here but keeps an inherited sentence")
    assert (d.line, d.col) == at(path, "place_points: ")
    # a plain value written without a sentence drops the parent's
    d = one(diags, "setting 'show_count_at' is changed here without a sentence")
    assert (d.line, d.col) == at(path, "show_count_at: ")
    # `deck: {decks: 4}` changes nothing and names a key the engine reads: no finding
    assert len(diags) == 4, [x.short() for x in diags]


# ------------------------------------------------------------------------------ the CLI
def test_validate_strict_fails_on_findings_and_plain_validate_is_unchanged(runner, tmp_path):
    paths = [write(tmp_path, "never.yaml", NEVER), write(tmp_path, "duplicate.yaml", DUPLICATE),
             write(tmp_path, "unread.yaml", UNREAD),
             write(tmp_path, "endless.yaml", "ruleset: endless\nextends: online\nremove: [end.one-left]\n")]
    for p in paths:
        res = runner.invoke(cli, ["validate", p])
        assert res.exit_code == 0, res.stderr
        assert res.stdout.startswith(f"{p}: ok (")
        # without --strict only a setting nothing reads (most likely a misspelt name) is mentioned
        assert (res.stderr == "") == (p != paths[2]), res.stderr
        if p == paths[2]:
            assert "warning:" in res.stderr and "read by" in res.stderr
        res = runner.invoke(cli, ["validate", "--strict", p])
        assert res.exit_code == 1, (p, res.stdout, res.stderr)
        assert res.stdout == ""
        assert f"{p}:" in res.stderr and "(--strict)" in res.stderr and "Traceback" not in res.stderr
    res = runner.invoke(cli, ["validate", "--strict", paths[0]])
    line, col = at(paths[0], "id: x.point-rank")
    assert f"{paths[0]}:{line}:{col}: warning: rule 'x.point-rank' can never fire" in res.stderr
    assert "    hint: " in res.stderr
    res = runner.invoke(cli, ["validate", "--strict", paths[3]])
    assert f"{paths[3]}:3:10: the game can never end" in res.stderr


def test_validate_strict_reports_each_file(runner, tmp_path):
    bad = write(tmp_path, "never.yaml", NEVER)
    res = runner.invoke(cli, ["validate", "--strict", bad, "online"])
    assert res.exit_code == 1
    assert "online: ok (" in res.stdout and "never.yaml" not in res.stdout


@pytest.mark.parametrize("name", list_bundled())
def test_every_bundled_ruleset_passes_strict(runner, name):
    res = runner.invoke(cli, ["validate", "--strict", name])
    assert res.exit_code == 0, res.stderr
    assert res.stderr == ""


def test_no_findings_in_bundled_rulesets():
    for name in list_bundled():
        diags = lint(load_graph(name))
        assert diags == [], (name, [d.short() for d in diags])


# ------------------------------------------------------------------------------ lookups that can fail
def test_a_table_without_every_key_its_rule_looks_up(tmp_path):
    path = write(tmp_path, "points.yaml", """
        ruleset: points
        extends: online
        settings:
          match_games:
            value: 3
            says: "Three games."
          tribute:
            value: {order: [point], point: {both: {receiver: 4, neither: 2, both: 2, giver: 0}}}
            says: "Point tribute only."
    """)
    (d,) = findings(path)
    assert d.code == Code.MISSING_KEY and (d.line, d.col) == at(path, "point: {both")
    assert "'giver', 'receiver', 'neither'" in d.message and "tribute.point" in d.message


def test_a_tribute_setting_changed_in_a_one_game_ruleset_has_no_effect(tmp_path):
    # online plays single games: tribute is never paid, so a changed tribute key does nothing. The
    # key read by a live rule too (tribute.order: point.declare) and a ruleset with matches
    # (online-xuandian) are not reported.
    p = write(tmp_path, "one-game.yaml", """
        ruleset: one-game
        extends: online
        settings:
          tribute: {resist_team: 2, order: ["point"]}
    """)
    found = [d for d in lint(load_graph(p)) if d.code == Code.SETTING_HAS_NO_EFFECT]
    assert [(d.line, d.col) for d in found] == [at(p, "resist_team: 2")]
    assert "tribute.resist_team" in found[0].message and "single game" in found[0].message
    q = write(tmp_path, "matches.yaml", """
        ruleset: matches
        extends: online-xuandian
        settings:
          tribute: {resist_team: 2}
    """)
    assert not [d for d in lint(load_graph(q)) if d.code == Code.SETTING_HAS_NO_EFFECT]


def test_a_tribute_kind_no_rule_pays_is_warned(tmp_path):
    # qingdao pays stuck, burn, point and fall tribute; a misspelt kind in the order was paid by
    # no rule, silently. 'declare' is a word a rule looks for in the order (point.declare): known.
    p = write(tmp_path, "kinds.yaml", """
        ruleset: kinds
        extends: qingdao
        settings:
          tribute:
            value: {order: [stuck, fal, burn, declare]}
            says: "Stuck, fall and burn tribute; declaring is allowed."
    """)
    found = [d for d in lint(load_graph(p)) if "tribute kind" in d.message]
    assert [(d.code, d.line, d.col) for d in found] == [(Code.UNREAD_SETTING, 5, 28)]
    assert "'fal'" in found[0].message and found[0].hint == "did you mean 'fall'?"
    res = CliRunner().invoke(cli, ["validate", p])  # shown without --strict too
    assert res.exit_code == 0 and "tribute kind 'fal' is paid by no rule" in res.output


# ------------------------------------------------------------------------------ the registry of findings
ROOT = Path(__file__).resolve().parent.parent


def test_every_finding_is_registered_by_name_with_a_code_a_severity_and_what_it_finds():
    from gouji_dsl.diagnostics import Severity
    from gouji_dsl.ruleset import lint as lint_module
    from gouji_dsl.ruleset.lint import FINDINGS, Finding
    assert "rule_never_fires" in FINDINGS and "disabled_by_another_setting" in FINDINGS
    # one small class a finding (as miniwdl's Lint.py), named as its class in snake case, in a module of the package
    # by theme; lint runs them module by module, each in the order they are written
    modules = [type(f).__module__ for f in FINDINGS.values()]
    assert all(m.startswith("gouji_dsl.ruleset.lint.") for m in modules) and len(set(modules)) >= 4
    for m in dict.fromkeys(modules):
        lines = [inspect.getsourcelines(type(f))[1] for f in FINDINGS.values() if type(f).__module__ == m]
        assert lines == sorted(lines), m
    for name, f in FINDINGS.items():
        assert isinstance(f, Finding) and f.name == name == re.sub(r"(?<!^)(?=[A-Z])", "_", type(f).__name__).lower()
        assert isinstance(f.code, Code) and isinstance(f.severity, Severity)
        assert len(f.doc) > 60, name  # says what it finds
    # the two that stop a game are errors, as the module doc says
    assert {n for n, f in FINDINGS.items() if f.severity == Severity.ERROR} == {"game_never_ends", "every_play_forbidden"}
    # a newcomer finds where a finding goes in the package's first lines, and in each module's
    first = (lint_module.__doc__ or "").split("\n\n")[1]
    assert first.startswith("**To add a finding**") and "@a_finding" in first and "code = Code.X" in first
    for m in set(modules):
        assert "To add a finding" in (sys.modules[m].__doc__ or "").split("\n\n")[-1], m
    assert all(len((ROOT / (m.replace(".", "/") + ".py")).read_text(encoding="utf-8").splitlines()) <= 800 for m in set(modules))


def test_the_format_doc_names_every_code_the_lint_reports():
    from gouji_dsl.ruleset.lint import FINDINGS
    text = (ROOT / "docs" / "ruleset-format.md").read_text(encoding="utf-8")
    section = text.split("\n## Diagnostics\n", 1)[1].split("\n## ", 1)[0]
    listed = section.split("the lint (`gouji validate --strict`) reports", 1)[1].split(". Each lint finding", 1)[0]
    named = set(re.findall(r"`(\w+)`", listed))
    from gouji_dsl.engine.bounds import PLAYED  # the findings that play sample deals (the engine floor)
    assert named == {str(f.code) for f in (*FINDINGS.values(), *PLAYED.values())}


def test_lint_runs_every_registered_finding_or_only_the_codes_asked(tmp_path, monkeypatch):
    from gouji_dsl.ruleset.lint import FINDINGS, Finding, a_finding, finding, registry
    path = write(tmp_path, "unread.yaml", UNREAD)
    graph = load_graph(path)
    before = lint(graph)
    registered = dict(FINDINGS)
    monkeypatch.setattr(registry, "FINDINGS", registered)  # registered for this test only

    @a_finding
    class EveryRuleOfTheFile(Finding):
        """A test finding: every rule this file writes (to see that a registered finding runs)."""

        code = Code.RULE_NEVER_FIRES

        def run(self, c):
            for n in c.own:
                yield n.origin, f"rule {n.id!r} is here", None

    assert "every_rule_of_the_file" in registry.FINDINGS and "every_rule_of_the_file" not in FINDINGS
    added = [d for d in lint(graph) if d not in before]
    assert added and all(d.code == Code.RULE_NEVER_FIRES and d.message.endswith("is here") for d in added)
    assert all(d.path == path and d.source_line for d in added)  # positioned, with the line for the caret
    only = lint(graph, codes={Code.UNREAD_SETTING})
    assert only == [d for d in before if d.code == Code.UNREAD_SETTING] and len(only) == 2
    with pytest.raises(ValueError, match="registered twice"):
        a_finding(EveryRuleOfTheFile)

    class NothingSaid(Finding):
        code = Code.RULE_NEVER_FIRES

    with pytest.raises(ValueError, match="without a docstring"):
        a_finding(NothingSaid)
    # a floor above (engine/bounds) may still register one function as a finding, in its own registry
    mine: dict[str, Finding] = {}

    @finding(Code.RULE_NEVER_FIRES, into=mine)
    def first_rule(c):
        """A test finding written as a function: the first rule of the file (to see that it runs)."""
        yield c.own[0].origin, "first", None

    assert list(mine) == ["first_rule"] and "first_rule" not in registry.FINDINGS
    now = lint(graph)
    assert [d.message for d in lint(graph, also=mine.values()) if d not in now] == ["first"]
