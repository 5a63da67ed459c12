"""Every bot of the registry in the play screen: as opponents (``gouji play --bots``, the new-game
dialog, search bots thinking in their own process) and as a hint with estimated values (shift+F3)."""
from __future__ import annotations

import asyncio
import functools

import pytest
from click.testing import CliRunner
from pilot_helpers import wait_for
from textual.widgets import DataTable, Input, Select

from gouji_app.play.app import PlayApp
from gouji_app.play.command import play_command
from gouji_app.play.dialogs import BotHintScreen, NewGameScreen
from gouji_app.play.session import PlaySession
from gouji_app.play.widgets import SeatBox
from gouji_dsl.bots import BOTS
from gouji_dsl.bots.ismcts import IsmctsBot
from gouji_dsl.bots.pimc import PimcBot
from gouji_dsl.bots.process import SearchProcess
from gouji_dsl.ruleset.graph import load_graph

SIZE = (120, 40)
# every seat holds a 2 or a joker (nobody may revolt), three short rank groups each (as in test_play.py)
SHORT = {1: "R 55 7", 2: "2 33 4", 3: "2 KK 9", 4: "B 44 8", 5: "2 66 T", 6: "2 99 J"}


@functools.cache
def graph(name: str):
    return load_graph(name)


def sync(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return asyncio.run(fn(*args, **kwargs))
    return wrapper


# ------------------------------------------------------------------------------ session and command
def test_session_takes_every_bot_of_the_registry():
    for name in BOTS:
        s = PlaySession(graph("online"), seat=1, seed=3, bots=name)
        assert set(s.bot_names.values()) == {name} and 1 not in s.bot_names
    s = PlaySession(graph("online"), seat=2, seed=3, bots="ismcts:8,random")  # odd seats, even seats
    assert s.bot_names == {1: "ismcts:8", 3: "ismcts:8", 5: "ismcts:8", 4: "random", 6: "random"}
    assert isinstance(s.bot_for(1), IsmctsBot) and s.bot_searches(1) and not s.bot_searches(4)
    with pytest.raises(ValueError, match="did you mean 'pimc'"):
        PlaySession(graph("online"), bots="pmc")


def test_analysis_lists_candidates_with_values_and_is_repeatable():
    s = PlaySession(graph("online"), seat=1, seed=3, bots="heuristic", hands=SHORT, leader=1)
    a = s.analyse("pimc:12")
    assert len(a.moves) >= 2 and a.iterations >= 12 - len(a.moves)
    assert a.best in s.legal() and a.moves[0].move == a.best
    for mv in a.moves:
        assert mv.move in s.legal() and mv.visits >= 2 and mv.stderr is not None
    b = s.analyse("pimc:12")
    assert [(m.move, m.value, m.visits) for m in a.moves] == [(m.move, m.value, m.visits) for m in b.moves]
    # the same bot however it is written (the dialog asks "ismcts" or "ismcts:N", N its default): the same answer
    n = BOTS["pimc"].default_iterations
    same = [[(m.move, m.value, m.visits) for m in s.analyse(x).moves] for x in ("pimc", f"PIMC:{n}", f"pimc:0{n}")]
    assert same[0] == same[1] == same[2] and same[0]
    h = s.analyse("heuristic")
    assert h.best == s.hint() and h.moves == []
    assert s.analyse("ismcts:8").moves


def test_play_command_rejects_a_bad_bot_with_a_suggestion():
    runner = CliRunner()
    res = runner.invoke(play_command, ["online", "--bots", "ismct"])
    assert res.exit_code == 2 and "did you mean 'ismcts'" in res.output
    res = runner.invoke(play_command, ["online", "--bots", "random,heuristic,pimc"])
    assert res.exit_code == 2 and "--bots" in res.output


# ------------------------------------------------------------------------------ pilot
@sync
async def test_search_bot_opponents_think_in_a_worker_and_play():
    app = PlayApp(graph("online"), seed=11, bots="ismcts:4", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: (s.your_turn or s.state.over) and not screen.thinking, what="the bots' moves")
        bots = [s.bot_for(x) for x in s.bot_names]
        assert all(isinstance(b, IsmctsBot) for b in bots)
        moved = {int(e.move.split()[0]) for e in s.entries if e.by == "bot"}
        assert moved and 1 not in moved  # seed 11: seat 2 leads, the bots play up to your turn
        assert any(b.last is not None and b.last.iterations > 0 for b in bots)  # and they searched
        subtitle = screen.query_one("#seat-1", SeatBox).border_subtitle
        assert "ismcts:4" in str(subtitle)


async def new_game_dialog(pilot) -> NewGameScreen:
    """Ctrl+N on the play screen, once its new-game dialog is open."""
    await pilot.pause()
    await pilot.press("ctrl+n")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, NewGameScreen), what="the new-game dialog")
    return pilot.app.screen


@sync
async def test_new_game_dialog_sets_opponents_and_teammates():
    app = PlayApp(graph("online"), seed=5, bots="heuristic", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        dlg = await new_game_dialog(pilot)
        assert [o[1] for o in dlg.query_one("#new-opponents", Select)._options if o[1] != Select.NULL] == list(BOTS)
        dlg.query_one("#new-opponents", Select).value = "pimc"
        dlg.query_one("#new-teammates", Select).value = "random"
        dlg.query_one("#new-iterations", Input).value = "4"
        dlg.query_one("#new-seed", Input).value = "99"
        await pilot.pause()
        await pilot.click("#new-deal")
        await wait_for(pilot, lambda: app.screen is screen, what="the dialog to close")
        s = screen.session
        assert s.seed == 99 and s.seat == 1
        assert s.bot_names == {2: "pimc:4", 4: "pimc:4", 6: "pimc:4", 3: "random", 5: "random"}
        await wait_for(pilot, lambda: (s.your_turn or s.state.over) and not screen.thinking, what="the bots' moves")
        assert isinstance(s.bot_for(2), PimcBot)
        assert "pimc:4" in str(screen.query_one("#seat-1", SeatBox).border_subtitle)  # seat 2, to your right


async def deal_refused(pilot, dlg: NewGameScreen, opponents: str, iterations: str) -> str:
    """Choose the opponents and the budget, press Deal: the dialog stays, with this refusal."""
    dlg.query_one("#new-opponents", Select).value = opponents
    dlg.query_one("#new-iterations", Input).value = iterations
    await pilot.pause()
    await pilot.click("#new-deal")
    await pilot.pause()
    assert pilot.app.screen is dlg
    return str(dlg.query_one("#new-error").render())


@sync
async def test_new_game_dialog_refuses_a_budget_nobody_uses():
    app = PlayApp(graph("online"), seed=5, bots="heuristic", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        dlg = await new_game_dialog(pilot)
        dlg.query_one("#new-teammates", Select).value = "random"
        assert "no effect" in await deal_refused(pilot, dlg, "heuristic", "50")
        assert screen.session.seed == 5


@sync
async def test_new_game_dialog_refuses_a_budget_above_the_registrys_maximum():
    """ismcts:999999 in the dialog was a crash (the registry's ValueError, a traceback on the screen)."""
    from gouji_dsl.bots import MAX_ITERATIONS
    app = PlayApp(graph("online"), seed=5, bots="heuristic", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        dlg = await new_game_dialog(pilot)
        assert "at most 100,000" in await deal_refused(pilot, dlg, "ismcts", str(MAX_ITERATIONS + 1))
        assert screen.session.seed == 5
        dlg.query_one("#new-iterations", Input).value = "2"
        seed = dlg.query_one("#new-seed", Input)
        seed.value = "²"  # a digit to str.isdigit, not to int(): a word seed
        seed.focus()
        await pilot.pause()
        await pilot.press("enter")  # (the refusal above pushed the Deal button down: Enter, not a click)
        await wait_for(pilot, lambda: app.screen is screen, what="the dialog to close")
        assert screen.session.seed == "²" and screen.session.bot_names[2] == "ismcts:2"


@sync
async def test_new_game_dialog_at_80x24_scrolls_to_its_refusal():
    """At 80x24 the dialog was cut below the seat and seed: Enter on a wrong budget showed its refusal
    off the screen, so nothing seemed to happen (a fresh tester's finding)."""
    app = PlayApp(graph("online"), seed=5, bots="heuristic", speed="instant", show_steps=False)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = app.play_screen
        dlg = await new_game_dialog(pilot)
        err = dlg.query_one("#new-error")
        dlg.query_one("#new-opponents", Select).value = "ismcts"
        box = dlg.query_one("#new-iterations", Input)
        box.value = "0"
        box.focus()
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: "at least 1" in str(err.render()) and err.region.height > 0
                       and err.region.bottom <= app.size.height, what="the refusal in view")
        assert app.screen is dlg and screen.session.seed == 5


def test_shift_f3_as_xterm_and_tmux_send_it_is_a_cursor_report_to_textual():
    """ESC [1;2R (shift+F3 in xterm, tmux, VTE, xterm.js) has the shape of a cursor position report,
    and Textual reads it as one: no key event at all. The apps turn such a report back into the key."""
    from textual import events
    from textual._xterm_parser import XTermParser

    from gouji_app.terminal_keys import modified_f3

    tokens = list(XTermParser().feed("\x1b[1;2R"))
    assert [type(t) for t in tokens] == [events.CursorPosition] and (tokens[0].x, tokens[0].y) == (1, 0)
    assert modified_f3(1, 0) == "shift+f3"
    assert modified_f3(4, 0) == "ctrl+f3" and modified_f3(5, 0) == "ctrl+shift+f3"  # ESC [1;5R, ESC [1;6R
    assert modified_f3(1, 3) is None and modified_f3(0, 0) is None and modified_f3(8, 0) is None


@sync
async def test_ask_bot_answers_shift_f3_as_xterm_and_tmux_send_it():
    """A fresh tester's finding, twice: under tmux shift+F3 did nothing (binding F15 did not help: the
    key arrives as a cursor position report, which the driver posts to the app)."""
    from textual import events

    app = PlayApp(graph("online"), seed=3, bots="heuristic", hands=SHORT, leader=1, speed="instant",
                  show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        s = app.play_screen.session
        await wait_for(pilot, lambda: s.your_turn, what="your turn")
        app.post_message(events.CursorPosition(1, 0))  # what the driver does with ESC [1;2R
        await wait_for(pilot, lambda: isinstance(app.screen, BotHintScreen), what="the hint dialog")
        hint = app.screen
        await wait_for(pilot, lambda: hint.analysis is not None or hint.error is not None, what="the search")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.play_screen, what="back to the table")


def hint_app() -> PlayApp:
    """A short online deal against heuristic bots, the human to lead: the hint dialog's tests."""
    return PlayApp(graph("online"), seed=3, bots="heuristic", hands=SHORT, leader=1, speed="instant",
                   show_steps=False)


async def hint_dialog(pilot, app: PlayApp) -> BotHintScreen:
    """Wait for the human's turn, press shift+F3 and return the ask-bot dialog once it is open."""
    s = app.play_screen.session
    await wait_for(pilot, lambda: s.your_turn, what="your turn")
    await pilot.press("shift+f3")
    await wait_for(pilot, lambda: isinstance(app.screen, BotHintScreen), what="the hint dialog")
    return app.screen


@sync
async def test_ask_bot_shows_each_candidate_with_its_value():
    app = hint_app()
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        hint = await hint_dialog(pilot, app)
        assert hint.bot == "ismcts"
        await wait_for(pilot, lambda: hint.analysis is not None or hint.error is not None, what="the search")
        assert hint.error is None
        a = hint.analysis
        table = hint.query_one("#hint-table", DataTable)
        assert table.row_count == len(a.moves) >= 2
        first = table.get_row_at(0)
        assert first[0] == s.move_word(a.best) and first[1] == f"{a.moves[0].value:+.2f}"
        assert first[3] == str(a.moves[0].visits) and "plays this" in first[4]
        assert "ismcts" in str(hint.query_one("#hint-status").render())
        # another budget: asked again, and the same question gets the same answer
        again = s.analyse("ismcts:8")
        inp = hint.query_one("#hint-iterations", Input)
        inp.value = "8"
        inp.focus()
        await pilot.press("enter")
        await wait_for(pilot, lambda: hint.analysis is not None and hint.analysis.iterations <= 8, what="the search")
        assert [(m.move, m.value) for m in hint.analysis.moves] == [(m.move, m.value) for m in again.moves]
        table.focus()
        await pilot.press("enter")  # the first row: the bot's move goes into the move box
        await wait_for(pilot, lambda: app.screen is screen, what="the dialog to close")
        assert screen.query_one("#move", Input).value == s.move_word(again.best)


@sync
async def test_ask_bot_refuses_a_budget_above_the_registrys_maximum():
    """A fresh tester typed 100001 iterations in the hint dialog: 'pimc:100001 failed: ValueError: bot
    ...' (Python's exception name, after starting a worker); now refused as the new-game dialog does."""
    app = hint_app()
    async with app.run_test(size=SIZE) as pilot:
        hint = await hint_dialog(pilot, app)
        await wait_for(pilot, lambda: hint.analysis is not None, what="the first search")
        inp = hint.query_one("#hint-iterations", Input)
        for value, words in (("100001", "at most 100,000 iterations"), ("0", "at least 1")):
            inp.value = value
            inp.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda w=words: w in str(hint.query_one("#hint-status").render()), what="the refusal")
            status = str(hint.query_one("#hint-status").render())
            assert hint.spec is None and status.startswith("iterations: ") and words in status, status
            assert "Error" not in status and "failed" not in status


@sync
async def test_ask_bot_iterations_placeholder_fits_its_field():
    """An empty iterations field showed 'per' (its placeholder 'per decision', cut to the field's
    width): 'default' (an empty field asks with the bot's default budget), a dash for a bot that does not search."""
    app = hint_app()
    async with app.run_test(size=SIZE) as pilot:
        hint = await hint_dialog(pilot, app)
        await wait_for(pilot, lambda: hint.analysis is not None, what="the first search")
        inp = hint.query_one("#hint-iterations", Input)
        assert inp.placeholder == "default"
        assert len(inp.placeholder) <= inp.content_region.width, (inp.placeholder, inp.content_region.width)
        hint.query_one("#hint-bot", Select).value = "heuristic"
        await wait_for(pilot, lambda: inp.disabled, what="the field disabled")
        assert inp.placeholder == "—" and inp.value == ""


def test_a_search_told_to_stop_ends_after_one_round():
    s = PlaySession(graph("online"), seat=1, seed=3, bots="heuristic", hands=SHORT, leader=1)
    for spec in ("ismcts:100000", "pimc:100000"):
        a = s.analyse(spec, stop=lambda: True)
        assert a.iterations == len(a.moves) >= 2 and all(m.visits == 1 for m in a.moves)  # one paired round


@sync
async def test_a_closed_hint_dialog_stops_its_search():
    """A fresh tester asked for 10,000 iterations, closed the dialog, and the search went on using a
    core in the background (and one more per question asked again): now closing or asking again stops it."""
    app = hint_app()
    async with app.run_test(size=SIZE) as pilot:
        s = app.play_screen.session
        hint = await hint_dialog(pilot, app)
        await wait_for(pilot, lambda: hint.analysis is not None, what="the first search")
        spent: list[int] = []
        analyse = s.analyse

        def recorded(*args, **kwargs):
            a = analyse(*args, **kwargs)
            spent.append(a.iterations)
            return a

        s.analyse = recorded
        inp = hint.query_one("#hint-iterations", Input)
        inp.value = "100000"  # minutes of one core
        inp.focus()
        await pilot.press("enter")
        first = hint._stop
        inp.value = "90000"
        await pilot.press("enter")  # asked again: the 100,000 search stops
        assert first.is_set() and not hint._stop.is_set()
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is app.play_screen, what="back to the table")
        assert hint._stop.is_set()
        await wait_for(pilot, lambda: len(spent) == 2, what="the searches to stop")
        # each stopped early (how early depends on the machine's speed): not its whole budget of 100,000 /
        # 90,000 play-outs (whole rounds of at most 4 candidates: at least 89,997), which takes minutes
        assert len(spent) == 2 and max(spent) < 89_000


@sync
async def test_play_on_to_the_end_with_search_bots():
    app = PlayApp(graph("online"), seed=3, bots="pimc:4", hands=SHORT, leader=1, speed="normal", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        s = screen.session
        await wait_for(pilot, lambda: s.your_turn, what="your turn")
        await pilot.press("f7")  # play on to the end of the game: your seat plays the hint, the bots search
        await wait_for(pilot, lambda: s.state.over and not screen.thinking, what="the end of the game")
        assert screen._run is None
        by = {e.by for e in s.entries[1:]}
        assert by <= {"auto", "bot"} and "auto" in by
        assert any(isinstance(s.bot_for(x), PimcBot) and s.bot_for(x).last is not None for x in s.bot_names)


@sync
async def test_the_app_answers_keys_while_a_bot_thinks(monkeypatch):
    import threading

    from gouji_app.play.dialogs import PlayHelpScreen
    gate = threading.Event()
    choose = SearchProcess.choose

    def held(self, spec, bot, state, moves):  # the search waits until the test lets it go
        gate.wait(600)
        return choose(self, spec, bot, state, moves)
    monkeypatch.setattr(SearchProcess, "choose", held)
    app = PlayApp(graph("online"), seed=11, bots="ismcts:4", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        await wait_for(pilot, lambda: screen.thinking, what="a bot to think")
        assert "is thinking" in str(screen.query_one("#status").render())
        await pilot.press("f1")  # the UI thread is free: the help opens while the search runs
        assert isinstance(app.screen, PlayHelpScreen) and screen.thinking
        await pilot.press("escape")
        gate.set()
        await wait_for(pilot, lambda: any(e.by == "bot" for e in screen.session.entries), what="the bot's move")


@sync
async def test_the_play_screens_footer_cuts_no_key_at_100_columns():
    """At 100 columns the play screen's compact footer showed "^b Clos▏^p palette": the ctrl+p key was
    measured by its own width, one column short of what it leaves the keys. Every shown key now ends
    before the ctrl+p key starts (or the ctrl+p key is left out)."""
    from pilot_helpers import footer_settled

    from gouji_app.widgets.footer import FittingFooter

    app = hint_app()
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.play_screen.session.your_turn, what="your turn")
        await footer_settled(pilot)
        footer = app.screen.query_one(FittingFooter)
        shown = [c for c in footer.children if c.display]
        palette = [c.region.x for c in shown if c.has_class("-command-palette")]
        end = min(palette) if palette else footer.region.right
        assert all(c.region.right <= end for c in shown if not c.has_class("-command-palette"))


@sync
async def test_keys_typed_into_a_dialog_while_a_bot_thinks_all_arrive(monkeypatch, tmp_path):
    """Issue 22.27: the save path typed after ctrl+S, ctrl+U while a search bot thought lost its first
    keys. The terminal delivers what was typed in a burst while the bot holds the interpreter (the
    driver's thread queues them); the keys after ctrl+S reached the new dialog before it had focused
    its text box, and a screen without a focused widget drops a key. Here the burst is posted at once,
    as the driver posts it, while the bot is held thinking: every key must arrive, in order."""
    import threading

    from textual import events
    from textual.widgets import Static

    from gouji_app.play.dialogs import PathScreen
    gate = threading.Event()
    choose = SearchProcess.choose

    def held(self, spec, bot, state, moves):  # the search waits until the test lets it go
        gate.wait(600)
        return choose(self, spec, bot, state, moves)
    monkeypatch.setattr(SearchProcess, "choose", held)
    app = PlayApp(graph("online"), seed=11, bots="ismcts:4", speed="instant", show_steps=False)
    target = str(tmp_path / "saved-while-thinking.json")
    try:
        async with app.run_test(size=SIZE) as pilot:
            screen = app.play_screen
            await wait_for(pilot, lambda: screen.thinking, what="a bot to think")
            for key in ["ctrl+s", "ctrl+u", *target, "enter"]:
                char = key if len(key) == 1 else ("\r" if key == "enter" else None)
                name = {"/": "slash", ".": "full_stop", "-": "minus", "_": "underscore"}.get(key, key)
                app.post_message(events.Key(name, char))

            def settled() -> bool:
                dlg = app.screen
                if isinstance(dlg, PathScreen):
                    return bool(str(dlg.query_one("#path-error", Static).render()).strip())
                return screen.session.record_path is not None
            await wait_for(pilot, settled, what="the save to end")
            typed = app.screen.query_one(Input).value if isinstance(app.screen, PathScreen) else screen.session.record_path
            assert typed == target and screen.session.record_path == target
            assert screen.thinking  # all of it happened while the bot was thinking
    finally:
        gate.set()


def test_a_search_in_its_own_process_plays_the_same_moves():
    """Issue 22.27: the search bots think in a child process (the app's event loop no longer shares the
    interpreter with them); the same seed plays the same moves, and the bot's generator goes on alike."""
    for spec in ("ismcts:6", "pimc:6"):
        here = PlaySession(graph("online"), seat=1, seed=5, bots=spec)
        apart = PlaySession(graph("online"), seat=1, seed=5, bots=spec)
        search = SearchProcess(apart.graph)
        try:
            decisions = 0
            for _ in range(60):
                if decisions == 4 or here.state.over:
                    break
                if not here.bots_to_move:
                    mv = here.hint()
                    here.apply(mv, "you")
                    apart.apply(mv, "you")
                    continue
                st, moves, bot = here.bot_request()
                st2, moves2, bot2 = apart.bot_request()
                mine = bot.choose(st, moves)
                theirs = search.choose(apart.bot_names[st2.to_act], bot2, st2, moves2)
                assert theirs == mine and bot2.rng.getstate() == bot.rng.getstate()
                assert (bot2.last is None) == (bot.last is None)
                here.apply(mine, "bot")
                apart.apply(theirs, "bot")
                decisions += len(moves) > 1
            assert decisions == 4
        finally:
            search.close()
        assert search.pid is None


@sync
async def test_the_search_process_ends_with_the_app():
    """No search thinks on after the app: a bot given minutes of search is thinking when the app quits,
    and its process is gone once the app is."""
    app = PlayApp(graph("online"), seed=11, bots="ismcts:100000", speed="instant", show_steps=False)
    async with app.run_test(size=SIZE) as pilot:
        screen = app.play_screen
        await wait_for(pilot, lambda: screen.thinking and screen._search is not None and screen._search._proc is not None,
                       what="a search process thinking")
        proc = screen._search._proc
        assert proc.poll() is None
        await pilot.press("ctrl+q")
    assert proc.poll() is not None


def _sigterm_play_app(app: PlayApp, *, move_first: bool):
    """(helper) Run ``app`` until a search bot is thinking in its process (after a move of yours when
    ``move_first``), send this process SIGTERM, and return the search process once the app closed."""
    import os
    import signal

    async def scenario():
        async with app.run_test(size=SIZE) as pilot:
            screen = app.play_screen
            s = screen.session
            if move_first:
                await wait_for(pilot, lambda: s.your_turn and not screen.thinking, what="your turn")
                s.apply(s.legal()[0], "you")  # a single 3: the next seat can follow
                screen._after_move()
            await wait_for(pilot, lambda: screen.thinking and screen._search is not None
                           and screen._search._proc is not None, what="a search process thinking")
            proc = screen._search._proc
            assert proc.poll() is None
            assert app._sigterm_before is not None  # the app's handler is in place (else SIGTERM ends pytest)
            os.kill(os.getpid(), signal.SIGTERM)
            await wait_for(pilot, lambda: app.return_code is not None, what="the app closing")
        return proc

    before = signal.getsignal(signal.SIGTERM)
    proc = asyncio.run(scenario())
    assert signal.getsignal(signal.SIGTERM) == before  # given back when the app closed
    return proc


def test_sigterm_closes_the_play_app_as_ctrl_q_and_ends_the_search_process():
    """SIGTERM to ``gouji play`` (issue 29) closes it as Ctrl+Q does, through the editor app's one
    mechanism (:class:`editor.terminal_keys.XtermKeysApp`): nothing asked, the search bot's process
    ended, exit status 130 and the one line for the terminal."""
    from gouji_dsl.tools.exits import EXIT_INTERRUPTED

    app = PlayApp(graph("online"), seed=11, bots="ismcts:100000", speed="instant", show_steps=False)
    proc = _sigterm_play_app(app, move_first=False)
    assert proc.poll() is not None
    assert app.return_code == EXIT_INTERRUPTED
    assert app.interrupted == "interrupted (SIGTERM): the app closed"


def test_sigterm_closes_an_unfinished_game_without_asking_and_says_it_was_not_saved():
    """SIGTERM during a game you have moved in: no question (nobody is there to answer it), the app
    closes, the line says the game was not saved; the search process ends."""
    app = PlayApp(graph("online"), seed=11, bots="ismcts:100000", leader=1, speed="instant", show_steps=False)
    proc = _sigterm_play_app(app, move_first=True)
    assert proc.poll() is not None
    assert app.interrupted == "interrupted (SIGTERM): the app closed; the game being played was not saved"
