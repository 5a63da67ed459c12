"""The PettingZoo environment (issue 28): PettingZoo's own API and seed tests on every bundled ruleset,
observations from the seat's view only, the action mask, the example loop."""
from __future__ import annotations

import random
import runpy
import sys
import warnings
from pathlib import Path

import pytest

pytest.importorskip("pettingzoo", reason="the env extra is in the [test] extra")

import numpy as np
from pettingzoo.test import api_test, seed_test

from gouji_dsl.bots.view import seat_view
from gouji_dsl.env import GoujiEnv, env
from gouji_dsl.resources import bundled_names

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("ruleset", bundled_names())
def test_pettingzoo_api_and_seed_tests_pass(ruleset):
    with warnings.catch_warnings():
        # (PettingZoo warns that a Dict observation is not a Box: the action-masked form it recommends)
        warnings.simplefilter("ignore", UserWarning)
        # (the interpreter: the generated engine's first game of six-deck-eagle plans its native flow, seconds;
        # both engines play the same games: test_a_seeded_game_is_the_same_on_both_engines...)
        api_test(GoujiEnv(ruleset, engine="interpreter"), num_cycles=10)
        seed_test(lambda: GoujiEnv(ruleset, engine="interpreter"), num_cycles=10)


def _play(e, seed, pick):
    e.reset(seed=seed)
    out = []
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        if terminated or truncated:
            e.step(None)
            continue
        legal = np.flatnonzero(obs["action_mask"])
        assert len(legal) == len(e.action_lines()) and legal[-1] == len(legal) - 1
        a = pick(legal)
        out.append((agent, e.action_lines()[a]))
        e.step(a)
    return out, dict(e.state.scores)


def test_a_seeded_game_is_the_same_on_both_engines_and_ends_with_the_scores_as_rewards():
    rng1, rng2 = random.Random(3), random.Random(3)
    a = _play(GoujiEnv("online"), 7, lambda legal: int(legal[rng1.randrange(len(legal))]))
    b = _play(GoujiEnv("online", engine="interpreter"), 7, lambda legal: int(legal[rng2.randrange(len(legal))]))
    assert a == b and len(a[0]) > 50


def test_rewards_are_the_scores():
    e = GoujiEnv("online")
    e.reset(seed=2)
    total = {}
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] = total.get(agent, 0) + reward
        e.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert total == {f"seat_{s}": float(v) for s, v in e.state.scores.items()}


def test_pettingzoo_api_and_seed_tests_pass_on_a_match_episode():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        api_test(GoujiEnv("qingdao", match=True), num_cycles=10)
        seed_test(lambda: GoujiEnv("qingdao", match=True), num_cycles=10)


def test_a_match_episode_plays_the_rulesets_match_with_tribute_between_games():
    # base.yaml tribute.match: "A match is a run of games with tribute between them" (RULES.md §8);
    # rulebook's match_games is 5
    e = GoujiEnv("rulebook", match=True)
    assert e.match_games == 5
    e.reset(seed=4)
    total, ended, gives = {}, [], set()
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        total[agent] = total.get(agent, 0) + reward
        if "game_over" in info and info["game_over"] not in ended:
            ended.append(info["game_over"])
        if e.state.game_number > 1 and any(" gives " in h.line for h in seat_view(e.state, 1).history):
            gives.add(e.state.game_number)
        e.step(None if terminated or truncated else int(np.flatnonzero(obs["action_mask"])[0]))
    assert [g["game"] for g in ended] == [1, 2, 3, 4] and e.game == 5 and e.state.game_number == 5
    # each seat's return is its match total: the scores of the five games
    assert total == {f"seat_{s}": float(sum(g["scores"][s] for g in ended) + e.state.scores[s]) for s in range(1, 7)}
    assert gives  # tribute paid in a later game of the match (the places of the game before)
    # game 1 of a match episode is the one-game episode of the same seed
    one = GoujiEnv("rulebook")
    one.reset(seed=4)
    match = GoujiEnv("rulebook", match=True)
    match.reset(seed=4)
    for agent in one.agent_iter():
        obs, _r, terminated, truncated, _i = one.last()
        if terminated or truncated:
            one.step(None)
            continue
        assert match.agent_selection == agent and match.action_lines() == one.action_lines()
        one.step(0)
        match.step(0)
    assert match.infos["seat_1"]["game_over"]["scores"] == one.state.scores and match.state.game_number == 2


def test_an_observation_holds_only_what_the_seat_sees():
    from gouji_dsl.engine.interpreter import hands_from_text
    e = GoujiEnv("online", engine="interpreter")
    e.reset(seed=1)
    st = e.state
    hands = {s: st.hand_text(s) for s in st.seat_list}
    seen = e.observe("seat_1")["observation"]
    # the other seats' cards swapped around: seat 1's observation is the same
    swapped = {1: hands[1], 2: hands[3], 3: hands[2], 4: hands[5], 5: hands[6], 6: hands[4]}
    from gouji_dsl.engine.interpreter import new_game
    e.state = new_game(e.graph, None, hands=hands_from_text(e.graph, swapped), leader=st.to_act)
    e._after_move()
    assert np.array_equal(e.observe("seat_1")["observation"], seen)


def test_an_illegal_action_is_refused():
    e = GoujiEnv("qingdao", max_actions=64)
    e.reset(seed=1)
    with pytest.raises(ValueError, match="is not legal now"):
        e.step(63)
    assert e.action_space(e.agent_selection).n == 64
    with pytest.raises(ValueError, match=r"step\(None\) is for an agent whose game is over"):
        e.step(None)  # (PettingZoo: None only for a dead agent)
    with pytest.raises(ValueError, match="the action is an index into the legal moves"):
        e.step("1 pass")
    e.step(np.int64(0))  # a numpy integer is an index


def test_the_wrapped_env_and_the_example_loop(monkeypatch, capsys):
    w = env("rulebook")
    w.reset(seed=1)
    assert w.agent_selection.startswith("seat_")
    monkeypatch.setattr(sys, "argv", ["env_loop.py", "rulebook", "--episodes", "10"])
    runpy.run_path(str(ROOT / "examples" / "env_loop.py"), run_name="__main__")
    assert "odd team's mean score" in capsys.readouterr().out
    monkeypatch.setattr(sys, "argv", ["env_loop.py", "rulebook", "--episodes", "2", "--match"])
    runpy.run_path(str(ROOT / "examples" / "env_loop.py"), run_name="__main__")
    assert "weights per card kind played" in capsys.readouterr().out
