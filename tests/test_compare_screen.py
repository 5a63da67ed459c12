"""The compare screen (editor/screens/compare.py): Pilot tests and SVG snapshots.

The rule-diff tests use the bundled ``online`` and ``rulebook`` (the pair issue 6 names) and two
small rulesets written here; the simulations play a handful of deals in one process, except the
cancel test of the worker processes.
"""
from __future__ import annotations

import asyncio
import multiprocessing
from pathlib import Path

import pytest
from click.testing import CliRunner
from pilot_helpers import footer_settled, notes, wait_for
from rich.console import Console

from gouji_app import cli as editor_cli
from gouji_app.app import GoujiApp
from gouji_app.screens import EditorScreen, HomeScreen
from gouji_app.screens.compare import CompareScreen, DealScreen, RulesetPickerScreen, RulesetSource, TextScreen, play_screen_class
from gouji_app.widgets.compare_diff import DiffPanes
from gouji_dsl import resources
from gouji_dsl.bots import BOTS
from gouji_dsl.resources import rules_dir
from gouji_dsl.tools import paired

ROOT = """\
ruleset: town-root
title: A small root ruleset
settings:
  seats: 6
  teams: 2
  ranks: ["3", "4", "5", "6", "7", "8", "9", "T", "J", "Q", "K", "A", "2"]
  jokers: ["B", "R"]
  deck: {decks: 4, cards_per_rank: 4, jokers_per_deck: {B: 1, R: 1}}
  filler_rank:
    value: "2"
    says: "2s may fill out a group."
  gouji_minimum: {T: 5, J: 4, Q: 3, K: 2, A: 2, "2": 1}
rules:
  - id: pass.no-reentry
    on: follow
    when: "passed(seat)"
    require: "seat == opposite(top.seat)"
    says: "Once you pass you may only answer your opposite."
  - id: trick.next-leader
    on: next_leader
    value: "top.seat"
"""

TOWN = """\
ruleset: town
extends: town-root
title: Our town
settings:
  gouji_minimum: {"2": 2}
  filler_rank: null
rules:
  - id: pass.no-reentry
    on: follow
    when: "passed(seat)"
    require: "seat == opposite(top.seat) or not active(top.seat)"
    says: "Once you pass you may answer your opposite, or anyone who is out."
"""

WIDE = (120, 40)
NARROW = (80, 24)


# ------------------------------------------------------------------------------ helpers
@pytest.fixture
def ws(tmp_path: Path) -> Path:
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "town-root.yaml").write_text(ROOT, encoding="utf-8")
    (folder / "town.yaml").write_text(TOWN, encoding="utf-8")
    return folder


def run(coro) -> None:
    asyncio.run(coro)


def compare_app(ws: Path, a: str, b: str, **options) -> GoujiApp:
    options.setdefault("show_timing", False)
    return GoujiApp(workspace=ws, cursor_blink=False, compare={"a": a, "b": b, **options})


async def compared(pilot) -> CompareScreen:
    """The compare screen once both rulesets are loaded and diffed."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, CompareScreen), what="the compare screen")
    screen = pilot.app.screen
    await wait_for(pilot, lambda: not screen.comparing and (screen.diff is not None or screen.problems),
                   what="the diff")
    await pilot.pause()
    return screen


async def simulated(pilot, screen: CompareScreen) -> None:
    await wait_for(pilot, lambda: not screen.running, what="the simulation")
    await pilot.pause()


def pane_text(screen: CompareScreen, side: str) -> str:
    return str(screen.query_one(f"#pane-{side}-text").render())


def rendered(renderable, width: int = 120) -> str:
    console = Console(width=width, record=True, color_system=None)
    console.print(renderable)
    return console.export_text()


# ------------------------------------------------------------------------------ the rule diff
def test_online_vs_rulebook_shows_the_differences_side_by_side(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "rulebook")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            diff = screen.diff
            assert diff is not None and not diff.empty
            panes = screen.query_one(DiffPanes)
            names = [b.name for b in panes.blocks]
            assert "gouji_minimum.2" in names and "filler_rank" in names
            left, right = pane_text(screen, "a"), pane_text(screen, "b")
            for text in (left, right):
                assert "setting gouji_minimum.2" in text and "setting filler_rank" in text
            base_line = next(i for i, line in enumerate((rules_dir() / "base.yaml").read_text(encoding="utf-8").splitlines(), 1)
                             if "value: {T: 5, J: 4" in line)
            book_line = next(i for i, line in enumerate((rules_dir() / "rulebook.yaml").read_text(encoding="utf-8").splitlines(), 1)
                             if 'value: {"2": 2}' in line)
            assert f"base.yaml:{base_line}" in left and f"rulebook.yaml:{book_line}" in right  # each value with its file:line
            counts = str(screen.query_one("#compare-counts").render())
            assert f"{len(diff.settings)} settings" in counts and f"{len(diff.rules)} rules" in counts
            assert counts.rstrip().endswith("differ")
            # the panes are side by side, scroll together and the cursor walks the differences
            a, b = panes.pane("a"), panes.pane("b")
            assert a.region.y == b.region.y and a.region.x < b.region.x
            assert a.virtual_size.height == b.virtual_size.height  # rows line up
            summary = screen.query_one("#diff-summary")
            assert str(summary.render()).startswith(f"1/{len(names)} ")
            i = names.index("gouji_minimum.2")
            await pilot.press(*["down"] * i)
            assert panes.cursor == i
            assert f"gouji_minimum.2: 1 (base.yaml:{base_line}" in str(summary.render())
            await pilot.press("end")
            await pilot.pause()
            assert panes.cursor == len(names) - 1
            assert a.scroll_y > 0 and b.scroll_y == a.scroll_y
            a.scroll_to(y=3, animate=False, immediate=True)
            await pilot.pause()
            assert b.scroll_y == 3
            await pilot.press("home", "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, TextScreen), what="the full summary")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="back")
    run(scenario())


def test_identical_rulesets_say_so(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "online")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            assert screen.diff.empty
            assert "No differences" in str(screen.query_one("#compare-counts").render())
            assert "No differences" in str(screen.query_one("#diff-empty").render())
            assert not screen.query_one(DiffPanes).display
            assert screen.labels == ("A online", "B online")
    run(scenario())


def test_swap_and_pick_a_ruleset(ws: Path):
    async def scenario():
        app = compare_app(ws, "town-root", "town")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            assert (screen.a.name, screen.b.name) == ("town-root", "town")
            rule = screen.diff.rule("pass.no-reentry")
            assert rule is not None and rule.kind == "changed" and "expr" in rule.fields
            await pilot.press("x")
            screen = await compared(pilot)
            assert (screen.a.name, screen.b.name) == ("town", "town-root")
            assert "town.yaml:5" in str(screen.diff.setting("gouji_minimum").keys[0].a.where)
            await pilot.press("b")
            await wait_for(pilot, lambda: isinstance(app.screen, RulesetPickerScreen), what="the picker")
            await pilot.press(*"town")
            picker = app.screen
            assert [s.name for s in picker.shown][:2] == ["town", "town-root"]
            await pilot.press("enter")
            screen = await compared(pilot)
            assert screen.b.name == "town" and screen.diff.empty
    run(scenario())


def test_a_ruleset_with_problems_is_reported(ws: Path):
    (ws / "broken.yaml").write_text("ruleset: broken\nextends: nowhere\n", encoding="utf-8")

    async def scenario():
        app = compare_app(ws, "town", "broken")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            assert screen.diff is None and screen.graphs is None
            text = str(screen.query_one("#diff-empty").render())
            assert "B broken" in text and "cannot find parent" in text
            await pilot.press("f5")  # nothing to simulate
            assert not screen.running and screen.report is None
    run(scenario())


# ------------------------------------------------------------------------------ simulation
def test_letters_typed_in_a_field_after_a_refused_f5_stay_in_the_field(ws: Path):
    """(t28b F4, the compare screen) F5 with no deals: the deals field is focused, and a, b, x, v, w,
    n typed there (or in the seed field) are its text, never the screen's keys (pick, swap, sweep)."""
    async def scenario():
        app = compare_app(ws, "town", "town-root")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            screen.query_one("#sim-games").value = ""
            await pilot.press("n")
            await pilot.press("f5")
            await wait_for(pilot, lambda: screen.focused is not None and screen.focused.id == "sim-games", what="the field")
            assert not screen.running and any("Deals" in str(n.message) for n in notes(app))
            await pilot.press(*"abxvwn12")
            assert app.screen is screen and screen.query_one("#sim-games").value == "12"
            screen.query_one("#sim-seed").focus()
            await pilot.press("end", *"abxvwn3")
            assert app.screen is screen and screen.query_one("#sim-seed").value.endswith("abxvwn3")
            assert screen.query_one("#compare-tabs").active == "tab-stats"
    run(scenario())

def test_tiny_simulation_shows_the_table_charts_and_divergent_deals(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=4, seed="7")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            await pilot.press("f5")
            assert screen.query_one("#compare-tabs").active == "tab-stats"
            await simulated(pilot, screen)
            assert screen.sim_state == "done", screen.query_one("#sim-status").render()
            report = screen.report
            # the heuristic bot unless told (random bots never burn successfully), named on the screen
            assert report.games == 4 and report.seed == "7" and report.bots == "heuristic"
            assert "Played by heuristic bots at every seat." in rendered(screen.query_one("#sim-time").content)
            # the same figures as the library (and `gouji diff --simulate 4 --seed 7 --bots heuristic`)
            direct = paired.paired_simulation("online", "rulebook", 4, "7", bots="heuristic", workers=1)
            assert report.to_dict(timing=False) == direct.to_dict(timing=False)
            table = rendered(screen.query_one("#sim-table").content)
            for label in ("decisions per game", "team score spread", "sweep rate", "mean score, seat 6",
                          "A online", "B rulebook", "B − A"):
                assert label in table
            assert f"{report.a.decisions.value:.2f} ±" in table
            places = str(screen.query_one("#sim-places").render())
            assert "Places by seat" in places and places.count("█") > 12 * 10
            assert "Team score spread" in str(screen.query_one("#sim-spread").render())
            assert "✓ 4 paired deals" in str(screen.query_one("#sim-status").render())
            assert "games/s" not in str(screen.query_one("#sim-time").content)  # no timing in tests
            # the divergent deals
            await pilot.press("3")
            deals = screen.query_one("#deals")
            assert deals.row_count == len(report.divergent) > 0
            first = report.divergent[0]
            assert deals.get_row_at(0)[1] == first.deal
            deals.focus()
            await pilot.press("enter")
            await wait_for(pilot, lambda: isinstance(app.screen, DealScreen), what="the deal")
            dialog = app.screen
            assert dialog.deal is first
            assert str(first.record_a[0]["seed"]) in str(dialog.query_one("#deal-record-a Static").render())
            if play_screen_class() is not None:
                await pilot.press("b")
                await wait_for(pilot, lambda: type(app.screen).__name__ == "ComparePlayScreen", what="play screen")
                play = app.screen
                assert play.graph.name == "rulebook" and play.session.mode == "replay"
                await pilot.press("ctrl+b")
                await wait_for(pilot, lambda: app.screen is dialog, what="back to the deal")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is screen, what="back")
    run(scenario())


def test_saving_a_divergent_deal(ws: Path, tmp_path: Path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=3, simulate=True)
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            await simulated(pilot, screen)
            assert screen.report.divergent
            await pilot.press("3", "enter")
            await wait_for(pilot, lambda: isinstance(app.screen, DealScreen), what="the deal")
            await pilot.press("s")
            await pilot.pause()
    run(scenario())
    saved = sorted((tmp_path / "compare-records").glob("*.json"))
    assert saved, "nothing saved"
    try:
        from gouji_dsl.engine.records import load_record, replay_steps
    except ImportError:  # without game records: the paired-deal JSON of `gouji diff --save-divergent`
        assert '"format": "gouji-paired-deal/1"' in saved[0].read_text(encoding="utf-8")
        return
    from gouji_dsl.ruleset.graph import load_graph
    assert [p.name.split("-")[-1] for p in saved] == ["online.json", "rulebook.json"]
    for p, name in zip(saved, ("online", "rulebook")):
        steps = replay_steps(load_graph(name), load_record(p))
        assert steps[-1].state.over


def test_cancel_stops_the_simulation(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=100_000, workers=1)
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            await pilot.press("f5")
            await wait_for(pilot, lambda: screen.progress_done >= 2, what="some deals played")
            assert screen.running
            assert screen.active_bindings["escape"].binding.action == "cancel"
            await pilot.press("escape")
            await simulated(pilot, screen)  # cancelled: it does not play the other deals
            assert screen.sim_state == "cancelled" and screen.report is None
            assert "Cancelled after" in str(screen.query_one("#sim-status").render())
            assert app.screen is screen  # Escape cancelled; it did not close the screen
            done = screen.progress_done
            await pilot.pause(0.3)
            assert screen.progress_done == done  # nothing runs any more
            await pilot.press("escape")  # now Escape closes
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="home")
    run(scenario())


def test_cancel_stops_the_worker_processes(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=100_000, workers=2)
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            await pilot.press("f5")
            await wait_for(pilot, lambda: screen.progress_done >= 1, what="the worker processes")
            await pilot.press("escape")
            await simulated(pilot, screen)  # cancelled, not 100 000 deals later
            assert screen.sim_state == "cancelled"
            assert multiprocessing.active_children() == []
    run(scenario())


def test_sigterm_closes_the_app_and_ends_the_running_simulation_s_workers(ws: Path):
    """SIGTERM to the app while a compare runs on worker processes (issue 29): the app closes as
    Ctrl+Q does (the simulation cancelled, its pool ended: no process left), with exit status 130 and
    one line for the terminal. (By hand in a terminal: the screen is restored, 0.6 s.)"""
    import os
    import signal

    from gouji_dsl.tools.exits import EXIT_INTERRUPTED

    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=100_000, workers=2)
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            await pilot.press("f5")
            await wait_for(pilot, lambda: screen.progress_done >= 1, what="the worker processes")
            assert len(multiprocessing.active_children()) == 2
            assert app._sigterm_before is not None  # the app's handler is in place (else SIGTERM ends pytest)
            os.kill(os.getpid(), signal.SIGTERM)
            await wait_for(pilot, lambda: app.return_code is not None, what="the app closing")
        return app

    before = signal.getsignal(signal.SIGTERM)
    app = asyncio.run(scenario())  # (returns once the simulation's thread has ended)
    assert app.return_code == EXIT_INTERRUPTED
    assert app.interrupted == "interrupted (SIGTERM): the app closed; the running simulation was stopped"
    assert multiprocessing.active_children() == []
    assert signal.getsignal(signal.SIGTERM) == before  # given back when the app closed


# ------------------------------------------------------------------------------ entry points
def test_compare_from_home_and_from_the_editor_buffer(ws: Path):
    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=WIDE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="home")
            home = app.screen
            table = home.query_one("DataTable")
            table.move_cursor(row=table.get_row_index(str(ws / "town.yaml")))
            await pilot.press("c")
            await wait_for(pilot, lambda: isinstance(app.screen, RulesetPickerScreen), what="the picker")
            picker = app.screen
            assert picker.shown[0].name == "town-root"  # the parent first
            await pilot.press("enter")
            screen = await compared(pilot)
            assert (screen.a.name, screen.b.name) == ("town", "town-root")  # the selected ruleset is A (issue 15)
            assert screen.diff.setting("filler_rank") is not None
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is home, what="home")
            # the editor: its unsaved buffer is B
            app.open_file(ws / "town.yaml")
            await wait_for(pilot, lambda: isinstance(app.screen, EditorScreen), what="the editor")
            ed = app.screen
            await wait_for(pilot, lambda: ed.is_validated, what="validation")
            ed.text_area.cursor_location = (4, len('  gouji_minimum: {"2": 2'))
            await pilot.press("backspace", "3")
            assert ed.dirty
            await wait_for(pilot, lambda: ed.is_validated, what="validation")
            await pilot.press("f8")
            await wait_for(pilot, lambda: isinstance(app.screen, RulesetPickerScreen), what="the picker")
            await pilot.press("enter")
            screen = await compared(pilot)
            assert screen.b.unsaved and screen.b.label == "town (unsaved)"
            key = screen.diff.setting("gouji_minimum").keys[0]
            assert (key.a.value, key.b.value) == (1, 3)
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert ed.dirty
    run(scenario())


def test_every_bot_of_the_registry_is_offered_and_a_command_line_spec_is_used(ws: Path):
    """The simulation offers the same bots as `gouji diff --simulate --bots` (one registry), and an
    A,B spec from the command line is played as given (odd seats A, even seats B)."""
    async def scenario():
        app = compare_app(ws, "online", "rulebook", games=2, seed="3", bots="heuristic,random")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            select = screen.query_one("#sim-bots")
            values = [v for _, v in select._options]
            assert values[:len(BOTS)] == list(BOTS) and "heuristic,random" in values
            assert select.value == "heuristic,random"
            await pilot.press("f5")
            await simulated(pilot, screen)
            assert screen.sim_state == "done" and screen.report.bots_text == "heuristic,random," * 2 + "heuristic,random"
            direct = paired.paired_simulation("online", "rulebook", 2, "3", bots=["heuristic", "random"] * 3,
                                               workers=1)
            assert screen.report.to_dict(timing=False) == direct.to_dict(timing=False)
    run(scenario())


def test_gouji_compare_takes_the_bots_of_the_registry(ws: Path, monkeypatch):
    calls = []
    monkeypatch.setattr(editor_cli, "run_app", lambda **kw: calls.append(kw))
    runner = CliRunner()
    res = runner.invoke(editor_cli.gouji, ["compare", "online", "rulebook", "--bots", "ismcts:8,heuristic"])
    assert res.exit_code == 0, res.output
    assert calls[-1]["compare"]["bots"] == "ismcts:8,heuristic"
    res = runner.invoke(editor_cli.gouji, ["compare", "online", "rulebook", "--bots", "ismcst"])
    assert res.exit_code == 2 and "did you mean 'ismcts'" in res.output


def test_gouji_compare_command(ws: Path, monkeypatch):
    calls = []
    monkeypatch.setattr(editor_cli, "run_app", lambda **kw: calls.append(kw))
    runner = CliRunner()
    res = runner.invoke(editor_cli.gouji, ["compare", "qingdao", "qingdao-classic", "--simulate", "500",
                                           "--workspace", str(ws)])
    assert res.exit_code == 0, res.output
    assert calls[-1] == {"workspace": ws, "compare": {"a": "qingdao", "b": "qingdao-classic", "seed": "1",
                                                     "bots": "heuristic", "simulate": True, "games": 500}}
    res = runner.invoke(editor_cli.gouji, ["compare", "--help"])
    assert "--simulate" in res.output


def test_unknown_ruleset_is_a_notification_not_a_crash(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "no-such-ruleset")
        async with app.run_test(size=WIDE) as pilot:
            await pilot.pause(0.2)
            assert isinstance(app.screen, HomeScreen)
            assert any("no-such-ruleset" in n.message for n in notes(app))
    run(scenario())


def test_sources_resolve_files_and_buffers(ws: Path):
    from gouji_app.workspace import Workspace
    w = Workspace(ws)
    src = RulesetSource.find("town", w)
    assert src.path == str(ws / "town.yaml") and not src.bundled and src.where.endswith("town.yaml")
    assert RulesetSource.find("online", w).bundled
    buf = RulesetSource(str(ws / "town.yaml"), "town", text=TOWN.replace('"2": 2', '"2": 4'))
    r = buf.resolve(w.search)
    assert r.settings["gouji_minimum"].value["2"] == 4 and buf.compile(r).name == "town"
    assert buf.where.startswith("unsaved buffer of") and buf.key != src.key


# ------------------------------------------------------------------------------ layout and keys
def test_narrow_screen_stacks_the_panes_and_v_toggles(ws: Path):
    async def scenario():
        app = compare_app(ws, "online", "rulebook")
        async with app.run_test(size=NARROW) as pilot:
            screen = await compared(pilot)
            panes = screen.query_one(DiffPanes)
            a, b = panes.pane("a"), panes.pane("b")
            assert a.region.x == b.region.x and b.region.y > a.region.y  # one above the other
            assert a.region.height >= 5 and b.region.height >= 5
            await pilot.press("down", "down")
            assert a.scroll_y == b.scroll_y
            await pilot.press("v")
            await pilot.pause()
            assert a.region.y == b.region.y and a.region.x < b.region.x
            await pilot.pause()
            assert a.virtual_size.height == b.virtual_size.height
    run(scenario())


def test_every_shown_key_is_a_palette_command(ws: Path):
    async def scenario():
        app = compare_app(ws, "town-root", "town")
        async with app.run_test(size=WIDE) as pilot:
            screen = await compared(pilot)
            titles = {c.title for c in app.get_system_commands(screen)}
            for wanted in ("Simulate", "Close", "Rules", "Stats", "Deals", "Pick A", "Pick B", "Swap", "Layout"):
                assert wanted in titles, wanted
    run(scenario())


# ------------------------------------------------------------------------------ snapshots
@pytest.fixture
def snapshot_world(tmp_path: Path, monkeypatch) -> Path:
    """The 'bundled' folder holds town-root only, the workspace town; paths show as rules/..."""
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    (bundled / "town-root.yaml").write_text(ROOT, encoding="utf-8")
    monkeypatch.setattr(resources, "rules_dir", lambda: bundled)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "town.yaml").write_text(TOWN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


def test_snapshot_compare_rules(snapshot_world: Path, snap_compare):
    async def ready(pilot):
        await compared(pilot)
        await pilot.press("down", "down")
        await pilot.pause()
        await footer_settled(pilot)

    app = GoujiApp(workspace=Path("rules"), cursor_blink=False, compare={"a": "town-root", "b": "town"})
    assert snap_compare(app, terminal_size=WIDE, run_before=ready)


def test_snapshot_compare_rules_80x24(snapshot_world: Path, snap_compare):
    async def ready(pilot):
        await compared(pilot)
        await pilot.press("end")
        await pilot.pause()
        await footer_settled(pilot)

    app = GoujiApp(workspace=Path("rules"), cursor_blink=False, compare={"a": "town-root", "b": "town"})
    assert snap_compare(app, terminal_size=NARROW, run_before=ready)


def test_a_difference_signs_both_bounds_of_its_interval() -> None:
    """The compare screen writes a rate difference as the text report and ``gouji duel`` do
    (``Estimate.format(signed=True)``: ``+0.75 [-4.54, +6.04]``): both bounds signed."""
    from gouji_app.widgets.compare_charts import fmt_difference, fmt_estimate
    from gouji_dsl.tools.stats import Estimate

    e = Estimate(0.012, -0.004, 0.029, 100, kind="paired_rate")
    assert fmt_difference(e, True).plain == "+1.2% [-0.4, +2.9]"
    assert fmt_estimate(Estimate(0.09, 0.048, 0.162, 100, kind="wilson"), True).plain == "9.0% [5, 16]"
