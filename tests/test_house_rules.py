"""The language's house-rule features (issue 23 items 1-6): how rules combine, ruleset-defined
choices, events and counters, play accessors, where the redeal question is asked, and the bounds
of every loop a ruleset can drive."""
from __future__ import annotations

import textwrap
from pathlib import Path

from gouji_dsl.engine.interpreter import new_game
from gouji_dsl.ruleset.game.context import Ctx
from gouji_dsl.ruleset.game.vocabulary import COMBINING, FUNCTIONS, HOOKS, default_text
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import simulate

ROOT = Path(__file__).resolve().parent.parent


def write(folder: Path, name: str, text: str) -> str:
    path = folder / name
    path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
    return str(path)


# ------------------------------------------------------------------------------ item 5: combining
def test_how_rules_combine_is_stated_in_the_docs_and_in_f1():
    from gouji_app.helptext import help_markdown
    doc = (ROOT / "docs" / "ruleset-format.md").read_text(encoding="utf-8")
    assert "## How rules combine" in doc and "When no rule applies" in doc
    text = help_markdown()
    assert COMBINING in text
    assert ("| `revolt` | permit | seat; the game's variables and functions | May this seat declare revolution (革命)? | no |"
            in text)
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
    from gouji_dsl.ruleset.game.cards import parse_cards
    from gouji_dsl.ruleset.game.context import TablePlay
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
    assert simulate.differences(g, "jokers", 6) == []


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
    from gouji_dsl.engine.bounds import PLAYED
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
    found = [d for d in lint(load_graph(strict), also=PLAYED.values()) if d.code == Code.UNLIKELY_TO_END]
    assert len(found) == 1 and found[0].path == strict and found[0].line == 5
    # gouji validate --strict (gj.check) runs it as the check's last stage
    import gouji_dsl as gj
    assert [d.line for d in gj.check(strict, strict=True).diagnostics if d.code == Code.UNLIKELY_TO_END] == [5]
    assert not [d for d in lint(load_graph(str(tmp_path / "redeal-weak-hands.yaml")), also=PLAYED.values()) if d.code == Code.UNLIKELY_TO_END]
    always = [d for d in lint(load_graph(write(tmp_path, "always-void.yaml", ALWAYS_VOID)), also=PLAYED.values())
              if d.code == Code.UNLIKELY_TO_END]
    assert len(always) == 1 and "every one of" in always[0].message


def test_return_moves_are_counted_not_listed():
    """A 15-card card-for-card return from a hand of 15 kinds has 49,360,405 ways: the moves are
    a sequence that is counted and indexed (in the order the moves were always listed), and the
    heuristic bot finds its return without looking at each."""
    import random

    from gouji_dsl.bots.heuristic import HeuristicBot
    from gouji_dsl.engine.interpreter import Move, ReturnMoves
    from gouji_dsl.ruleset.game.terms import Verb

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
    path = write(tmp_path, "fall15.yaml", """
        ruleset: fall15
        extends: qingdao
        settings:
          tribute:
            fall: {"6": 15, "5": 1}
        """)
    g = load_graph(path)
    assert simulate.differences(g, "fall15", 4) == [] and simulate.differences(g, "fall15-h", 4, "heuristic") == []


# ------------------------------------------------------------------------------ items 1 and 4: choices
ASK = str(ROOT / "examples" / "variants" / "ask-redeal.yaml")
ONE_YIELD = str(ROOT / "examples" / "variants" / "one-yield-in-scramble.yaml")


def _strict_clean(path: str) -> None:
    from gouji_dsl.ruleset.lint import lint
    assert lint(load_graph(path)) == []


def test_the_cookbook_house_rules_validate_strict_clean():
    _strict_clean(ASK)
    _strict_clean(ONE_YIELD)
    _strict_clean(str(ROOT / "examples" / "variants" / "big-jokers-two-kill-one.yaml"))
    _strict_clean(str(ROOT / "examples" / "variants" / "scores-half.yaml"))


def test_the_small_scale_keeps_the_parents_sweep_doubling():
    """scores-half changes only the place points: the score rule and sweep_multiplier are online's
    (a sweep doubles the score: RULES.md §9; seed 002 如果串三户，则双方积分翻倍)."""
    half, online = load_graph(str(ROOT / "examples" / "variants" / "scores-half.yaml")), load_graph("online")
    assert half.settings["sweep_multiplier"] == online.settings["sweep_multiplier"] == 2
    score = [n for n in half.nodes if n.hook == "score"]
    assert [n.id for n in score] == ["score.team-sum"] and "settings.sweep_multiplier" in score[0].expr


def _moves(st):
    return [e["move"] for e in st.record if e["type"] == "move"]


def test_a_weak_hand_asks_for_a_redeal_at_most_once_per_game_and_before_tribute():
    """Many seeded games, random and heuristic bots, both engines: a seat answers 'choose redeal'
    at most once in a game; every request voids the deal before any tribute is paid; some seat asks."""
    from gouji_dsl.tools.simulate import play_game
    g = load_graph(ASK)
    asked = 0
    for bots in ("random", "heuristic"):
        prev = None
        for i in range(40 if bots == "random" else 12):
            for engine in ("interpreter", "generated"):
                res, st = play_game(g, "ask", i, bots, previous=prev if i % 2 else None, engine=engine)
            prev = st
            per_seat: dict[str, int] = {}
            for m in _moves(st):
                if m.endswith(" choose redeal"):
                    per_seat[m.split()[0]] = per_seat.get(m.split()[0], 0) + 1
            assert all(n == 1 for n in per_seat.values()), per_seat
            asked += len(per_seat)
            # a request is followed by a redeal before any transfer of the deal it voided
            events = st.record
            for k, e in enumerate(events):
                if e["type"] == "move" and e["move"].endswith(" choose redeal"):
                    nxt = [x["type"] for x in events[k + 1:] if x["type"] in ("redeal", "transfer", "first_leader")]
                    assert nxt and nxt[0] == "redeal", nxt[:3]
    assert asked > 5


def test_a_choice_is_asked_of_seats_the_offer_rules_allow_and_answered_by_its_word(tmp_path):
    from gouji_dsl.diagnostics import Code, GoujiError
    from gouji_dsl.engine.interpreter import hands_from_text, parse_move
    from gouji_dsl.ruleset.game.terms import Phase
    g = load_graph(ASK)
    deal = {1: "2 QQQQ KKKK AAA", 2: "2 6", 3: "2 8", 4: "2 9", 5: "2 T", 6: "2 J"}
    st = new_game(g, hands=hands_from_text(g, deal))
    assert st.phase == Phase.ASK and st.to_act == 2
    assert [m.text(g.model) for m in st.legal_moves()] == ["2 choose redeal", "2 pass"]
    assert st.parse("2 choose redeal") in st.legal_moves()
    try:
        parse_move("2 choose redael", g.model, 6, words=("redeal",))
    except GoujiError as e:
        assert e.diagnostics[0].code == Code.BAD_MOVE and "redeal" in (e.diagnostics[0].hint or "")
    else:
        raise AssertionError("a misspelt choice was accepted")
    bad = write(tmp_path, "bad-word.yaml", """
        ruleset: bad-word
        extends: online
        settings:
          choices: {head: {asked: deal}, "Re Deal": {asked: setup}}
        """)
    try:
        load_graph(bad)
    except GoujiError as e:
        assert [d.code for d in e.diagnostics] == [Code.VALUE_NOT_ALLOWED] * 2
        assert {d.line for d in e.diagnostics} == {4}
    else:
        raise AssertionError("bad choice words were accepted")


def test_the_redeal_question_is_asked_where_the_ruleset_says(tmp_path):
    """A choice asked at `deal` and redeal_before_tribute come before tribute: in the second game
    of a match the request is made, and the deal voided, before any tribute is paid; the request
    counter (reset: game) survives the redeal, so the new deal is not asked again."""
    from gouji_dsl.engine.interpreter import next_game
    from gouji_dsl.ruleset.game.terms import Phase
    g = load_graph(write(tmp_path, "early.yaml", """
        ruleset: early
        extends: qingdao
        settings:
          choices: {again: {asked: deal}}
          counters: {asks: {reset: game}}
        rules:
          - id: c.offer
            on: offer
            allow: "seat == 1 and game_number > 1 and counter(seat, 'asks') < 1"
          - id: c.count
            on: answered
            when: "answer == 'again'"
            count: asks
          - id: c.mark
            on: answered
            when: "answer == 'again'"
            mark: again
          - id: c.void
            on: redeal_before_tribute
            value: "flag(1, 'again')"
        """))
    st = new_game(g, 1)
    assert st.phase != Phase.ASK
    st.decline_setup()
    while not st.over:
        st.apply_in_place(st.legal_moves()[0], trusted=True)
    st2 = next_game(st, 2)
    assert st2.phase == Phase.ASK and st2.to_act == 1
    assert not [e for e in st2.record if e["type"] == "transfer"]  # nothing paid yet
    st2.apply_in_place(st2.parse("1 choose again"))
    kinds = [e["type"] for e in st2.record]
    assert kinds.count("redeal") == 1 and "transfer" in kinds[kinds.index("redeal"):]
    assert st2.phase != Phase.ASK and st2.counters["asks"] == {1: 1}


# ------------------------------------------------------------------------------ item 2: events and counters
def test_each_player_may_yield_once_in_the_scramble_over_many_seeded_games():
    from gouji_dsl.engine.interpreter import replay
    from gouji_dsl.tools.simulate import play_game
    g = load_graph(ONE_YIELD)
    scramble = g.compile_expression("count(active_seats) <= settings.scramble_when_active")
    yields = 0
    for bots in ("random", "heuristic"):
        for i in range(60 if bots == "random" else 10):
            for engine in ("interpreter", "generated"):
                _, st = play_game(g, "yield", i, bots, engine=engine)
            game = replay(g, st.record, 0)
            per_seat: dict[int, int] = {}
            for text in _moves(st):
                mv = game.parse(text)
                if mv.verb == "yield" and scramble(Ctx(game)):
                    per_seat[mv.seat] = per_seat.get(mv.seat, 0) + 1
                game.apply_in_place(mv)
            assert all(n <= 1 for n in per_seat.values()), (i, per_seat)
            yields += sum(per_seat.values())
    assert yields > 50  # (seats do yield in the scramble: once each)


def test_every_move_kind_has_an_event_and_counters_reset_where_they_say(tmp_path):
    from gouji_dsl.tools.simulate import play_game
    path = write(tmp_path, "counting.yaml", """
        ruleset: counting
        extends: qingdao
        settings:
          counters:
            value: {passes_in_trick: {reset: trick}, passes: {reset: game}, returns: {reset: match},
                    answers: {reset: deal}}
        rules:
          - id: c.pass
            on: after_pass
            count: passes
          - id: c.pass-trick
            on: after_pass
            count: passes_in_trick
          - id: c.yield
            on: after_yield
            count: yields
          - id: c.return
            on: after_return
            count: returns
            amount: "amount"
          - id: c.answer
            on: answered
            count: answers
          - id: c.most-passes-in-a-trick
            on: trick_won
            when: "counter(seat, 'passes_in_trick') > 0"
            mark: passed_in_a_trick
        """)
    g = load_graph(path)
    assert simulate.differences(g, "count", 6) == []
    from gouji_dsl.engine.interpreter import replay
    from gouji_dsl.ruleset.game.terms import Phase
    prev = None
    for i in range(4):
        _, st = play_game(g, "count", i, "random", previous=prev if i % 2 else None, engine="interpreter")
        game = replay(g, st.record, 0)
        want: dict[str, dict[int, int]] = {}
        for text in _moves(st):
            mv = game.parse(text)
            before_play = Phase(game.phase).before_play
            kind = "answers" if before_play else {"pass": "passes", "yield": "yields"}.get(str(mv.verb))
            if game.phase == Phase.RETURN:
                kind = "returns"
            if kind:
                d = want.setdefault(kind, {})
                d[mv.seat] = d.get(mv.seat, 0) + (sum(mv.cards or ()) if kind == "returns" else 1)
            game.apply_in_place(mv)
            if game.phase == Phase.PLAY and game.top is None:  # a new trick: its counter starts again
                assert not any(game.counters.get("passes_in_trick", {}).values())
        got = {k: v for k, v in game.counters.items() if k in ("answers", "passes", "yields")}
        assert got == {k: v for k, v in want.items() if k in ("answers", "passes", "yields")}
        if i % 2:  # a match game: the return counter (reset: match) carries the first game's returns
            assert sum(game.counters.get("returns", {}).values()) >= sum(want.get("returns", {}).values())
        prev = st


def test_a_human_answers_a_choice_in_the_play_session():
    """The play screen's session lists the choice's moves in move text, reads what the player
    types ('redeal', 'choose redeal', 'pass') and tells what is asked."""
    from gouji_app.play.session import PlaySession
    from gouji_app.play.widgets import asked_text
    from gouji_dsl.ruleset.game.terms import Phase
    g = load_graph(ASK)
    deal = {1: "2 5", 2: "2 6", 3: "2 8", 4: "2 9", 5: "2 T", 6: "2 J"}
    s = PlaySession(g, seat=1, seed=1, hands=deal)
    assert s.state.phase == Phase.ASK and s.your_turn
    assert s.legal_verbs() == {"choose redeal", "pass"}
    assert [m.text(g.model) for m in s.legal()] == ["1 choose redeal", "1 pass"]
    assert "choose redeal" in asked_text(s)
    for typed in ("redeal", "choose redeal", "1 choose redeal"):
        t = s.interpret(typed)
        assert not t.error and t.move is not None and t.move.text(g.model) == "1 choose redeal", typed
    assert "choose takes" in (s.interpret("choose redael").error or "")
    s.apply(s.interpret("redeal").move)  # type: ignore[arg-type]
    assert s.state.to_act == 2


def test_the_play_screen_asks_a_choice_and_takes_the_answer():
    import asyncio

    from gouji_app.play.app import PlayApp
    g = load_graph(ASK)
    deal = {1: "2 5", 2: "2 6", 3: "2 8", 4: "2 9", 5: "2 T", 6: "2 J"}

    async def run() -> None:
        app = PlayApp(g, speed="instant", show_steps=False, seed=7, hands=deal, leader=1)
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            screen = app.play_screen
            assert screen.session.state.phase == "ask" and screen.session.your_turn
            await pilot.press(*"redeal")
            await pilot.press("enter")
            await pilot.pause()
            moves = [e["move"] for e in screen.session.state.record if e["type"] == "move"]
            assert moves[0] == "1 choose redeal"
    asyncio.run(run())


def test_a_misspelt_choice_or_answer_in_a_rule_is_refused_with_did_you_mean(tmp_path):
    from gouji_dsl.diagnostics import Code, GoujiError
    text = (ROOT / "examples" / "variants" / "ask-redeal.yaml").read_text(encoding="utf-8")
    bad = write(tmp_path, "ask-bad.yaml", text.replace("when: \"choice == 'redeal' and answer == 'redeal'\"\n    count",
                                                       "when: \"choice == 'redael' and answer == 'redeal'\"\n    count"))
    try:
        load_graph(bad)
    except GoujiError as e:
        d = e.diagnostics[0]
        assert d.code == Code.VALUE_NOT_ALLOWED and "did you mean 'redeal'" in (d.hint or "")
    else:
        raise AssertionError("choice == 'redael' was accepted")


def test_validate_strict_warns_about_a_choice_nobody_is_asked(tmp_path):
    from gouji_dsl.diagnostics import Code
    from gouji_dsl.ruleset.lint import lint
    path = write(tmp_path, "noask.yaml", """
        ruleset: noask
        extends: online
        settings:
          choices: {redeal: {asked: deal}}
        """)
    found = [d for d in lint(load_graph(path)) if d.code == Code.NO_WAY_OUT and "never asked" in d.message]
    assert len(found) == 1 and found[0].line == 4


# ------------------------------------------------------------------------------ the match_length question knows no game
def test_match_length_knows_no_game_variable(tmp_path):
    """match_length is asked once before a match (no game yet): a rule reading game_number is refused
    at its line by validate (it failed at run time with an AttributeError); a settings rule is fine."""
    from gouji_dsl.diagnostics import Code, GoujiError
    assert HOOKS["match_length"].game is False
    bad = write(tmp_path, "ml.yaml", """
        ruleset: ml
        extends: online
        rules:
          - id: x.ml
            on: match_length
            value: "game_number + 4"
        """)
    try:
        load_graph(bad)
    except GoujiError as e:
        ds = e.diagnostics
        assert [(d.code, d.line) for d in ds] == [(Code.NAME_NOT_AVAILABLE, 6)]
        assert "'match_length' question is asked without a game going on" in (ds[0].hint or "")
    else:
        raise AssertionError("game_number in a match_length rule was accepted")
    good = write(tmp_path, "ml-ok.yaml", """
        ruleset: ml-ok
        extends: online
        rules:
          - id: x.ml
            on: match_length
            value: "max(settings.match_games, 3)"
        """)
    from gouji_dsl.engine.interpreter import match_length
    assert match_length(load_graph(good)) == 3


# ------------------------------------------------------------------------------ the names each hook knows
def test_the_vocabulary_says_which_names_each_hook_knows():
    """gouji show --vocabulary, docs/vocabulary.md and F1 state per hook the names a rule on it knows,
    generated from the hook definitions (match_length and gouji: no game; answered: the answer)."""
    from click.testing import CliRunner

    from gouji_app.helptext import help_markdown
    from gouji_dsl.ruleset.game.vocabulary import hooks_markdown, known_names, vocabulary_markdown, vocabulary_text
    from gouji_dsl.tools.cli import cli
    assert known_names(HOOKS["match_length"]).startswith("no game is going on: no game variable or function, only ")
    assert "game_number" not in known_names(HOOKS["match_length"])
    assert known_names(HOOKS["answered"]) == "seat, choice, answer; the game's variables and functions"
    assert known_names(HOOKS["play"]).startswith("seat, play, top (may be none), leading;")
    assert known_names(HOOKS["gouji"]).startswith("play; no game is going on")
    text = vocabulary_text()
    for h in HOOKS.values():
        assert f"knows: {known_names(h)}" in text
        assert f"| `{h.name}` | {h.kind} | {known_names(h)} |" in hooks_markdown()
    assert "| `game_number` | `int` | 1 for the first game of a match | every question but gouji, match_length |" in vocabulary_markdown()
    assert hooks_markdown().rstrip("\n") in help_markdown()
    doc = (ROOT / "docs" / "vocabulary.md").read_text(encoding="utf-8")
    res = CliRunner().invoke(cli, ["show", "--vocabulary", "--format", "markdown"])
    assert res.exit_code == 0 and res.stdout == vocabulary_markdown()
    assert doc == vocabulary_markdown(), "docs/vocabulary.md is stale: gouji show --vocabulary --format markdown > docs/vocabulary.md"
