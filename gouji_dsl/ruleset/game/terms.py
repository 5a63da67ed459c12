"""The engine's closed vocabularies: move verbs, game phases, turn roles and placements.

Each is a :class:`~enum.StrEnum`, so a member *is* its text: records, JSON and scenario files keep
the words they always had (``"play"``, ``"follow"``), and comparing a member with its text is true.
"""
from __future__ import annotations

from enum import StrEnum


class Verb(StrEnum):
    """What a move does (NOTATION.md "Moves")."""

    PLAY = "play"          #: lead or follow with cards (出牌 / 上牌)
    PASS = "pass"          #: pass (过牌); also "no" to a setup question
    YIELD = "yield"        #: yield to the next players (让牌)
    BURN = "burn"          #: beat a gouji play as a burn (烧牌)
    REVOLT = "revolt"      #: declare revolution (革命)
    DECLARE = "declare"    #: declare the point (宣点)
    CHOOSE = "choose"      #: after the opposite's revolution: keep a head (要头) or go head-less (无头)
    DISCARD = "discard"    #: throw away void cards (e.g. 4s without the point, 点四)
    # (``choose WORD`` also answers a choice the ruleset defines: settings.choices, the ``offer`` rules)
    RETURN = "return"      #: give back cards as return tribute (还贡)

    @property
    def takes_cards(self) -> bool:
        """Whether the move line carries cards (``3 play RR TTT``)."""
        return self in CARD_VERBS


CARD_VERBS: frozenset[Verb] = frozenset({Verb.PLAY, Verb.BURN, Verb.DISCARD, Verb.RETURN})
"""Verbs followed by cards."""

SETUP_VERBS: frozenset[Verb] = frozenset({Verb.REVOLT, Verb.DECLARE, Verb.CHOOSE})
"""Verbs that answer a question asked before the first lead."""


class Choice(StrEnum):
    """The argument of ``choose``."""

    HEAD = "head"            #: keep a head (要头 / 死级)
    HEADLESS = "headless"    #: go head-less (无头 / 活级)


class Phase(StrEnum):
    """Where a game is: the between-game phase, the setup questions, play, or over."""

    BETWEEN = "between"    #: tribute and buying after the deal (进贡, 买三)
    RETURN = "return"      #: return tribute is being chosen (还贡)
    ASK = "ask"            #: a seat is asked a choice the ruleset defines (settings.choices)
    SETUP = "setup"        #: each seat the rules allow is asked whether it revolts (革命)
    CHOOSE = "choose"      #: opposites of revolutionaries choose head / head-less
    DECLARE = "declare"    #: seats are asked whether they declare the point (宣点)
    PLAY = "play"          #: tricks
    OVER = "over"          #: the game is over (or its deal was voided)

    @property
    def before_play(self) -> bool:
        """A setup question is pending (revolt, choose, declare)."""
        return self in (Phase.ASK, Phase.SETUP, Phase.CHOOSE, Phase.DECLARE)


class Capacity(StrEnum):
    """The role in which the seat to act is asked (its turn role)."""

    LEAD = "lead"          #: leads a trick (发牌): must play
    FOLLOW = "follow"      #: may answer the play on the table (上牌), pass or yield
    BURN = "burn"          #: is offered a burn of the gouji play on the table (烧牌), or passes
    SETUP = "setup"        #: revolt or pass
    CHOOSE = "choose"      #: head or head-less
    DECLARE = "declare"    #: declare or pass
    RETURN = "return"      #: return tribute
    ASK = "ask"            #: answer a choice the ruleset defines (``choose WORD``) or decline it (``pass``)


class Point(StrEnum):
    """Where in the setup a ruleset's choices are asked and a redeal question is put (``settings.choices``)."""

    DEAL = "deal"    #: right after the deal, before tribute, return tribute and buying (then ``redeal_before_tribute``)
    SETUP = "setup"  #: after the revolt questions (then ``redeal``), before head-less choices and declaring


class CounterReset(StrEnum):
    """When a counter (``count: NAME``, ``settings.counters``) starts again from 0."""

    TRICK = "trick"  #: at the start of every trick
    DEAL = "deal"    #: with every deal (a void deal dealt again starts it again): the default
    GAME = "game"    #: with every game (kept when a void deal is dealt again)
    MATCH = "match"  #: with every match (kept from game to game of a match)


class Placement(StrEnum):
    """Where a seat that stops playing before it goes out is placed (``place`` effects,
    ``burn_failure``, ``no_lead``)."""

    LAST = "last"                        #: the worst free place at once (大落)
    NEXT = "next"                        #: the best free place at once
    AFTER_FINISHERS = "after-finishers"  #: after every player who goes out, when the game ends
