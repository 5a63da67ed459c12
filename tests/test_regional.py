"""Rules of the regional rulesets that the scenario format cannot state directly (views, the
between-game phase after a given previous game), checked on the engine."""
import random

from gouji_dsl.engine.interpreter import GameState, PrevGame
from gouji_dsl.ruleset.game.cards import parse_cards


def _state(graph, deal, prev=None):
    hands = {s: parse_cards(t) for s, t in deal.items()}
    return GameState(graph, hands, rng=random.Random(0), source="fixed", prev=prev,
                     game_number=1 if prev is None else prev.game_number + 1)


DEAL = {1: "R 5 3", 2: "B 6 3", 3: "2 7 3", 4: "R 8 3", 5: "2 9 3", 6: "B T 3"}
PLACES = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 6}


def _prev(**kw):
    base = dict(places=PLACES, flags={}, counters={}, burns=(), sweep=False, scores={}, game_number=1)
    base.update(kw)
    return PrevGame(**base)


def _transfers(st):
    return [f"{e['giver']} gives {e['receiver']}: {e['cards']}" for e in st.record if e["type"] == "transfer"]


def test_qingdao_teammates_see_a_hand_of_ten_or_fewer(graph_of):
    st = _state(graph_of("qingdao"), {1: "5 6 7", 2: "8", 3: "9", 4: "T", 5: "J", 6: "Q"})
    v = st.view(3)
    assert v["others"]["1"]["hand"] == "7 6 5" and "hand" not in v["others"]["2"]   # 挑牌 [S3]


def test_qingdao_counter_burn_doubles_the_burn_tribute(graph_of):
    burns = ({"burner": 3, "burned": 1, "success": False, "counter": False, "countered": True},
             {"burner": 2, "burned": 3, "success": True, "counter": True})
    st = _state(graph_of("qingdao"), DEAL, _prev(burns=burns))
    assert "3 gives 2: 2 7" in _transfers(st)          # 反烧烧贡翻倍 [S3]: two cards, not one


def test_xuandian_no_tribute_after_a_sweep(graph_of):
    sweep = {1: 1, 3: 2, 5: 3, 2: 4, 4: 5, 6: 6}
    st = _state(graph_of("online-xuandian"), DEAL, _prev(places=sweep, sweep=True))
    assert _transfers(st) == []                          # 串三户...同时不再进贡 [S2]
    st = _state(graph_of("online-xuandian"), DEAL, _prev(places=sweep, sweep=False))
    assert _transfers(st) != []


def test_xuandian_revolution_counts_as_the_point_for_the_opposite(graph_of):
    g = graph_of("online-xuandian")
    st = _state(g, {1: "2 3", 2: "2 3", 3: "3 8", 4: "2 3", 5: "2 3", 6: "2 3"})
    st.apply_in_place(st.parse("3 revolt"))
    st.decline_setup()
    assert st.phase == "play" and st.flags.get("opened") == {6}   # 革命算自动认点 [S2]


def test_rulebook_tribute_cards_are_natural_jokers_and_twos_only(graph_of):
    st = _state(graph_of("rulebook"), {1: "AA 5", 2: "B 6", 3: "2 7", 4: "K 8", 5: "2 9", 6: "Q T"},
                _prev())
    # 6 (大落) owes 头科 two cards but holds no natural joker or 2: excused [S0]
    assert not any(t.startswith("6 gives 1") for t in _transfers(st))
