"""The AEC environment (:class:`GoujiEnv`); see :mod:`gouji_dsl.env`."""
from __future__ import annotations

import operator
import random
from pathlib import Path
from typing import Any

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from gouji_dsl.bots.view import seat_view
from gouji_dsl.engine.interpreter import GameState, Move, new_game, next_game
from gouji_dsl.env.encoding import DEFAULT_MAX_ACTIONS, Encoding
from gouji_dsl.ruleset.graph import RuleGraph, load_graph

MAX_DECISIONS = 100_000
"""Decisions after which an episode is truncated (the simulator's own bound)."""


def _agent(seat: int) -> str:
    return f"seat_{seat}"


class GoujiEnv(AECEnv):  # type: ignore[misc]
    """One game of ``ruleset`` (a bundled name, a file, or a compiled :class:`RuleGraph`) per
    episode, seat by seat (see :mod:`gouji_dsl.env`). ``max_actions``: the action slots
    (:mod:`gouji_dsl.env.encoding`); ``engine``: ``"native"`` (the native core where it plays the
    ruleset, faster; the same games; ``"generated"``, its name before, too) or ``"interpreter"``. ``match=True``: an episode is a whole
    match (比赛) — the ruleset's ``match_length`` games, each after the first starting from the one
    before it (its between-game phase: tribute, return, the leader the rules name), as
    ``gouji simulate`` chains them; each seat is rewarded its score as each game ends (the episode's
    return is its match total) and the episode ends with the last game. Game 1 of a match episode is
    the game a one-game episode of the same seed plays."""

    metadata: dict[str, Any] = {"render_modes": ["ansi", "human"], "name": "gouji_v0", "is_parallelizable": False}

    def __init__(self, ruleset: str | Path | RuleGraph = "online", *, max_actions: int = DEFAULT_MAX_ACTIONS,
                 render_mode: str | None = None, engine: str = "native", match: bool = False):
        super().__init__()
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode {render_mode!r}: one of {self.metadata['render_modes']}")
        if max_actions < 1:
            raise ValueError(f"max_actions must be at least 1, not {max_actions}")
        self.graph = ruleset if isinstance(ruleset, RuleGraph) else load_graph(ruleset)
        self.render_mode = render_mode
        model = self.graph.model
        n = self.graph.n_seats
        self.encoding = Encoding(n, tuple(model.kinds), tuple(model.deck_counts), max_actions)
        self.possible_agents = [_agent(s) for s in range(1, n + 1)]
        self.agents: list[str] = []
        enc = self.encoding
        obs = spaces.Dict({
            "observation": spaces.Box(-1.0, enc.high, shape=(enc.size,), dtype=np.float32),
            "action_mask": spaces.Box(0, 1, shape=(max_actions,), dtype=np.int8),
        })
        self._obs_spaces = {a: obs if i == 0 else _copy_space(obs) for i, a in enumerate(self.possible_agents)}
        self._act_spaces = {a: spaces.Discrete(max_actions) for a in self.possible_agents}
        self._eng: Any = None
        if engine in ("native", "generated"):  # ("generated": the fast engine's name before the native core)
            from gouji_dsl.engine import fast
            self._eng = fast.engine(self.graph)
        elif engine != "interpreter":
            raise ValueError(f"engine {engine!r}: 'native' or 'interpreter'")
        from gouji_dsl.engine.interpreter import match_length
        self.match_games = match_length(self.graph) if match else 1  # games per episode
        self.game = 0  # the game of the episode being played (1 = first)
        self._game_seed = ""
        self._seeds = random.Random()
        self.state: GameState | None = None
        self._moves: list[Move] = []
        self._cut = 0
        self.rewards: dict[str, float] = {}
        self._cumulative_rewards: dict[str, float] = {}
        self.terminations: dict[str, bool] = {}
        self.truncations: dict[str, bool] = {}
        self.infos: dict[str, dict[str, Any]] = {}
        self.agent_selection = ""

    # ---------------------------------------------------------------- spaces
    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self._obs_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self._act_spaces[agent]

    # ---------------------------------------------------------------- episode
    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """A new game (or match): dealt from ``seed`` (the deal of ``random.Random(f"env:{x}")``, ``x`` the
        first draw of ``random.Random(seed)``; game k of a match from ``f"env:{x}:{k}"``), else from the next
        seed of the environment's own generator (seeded by the last ``seed`` given)."""
        if seed is not None:
            self._seeds = random.Random(seed)
        self._game_seed = f"env:{self._seeds.getrandbits(64)}"
        self.game = 1
        self.state = (self._eng.new_game(self._game_seed) if self._eng is not None
                      else new_game(self.graph, self._game_seed))
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos = {a: {} for a in self.agents}
        self._after_move()

    def _after_move(self) -> None:
        st = self.state
        assert st is not None
        if st.over and self.game < self.match_games:  # a game of the match ends: its scores, then the next game
            for a in self.agents:
                self.rewards[a] = float(st.scores.get(int(a.split("_")[1]), 0))
            ended = {"game": self.game, "places": dict(st.places), "scores": dict(st.scores)}
            self.game += 1
            seed = f"{self._game_seed}:{self.game - 1}"
            self.state = st = (self._eng.next_game(st, seed) if self._eng is not None else next_game(st, seed))
            for a in self.agents:
                self.infos[a] = {"game_over": ended}
        if st.over:
            self._moves = []
            for a in self.agents:
                self.terminations[a] = True
                self.rewards[a] = float(st.scores.get(int(a.split("_")[1]), 0))
                self.infos[a] = {"places": dict(st.places), "scores": dict(st.scores)}
                if self.match_games > 1:
                    self.infos[a]["game"] = self.game
            return
        if st.decisions >= MAX_DECISIONS:  # pragma: no cover - no bundled ruleset comes near it
            for a in self.agents:
                self.truncations[a] = True
            return
        legal = self._eng.legal_moves(st) if self._eng is not None else st.legal_moves()
        cap = self.encoding.max_actions
        self._moves = list(legal[:cap]) if len(legal) > cap else list(legal)
        self._cut = max(0, len(legal) - cap)
        seat = st.to_act
        assert seat is not None
        self.agent_selection = _agent(seat)
        info = self.infos.get(self.agent_selection, {})
        self.infos[self.agent_selection] = ({"moves_cut": self._cut} if self._cut else {}) | (
            {"game_over": info["game_over"]} if "game_over" in info else {})

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        st = self.state
        assert st is not None
        seat = int(agent.split("_")[1])
        view = seat_view(st, seat, history=False)
        mask = np.zeros(self.encoding.max_actions, dtype=np.int8)
        if agent == self.agent_selection and not st.over:
            mask[:len(self._moves)] = 1
        return {"observation": self.encoding.observation(view), "action_mask": mask}

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations.get(agent) or self.truncations.get(agent):
            self._was_dead_step(action)
            return
        st = self.state
        assert st is not None
        if action is None:  # (PettingZoo: None is the action of a dead agent only)
            raise ValueError(f"{agent}: step(None) is for an agent whose game is over; {agent} is to act "
                             f"(give an index 0..{len(self._moves) - 1} the action mask offers)")
        try:
            i = operator.index(action)
        except TypeError:
            raise ValueError(f"{agent}: the action is an index into the legal moves (0..{len(self._moves) - 1}), "
                             f"not {action!r}") from None
        if not 0 <= i < len(self._moves):
            raise ValueError(f"{agent}: action {i} is not legal now (the mask offers 0..{len(self._moves) - 1})")
        move = self._moves[i]
        self.infos[agent].pop("game_over", None)  # (seen at its turn after a game of the match ended)
        self._cumulative_rewards[agent] = 0.0
        for a in self.agents:
            self.rewards[a] = 0.0
        if self._eng is not None:
            self._eng.apply(st, move, trusted=True)
        else:
            st.apply_in_place(move, trusted=True)
        self._after_move()
        self._accumulate_rewards()
        if self.render_mode == "human":
            print(self.render())

    # ---------------------------------------------------------------- what the slots are
    def action_lines(self) -> list[str]:
        """The move line of every offered action slot of the seat to act (index = action)."""
        st = self.state
        assert st is not None
        return [m.text(st.model) for m in self._moves]

    def action_cards(self) -> np.ndarray:
        """The cards of every offered action slot (``n × K`` counts; zeros for pass, yield, ...)."""
        K = len(self.encoding.kinds)
        out = np.zeros((len(self._moves), K), dtype=np.float32)
        for i, m in enumerate(self._moves):
            if m.cards is not None:
                out[i] = m.cards
        return out

    def render(self) -> str:
        """The table as the seat to act sees it (text)."""
        st = self.state
        if st is None:
            return "(no game: reset first)"
        if st.over:
            return f"game over: places {dict(sorted(st.places.items()))}, scores {dict(sorted(st.scores.items()))}"
        v = seat_view(st, st.to_act, history=False)
        top = "empty table" if v.top is None else f"seat {v.top[0]} played {v.top[1]}"
        return f"seat {v.seat} to {v.capacity} ({v.phase}): {top}; hand {v.hand}; {len(self._moves)} legal moves"

    def close(self) -> None:
        self.state = None


def _copy_space(space: spaces.Dict) -> spaces.Dict:
    out: dict[str, Any] = {}
    for k, v in space.spaces.items():
        assert isinstance(v, spaces.Box)
        out[k] = spaces.Box(v.low, v.high, shape=v.shape, dtype=v.dtype.type)
    return spaces.Dict(out)


def raw_env(ruleset: str | Path | RuleGraph = "online", **kw: Any) -> GoujiEnv:
    """The environment itself (PettingZoo's naming)."""
    return GoujiEnv(ruleset, **kw)


def env(ruleset: str | Path | RuleGraph = "online", **kw: Any) -> Any:
    """The environment behind PettingZoo's order-enforcing wrapper (its usual entry point)."""
    from pettingzoo.utils import wrappers
    return wrappers.OrderEnforcingWrapper(raw_env(ruleset, **kw))


__all__ = ["MAX_DECISIONS", "GoujiEnv", "env", "raw_env"]
