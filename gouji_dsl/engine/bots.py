"""Moved: the bots live in :mod:`gouji_dsl.bots` (one registry of bot kinds). This name stays so
that code written against the old path keeps working; new code imports :mod:`gouji_dsl.bots`."""
from gouji_dsl.bots import BOTS, Bot, make_bot
from gouji_dsl.bots.heuristic import HeuristicBot, RandomBot, card_values, hand_power

__all__ = ["BOTS", "Bot", "HeuristicBot", "RandomBot", "card_values", "hand_power", "make_bot"]
