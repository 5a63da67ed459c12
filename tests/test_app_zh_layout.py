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
