"""Fuzz: random token soup through the expression parser, checker, folder and compiler. Every input
either checks or gives a clean ExprError (with a code and an offset inside the text); a checked one
folds without error and its closure fails, if at all, only with an EvalError (which the rule graph
turns into a RuleFailed naming the rule)."""
from __future__ import annotations

import functools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gouji_dsl.diagnostics import Code
from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.lang.check import check
from gouji_dsl.lang.fold import Facts, Folder
from gouji_dsl.lang.ops import EvalError
from gouji_dsl.lang.parse import ExprError, parse
from gouji_dsl.ruleset.game.context import Ctx, TablePlay
from gouji_dsl.ruleset.game.vocabulary import FUNCTIONS, HOOKS, PLAY_ATTRS
from gouji_dsl.ruleset.graph import hook_scope, load_graph

TOKENS = [
    "seat", "top", "play", "target", "burner", "leader", "active_seats", "kind", "card", "x", "settings",
    ".", ".seat", ".rank", ".count", ".gouji", ".nope", "settings.gouji_minimum", "settings.revolution", "settings.buy",
    "settings.first_lead", "settings.place_points", "settings.stuck_rank", "settings.nope", ".ranks", ".without", ".rank",
    "opposite(", "holds(", "count(", "first(", "coalesce(", "min(", "max(", "after(", "flag(", "sum_places(", "done(",
    "headless(", "scramble", "(", ")", "[", "]", ",", "and", "or", "not", "in", "not in", "if", "else",
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "//", "%", "++", "--", "&",
    "0", "1", "6", "9", "99999999999999999999", "'3'", "'Z'", "'last'", "'worst'", "'opened'", "true", "false", "none",
]


@functools.cache
def _world():
    g = load_graph("online")
    strength = {k: i for i, k in enumerate(g.model.kinds)}
    state = new_game(g, 3)
    play = TablePlay(g.model.classify(g.model.parse("KK")), 2, g.model.kinds)
    ctx = Ctx(state, seat=1, play=play, top=play, target=4, leading=False, kind="fall", card="K")
    return g, strength, ctx


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(TOKENS), min_size=1, max_size=14), st.sampled_from(sorted(HOOKS)))
def test_random_token_soup_is_clean(tokens, hook):
    g, strength, ctx = _world()
    text = " ".join(tokens).replace(" .", ".").replace("( ", "(")
    try:
        tree = check(parse(text), hook_scope(HOOKS[hook], g.typed, g.definitions))
    except ExprError as e:
        assert e.code != Code.UNSPECIFIED, (text, e.message)
        assert 0 <= e.offset <= len(text), (text, e.offset)
        return
    Folder(strength, FUNCTIONS, PLAY_ATTRS, g.definitions, Facts()).fold(tree)
    fn = g._compiler.compile(tree)
    try:
        fn(ctx)
    except EvalError:
        pass
