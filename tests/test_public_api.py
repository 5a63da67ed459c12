"""Issue 9 item 7: the declared public API (gouji_dsl/__init__.py), imported lazily."""
from __future__ import annotations

import subprocess
import sys

import pytest

import gouji_dsl as gj


def _modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys; print(' '.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_import_is_lazy():
    mods = _modules_after("import gouji_dsl")
    assert not {m for m in mods if m.startswith(("gouji_dsl.engine", "gouji_dsl.ruleset", "gouji_dsl.lang", "lark", "yaml"))}


def test_the_library_cli_does_not_import_the_engine():
    mods = _modules_after("import gouji_dsl.tools.cli")
    assert not {m for m in mods if m.startswith(("gouji_dsl.engine", "gouji_dsl.lang", "lark", "textual"))}


def test_every_public_name_resolves():
    for name in gj.__all__:
        if name == "Outcome":
            pytest.importorskip("gouji_dsl.engine.outcome")
        assert getattr(gj, name) is not None, name
    assert set(dir(gj)) >= set(gj.__all__)
    with pytest.raises(AttributeError):
        gj.no_such_name  # noqa: B018


def test_the_pipeline_through_the_public_api():
    ruleset = gj.load("online")
    assert isinstance(ruleset, gj.ResolvedRuleset) and ruleset.name == "online"
    graph = gj.compile(ruleset)
    state = gj.new_game(graph, seed=7)
    steps = 0
    while gj.legal_moves(state) and steps < 20_000:
        move = gj.legal_moves(state)[0]
        why = gj.explain(state, move)
        assert isinstance(why, gj.Explanation)
        assert all(r.pos is None or isinstance(r.pos, gj.SourcePos) for r in why.reasons)
        state = gj.apply(state, move)
        steps += 1
    assert not gj.legal_moves(state), "the game ends"
    outcome = getattr(state, "outcome", None)
    if outcome is not None:
        assert isinstance(outcome, gj.Outcome) and sorted(outcome.places.values()) == list(range(1, 7))


def test_errors_are_typed_and_positioned(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text("ruleset: bad\nextends: online\ntitel: x\n", encoding="utf-8")
    with pytest.raises(gj.GoujiError) as info:
        gj.load(bad)
    (d,) = info.value.diagnostics
    assert isinstance(d, gj.Diagnostic) and d.code == gj.Code.UNKNOWN_KEY and d.pos == gj.SourcePos(str(bad), 3, 1, 3, 6)
    result = gj.check(bad)
    assert isinstance(result, gj.CheckResult) and [e.code for e in result.errors] == [gj.Code.UNKNOWN_KEY]
