"""The DSL compiler: every problem in a file reported with file:line:col and a hint."""
import pytest

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.ruleset.graph import RuleFailed, load_graph


def _errors(tmp_path, body):
    p = tmp_path / "bad.yaml"
    p.write_text("ruleset: bad\nextends: online\n" + body, encoding="utf-8")
    with pytest.raises(GoujiError) as e:
        load_graph(p)
    return p, e.value.diagnostics


def test_misspelt_function_with_position_and_hint(tmp_path):
    p, ds = _errors(tmp_path, "rules:\n  - id: x.y\n    on: follow\n    require: \"seat == oposite(top.seat)\"\n")
    (d,) = ds
    assert (d.path, d.line, d.col) == (str(p), 6, 23)
    assert "unknown name 'oposite'" in d.message and d.hint == "did you mean 'opposite'?"


def test_unknown_hook_and_wrong_effect_kind(tmp_path):
    _, ds = _errors(tmp_path, "rules:\n  - id: a.b\n    on: folow\n    allow: \"true\"\n"
                              "  - id: c.d\n    on: follow_order\n    allow: \"true\"\n")
    msgs = [d.message for d in ds]
    assert any("unknown hook 'folow'" in m for m in msgs)
    assert any("takes value / order, not 'allow'" in m for m in msgs)
    assert [d.line for d in ds] == [5, 9]


def test_type_errors_and_context_names(tmp_path):
    _, ds = _errors(tmp_path, "rules:\n  - id: a.b\n    on: follow\n    require: \"play.count > 2\"\n"
                              "  - id: c.d\n    on: gouji\n    value: \"play.count + true\"\n")
    assert "not known when the 'follow' question is asked" in ds[0].hint
    assert "arithmetic needs numbers" in ds[1].message


def test_syntax_error_position(tmp_path):
    _, ds = _errors(tmp_path, "rules:\n  - id: a.b\n    on: follow\n    require: \"seat == (opposite(top.seat)\"\n")
    (d,) = ds
    assert d.line == 6 and "unexpected end of the expression" in d.message


def test_unknown_setting_suggests(tmp_path):
    _, ds = _errors(tmp_path, "rules:\n  - id: a.b\n    on: gouji\n    value: \"play.count >= settings.gouji_minimun\"\n")
    assert ds[0].hint == "did you mean 'gouji_minimum'?"


def test_settings_type_is_checked(tmp_path):
    _, ds = _errors(tmp_path, "settings:\n  seats: six\n")
    assert "must be a whole number" in ds[0].message and ds[0].line == 4


def test_a_setting_of_the_wrong_type_is_caught_when_the_rule_is_checked(tmp_path):
    # `limits` is typed from its value ({rank -> text}): comparing a count with it cannot work
    p = tmp_path / "rt.yaml"
    p.write_text("ruleset: rt\nextends: online\nsettings:\n  limits: {T: five}\nrules:\n  - id: gouji.minimum\n"
                 "    on: gouji\n    value: \"play.rank in settings.limits and play.count >= settings.limits[play.rank]\"\n",
                 encoding="utf-8")
    with pytest.raises(GoujiError) as e:
        load_graph(p)
    (d,) = e.value.diagnostics
    assert d.code == Code.TYPE_MISMATCH and (d.path, d.line) == (str(p), 8)
    assert "gouji.minimum" in d.message and "cannot compare int with text" in d.message


def test_rule_failing_at_run_time_names_the_rule(tmp_path):
    p = tmp_path / "rt.yaml"
    p.write_text("ruleset: rt\nextends: online\nrules:\n  - id: gouji.minimum\n"
                 "    on: gouji\n    value: \"play.jokers > 0 or play.count // (play.count - play.count) > 1\"\n",
                 encoding="utf-8")
    g = load_graph(p)
    with pytest.raises(RuleFailed) as e:
        g.model.classify(g.model.parse("TTTTT"))
    (d,) = e.value.diagnostics
    assert isinstance(e.value, GoujiError) and d.code == Code.RULE_FAILED and e.value.rule_id == "gouji.minimum"
    assert (d.path, d.line) == (str(p), 4) and "division by zero: 5 // 0" in d.message
    assert e.value.where is not None and e.value.where.line == 6


def test_a_child_setting_keeps_the_kind_of_value_of_its_parent(tmp_path):
    _, ds = _errors(tmp_path, "settings:\n  place_points: {1: four}\n  gouji_minimum: {K: \"two\"}\n")
    assert [(d.line, d.code) for d in ds] == [(4, Code.SETTING_TYPE_MISMATCH), (5, Code.SETTING_TYPE_MISMATCH)]
    assert ds[0].message.startswith("setting place_points.1 is text") and "whole number" in ds[0].message
    assert ds[1].message.startswith("setting gouji_minimum.K is text") and "whole number" in ds[1].message
    # an installed package shows <bundled>/base.yaml, a source checkout (run from inside it) rules/base.yaml
    assert "{place -> int}" in ds[0].hint and "<bundled>/base.yaml" in ds[0].hint.replace("rules/", "<bundled>/")


def test_all_errors_of_a_file_together(tmp_path):
    _, ds = _errors(tmp_path, "rules:\n  - id: a.b\n    on: follow\n    require: \"x\"\n"
                              "  - id: c.d\n    on: follow\n    require: \"y\"\n  - id: e.f\n    on: follow\n    require: \"z\"\n")
    assert len(ds) == 3


def test_child_overrides_and_removes_by_id(tmp_path):
    p = tmp_path / "child.yaml"
    p.write_text("ruleset: child\nextends: online\nremove: [yield.someone-left]\nrules:\n"
                 "  - id: burn.failure-last\n    on: burn_failure\n    value: \"'next'\"\n", encoding="utf-8")
    g = load_graph(p)
    assert g.node("yield.someone-left") is None
    n = g.node("burn.failure-last")
    assert n.expr == "'next'" and n.overrides is not None and n.overrides.path.endswith("base.yaml")


def test_syntax_errors_reported_with_structural_errors(tmp_path):
    p = tmp_path / "d.yaml"
    p.write_text('ruleset: d\nextends: online\ntitel: Broken\nrules:\n  - id: x.two\n    on: follow\n'
                 '    when: "top.gouji and"\n    require: "true"\n', encoding="utf-8")
    with pytest.raises(GoujiError) as e:
        load_graph(p)
    assert [(d.line, d.col) for d in e.value.diagnostics] == [(3, 1), (7, 25)]
