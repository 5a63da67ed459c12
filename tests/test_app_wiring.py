"""The app's screens reach each other: play a ruleset from the home screen, test-play the editor's
unsaved buffer, and close the play screen back to where it was opened."""
import asyncio
from pathlib import Path

import pytest
from pilot_helpers import editor_ready, home_ready, wait_for

from gouji_app.app import GoujiApp
from gouji_app.play.screen import PlayScreen
from gouji_app.screens.editor import EditorScreen
from gouji_app.screens.home import HomeScreen

VARIANT = '''# yaml-language-server: $schema=../schema/ruleset.schema.json
ruleset: house
extends: online
settings:
  gouji_minimum: {"2": 2}
'''


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace folder holding house.yaml (VARIANT)."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "house.yaml").write_text(VARIANT, encoding="utf-8")
    return folder


def test_play_from_home_and_back(ws: Path):
    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            home = await home_ready(pilot)
            home.query_one("DataTable").move_cursor(row=home.query_one("DataTable").get_row_index(str(ws / "house.yaml")))
            await pilot.press("p")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
            assert app.screen.graph.name == "house"
            await pilot.press("ctrl+b")
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="back home")
    asyncio.run(scenario())


def test_test_play_the_unsaved_buffer(ws: Path):
    async def scenario():
        app = GoujiApp(workspace=ws, open_path=ws / "house.yaml", cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.text = ed.text.replace('{"2": 2}', '{"2": 3}')   # not saved
            await pilot.press("f9")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
            g = app.screen.graph
            assert g.settings["gouji_minimum"]["2"] == 3      # the buffer, not the file on disk
            await pilot.press("ctrl+b")
            await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen), what="back in the editor")
            assert ed.dirty
    asyncio.run(scenario())


def test_ctrl_q_asks_about_a_game_being_played_then_about_unsaved_text(ws: Path, tmp_path: Path, monkeypatch):
    """Issue 22.21 (follow-up): ctrl+q on a play screen opened from the editor (F9) dropped the game
    being played without a question (the editor's own question popped the play screen first, so
    Cancel came back to an editor whose game was gone). It asks about the game first, staying keeps
    it; leaving it goes on to the editor's question about its unsaved text."""
    from gouji_app.play.dialogs import AskScreen
    from gouji_app.screens import ConfirmScreen
    monkeypatch.chdir(tmp_path)

    async def scenario():
        app = GoujiApp(workspace=ws, open_path=ws / "house.yaml", cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.text = ed.text + "title: unsaved\n"
            await pilot.press("f9")
            await wait_for(pilot, lambda: isinstance(app.screen, PlayScreen), what="the play screen")
            play = app.screen
            s = play.session
            await wait_for(pilot, lambda: s.your_turn, what="your turn")
            await pilot.press("f3", "enter")
            await wait_for(pilot, lambda: s.unfinished, what="a game being played")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="the question about the game")
            await pilot.press("c")  # stay: the game is still there
            await wait_for(pilot, lambda: app.screen is play, what="back at the table")
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: isinstance(app.screen, AskScreen), what="asked again")
            await pilot.press("l")  # leave the game: now the editor asks about its text
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the question about the text")
            assert app.is_running and ed.dirty
    asyncio.run(scenario())


def test_editor_validation_refuses_a_misspelt_setting_and_warns_about_an_unread_one(tmp_path: Path):
    """The editor checks as `gouji validate` does (issue 26, all problems at once): a new setting nothing reads,
    named like one that is read, is taken for a misspelling (an error, with the name it resembles); a setting
    of the file's own that nothing reads stays a warning."""
    from gouji_app.validation import validate_text
    p = tmp_path / "house.yaml"
    v = validate_text(VARIANT + "  filer_rank: null\n", p)
    assert not v.ok and [(d.severity, d.code) for d in v.diagnostics] == [("error", "UnreadSetting")]
    assert v.diagnostics[0].line == 6 and v.diagnostics[0].hint.startswith("did you mean 'filler_rank'?")
    v = validate_text(VARIANT + "  my_own_thing: null\n", p)
    assert v.ok and [(d.severity, d.code) for d in v.diagnostics] == [("warning", "UnreadSetting")]


def _footer_fits(footer) -> bool:
    need = footer.needed_width()
    return need is not None and sum(need) <= footer.size.width


def test_the_footer_keeps_every_key_readable_at_80_columns(ws: Path):
    """At 80×24 the home screen's footer cut "q Quit" to "Qui" under the ctrl+p key (a tester saw
    "^p palettee"): the footer takes the compact style when its keys do not fit, and the full one
    again when the terminal is wider."""
    from gouji_app.widgets.footer import FittingFooter

    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=(80, 24)) as pilot:
            home = await home_ready(pilot)
            footer = home.query_one(FittingFooter)
            await wait_for(pilot, lambda: _footer_fits(footer), what="a footer that fits")
            # compact, and (since w Sweep is shown too, t28b F5) without the ctrl+p key: every binding's key stays whole
            assert footer.compact and all(c.display for c in footer.children), [c.display for c in footer.children]
            await pilot.resize_terminal(160, 40)
            await wait_for(pilot, lambda: not footer.compact and _footer_fits(footer), what="the full footer")
    asyncio.run(scenario())


def test_a_name_typed_at_once_after_the_key_that_opens_its_dialog_arrives_whole(ws: Path):
    """Issue 22.27, in the editor app: keys the terminal delivers in one burst (a fast typist, or a busy
    event loop) after the key that opens a dialog went to the screen below or to a dialog that had not
    focused its text box yet. 'n' (new variant), ctrl+U, a name: the dialog's name box holds the name."""
    from textual import events
    from textual.widgets import Input

    from gouji_app.screens.new_variant import NewVariantScreen

    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await home_ready(pilot)
            for key in ["n", "ctrl+u", *"ourtown"]:
                app.post_message(events.Key(key, key if len(key) == 1 else None))
            await wait_for(pilot, lambda: isinstance(app.screen, NewVariantScreen) and not app._held_keys
                           and app._key_in_flight is None, what="the keys delivered")
            assert app.screen.query_one("#name", Input).value == "ourtown"
    asyncio.run(scenario())
