"""The language's house-rule features (issue 23 items 1-6): how rules combine, ruleset-defined
choices, events and counters, play accessors, where the redeal question is asked, and the bounds
of every loop a ruleset can drive."""
from __future__ import annotations

import textwrap
from pathlib import Path

from gouji_dsl.engine.interpreter import Ctx, new_game
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.vocabulary import COMBINING, FUNCTIONS, HOOKS, default_text

ROOT = Path(__file__).resolve().parent.parent


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------ item 5: combining
def test_how_rules_combine_is_stated_in_the_docs_and_in_f1():
    from editor.helptext import help_markdown
    doc = (ROOT / "docs" / "ruleset-format.md").read_text(encoding="utf-8")
    assert "## How rules combine" in doc and "When no rule applies" in doc
    text = help_markdown()
    assert COMBINING in text
    assert "| `revolt` | permit | seat | May this seat declare revolution (革命)? | no |" in text
    assert default_text(HOOKS["play"]) == "yes" and default_text(HOOKS["after_play"]) == "nothing happens"


def test_a_deny_wins_over_an_allow_whatever_the_order(tmp_path):
    """Two files with the same allow and deny rules in either order answer the same: no."""
    for first, second in (("allow", "deny"), ("deny", "allow")):
        p = write(tmp_path, f"{first}.yaml", f"""
            ruleset: {first}
            extends: online
            rules:
              - id: x.{first}
                on: see_hand
                {first}: "true"
              - id: x.{second}
                on: see_hand
                {second}: "true"
            """)
        g = load_graph(p)
        st = new_game(g, 1)
        assert g.permit("see_hand", Ctx(st, seat=1, target=2)) is False


# ------------------------------------------------------------------------------ item 3: play accessors
JOKER_KINDS = """
ruleset: big-jokers
extends: online
rules:
  - id: x.small-jokers-follow-only
    on: play
    when: "leading"
    deny: "cards_of(play, 'B') >= 2 and cards_of(play, 'R') == 0"
    says: "Two small jokers without a big one may not lead."
  - id: x.big-jokers-answered-by-opposite
    on: follow
    when: "cards_of(top, 'R') >= 2"
    require: "seat == opposite(top.seat)"
    says: "Two big jokers are answered only by the opposite."
"""


def test_cards_of_tells_big_from_small_jokers(tmp_path):
    from gouji_dsl.engine.cards import parse_cards
    from gouji_dsl.engine.interpreter import TablePlay
    g = load_graph(write(tmp_path, "big-jokers.yaml", JOKER_KINDS))
    st = new_game(g, 3)
    p = g.model.classify(tuple(g.model.counts_of(parse_cards("RR B"))))
    tp = TablePlay(p, 1, g.model.kinds)
    cards_of = FUNCTIONS["cards_of"].impl
    assert cards_of(Ctx(st), tp, "R") == 2 and cards_of(Ctx(st), tp, "B") == 1 and cards_of(Ctx(st), tp, "3") == 0
    # the follow rule reads the table play: only the opposite is asked about RR
    st.top = tp
    assert g.permit("follow", Ctx(st, seat=4, top=tp)) is True
    assert g.permit("follow", Ctx(st, seat=2, top=tp)) is False


def test_a_play_is_not_searched_as_text_and_kinds_have_did_you_mean(tmp_path):
    from gouji_dsl.diagnostics import Code, GoujiError
    bad = write(tmp_path, "bad.yaml", """
        ruleset: bad
        extends: online
        rules:
          - id: x.text
            on: follow
            when: "'BB' in top.cards"
            deny: "true"
        """)
    try:
        load_graph(bad)
    except GoujiError as e:
        d = e.diagnostics[0]
        assert d.code == Code.TYPE_MISMATCH and "cards_of(top, 'B') >= 2" in (d.hint or "")
    else:
        raise AssertionError("'BB' in top.cards was accepted")
    bad2 = write(tmp_path, "bad2.yaml", JOKER_KINDS.replace("cards_of(play, 'B')", "cards_of(play, 'BB')"))
    try:
        load_graph(bad2)
    except GoujiError as e:
        d = e.diagnostics[0]
        assert d.code == Code.NOT_A_CARD and "one kind at a time: 'B'" in (d.hint or "")
    else:
        raise AssertionError("cards_of(play, 'BB') was accepted")


def test_cards_of_plays_the_same_games_generated(tmp_path):
    from gouji_dsl.engine import fast
    g = load_graph(write(tmp_path, "big-jokers.yaml", JOKER_KINDS))
    assert fast.engine(g) is not None, fast.fallback_reason(g)
    assert fast.differences(g, "jokers", 6) == []


# ------------------------------------------------------------------------------ item 6: bounds
ALWAYS_VOID = """
ruleset: always-void
extends: online
rules:
  - id: revolution.void-deal
    on: redeal
    value: "true"
    says: "Every deal is void."
"""


def _rule_failed(fn):
    from gouji_dsl.diagnostics import Code, GoujiError
    try:
        fn()
    except GoujiError as e:
        d = e.diagnostics[0]
        assert d.code == Code.RULE_FAILED, d.format()
        return d
    raise AssertionError("no rule failure")


def test_a_redeal_rule_that_always_fires_fails_with_its_line_on_both_engines(tmp_path):
    from gouji_dsl.engine import fast
    from gouji_dsl.engine.interpreter import MAX_REDEALS
    from gouji_dsl.tools.simulate import play_game
    path = write(tmp_path, "always-void.yaml", ALWAYS_VOID)
    g = load_graph(path)
    for engine in ("interpreter", "generated"):
        d = _rule_failed(lambda e=engine: play_game(g, 1, 0, "random", engine=e))
        assert d.path == path and d.line == 4 and "revolution.void-deal" in d.message
        assert f"{MAX_REDEALS} times" in d.message
    assert fast.engine(g) is not None


def test_explain_of_an_always_void_ruleset_is_a_rule_failure_not_a_recursion_error(tmp_path):
    from click.testing import CliRunner

    from gouji_dsl.tools.cli import cli
    path = write(tmp_path, "always-void.yaml", ALWAYS_VOID)
    r = CliRunner().invoke(cli, ["show", path, "--explain", "1 pass"])
    assert r.exit_code != 0 and "RecursionError" not in r.output and "RuleFailed" in r.output + str(r.stderr_bytes or b"")


def test_validate_strict_warns_where_a_setting_voids_most_deals(tmp_path):
    from gouji_dsl.diagnostics import Code
    from gouji_dsl.ruleset.lint import lint
    (tmp_path / "redeal-weak-hands.yaml").write_text(
        (ROOT / "examples" / "variants" / "redeal-weak-hands.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    strict = write(tmp_path, "weak18.yaml", """
        ruleset: weak18
        extends: redeal-weak-hands.yaml
        settings:
          redeal_below:
            value: {rank: J, cards: 18}
            says: "A deal where someone holds fewer than 18 cards of J or higher is dealt again."
        """)
    found = [d for d in lint(load_graph(strict)) if d.code == Code.UNLIKELY_TO_END]
    assert len(found) == 1 and found[0].path == strict and found[0].line == 5
    assert not [d for d in lint(load_graph(str(tmp_path / "redeal-weak-hands.yaml"))) if d.code == Code.UNLIKELY_TO_END]
    always = [d for d in lint(load_graph(write(tmp_path, "always-void.yaml", ALWAYS_VOID)))
              if d.code == Code.UNLIKELY_TO_END]
    assert len(always) == 1 and "every one of" in always[0].message


def test_return_moves_are_counted_not_listed():
    """A 15-card card-for-card return from a hand of 15 kinds has 49,360,405 ways: the moves are
    a sequence that is counted and indexed (in the order the moves were always listed), and the
    heuristic bot finds its return without looking at each."""
    import random

    from gouji_dsl.bots.heuristic import HeuristicBot
    from gouji_dsl.engine.interpreter import Move, ReturnMoves
    from gouji_dsl.engine.terms import Verb

    def listed(hand, n):
        out, K = [], len(hand)

        def rec(i, left, acc):
            if left == 0:
                out.append(tuple(acc + [0] * (K - len(acc))))
                return
            if i == K:
                return
            for k in range(min(hand[i], left), -1, -1):
                rec(i + 1, left - k, acc + [k])
        rec(0, n, [])
        return out
    rng = random.Random(5)
    for _ in range(200):
        hand = [rng.randint(0, 4) for _ in range(rng.randint(1, 7))]
        if not sum(hand):
            continue
        n = rng.randint(1, sum(hand))
        rm = ReturnMoves(1, hand, n)
        want = [Move(1, Verb.RETURN, c) for c in listed(hand, n)]
        assert list(rm) == want and all(m in rm for m in want) and len(rm) == len(want)
    big = ReturnMoves(1, [4] * 15, 15)
    assert len(big) == 49_360_405 and sum(big[-1].cards) == 15 and big[-1] in big
    g = load_graph("online")
    st = new_game(g, 1)
    bot = HeuristicBot(random.Random(1))
    for _ in range(50):
        hand = [rng.randint(0, 3) if rng.random() < 0.5 else 0 for _ in g.model.kinds]
        if not sum(hand):
            continue
        st.hands[1] = list(hand)
        rm = ReturnMoves(1, hand, rng.randint(1, min(5, sum(hand))))
        assert bot._best_return(st, 1, rm) == min(list(rm), key=lambda m: bot._return_key(st, 1, m))
    st.hands[1] = [4] * 15
    assert sum(bot._best_return(st, 1, big).cards or ()) == 15


def test_a_fifteen_card_fall_tribute_returned_card_for_card_plays(tmp_path):
    from gouji_dsl.engine import fast
    path = write(tmp_path, "fall15.yaml", """
        ruleset: fall15
        extends: qingdao
        settings:
          tribute:
            fall: {"6": 15, "5": 1}
        """)
    g = load_graph(path)
    assert fast.differences(g, "fall15", 4) == [] and fast.differences(g, "fall15-h", 4, "heuristic") == []
