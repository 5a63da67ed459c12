"""The crash report of an internal error (gouji_dsl.tools.cli.save_crash_report): a new file
(O_CREAT | O_EXCL | O_NOFOLLOW, mode 0600) with an unpredictable name, never written through a link
someone planted in the folder; in the shared temporary folder only in a private folder of the user's."""
from __future__ import annotations

import os
import stat
import tempfile
from pathlib import Path

import pytest

from gouji_dsl.tools import cli


def _boom() -> BaseException:
    try:
        raise ZeroDivisionError("boom")
    except ZeroDivisionError as e:
        return e


def _plant_next_name(monkeypatch, name: str) -> None:
    """The next report name is ``name`` (where the test planted a link), the ones after it random."""
    real = cli._crash_report_name
    names = iter([name])
    monkeypatch.setattr(cli, "_crash_report_name", lambda stamp: next(names, None) or real(stamp))


def test_a_report_is_a_new_private_file_with_an_unpredictable_name(monkeypatch, tmp_path):
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(tmp_path))
    a, b = cli.save_crash_report(_boom()), cli.save_crash_report(_boom())
    assert a and b and a != b                                       # the same second, two names
    for p in (Path(a), Path(b)):
        assert p.parent == tmp_path and p.name.startswith("gouji-crash-")
        assert len(p.stem.rsplit("-", 1)[1]) == 16                  # 64 random bits
        st = os.lstat(p)
        assert stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600
        assert "ZeroDivisionError: boom" in p.read_text(encoding="utf-8")


@pytest.mark.parametrize("target_exists", [True, False], ids=["link-to-a-users-file", "link-to-a-missing-file"])
def test_a_planted_link_at_the_reports_name_is_never_followed(monkeypatch, tmp_path, target_exists):
    crashes = tmp_path / "crashes"
    crashes.mkdir()
    target = tmp_path / "home" / ".bashrc"
    target.parent.mkdir()
    if target_exists:
        target.write_text("the user's own text\n", encoding="utf-8")
    planted = "gouji-crash-planted.txt"
    (crashes / planted).symlink_to(target)
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(crashes))
    _plant_next_name(monkeypatch, planted)
    report = cli.save_crash_report(_boom())
    assert report and Path(report).name != planted and Path(report).parent == crashes
    assert not os.path.islink(report) and "ZeroDivisionError" in Path(report).read_text(encoding="utf-8")
    if target_exists:
        assert target.read_text(encoding="utf-8") == "the user's own text\n"
    else:
        assert not target.exists()
    assert os.path.islink(crashes / planted)                          # left as it was


def _use_tmp(monkeypatch, tmp_path: Path, blocked: Path) -> Path:
    """The crash folder cannot be made (a file is in the way): the fallback in the shared temporary
    folder, here ``tmp_path/shared``."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    monkeypatch.setattr(tempfile, "tempdir", str(shared))
    monkeypatch.setenv("GOUJI_CRASH_DIR", str(blocked / "sub"))
    return shared


def test_the_shared_fallback_is_a_private_folder_of_the_user(monkeypatch, tmp_path):
    blocked = tmp_path / "file"
    blocked.write_text("x")
    shared = _use_tmp(monkeypatch, tmp_path, blocked)
    report = Path(cli.save_crash_report(_boom()) or "")
    folder = shared / f"gouji-crashes-{os.getuid()}"
    assert report.parent == folder
    assert stat.S_IMODE(os.lstat(folder).st_mode) == 0o700 and stat.S_IMODE(os.lstat(report).st_mode) == 0o600


@pytest.mark.parametrize("planted", ["link", "foreign", "open-to-all"])
def test_a_planted_shared_folder_is_not_used(monkeypatch, tmp_path, planted):
    """In the shared temporary folder someone else made ``gouji-crashes-UID`` first: a link to a
    folder of theirs (or of the user's), a folder they own, a folder anyone may write in. The report
    goes to a new private folder instead, and the planted one is left as it was."""
    blocked = tmp_path / "file"
    blocked.write_text("x")
    shared = _use_tmp(monkeypatch, tmp_path, blocked)
    folder = shared / f"gouji-crashes-{os.getuid()}"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    if planted == "link":
        folder.symlink_to(elsewhere)
    elif planted == "foreign":
        if os.getuid() != 0:
            pytest.skip("making a folder of another user needs root")
        folder.mkdir()
        os.chown(folder, 65534, 65534)
    else:
        folder.mkdir()
        folder.chmod(0o777)
    report = Path(cli.save_crash_report(_boom()) or "")
    assert report.is_file() and report.parent != folder and report.parent.parent == shared
    assert report.parent.name.startswith(f"gouji-crashes-{os.getuid()}-")
    assert stat.S_IMODE(os.lstat(report.parent).st_mode) == 0o700 and not os.path.islink(report.parent)
    assert list(elsewhere.iterdir()) == []
    if not folder.is_symlink():
        assert list(folder.iterdir()) == []
