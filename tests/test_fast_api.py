"""The fast engine API (gouji_dsl/engine/fast.py) refuses what the interpreter refuses: an illegal
move given to ``Engine.apply`` and a seat that does not exist, instead of corrupting the state."""
from __future__ import annotations

import pytest

from gouji_dsl.diagnostics import Code, GoujiError
from gouji_dsl.engine import fast
from gouji_dsl.engine.interpreter import IllegalMove, Move, new_game
from gouji_dsl.ruleset.graph import load_graph


@pytest.fixture(scope="module")
def eng():
    e = fast.engine(load_graph("online"))
    assert e is not None
    return e


def test_apply_refuses_an_illegal_move_and_leaves_the_state(eng):
    state = eng.new_game("api:1")
    other = eng.new_game("api:2")
    legal = eng.legal_moves(state)
    foreign = next(m for m in eng.legal_moves(other) if m not in legal)  # another seat's move
    before = [state.hand_size(s) for s in range(1, 7)]
    n_record = len(state.record)
    for bad in (foreign, Move(seat=1, verb=foreign.verb, cards=(9,) * len(state.kinds), arg="")):
        with pytest.raises(IllegalMove):
            eng.apply(state, bad)
    assert [state.hand_size(s) for s in range(1, 7)] == before
    assert len(state.record) == n_record
    # a legal move is applied as before, checked or trusted, and the game goes on as the interpreter's
    ref = new_game(eng.graph, "api:1")
    for trusted in (False, True, False):
        m = eng.legal_moves(state)[0]
        eng.apply(state, m, trusted=trusted)
        ref.apply_in_place(m)
    assert eng.render_record(state) == ref.record


@pytest.mark.parametrize("kw", [{"leader": 9}, {"leader": 0}, {"leader": -1}, {"hands": {7: []}}])
def test_new_game_refuses_a_seat_that_does_not_exist(eng, kw):
    for start in (eng.new_game, lambda s, **k: new_game(eng.graph, s, **k)):
        with pytest.raises(GoujiError) as e:
            start("api:3", **kw)
        assert e.value.diagnostics[0].code == Code.BAD_SEAT


@pytest.mark.parametrize("args", [["--generated", "--graph"], ["--generated", "--format", "mermaid"],
                                  ["--generated", "--settings"], ["--generated", "--vocabulary"],
                                  ["--settings", "--graph"]])
def test_show_refuses_options_that_print_different_things(args):
    """`gouji show online --generated --graph` printed the module and ignored --graph: refused now."""
    from click.testing import CliRunner

    from gouji_dsl.tools.cli import cli
    res = CliRunner().invoke(cli, ["show", "online", *args])
    assert res.exit_code == 2, res.output
    assert "does not combine with" in res.output
    assert "Traceback" not in res.output
