"""Issue 11, "Editor": a save killed midway (`kill -9`) leaves a temporary file; the next save (or
open) of that file removes it. Saves of other files, and a save still running, are left alone."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from gouji_dsl.atomic import STALE_TEMP_SECONDS, atomic_write, remove_stale_temp_files, stale_temp_files, temp_name

KILLED_MID_SAVE = """
import os, sys, time
from pathlib import Path
from gouji_dsl.atomic import temp_name
target = Path(sys.argv[1])
tmp = target.parent / temp_name(target)
with open(tmp, "w") as f:
    f.write("half a sa")
    f.flush()
    print(tmp, flush=True)
    time.sleep(60)
"""


def killed_save(target) -> str:
    """A real process that starts a save of ``target`` and is killed with SIGKILL midway."""
    proc = subprocess.Popen([sys.executable, "-c", KILLED_MID_SAVE, str(target)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None
    tmp = proc.stdout.readline().strip()   # event-driven: the temp file exists once this line arrives
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    return tmp


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_the_next_save_removes_the_temp_file_of_a_killed_save(tmp_path):
    target = tmp_path / "house.yaml"
    target.write_text("ruleset: house\n")
    tmp = killed_save(target)
    assert os.path.exists(tmp) and os.path.basename(tmp).startswith(".house.yaml.gouji-")
    assert target.read_text() == "ruleset: house\n"          # the kill changed nothing
    atomic_write(target, "ruleset: house\nextends: online\n")
    assert not os.path.exists(tmp)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["house.yaml"]


def test_old_leftovers_go_but_other_files_and_live_saves_stay(tmp_path):
    target = tmp_path / "house.yaml"
    target.write_text("x")
    old = tmp_path / ".house.yaml.k2j4h5g6.tmp"                 # an older gouji's mkstemp name
    old.write_text("old")
    past = time.time() - STALE_TEMP_SECONDS - 5
    os.utime(old, (past, past))
    live = tmp_path / temp_name(target)                         # this process is saving right now
    live.write_text("in progress")
    other = tmp_path / ".other.yaml.k2j4h5g6.tmp"               # another file's leftover: not ours to judge
    other.write_text("o")
    os.utime(other, (past, past))
    mine = tmp_path / "notes.tmp"
    mine.write_text("a user's own file")
    assert stale_temp_files(target) == [old]
    assert remove_stale_temp_files(target) == [old]
    assert live.exists() and other.exists() and mine.exists()


def test_the_editor_removes_leftovers_when_it_opens_the_file(tmp_path):
    pytest.importorskip("textual")
    from gouji_app import files
    target = tmp_path / "house.yaml"
    target.write_text("ruleset: house\n")
    gone = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    dead = tmp_path / f".house.yaml.gouji-{int(gone.stdout)}-0badc0de.tmp"   # a process that has ended
    dead.write_text("half")
    text, _ = files.read_text(target)
    assert text == "ruleset: house\n" and not dead.exists()
