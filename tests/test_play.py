"""Pilot tests of the play screen (editor/play): a scripted deal to the end, an illegal move and
its rule, undo, replay of a saved record, and snapshots."""
from __future__ import annotations

import asyncio
import copy
import functools

import pytest
from pilot_helpers import footer_settled, notes, wait_for

from gouji_app.play.app import PlayApp
from gouji_app.play.screen import PlayScreen
from gouji_app.play.session import PlaySession
from gouji_app.play.widgets import GameLog, HandView
from gouji_dsl.diagnostics import SourcePos
from gouji_dsl.engine.records import load_record
from gouji_dsl.ruleset.graph import load_graph

SIZE = (120, 40)
# every seat holds a 2 or a joker (nobody may revolt), three short rank groups each
SHORT = {1: "R 55 7", 2: "2 33 4", 3: "2 KK 9", 4: "B 44 8", 5: "2 66 T", 6: "2 99 J"}


@functools.cache
def graph(name: str):
    return load_graph(name)


def sync(fn):
    """Run an async test with asyncio.run (the suite has no async pytest plugin)."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


def app_for(name: str = "online", **kw) -> PlayApp:
    kw.setdefault("speed", "instant")
    kw.setdefault("show_steps", False)
    kw.setdefault("seed", 7)
    return PlayApp(graph(name), **kw)


def seat_1_leads_kk(monkeypatch) -> None:
    """Seat 1's bot leads KK (the gouji play to burn) as its first move, at once: the burn tests do
    not race a bot's timer (a 1 s "slow" bot once led first on a loaded machine, and the test waited
    for a lead that had already gone)."""
    real, led = PlaySession.bot_move, []

    def bot_move(self):
        st = self.state
        if st.to_act == 1 and st.phase == "play" and not led:
            led.append(True)
            return st.parse("1 play KK")
        return real(self)
    monkeypatch.setattr(PlaySession, "bot_move", bot_move)


async def type_move(pilot, text: str) -> None:
    await pilot.press(*[{" ": "space"}.get(c, c) for c in text])
    await pilot.press("enter")
    await pilot.pause()


async def play_hints(pilot, screen: PlayScreen, limit: int = 400) -> int:
    """Play the hint (F3, Enter) at each of your turns until the game is over."""
    n = 0
    while not screen.session.state.over and n < limit:
        if screen.session.your_turn:
            await pilot.press("f3")
            await pilot.press("enter")
            n += 1
        await pilot.pause()
    return n


@sync
async def test_scripted_deal_to_the_end():
    app = app_for(hands=SHORT, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.your_turn and s.state.capacity == "lead"
        await type_move(pilot, "R 7")          # jokers attached: a gouji play only the opposite may answer
        await type_move(pilot, "55")           # and out
        assert s.state.places[1] == 1
        # the bots finish the game (instant speed)
        await pilot.pause()
        st = screen.session.state
        assert st.over
        assert st.places == {1: 1, 4: 2, 3: 3, 5: 4, 6: 5, 2: 6}
        assert st.scores[1] == 4 and st.scores[2] == -4
        moves = [e["move"] for e in st.record if e["type"] == "move"]
        # every seat of the burn order is offered the burn (and passes), then the opposite
        assert moves[:7] == ["1 play R 7", "3 pass", "5 pass", "2 pass", "6 pass", "4 pass", "1 play 55"]
        trick = screen.query_one("#trick")
        assert trick.border_title.endswith("· over")
        lines = str(trick.render()).splitlines()   # the end-of-game panel: one place per line, never wrapped mid-entry
        assert lines[0].startswith("1st 头科") and "you" in lines[0] and lines[0].endswith("+4")
        assert lines[5].startswith("6th 大落") and "seat 2" in lines[5]
        assert "(you) +4" in lines[6] and "no sweep" in lines[7]
        assert all(len(ln) <= trick.content_region.width for ln in lines[:6])


@sync
async def test_illegal_move_shows_the_rule():
    # rulebook: 3s may only be a player's last play (stuck.last-play-only, base.yaml)
    # (everyone holds a 3 and a 4, so nobody buys one)
    hands = {1: "2 33 4 9", 2: "2 3 4 55", 3: "2 3 4 77", 4: "2 3 4 TT", 5: "2 3 4 QQ", 6: "2 3 4 AA"}
    app = app_for("rulebook", hands=hands, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.state.phase == "declare" and s.your_turn
        await type_move(pilot, "pass")
        assert s.state.phase == "play" and s.your_turn
        before = copy.deepcopy(s.state.record)
        await pilot.press("3", "3")
        await pilot.pause()
        feedback = str(screen.query_one("#feedback").render())
        assert "stuck.last-play-only" in feedback and "base.yaml:" in feedback
        await pilot.press("enter")
        await pilot.pause()
        why = screen.query_one("#why")
        assert why.has_class("-shown")
        prompts = [str(why.get_option_at_index(i).prompt) for i in range(why.option_count)]
        assert any("stuck.last-play-only" in p for p in prompts)
        assert s.state.record == before                   # nothing happened
        assert s.last_illegal == "1 play 33"
        # Tab to the reasons, Enter opens the rule's source
        why.focus()
        await pilot.pause()
        why.highlighted = next(i for i, p in enumerate(prompts) if "stuck.last-play-only" in p)
        await pilot.press("enter")
        await pilot.pause()
        assert type(app.screen).__name__ == "RuleSourceScreen"
        assert app.screen.path.endswith("base.yaml")
        await pilot.press("escape")
        # a legal lead clears the reasons
        screen.query_one("#move").focus()
        await pilot.press("escape")
        await type_move(pilot, "9")
        assert not why.has_class("-shown")
        assert s.state.record[-1]["type"] != "deal"


@sync
async def test_undo_restores_the_exact_state():
    app = app_for("online", seed=3)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.your_turn
        await pilot.press("f3", "enter")
        await pilot.pause()
        while not s.your_turn:
            await pilot.pause()
        saved_record = copy.deepcopy(s.state.record)
        saved_hands = [h[:] for h in s.state.hands]
        saved_cursor = s.cursor
        await pilot.press("f3", "enter")
        await pilot.pause()
        assert s.state.record != saved_record
        after = copy.deepcopy(s.entries[-1].state.record)
        await pilot.press("ctrl+z")
        await pilot.pause()
        assert s.cursor == saved_cursor
        assert s.state.record == saved_record and s.state.hands == saved_hands
        assert not s.live
        await pilot.press("ctrl+y")
        await pilot.pause()
        assert s.state.record[:len(after)] == after
        # undo, then a different move: the old future is dropped
        await pilot.press("ctrl+z")
        await pilot.pause()
        other = next(m for m in s.legal() if m.text(s.model) != after[len(saved_record)].get("move"))
        await type_move(pilot, other.text(s.model).split(None, 1)[1].replace("play ", ""))
        assert s.entries[saved_cursor + 1].move == other.text(s.model)


@sync
async def test_replay_of_a_saved_record(tmp_path):
    app = app_for("online", seed=11, speed="instant")
    path = tmp_path / "game.json"
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        await pilot.press("f7")                 # play on to the end of the game
        await pilot.pause()
        final = screen.session.state
        assert final.over
        await pilot.press("ctrl+s")
        await pilot.pause()
        inp = app.screen.query_one("#path-input")
        inp.value = str(path)
        await pilot.press("enter")
        await pilot.pause()
        assert path.exists()
    rec = load_record(path)
    assert rec.ruleset == "online" and rec.bots[1] == "human"
    app2 = app_for("online", seed=0, record=str(path))
    async with app2.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app2.play_screen
        s = screen.session
        assert s.mode == "replay" and s.cursor == 0
        await pilot.press("down", "down", "down")
        await pilot.pause()
        assert s.cursor == 3
        await pilot.press("up")
        assert s.cursor == 2
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert s.state.over
        assert s.state.record == final.record
        assert s.state.places == final.places and s.state.scores == final.scores


@sync
async def test_bad_record_is_refused_with_its_position(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "gouji-record", "version": 1, "ruleset": "online",\n "events": [ {"type": 1} ]}\n')
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+o")
        await pilot.pause()
        dialog = app.screen
        dialog.query_one("#path-input").value = str(bad)
        await pilot.press("enter")
        await pilot.pause()
        err = str(dialog.query_one("#path-error").render())
        assert f"{bad}:2:" in err and "event" in err
        assert app.screen is dialog              # the dialog stays open
        await pilot.press("escape")


@sync
async def test_legal_list_and_hint_fill_the_move_box():
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        await pilot.press("f4")
        await pilot.pause()
        lst = app.screen.query_one("#legal-list")
        assert lst.option_count > 10
        lst.highlighted = next(i for i in range(lst.option_count) if not lst.get_option_at_index(i).disabled)
        await pilot.press("enter")
        await pilot.pause()
        value = screen.query_one("#move").value
        assert value and "✓ legal" in str(screen.query_one("#feedback").render())
        # a click on a rank group of the hand puts a card of it in the move box, a right click takes it back
        await pilot.press("escape")
        hand = screen.query_one(HandView)
        line, x0, _, kind = hand._regions[-1]                      # the weakest group
        at = (hand.content_region.x - hand.region.x + x0, hand.content_region.y - hand.region.y + line)
        await pilot.click(HandView, offset=at)
        await pilot.pause()
        assert screen.query_one("#move").value == screen.session.model.kinds[kind]
        await pilot.click(HandView, offset=at, button=3)
        await pilot.pause()
        assert screen.query_one("#move").value == ""


@sync
async def test_match_next_game_shows_the_steps():
    app = app_for("rulebook", seed=5, show_steps=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        if type(app.screen).__name__ == "BetweenGamesScreen":   # buying 3s / 4s before game 1
            await pilot.press("escape")
        screen = app.play_screen
        await pilot.press("f7")
        await pilot.pause()
        assert screen.session.state.over
        await pilot.press("f10")
        await pilot.pause()
        modal = app.screen
        assert type(modal).__name__ == "BetweenGamesScreen"
        assert modal.query_one("#scoreboard").row_count == 2       # game 1 and the total
        while modal.shown < len(modal.steps):
            await pilot.press("enter")
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is screen and screen.session.state.game_number == 2


@sync
async def test_replay_keys_move_by_trick_and_the_log_follows():
    app = app_for("online", seed=11, speed="instant")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        log = screen.query_one(GameLog)
        await pilot.press("f7")                 # play on to the end of the game
        await pilot.pause()
        end = len(s.entries) - 1
        await pilot.press("ctrl+home")
        await pilot.pause()
        assert s.cursor == 0 and log.scroll_y == 0
        starts = s.trick_starts()
        await pilot.press("pagedown", "pagedown")
        await pilot.pause()
        assert s.cursor == starts[2]
        await pilot.press("pageup")
        await pilot.pause()
        assert s.cursor == starts[1]
        await pilot.press("end")                # the move box is empty: to the end of the game
        await pilot.pause()
        assert s.cursor == end
        node = log.cursor_node
        assert node is not None and node.data == ("move", end)
        assert log.scroll_y > 0 and log.scroll_y <= node.line < log.scroll_y + log.scrollable_content_region.height
        await pilot.press("ctrl+l")             # the log has the keys too (not the tree's scrolling)
        await pilot.press("home")
        await pilot.pause()
        assert s.cursor == 0 and log.scroll_y == 0
        await pilot.press("pagedown")
        await pilot.pause()
        assert s.cursor == starts[1]
        await pilot.press("ctrl+end")
        await pilot.pause()
        assert s.cursor == end


@sync
async def test_a_rule_the_app_does_not_open_is_shown_in_a_dialog(tmp_path):
    from gouji_app.play.dialogs import RuleSourceScreen
    rules = tmp_path / "house.yaml"
    rules.write_text("a: 1\nb: 2\nc: 3\n", encoding="utf-8")
    asked = []
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        screen.on_open_rule = lambda path, line: asked.append((path, line)) or False
        screen.open_rule(SourcePos(str(rules), 2))
        await pilot.pause()
        assert asked == [(str(rules), 2)]
        assert isinstance(app.screen, RuleSourceScreen) and app.screen.line == 2
        await pilot.press("escape")
        await pilot.pause()
        screen.on_open_rule = lambda path, line: True
        screen.open_rule(SourcePos(str(rules), 2))
        await pilot.pause()
        assert app.screen is screen


@sync
async def test_a_shape_error_names_its_rule_and_line():
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        await pilot.press("A", "K")             # two ranks: not a play
        await pilot.pause()
        text = str(screen.query_one("#feedback").render())
        assert "is not a play" in text and "setting.play-shape" in text
        assert "base.yaml:" in text
        assert "speed instant" in str(screen.query_one("#status").render())


def test_session_undo_and_record_roundtrip():
    s = PlaySession(graph("online"), seat=2, seed=4)
    s.run_bots()
    s.run("game")
    rec = s.record()
    s2 = PlaySession(graph("online"), seat=2, seed=0)
    s2.load(rec)
    assert s2.entries[-1].state.record == s.state.record


async def steady(pilot):
    """No blinking cursor in a snapshot (its phase depends on how busy the machine is)."""
    await pilot.pause()
    pilot.app.play_screen.query_one("#move").cursor_blink = False
    await pilot.pause()
    await footer_settled(pilot)


def test_snapshot_play_screen(snap_compare):
    assert snap_compare(app_for("online", seed=7), terminal_size=SIZE, run_before=steady)


def test_snapshot_refused_move_narrow(snap_compare):
    async def refuse(pilot):
        await steady(pilot)
        await pilot.press("A", "A", "A", "enter")      # seat 1 holds one ace: refused (engine.cards)
        await pilot.pause()
        await footer_settled(pilot)

    assert snap_compare(app_for("online", seed=7), terminal_size=(80, 24), run_before=refuse)


pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def test_play_command_errors_without_a_traceback(tmp_path):
    from click.testing import CliRunner

    from gouji_app.play.command import SPEED_NAMES, play_command
    from gouji_app.play.screen import SPEEDS

    assert [n for n, _ in SPEEDS] == SPEED_NAMES
    runner = CliRunner()
    res = runner.invoke(play_command, ["nosuch"])
    assert res.exit_code == 1 and "unknown ruleset 'nosuch'" in res.output and "Traceback" not in res.output
    bad = tmp_path / "bad.json"
    bad.write_text('{"ruleset": "online", "events": [1]}')
    res = runner.invoke(play_command, ["--record", str(bad)])
    assert res.exit_code == 1 and f"{bad}:1:34:" in res.output


# ------------------------------------------------------------------------------ issue 15 fixes
RULEBOOK_HANDS = {1: "2 33 4 9", 2: "2 3 4 55", 3: "2 3 4 77", 4: "2 3 4 TT", 5: "2 3 4 QQ", 6: "2 3 4 AA"}


@sync
async def test_why_box_tab_enter_and_it_goes_when_the_text_changes():
    from gouji_app.play.dialogs import RuleSourceScreen
    app = app_for("rulebook", hands=RULEBOOK_HANDS, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        await type_move(pilot, "pass")               # no point declared
        await type_move(pilot, "33")                 # refused: 3s only as the last play
        why = screen.query_one("#why")
        assert why.has_class("-shown") and why.highlighted == 0
        assert all(not why.get_option_at_index(i).disabled for i in range(why.option_count))
        await pilot.press("tab")
        assert why.has_focus
        await pilot.press("enter")                   # the first rule: the one that refused
        await wait_for(pilot, lambda: isinstance(app.screen, RuleSourceScreen), what="the rule's source")
        title = app.screen.query_one(".play-dialog").border_title
        assert title.startswith("bundled: base.yaml:") and "site-packages" not in title and "/" not in title
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back")
        await pilot.press("f3")                      # the hint fills a legal move: the old box goes
        assert not why.has_class("-shown")
        assert "✓ legal" in str(screen.query_one("#feedback").render())


@sync
async def test_why_dialog_tab_enter_opens_the_first_rule():
    from gouji_app.play.dialogs import RuleSourceScreen, WhyScreen
    app = app_for("rulebook", hands=RULEBOOK_HANDS, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await type_move(pilot, "pass")
        await pilot.press("3", "3", "f5")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the why dialog")
        # issue 9: the dialog shows the whole explanation: every rule and setting it cites
        shown = app.screen.query_one("#why-list")
        prompts = " ".join(str(shown.get_option_at_index(i).prompt) for i in range(shown.option_count))
        assert app.screen.explanation.chain and all(rid in prompts for rid in app.screen.explanation.rule_ids)
        await pilot.press("tab", "shift+tab", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, RuleSourceScreen), what="the rule's source")


@sync
async def test_after_a_refused_move_letters_are_typed_in_the_move_box():
    """(t28b F4, the play screen) a refused move keeps the move box focused: what is typed next goes
    there (no key of the screen is a bare letter)."""
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await steady(pilot)
        screen = app.play_screen
        await pilot.press("A", "A", "A", "enter")      # seat 1 holds one ace: refused
        await pilot.pause()
        move = screen.query_one("#move")
        assert screen.focused is move
        await pilot.press("ctrl+a", "ctrl+k", *"opqrswn")
        assert app.screen is screen and screen.focused is move and move.value == "opqrswn"


def test_a_turn_error_does_not_outlive_the_turn(monkeypatch):
    """Text typed while a bot is to act is read again when the turn comes (the bots are moved by hand
    here, as the screen's timer would, so the test does not depend on timing)."""
    monkeypatch.setattr(PlayScreen, "_schedule", lambda self: None)

    async def scenario():
        app = app_for("online", seed=7, leader=2, speed="slow")
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.play_screen
            s = screen.session
            assert not s.your_turn
            card = s.model.text(s.state.hands[1])[-1:]
            await pilot.press(card)
            assert "engine.turn" in str(screen.query_one("#feedback").render())
            s.run_bots()                                   # the bots play up to your turn
            screen.refresh_all()
            await pilot.pause()
            assert s.your_turn and screen.query_one("#move").value == card
            feedback = str(screen.query_one("#feedback").render())
            assert "engine.turn" not in feedback, feedback
    asyncio.run(scenario())


@sync
async def test_wide_log_ctrl_l_and_escape_return_to_the_move_box():
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        log, move = screen.query_one(GameLog), screen.query_one("#move")
        width = log.size.width
        await pilot.press("ctrl+l")
        assert log.has_focus and log.size.width == width   # focusing the log does not squeeze the table
        await pilot.press("ctrl+l")
        assert move.has_focus
        await pilot.press("ctrl+l", "escape")
        assert move.has_focus
        await pilot.press("ctrl+l", "A")                   # a card typed in the log goes to the move box
        assert move.has_focus and move.value == "A"


@sync
async def test_the_log_follows_f6():
    app = app_for("online", seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        log = screen.query_one(GameLog)
        for _ in range(6):
            await pilot.press("f6")
            await pilot.pause()
            node = log.cursor_node
            assert node is not None and node.data[1] == s.cursor
            assert log.scroll_y <= node.line < log.scroll_y + log.scrollable_content_region.height


@sync
async def test_the_log_says_what_a_setup_pass_declines():
    """Online, seed 7: seat 4 may revolt (no 2, no joker) and does not; the log says "no revolution",
    not a bare "pass" before the first lead."""
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.entries[0].state.phase == "setup" and s.entries[1].move == "4 pass"
        log = screen.query_one(GameLog)
        labels = [str(line.node.label) for line in log._tree_lines]
        assert any("seat 4 pass — no revolution (革命)" in label for label in labels), labels[:5]


@sync
async def test_the_log_shows_how_the_game_ended():
    """F7 to the end: the lines after the last move (who went out, the game-over line) are in view."""
    app = app_for("online", seed=11)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        log = screen.query_one(GameLog)
        await pilot.press("f7")
        await wait_for(pilot, lambda: s.state.over, what="game over")

        def in_view(line: int) -> bool:
            return log.scroll_y <= line < log.scroll_y + log.scrollable_content_region.height

        # the log scrolls after a refresh: wait for it (two fixed pauses were one line short on a loaded machine)
        await wait_for(pilot, lambda: "game over" in str(log._tree_lines[log.last_line].node.label)
                       and in_view(log.last_line) and log.cursor_node is not None and in_view(log.cursor_node.line),
                       what="the game-over line and the cursor in view")
        node = log.cursor_node
        assert node is not None and node.data[1] == s.cursor


@sync
async def test_the_narrow_log_shows_where_the_game_is():
    app = app_for("online", seed=11)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        log = screen.query_one(GameLog)
        for _ in range(4):
            await pilot.press("f6")
            await pilot.pause()
        await pilot.press("ctrl+l")
        await pilot.pause()
        await pilot.pause()
        node = log.cursor_node
        assert log.display and node is not None and node.data[1] == s.cursor
        assert log.scroll_y <= node.line < log.scroll_y + log.scrollable_content_region.height


@sync
async def test_review_a_record_with_open_hands_and_the_rules_of_each_decision():
    from gouji_app.play.dialogs import WhyScreen
    from gouji_app.play.widgets import move_label
    s0 = PlaySession(graph("online"), seat=1, seed=5)
    s0.run("game")
    rec = s0.record()
    app = app_for("online", seed=5, record=rec, review=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.mode == "replay" and screen.has_class("-review")
        review = screen.query_one("#review")
        assert review.has_focus
        await pilot.press("right", "right", "right")
        assert s.cursor == 3
        # every hand is open
        for rel in range(1, 6):
            box = str(screen.query_one(f"#seat-{rel}").render())
            assert "?" not in box and "cards" in box
        made = move_label(s.entries[4].move, 1).plain  # "seat 4 KK", as the log says it (not the record's "4 play KK")
        assert f"made: {made}" in review.border_title
        # numbered as the log numbers the move made at it (entry 4), not by the moves before it
        assert review.border_title.startswith(f"Decision 4/{len(s.entries) - 1}: ")
        status = str(screen.query_one("#status").render())
        assert "review: decision 4/" in status
        feedback = str(screen.query_one("#feedback").render())
        assert "ctrl+r" not in feedback  # not the replay's keys
        first = str(review.get_option_at_index(0).prompt)
        assert first.startswith("▶ " + made)
        assert review.option_count == min(len(s.legal()), 200) + (len(s.legal()) > 200)
        await pilot.press("down", "enter")              # another legal move: the rules that allow it
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the rules")
        assert app.screen.explanation.legal
        await pilot.press("escape")
        await pilot.press("left")
        assert s.cursor == 2
        await pilot.press("f12")                       # leave review: hands hidden again
        assert not screen.has_class("-review") and "?" in str(screen.query_one("#seat-3").render())


@sync
async def test_review_of_a_live_game_numbers_the_decision_still_to_make_as_the_next():
    """F12 at your turn in a live game: the decision to make is not one of the n made ("14/13", a
    fresh tester's finding) but the next one."""
    app = app_for("online", seed=7)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        await type_move(pilot, "33")
        await wait_for(pilot, lambda: s.your_turn and not screen.thinking, what="your turn again")
        n = len(s.entries) - 1
        await pilot.press("f12")
        await wait_for(pilot, lambda: screen.has_class("-review"), what="review mode")
        review = screen.query_one("#review")
        assert review.border_title.startswith(f"Decision {n + 1} (the next): you to ")
        assert f"review: decision {n + 1} (the next)," in str(screen.query_one("#status").render())
        await pilot.press("left")
        assert review.border_title.startswith(f"Decision {n}/{n}: ")


@sync
async def test_open_hands_at_80x24_are_never_cut_silently():
    """Review at 80x24: a seat box too small for its whole hand ends it with "… +N", N the cards not
    shown; shown and hidden cards add up to the hand."""
    import re
    s0 = PlaySession(graph("online"), seat=1, seed=5)
    s0.run("game")
    app = app_for("online", seed=5, record=s0.record(), review=True)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        screen = app.play_screen
        st = screen.session.state
        cut = 0
        for rel in range(2, 6):
            box = screen.query_one(f"#seat-{rel}")
            seat = (screen.session.seat + rel - 2) % 6 + 1
            lines = str(box.render()).splitlines()
            assert len(lines) <= box.content_region.height
            hand = " ".join(lines[1:])
            more = re.search(r"… \+(\d+)$", hand)
            shown = sum(1 for ch in hand[:more.start()] if ch.isupper() or ch.isdigit()) if more else \
                sum(1 for ch in hand if ch.isupper() or ch.isdigit())
            assert shown + (int(more.group(1)) if more else 0) == st.hand_size(seat), (seat, lines)
            cut += more is not None
        assert cut  # 36 cards do not fit a 21 x 3 box


@sync
async def test_a_terminal_too_small_for_the_table_says_so_and_the_game_goes_on_when_larger():
    """At 40x12 the table, hand and move box cannot show: a notice with the size needed, not a cut table
    (a fresh tester's finding); made larger, the table is back and typing goes to the move box."""
    app = app_for("online", seed=5)
    async with app.run_test(size=(40, 12)) as pilot:
        screen = app.play_screen
        await wait_for(pilot, lambda: screen.has_class("-too-small"), what="the too-small notice")
        notice = str(screen.query_one("#too-small").render())
        assert "40×12" in notice and f"{screen.MIN_SIZE[0]}×{screen.MIN_SIZE[1]}" in notice
        assert not screen.query_one("#body").display
        await pilot.resize_terminal(100, 30)
        await wait_for(pilot, lambda: not screen.has_class("-too-small"), what="the table back")
        assert screen.query_one("#body").display and screen.focused is screen.query_one("#move")


@sync
async def test_who_may_answer_a_gouji_play_is_not_cut_in_a_long_trick():
    """A long trick is shown in columns; the line saying who may answer the gouji play on the table
    keeps whole lines below them, never cut to a column's width."""
    from gouji_app.play.widgets import trick_entries
    g = graph("base")
    s0 = PlaySession(g, seat=1, seed=551724)
    s0.run("game")
    at = None
    for i, e in enumerate(s0.entries):
        s0.goto(i)
        st = e.state
        if not st.over and st.phase == "play" and st.top is not None and st.top.play.gouji \
                and len(trick_entries(s0)) >= 12:
            at = i
            break
    assert at is not None, "the deal has a long trick with a gouji play on top"
    app = app_for("base", seed=551724, record=s0.record(), review=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        screen.session.goto(at)
        screen.refresh_all()
        await pilot.pause()
        follow, _ = screen.session.who_may_answer()
        text = " ".join(str(screen.query_one("#trick").render()).split())
        assert "gouji play (够级牌): answer:" in text and "…" not in text.split("gouji play")[1].split("▶")[0]
        assert all((f"seat {x}" in text.split("gouji play")[1]) or x == 1 for x in follow)


@sync
async def test_asked_to_burn_with_nothing_that_burns_says_pass():
    """Seat 1 asked about a teammate's gouji play with no play that burns it: the feedback says so,
    not "burn it with one of 0 plays"."""
    g = graph("base")
    s0 = PlaySession(g, seat=1, seed=551724)
    s0.run("game")
    at = None
    for i, e in enumerate(s0.entries):
        st = e.state
        if not st.over and st.to_act == 1 and st.capacity == "burn":
            s0.goto(i)
            if not any(m.cards is not None for m in s0.legal()):
                at = i
                break
    assert at is not None, "the deal has such a moment"
    app = app_for("base", seed=551724, record=s0.record(), review=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        screen.session.goto(at)
        screen.refresh_all()
        await pilot.pause()
        feedback = str(screen.query_one("#feedback").render())
        assert "nothing you hold burns it: pass" in feedback and "one of 0" not in feedback


@sync
async def test_a_five_game_match_with_its_scoreboard():
    """Issue 15: F10 says which game of how many; the scoreboard (places, sweep, tribute paid before each
    game, running team totals) shows between games, on F11, and by itself when the match ends."""
    from gouji_app.play.dialogs import BetweenGamesScreen, ScoreboardScreen
    app = app_for("rulebook", seed=3, show_steps=True)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        assert s.length == 5
        if isinstance(app.screen, BetweenGamesScreen):   # game 1: buying 3s and 4s before play
            assert not app.screen.query("#scoreboard")     # no game finished yet
            await pilot.press("escape")
        for game in range(1, 6):
            await pilot.press("f7")
            await wait_for(pilot, lambda: s.state.over, what=f"game {game} over")
            feedback = str(screen.query_one("#feedback").render())
            if game < 5:
                assert f"F10 deals game {game + 1} of 5" in feedback
                await pilot.press("f10")
                await wait_for(pilot, lambda: isinstance(app.screen, BetweenGamesScreen), what="between games")
                board = app.screen.query_one("#scoreboard")
                assert board.row_count == game + 1                  # a row per finished game, and the one to play
                await pilot.press("escape")
                await wait_for(pilot, lambda: app.screen is screen, what="play on")
        await wait_for(pilot, lambda: isinstance(app.screen, ScoreboardScreen), what="the final scoreboard")
        final = app.screen
        assert final.final and final.query_one(".play-dialog").border_title == "Match over: 5 games"
        games = s.match_summary()
        assert [g.number for g in games] == [1, 2, 3, 4, 5] and all(g.over for g in games)
        totals = s.match_totals()
        assert totals == {t: sum(g.team_scores[t] for g in games) for t in (1, 2)}
        table = final.query_one("#scoreboard")
        last = [str(c) for c in table.get_row_at(4)]
        assert last[-2:] == [f"{totals[1]:+}", f"{totals[2]:+}"]
        assert any(g.tribute for g in games[1:])                  # rulebook pays tribute between games
        assert "F10 deals a new match" in str(screen.query_one("#feedback").render())


def test_an_unexpected_exception_in_the_app_is_a_crash_report_and_exit_2_not_a_traceback(monkeypatch, tmp_path):
    """A crash in the app printed Textual's traceback (with every local) and `gouji play` exited 0 (a
    fresh tester's finding, from the new-game dialog): now one line naming the saved crash report,
    exit status 2, as every gouji command."""
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(tmp_path))
    app = app_for("online")

    def boom() -> None:
        raise ZeroDivisionError("deep in a handler")

    async def scenario():
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.call_later(boom)
            await pilot.pause()

    with pytest.raises(ZeroDivisionError):
        asyncio.run(scenario())
    assert app.return_code == 2
    (report,) = tmp_path.iterdir()
    assert "ZeroDivisionError: deep in a handler" in report.read_text()
    shown = [str(r) for r in app._exit_renderables]
    assert not shown or (len(shown) == 1 and shown[0].startswith("gouji: internal error: ZeroDivisionError"))


def test_the_scoreboard_does_not_count_the_tribute_of_a_voided_deal():
    """Issue 23.14: a deal voided after its tribute (and dealt again) kept its transfers in the
    record, and the scoreboard added them to the tribute of the deal played; a voided game that is
    not dealt again paid nothing and says "voided"."""
    from gouji_app.play.session import summarize, tribute_of
    s = PlaySession(graph("rulebook"), seat=1, seed=3, bots="heuristic")
    s.run("game")
    assert s.state.over
    s.next_game()
    st = s.state
    paid = tribute_of(st)
    assert paid, "rulebook pays tribute between games"
    voided = st.copy()
    voided._redeal()  # the deal voided (two revolutions, say) and dealt again: its tribute is paid anew
    again = tribute_of(voided)
    deals = [i for i, e in enumerate(voided.record) if e["type"] == "deal"]
    assert len(deals) == 2
    assert again == [e for e in voided.record[deals[1]:] if e["type"] == "transfer"
                     and str(e.get("rule", "")).startswith("tribute")]
    assert len(again) == len(paid)  # the same tribute once, not twice
    # voided with fixed hands: not dealt again, no tribute, no places
    fixed = st.copy()
    fixed.redealt, fixed.phase, fixed.places = True, "over", {}
    assert fixed.voided and tribute_of(fixed) == [] and summarize(fixed).voided


DIVIDES_BY_ZERO = """\
ruleset: divzero
extends: online
rules:
  - id: score.team-sum
    on: score
    value: "1 / hand_size(seat)"
    says: "Fails at the end of every game: the first out holds no card."
"""


@sync
async def test_a_rule_that_fails_in_play_is_shown_with_its_line_and_the_game_is_kept(tmp_path):
    """Issue 23.13: a score rule dividing by zero ended the app with "internal error … a bug in
    gouji". Now: the rule, its file:line and why (the interpreter's RuleFailed text), the game kept
    as it was before the move, nothing moving by itself there, and the app usable (undo plays on)."""
    from gouji_app.play.dialogs import AskScreen, RuleSourceScreen
    path = tmp_path / "divzero.yaml"
    path.write_text(DIVIDES_BY_ZERO, encoding="utf-8")
    app = PlayApp(load_graph(path), speed="instant", show_steps=False, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        await pilot.press("f7")  # to the end of the game: its score rule fails
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the failure dialog")
        assert app.is_running and app.return_code is None
        message = app.screen.message.plain
        assert f"{path}:4:9: rule 'score.team-sum' failed while the game ran: division by zero" in message
        assert "[RuleFailed]" in message and f"{path}:6:13" in message
        s = screen.session
        before = (len(s.entries), s.state)
        assert not s.state.over and s.state is screen._failed_at
        await pilot.press("r")  # the rule's source, at its line
        await wait_for(pilot, lambda: isinstance(app.screen, RuleSourceScreen), what="the rule")
        assert app.screen.line == 4
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
        assert (len(s.entries), s.state) == before  # nothing moved by itself meanwhile
        feedback = str(screen.query_one("#feedback").render())
        assert "rule 'score.team-sum' failed here (divzero.yaml:4)" in feedback
        await pilot.press("ctrl+z")  # the game goes on from before the user's last move
        await wait_for(pilot, lambda: s.cursor < before[0] - 1, what="undone")
        assert app.is_running


VOID_AFTER_ASK = """\
ruleset: void-after-ask
extends: online
settings:
  choices: {redeal: {asked: deal}}
  counters: {asks: {reset: game}}
rules:
  - {id: redeal.ask-once, on: offer, when: "choice == 'redeal' and seat == 1", allow: "counter(seat, 'asks') < 1",
     says: "Seat 1 is asked once per game."}
  - {id: redeal.asked, on: answered, when: "choice == 'redeal'", count: asks, says: "The answer is counted."}
  - {id: redeal.always, on: redeal_before_tribute, value: "true", says: "Every deal is void."}
"""


@sync
async def test_a_redeal_rule_voiding_every_deal_after_the_users_answer_is_shown_not_a_crash(tmp_path):
    """Issue 23.6/23.13 (new-user check): when the user's own answer (a ruleset's choice) led to the
    200th void deal, the MAX_REDEALS failure was a plain GoujiError that the play screen's guard did
    not catch: "internal error … this is a bug in gouji". Now it is a RuleFailed: the rule, its line."""
    from gouji_app.play.dialogs import AskScreen
    path = tmp_path / "void-after-ask.yaml"
    path.write_text(VOID_AFTER_ASK, encoding="utf-8")
    app = PlayApp(load_graph(path), speed="instant", show_steps=False, seed=7)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.play_screen.session.your_turn
        await pilot.press(*"pass", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen) or not app.is_running or app.return_code is not None,
                       what="the failure dialog (or the app ending)")
        assert app.is_running and app.return_code is None
        message = app.screen.message.plain
        assert f"{path}:10:10: rule 'redeal.always' failed while the game ran: it voided the deal 200 times" in message
        assert "[RuleFailed]" in message


@sync
async def test_closing_or_opening_a_record_asks_before_an_unfinished_game_is_dropped(tmp_path, monkeypatch):
    """Issue 22.21: ctrl+b and ctrl+o threw an unfinished game or match away without a question.
    Now they ask (save first / leave / stay), as the editor asks about unsaved text; a finished
    game, a saved one and a replayed record are left without a question."""
    from gouji_app.play.dialogs import AskScreen, PathScreen
    monkeypatch.chdir(tmp_path)
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: s.your_turn, what="your turn")
        await pilot.press("f3", "enter")  # a move of yours: a game being played
        await wait_for(pilot, lambda: len(s.entries) > 2, what="moves made")
        assert s.unfinished
        for key in ("ctrl+b", "ctrl+o"):
            await pilot.press(key)
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what=f"the question ({key})")
            assert "The game is not finished" in app.screen.message.plain
            await pilot.press("c")  # stay
            await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
            assert app.is_running and app.screen is screen
        # save first, then the open dialog follows
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the question")
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), what="the save dialog")
        assert app.screen.title_text == "Save the game record"
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen)
                       and app.screen.title_text.startswith("Open"), what="the open dialog after the save")
        assert not s.unfinished and (tmp_path / screen._default_record_path()).exists()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
        # saved and nothing moved since: ctrl+b closes at once
        await pilot.press("ctrl+b")
        await wait_for(pilot, lambda: not app.is_running, what="closed")


@sync
async def test_ctrl_q_asks_before_an_unfinished_game_is_dropped(tmp_path, monkeypatch):
    """Issue 22.21 (follow-up): ctrl+b and ctrl+o asked, but ctrl+q (quit) still threw an unfinished
    game away without a question (the editor asks about unsaved text on ctrl+q). Stay keeps the
    game; leave quits; a saved game quits at once."""
    from gouji_app.play.dialogs import AskScreen
    monkeypatch.chdir(tmp_path)
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: s.your_turn, what="your turn")
        await pilot.press("f3", "enter")
        await wait_for(pilot, lambda: len(s.entries) > 2, what="moves made")
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the question")
        assert "quitting drops it" in app.screen.message.plain
        await pilot.press("c")
        await wait_for(pilot, lambda: app.screen is screen, what="back at the table")
        assert app.is_running and s.unfinished
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the question again")
        await pilot.press("l")
        await wait_for(pilot, lambda: not app.is_running, what="quit")


@sync
async def test_saving_the_next_games_record_does_not_replace_the_last_one(tmp_path, monkeypatch):
    """A tester saved game 1 (ctrl+s, game-online-SEED.json), dealt the next game (F10) and saved
    again: the dialog offered the same file and Enter replaced game 1's record with game 2's, without
    a word. A new game outside a match is a record of its own (its own default name), and a file that
    exists and is not this record's is replaced only on a second Enter."""
    from gouji_app.play.dialogs import PathScreen
    monkeypatch.chdir(tmp_path)
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        await pilot.press("f7")
        await wait_for(pilot, lambda: s.state.over, what="the game over")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), what="the save dialog")
        first = screen._default_record_path()
        await pilot.press("enter")
        await wait_for(pilot, lambda: app.screen is screen, what="saved")
        game1 = (tmp_path / first).read_text(encoding="utf-8")
        await pilot.press("f10")
        await wait_for(pilot, lambda: s.game_index == 1, what="the next game")
        second = screen._default_record_path()
        assert second != first and second.endswith("-2.json")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, PathScreen), what="the save dialog")
        dialog = app.screen
        assert dialog.query_one("#path-input").value == second
        dialog.query_one("#path-input").value = first  # the user types the last game's file
        await pilot.press("enter")
        await wait_for(pilot, lambda: "Enter again replaces it" in str(dialog.query_one("#path-error").render()),
                       what="the warning")
        assert app.screen is dialog and (tmp_path / first).read_text(encoding="utf-8") == game1
        await pilot.press("enter")  # a second Enter: replaced, as asked
        await wait_for(pilot, lambda: app.screen is screen, what="saved")
        assert (tmp_path / first).read_text(encoding="utf-8") != game1


@sync
async def test_leaving_review_returns_to_where_play_was():
    """Issue 22.23: leaving review (F12) at an earlier decision rewound the game silently (F10 then
    said "finish this game first" of a finished game). Now play goes on from where it was."""
    app = app_for("online")
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        await pilot.press("f7")
        await wait_for(pilot, lambda: s.state.over, what="the game over")
        end = s.cursor
        await pilot.press("f12", "left", "left", "left")
        await wait_for(pilot, lambda: s.cursor == end - 3, what="three decisions back")
        assert screen.review
        await pilot.press("f12")
        await wait_for(pilot, lambda: not screen.review, what="out of review")
        assert s.cursor == end and s.live and s.state.over
        assert "is over" in str(screen.query_one("#feedback").render())
        await pilot.press("f10")  # the next game is dealt: no "finish this game first"
        await wait_for(pilot, lambda: s.game_index == 1, what="the next game")
        assert not any("Finish this game first" in n.message for n in notes(app))
        # ctrl+r in review plays on from the decision shown: leaving review stays there
        await wait_for(pilot, lambda: s.your_turn, what="your turn")
        await pilot.press("f3", "enter")
        await wait_for(pilot, lambda: s.your_turn and len(s.entries) > 3, what="your next turn")
        await pilot.press("f12", "left")
        at = s.cursor
        await pilot.press("ctrl+r", "f12")
        await wait_for(pilot, lambda: not screen.review, what="out of review")
        assert s.cursor >= at and s.live


def test_trick_columns_shorten_and_wrap_a_play_rather_than_cut_it():
    """Issue 22.25: at 80×24 the trick panel cut plays to its column (``33…``, ``RB…``)."""
    from rich.text import Text

    from gouji_app.play.widgets import _columns, compact_line, move_label
    assert compact_line(Text("  ").append_text(move_label("3 play KK", 1))).plain == "  3: KK"
    assert compact_line(Text("◆ ").append_text(move_label("1 play 66", 1))).plain == "◆ you: 66"
    moves = [f"{s} play {cards}" for s, cards in
             zip([2, 3, 4, 5, 6, 1, 2, 3, 4, 5], ["3333", "RB 33333333", "B 2 KKKKKK", "pass", "AAAA",
                                                  "RRBB 2222 TTTTTT", "pass", "QQQQ", "pass", "JJJJJ"])]
    lines = [Text("  ").append_text(move_label(m, 1)) for m in moves]
    out = _columns(lines, 28, 7).plain
    assert "…" not in out, out
    assert len(out.splitlines()) <= 7
    for m in moves:
        for group in m.split(None, 2)[2].split():
            assert group in out.replace("\n", " ").split() or group in out, (group, out)
    assert max(len(r) for r in out.splitlines()) <= 28


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
@sync
async def test_each_seat_shows_its_last_play_and_the_trick_cuts_no_play(size):
    """Issue 22.29: the seat boxes show what each seat did last (the trick's list is gone once the
    trick is won); issue 22.25: no play in the trick panel is cut, at 80×24 and 120×40."""
    from gouji_app.play.widgets import SeatBox, TrickView, last_move_text, trick_entries
    app = app_for("online")
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        screen = app.play_screen
        s = screen.session
        seen_long_trick = False
        for _ in range(20):
            await wait_for(pilot, lambda: s.your_turn or s.state.over, what="your turn")
            if s.state.over:
                break
            trick = str(screen.query_one(TrickView).render())
            moves = [t.plain for kind, t in trick_entries(s) if kind == "move"]
            seen_long_trick |= len(moves) > 6
            cut = [ln for ln in trick.splitlines() if "…" in ln and "earlier" not in ln]
            assert not cut, trick
            if moves:  # the latest answer is always shown, whole
                assert moves[-1].split()[-1] in trick, (moves[-1], trick)
            for rel in range(1, 6):
                seat = (s.seat - 1 + rel) % 6 + 1
                box = str(screen.query_one(f"#seat-{rel}", SeatBox).render())
                last = last_move_text(s, seat)
                if last is not None:
                    assert last.plain in box, (seat, last.plain, box)
            await pilot.press("f3", "enter")
            await pilot.pause()
        assert seen_long_trick


@sync
async def test_a_burn_that_cannot_succeed_says_so_and_is_still_played(monkeypatch):
    """Issue 22.22: with no joker left for the next lead (base.yaml burn.carry-jokers: "While burning,
    every lead must carry a joker, except the last one"), ``burn AA`` was "✓ legal, Enter to play" and
    the why dialog said nothing of it. Now both say the burn cannot succeed and cite the rule with its
    file:line before the move is made; the move stays legal (a bluff is a move) and Enter plays it."""
    from textual.widgets import OptionList, Static

    from gouji_app.play.dialogs import WhyScreen
    hands = {1: "2 KK 3 4", 2: "2 5", 3: "2 AA 66 7", 4: "2 8", 5: "2 9", 6: "2 T"}  # everyone holds a 2: no revolt
    seat_1_leads_kk(monkeypatch)
    app = app_for(seat=3, hands=hands, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: s.your_turn and s.state.capacity == "burn", what="the burn offer")
        await pilot.press("A", "A")
        feedback = str(screen.query_one("#feedback").render())
        assert "✓ legal — but this burn cannot succeed: burn.carry-jokers (base.yaml:" in feedback, feedback
        assert "Enter plays it all the same" in feedback and "every lead must carry a joker" in feedback
        assert "Enter to play" not in feedback
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the why dialog")
        why = app.screen
        assert "this burn cannot succeed" in str(why.query_one(Static).render())
        first = why.query_one("#why-list", OptionList).get_option_at_index(0).prompt
        assert "burn.carry-jokers" in str(first) and "base.yaml:" in str(first)
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the table")


@sync
async def test_a_burn_the_look_ahead_could_not_decide_says_so(monkeypatch):
    """Issue 22.22: a look-ahead out of its budget showed the burn as plainly "✓ legal, Enter to
    play". Now the status line and the why dialog say it was not worked out, claiming nothing."""
    from textual.widgets import Static

    import gouji_dsl.engine.lookahead as lookahead
    from gouji_app.play.dialogs import WhyScreen
    real = lookahead.doomed_burn
    monkeypatch.setattr(lookahead, "doomed_burn", lambda st, mv, budget=0: real(st, mv, budget=0))
    hands = {1: "2 KK 3 4", 2: "2 5", 3: "2 AA 66 7", 4: "2 8", 5: "2 9", 6: "2 T"}
    seat_1_leads_kk(monkeypatch)
    app = app_for(seat=3, hands=hands, leader=1)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: s.your_turn and s.state.capacity == "burn", what="the burn offer")
        await pilot.press("A", "A")
        feedback = str(screen.query_one("#feedback").render())
        assert "✓ legal — whether this burn can succeed was not worked out (too many ways to play it" in feedback, feedback
        assert "F5 why" in feedback and "cannot succeed" not in feedback
        await pilot.press("f5")
        await wait_for(pilot, lambda: isinstance(app.screen, WhyScreen), what="the why dialog")
        head = str(app.screen.query_one(Static).render())
        assert "was not worked out" in head and "cannot succeed" not in head
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, what="back to the table")
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(e.move == "3 burn AA" for e in s.entries), what="the burn played")


@sync
async def test_a_seat_with_one_card_says_1_card():
    """A tester saw 'team 2 · 1 cards' on a seat with its hand open (review): one card is '1 card'."""
    hands = {1: "7", 2: "2 33 4", 3: "2 KK 9", 4: "B 44 8", 5: "2 66 T", 6: "2 99 J"}
    app = app_for(hands=hands, leader=2)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        screen = app.play_screen
        from gouji_app.play.widgets import SeatBox
        box = screen.query_one("#seat-1", SeatBox)
        box.show(screen.session, 1, open_hands=True)
        text = str(box.render())
        assert "1 card" in text and "1 cards" not in text, text


ODD_RECORD = "game[b]x[@click=app.quit]q\x1b[31m.json"
"""A record's file name that is Textual markup (bold, a link that quits) with a control character."""
ODD_SHOWN = "game[b]x[@click=app.quit]q\\x1b[31m.json"


@sync
async def test_a_record_named_as_markup_is_saved_opened_and_named_literally(tmp_path):
    """Save and open a record whose name holds `[b]`, a `[@click]` link and ESC, and fail to save one
    under a file named with markup and a control character (issue 22): no crash; every message, the path dialog's
    default and its refusal show the name as it is, the control character escaped."""
    from textual.widgets import Input, Static

    path = tmp_path / ODD_RECORD
    (tmp_path / "not[b]a-dir\x07").write_text("", encoding="utf-8")  # a file where a folder is named
    app = app_for("online", seed=11, speed="instant")
    shown_notes = lambda: [f"{n.title}: {n.message}" for n in notes(app)]
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.query("#path-input"), what="the path dialog")
        app.screen.query_one("#path-input", Input).value = str(tmp_path / "not[b]a-dir\x07" / "g.json")
        await pilot.press("enter")
        await wait_for(pilot, lambda: "g.json" in str(app.screen.query_one("#path-error", Static).render()),
                       what="the refusal")
        refusal = str(app.screen.query_one("#path-error", Static).render())
        assert "not[b]a-dir\\x07" in refusal and "\x07" not in refusal
        app.screen.query_one("#path-input", Input).value = str(path)
        await pilot.press("enter")
        await wait_for(pilot, lambda: any("Saved" in n for n in shown_notes()), what="the save message")
        assert path.exists()
        saved = next(n for n in shown_notes() if "Saved" in n)
        assert f"/{ODD_SHOWN}" in saved and "\x1b" not in saved
        assert not any(n.markup for n in notes(app))
        await pilot.press("ctrl+s")  # the default is the record's path, shown escaped, and saves to it
        await wait_for(pilot, lambda: app.screen.query("#path-input"), what="the path dialog again")
        shown_default = app.screen.query_one("#path-input", Input).value
        assert shown_default.endswith(f"/{ODD_SHOWN}") and "\x1b" not in shown_default
        await pilot.press("escape")
        await pilot.press("ctrl+o")
        await wait_for(pilot, lambda: app.screen.query("#path-input"), what="the open dialog")
        await pilot.press("enter")  # the shown default opens the record itself
        await wait_for(pilot, lambda: any("Replaying" in n for n in shown_notes()), what="the replay message")
        replaying = next(n for n in shown_notes() if "Replaying" in n)
        assert f"/{ODD_SHOWN}" in replaying and "\x1b" not in replaying
        assert app.is_running and app.play_screen.session.mode == "replay"
