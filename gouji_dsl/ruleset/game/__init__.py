"""What rules talk about (the game floor, under the rest of :mod:`gouji_dsl.ruleset`): card text
(:mod:`.cards`), the card model of a ruleset and the settings the engine reads (:mod:`.model`), the
closed vocabularies of moves, phases, turn roles and placements (:mod:`.terms`), the questions (hooks),
names and functions rules may use (:mod:`.vocabulary`), and what an expression sees when a question is
asked (:mod:`.context`).

Compiling and checking a ruleset needs these and never the engine; the engine, the bots, the tools and
the app import them from here. This floor imports nothing of the ruleset above it.
"""
