"""Issue 26 (中文), the app's layout at 80 columns in Chinese (t26d bug 6 and the leftovers of bug 8):
the compare screen's side-by-side panes keep their gutter and hanging indent after ``v``, and no line
starts with closing punctuation (the panes' one wrap, :mod:`gouji_dsl.tools.textlayout`)."""
from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from app_zh import speaking
from rich.cells import cell_len

from gouji_app.widgets.compare_diff import MARK, NO_MARK, DiffPanes
from gouji_dsl.i18n import Language
from gouji_dsl.tools.textlayout import NO_START

#: the CJK closing punctuation of textlayout's NO_START (a line of code may start with an ASCII bracket)
CLOSING = "".join(c for c in NO_START if ord(c) > 0x2000)


@pytest.fixture()
def zh():
    with speaking(Language.ZH):
        yield


def _pane_lines(panes: DiffPanes, side: str) -> list[str]:
    return str(panes.query_one(f"#pane-{side}-text").render()).split("\n")


def test_side_by_side_panes_are_laid_out_again_to_their_new_width(zh, tmp_path: Path):
    """t26d bug 6: at 80x24 ``v`` puts the panes side by side; when the blocks were laid out before the
    panes took their new width (the container keeps its size and gets no resize), each pane's own
    resize lays them out again: every line starts with the gutter (▌ / two spaces), fits the pane,
    and none starts with ，。、）”."""
    from test_compare_screen import compare_app, compared

    async def scenario():
        app = compare_app(tmp_path, "online", "rulebook")
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await compared(pilot)
            panes = screen.query_one(DiffPanes)
            relayout = panes.relayout
            panes.relayout = lambda: None  # type: ignore[method-assign]  # the early layout of a real terminal
            screen.action_toggle_layout()
            panes._layout()  # (laid out at the stacked width)
            stale = panes._width
            panes.relayout = relayout  # type: ignore[method-assign]
            for _ in range(4):
                await pilot.pause()
            width = panes._content_width()
            assert panes._width == width < stale
            for side in "ab":
                lines = _pane_lines(panes, side)
                assert any("资料 000" in line for line in lines)
                for line in lines:
                    assert cell_len(line) <= width, line
                    assert not line or line.startswith((MARK, NO_MARK)), line
                    first = line[len(MARK):].lstrip()[:1]
                    assert not first or first not in CLOSING, line
    asyncio.run(scenario())


@pytest.mark.parametrize("size", [(80, 24)], ids=["80x24"])
def test_snapshot_compare_side_by_side_zh(zh, tmp_path: Path, snap_compare, size):
    """The rules tab side by side at 80 columns in Chinese: the seed's sentence wrapped under its quote."""
    from pilot_helpers import footer_settled
    from test_compare_screen import compare_app, compared

    async def ready(pilot):
        await compared(pilot)
        await pilot.press("v")
        for _ in range(3):
            await pilot.pause()
        await footer_settled(pilot)

    assert snap_compare(compare_app(tmp_path, "online", "rulebook"), terminal_size=size, run_before=ready)


@pytest.mark.parametrize("lang", [Language.ZH, Language.EN])
def test_the_play_footer_keeps_save_close_and_the_palette_at_80_columns(lang):
    """t26d bug 8: at 80 columns the play footer leaves out shift+F3 and ^y (the screen's FOOTER_SPARE)
    before ^s, ^b and ^p, in both languages; at 120 columns every key is back."""
    from pilot_helpers import footer_settled
    from test_play import app_for

    from gouji_app.widgets.footer import FittingFooter

    def shown(app) -> list[str]:
        footer = app.screen.query_one(FittingFooter)
        return [k.action for k in footer.children if getattr(k, "action", None) and k.display] + \
            (["palette"] if footer.show_command_palette else [])

    async def scenario():
        app = app_for("online", seed=1)
        async with app.run_test(size=(80, 24)) as pilot:
            await footer_settled(pilot)
            keys = shown(app)
            assert {"save", "close", "palette", "help", "pass_move", "why", "undo"} <= set(keys)
            assert "ask_bot" not in keys and "redo" not in keys
            await pilot.resize_terminal(120, 40)
            await pilot.pause()
            await footer_settled(pilot)
            assert {"ask_bot", "redo", "save", "close", "palette"} <= set(shown(app))

    with speaking(lang):
        asyncio.run(scenario())


#: a variant that names three terms otherwise: the figures are labelled in both rulesets' words
WORDS2 = """ruleset: words2
extends: online
languages: [zh, en]
words:
  terms:
    burn: {zh: 火牌, en: fire}
    revolution: {zh: 造反, en: uprising}
"""


def test_the_narrow_stats_table_fits_and_its_note_keeps_holm_whole(zh, tmp_path: Path):
    """At 80 columns the figures' table fits its pane (the effect sizes left out), a label of both
    rulesets (烧牌成功率/火牌成功率) is on two lines, never cut with "…", and the methods note under
    the table is laid out by the one wrap (the Rich caption broke "Holm")."""
    from test_compare_screen import compare_app, compared, simulated
    from textual.geometry import Region

    from gouji_app.widgets.compare_charts import label_cell

    (tmp_path / "words2.yaml").write_text(WORDS2, encoding="utf-8")

    def lines(widget) -> list[str]:
        return ["".join(s.text for s in line).rstrip()
                for line in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height))]

    async def scenario():
        app = compare_app(tmp_path, "online", str(tmp_path / "words2.yaml"), games=4, simulate=True)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await compared(pilot)
            await simulated(pilot, screen)
            await pilot.press("2")
            await pilot.pause()
            table, note = screen.query_one("#sim-table"), screen.query_one("#sim-methods")
            shown = lines(table)
            assert not any("…" in line for line in shown)
            assert any(line.startswith("烧牌成功率/") for line in shown) and any(line.startswith("火牌成功率") for line in shown)
            assert all(cell_len(line) <= table.size.width for line in shown)
            assert table.virtual_size.width <= table.size.width
            said = lines(note)
            assert any("Holm" in line for line in said) and "".join(said).replace(" ", "").count("Holm") == 1
    asyncio.run(scenario())
    assert label_cell("每局烧牌次数/每局火牌次数").plain == "每局烧牌次数/\n每局火牌次数"


def test_the_app_and_the_cli_mark_and_bound_a_difference_alike():
    """t26d bug 10: one way to say significance (* / † / nothing: the report's mark; the app's n.s.
    is gone) and one interval format ([lo, hi], a difference signed) in the app and the CLI's table."""
    from gouji_app.widgets.compare_charts import fmt_difference, fmt_estimate
    from gouji_dsl.tools import paired
    from gouji_dsl.tools.stats import Estimate

    shown = Estimate(0.075, 0.01, 0.16, 200, "wilson", p=0.03, p_adjusted=0.2)  # interval excludes 0, not after Holm
    assert paired.mark(shown) == " †" and fmt_difference(shown, True).plain.endswith(" †")
    flat = Estimate(0.075, -0.01, 0.16, 200, "wilson", p=0.3, p_adjusted=0.9)
    assert paired.mark(flat) == "" and "n.s." not in fmt_difference(flat, True).plain
    rate = Estimate(0.12, 0.07, 0.198, 200, "wilson")
    assert fmt_estimate(rate, True).plain == "12.0% [7, 20]" == paired._fig(rate, "rate", compact=True)
    diff = Estimate(-0.01, -0.114, 0.089, 200, "wilson")
    assert fmt_estimate(diff, True, signed=True).plain == "-1.0% [-11, +9]" == paired._fig(diff, "rate", True, True)
