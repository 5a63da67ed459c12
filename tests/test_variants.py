"""The variant cookbook (examples/variants): each file compiles, plays whole games, and does what
its RULES.md §11 line says."""
from pathlib import Path

import pytest

from gouji_dsl.engine.cards import parse_cards
from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.simulate import play_game

VARIANTS = sorted((Path(__file__).parent.parent / "examples" / "variants").glob("*.yaml"))


@pytest.mark.parametrize("path", VARIANTS, ids=[p.stem for p in VARIANTS])
def test_variant_compiles_and_plays(path):
    g = load_graph(path)
    for i in range(2):
        res, st = play_game(g, "cookbook", i)
        assert st.over and sorted(res.places.values()) == list(range(1, 7))


def _g(name):
    return load_graph(Path(__file__).parent.parent / "examples" / "variants" / f"{name}.yaml")


def test_deck_198():
    assert sum(_g("deck-198").model.deck_counts) == 198


def test_hidden_counts_and_open_teammate_hands():
    g = _g("hidden-counts")
    st = new_game(g, 1)
    v = st.view(1)
    assert "count" not in v["others"]["2"] and "hand" in v["others"]["3"] and "hand" not in v["others"]["2"]


def test_revolution_needs_no_aces():
    g = _g("revolution-no-aces")
    hands = {s: parse_cards(t) for s, t in {1: "A 5", 2: "2 6", 3: "7 8", 4: "2 9", 5: "2 T", 6: "2 J"}.items()}
    st = new_game(g, 0, hands=hands)
    assert st.to_act == 3 and st.setup_queue == [3]   # seat 1 holds an ace: no revolution offered


def test_redeal_weak_hands_always_ends_with_strong_hands():
    g = _g("redeal-weak-hands")
    st = new_game(g, 10)
    st.decline_setup()
    assert any(e["type"] == "redeal" for e in st.record)  # seed 10: the first deal is weak
    ranks_from_j = g.model.kinds.index("J")
    assert all(sum(st.dealt[s][ranks_from_j:]) >= 11 for s in st.seat_list)
