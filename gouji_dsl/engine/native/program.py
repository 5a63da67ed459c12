"""The per-ruleset program the native core runs: flat integer tables built from a compiled
:class:`~gouji_dsl.ruleset.graph.RuleGraph` (and, as the core grows, a verified bytecode per hook
emitted from the rules' typed trees), and the check of what the core plays.

:func:`program` builds (and caches by the resolved ruleset's hash) the tables; :func:`check`
raises :class:`~gouji_dsl.engine.native.Unsupported` naming what the core does not play yet, so
that the caller falls back visibly (to the interpreter). Every hook
a ruleset gives rules is listed against :data:`NATIVE_HOOKS` (the hooks whose rules the core
runs): a hook added to the language (``vocabulary.HOOKS``) is refused until the core handles it.
"""
from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from gouji_dsl.engine.native import Unsupported
from gouji_dsl.engine.native.tables import ruleset_hash
from gouji_dsl.ruleset.game.vocabulary import HOOKS
from gouji_dsl.ruleset.graph import RuleGraph

#: the hooks whose rules the native core runs (this session: none; the game flow comes next)
NATIVE_HOOKS: frozenset[str] = frozenset()

#: what the core plays of the game flow; a ruleset needs all of it (see :func:`check`)
GAME_FLOW_DONE = False

#: bump when the program built for the same ruleset changes (part of the cache key)
PROGRAM_VERSION = "1"

#: capacities of the core's arrays (gouji_dsl/engine/native/game.h: G_MAX_*)
MAX_SEATS, MAX_KINDS, MAX_CARDS = 16, 64, 2048


@dataclass(frozen=True)
class Program:
    """A ruleset as the core reads it: seats, kinds, the pack, the seat geometry."""

    name: str
    hash: str
    n_seats: int
    n_teams: int
    kinds: tuple[str, ...]
    n_ranks: int  # kinds 0..n_ranks-1 are ranks, the rest jokers (playout's NR)
    deck_kinds: bytes  # the kind index of each card of ``model.deck()``, in that order
    after: tuple[tuple[int, ...], ...]  # per seat 0..n (0 empty): the other seats in play order
    opposite: tuple[int, ...]  # per seat 0..n: the seat across the table
    team: tuple[int, ...]  # per seat 0..n: its team 1..n_teams
    hooks: tuple[tuple[str, tuple[str, ...]], ...]  # hooks with rules: (hook, rule ids in order)


_cache: OrderedDict[str, Program] = OrderedDict()
_lock = threading.Lock()
_CACHE_SIZE = 32


def program(graph: RuleGraph) -> Program:
    """The tables of ``graph`` (cached by the resolved ruleset's hash). Raises Unsupported for a
    ruleset that does not fit the core's arrays."""
    digest = hashlib.sha256(f"{PROGRAM_VERSION}:{ruleset_hash(graph)}".encode()).hexdigest()
    with _lock:
        got = _cache.get(digest)
        if got is not None:
            _cache.move_to_end(digest)
            return got
    built = _build(graph, digest)
    with _lock:
        _cache[digest] = built
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return built


def _build(graph: RuleGraph, digest: str) -> Program:
    model = graph.model
    n = graph.n_seats
    kinds = tuple(model.kinds)
    deck = model.deck()
    if not 1 <= n <= MAX_SEATS:
        raise Unsupported(f"{n} seats: the native core plays 1..{MAX_SEATS}")
    if len(kinds) > MAX_KINDS:
        raise Unsupported(f"{len(kinds)} card kinds: the native core holds at most {MAX_KINDS}")
    if len(deck) > MAX_CARDS:
        raise Unsupported(f"a pack of {len(deck)} cards: the native core holds at most {MAX_CARDS}")
    kidx = {k: i for i, k in enumerate(kinds)}
    n_teams = int(graph.settings["teams"])
    seats = range(1, n + 1)
    after = ((),) + tuple(tuple(((s - 1 + i) % n) + 1 for i in range(1, n)) for s in seats)
    opposite = (0,) + tuple((s - 1 + n // 2) % n + 1 for s in seats)
    team = (0,) + tuple((s - 1) % n_teams + 1 for s in seats)
    hooks = tuple((h, tuple(r.node.id for r in graph.by_hook[h])) for h in HOOKS if graph.by_hook.get(h))
    return Program(graph.name, digest, n, n_teams, kinds, int(model.n_ranks), bytes(kidx[c.symbol] for c in deck),
                   after, opposite, team, hooks)


def missing(graph: RuleGraph) -> list[str]:
    """What the native core does not play of ``graph``, in words (empty: it plays all of it)."""
    out: list[str] = []
    if not GAME_FLOW_DONE:
        out.append("the native core does not play the game flow yet (issue 24: tables and the deal are native so far)")
    for hook, ids in program(graph).hooks:
        if hook not in NATIVE_HOOKS:
            first = graph.node(ids[0])
            where = f" at {first.where}" if first is not None else ""
            out.append(f"the hook {hook!r} (rule {ids[0]}{where}{f' and {len(ids) - 1} more' if len(ids) > 1 else ''})")
    return out


def check(graph: RuleGraph) -> Program:
    """The program of ``graph`` if the native core plays all of it, else Unsupported naming what
    it does not play (the first few things)."""
    prog = program(graph)
    gaps = missing(graph)
    if gaps:
        more = f"; and {len(gaps) - 3} more" if len(gaps) > 3 else ""
        raise Unsupported("; ".join(gaps[:3]) + more)
    return prog


def deal(prog: Program, rng: Any, first: int = 1) -> tuple[list[int], list[list[int]]]:
    """``interpreter.deal_hands`` natively: shuffle the pack with the native generator ``rng``
    (advanced exactly as ``random.Random.shuffle`` advances the Python one) and deal it one card
    at a time from seat ``first``. Returns the deck positions in dealt order (card ``i`` goes to
    seat ``(first - 1 + i) % n + 1``; ``model.deck()[pos]`` is the card) and the count per kind of
    each seat's hand (index 0 an empty placeholder)."""
    from gouji_dsl.engine.native import _core_module
    order, hands = _core_module().deal(rng, prog.deck_kinds, prog.n_seats, len(prog.kinds), prog.n_ranks, first)
    return list(order), [list(h) for h in hands]
