"""The sweep screen (editor/screens/sweep.py, issue 28): a grid of settings played from the app, its
positioned problems, cancelling, a saved run folder, and the screen in Chinese. Pilot tests; the
sweeps play a handful of deals in one process."""
from __future__ import annotations

import asyncio
from pathlib import Path

from app_zh import speaking
from pilot_helpers import home_ready, screen_text, wait_for

from gouji_app.app import GoujiApp
from gouji_app.screens.compare import CompareScreen, RulesetSource
from gouji_app.screens.sweep import FolderScreen, SweepScreen
from gouji_app.widgets.sweep_view import SweepChart, sweep_table
from gouji_dsl.i18n import Language
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools import sweep

WIDE = (130, 50)
GRID = "filler_rank=2,null"  # online's filler is 2: P1 plays as the base ("= base", not played)
PLAYED = "filler_rank=null,3"  # two points both played


def run(coro) -> None:
    asyncio.run(coro)


def sweep_app(tmp_path: Path, **compare) -> GoujiApp:
    folder = tmp_path / "rules"
    folder.mkdir(exist_ok=True)
    return GoujiApp(workspace=folder, cursor_blink=False, compare=compare or None)


async def sweep_screen(pilot, **options) -> SweepScreen:
    """A sweep screen of the bundled ``online`` pushed on the app."""
    app = pilot.app
    await wait_for(pilot, lambda: app.screen is not None and app.is_running, what="the app")
    src = RulesetSource.find("online", app.workspace)
    options.setdefault("workers", 1)
    screen = SweepScreen(app.workspace, src, **options)
    await app.push_screen(screen)
    await wait_for(pilot, lambda: app.screen is screen and screen.is_mounted, what="the sweep screen")
    await pilot.pause()
    return screen


async def swept(pilot, screen: SweepScreen) -> None:
    await wait_for(pilot, lambda: not screen.running, what="the sweep")
    await pilot.pause()


def direct(games: int, grids=(GRID,), bots="heuristic") -> sweep.SweepReport:
    """The same sweep through the sweep module (as ``gouji sweep`` plays it)."""
    parsed = sweep.parse_grids(list(grids))
    labels = [sweep.point_label(p) for p in sweep.points(parsed)]
    return sweep.run_sweep(load_graph("online"), sweep.load_points("online", parsed), labels, list(grids), games, 1,
                           bots, workers=1)


def test_the_compare_screen_opens_a_sweep_of_ruleset_b(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path, a="rulebook", b="online", show_timing=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
            compare = app.screen
            await wait_for(pilot, lambda: compare.graphs is not None, what="the diff")
            compare.query_one("#diff-panes").focus()
            await pilot.press("w")
            await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen) and app.screen.is_mounted
                           and bool(str(app.screen.query_one("#sweep-title").render())), what="the sweep screen")
            screen = app.screen
            assert screen.source is not None and screen.source.name == "online"
            assert "online" in str(screen.query_one("#sweep-title").render())
            assert screen.query_one("#sweep-games").value == "200"  # the Stats tab's deals, seed and bots
            assert screen.focused.id == "sweep-grid-1"  # no grid yet: type one
            await pilot.press("escape", "escape")  # the first leaves the field, the second closes
            await wait_for(pilot, lambda: app.screen is compare, what="back to the comparison")
    run(scenario())


def test_a_sweep_shows_each_figure_per_point_with_the_command_s_numbers(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot, grids=(GRID,), games=6)
            await pilot.press("f5")
            await swept(pilot, screen)
            assert screen.state == "done", screen.query_one("#sweep-status").render()
            r = screen.report
            assert r is not None and r.labels == ["filler_rank=2", "filler_rank=null"] and r.games == 6
            # the same report as the sweep module's (what gouji sweep prints), Holm marks included
            assert r.to_dict(timing=False) == direct(6).to_dict(timing=False)
            text = screen_text(app)
            assert "P1  filler_rank=2" in text and "P2  filler_rank=null" in text
            assert "decisions per game" in text and "Holm" in text
            assert "= base: plays exactly as online" in text  # P1 (the command's legend)
            assert "+4.33 ±5.00 ≡" in text  # seat 2 mirrors seat 1 (one test, marked from it)
            assert "+22.17 ±13.72 *" in text and "+3.00 ±2.26 †" in text  # decisions, P2 − base: significant after Holm (the CLI's mark)
            chart = screen.query_one(SweepChart)
            assert chart.key == "score_spread" and "│" in chart.render().plain
            screen.query_one("#sweep-figure").value = "decisions"
            await pilot.pause()
            drawn = chart.render().plain
            assert chart.key == "decisions" and drawn.startswith("decisions per game")
            assert "P2" in drawn and "●" in drawn and "+22.17 ±13.72 *" in drawn
            assert "= base" in drawn  # P1: not played, no dot
    run(scenario())


def test_a_bad_grid_is_shown_with_its_position_and_nothing_is_played(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot)
            screen.query_one("#sweep-grid-1").value = "gouji_minimum.2=1,1"
            await pilot.press("f5")
            await pilot.pause()
            assert not screen.running and screen.state == "problems"
            problems = str(screen.query_one("#sweep-problems").render())
            assert "--grid[1]:1:19:" in problems and "BadOverride" in problems and "given twice" in problems
            assert "^" in problems  # the caret under the value, as the command prints it
            # a key no ruleset reads: found when the points load (in the worker), at --grid[2]
            screen.query_one("#sweep-grid-1").value = "gouji_minimum.2=1,2"
            screen.query_one("#sweep-grid-2").value = "no_such_setting=1,2"
            await pilot.press("f5")
            # (t28d bug 6) no 0 % bar while the points are checked: a grid they refuse shows its problem only
            assert not screen.query_one("#sweep-progress").display
            assert "checking" in str(screen.query_one("#sweep-status").render()) or not screen.running
            await swept(pilot, screen)
            assert not screen.query_one("#sweep-progress").display
            assert screen.state == "problems" and screen.report is None
            assert "--grid[2]:1:" in str(screen.query_one("#sweep-problems").render())
            # no grid at all
            for i in (1, 2):
                screen.query_one(f"#sweep-grid-{i}").value = ""
            await pilot.press("f5")
            await pilot.pause()
            assert "at least one grid line" in str(screen.query_one("#sweep-problems").render())
    run(scenario())


def test_too_many_deals_for_the_app_is_refused(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot, grids=(GRID,), games=99_999)
            await pilot.press("f5")
            await pilot.pause()
            assert not screen.running
            assert "from 1 to 66666 for 2 points" in str(screen.query_one("#sweep-problems").render())
    run(scenario())


def test_escape_cancels_a_running_sweep(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot, grids=(GRID,), games=50_000)
            await pilot.press("f5")
            await wait_for(pilot, lambda: screen.progress_done >= 2, what="some deals played")
            assert screen.active_bindings["escape"].binding.action == "cancel"
            await pilot.press("escape")
            await swept(pilot, screen)
            assert screen.state == "cancelled" and screen.report is None
            assert "Cancelled after" in str(screen.query_one("#sweep-status").render())
            assert app.screen is screen
            await pilot.press("escape")  # now Escape closes
            await wait_for(pilot, lambda: app.screen is not screen, what="the screen closed")
    run(scenario())


def test_a_saved_run_folder_opens_as_gouji_report_reads_it(tmp_path: Path):
    out = tmp_path / "run1"
    parsed = sweep.parse_grids([PLAYED])
    labels = [sweep.point_label(p) for p in sweep.points(parsed)]
    saved = sweep.run_sweep(load_graph("online"), sweep.load_points("online", parsed), labels, [PLAYED], 4, 1, "random",
                            workers=1, out=out)
    paired_out = tmp_path / "paired"
    from gouji_dsl.tools.paired import paired_simulation
    paired_simulation("online", "rulebook", 2, 1, workers=1, out=paired_out)

    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot)
            screen.query_one("#sweep-results").focus()
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, FolderScreen), what="the folder dialog")
            app.screen.query_one("#sweep-folder-input").value = str(out)
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is screen, what="back on the sweep screen")
            await swept(pilot, screen)
            assert screen.state == "done" and screen.report is not None
            assert screen.report.labels == labels
            ours, theirs = screen.report.to_dict(timing=False), saved.to_dict(timing=False)
            assert ours["points"] == theirs["points"] and ours["base_stats"] == theirs["base_stats"]
            assert "Saved run" in str(screen.query_one("#sweep-title").render())
            # (t28d bug 6) the form shows what the run was, and the bar its completion (not --%)
            assert screen.query_one("#sweep-grid-1").value == PLAYED and screen.query_one("#sweep-grid-2").value == ""
            assert screen.query_one("#sweep-games").value == "4" and screen.query_one("#sweep-seed").value == "1"
            assert screen.query_one("#sweep-bots").value == "random"
            bar = screen.query_one("#sweep-progress")
            assert bar.display and bar.percentage == 1
            # a paired run's folder is not a sweep's: said, nothing shown
            screen._open(str(paired_out))
            await swept(pilot, screen)
            assert screen.state == "problems" and screen.report is None
            assert "not of gouji sweep" in str(screen.query_one("#sweep-problems").render())
    run(scenario())


def test_the_home_screen_opens_a_sweep_of_the_highlighted_ruleset(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            home = await home_ready(pilot)
            name = home.current().name
            await pilot.press("w")
            await wait_for(pilot, lambda: isinstance(app.screen, SweepScreen), what="the sweep screen")
            assert app.screen.source.name == name
    run(scenario())


def test_the_sweep_screen_speaks_chinese(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot, grids=(GRID,), games=4)
            await pilot.press("f5")
            await swept(pilot, screen)
            text = screen_text(app)
            assert "扫参" in text and "Holm" in text
            assert "decisions per game" not in text  # the figures in the CLI's Chinese words
    with speaking(Language.ZH):
        run(scenario())


def test_the_table_shows_values_only_for_many_points():
    from rich.console import Console
    r = direct(3, grids=("gouji_minimum.2=1,2,3", "filler_rank=2,null"))
    assert len(r.labels) == 6
    console = Console(width=250, record=True, color_system=None)
    console.print(sweep_table(r))
    text = console.export_text()
    rows = [line for line in text.splitlines() if line.startswith("decisions per game")]
    assert len(rows) == 1 and rows[0].count("±") == 1  # the base's interval; the points' values only
    assert "P6" in text


def test_at_80x24_the_controls_fit_and_o_still_opens_a_run(tmp_path: Path):
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await sweep_screen(pilot, grids=(GRID,))
            assert not screen.query_one("#sweep-open").display  # no room for the button
            text = screen_text(app)
            assert "Sweep F5" in text and "--grid[1] filler_rank=2,null" in text
            await pilot.press("o")
            await wait_for(pilot, lambda: isinstance(app.screen, FolderScreen), what="the folder dialog")
    run(scenario())


def _footer_keys(app) -> list[str]:
    """The keys the current screen's footer shows (``w 扫参``: key and description)."""
    from textual.widgets._footer import FooterKey

    from gouji_app.widgets.footer import FittingFooter
    footer = app.screen.query_one(FittingFooter)
    return [f"{c.key} {c.description}" for c in footer.children if isinstance(c, FooterKey) and c.display]


async def _discoverable(pilot, sweep_word: str) -> None:
    """``w`` is in the footer, in F1's list of keys and in the command palette of the current screen."""
    from pilot_helpers import footer_settled

    from gouji_app.screens.help import HelpScreen
    app = pilot.app
    await footer_settled(pilot)
    await wait_for(pilot, lambda: bool(_footer_keys(app)), what="the footer's keys")  # (recomposed once the diff is in)
    await footer_settled(pilot)
    assert f"w {sweep_word}" in _footer_keys(app), _footer_keys(app)
    assert sweep_word in [cmd.title for cmd in app.get_system_commands(app.screen)]
    below = app.screen
    await pilot.press("f1")
    await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen), what="the help")
    listed = app.screen.keys()  # (HelpScreen.keys: the keys of the screen below)
    assert any(key == "w" and sweep_word in what for key, what in listed), listed
    await pilot.press("escape")
    await wait_for(pilot, lambda: app.screen is below, what="back from the help")


def test_w_is_shown_on_the_home_and_compare_screens_in_both_languages(tmp_path: Path):
    """(t28b F5) the sweep screen is found from the footer, F1 and the palette, not only the README."""
    async def scenario(word: str, size) -> None:
        app = sweep_app(tmp_path, a="rulebook", b="online", show_timing=False)
        async with app.run_test(size=size) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, CompareScreen), what="the compare screen")
            compare = app.screen
            await wait_for(pilot, lambda: compare.graphs is not None, what="the diff")
            compare.query_one("#diff-panes").focus()
            await _discoverable(pilot, word)
            await pilot.press("escape")
            await home_ready(pilot)
            await _discoverable(pilot, word)
    run(scenario("Sweep", WIDE))
    with speaking(Language.ZH):
        run(scenario("扫参", WIDE))


def test_after_a_problem_the_fix_is_typed_in_the_field_it_names(tmp_path: Path):
    """(t28b F4) F5 with a bad --grid line: the cursor goes to the field the problem names, at its
    column, so the fix is typed there; o (Open run) and r (Ruleset) are letters in a field, never the
    screen's keys."""
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=WIDE) as pilot:
            screen = await sweep_screen(pilot)
            grid = {i: screen.query_one(f"#sweep-grid-{i}") for i in (1, 2, 3)}
            # found when the points load (in the worker): --grid[1] is the second field (the first is empty)
            grid[2].focus()
            await pilot.press(*"seats=abc", "f5")
            await swept(pilot, screen)
            assert screen.state == "problems" and "--grid[1]:1:7:" in str(screen.query_one("#sweep-problems").render())
            assert screen.focused is grid[2] and grid[2].cursor_position == 6  # at 'abc'
            await pilot.press("delete", "delete", "delete", *"o4r")
            assert app.screen is screen and grid[2].value == "seats=o4r"
            # found by the grid's parser (at once): the field named, not the one F5 was pressed in
            grid[1].value, grid[2].value = "gouji_minimum.2=1,2", "yield_to=1,1"
            grid[1].focus()
            await pilot.press("f5")
            await pilot.pause()
            assert screen.state == "problems" and "--grid[2]:1:" in str(screen.query_one("#sweep-problems").render())
            assert screen.focused is grid[2]
            await pilot.press("end", "backspace", *"3o")
            assert app.screen is screen and grid[2].value == "yield_to=1,3o"
            # every field of the screen takes the letters the screen has keys for
            for field in screen.query("Input"):
                field.focus()
                before = field.value
                await pilot.press("end", "o", "r", "w")  # (end: a field selects its text when focused)
                assert app.screen is screen, field.id
                assert field.value in (before + "orw", before), field.id  # (the deals field takes digits only)
    run(scenario())


FOUR = ("filler_rank=2,null", "yield_to=1,3")  # 4 points: a table wider than 80 columns


async def _four_swept(pilot) -> SweepScreen:
    """A sweep of 4 points × 6 deals played, the results scrolled to the table."""
    from pilot_helpers import footer_settled
    screen = await sweep_screen(pilot, grids=FOUR, games=6)
    await pilot.press("f5")
    await swept(pilot, screen)
    assert screen.state == "done"
    results = screen.query_one("#sweep-results")
    results.scroll_to(y=screen.query_one("#sweep-table").virtual_region.y - 1, animate=False)
    await pilot.pause()
    await footer_settled(pilot)
    return screen


def test_at_80x24_every_column_of_the_table_is_reached_with_the_arrows(tmp_path: Path):
    """(t28d bug 2) the table is laid out at its natural width (never squeezed: the figure names and the
    marks stay), and the results scroll sideways to it: ← → with the results focused."""
    async def scenario():
        app = sweep_app(tmp_path)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await _four_swept(pilot)
            table, results = screen.query_one("#sweep-table"), screen.query_one("#sweep-results")
            assert table.size.width > results.scrollable_content_region.width  # wider than the screen: not squeezed
            text = screen_text(app)
            assert "decisions per game" in text and "P1" in text and "P4" not in text and "…" not in text
            assert app.focused is results
            while results.scroll_x < results.max_scroll_x:
                before = results.scroll_x
                await pilot.press("right")
                await pilot.pause()
                assert results.scroll_x > before
            text = screen_text(app)
            assert "P4" in text and "*" in text and "…" not in text  # the last point's column, and its marks
            while results.scroll_x > 0:  # and back to the figure names
                await pilot.press("left")
                await pilot.pause()
            assert "decisions per game" in screen_text(app)
    run(scenario())


def test_snapshot_sweep_table_80x24(tmp_path: Path, snap_compare, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert snap_compare(sweep_app(tmp_path), terminal_size=(80, 24), run_before=_four_swept)


def test_snapshot_sweep_table_120x40(tmp_path: Path, snap_compare, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert snap_compare(sweep_app(tmp_path), terminal_size=(120, 40), run_before=_four_swept)
