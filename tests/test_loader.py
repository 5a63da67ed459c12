"""Tests for the loader, gouji_dsl.ruleset.load: parsing with positions, schema errors, extends resolution."""
from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest
from jsonschema import Draft7Validator

from gouji_dsl import resources
from gouji_dsl.diagnostics import Diagnostic, GoujiError
from gouji_dsl.ruleset.load import checking, finding
from gouji_dsl.ruleset.load.checking import load_file, load_text
from gouji_dsl.ruleset.load.finding import ruleset_path
from gouji_dsl.ruleset.load.locating import position_in
from gouji_dsl.ruleset.load.resolving import resolve, resolve_text
from gouji_dsl.ruleset.spec import EFFECT_KEYS


def write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return path


def errors_of(fn, *args, **kw) -> list[Diagnostic]:
    with pytest.raises(GoujiError) as info:
        fn(*args, **kw)
    return info.value.diagnostics


def only_error(fn, *args, **kw) -> Diagnostic:
    diags = errors_of(fn, *args, **kw)
    assert len(diags) == 1, [d.short() for d in diags]
    return diags[0]


GRANDPARENT = """
ruleset: grand
title: Grand rules
settings:
  gouji_minimum: {T: 5, J: 4, Q: 3, K: 2}
  filler_rank:
    value: "2"
    says: "2s may fill out a group."
    source: "seed 001"
  seats: 6
definitions:
  scramble: "count(active_seats) <= 2"
  has_head(s): "active(opposite(s))"
rules:
  - id: g.one
    on: follow
    allow: true
  - id: g.two
    on: follow
    deny: "top.gouji"
  - id: g.three
    on: lead
    value: 4
"""

PARENT = """
ruleset: parent
extends: grand
settings:
  gouji_minimum: {J: 3, Q: null}
definitions:
  scramble: "false"
rules:
  - id: g.two
    on: follow
    deny: "top.gouji and not scramble"
    says: "parent version"
  - id: p.new
    on: follow
    count: plays
    amount: 2
"""

CHILD = """
ruleset: child
extends: parent
settings:
  gouji_minimum: {A: 2}
  seats: 4
rules:
  - id: g.two
    on: follow
    require: "seat == opposite(top.seat)"
  - id: c.new
    on: lead
    mark: led
remove: [g.one]
"""


@pytest.fixture
def chain(tmp_path: Path) -> Path:
    write(tmp_path, "grand.yaml", GRANDPARENT)
    write(tmp_path, "parent.yaml", PARENT)
    return write(tmp_path, "child.yaml", CHILD)


# ---------------------------------------------------------------- inheritance


def test_chain_and_files(chain: Path) -> None:
    r = resolve(chain)
    folder = chain.parent
    assert r.name == "child"
    assert r.chain == (str(chain), str(folder / "parent.yaml"), str(folder / "grand.yaml"))
    assert r.title is None  # titles are not inherited
    assert r.text == chain.read_text(encoding="utf-8")
    assert {x.id: Path(x.file).name for x in r.rules} == {
        "g.two": "child.yaml", "g.three": "grand.yaml", "p.new": "parent.yaml", "c.new": "child.yaml"}


def test_override_in_place_and_remove(chain: Path) -> None:
    r = resolve(chain)
    assert [x.id for x in r.rules] == ["g.two", "g.three", "p.new", "c.new"]
    assert r.removed == ("g.one",)
    two = r.rule("g.two")
    assert two is not None
    assert two.effect == "require" and two.effect_expr.text == "seat == opposite(top.seat)"
    assert not two.inherited
    # it overrides the parent's version (which itself overrode the grandparent's)
    assert two.overrides is not None
    assert Path(two.overrides.path).name == "parent.yaml" and two.overrides.line == 8
    parent = resolve(chain.parent / "parent.yaml")
    p_two = parent.rule("g.two")
    assert p_two is not None and p_two.says == "parent version"
    assert p_two.overrides is not None and Path(p_two.overrides.path).name == "grand.yaml"
    assert [x.id for x in parent.rules] == ["g.one", "g.two", "g.three", "p.new"]


def test_inherited_flags(chain: Path) -> None:
    r = resolve(chain)
    flags = {x.id: x.inherited for x in r.rules}
    assert flags == {"g.two": False, "g.three": True, "p.new": True, "c.new": False}
    assert r.settings["filler_rank"].inherited
    assert not r.settings["gouji_minimum"].inherited
    assert not r.settings["seats"].inherited
    assert r.definitions["scramble"].inherited and r.definitions["has_head"].inherited
    assert Path(r.definitions["scramble"].origin.path).name == "parent.yaml"


def test_settings_deep_merge_with_key_origins(chain: Path) -> None:
    r = resolve(chain)
    gm = r.settings["gouji_minimum"]
    assert gm.value == {"T": 5, "J": 3, "Q": None, "K": 2, "A": 2}  # null keeps the key, without a value
    names = {k: (Path(o.path).name, o.line, o.col) for k, o in gm.key_origins.items()}
    assert names == {"T": ("grand.yaml", 4, 22), "J": ("parent.yaml", 4, 22),
                     "K": ("grand.yaml", 4, 40), "A": ("child.yaml", 4, 22)}
    assert (Path(gm.origin.path).name, gm.origin.line, gm.origin.col) == ("child.yaml", 4, 18)
    seats = r.settings["seats"]
    assert seats.value == 4 and Path(seats.origin.path).name == "child.yaml"
    filler = r.settings["filler_rank"]
    assert filler.value == "2" and filler.says == "2s may fill out a group." and filler.source == "seed 001"
    assert (filler.origin.line, filler.origin.col) == (6, 13)  # just after the quote


def test_definitions_and_scalar_expressions(chain: Path) -> None:
    r = resolve(chain.parent / "grand.yaml")
    d = r.definitions["has_head"]
    assert d.params == ("s",) and d.expr.text == "active(opposite(s))"
    assert (d.origin.line, d.origin.col) == (12, 3)
    g_one, g_three = r.rule("g.one"), r.rule("g.three")
    assert g_one is not None and g_one.effect_expr.text == "true"  # YAML boolean -> expression text
    assert g_three is not None and g_three.effect_expr.text == "4"
    assert g_one.on.text == "follow"  # the key `on` is not YAML 1.1's boolean


def test_resolve_text_uses_buffer_and_disk_parents(chain: Path) -> None:
    buffer = CHILD.replace("mark: led", "mark: led_now").lstrip("\n")
    r = resolve_text(buffer, chain)
    c_new = r.rule("c.new")
    assert c_new is not None and c_new.effect_expr.text == "led_now"
    assert r.chain[1:] == (str(chain.parent / "parent.yaml"), str(chain.parent / "grand.yaml"))
    unsaved = chain.parent / "not-yet-saved.yaml"
    r2 = resolve_text("ruleset: not-yet-saved\nextends: parent\n", unsaved)
    assert [x.id for x in r2.rules] == ["g.one", "g.two", "g.three", "p.new"]


def test_workspace_file_may_extend_bundled_of_same_name(tmp_path: Path) -> None:
    # NAME.yaml beside itself is skipped, so `extends: NAME` then means another NAME.yaml (search/bundled).
    other = tmp_path / "lib"
    other.mkdir()
    write(other, "house.yaml", "ruleset: house\nrules:\n  - {id: a, on: x, allow: true}\n")
    mine = write(tmp_path, "house.yaml", "ruleset: house\nextends: house\n")
    r = resolve(mine, search=[other])
    assert r.chain == (str(mine), str(other / "house.yaml"))
    d = only_error(resolve, write(tmp_path / "lib", "solo.yaml", "ruleset: solo\nextends: solo\n"))
    assert (d.line, d.col) == (2, 10) and "itself" in d.message


def test_ruleset_path_and_unknown_name(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\n")
    assert ruleset_path(p) == p
    assert ruleset_path("x", search=[tmp_path]) == tmp_path / "x.yaml"
    d = only_error(ruleset_path, "no-such-ruleset-anywhere")
    assert d.line == 0 and "unknown ruleset" in d.message and d.hint and "bundled rulesets" in d.hint


# ---------------------------------------------------------------- errors at exact positions


def test_unknown_top_key_with_did_you_mean(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\ntitel: Oops\n")
    d = only_error(load_file, p)
    assert (d.path, d.line, d.col) == (str(p), 2, 1)
    assert "unknown key 'titel'" in d.message
    assert d.hint is not None and "did you mean 'title'?" in d.hint and "expected one of: ruleset" in d.hint
    assert d.source_line == "titel: Oops"
    assert d.format().splitlines()[2] == "    ^"


def test_unknown_rule_key(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", """
        ruleset: x
        rules:
          - id: a
            on: follow
            allow: true
            sayz: hi
        """)
    d = only_error(load_file, p)
    assert (d.line, d.col) == (6, 5) and "in rule 'a'" in d.message
    assert d.hint is not None and "did you mean 'says'?" in d.hint


def test_wrong_type(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\ndescription: [a, b]\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (2, 14)
    assert "expected a string or a mapping, got a list" in d.message


def test_rules_must_be_a_list(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\nrules:\n  id: a\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (3, 3) and "expected a list, got a mapping" in d.message


def test_rule_with_two_effects(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", """
        ruleset: x
        rules:
          - id: a
            on: follow
            allow: "true"
            deny: "false"
        """)
    d = only_error(load_file, p)
    assert (d.line, d.col) == (6, 5)  # at the second effect key
    assert "2 effects (allow, deny)" in d.message
    assert d.hint is not None and all(k in d.hint for k in EFFECT_KEYS)


def test_rule_without_effect(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\nrules:\n  - id: a\n    on: follow\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (3, 5) and "has no effect" in d.message
    assert d.hint is not None and "allow, deny, require, value, order, mark, unmark, count" in d.hint


def test_missing_id(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", """
        ruleset: x
        rules:
          - id: ok
            on: follow
            allow: true
          - on: follow
            allow: true
        """)
    d = only_error(load_file, p)
    assert (d.line, d.col) == (6, 5)  # at the rule's mapping
    assert "rule #2 is missing required key 'id'" in d.message


def test_missing_ruleset_key(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "title: no name\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (1, 1) and "'ruleset'" in d.message


def test_bad_rule_id_pattern(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\nrules:\n  - id: Bad_Id\n    on: follow\n    allow: true\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (3, 9) and d.hint is not None and "lower-case" in d.hint


def test_duplicate_rule_id(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", """
        ruleset: x
        rules:
          - id: a
            on: follow
            allow: true
          - id: a
            on: lead
            deny: true
        """)
    d = only_error(load_file, p)
    assert (d.line, d.col) == (6, 9)  # at the second id value
    assert "duplicate rule id 'a'" in d.message and d.hint is not None and "line 3" in d.hint


def test_duplicate_key(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\nsettings:\n  a: 1\n  b: 2\n  a: 3\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (5, 3) and "duplicate key 'a'" in d.message


def test_cyclic_extends(tmp_path: Path) -> None:
    a = write(tmp_path, "a.yaml", "ruleset: a\nextends: b\n")
    write(tmp_path, "b.yaml", "title: B\nruleset: b\nextends: c\n")
    write(tmp_path, "c.yaml", "ruleset: c\nextends: a\n")
    d = only_error(resolve, a)
    assert Path(d.path).name == "c.yaml" and (d.line, d.col) == (2, 10)
    assert "extends cycle" in d.message
    assert [Path(p.strip()).name for p in d.message.split(":", 1)[1].split("->")] == \
        ["a.yaml", "b.yaml", "c.yaml", "a.yaml"]


def test_missing_extends(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", "ruleset: base\n")
    p = write(tmp_path, "x.yaml", "ruleset: x\nextends: bsae\n")
    d = only_error(resolve, p)
    assert (d.path, d.line, d.col) == (str(p), 2, 10)
    assert "cannot find parent ruleset 'bsae'" in d.message
    assert d.hint is not None and "did you mean 'base'?" in d.hint and "bundled rulesets" in d.hint


def test_bad_yaml_syntax(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", "ruleset: x\nrules:\n  - id: a\n    says: a: b\n")
    d = only_error(load_file, p)
    assert (d.line, d.col) == (4, 12) and "YAML syntax error" in d.message
    assert d.source_line == "    says: a: b"


def test_unknown_remove_id(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", "ruleset: base\nrules:\n  - {id: lead.first, on: lead, allow: true}\n")
    p = write(tmp_path, "x.yaml", "ruleset: x\nextends: base\nremove: [lead.frist]\n")
    d = only_error(resolve, p)
    assert (d.line, d.col) == (3, 10)
    assert "cannot remove 'lead.frist'" in d.message and d.hint == "did you mean 'lead.first'?"


def test_all_errors_reported_together(tmp_path: Path) -> None:
    p = write(tmp_path, "x.yaml", """
        ruleset: x
        titel: Oops
        rules:
          - id: a
            on: [follow]
            allow: true
            deny: false
        """)
    diags = errors_of(load_file, p)
    assert [(d.line, d.col) for d in diags] == [(2, 1), (5, 9), (7, 5)]
    assert all(d.source_line for d in diags)


def test_unreadable_file_is_a_diagnostic(tmp_path: Path) -> None:
    d = only_error(load_file, tmp_path / "missing.yaml")
    assert d.line == 0 and "cannot read ruleset" in d.message
    d = only_error(resolve, tmp_path / "missing.yaml")
    assert "no such ruleset file" in d.message


def test_empty_and_non_mapping_files(tmp_path: Path) -> None:
    assert "empty" in only_error(load_text, "", tmp_path / "e.yaml").message
    d = only_error(load_text, "- a\n", tmp_path / "l.yaml")
    assert (d.line, d.col) == (1, 1) and "expected a mapping, got a list" in d.message


def test_errors_in_parent_point_into_parent(tmp_path: Path) -> None:
    write(tmp_path, "base.yaml", "ruleset: base\nrules: 3\n")
    p = write(tmp_path, "x.yaml", "ruleset: x\nextends: base\n")
    d = only_error(resolve, p)
    assert Path(d.path).name == "base.yaml" and (d.line, d.col) == (2, 8)


# ---------------------------------------------------------------- positions inside expressions


def test_position_in_plain_and_quoted(tmp_path: Path) -> None:
    text = textwrap.dedent("""\
        ruleset: x
        rules:
          - id: a
            on: follow
            when: top.gouji and has_head(top.seat)
            require: "seat == opposite(top.seat)"
            says: 'it''s here'
        """)
    r = resolve_text(text, tmp_path / "x.yaml")
    rule = r.rule("a")
    assert rule is not None and rule.when is not None
    assert position_in(rule.when, rule.when.text.index("has_head")) == (5, 25)
    req = rule.effect_expr
    assert position_in(req, req.text.index("opposite")) == (6, 23)
    assert position_in(req, len(req.text)) == (6, 41)  # just after the last character
    assert position_in(req, req.text.index("opposite"), text) == (6, 23)


def test_position_in_block_scalars(tmp_path: Path) -> None:
    text = textwrap.dedent("""\
        ruleset: x
        rules:
          - id: a
            on: follow
            when: |
              top.gouji
                and ready
            value: >
              first
              second
        """)
    r = resolve_text(text, tmp_path / "x.yaml")
    rule = r.rule("a")
    assert rule is not None and rule.when is not None
    assert rule.when.origin.line == 6 and rule.when.origin.col == 7
    assert position_in(rule.when, rule.when.text.index("ready")) == (7, 13)
    folded = rule.effect_expr
    assert folded.text == "first second\n"
    assert position_in(folded, folded.text.index("second"), text) == (10, 7)


def test_position_in_escapes_and_multiline_with_source(tmp_path: Path) -> None:
    text = 'ruleset: x\nrules:\n  - id: a\n    on: follow\n    deny: "a \\"b\\" and\n      cc"\n'
    r = resolve_text(text, tmp_path / "x.yaml")
    rule = r.rule("a")
    assert rule is not None and rule.effect_expr.text == 'a "b" and cc'
    expr = rule.effect_expr
    assert position_in(expr, expr.text.index("and"), text) == (5, 20)
    assert position_in(expr, expr.text.index("cc"), text) == (6, 7)


# ---------------------------------------------------------------- schema


def test_schema_is_valid_draft7() -> None:
    Draft7Validator.check_schema(json.loads(resources.schema_path().read_text(encoding="utf-8")))


def test_schema_describes_every_property() -> None:
    schema = checking.schema()

    def walk(node: object, where: str) -> None:
        if isinstance(node, dict):
            for name, sub in node.get("properties", {}).items():
                assert "description" in sub or "$ref" in sub, f"{where}.{name} has no description"
            for k, v in node.items():
                walk(v, f"{where}.{k}")

    walk(schema, "#")


def test_bundled_rulesets_validate() -> None:
    try:
        files = sorted(resources.rules_dir().glob("*.yaml"))
    except FileNotFoundError:
        files = []
    if not files:
        pytest.skip("no bundled rulesets in rules/")
    validator = Draft7Validator(checking.schema())
    for path in files:
        raw = load_file(path)  # raises GoujiError with positions on any problem
        assert not list(validator.iter_errors(raw.data)), path
        assert raw.data["ruleset"] == path.stem
    for name in finding.list_bundled():
        assert resolve(name).name == name


def test_loader_and_schema_agree_on_keys() -> None:
    schema = checking.schema()
    defs = schema["definitions"]
    assert set(schema["properties"]) == set(checking.TOP_KEYS)
    assert set(schema["required"]) == {"ruleset"}
    rule = defs["rule"]
    assert set(rule["properties"]) == set(checking.RULE_KEYS)
    assert set(rule["required"]) == {"id", "on"}
    assert [alt["required"] for alt in rule["oneOf"]] == [[k] for k in EFFECT_KEYS]
    assert set(defs["settingLongForm"]["properties"]) == set(checking.SETTING_LONG_KEYS)
    assert set(defs["setting"]["if"]["propertyNames"]["enum"]) == set(checking.SETTING_LONG_KEYS)
    assert set(defs["definition"]["properties"]) == set(checking.DEFINITION_LONG_KEYS)
    for obj in (schema, rule, defs["settingLongForm"], defs["definition"]):
        assert obj["additionalProperties"] is False


def test_a_flag_or_counter_name_is_a_word_not_an_expression(tmp_path: Path) -> None:
    # `mark: "'x'"` set a flag literally named 'x' with its quotes, which flag(seat, 'x') never
    # reads: flag and counter names are words (unlike `place:` and `give:`, which are expressions).
    from gouji_dsl.diagnostics import Code
    p = write(tmp_path, "marks.yaml", """
        ruleset: marks
        extends: online
        rules:
          - id: house.mark
            on: finish
            mark: "'x'"
          - id: house.count
            on: finish
            count: "two words"
          - id: house.fine
            on: finish
            mark: went_out_2
    """)
    diags = errors_of(resolve, p)
    assert [(d.code, d.line) for d in diags] == [(Code.INVALID_NAME, 6), (Code.INVALID_NAME, 9)]
    assert "flag name" in diags[0].hint and "counter name" in diags[1].hint
