"""Card model: classification and the joker comparison models of RULES.md §2 and §11, each as a
ruleset setting (a child of online written to a temp folder)."""
import pytest

from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.ruleset.game.cards import format_cards, parse_cards
from gouji_dsl.ruleset.graph import load_graph


def _variant(tmp_path, name, settings_yaml):
    p = tmp_path / f"{name}.yaml"
    p.write_text(f"ruleset: {name}\nextends: online\nsettings:\n{settings_yaml}", encoding="utf-8")
    return load_graph(p)


def _beats(g, lead, play):
    m = g.model
    return m.beats(m.classify(m.parse(lead)), m.classify(m.parse(play)))


def test_card_text_round_trip_and_errors():
    assert format_cards(parse_cards("TTTRR")) == "RR TTT"
    assert format_cards(parse_cards("J J J 2 2 B R")) == "RB 22 JJJ"
    assert format_cards(parse_cards("10 10")) == "TT"
    for bad, col in (("11", 1), ("KX", 2), ("j", 1), ("Rs", 2)):
        with pytest.raises(GoujiError) as e:
            parse_cards(bad)
        assert f"column {col}" in str(e.value)


def test_deck_sizes(graph_of):
    assert sum(graph_of("online").model.deck_counts) == 216
    assert sum(graph_of("rulebook").model.deck_counts) == 196   # 不三不四 [S0]
    assert sum(graph_of("six-deck-eagle").model.deck_counts) == 312  # RULES.md §11


def test_default_model_needs_both_parts_strictly(online):
    assert _beats(online, "BB 999", "RR TTT")      # seed 001 牌型 4
    assert not _beats(online, "BB 999", "BB TTT")  # equal jokers do not beat (reading in base.yaml)
    assert not _beats(online, "BB 999", "RR 888")


def test_jokers_at_least_as_strong(tmp_path):
    g = _variant(tmp_path, "atleast", "  comparison: {joker_cover: {equal: true}}\n")
    assert _beats(g, "BB 999", "BB TTT")
    assert not _beats(g, "RR 999", "BB TTT")


def test_positional_model_big_joker_unbeatable(tmp_path):
    g = _variant(tmp_path, "positional", "  comparison: {model: positional}\n")
    assert not _beats(g, "A A", "R A")   # RULES.md §11 (a): R A cannot beat A A
    assert _beats(g, "K K", "R A")
    assert not _beats(g, "R", "R")


def test_two_equal_jokers_beat_one(tmp_path):
    g = _variant(tmp_path, "twokill", "  comparison: {joker_cover: {equal_many: 2}, same_count: false}\n")
    assert _beats(g, "R", "RR")
    assert not _beats(g, "R", "BB")


def test_filler_off_makes_two_ranks_invalid(tmp_path):
    g = _variant(tmp_path, "nofill", "  filler_rank: null\n")
    p = g.model.classify(g.model.parse("22 JJJ"))
    assert not p.valid and "one rank" in p.why


def test_mixed_jokers_keep_kinds_when_the_setting_is_off(tmp_path):
    g = _variant(tmp_path, "mixed", "  mixed_jokers_read_as_lowest: false\n")
    assert not _beats(g, "RB 555", "RR 666")    # the big joker of the lead needs a bigger one
    assert _beats(load_graph("online"), "RB 555", "RR 666")  # online reads R B as two small jokers


def test_plays_from_enumerates_each_signature_once(online):
    m = online.model
    hand = m.parse("RB 22 JJJ 5")
    plays = list(m.plays_from(hand))
    assert len({p.counts for p in plays}) == len(plays)
    assert m.parse("RB 22 JJJ") in {p.counts for p in plays}
    follows = list(m.plays_from(hand, 2))
    assert all(p.count == 2 for p in follows)
