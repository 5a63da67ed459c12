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
