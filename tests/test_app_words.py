"""The app shows the words of the game as the ruleset gives them (issue 26, issue 25 "the app still
holds game knowledge"): examples/variants/qingdao-club-zh.yaml calls the last place 落科 (seed 003:
"称“落(音拉lá)科”，亦称“大落”"), and the play screen, its log and the scoreboard say 落科, in English
and in Chinese."""
from __future__ import annotations

import re
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
LAST = {Language.EN: "last (落科)", Language.ZH: "落科（第六名）"}


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
        hook = next(it for it in items if it.kind == "hook" and it.label == "revolt")
        assert hook.help == "许可问题：这个座位可以革命吗？（上下文：seat）", hook.help
        assert not [it.label for it in items if it.kind == "hook" and not re.search(r"[\u4e00-\u9fff]", it.help)]
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


#: a variant that calls revolution 造反 and burning 炸牌 (words.terms): the app's messages say them
RENAMED = """\
ruleset: renamed-terms
extends: online
words:
  terms:
    revolution: {en: "uprising (造反)", zh: "造反"}
    burn: {en: "bomb (炸牌)", zh: "炸牌"}
    place: {en: "leaving (出科)", zh: "出科"}
"""


@pytest.mark.parametrize("lang", [Language.EN, Language.ZH])
@sync
async def test_the_setup_question_says_the_ruleset_s_word_for_revolution(tmp_path, lang):
    """Online, seed 7: seat 4 may revolt. Its question (the move box's feedback and the table) says
    the ruleset's word, not the app's (革命 was written in the app's messages)."""
    path = tmp_path / "renamed.yaml"
    path.write_text(RENAMED, encoding="utf-8")
    with speaking(lang):
        app = app_for(str(path), seed=7, seat=4)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            screen = app.play_screen
            assert screen.session.state.phase == "setup" and screen.session.your_turn
            feedback = str(screen.query_one("#feedback").render())
            trick = str(screen.query_one("#trick").render())
            for text in (feedback.split(" — ")[0], trick):  # (after " — ": the rule's own sentence, inherited)
                assert "造反" in text and "革命" not in text, text
            if lang is Language.ZH:
                assert "造反？" in feedback and "你：造反还是过？" in trick
            else:
                assert "declare revolution (造反)?" in feedback


def _burn_events() -> list[dict]:
    return [{"type": "burn", "seat": 3, "burned": 5}, {"type": "counter_burn", "seat": 2, "burned": 3},
            {"type": "burn_undone", "seat": 6, "burner": 3}, {"type": "burn_success", "seat": 3},
            {"type": "burn_failed", "seat": 3}, {"type": "revolution", "seat": 4}, {"type": "place", "seat": 1, "place": 1}]


def test_events_say_the_ruleset_s_words_in_both_languages(tmp_path):
    from gouji_app.play.widgets import NO_WORDS, event_label, event_text, verb_word
    path = tmp_path / "renamed.yaml"
    path.write_text(RENAMED, encoding="utf-8")
    words = game_words(load_graph(str(path)).resolved)
    burn, revolution, place = _burn_events()[0], _burn_events()[5], _burn_events()[6]
    with speaking(Language.ZH):
        assert event_text(burn, 1, words) == "3 号座位对 5 号座位炸牌"
        assert event_text(revolution, 1, words) == "造反：4 号座位"
        assert event_text(place, 1, words) == "出科：你，头科（第一名）"
        assert verb_word("burn", words) == "炸牌" and verb_word("revolt", words) == "造反"
        assert verb_word("burn", NO_WORDS) == "烧牌"   # the app's own word where the ruleset names none
    with speaking(Language.EN):
        assert event_label(burn, 1, words) == "seat 3 burns seat 5 (炸牌)"
        assert event_text(burn, 1, words) == "seat 3 burns seat 5"       # the log: the English sentence
        assert event_label(revolution, 1, words) == "revolution (造反): seat 4"
        assert verb_word("burn", words) == "burn"                        # the notation's verb


ENGLISH_WORD = re.compile(r"[A-Za-z]{3,}")


@pytest.mark.parametrize("words", ["base", "none"])
def test_chinese_events_have_no_english_fragment(words):
    """In Chinese an event reads Chinese whether the ruleset names it (its words) or not (the app's
    own words, gettext): never an English fragment."""
    from gouji_app.play.widgets import NO_WORDS, event_label, event_text
    given = game_words(load_graph("online").resolved) if words == "base" else NO_WORDS
    with speaking(Language.ZH):
        for e in _burn_events():
            for text in (event_text(e, 1, given), event_label(e, 1, given)):
                assert not ENGLISH_WORD.search(text), (e, text)


class _Marked:
    """What flag_word asks of a play session: the ruleset's words and the term its rules give."""

    def __init__(self, term: str | None):
        self.words = game_words(load_graph("online").resolved)
        self._term = term

    def flag_term(self, name: str) -> str | None:
        return self._term


def test_a_marker_the_ruleset_names_not_is_never_an_english_fragment_in_chinese():
    from gouji_app.play.widgets import flag_word
    with speaking(Language.ZH):
        assert flag_word(_Marked("闷"), "shut_out") == "闷"          # mined from a rule's sentence
        assert flag_word(_Marked(None), "shut_out") == "标记 shut_out"  # the ruleset's name, said as one
        assert flag_word(_Marked(None), "opened") == "开点"           # the ruleset's word (base)
    with speaking(Language.EN):
        assert flag_word(_Marked("闷"), "shut_out") == "shut out (闷)"
        assert flag_word(_Marked(None), "shut_out") == "shut out"


@sync
async def test_the_keys_panel_relabels_every_row_or_says_which_it_could_not():
    """The Keys panel subclasses Textual's private ``_key_panel`` (Textual is pinned): after a
    Textual upgrade that changes what it relies on, this fails naming it — never a panel silently
    left in English. Every binding row is re-labelled (none untranslated), the panel's children
    are Textual's HelpPanel's, in its order and with its ids."""
    from textual.widgets import HelpPanel
    from textual.widgets._key_panel import BindingsTable, KeyPanel

    from gouji_app.widgets.keys_panel import KeysHelpPanel, TranslatedBindingsTable
    ours = [(type(w), w.id) for w in KeysHelpPanel().compose()]
    textual_s = [(type(w), w.id) for w in HelpPanel().compose()]
    assert len(ours) == len(textual_s) and all(issubclass(a, b) and i == j for (a, i), (b, j) in zip(ours, textual_s)), \
        f"Textual's HelpPanel composes {textual_s}, gouji's KeysHelpPanel {ours}: re-check editor/widgets/keys_panel.py"
    assert any(issubclass(t, KeyPanel) for t, _id in ours)
    assert [type(w) for w in KeyPanel().compose()] == [BindingsTable], "Textual's KeyPanel no longer holds one BindingsTable"
    with speaking(Language.ZH):
        app = app_for("online", seed=7)
        async with app.run_test(size=SIZE) as pilot:
            await pilot.pause()
            app.action_show_help_panel()
            await wait_for(pilot, lambda: bool(app.screen.query(TranslatedBindingsTable)), what="the keys panel")
            await pilot.pause()
            widget = app.screen.query_one(TranslatedBindingsTable)
            table = widget.render_bindings_table()
            assert widget.untranslated == [], f"rows of Textual's Keys panel not re-labelled: {widget.untranslated}"
            rows = [c.plain for c in table.columns[1]._cells]
            english = {b.description for b in type(app.play_screen).BINDINGS if not isinstance(b, tuple)}
            assert len(rows) >= 10 and not [r for r in rows if any(r.startswith(e + " ") or r == e for e in english)], rows
