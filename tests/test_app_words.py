"""The app shows the words of the game as the ruleset gives them (issue 26, issue 25 "the app still
holds game knowledge"): examples/variants/qingdao-club-zh.yaml calls the last place 落科 (seed 003:
"称“落(音拉lá)科”，亦称“大落”"), and the play screen, its log and the scoreboard say 落科, in English
and in Chinese."""
from __future__ import annotations

from pathlib import Path

import pytest
from app_zh import speaking
from pilot_helpers import wait_for
from test_play import SIZE, app_for, sync

from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.ruleset.words import game_words

CLUB = str(Path(__file__).resolve().parent.parent / "examples" / "variants" / "qingdao-club-zh.yaml")
#: the last place (6 seats) as the club's ruleset says it, per language
LAST = {Language.EN: "last (落科)", Language.ZH: "落科（第6名）"}


@pytest.mark.parametrize("lang", [Language.EN, Language.ZH])
@sync
async def test_a_renamed_place_shows_in_the_play_screen_the_log_and_the_scoreboard(lang):
    from gouji_app.play.dialogs import ScoreboardScreen
    from gouji_app.play.widgets import GameLog, SeatBox
    with speaking(lang):
        app = app_for(CLUB, seed=7)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.play_screen
            s = screen.session
            await pilot.press("f7")                     # play on to the end of the game
            await wait_for(pilot, lambda: s.state.over, what="the game over")
            seats = " ".join(str(box.render()) for box in screen.query(SeatBox))
            assert "落科" in seats and "大落" not in seats
            log = screen.query_one(GameLog)
            labels = [str(line.node.label) for line in log._tree_lines]
            assert any(LAST[lang] in label for label in labels), labels[-8:]
            assert not any("大落" in label for label in labels)
            trick = str(screen.query_one("#trick").render())  # the end-of-game panel
            assert "落科" in trick and "大落" not in trick
            await pilot.press("f11")
            await wait_for(pilot, lambda: isinstance(app.screen, ScoreboardScreen), what="the scoreboard")
            header = " ".join(str(c.label) for c in app.screen.query_one("#scoreboard").columns.values())
            assert "落科" in header and "大落" not in header


def test_the_compare_screen_s_places_chart_names_the_places_as_the_ruleset_does():
    from gouji_app.widgets.compare_charts import PlacesChart
    chart = PlacesChart()
    chart.words = game_words(load_graph(CLUB).resolved)
    with speaking(Language.ZH):
        assert chart._place(6) == "落科" and chart._place(1) == "头科"
    with speaking(Language.EN):
        assert chart._place(6, legend=True) == "6th 落科" and chart._place(6) == "6th"


def test_the_insert_picker_s_kinds_and_help_in_chinese():
    """The completion picker (ctrl+n) says its kinds and a rule's hook in the active language, and a
    setting's sentence in it (the club's settings are written in Chinese, with English too)."""
    from gouji_app.completion import items_for, kind_word
    resolved = load_graph(CLUB).resolved
    with speaking(Language.ZH):
        items = items_for(resolved)
        assert kind_word("setting") == "设置" and kind_word("rule") == "规则"
        rule = next(it for it in items if it.kind == "rule")
        assert rule.help.startswith("时机：")
        count = next(it for it in items if it.label == "show_count_at")
        assert "持牌人手中剩余牌" in count.help
    with speaking(Language.EN):
        count = next(it for it in items_for(resolved) if it.label == "show_count_at")
        assert "A player with 10 cards or fewer" in count.help and kind_word("setting") == "setting"


@sync
async def test_the_keys_panel_speaks_the_active_language():
    """The palette's Keys command (Textual's HelpPanel) lists the bindings translated (Textual renders
    a binding's description as written)."""
    from gouji_app.widgets.keys_panel import TranslatedBindingsTable
    with speaking(Language.ZH):
        app = app_for("online", seed=7)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.action_show_help_panel()
            await wait_for(pilot, lambda: bool(app.screen.query(TranslatedBindingsTable)), what="the keys panel")
            await pilot.pause()
            table = app.screen.query_one(TranslatedBindingsTable).render_bindings_table()
            rows = [c.plain for c in table.columns[1]._cells]
            assert any("记分板" in r for r in rows) and not any("Scoreboard" in r for r in rows), rows
