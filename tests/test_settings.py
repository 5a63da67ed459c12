"""Setting types (gouji_dsl.ruleset.settings): every setting has a type, every value is checked
against it, at any depth, with a positioned diagnostic and a code."""
from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from gouji_dsl.diagnostics import Code, GoujiError, Severity
from gouji_dsl.lang.types import (
    BOOL,
    INT,
    RANK,
    TEXT,
    Enum,
    Int,
    ListOf,
    MapOf,
    Nullable,
    Record,
    TypeSyntaxError,
    parse_type,
)
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.settings import TypeSource, check_settings, conform, infer_type, settings_of


def write(folder: Path, text: str, name: str = "child.yaml") -> str:
    p = folder / name
    p.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(p)


def errors(path: str) -> list:
    with pytest.raises(GoujiError) as e:
        load_graph(path)
    return e.value.diagnostics


def at(path: str, needle: str) -> tuple[int, int]:
    for i, line in enumerate(Path(path).read_text(encoding="utf-8").splitlines(), 1):
        j = line.find(needle)
        if j >= 0:
            return i, j + 1
    raise AssertionError(needle)


# ------------------------------------------------------------------------------ the notation
@pytest.mark.parametrize("text, t", [
    ("int", INT), ("int(0..)", Int(0, None)), ("int(1..12)", Int(1, 12)), ("bool", BOOL), ("rank?", Nullable(RANK)),
    ("[rank]", ListOf(RANK)), ("{rank -> int}", MapOf(RANK, INT)), ("'a' | 'b'", Enum(("a", "b"))),
    ("{rank: rank, min_same_suit: int(1..)}", Record((("rank", RANK), ("min_same_suit", Int(1, None))))),
    ("{'x' | 'y' -> [text]}", MapOf(Enum(("x", "y")), ListOf(TEXT))),
])
def test_type_notation_round_trips(text, t):
    assert parse_type(text) == t
    assert parse_type(str(t)) == t


@pytest.mark.parametrize("text", ["intt", "{rank ->}", "int(5..1)", "[rank", "{a: int, a: bool}", "seats(1..2)"])
def test_bad_type_notation(text):
    with pytest.raises(TypeSyntaxError):
        parse_type(text)


def test_inference_rules():
    kinds = ("3", "4", "T", "B")
    assert infer_type(True, kinds) == BOOL and infer_type(3, kinds) == INT
    assert infer_type("3", kinds) == RANK and infer_type("hello", kinds) == TEXT
    assert infer_type(None, kinds) == Nullable(parse_type("any"))
    assert infer_type(["3", "T"], kinds) == ListOf(RANK)
    assert infer_type({"3": 1, "T": 2}, kinds) == MapOf(RANK, INT)
    assert infer_type({"5": 1, "6": 2}, kinds) == MapOf(INT, INT)
    assert infer_type({"a": 1, "b": "x"}, kinds) == Record((("a", INT), ("b", TEXT)))


def test_conform_converts_keys_and_reports_every_problem():
    t = parse_type("{int(1..) -> int}")
    value, problems = conform({"1": 4, "2": "two", "x": 1}, t, kinds=())
    assert value[1] == 4 and 2 in value
    assert [(p.path, p.code) for p in problems] == [(("2",), Code.SETTING_TYPE_MISMATCH), (("x",), Code.SETTING_TYPE_MISMATCH)]


# ------------------------------------------------------------------------------ bundled rulesets
@pytest.mark.parametrize("name", ["base", "online", "online-xuandian", "qingdao", "qingdao-classic", "rulebook",
                                  "six-deck-eagle"])
def test_bundled_settings_are_all_typed_and_clean(name):
    settings, diags = check_settings(resolve(name))
    assert diags == []
    for info in settings.values():
        assert info.type is not None and info.type_source in TypeSource
    assert settings["seats"].type_source == TypeSource.ENGINE
    assert settings["gouji_minimum"].type == MapOf(RANK, Int(1, None))
    assert settings["gouji_minimum"].type_source == TypeSource.DECLARED
    assert settings["place_points"].value[1] == 4  # keys typed: the place number 1
    assert settings["comparison"].allowed is None and {k.key for k in settings["comparison"].sub_keys} >= {"model", "same_count"}


def test_the_settings_api_for_tools():
    s = settings_of(resolve("six-deck-eagle"))
    assert s["team_divisor"].type == INT and s["team_divisor"].type_source == TypeSource.INFERRED
    assert s["stuck_rank"].type == Nullable(RANK) and s["stuck_rank"].default is None
    model = s["comparison"].sub_keys[0]
    assert model.key == "model" and model.type == Enum(("cover", "positional")) and model.value == "cover"
    assert s["mixed_jokers_read_as_lowest"].allowed == (True, False)
    assert "E" in s.kinds and s.n_seats == 6


# ------------------------------------------------------------------------------ the examples
def test_misspelt_nested_keys_with_did_you_mean(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          comparison: {joker_cover: {equal_mny: 2}}
          gouji_minimum: {X: 3}
          revolution: {redeal_in_first_gmae: true}
    """)
    ds = errors(p)
    assert [(d.code, d.line) for d in ds] == [(Code.UNKNOWN_SETTING_KEY, 4), (Code.VALUE_NOT_ALLOWED, 5),
                                              (Code.UNKNOWN_SETTING_KEY, 6)]
    assert (ds[0].line, ds[0].col) == at(p, "equal_mny") and ds[0].hint.startswith("did you mean 'equal_many'?")
    assert "card kinds: 3 4 5" in ds[1].hint and (ds[1].line, ds[1].col) == at(p, "X: 3")
    assert ds[2].hint.startswith("did you mean 'redeal_in_first_game'?")


def test_a_misspelt_key_of_the_long_form_is_named(tmp_path):
    """`{value: 2, sayz: ...}` is the long form with a typo, not a map value: the stray key is
    reported with did-you-mean (not "yield_to is a map, but must be a whole number"), and the rest
    is read as the long form, so its value is still checked and no second problem follows."""
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          yield_to: {value: 2, sayz: "A yield hands the decision to the next two players."}
          house: {value: "x", typ: "int", says: "ours"}
          counts: {value: 1, other: 2}
          show_count_at: {value: 5, says: "five", extra: 1}
        rules:
          - id: house.x
            on: play
            deny: "settings.counts.other > settings.yield_to"
            says: "x"
    """)
    ds = errors(p)
    assert [(d.code, d.line) for d in ds] == [(Code.UNKNOWN_KEY, 4), (Code.UNKNOWN_KEY, 5), (Code.UNKNOWN_KEY, 7)]
    assert (ds[0].line, ds[0].col) == at(p, "sayz") and ds[0].hint.startswith("did you mean 'says'?")
    assert ds[1].hint.startswith("did you mean 'type'?") and "did you mean" not in ds[2].hint
    ok = write(tmp_path, """
        ruleset: ok
        extends: online
        settings:
          counts: {value: 1, other: 2}
        rules:
          - id: house.x
            on: play
            deny: "settings.counts.other > 1"
            says: "x"
    """, "ok.yaml")
    assert load_graph(ok).settings["counts"] == {"value": 1, "other": 2}  # a map value with a key `value`


def test_values_outside_their_set_list_the_vocabulary(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          comparison: {model: covr}
          seats: 1000000
          filler_rank: "10"
        rules:
          - id: x.place
            on: finish
            place: "'worst'"
          - id: x.burn
            on: burn_failure
            value: "'first'"
          - id: x.give
            on: seat_setup
            give: "'Z'"
    """)
    ds = errors(p)
    by_line = {d.line: d for d in ds}
    assert by_line[4].code == Code.VALUE_NOT_ALLOWED and "allowed: 'cover', 'positional'" in by_line[4].hint
    assert by_line[5].code == Code.OUT_OF_RANGE and "from 2 to 12" in by_line[5].message
    assert by_line[6].code == Code.VALUE_NOT_ALLOWED and by_line[6].hint.startswith("10 is written T")
    assert by_line[10].code == Code.VALUE_NOT_ALLOWED and "'last', 'next', 'after-finishers'" in by_line[10].hint
    assert by_line[10].col == at(p, "'worst'")[1]
    assert by_line[13].code == Code.VALUE_NOT_ALLOWED
    assert by_line[16].code == Code.NOT_A_CARD
    assert len(ds) == 6


def test_equal_many_with_same_count_has_no_effect(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          comparison:
            value: {joker_cover: {equal_many: 2}}
            says: "Two equal jokers beat one."
    """)
    g = load_graph(p)
    (w,) = g.warnings
    assert w.code == Code.SETTING_HAS_NO_EFFECT and w.severity == Severity.WARNING
    assert (w.line, w.col) == at(p, "2}}") and "same_count" in w.message
    from gouji_dsl.ruleset.lint import lint, quick_warnings
    assert w in lint(g) and w in quick_warnings(g)
    # with same_count false (two-kill-one) it takes effect: no warning
    assert load_graph("six-deck-eagle").warnings == ()


def test_declared_types_are_inherited_and_cannot_change(tmp_path):
    parent = write(tmp_path, """
        ruleset: parent
        extends: online
        settings:
          house_bonus:
            type: "int(0..)"
            value: 2
            says: "A bonus."
        rules:
          - id: x.bonus
            on: score
            value: "settings.house_bonus"
    """, "parent.yaml")
    child = write(tmp_path, """
        ruleset: child
        extends: parent.yaml
        settings:
          house_bonus:
            type: "int"
            value: -1
            says: "A malus."
    """)
    assert settings_of(resolve(parent))["house_bonus"].type_source == TypeSource.DECLARED
    ds = errors(child)
    assert sorted(d.code for d in ds) == sorted([Code.TYPE_CHANGED, Code.OUT_OF_RANGE])


def test_a_wrong_type_notation_is_positioned(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          house:
            type: "{rank -> intt}"
            value: {}
    """)
    (d,) = errors(p)
    assert d.code == Code.TYPE_SYNTAX and d.line == 5 and d.col == at(p, "intt")[1]


def test_engine_settings_cannot_be_retyped(tmp_path):
    p = write(tmp_path, """
        ruleset: child
        extends: online
        settings:
          seats:
            type: "int"
            value: 6
    """)
    (d,) = errors(p)
    assert d.code == Code.TYPE_CHANGED and "engine" in d.message


def test_the_engine_reads_typed_values(tmp_path):
    g = load_graph("rulebook")
    assert g.typed["deck"].value["remove"] == {"3": 10, "4": 10}
    assert g.model.filler is None and g.model.kinds[0] == "3"
