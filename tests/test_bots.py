"""The heuristic bot: whole games under every bundled ruleset, its single decisions, and that it
beats the random bot (a small sample here; benchmarks/bench_bots.py measures 1,000 games)."""
from __future__ import annotations

import functools
import random

import pytest

from gouji_dsl.bots import HeuristicBot, RandomBot, hand_power, make_bot
from gouji_dsl.engine.interpreter import hands_from_text, new_game, next_game, parse_move
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.load.finding import list_bundled
from gouji_dsl.tools.simulate import play_game


@functools.cache
def graph(name: str):
    return load_graph(name)


def bot() -> HeuristicBot:
    return HeuristicBot(random.Random(0))


def game(name: str, deal: dict, leader: int = 1, moves=()):
    g = graph(name)
    st = new_game(g, 0, hands=hands_from_text(g, deal), leader=leader)
    st.decline_setup()
    for m in moves:
        st.apply_in_place(parse_move(m, g.model))
    return st


def choice(st) -> str:
    return bot().choose(st, st.legal_moves()).text(st.model)


@pytest.mark.parametrize("name", sorted(list_bundled()))
def test_plays_whole_games_under_every_bundled_ruleset(name):
    g = graph(name)
    for i in range(2):
        res, state = play_game(g, "bots", i, "heuristic")
        assert state.over and sorted(res.places.values()) == list(range(1, g.n_seats + 1))


def test_deterministic():
    g = graph("online")
    a, _ = play_game(g, "det", 0, "heuristic")
    b, _ = play_game(g, "det", 0, "heuristic")
    assert a.record == b.record


def test_beats_random_clearly():
    g = graph("online")
    diffs = []
    for i in range(6):
        for names, sign in ((["heuristic", "random"] * 3, 1), (["random", "heuristic"] * 3, -1)):
            res, _ = play_game(g, "strength", i, names)
            diffs.append(sign * (res.scores[1] - res.scores[2]))
    assert sum(diffs) / len(diffs) > 10


def test_leads_its_weakest_whole_group():
    st = game("online", {1: "R 2 AA 999 44", 2: "K 5 6", 3: "K 5 6", 4: "K 5 6", 5: "K 5 6", 6: "K 5 6"})
    assert choice(st) == "1 play 44"


def test_two_groups_left_leads_the_strong_one_first():
    st = game("online", {1: "AA 44", 2: "K 5 6", 3: "K 5 6", 4: "K 5 6", 5: "K 5 6", 6: "K 5 6"})
    assert choice(st) == "1 play AA"


def test_goes_out_when_it_can():
    st = game("online", {1: "55", 2: "K 5 6", 3: "K 5 6", 4: "K 5 6", 5: "K 5 6", 6: "K 5 6"})
    assert choice(st) == "1 play 55"


def test_does_not_beat_a_teammate():
    # seat 1 leads 66; seat 2 passes; seat 3 (teammate) could beat with 77 but passes
    st = game("online", {1: "66 5 9", 2: "33 4 8", 3: "77 8 J", 4: "44 9 T", 5: "55 T J", 6: "33 Q K"},
              moves=["1 play 66", "2 pass"])
    assert st.to_act == 3
    assert choice(st) in ("3 pass", "3 yield")


def test_answers_an_opponent_cheaply():
    st = game("online", {1: "66 5 9", 2: "77 88 AA 4", 3: "55 T J", 4: "44 9 T", 5: "55 T J", 6: "33 Q K"},
              moves=["1 play 66"])
    assert st.to_act == 2
    assert choice(st) == "2 play 77"


def test_keeps_jokers_and_2s_early():
    hand = "RB 22 AAAA KKKK QQQQ JJJJ TTTT 9999 8888 7777"       # 36 cards, only a 2 or jokers beat AA
    st = game("online", {1: "AA 33", 2: hand, 3: "5", 4: "5", 5: "5", 6: "5"},
              moves=["1 play AA", "3 pass", "5 pass"])   # burn offers go to every seat in the burn order
    assert st.to_act == 2
    assert choice(st) in ("2 pass", "2 yield")


def test_spends_a_2_late_in_the_game():
    st = game("online", {1: "A 33", 2: "2 5 6", 3: "5", 4: "5", 5: "5", 6: "5"}, moves=["1 play A"])
    assert st.to_act == 2 and st.capacity == "follow"
    assert choice(st) == "2 play 2"


def test_burns_only_when_it_can_surely_go_out():
    # seat 2 leads a gouji play (a 2); seat 3 (an opponent, not the opposite) is offered a burn
    sure = {1: "5", 2: "2 5 6", 3: "RB 2 K", 4: "6", 5: "5", 6: "5"}      # burn with a joker, then out
    st = game("online", sure, leader=2, moves=["2 play 2", "4 pass", "6 pass"])   # 2's teammates are offered first
    assert st.to_act == 3 and st.capacity == "burn"
    assert choice(st).startswith("3 burn")
    unsure = {1: "5", 2: "2 5 6", 3: "R 2 KK 9 8 7", 4: "6", 5: "5", 6: "5"}
    st = game("online", unsure, leader=2, moves=["2 play 2", "4 pass", "6 pass"])
    assert st.to_act == 3 and st.capacity == "burn"
    assert choice(st) == "3 pass"


def test_burns_succeed_in_self_play():
    g = graph("online")
    burns = []
    for i in range(30):
        res, _ = play_game(g, "burns", i, "heuristic")
        burns += res.burns
    assert burns, "no burn in 30 games"
    assert not any(b.get("failed") for b in burns)      # never a burner without a joker lead (诈烧)


def test_revolts_only_with_a_weak_hand():
    g = graph("online")
    weak = {1: "3333 4444 5555 6666 7777 8888 999 TTT JJJ", 2: "R", 3: "R", 4: "R", 5: "R", 6: "R"}
    st = new_game(g, 0, hands=hands_from_text(g, weak), leader=1)
    assert st.phase == "setup" and st.to_act == 1
    assert choice(st) == "1 revolt"
    strong = {1: "3333 4444 5555 6666 777 AAAA AAAA KKKK KKKK", 2: "R", 3: "R", 4: "R", 5: "R", 6: "R"}
    st = new_game(g, 0, hands=hands_from_text(g, strong), leader=1)
    assert st.phase == "setup" and st.to_act == 1
    assert choice(st) == "1 pass"
    assert hand_power(g.model, st.hands[1]) > HeuristicBot.WEAK


def test_returns_its_weakest_cards():
    g = graph("online")
    st = new_game(g, 0, hands=hands_from_text(g, {1: "5", 2: "5", 3: "5", 4: "5", 5: "5", 6: "5"}), leader=1)
    b = bot()
    hand = list(st.hands[1])
    hand[g.model.index("3")] = 2
    hand[g.model.index("A")] = 1
    hand[g.model.index("9")] = 1
    st.hands[1] = hand
    moves = st._return_moves(1, 2)  # (a ReturnMoves sequence: counted, built when looked at)
    st.phase = "return"
    chosen = b.choose(st, moves)
    assert g.model.text(chosen.cards) == "33"


def test_throws_away_void_cards():
    g = graph("rulebook")
    deal = {1: "2 3 444 9", 2: "2 3 4 55", 3: "2 3 4 77", 4: "2 3 4 TT", 5: "2 3 4 QQ", 6: "2 3 4 AA"}
    st = new_game(g, 0, hands=hands_from_text(g, deal), leader=1)
    st.decline_setup()
    assert st.to_act == 1
    assert choice(st) == "1 discard 444"


def test_make_bot_and_random():
    assert isinstance(make_bot("random", random.Random(1)), RandomBot)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("nope", random.Random(1))
    g = graph("online")
    st = new_game(g, 1)
    nxt = next_game(play_game(g, "x", 0, "heuristic")[1], 2)
    assert st.legal_moves() and nxt is not None


def test_quick_lead_is_the_full_scan_lead():
    """The heuristic bot's quick lead (whole groups looked up, not every lead scanned) and its
    one-seat count check choose exactly what the full scan and the whole view choose."""
    class Full(HeuristicBot):
        def _quick_lead(self, *a):
            return None

        def _seen_count(self, state, seat, target):
            return state.view(seat)["others"][str(target)].get("count")

    quick, full = HeuristicBot(), Full()
    for name in ("online", "rulebook", "qingdao"):
        g = graph(name)
        for i in range(2):
            st = new_game(g, f"quick:{i}")
            rb = random.Random(i)
            while not st.over:
                ms = st.legal_moves()
                a = quick.choose(st, ms)
                assert a == full.choose(st, ms)
                st.apply_in_place(a if rb.random() < 0.8 else ms[rb.randrange(len(ms))])
