"""The environment's observation and action encodings for one ruleset (README "The action encoding").

**Observation** (``float32``, length ``N * (2K + 5) + K + 2N + P + C``; N seats, K card kinds of the
ruleset, P phases, C capacities), read from the seat's :class:`~gouji_dsl.bots.view.SeatView`:

- one row per seat, the observer first, then the seats after it in play order: ``count`` (cards held;
  -1 when the ruleset does not show it), ``hand`` (K counts; -1 each when not shown; the observer's
  own hand in its row), ``played`` (K counts: its cards played face up this game), ``teammate``
  (1/0; the observer's row 1), ``place`` (0 while it plays), ``passed`` (1/0 in this trick),
  ``revolted`` (1/0);
- the play on the table: K counts, and its seat one-hot (N, relative to the observer; all zeros
  when the table is empty);
- the burner (烧牌 in progress) one-hot (N, relative);
- the phase one-hot (P) and the seat's capacity one-hot (C: lead, follow, burn, …).

**Actions**: ``Discrete(max_actions)``; action ``i`` is the ``i``-th legal move of the seat to act,
in the engine's order (the same order ``gouji`` lists them: card moves by the interpreter's
enumeration, then pass / yield / the other verbs). ``action_mask[i]`` is 1 for ``i`` below the number
of legal moves. The index of a given move depends on the position, so a policy that wants to read
what each slot is gets the slots' cards (:meth:`GoujiEnv.action_cards`, an ``n × K`` array) or
their move lines (:meth:`GoujiEnv.action_lines`). A ruleset's plays can number in the thousands
(measured under random play: 608 at most on the four-deck rulesets, 2,952 on six-deck-eagle); the
encoding is a fixed maximum with the mask, :data:`DEFAULT_MAX_ACTIONS` (4,096) unless given: a
position with more legal moves offers the first ``max_actions`` of them and counts the rest in its
info (``moves_cut``).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from gouji_dsl.bots.view import SeatView
from gouji_dsl.ruleset.game.terms import Capacity, Phase

DEFAULT_MAX_ACTIONS = 4096
"""Action slots unless ``max_actions`` is given (a fixed maximum; the mask marks the legal ones)."""

PHASES: tuple[str, ...] = tuple(Phase)
CAPACITIES: tuple[str, ...] = tuple(Capacity)


@dataclass(frozen=True)
class Encoding:
    """The encodings of a ruleset with ``seats`` seats and card ``kinds`` (its order)."""

    seats: int
    kinds: tuple[str, ...]
    deck: tuple[int, ...]
    max_actions: int = DEFAULT_MAX_ACTIONS

    @property
    def row(self) -> int:
        return 2 * len(self.kinds) + 5

    @property
    def size(self) -> int:
        """The observation's length."""
        K, N = len(self.kinds), self.seats
        return N * self.row + K + 2 * N + len(PHASES) + len(CAPACITIES)

    @property
    def high(self) -> float:
        """The largest value an observation holds (every card of the pack, or the last place)."""
        return float(max(sum(self.deck), self.seats))

    def counts(self, text: str | None) -> np.ndarray:
        """The count vector of a canonical card text (-1s for None: not shown)."""
        K = len(self.kinds)
        cache = self.__dict__.setdefault("_counts", {})
        if text is None:
            unseen = cache.get(None)
            if unseen is None:
                unseen = cache[None] = np.full(K, -1.0, dtype=np.float32)
                unseen.flags.writeable = False
            return unseen  # type: ignore[no-any-return]
        got = cache.get(text)
        if got is not None:
            return got  # type: ignore[no-any-return]
        if len(cache) > 4096:
            cache.clear()
        out = cache[text] = np.zeros(K, dtype=np.float32)
        index = self._index
        for group in text.split():
            for ch in group:
                i = index.get(ch)
                if i is not None:
                    out[i] += 1
        out.flags.writeable = False  # (shared by every observation that holds this text)
        return out

    @property
    def _index(self) -> dict[str, int]:
        got = self.__dict__.get("_idx")
        if got is None:
            got = {k: i for i, k in enumerate(self.kinds)}
            object.__setattr__(self, "_idx", got)
        return got

    def observation(self, view: SeatView) -> np.ndarray:
        """The observation vector of ``view`` (see the module docstring)."""
        N, K = self.seats, len(self.kinds)
        out = np.zeros(self.size, dtype=np.float32)
        me = view.seat
        places = dict(view.places)
        passed, revolted = set(view.passed), set(view.revolted)
        others = {o.seat: o for o in view.others}
        row = self.row
        for r in range(N):
            s = (me - 1 + r) % N + 1
            base = r * row
            if s == me:
                hand = self.counts(view.hand)
                count: float = float(hand.sum())
                played = self.counts(view.played)
                mate = 1.0
            else:
                o = others[s]
                hand = self.counts(o.hand)
                count = -1.0 if o.count is None else float(o.count)
                played = self.counts(o.played)
                mate = 1.0 if o.team == view.team else 0.0
            out[base] = count
            out[base + 1:base + 1 + K] = hand
            out[base + 1 + K:base + 1 + 2 * K] = played
            out[base + 1 + 2 * K] = mate
            out[base + 2 + 2 * K] = places.get(s, 0)
            out[base + 3 + 2 * K] = 1.0 if s in passed else 0.0
            out[base + 4 + 2 * K] = 1.0 if s in revolted else 0.0
        at = N * row
        if view.top is not None:
            out[at:at + K] = self.counts(view.top[1])
            out[at + K + (view.top[0] - me) % N] = 1.0
        at += K + N
        if view.burner is not None:
            out[at + (view.burner - me) % N] = 1.0
        at += N
        if view.phase in PHASES:
            out[at + PHASES.index(view.phase)] = 1.0
        at += len(PHASES)
        if view.capacity in CAPACITIES and view.phase not in (Phase.OVER,):
            out[at + CAPACITIES.index(view.capacity)] = 1.0
        return out


__all__ = ["CAPACITIES", "DEFAULT_MAX_ACTIONS", "PHASES", "Encoding"]
