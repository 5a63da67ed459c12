"""The PettingZoo loop on a Gouji ruleset, with a tiny learner (nothing heavy: numpy only).

    pip install 'gouji-dsl[env]'
    python examples/env_loop.py                       # qingdao, 30 episodes
    python examples/env_loop.py online --episodes 100
    python examples/env_loop.py rulebook --match      # an episode is a whole match (tribute between games)

The odd seats (one team) share a linear softmax policy over the action slots' cards
(``env.action_cards()``: what each legal move plays) and learn it with REINFORCE from the team's
score at the end of each episode (a game, or with ``--match`` the match total); the even seats play uniformly among the legal moves.
"""
from __future__ import annotations

import argparse

import numpy as np

from gouji_dsl.env import GoujiEnv


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("ruleset", nargs="?", default="qingdao")
    ap.add_argument("--episodes", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--lr", type=float, default=0.01)
    ap.add_argument("--match", action="store_true", help="an episode is the ruleset's whole match")
    a = ap.parse_args()
    env = GoujiEnv(a.ruleset, match=a.match)
    rng = np.random.default_rng(a.seed)
    w = np.zeros(len(env.encoding.kinds) + 1)  # a weight per card kind played, and one for playing no card
    scores = []
    for episode in range(a.episodes):
        env.reset(seed=a.seed + episode)
        grads = []
        team = 0.0  # seat 1's return: its team's score (each game's, as each game ends)
        for agent in env.agent_iter():
            obs, reward, terminated, truncated, info = env.last()
            if agent == "seat_1":
                team += reward
            if terminated or truncated:
                env.step(None)
                continue
            legal = np.flatnonzero(obs["action_mask"])
            if int(agent.split("_")[1]) % 2 == 0:  # the even seats: uniform among the legal moves
                env.step(int(rng.choice(legal)))
                continue
            cards = env.action_cards()  # one row per legal slot
            x = np.hstack([cards, (cards.sum(axis=1, keepdims=True) == 0)])
            logits = x @ w
            p = np.exp(logits - logits.max())
            p /= p.sum()
            i = int(rng.choice(len(legal), p=p))
            grads.append(x[i] - p @ x)  # d log p(i) / d w
            env.step(int(legal[i]))
        scores.append(team)
        if grads:
            w += a.lr * float(team) * np.mean(grads, axis=0)
        if (episode + 1) % 10 == 0:
            print(f"episodes {episode - 8}-{episode + 1}: odd team's mean score {np.mean(scores[-10:]):+.2f}")
    print("weights per card kind played:", {k: round(float(v), 3) for k, v in zip(env.encoding.kinds, w[:-1])},
          "no card:", round(float(w[-1]), 3))


if __name__ == "__main__":
    main()
