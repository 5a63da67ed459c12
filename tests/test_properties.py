"""Property tests: random games conserve every card, end, and apply only legal moves; replay
reproduces them (issue 2, "Tests")."""
import functools
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gouji_dsl.engine.interpreter import new_game, replay
from gouji_dsl.ruleset.graph import load_graph


@functools.cache
def _online():
    """The online ruleset, compiled when a test first needs it (not while the suite is collected)."""
    return load_graph("online")


def _play(graph, seed, max_steps=20_000):
    rng = random.Random(seed)
    state = new_game(graph, seed)
    total = sum(graph.model.deck_counts)
    played = 0
    steps = 0
    while not state.over:
        moves = state.legal_moves()
        assert moves, f"seat {state.to_act} has no move in phase {state.phase}"
        m = rng.choice(moves)
        assert state.check(m)
        if m.cards is not None and state.phase == "play":
            played += sum(m.cards)
        before_redeals = state.redealt
        state.apply_in_place(m)
        if state.redealt and not before_redeals:
            played = 0
        held = sum(sum(state.hands[s]) for s in state.seat_list)
        assert held + played == total
        steps += 1
        assert steps < max_steps
    return state


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(min_value=0, max_value=10**9))
def test_random_games_conserve_cards_and_end(seed):
    state = _play(_online(), seed)
    assert sorted(state.places.values()) == list(range(1, 7))
    t1 = state.scores[1]
    assert all(state.scores[s] == t1 for s in (3, 5)) and all(state.scores[s] == -t1 for s in (2, 4, 6))


@settings(max_examples=10, deadline=None)
@given(st.integers(min_value=0, max_value=10**9))
def test_replay_reproduces_random_games(seed):
    state = _play(_online(), seed)
    again = replay(_online(), state.record)
    assert again.record == state.record
