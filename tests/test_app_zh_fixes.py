"""The app in Chinese, a tester's findings (issue 26, t26): the new-variant dialog and the file it writes,
the editor's discard button, the tribute and places in the play screen, the jokers' names."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from app_zh import speaking
from pilot_helpers import home_ready

from gouji_app.app import GoujiApp
from gouji_app.i18n import _
from gouji_app.play.session import card_word
from gouji_app.skeleton import variant_text
from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.event_words import transfer_reason
from gouji_dsl.ruleset.load.resolving import resolve
from gouji_dsl.ruleset.words import GameWords, game_words


@pytest.fixture
def zh():
    with speaking(Language.ZH):
        yield


def test_a_new_variant_under_chinese_is_written_in_chinese(zh, tmp_path: Path):
    """F11: the comments are Chinese, the parent's settings carry its Chinese sentences, and the file
    declares languages: [zh, en] so that the organiser's plain strings are Chinese; it loads."""
    folder = tmp_path / "rules"
    folder.mkdir()
    path = folder / "base-house.yaml"
    text = variant_text("base-house", "base", path, title="俱乐部规则", parent_resolved=resolve("base"))
    comments = [ln for ln in text.splitlines() if ln.startswith("#") and "yaml-language-server" not in ln]
    assert "base-house：base 的变体" in text
    assert "languages: [zh, en]" in text
    assert "5张以上10" in text and "A gouji play" not in text  # base's Chinese sentence, not its English one
    assert not any("variant of" in ln or "uncomment" in ln for ln in comments)
    assert "（base.yaml）" in text
    path.write_text(text, encoding="utf-8")
    r = resolve(path)
    assert str(r.title) == "俱乐部规则"


def test_a_new_variant_under_english_stays_english(tmp_path: Path):
    text = variant_text("base-house", "base", tmp_path / "base-house.yaml", parent_resolved=resolve("base"))
    assert "# base-house: a variant of base; it inherits everything it does not" in text
    assert "languages:" not in text and "title: base with local changes" in text
    assert "A gouji play" in text


def test_the_new_variant_dialog_speaks_chinese(zh, tmp_path: Path, monkeypatch):
    from textual.widgets import Label, Static

    from gouji_app.screens.new_variant import NewVariantScreen
    folder = tmp_path / "rules"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)

    async def scenario():
        app = GoujiApp(workspace=Path("rules"), cursor_blink=False)
        async with app.run_test(size=(80, 24)) as pilot:
            await home_ready(pilot)
            app.push_screen(NewVariantScreen(app.workspace, "base"))
            await pilot.pause()
            screen = app.screen
            detail = str(screen.query_one(".dialog-detail", Static).render())
            assert detail.startswith("变体扩展它的父规则集")
            label = screen.query(".field-label").first(Label)
            assert str(label.render()) == "父规则集" and label.size.width > 8  # a gap before the field
    asyncio.run(scenario())


def test_discarding_changes_is_not_the_card_word(zh):
    assert _("Discard changes") == "放弃修改"
    assert _("Discard") == "扔牌"  # (the play screen's move: throwing away cards)


def test_the_tribute_is_named_as_the_seeds_name_it(zh):
    words = game_words(resolve("qingdao"))
    assert transfer_reason("tribute:stuck", words) == "闷贡"
    assert transfer_reason("tribute:point", words) == "点贡"
    assert transfer_reason("return", words) == "还贡"
    assert _("T{team}").format(team=2) == "联邦2"  # a team as the seeds and the rulebook say it (seed 001: ①③⑤为一方联邦)
    assert _("team {team}").format(team=2) == "联邦 2"


def test_the_jokers_names_come_from_the_ruleset(zh):
    assert card_word("R", game_words(resolve("base"))) == "大王"
    assert card_word("E", game_words(resolve("six-deck-eagle"))) == "鹰"
    assert card_word("R", GameWords({}, {})) == "R"
    assert card_word("K", game_words(resolve("base"))) == "K"


def test_the_jokers_keep_their_symbols_in_english():
    assert card_word("R", game_words(resolve("base"))) == "R"



def test_the_compare_panes_speak_chinese_and_keep_punctuation_off_line_starts(zh):
    """F14/F21: the block headers say 设置, the source note is the Chinese one (资料 003, not seed 003),
    and no wrapped line of the panes starts with closing punctuation."""
    from rich.console import Console

    from gouji_app.widgets.compare_diff import DiffPanes, diff_blocks, wrap_lines
    from gouji_dsl.tools.compare import rule_diff
    from gouji_dsl.tools.textlayout import NO_START
    blocks = diff_blocks(rule_diff("qingdao", "qingdao-classic"))
    header = DiffPanes._header(None, blocks[0], False, 80).plain  # type: ignore[arg-type]
    assert header.startswith("设置") and "setting" not in header
    lines = [ln for b in blocks for ln in (b.left or []) + (b.right or [])]
    text = "\n".join(ln.plain for ln in lines)
    assert "资料 003" in text and "seed 003" not in text
    console = Console(width=200)
    for width in (30, 37, 41, 56):
        for ln in wrap_lines(console, lines, width):
            assert not ln.plain.strip()[:1] or ln.plain.strip()[0] not in NO_START, ln.plain
            assert ln.cell_len <= width


def test_the_compare_words(zh):
    assert _("vs") == "对"
    assert _("seats moved") == "名次变动的座位"


def test_the_help_page_has_no_english_paragraph_and_a_whole_yaml_example(zh):
    """F8/F12: the paragraph on null is Chinese; the example's comments are on lines of their own
    (a wrapped end-of-line comment loses its '#'); a Chinese paragraph is one line of Markdown."""
    from gouji_app.helptext import help_markdown
    text = help_markdown()
    assert "A key set to" not in text and "把一个键设为 `null` 就删除这个键" in text
    assert "My town's rules" not in text and "title: 我们镇的规则" in text
    assert "ruleset: my-town\n" in text and "extends: online\n" in text
    assert "**变体**用 `extends:` 指明它的父规则集" in text  # joined, not broken at a soft line break


def test_the_help_hooks_table_is_chinese(zh):
    """t26d bug 1: F1's hooks table had English columns and questions; each question is its zh msgstr."""
    from gouji_app.helptext import help_markdown
    from gouji_dsl.i18n import DOMAIN, catalog
    from gouji_dsl.ruleset.game.vocabulary import HOOKS
    text = help_markdown()
    assert "names it knows" not in text and "| 钩子 | 类别 | 可读的名字 | 问题 | 无规则适用时 |" in text
    zh_ = catalog(DOMAIN, Language.ZH).gettext
    for h in HOOKS.values():
        assert zh_(h.doc) != h.doc and zh_(h.doc).replace("|", "\\|") in text, h.name
        assert h.doc not in text, h.name
    assert "| `gouji` | 取值 |" in text and "这手牌是否是够级牌？" in text


def test_the_command_palette_speaks_chinese(zh, tmp_path: Path, monkeypatch):
    """F12: the palette's prompt and Textual's own commands (focus, copy) are Chinese."""
    from textual.command import CommandPalette
    from textual.widgets import Input
    folder = tmp_path / "rules"
    folder.mkdir()
    monkeypatch.chdir(tmp_path)

    async def scenario():
        app = GoujiApp(workspace=Path("rules"), cursor_blink=False)
        async with app.run_test(size=(120, 40)) as pilot:
            await home_ready(pilot)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert "下一个焦点" in titles and "Focus Next" not in titles
            app.action_command_palette()
            await pilot.pause()
            assert isinstance(app.screen, CommandPalette)
            assert app.screen.query_one(Input).placeholder == "搜索命令…"
    asyncio.run(scenario())


# ------------------------------------------------------------------------------ findings left open (h26f)
RENAMED = """ruleset: renamed
extends: online
words:
  places:
    6: {en: "bottom (落科)", zh: 落科}
"""


@pytest.mark.parametrize("lang, section, counts", [(Language.ZH, "术语", "1 个术语不同"),
                                                   (Language.EN, "word of the game", "1 word of the game differ")])
def test_the_compare_screen_lists_a_renamed_word(tmp_path: Path, lang, section, counts):
    """A ruleset that renames a place only differs from its parent: the compare panes show the word
    (each language's, the active one first) and the counts name it."""
    from gouji_app.widgets.compare_diff import DiffPanes, counts_text, diff_blocks
    from gouji_dsl.tools.compare import rule_diff
    p = tmp_path / "renamed.yaml"
    p.write_text(RENAMED, encoding="utf-8")
    with speaking(lang):
        diff = rule_diff(resolve("online"), resolve(p))
        (blk,) = diff_blocks(diff)
        header = DiffPanes._header(None, blk, False, 80).plain  # type: ignore[arg-type]
        shown = counts_text(diff).plain
    assert header.startswith(section + " words.places.6")
    first = "zh: 大落" if lang is Language.ZH else "en: last (大落)"
    assert blk.left[0].plain == first and [x.plain for x in blk.right][:2] == (
        ["zh: 落科", "en: bottom (落科)"] if lang is Language.ZH else ["en: bottom (落科)", "zh: 落科"])
    assert counts in shown


def test_a_seat_is_spelt_as_the_library_spells_it():
    """One spelling of a seat everywhere: the library's ``6 号座位`` (a space between the number and the
    word, and between a Chinese word and the number: 给 2 号座位), never the app's old ``6号座位``."""
    import re

    from app_zh import APP_PO

    from gouji_app.play.widgets import seat_word
    from gouji_dsl.i18n import LOCALE_DIR
    for po in (APP_PO, LOCALE_DIR / "zh" / "LC_MESSAGES" / "gouji.po"):
        text = po.read_text(encoding="utf-8")
        unspaced = re.findall(r'.*(?:\}|\d)号座位.*|.*[\u4e00-\u9fff]\{\w+\} 号座位.*', text)
        assert not unspaced, (po.name, unspaced)
    with speaking(Language.ZH):
        assert seat_word(6) == "6 号座位" and seat_word(6, me=6) == "你"


def test_the_compare_screen_cites_seeds_and_says_its_fields_in_chinese(zh):
    """The panes' source notes cite the seeds as gouji doc does (资料 001、002（RULES.md §2）), a changed
    rule's note names its fields in Chinese (已改：表达式、说法) and the status line's summary is punctuated
    as Chinese (，——)."""
    from gouji_app.widgets.compare_diff import diff_blocks
    from gouji_dsl.tools.compare import rule_diff
    blocks = diff_blocks(rule_diff("online", "rulebook"))
    text = "\n".join(ln.plain for b in blocks for ln in (b.left or []) + (b.right or []))
    assert "[S1]" not in text and "来自：base.yaml:39，资料 001、002（RULES.md §2）" in text
    rule = next(b for b in blocks if b.name == "deal.first-drawer")
    assert rule.note == "已改：表达式、说法"
    summaries = " ".join(b.summary for b in blocks)
    assert ", 资料" not in summaries and " — " not in summaries and "[S" not in summaries


def test_the_stats_labels_and_places_chart_fit_80_columns_in_chinese(zh):
    """At 80 columns the figures column is 12 cells wide (min_width): every Chinese label fits it
    whole (no ellipsis), and the places chart's lines (头科 … 大落 two cells each) fit the width."""
    from gouji_app.widgets.compare_charts import PlacesChart, figure_rows
    from gouji_dsl.i18n import display_width
    from gouji_dsl.ruleset.graph import load_graph
    from gouji_dsl.tools.paired import paired_simulation
    ga, gb = load_graph("online"), load_graph("rulebook")
    report = paired_simulation(ga, gb, 2, seed=1, workers=1, top=1)
    words = (game_words(ga.resolved), game_words(gb.resolved))
    labels = [row[0] for row in figure_rows(report, words)]
    assert "联邦分差" in labels and "6 号座位均分" in labels
    assert all(display_width(x) <= 12 for x in labels), [x for x in labels if display_width(x) > 12]
    chart = PlacesChart()
    chart.words = words[0]
    lines = chart.draw(report, 78).plain.splitlines()
    assert "大落" in lines[1] and all(display_width(x) <= 78 for x in lines[1:]), lines


def test_a_marker_is_shown_by_its_words_not_its_id():
    """The rulebook's buying_3 marker: the term its rule's Chinese sentence gives (须购买（买三）), in
    Chinese alone, in English after the id's words (as 开点 is) — never 标记 buying_3."""
    from gouji_app.play.session import PlaySession, term_of
    from gouji_app.play.widgets import flag_word
    from gouji_dsl.ruleset.graph import load_graph
    session = PlaySession(load_graph("rulebook"), seed=3)
    with speaking(Language.ZH):
        assert [flag_word(session, n) for n in ("buying_3", "buying_4", "opened")] == ["买三", "买四", "开点"]
    with speaking(Language.EN):
        assert flag_word(session, "buying_3") == "buying 3 (买三)" and flag_word(session, "opened") == "point opened (开点)"
    from gouji_dsl.ruleset.spec import Wording
    aside = Wording({Language.EN: "All four may yield.", Language.ZH: "四人都有让牌的权利（按出牌顺序出牌）。"}, Language.EN)
    assert term_of(aside) is None  # (an aside in brackets is not a term)


def _team(seat: int) -> int:
    return (seat - 1) % 2 + 1


@pytest.mark.parametrize("lang, me, team_of, scores, line", [
    (Language.ZH, 1, _team, {"1": 12, "2": -12, "3": 12, "4": -12}, "终局：联邦 1（你） +12、联邦 2 -12"),
    (Language.EN, 2, _team, {"1": 12, "2": -12, "3": 12, "4": -12}, "game over: team 1 +12, team 2 (you) -12"),
    (Language.ZH, 2, _team, {"1": 12, "2": -12, "3": 6, "4": -6}, "终局：1 号座位 +12、你 -12、3 号座位 +6、4 号座位 -6"),
    (Language.ZH, None, None, {"1": 12, "2": -12}, "终局：1 号座位 +12、2 号座位 -12"),
    (Language.EN, 1, None, {"1": 12, "2": -12}, "game over: you +12, seat 2 -12"),
])
def test_the_logs_game_over_line_names_the_teams_or_seats(lang, me, team_of, scores, line):
    """The play screen's end-of-game log line: the teams' scores as the end-of-game panel says them
    (联邦 1（你） +12) where each team's seats scored alike, else each after its seat's words — not a
    bare number (本局结束：1: +12)."""
    from gouji_app.play.widgets import event_text
    with speaking(lang):
        assert event_text({"type": "game_over", "scores": scores, "places": {}}, me, team_of=team_of) == line


def test_the_palette_tooltip_compare_loading_and_phase_names_are_chinese(zh):
    """t26d bugs 2, 3, 5: Textual's palette tooltip, compare's loading line, the rule graph's phases."""
    from gouji_app.widgets.side_panel import PHASE_WORDS
    from gouji_dsl.ruleset.game.vocabulary import PHASES
    assert _("Open the command palette") == "打开命令面板"
    assert _("… comparing") == "… 正在比较"
    assert set(PHASE_WORDS) == set(PHASES)
    said = [_(PHASE_WORDS[p]) for p in PHASES]
    assert said[:6] == ["牌", "发牌", "进贡", "准备", "首发", "出牌"] and all(s != p for s, p in zip(said, PHASES))


def test_the_new_variants_header_breaks_chinese_between_clauses(zh, tmp_path: Path):
    """t26d bug 9: the header comment split 取/消 and 删/除 across lines; it breaks after punctuation."""
    from gouji_app.skeleton import COMMENT_WIDTH
    from gouji_dsl.i18n import display_width
    head = [ln[2:] for ln in variant_text("online-house", "online", tmp_path / "online-house.yaml").splitlines()[2:]
            if ln.startswith("# ") and not ln.startswith("#   ")][:6]
    assert head and all(display_width(ln) <= COMMENT_WIDTH - 2 for ln in head)
    assert not any(ln.endswith(("取", "删")) for ln in head)
    assert any(ln.startswith("取消 `settings:`") for ln in head) and any("（null 删除一个键）" in ln for ln in head)


def test_the_editor_position_is_short(zh):
    """t26d bug 8: 第 1 行，第 1 列 lost its 列 at 80x24; the position is no wider than the English."""
    from gouji_dsl.i18n import display_width
    said = _("Ln {row}, Col {col}").format(row=12, col=34)
    assert said == "行 12，列 34" and display_width(said) <= len("Ln 12, Col 34")
