"""The question context: what an expression of a rule sees when a hook is asked (``Ctx``), and a play
on the table as rules see it (``TablePlay``: ``top``, ``play``, ``beaten``).

The engine fills a :class:`Ctx` for every question it puts to the rule graph; compiling a ruleset
builds one too (the ``gouji`` question the card model asks, :func:`gouji_dsl.ruleset.graph.compile_ruleset`).
``Ctx.g`` is the game (the engine's ``GameState``, read through the vocabulary,
:mod:`gouji_dsl.ruleset.game.vocabulary`), or None where no game exists.
"""
from __future__ import annotations

from typing import Any

from gouji_dsl.ruleset.game.model import Play


class TablePlay:
    """A play with its seat, as rules see it (``top``, ``play``, ``beaten``)."""

    __slots__ = ("play", "seat", "g_kinds", "beaten_seat", "over_yield", "yielder", "empties_hand", "is_burn",
                 "rank", "count", "carried", "filler", "jokers", "gouji")

    def __init__(self, play: Play, seat: int, kinds: tuple[str, ...]):
        self.seat = seat
        self.g_kinds = kinds
        self.set_play(play)
        self.beaten_seat: int | None = None
        self.over_yield = False
        self.yielder: int | None = None
        self.empties_hand = False
        self.is_burn = False

    def set_play(self, play: Play) -> None:
        """Point this view at another play (the fields rules read are copied for speed)."""
        self.play = play
        self.rank = self.g_kinds[play.rank] if play.valid else None
        self.count = play.count
        self.carried = play.carried
        self.filler = play.filler
        self.jokers = len(play.jokers)
        self.gouji = play.gouji

    def __repr__(self) -> str:
        return f"TablePlay({self.seat}: {self.play.text})"


class Ctx:
    """The bindings an expression sees: the game and the hook's context variables."""

    __slots__ = ("g", "seat", "play", "top", "beaten", "target", "leading", "args", "kind", "card", "amount",
                 "round", "choice", "answer")

    def __init__(self, g: Any, seat: int | None = None, play: TablePlay | None = None,
                 top: TablePlay | None = None, beaten: TablePlay | None = None, target: int | None = None,
                 leading: bool = False, kind: str | None = None, card: str | None = None, round: int = 0,
                 choice: str | None = None, answer: str | None = None, amount: int = 0):
        self.g = g
        self.seat = seat
        self.play = play
        self.top = top
        self.beaten = beaten
        self.target = target
        self.leading = leading
        self.args: tuple = ()
        self.kind = kind
        self.card = card
        self.amount = amount
        self.round = round
        self.choice = choice
        self.answer = answer
