"""``gouji serve`` in a real browser: start the server, open the address it prints in headless
Chromium (Debian's /usr/bin/chromium driven by Playwright; no browser download), wait for the home
screen, open a ruleset with the first key typed (no click: the terminal takes the keyboard on load)
and a test-play with keys, check the terminal's output on the websocket and a screenshot, then stop
the server.

Needs the web extra (textual-serve), the playwright package and Chromium; .ci/run installs all three.
Outside CI the test is skipped when one is missing; in CI (CI=true) that is a failure.
"""
from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gouji_app.web import app_command, make_server

CHROMIUM = os.environ.get("GOUJI_CHROMIUM", "/usr/bin/chromium")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync"]
HANG_GUARD_MS = 300_000  # a wait this long is a hang, not a slow machine


def _missing() -> str | None:
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed"
    try:
        import textual_serve  # noqa: F401
    except ImportError:
        return "textual-serve (the web extra) is not installed"
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        return f"Chromium is not installed ({CHROMIUM})"
    return None


def _need_browser() -> None:
    why = _missing()
    if why is None:
        return
    if os.environ.get("CI"):
        pytest.fail(f"the browser test cannot run in CI: {why} (.ci/run installs it)")
    pytest.skip(why)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_address(proc: subprocess.Popen) -> str:
    """The address ``gouji serve`` prints when it listens (its first line: ``gouji serve: open URL``)."""
    assert proc.stdout is not None
    line = proc.stdout.readline()  # bounded: the server prints it on start, or exits (end of file)
    if not line.startswith("gouji serve: open "):
        proc.wait(timeout=30)
        raise AssertionError(f"gouji serve exited with {proc.returncode}: {line}{proc.stdout.read()}")
    return line.split("open ", 1)[1].strip()


def test_serve_command_and_page_template():
    """The server runs this Python's gouji app per tab, with gouji's page template."""
    pytest.importorskip("textual_serve")
    server = make_server("127.0.0.1", 8123, workspace="rules")
    assert server.command == app_command("rules")
    assert server.command.startswith(sys.executable.replace(" ", "\\ ")) or sys.executable in server.command
    assert " -m gouji_app --workspace " in server.command
    page = (Path(server.templates_path) / "app_index.html").read_text(encoding="utf-8")
    assert "fonts.googleapis" not in page and "RobotoMono-VariableFont_wght.ttf" in page  # no outside font service
    assert "Noto Sans CJK" in page                                                         # the CJK fonts it needs


def test_gouji_serve_in_headless_chromium(tmp_path: Path):
    _need_browser()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    workspace = tmp_path / "rules"
    proc = subprocess.Popen([sys.executable, "-m", "gouji_app", "serve", "--host", "127.0.0.1", "--port", str(port), "--max-apps", "1",
                             "--workspace", str(workspace)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, start_new_session=True)
    frames: list[str] = []

    def seen(*words: str) -> bool:
        text = "".join(frames)
        return all(w in text for w in words)

    try:
        address = _wait_address(proc)
        assert address.startswith(f"http://127.0.0.1:{port}/?key=") and len(address.split("key=")[1]) >= 32
        with sync_playwright() as pw:
            browser = pw.chromium.launch_persistent_context(
                str(tmp_path / "chromium-profile"), executable_path=CHROMIUM if os.path.exists(CHROMIUM) else
                shutil.which("chromium"), headless=True, args=FLAGS, viewport={"width": 1400, "height": 900})
            try:
                page = browser.pages[0] if browser.pages else browser.new_page()

                def on_ws(ws) -> None:
                    ws.on("framereceived", lambda payload: frames.append(
                        payload.decode("utf-8", "replace") if isinstance(payload, bytes) else payload))
                page.on("websocket", on_ws)
                page.goto(address, timeout=HANG_GUARD_MS)

                def wait(*words: str) -> None:
                    page.wait_for_function("() => true", timeout=HANG_GUARD_MS)  # let the page run
                    deadline = time.monotonic() + HANG_GUARD_MS / 1000
                    while not seen(*words):
                        if time.monotonic() > deadline:
                            raise AssertionError(f"the page never showed {words}: {''.join(frames)[-2000:]!r}")
                        page.wait_for_timeout(100)

                wait("Rulesets", "Workspace")            # the home screen
                wait("✓")                                # its rulesets checked
                frames.clear()
                page.keyboard.press("Enter")             # the first key after load, no click first: opens the ruleset
                wait("yaml-language-server")             # its text in the editor (line 1)
                wait("valid")
                shot = page.screenshot(clip={"x": 0, "y": 0, "width": 1400, "height": 120})
                assert shot[:8] == b"\x89PNG\r\n\x1a\n" and len(shot) > 2000  # a drawn terminal, not a blank page
                page.keyboard.press("Control+b")         # back home, then test-play it
                wait("Rulesets")
                frames.clear()
                page.keyboard.press("p")
                wait("Your hand")
                second = browser.new_page()              # a second tab, over --max-apps 1: told so, not hung
                second.goto(address, timeout=HANG_GUARD_MS)
                second.wait_for_function(
                    "() => document.querySelector('.closed-dialog .message').textContent.includes('--max-apps 1')",
                    timeout=HANG_GUARD_MS)
                assert "close a tab" in second.locator(".closed-dialog .message").inner_text()
                assert second.locator(".closed-dialog").is_visible()
            finally:
                browser.close()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
    assert proc.returncode is not None


def test_exports_go_to_the_browser_as_downloads(tmp_path: Path):
    from gouji_app.web import offer_download

    class FakeApp:
        def __init__(self, web: bool):
            self.is_web = web
            self.sent: list = []

        def deliver_binary(self, path, *, save_filename=None, mime_type=None):
            self.sent.append((Path(path), save_filename, mime_type))

    f = tmp_path / "game.json"
    f.write_text("{}", encoding="utf-8")
    terminal, browser = FakeApp(False), FakeApp(True)
    assert not offer_download(terminal, f) and terminal.sent == []
    assert offer_download(browser, f, "application/json")
    assert browser.sent == [(f, "game.json", "application/json")]


def test_serve_without_the_web_extra_says_how_to_get_it(monkeypatch):
    from click.testing import CliRunner

    from gouji_app import cli
    monkeypatch.setitem(sys.modules, "textual_serve.server", None)  # as if textual-serve were not installed
    res = CliRunner().invoke(cli.gouji, ["serve", "--port", "8123"])
    assert res.exit_code == 1
    assert "pip install 'gouji-dsl[web]'" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cli.gouji, ["serve", "--help"])
    assert "--host" in res.output and "--port" in res.output and "CJK font" in res.output


def test_serve_on_a_port_in_use_or_a_bad_address_is_a_users_error():
    """A port another server holds, an unknown or foreign address: one line saying so, exit 1 (not
    "internal error ... this is a bug in gouji" with a crash report)."""
    pytest.importorskip("textual_serve")
    from click.testing import CliRunner

    from gouji_app import cli
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        res = CliRunner().invoke(cli.gouji, ["serve", "--port", str(port)])
    assert res.exit_code == 1, res.output
    assert f"port {port} on 127.0.0.1 is in use" in res.output and "--port" in res.output
    assert "internal error" not in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(cli.gouji, ["serve", "--host", "256.1.1.1", "--port", str(_free_port())])
    assert res.exit_code == 1 and "cannot listen on '256.1.1.1'" in res.output and "internal error" not in res.output
