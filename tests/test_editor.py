"""The editor app (Textual): behaviour through App.run_test() and Pilot, plus SVG snapshots.

Most tests use two small rulesets written here (``town-root`` and its variant ``town``) so they do
not change when the bundled rulesets grow; the new-variant flow uses the bundled ``online``.
"""
from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import pytest
from click.testing import CliRunner
from pilot_helpers import editor_ready, footer_settled, home_ready, notes, wait_for

from gouji_app import cli as editor_cli
from gouji_app import files
from gouji_app.app import GoujiApp
from gouji_app.completion import Item, indent_for, items_for, replacement, word_before
from gouji_app.screens import ConfirmScreen, EditorScreen, HomeScreen, NewVariantScreen, PickerScreen
from gouji_app.screens.recovery import RecoveryScreen
from gouji_app.skeleton import COMMON_SETTINGS, variant_text
from gouji_app.validation import validate_file, validate_text
from gouji_app.widgets import DiagnosticsList
from gouji_dsl import resources
from gouji_dsl.ruleset.load import checking, finding, resolving

ROOT = """\
ruleset: town-root
title: A small root ruleset
description: The settings and rules the editor tests need, and nothing else.
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
  sweep_multiplier:
    value: 2
    says: "The sweep multiplies the score."
definitions:
  done(s): "passed(s) or not active(s)"
rules:
  - id: gouji.minimum
    on: gouji
    value: "play.jokers > 0 or (play.rank in settings.gouji_minimum and play.count >= settings.gouji_minimum[play.rank])"
    says: "A gouji play carries a joker or reaches the minimum count for its rank."
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
    require: "seat == opposite(top.seat) or done(top.seat)"
    says: "Once you pass you may answer your opposite, or anyone who is done."
"""
REQUIRE_LINE = 11  # 1-based line of `require:` in TOWN
DONE_COL = TOWN.splitlines()[REQUIRE_LINE - 1].index("done(top.seat)") + 1  # 1-based column of `done`

SIZE = (120, 40)


# ------------------------------------------------------------------------------ helpers
@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """A workspace folder with town-root.yaml and town.yaml."""
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "town-root.yaml").write_text(ROOT, encoding="utf-8")
    (folder / "town.yaml").write_text(TOWN, encoding="utf-8")
    return folder


def make_app(ws: Path, open_name: str | None = None) -> GoujiApp:
    return GoujiApp(workspace=ws, open_path=ws / open_name if open_name else None, cursor_blink=False)


def run(coro) -> None:
    asyncio.run(coro)


# ------------------------------------------------------------------------------ editing
def test_type_an_error_see_it_fix_it_save(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            assert ed.validation.ok and not ed.dirty
            area = ed.text_area
            # turn `done(` into `donex(`: an unknown name
            area.cursor_location = (REQUIRE_LINE - 1, DONE_COL - 1 + len("done"))
            await pilot.press("x")
            assert ed.dirty and "●" in ed.sub_title
            ed = await editor_ready(pilot)
            diags = ed.validation.diagnostics
            assert [(d.line, d.col) for d in diags] == [(REQUIRE_LINE, DONE_COL)]
            assert "unknown name 'donex'" in diags[0].message
            problems = ed.query_one(DiagnosticsList)
            assert str(problems.get_option_at_index(0).prompt).lstrip().startswith(f"{REQUIRE_LINE}:{DONE_COL} ")
            assert area.marks == {REQUIRE_LINE - 1: ("error", DONE_COL - 1)}
            # Enter in the problems list jumps to the spot
            area.cursor_location = (0, 0)
            await pilot.press("ctrl+l", "enter")
            assert area.cursor_location == (REQUIRE_LINE - 1, DONE_COL - 1)
            assert area.has_focus
            # fix it
            area.cursor_location = (REQUIRE_LINE - 1, DONE_COL - 1 + len("donex"))
            await pilot.press("backspace")
            ed = await editor_ready(pilot)
            assert ed.validation.ok and area.marks == {}
            assert not ed.dirty  # back to the saved text
            # a real change, saved
            area.cursor_location = (2, len("title: Our town"))
            await pilot.press(*" (north)")
            await pilot.press("ctrl+s")
            await pilot.pause()
            assert not ed.dirty and "●" not in ed.sub_title
        text = (ws / "town.yaml").read_text(encoding="utf-8")
        assert text == TOWN.replace("title: Our town", "title: Our town (north)")
        assert validate_file(ws / "town.yaml").ok
        assert files.find_recovery(ws / "town.yaml") is None
        assert [p.name for p in ws.iterdir() if p.name.startswith(".")] == []  # no temporary files left
    run(scenario())


def test_next_problem_and_errors_in_the_parent(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            area = ed.text_area
            area.cursor_location = (1, len("extends: town-root"))
            await pilot.press(*"x")  # extends: town-rootx -> no such parent
            ed = await editor_ready(pilot)
            (d,) = ed.validation.diagnostics
            assert (d.line, d.col) == (2, len("extends: ") + 1) and "cannot find parent" in d.message
            area.cursor_location = (0, 0)
            await pilot.press("ctrl+g")
            assert area.cursor_location == (1, len("extends: "))
    run(scenario())


def test_picker_inserts_a_setting_name_replacing_the_typed_prefix(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            area = ed.text_area
            area.cursor_location = (5, len("  filler_rank: null"))
            await pilot.press("enter", *"sweep_m")
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen), what="picker")
            picker = app.screen
            assert picker.query_one("#picker-input").value == "sweep_m"
            assert picker.shown[0].label == "sweep_multiplier"
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            # a setting name where a key goes: `name: <the parent's value>`, its sentence above it (issue 15)
            assert area.document.get_line(6) == "  # The sweep multiplies the score."
            assert area.document.get_line(7) == "  sweep_multiplier: 2"
            ed = await editor_ready(pilot)
            assert ed.validation.ok, ed.validation.diagnostics
            assert ed.validation.resolved.settings["sweep_multiplier"].origin.line == 8
            # inside an expression the bare name goes in
            area.cursor_location = (REQUIRE_LINE + 1, len(TOWN.splitlines()[REQUIRE_LINE - 1]) - 1)
            await pilot.press(*" or gouji_mi", "ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen), what="picker")
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert area.document.get_line(REQUIRE_LINE + 1).endswith(' or gouji_minimum"')
    run(scenario())


def test_picker_offers_the_parent_settings_before_the_text_first_loads(ws: Path):
    """A new file (``gouji edit new.yaml``): `settings:` with nothing under it does not load yet, and
    Ctrl+N on its first line still offers the parent's settings, inserted as `name: value`."""
    async def scenario():
        app = make_app(ws, "mine.yaml")  # does not exist
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            area = ed.text_area
            assert ed.text == "ruleset: mine\n"  # a new file starts with its name
            area.cursor_location = (1, 0)
            area.insert("extends: town\nsettings:\n  sweep_m")
            await wait_for(pilot, lambda: ed.generation > 0, what="the edit seen")
            ed = await editor_ready(pilot)
            assert not ed.validation.ok  # `settings:` with nothing under it yet
            await pilot.press("ctrl+n")
            await wait_for(pilot, lambda: isinstance(app.screen, PickerScreen), what="picker")
            assert [i.label for i in app.screen.shown][:1] == ["sweep_multiplier"]
            await pilot.press("enter")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert area.document.get_line(4) == "  sweep_multiplier: 2"
            ed = await editor_ready(pilot)
            assert ed.validation.ok, ed.validation.diagnostics
    run(scenario())


def test_toggle_comment_and_side_panel_views(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            area = ed.text_area
            area.cursor_location = (5, 0)
            await pilot.press("ctrl+t")
            assert area.document.get_line(5) == "  # filler_rank: null"
            await pilot.press("ctrl+t")
            assert area.document.get_line(5) == "  filler_rank: null"
            await editor_ready(pilot)
            panel = ed.query_one("#side")
            assert panel.view == "resolved"
            resolved = ed.query_one("#resolved-tree")
            labels = [str(n.label) for n in resolved.root.children[2].children]  # Settings
            assert "gouji_minimum = {T: 5, J: 4, Q: 3, K: 2, A: 2, '2': 2}  town.yaml:5" in labels
            assert "filler_rank = null  town.yaml:6" in labels
            assert any(lbl.startswith("ranks = ") and "town-root.yaml:7" in lbl for lbl in labels)
            await pilot.press("f2")
            assert panel.view == "graph"
            graph = ed.query_one("#graph-tree")
            rules = [str(r.label) for p in graph.root.children[1:] for r in p.children]
            assert any("⟲ pass.no-reentry" in r and "overrides town-root.yaml" in r for r in rules)
            await pilot.press("f3")
            assert not panel.display
    run(scenario())


# ------------------------------------------------------------------------------ new variant
def test_new_variant_of_online(tmp_path: Path):
    ws = tmp_path / "rules"  # does not exist yet: created with the first variant

    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            home = await home_ready(pilot)
            table = home.query_one("DataTable")
            table.move_cursor(row=table.get_row_index(str(finding.ruleset_path("online"))))
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewVariantScreen), what="new variant")
            dialog = app.screen
            assert dialog.chosen_parent() == "online"
            name = dialog.query_one("#name")
            name.value = ""
            await pilot.press(*"Bad Name")
            assert dialog.problem() is not None and dialog.query_one("#create").disabled
            name.value = ""
            await pilot.press(*"online-town", "enter")
            ed = await editor_ready(pilot)
            assert ed.path == ws / "online-town.yaml"
            assert ed.validation.ok, ed.validation.diagnostics
            assert not ed.read_only and not ed.dirty
        text = (ws / "online-town.yaml").read_text(encoding="utf-8")
        first = text.splitlines()[0]
        assert first.startswith("# yaml-language-server: $schema=")
        schema = Path(first.split("=", 1)[1])
        target = (schema if schema.is_absolute() else (ws / schema)).resolve()
        # the bundled schema itself (source checkout) or a copy beside the file (installed package)
        assert target.read_bytes() == resources.schema_path().read_bytes()
        raw = checking.load_file(ws / "online-town.yaml")
        assert raw.data["ruleset"] == "online-town" and raw.data["extends"] == "online"
        assert raw.data["rules"] == [] and "settings" not in raw.data  # the skeleton is commented out
        for name in COMMON_SETTINGS:
            assert f"#   {name}:" in text
    run(scenario())


@pytest.mark.parametrize("parent", finding.list_bundled())
def test_skeleton_is_valid_and_uncommenting_it_keeps_the_parent_values(parent: str, tmp_path: Path):
    path = tmp_path / "v.yaml"
    resolved = resolving.resolve(parent)
    text = variant_text("v", parent, path, parent_resolved=resolved)
    path.write_text(text, encoding="utf-8")
    assert validate_file(path).ok
    # uncomment `settings:` and every setting line: the values are the parent's, so nothing changes
    lines = text.splitlines()
    start = lines.index("# settings:")
    end = lines.index("", start)
    lines[start:end] = [ln[2:] for ln in lines[start:end]]
    v = validate_text("\n".join(lines) + "\n", path)
    assert v.ok, v.diagnostics
    for name in COMMON_SETTINGS:
        if name in resolved.settings:
            assert v.resolved.settings[name].value == resolved.settings[name].value
            assert v.resolved.settings[name].origin.path == str(path)


# ------------------------------------------------------------------------------ safety
def test_unsaved_changes_guard_on_close_and_quit(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (2, len("title: Our town"))
            await pilot.press(*"!!")
            await pilot.press("ctrl+b")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="close question")
            await pilot.press("c")  # cancel: still editing, text intact
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert ed.dirty and "Our town!!" in ed.text
            await pilot.press("ctrl+q")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="quit question")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert app.is_running
            await pilot.press("ctrl+b", "s")  # save and close
            await wait_for(pilot, lambda: isinstance(app.screen, HomeScreen), what="home")
            assert "title: Our town!!" in (ws / "town.yaml").read_text(encoding="utf-8")
            home = app.screen  # lists the saved file again
            await wait_for(pilot, lambda: home.entries[str(ws / "town.yaml")].title == "Our town!!",
                           what="home refreshed")
        # quit and discard: the file keeps its text and no recovery copy is left
        app2 = make_app(ws, "town.yaml")
        async with app2.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (0, 0)
            await pilot.press(*"# ")
            await pilot.press("ctrl+q", "d")
            await wait_for(pilot, lambda: not app2.is_running, what="exit")
        assert (ws / "town.yaml").read_text(encoding="utf-8").startswith("ruleset: town\n")
        assert files.find_recovery(ws / "town.yaml") is None
    run(scenario())


def test_refuses_to_overwrite_a_file_changed_on_disk(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (2, len("title: Our town"))
            await pilot.press(*" (mine)")
            (ws / "town.yaml").write_text(TOWN.replace("Our town", "Their town"), encoding="utf-8")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="overwrite question")
            await pilot.press("c")
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert "Their town" in (ws / "town.yaml").read_text(encoding="utf-8") and ed.dirty
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="overwrite question")
            await pilot.press("o")
            await wait_for(pilot, lambda: not ed.dirty, what="saved")
        assert "title: Our town (mine)" in (ws / "town.yaml").read_text(encoding="utf-8")
    run(scenario())


# ------------------------------------------------------------------------------ saves that cannot simply replace
def _notes(app) -> list[str]:
    return [f"{n.title}: {n.message}" for n in notes(app)]


async def _edit_title(pilot, ed, words: str = " (mine)") -> None:
    ed.text_area.cursor_location = (2, len("title: Our town"))
    await pilot.press(*words)


def test_saving_through_a_symlink_writes_the_target_and_keeps_the_link(ws: Path):
    """Issue 22.8: the save replaced the link with a plain file (the target kept the old text).
    A chain of two links and a link into another folder: each writes its final target."""
    other = ws.parent / "elsewhere"
    other.mkdir()
    (other / "real.yaml").write_text(TOWN, encoding="utf-8")
    os.symlink(other / "real.yaml", ws / "hop.yaml")
    os.symlink("hop.yaml", ws / "link.yaml")  # relative, to a link

    async def scenario():
        app = make_app(ws, "link.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            await _edit_title(pilot, ed)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: not ed.dirty, what="saved")
        assert (ws / "link.yaml").is_symlink() and os.readlink(ws / "link.yaml") == "hop.yaml"
        assert (ws / "hop.yaml").is_symlink()
        assert "title: Our town (mine)" in (other / "real.yaml").read_text(encoding="utf-8")
        assert sorted(p.name for p in other.iterdir()) == ["real.yaml"]  # no temporary left beside the target
    run(scenario())


def test_saving_through_a_dangling_link_creates_its_target_and_a_looping_link_is_refused(tmp_path: Path):
    os.symlink(tmp_path / "new.yaml", tmp_path / "dangling.yaml")
    assert files.save_target(tmp_path / "dangling.yaml") == (tmp_path / "new.yaml").resolve()
    files.save_text(tmp_path / "dangling.yaml", "ruleset: x\n")
    assert (tmp_path / "dangling.yaml").is_symlink() and (tmp_path / "new.yaml").read_text() == "ruleset: x\n"
    os.symlink("loop.yaml", tmp_path / "loop.yaml")
    with pytest.raises(files.SaveProblem, match="cannot be followed"):
        files.save_text(tmp_path / "loop.yaml", "x")
    (tmp_path / "dir.yaml").mkdir()
    with pytest.raises(files.SaveProblem, match="is now a folder"):
        files.save_text(tmp_path / "dir.yaml", "x")


def test_a_full_disk_keeps_the_text_in_the_buffer_and_in_a_recovery_copy(ws: Path, monkeypatch):
    """ENOSPC while saving: nothing changes on disk but the recovery copy; the editor says so."""
    import errno
    real = files.atomic_write
    target = (ws / "town.yaml").resolve()

    def full(path, text, **kw):
        if Path(path).resolve() == target:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return real(path, text, **kw)
    monkeypatch.setattr(files, "atomic_write", full)

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            await _edit_title(pilot, ed)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any("Not saved" in n for n in _notes(app)), what="the message")
            note = next(n for n in _notes(app) if "Not saved" in n)
            assert os.strerror(errno.ENOSPC) in note and "Your text is kept here and in" in note
            assert ed.dirty and "title: Our town (mine)" in ed.text
            rec = files.find_recovery(ws / "town.yaml")
            assert rec is not None and rec.text == ed.text and rec.path.name in note
            assert app.is_running
        assert (ws / "town.yaml").read_text(encoding="utf-8") == TOWN
    run(scenario())


def test_a_read_only_file_asks_before_it_is_overwritten(ws: Path):
    path = ws / "town.yaml"
    os.chmod(path, 0o444)

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            await _edit_title(pilot, ed)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the read-only question")
            assert "is read-only" in app.screen.question
            await pilot.press("c")  # cancel: nothing written, the text kept
            await wait_for(pilot, lambda: app.screen is ed, what="back in the editor")
            assert path.read_text(encoding="utf-8") == TOWN and ed.dirty
            assert files.find_recovery(path).text == ed.text
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, ConfirmScreen), what="the read-only question")
            await pilot.press("o")
            await wait_for(pilot, lambda: not ed.dirty, what="saved")
        assert "title: Our town (mine)" in path.read_text(encoding="utf-8")
        assert stat.S_IMODE(path.stat().st_mode) == 0o444  # still read-only
    run(scenario())


def test_the_file_turning_into_a_folder_is_a_message_not_an_exit(ws: Path):
    path = ws / "town.yaml"

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            await _edit_title(pilot, ed)
            path.unlink()
            path.mkdir()
            ed._tick()  # the disk watch (every RECOVERY_INTERVAL s) sees it
            assert ed._disk_warned
            await wait_for(pilot, lambda: any("is now a folder" in n for n in _notes(app)), what="the warning")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any("Not saved" in n for n in _notes(app)), what="the message")
            assert any("is now a folder" in n for n in _notes(app))
            assert app.is_running and app.screen is ed and ed.dirty
            assert files.find_recovery(path).text == ed.text
        assert path.is_dir()
    run(scenario())


def test_ctrl_s_right_after_typing_reports_the_check_of_the_saved_text(ws: Path, monkeypatch):
    """Issue 22.24: a save within the typing pause said "(with problems)" of a valid file (the
    check of the text before the last key was the one reported). Here the pause is a minute long,
    so the check of each saved text is the one the save itself starts."""
    from gouji_app.screens import editor as editor_module

    def saved() -> list[str]:
        return [n for n in _notes(app) if "Saved" in n]

    app = make_app(ws, "town.yaml")

    async def scenario():
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            monkeypatch.setattr(editor_module, "VALIDATE_DELAY", 60.0)
            ed.text_area.cursor_location = (REQUIRE_LINE - 1, DONE_COL - 1 + len("done"))
            await pilot.press("x", "ctrl+s")  # an unknown name, saved before it is checked
            await wait_for(pilot, lambda: len(saved()) == 1, what="the saved message")
            assert saved() == [f": Saved {ed.display_name} (with problems)."]
            assert not ed.validation.ok and not ed.dirty
            await pilot.press("backspace", "ctrl+s")  # fixed, saved before it is checked
            await wait_for(pilot, lambda: len(saved()) == 2, what="saved again")
            assert saved()[-1] == f": Saved {ed.display_name} (valid)."
            assert ed.validation.ok and ed.is_validated
    run(scenario())


def test_ctrl_s_in_the_same_burst_as_the_typing_reports_the_check_of_the_saved_text(ws: Path):
    """Issue 22.24 (follow-up): keys and Ctrl+S arriving at once (tmux send-keys 'x' C-s, a fast
    typist on a loaded machine) saved the text with every key in it, but the save was handled before
    the editor had seen the text change of the last keys, so the message gave up waiting and said
    only "Saved FILE." of a file with problems. It waits for the check of the text it saved."""
    from textual import events

    def saved() -> list[str]:
        return [n for n in _notes(app) if "Saved" in n]

    app = make_app(ws, "town.yaml")

    async def scenario():
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (REQUIRE_LINE - 1, DONE_COL - 1 + len("done"))
            for key, char in (("x", "x"), ("ctrl+s", None)):
                app.post_message(events.Key(key, char))  # all queued before the app handles the first
            await wait_for(pilot, lambda: len(saved()) == 1, what="the saved message")
            assert saved() == [f": Saved {ed.display_name} (with problems)."]
            assert not ed.validation.ok and not ed.dirty
            for key, char in (("backspace", None), ("ctrl+s", None)):
                app.post_message(events.Key(key, char))
            await wait_for(pilot, lambda: len(saved()) == 2, what="saved again")
            assert saved()[-1] == f": Saved {ed.display_name} (valid)."
    run(scenario())


def test_recovery_copy_is_written_while_dirty_and_offered_after_a_crash(ws: Path):
    path = ws / "town.yaml"

    async def crash():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (2, len("title: Our town"))
            await pilot.press(*" (lost?)")
            def copied() -> bool:
                rec = files.find_recovery(path)
                return rec is not None and "Our town (lost?)" in rec.text
            await wait_for(pilot, copied, what="the recovery copy")
            assert files.find_recovery(path).path == path.with_name("town.yaml.recovery")
            app.exit()  # leaves without asking, like a crash: the copy stays

    async def reopen():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="recovery question")
            diff = str(app.screen.query_one("#recovery-diff Static").render())
            assert "-title: Our town\n" in diff and "+title: Our town (lost?)" in diff  # a preview of the change
            detail = str(app.screen.query_one(".dialog-detail").render())
            assert "1 line added, 1 removed" in detail  # one edited line, not "2 changed lines"
            await pilot.press("r")
            ed = await editor_ready(pilot)
            assert "title: Our town (lost?)" in ed.text and ed.dirty
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: not ed.dirty, what="saved")
        assert "title: Our town (lost?)" in path.read_text(encoding="utf-8")
        assert files.find_recovery(path) is None

    run(crash())
    assert path.read_text(encoding="utf-8") == TOWN  # never saved
    run(reopen())


def test_recovery_later_never_overwrites_the_kept_text(ws: Path):
    """Issue 15 fix 1: Later keeps the copy; the next session's edits go to a copy of their own; both are
    offered next time, each with its diff, until restored or discarded."""
    path = ws / "town.yaml"
    first = path.with_name("town.yaml.recovery")
    files.write_recovery(path, TOWN.replace("Our town", "Our town (lost?)"), first)

    async def later_then_type_and_crash():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="recovery question")
            await pilot.press("escape")  # Later
            ed = await editor_ready(pilot)
            assert not ed.dirty
            ed.text_area.cursor_location = (0, 0)
            await pilot.press("#")
            second = path.with_name("town.yaml.2.recovery")
            await wait_for(pilot, lambda: second.exists() and second.read_text(encoding="utf-8").startswith("#"),
                           what="the editor's own copy")
            assert "Our town (lost?)" in first.read_text(encoding="utf-8")  # the kept text is untouched
            app.exit()

    async def both_offered():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="recovery question")
            dialog = app.screen
            assert dialog.position == (1, 2)
            # at 80x24 the dialog keeps its title and its buttons on screen
            box = dialog.query_one(".recovery")
            assert box.region.y >= 0 and box.region.bottom <= 24
            for b in dialog.query("Button"):
                assert b.region.height == 1 and box.region.contains_region(b.region)
            await pilot.press("d")  # the newest: the stray '#'
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen) and app.screen is not dialog,
                           what="the second copy")
            assert app.screen.position == (2, 2)
            await pilot.press("r")
            ed = await editor_ready(pilot)
            assert "Our town (lost?)" in ed.text and not ed.text.startswith("#")
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: not ed.dirty, what="saved")
        assert files.find_recoveries(path) == []

    run(later_then_type_and_crash())
    run(both_offered())


def test_f6_offers_the_kept_text_again_while_typing(ws: Path):
    """F6 in the editor (the text area focused) offers a copy kept with Later again: the text area's
    own F6 (select the line) must not take the key first."""
    path = ws / "town.yaml"
    files.write_recovery(path, TOWN.replace("Our town", "Our town (lost?)"), path.with_name("town.yaml.recovery"))

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="recovery question")
            await pilot.press("escape")  # Later
            ed = await editor_ready(pilot)
            assert ed.text_area.has_focus
            await pilot.press("f6")
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="the kept text offered again")
            await pilot.press("r")
            ed = await editor_ready(pilot)
            assert "Our town (lost?)" in ed.text

    run(scenario())


def test_the_copy_of_an_editor_still_open_is_not_offered_as_left_by_a_crash(ws: Path):
    """Two terminals on one file: the second editor leaves the first one's live copy alone (no
    "did not close normally", no Discard of it); once the first one is gone, F6 offers it."""
    path = ws / "town.yaml"
    copy = path.with_name("town.yaml.recovery")
    files.write_recovery(path, TOWN.replace("Our town", "Our town (still open)"), copy)
    live = files.CopyLock(copy)  # the first editor, still running
    assert files.copy_in_use(copy)

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            assert not isinstance(app.screen, RecoveryScreen) and ed.pending_recoveries() == []
            live.release()  # the first editor is gone (closed or crashed)
            await pilot.press("f6")
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="the copy offered")
            await pilot.press("escape")

    try:
        run(scenario())
    finally:
        live.release()
    assert copy.exists()


def test_recovery_identical_to_the_file_is_dropped_silently(ws: Path):
    path = ws / "town.yaml"
    files.write_recovery(path, TOWN)

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            await editor_ready(pilot)
            assert not any(isinstance(s, ConfirmScreen) for s in app.screen_stack)
    run(scenario())
    assert files.find_recovery(path) is None


def test_bundled_rulesets_open_read_only_with_save_as_variant(tmp_path: Path):
    async def scenario():
        app = GoujiApp(workspace=tmp_path / "rules", open_path=finding.ruleset_path("online"), cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            assert ed.read_only and "read-only" in ed.sub_title
            before = ed.text
            await pilot.press(*"abc")
            assert ed.text == before and not ed.dirty
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: isinstance(app.screen, NewVariantScreen), what="new variant")
            assert app.screen.chosen_parent() == "online"
    run(scenario())


def test_home_lists_bundled_and_workspace_rulesets_with_state(ws: Path):
    (ws / "broken.yaml").write_text("ruleset: broken\nextends: nowhere\n", encoding="utf-8")

    async def scenario():
        app = make_app(ws)
        async with app.run_test(size=SIZE) as pilot:
            home = await home_ready(pilot)
            by_name = {e.name: e for e in home.entries.values()}
            for name in finding.list_bundled():
                assert by_name[name].read_only and by_name[name].bundled
            assert by_name["town"].status == "valid" and by_name["town"].chain == ("town-root",)
            assert by_name["town"].title == "Our town" and not by_name["town"].read_only
            broken = by_name["broken"]
            assert broken.status == "invalid" and "cannot find parent" in broken.problems[0].message
    run(scenario())


def test_every_binding_is_a_palette_command(ws: Path):
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            titles = {c.title for c in app.get_system_commands(ed)}
            shown = {b.description for b in EditorScreen.BINDINGS if b.show}
            assert shown <= titles, shown - titles
            await pilot.press("f1")
            await wait_for(pilot, lambda: type(app.screen).__name__ == "HelpScreen", what="help")
            await pilot.press("escape")
            await wait_for(pilot, lambda: app.screen is ed, what="back")
    run(scenario())


# ------------------------------------------------------------------------------ pieces
def test_atomic_write_keeps_mode_and_leaves_no_temporary(tmp_path: Path):
    p = tmp_path / "f.yaml"
    p.write_text("old", encoding="utf-8")
    os.chmod(p, 0o640)
    files.atomic_write(p, "new ✓")
    assert p.read_text(encoding="utf-8") == "new ✓"
    assert stat.S_IMODE(p.stat().st_mode) == 0o640
    assert [x.name for x in tmp_path.iterdir()] == ["f.yaml"]
    state = files.DiskState.of(p)
    assert not state.changed_on_disk(p)
    p.write_text("other", encoding="utf-8")
    assert state.changed_on_disk(p)


def test_completion_helpers():
    assert word_before("  on: fol", 9) == "fol"
    assert word_before("when: top.gou", 13) == "top.gou"
    assert replacement("top.gou", "gouji") == 3
    assert replacement("gouji.mi", "gouji.minimum") == 8
    assert replacement("xyz", "gouji") == 0
    assert indent_for("- id: a\n  on: b", 2) == "- id: a\n    on: b"
    items = items_for(resolving.resolve("online"))
    kinds = {i.kind for i in items}
    assert {"setting", "rule", "hook", "function", "key", "rule key"} <= kinds
    assert Item in {type(i) for i in items}
    assert any(i.kind == "key" and i.label == "extends" and i.help for i in items)


def test_gouji_command_keeps_library_commands_and_adds_edit(ws: Path, monkeypatch):
    calls = []
    monkeypatch.setattr(editor_cli, "run_app", lambda workspace=None, open_path=None: calls.append((workspace, open_path)))
    runner = CliRunner()
    res = runner.invoke(editor_cli.gouji, ["validate", str(ws / "town.yaml")])
    assert res.exit_code == 0 and "ok" in res.output
    res = runner.invoke(editor_cli.gouji, ["--workspace", str(ws)])
    assert res.exit_code == 0 and calls[-1] == (ws, None)
    res = runner.invoke(editor_cli.gouji, ["edit", str(ws / "town.yaml")])
    assert res.exit_code == 0 and calls[-1] == (ws, ws / "town.yaml")
    res = runner.invoke(editor_cli.gouji, ["--help"])
    assert "edit" in res.output and "validate" in res.output


# ------------------------------------------------------------------------------ snapshots
@pytest.fixture
def snapshot_world(tmp_path: Path, monkeypatch) -> Path:
    """A fixed world for snapshots: the 'bundled' folder holds town-root only, the workspace town;
    the current folder is tmp_path so paths show as rules/..."""
    bundled = tmp_path / "bundled"
    bundled.mkdir()
    (bundled / "town-root.yaml").write_text(ROOT, encoding="utf-8")
    monkeypatch.setattr(resources, "rules_dir", lambda: bundled)
    folder = tmp_path / "rules"
    folder.mkdir()
    (folder / "town.yaml").write_text(TOWN, encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    return folder


def test_snapshot_home(snapshot_world: Path, snap_compare):
    async def ready(pilot):
        await home_ready(pilot)

    assert snap_compare(GoujiApp(workspace=Path("rules"), cursor_blink=False), terminal_size=SIZE,
                        run_before=ready)


def test_snapshot_editor_with_an_error(snapshot_world: Path, snap_compare):
    async def typed(pilot):
        ed = await editor_ready(pilot)
        ed.text_area.cursor_location = (REQUIRE_LINE - 1, DONE_COL - 1 + len("done"))
        await pilot.press("x")
        await editor_ready(pilot)
        await pilot.pause()

    app = GoujiApp(workspace=Path("rules"), open_path=Path("rules/town.yaml"), cursor_blink=False)
    assert snap_compare(app, terminal_size=SIZE, run_before=typed)


def test_snapshot_editor_graph_view_80x24(snapshot_world: Path, snap_compare):
    async def graph(pilot):
        await editor_ready(pilot)
        await pilot.press("f2")
        await pilot.pause()
        await footer_settled(pilot)

    app = GoujiApp(workspace=Path("rules"), open_path=Path("rules/town.yaml"), cursor_blink=False)
    assert snap_compare(app, terminal_size=(80, 24), run_before=graph)


def test_the_editors_footer_at_80_columns_leaves_out_whole_keys_rather_than_cut_one(ws: Path):
    """The editor's keys do not fit 80 columns even compact: the last one was cut to "f4 Varia" (a fresh
    tester's finding); now the keys the screen can spare (FOOTER_SPARE: ^t, ^l, f4; F1 and ctrl+p list
    them all) are left out whole, so that ^b and the ctrl+p key stay, and a wider terminal shows every
    key again."""
    from gouji_app.widgets.footer import FittingFooter

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=(80, 24)) as pilot:
            await editor_ready(pilot)
            await footer_settled(pilot)
            footer = app.screen.query_one(FittingFooter)
            shown = [c for c in footer.children if c.display]
            actions = {getattr(c, "action", None) for c in shown}
            assert footer.compact and footer.show_command_palette and {"close", "save", "app.help"} <= actions
            assert "toggle_comment" not in actions and all(c.region.right <= footer.region.right for c in shown)
            await pilot.resize_terminal(200, 40)
            await footer_settled(pilot)
            footer = app.screen.query_one(FittingFooter)
            assert all(c.display for c in footer.children) and not footer.compact
            assert {"toggle_comment", "focus_problems", "new_variant"} <= {getattr(c, "action", None) for c in footer.children}

    run(scenario())


def test_a_warning_shows_in_the_status_not_valid(ws: Path):
    """Issue 15 fix 7: a misspelt setting is only a warning, but the status says so (not "✓ valid")."""
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            assert str(ed.query_one("#status").render()).startswith("✓ valid")
            ed.text_area.cursor_location = (5, len("  filler_rank: null"))
            await pilot.press("enter", *"swep_multiplier: 3")
            ed = await editor_ready(pilot)
            assert ed.validation.ok and [d.severity for d in ed.validation.diagnostics] == ["warning"]
            status = str(ed.query_one("#status").render())
            assert status.startswith("▲ 1 warning") and "valid" not in status, status
            assert list(ed.text_area.marks) == [6] and ed.text_area.marks[6][0] == "warning"
    run(scenario())


def test_keys_sent_in_a_burst_keep_their_order(ws: Path):
    """Issue 15 fix 6: Down, End, Q arriving at once (a loaded machine, tmux send-keys) append Q to the
    next line's end: the cursor keys are not overtaken by the character typed after them."""
    from textual import events

    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            ed.text_area.cursor_location = (3, 0)  # `settings:`; the next line is `  gouji_minimum: ...`
            for key, char in (("down", None), ("end", None), ("Q", "Q"), ("home", None), ("ctrl+t", None)):
                app.post_message(events.Key(key, char))  # all queued before the app handles the first
            await wait_for(pilot, lambda: ed.text_area.document.get_line(4).lstrip().startswith("#"),
                           what="the burst handled")
            assert ed.text_area.document.get_line(4) == '  # gouji_minimum: {"2": 2}Q'
    run(scenario())


def test_ctrl_home_and_ctrl_end_go_to_the_start_and_end_of_the_file(ws: Path):
    """Ctrl+End then typing appends at the end of the file (a new file starts with `ruleset: NAME`,
    and text typed after Ctrl+End must go below it); Ctrl+Home goes back; with Shift they select."""
    async def scenario():
        app = make_app(ws, "town.yaml")
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            area = ed.text_area
            area.cursor_location = (2, 3)
            await pilot.press("ctrl+end", "X")
            last = area.document.line_count - 1
            assert area.document.get_line(last) == "X"  # TOWN ends with a newline: the empty last line
            await pilot.press("ctrl+home", "Y")
            assert area.document.get_line(0) == "Y" + TOWN.splitlines()[0]
            await pilot.press("ctrl+shift+end")
            assert area.selected_text == area.text[1:]
    run(scenario())


def test_home_end_and_home_keys_move_to_the_last_and_first_ruleset(ws: Path):
    async def scenario():
        app = make_app(ws)
        async with app.run_test(size=SIZE) as pilot:
            home = await home_ready(pilot)
            table = home.query_one("DataTable")
            await pilot.press("end")
            assert table.cursor_row == table.row_count - 1 and home.current().path == home.workspace.workspace_files()[-1]
            await pilot.press("home")
            assert table.cursor_row == 0
    run(scenario())


def test_a_failed_save_names_the_file_escaped(ws: Path, monkeypatch):
    """The message of a failed save names the file with its control characters escaped and its
    brackets shown as they are (the name was Textual markup: `[b]` made it bold, a closing tag that
    matches none is a MarkupError)."""
    import errno
    name = "town[b]\x1b[31m.yaml"
    (ws / name).write_text(TOWN, encoding="utf-8")
    real = files.atomic_write
    target = (ws / name).resolve()

    def failing(path, text, **kw):
        if Path(path).resolve() == target:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return real(path, text, **kw)
    monkeypatch.setattr(files, "atomic_write", failing)

    async def scenario():
        app = make_app(ws, name)
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            await _edit_title(pilot, ed)
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any("Not saved" in n for n in _notes(app)), what="the message")
            note = next(n for n in _notes(app) if "Not saved" in n)
            assert "town[b]\\x1b[31m.yaml" in note and "\x1b" not in note and os.strerror(errno.EIO) in note
            assert not next(n for n in notes(app) if "Not saved" in n.title).markup
            assert app.is_running
    run(scenario())


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes here")
def test_opening_a_named_pipe_is_refused_without_waiting(ws: Path):
    """The editor read a named pipe until a writer came (the app froze): files are read by the one
    reader of a user's file (gouji_dsl.readfile), which refuses what is not a regular file."""
    os.mkfifo(ws / "pipe.yaml")

    async def scenario():
        app = make_app(ws, "pipe.yaml")
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: any("Cannot open" in n for n in _notes(app)), what="the refusal")
            note = next(n for n in _notes(app) if "Cannot open" in n)
            assert "pipe.yaml" in note and "a named pipe" in note and app.is_running
    run(scenario())


ODD_NAME = "town[b]x[@click=app.quit]q\x1b[31m.yaml"
"""A file name that is Textual markup (bold, a link that quits; a closing tag such as ``[/]``, a
MarkupError, cannot be in a file name: a ruleset's name holds it in tests/test_play.py) and holds a
control character (issue 22: names from files are shown escaped)."""
ODD_SHOWN = "town[b]x[@click=app.quit]q\\x1b[31m.yaml"


def test_a_file_named_as_markup_is_shown_literally_in_the_editor_and_its_recovery(ws: Path):
    """Open, edit, save a ruleset named with `[b]`, `[/]` and ESC: no crash, the name shown as it is
    with the control character escaped (the border title, the save message, the recovery dialog)."""
    path = ws / ODD_NAME
    path.write_text(TOWN, encoding="utf-8")

    async def edit_save_and_leave_a_copy():
        app = make_app(ws, ODD_NAME)
        async with app.run_test(size=SIZE) as pilot:
            ed = await editor_ready(pilot)
            assert ed.text_area._border_title.plain.endswith(f"/{ODD_SHOWN}")
            await _edit_title(pilot, ed)
            await wait_for(pilot, lambda: ed.text_area._border_title.plain.startswith("● "), what="the modified title")
            assert "\x1b" not in ed.sub_title and ODD_SHOWN in ed.sub_title
            await pilot.press("ctrl+s")
            await wait_for(pilot, lambda: any("Saved" in n for n in _notes(app)), what="the save message")
            assert any(ODD_SHOWN in n for n in _notes(app)) and not any("\x1b" in n for n in _notes(app))
            await _edit_title(pilot, ed, " (lost?)")
            await wait_for(pilot, lambda: "(lost?)" in getattr(files.find_recovery(path), "text", ""),
                           what="the recovery copy")
            assert app.is_running
            app.exit()  # leaves without asking, like a crash: the copy stays

    async def reopen():
        app = make_app(ws, ODD_NAME)
        async with app.run_test(size=SIZE) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, RecoveryScreen), what="recovery question")
            question = str(app.screen.query_one(".dialog-question").render())
            assert f"/{ODD_SHOWN} from" in question and "\x1b" not in question
            assert ODD_SHOWN.replace("town", "") in app.screen.query_one(".recovery")._border_subtitle.plain
            await pilot.press("d")
            await editor_ready(pilot)
            assert app.is_running

    run(edit_save_and_leave_a_copy())
    assert "(mine)" in path.read_text(encoding="utf-8")
    run(reopen())


def test_the_new_variant_dialog_names_a_workspace_folder_named_as_markup_literally(tmp_path: Path):
    """A workspace folder named with `[b]`, a `[@click]` link and ESC: the new-variant dialog's
    "→ creates …" line shows it as it is, the control character escaped (issue 22)."""
    ws = tmp_path / "rules[b]x[@click=app.quit]q\x1b[31m"

    async def scenario():
        app = GoujiApp(workspace=ws, cursor_blink=False)
        async with app.run_test(size=SIZE) as pilot:
            home = await home_ready(pilot)
            table = home.query_one("DataTable")
            table.move_cursor(row=table.get_row_index(str(finding.ruleset_path("online"))))
            await pilot.press("n")
            await wait_for(pilot, lambda: isinstance(app.screen, NewVariantScreen), what="new variant")
            app.screen.query_one("#name").value = ""
            await pilot.press(*"online-town")
            await wait_for(pilot, lambda: "online-town" in str(app.screen.query_one("#target").render()),
                           what="the target line")
            target = str(app.screen.query_one("#target").render())
            assert "rules[b]x[@click=app.quit]q\\x1b[31m" in target and "\x1b" not in target, target
            assert app.is_running
    run(scenario())
