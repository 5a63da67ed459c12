"""A PettingZoo AEC environment for any ruleset (``pip install gouji-dsl[env]``; README "A PettingZoo environment").

::

    from gouji_dsl.env import GoujiEnv
    env = GoujiEnv("qingdao")
    env.reset(seed=1)
    for agent in env.agent_iter():
        obs, reward, terminated, truncated, info = env.last()
        action = None if terminated or truncated else env.action_space(agent).sample(obs["action_mask"])
        env.step(action)

Agents are ``seat_1`` … ``seat_N`` (play order). Observations come from the seat's view only
(:func:`gouji_dsl.bots.view.seat_view`: never another seat's hidden cards), encoded by
:mod:`gouji_dsl.env.encoding`; the action is an index into the seat's legal moves in the engine's
order, with a mask (:data:`~gouji_dsl.env.encoding.DEFAULT_MAX_ACTIONS` slots by default). Each
episode is one game (no match: no tribute from a previous game); its reward, at the end, is each
seat's score. With ``GoujiEnv(ruleset, match=True)`` an episode is the ruleset's whole match (tribute
between its games), each seat rewarded its score as each game ends. This package is the only one that
imports PettingZoo and Gymnasium.
"""
from __future__ import annotations

from gouji_dsl.env.aec import GoujiEnv, env, raw_env
from gouji_dsl.env.encoding import DEFAULT_MAX_ACTIONS, Encoding

__all__ = ["DEFAULT_MAX_ACTIONS", "Encoding", "GoujiEnv", "env", "raw_env"]
