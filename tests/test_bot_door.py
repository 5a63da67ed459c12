"""Bots from outside (issue 28): the view-only protocol, `gouji.bots` plug-ins, `exec:CMD` bots.

Exec bots here are small Python programs written to tmp_path; every one runs with a bounded time
limit, and every test checks that the processes it started were reaped."""
from __future__ import annotations

import functools
import json
import os
import pickle
import random
import sys
import textwrap
from importlib import metadata
from pathlib import Path

import pytest

from gouji_dsl import bots
from gouji_dsl.bots import ENTRY_POINT_GROUP, canonical_spec, deciding, external, installed_plugins, make_bot, outside, parse_bot_spec
from gouji_dsl.bots.outside import ViewOnly
from gouji_dsl.bots.view import SeatView
from gouji_dsl.engine.interpreter import hands_from_text, new_game
from gouji_dsl.ruleset.graph import load_graph
from gouji_dsl.tools.cli import cli
from gouji_dsl.tools.simulate import engine_summary, play_game

ROOT = Path(__file__).resolve().parents[1]
MYBOT = ROOT / "examples" / "bots" / "mybot.py"


@functools.cache
def graph(name: str):
    return load_graph(name)




@pytest.fixture(autouse=True)
def _fresh_caches():
    parse_bot_spec.cache_clear()
    installed_plugins.cache_clear()
    outside.plugin_factory.cache_clear()
    yield
    external.close_all()
    parse_bot_spec.cache_clear()
    installed_plugins.cache_clear()
    outside.plugin_factory.cache_clear()


def program(tmp_path: Path, name: str, body: str) -> str:
    """An exec spec running ``body`` (Python) with this interpreter."""
    p = tmp_path / name
    p.write_text(textwrap.dedent(body))
    return f"{sys.executable} {p}"


class Recorder:
    """A plug-in bot that keeps what it is given and answers the first legal move."""

    def __init__(self, rng: random.Random):
        self.rng = rng
        self.got: list[tuple[SeatView, tuple[str, ...]]] = []

    def choose(self, view: SeatView, moves: tuple[str, ...]) -> str:
        self.got.append((view, moves))
        return moves[0]


# ------------------------------------------------------------------------------ the view
# Seat 1 is dealt the same cards in both games; the other seats' cards are shuffled around them.
SEAT1 = "RB 22 AA KK QQ JJ TT 99 88 77 66 55 44 33"


def _deals(g):
    n = sum(g.model.deck_counts)
    rng = random.Random(5)
    deck = [k for k, c in zip(g.model.kinds, g.model.deck_counts) for _ in range(c)]
    mine = g.model.parse(SEAT1)
    for k, c in enumerate(mine):
        for _ in range(c):
            deck.remove(g.model.kinds[k])
    per = (n - sum(mine)) // (g.n_seats - 1)
    out = []
    for _ in range(2):
        rng.shuffle(deck)
        hands = {1: SEAT1}
        for s in range(2, g.n_seats + 1):
            hands[s] = " ".join(deck[(s - 2) * per:(s - 1) * per])
        out.append(hands)
    return out


def test_states_that_differ_only_in_hidden_cards_give_a_plug_in_the_same_input():
    g = graph("online")
    a_deal, b_deal = _deals(g)
    assert a_deal[1] == b_deal[1] and a_deal[2] != b_deal[2]
    inputs = []
    for deal in (a_deal, b_deal):
        st = new_game(g, None, hands=hands_from_text(g, deal), leader=1)
        bot = Recorder(random.Random(1))
        door = ViewOnly("recorder", bot, bot.rng)
        while st.to_act != 1:  # (the setup questions, if any, answered "pass" by the first legal move)
            st.apply_in_place(st.legal_moves()[0])
        door.choose(st, st.legal_moves())
        st.apply_in_place(st.parse(bot.got[-1][1][0]))
        # every other seat passes, then seat 1 is asked again: the public history has grown
        while st.to_act != 1 and not st.over:
            st.apply_in_place(st.legal_moves()[-1] if st.legal_moves()[-1].verb in ("pass", "yield") else st.legal_moves()[0])
        if not st.over:
            door.choose(st, st.legal_moves())
        inputs.append(bot.got)
    assert inputs[0] == inputs[1]
    view = inputs[0][0][0]
    assert view.hand == g.model.text(g.model.parse(SEAT1)) and view.seat == 1
    assert all(o.hand is None for o in view.others)
    text = json.dumps(view.to_json())
    for s in range(2, g.n_seats + 1):  # no other seat's hand anywhere in the message
        assert a_deal[s] not in text


def test_a_hidden_return_shows_no_cards_to_the_other_seats():
    from gouji_dsl.bots.view import public_history

    g = graph("online")
    st = new_game(g, "1:0")
    st.record = [{"type": "move", "move": "4 return 7 8"}, {"type": "transfer", "giver": 4, "receiver": 1, "cards": "8 7",
                                                            "rule": "return"}]
    seen, _played = public_history(st, 2)
    assert [(x.line, x.hidden) for x in seen] == [("4 return", 2), ("4 gives 1:", 2)]
    seen, _played = public_history(st, 1)
    assert [x.line for x in seen][1] == "4 gives 1: 8 7"


# ------------------------------------------------------------------------------ plug-ins
def _install(monkeypatch, tmp_path: Path, name: str, value: str, source: str | None = None) -> None:
    if source is not None:
        (tmp_path / f"{value.partition(':')[0]}.py").write_text(textwrap.dedent(source))
        monkeypatch.syspath_prepend(str(tmp_path))
    ep = metadata.EntryPoint(name=name, value=value, group=ENTRY_POINT_GROUP)
    monkeypatch.setattr(bots, "installed_plugins", functools.cache(lambda: {name: ep}))
    monkeypatch.setattr(outside, "installed_plugins", bots.installed_plugins)
    outside.plugin_factory.cache_clear()
    parse_bot_spec.cache_clear()


PLUGIN = """
    class Lowest:
        '''plays the first legal move'''
        def __init__(self, rng):
            self.rng = rng
        def choose(self, view, moves):
            assert type(view).__name__ == "SeatView"
            return moves[0]
"""


def test_a_plug_in_plays_by_its_name_wherever_bots_are_taken(monkeypatch, tmp_path, runner):
    _install(monkeypatch, tmp_path, "lowest", "door_plugin_lowest:Lowest", PLUGIN)
    assert canonical_spec("Lowest") == "lowest"
    bot = make_bot("lowest", random.Random(1))
    assert isinstance(bot, ViewOnly)
    res, _st = play_game(graph("online"), 1, 0, ["lowest", "heuristic"] * 3)
    assert sorted(res.places.values()) == list(range(1, 7))
    out = runner.invoke(cli, ["simulate", "online", "--games", "2", "--bots", "lowest,random", "--workers", "1", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert "outside" in d.get("games_fallback", "") or "native_fallback" in d  # (a stale native build says that first)


def test_a_bad_plug_in_is_an_error_naming_it(monkeypatch, tmp_path, runner):
    _install(monkeypatch, tmp_path, "broken", "no_such_module_here:Bot")
    with pytest.raises(ValueError, match="bot plug-in 'broken' .*could not be loaded: ModuleNotFoundError"):
        parse_bot_spec("broken")
    out = runner.invoke(cli, ["duel", "online", "broken", "heuristic", "--deals", "1"])
    assert out.exit_code == 2 and "bot plug-in 'broken'" in out.stderr and "Traceback" not in out.stderr


def test_a_plug_in_answering_an_illegal_move_is_named(monkeypatch, tmp_path):
    _install(monkeypatch, tmp_path, "cheat", "door_plugin_cheat:Cheat", """
        class Cheat:
            def __init__(self, rng):
                pass
            def choose(self, view, moves):
                return f"{view.seat} play RRRR"
    """)
    with pytest.raises(RuntimeError, match=r"bot 'cheat' at seat \d, game 1:0: answered '\d play RRRR', which is not a legal move now"):
        play_game(graph("online"), 1, 0, "cheat")


# ------------------------------------------------------------------------------ exec bots
def _reaped(spec: str) -> bool:
    p = external._PROCESSES.get(spec.partition(":")[2])
    return p is None or p.pid is None


def test_the_example_bot_plays_a_duel_from_the_command_line(runner):
    out = runner.invoke(cli, ["duel", "online", f"exec:{MYBOT}", "heuristic", "--deals", "2", "--json"])
    assert out.exit_code == 0, out.output
    d = json.loads(out.stdout)
    assert d["games"] == 4 and d["a"] == f"exec:{MYBOT}"
    pids = [p.pid for p in external._PROCESSES.values()]
    external.close_all()
    assert all(p is not None for p in pids) and not external._PROCESSES


def test_an_exec_bot_at_every_command(runner, tmp_path):
    spec = f"exec@20:{MYBOT}"
    for args in (["simulate", "online", "--games", "1", "--workers", "1", "--bots", f"{spec},random", "--json"],
                 ["diff", "online", "base", "--simulate", "1", "--workers", "1", "--bots", f"random,{spec}", "--format", "json"]):
        out = runner.invoke(cli, args)
        assert out.exit_code == 0, out.output
    summary = engine_summary(graph("online"), "generated", [spec, "random"] * 3)
    assert "outside the project" in summary.get("games_fallback", "") or "native_fallback" in summary


@pytest.mark.parametrize("body, what, code", [
    ("import sys\nfor line in sys.stdin:\n    print('{\"move\": \"1 play RRRRRR\"}', flush=True)\n",
     r"answered '1 play RRRRRR', which is not a legal move now \(legal: '1 play", "IllegalBotMove"),
    ("import sys\nfor line in sys.stdin:\n    print('not json', flush=True)\n", "answered 'not json', which is not JSON",
     "BotBadOutput"),
    ("import sys\nsys.stdin.readline()\nsys.exit(3)\n", r"exited without answering \(exit code 3\)", "BotExited"),
    ("import sys, time\nfor line in sys.stdin:\n    time.sleep(30)\n", r"gave no answer within 0\.5 s", "BotTimeout"),
    ("import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)['moves'][0]\n"
     "    print('{\"move\": \"%s\", \"move\": \"%s\"}' % (m, m), flush=True)\n", "answered .*, which has the key 'move' twice",
     "BotBadOutput"),
    ("import json, sys\nfor line in sys.stdin:\n    m = json.loads(line)['moves'][0]\n"
     "    print(json.dumps({'move': m}) + '\\n' + json.dumps({'log': m}), flush=True)\n",
     r"answered \{\"log\": .*\}, not an object with a \"move\"; it was line 2 of its standard output", "BotBadOutput"),
])
def test_an_exec_bot_that_fails_is_named_with_its_seat_and_answer(tmp_path, body, what, code):
    spec = canonical_spec(f"exec@0.5:{program(tmp_path, 'bad.py', body)}")
    with pytest.raises(outside.BotFailed, match=rf"bot '{spec}' at seat 1, game 1:0: {what}") as got:
        play_game(graph("online"), 1, 0, [spec] + ["random"] * 5, engine="interpreter")
    assert got.value.code == code and got.value.diagnostics[0].code == code
    assert isinstance(got.value, RuntimeError)  # (and a GoujiError: every command prints it as one)
    again = pickle.loads(pickle.dumps(got.value))  # crosses worker processes as itself
    assert type(again) is outside.BotFailed and str(again) == str(got.value) and again.code == code
    proc = external._PROCESSES[spec.partition(":")[2]]
    external.close_all()
    assert proc.pid is None


@pytest.mark.parametrize("when", ["before its first question", "after its first question"])
def test_a_banner_is_refused_the_same_way_whenever_it_arrives(tmp_path, when):
    # the bot's lines are read in order (its n-th line answers its n-th question): a banner written at
    # start-up, before gouji's question reaches it, and one written only once it has read the question
    # give the same error (no sleeps: the first bot may well write it before or after the question)
    banner = "print('MyBot v1 ready', flush=True)\n"
    body = ("import json, sys\n" + (banner if when.startswith("before") else "") + "for line in sys.stdin:\n"
            + ("    " + banner if when.startswith("after") else "") + "    print(json.dumps({'move': json.loads(line)['moves'][0]}), flush=True)\n")
    spec = canonical_spec(f"exec@20:{program(tmp_path, 'banner.py', body)}")
    with pytest.raises(outside.BotFailed) as got:
        play_game(graph("online"), 1, 0, [spec] + ["random"] * 5, engine="interpreter")
    assert got.value.code == "BotBadOutput"
    assert str(got.value) == (f"bot '{spec}' at seat 1, game 1:0: answered 'MyBot v1 ready', which is not JSON (one line "
                              "such as {\"move\": \"3 pass\"}); it was line 1 of its standard output, read as the answer to "
                              "its question 1: every line it writes there answers the next question, in order (a banner "
                              "or a log goes to standard error)")
    external.close_all()


def test_an_exec_program_that_cannot_start_is_a_usage_error(tmp_path, runner):
    for bad, what in [(f"exec:{tmp_path / 'missing.py'}", "there is no file"),
                      (f"exec:{tmp_path / 'my bots' / 'my bot.py'}", "a path with spaces must be quoted"),
                      ("exec:no-such-program-here", "no program 'no-such-program-here' on the PATH")]:
        with pytest.raises(ValueError, match=what):
            parse_bot_spec(bad)
    (tmp_path / "plain.py").write_text("print(1)\n")
    with pytest.raises(ValueError, match="is not an executable file"):
        parse_bot_spec(f"exec:{tmp_path / 'plain.py'}")
    out = runner.invoke(cli, ["duel", "online", f"exec:{tmp_path / 'missing.py'}", "heuristic", "--deals", "1"])
    assert out.exit_code == 2 and "there is no file" in out.output + (out.stderr or "")


ILLEGAL = "import json, sys\nfor line in sys.stdin:\n    print(json.dumps({'move': '%d play RRRRRR' % json.loads(line)['seat']}), flush=True)\n"


@pytest.mark.parametrize("args", [
    ["simulate", "online", "--games", "2", "--workers", "1", "--bots", "{bot}"],
    ["simulate", "online", "--games", "2", "--workers", "2", "--chunk-size", "1", "--bots", "{bot}"],
    ["diff", "online", "base", "--simulate", "2", "--workers", "1", "--bots", "{bot}"],
    ["sweep", "online", "--grid", "yield_to=1", "--simulate", "2", "--workers", "1", "--bots", "{bot}"],
    ["duel", "online", "{bot}", "heuristic", "--deals", "1"],
    ["league", "online", "{bot}", "heuristic", "--deals", "1"],
])
def test_a_bot_failure_is_one_error_on_every_command(tmp_path, runner, args):
    bot = f"exec@20:{program(tmp_path, 'illegal.py', ILLEGAL)}"
    out = runner.invoke(cli, [a.replace("{bot}", bot) for a in args])
    text = out.output + (out.stderr or "")
    assert out.exit_code == 1, text
    assert f"bot '{canonical_spec(bot)}' at seat 1, game 1:0: answered '1 play RRRRRR'" in text, text
    assert "[IllegalBotMove]" in text and "hint:" in text
    assert "RuntimeError" not in text and "internal error" not in text and "crash report" not in text


@pytest.mark.xdist_group("dask")  # a local Dask cluster: with the other Dask tests, one at a time
def test_a_bot_failure_crosses_dask_workers_as_itself(tmp_path, runner):
    pytest.importorskip("distributed")
    bot = f"exec@20:{program(tmp_path, 'illegal.py', ILLEGAL)}"
    out = runner.invoke(cli, ["simulate", "online", "--games", "2", "--chunk-size", "1", "--executor", "dask",
                              "--workers", "1", "--bots", bot])  # (a local cluster on 127.0.0.1)
    text = out.output + (out.stderr or "")
    assert out.exit_code == 1 and "[IllegalBotMove]" in text and "game 1:0" in text, text


def test_an_exec_program_missing_on_a_worker_is_the_bots_failure_not_a_value_error(tmp_path):
    # the driver's machine has the program (the options are read there); a remote Dask worker has not:
    # its check is the bot's failure (BotExited), the same error as every other, not a plain ValueError.
    # The worker's entry point is run here in-process (no cluster: a fresh worker has no parsed specs).
    from gouji_dsl.tools.runchunks import pack_spec, raise_chunk_error, run_packed_chunk
    from gouji_dsl.tools.runspec import RunSpec
    bot = tmp_path / "mybot.py"
    bot.write_text("#!/bin/sh\n")
    bot.chmod(0o755)
    spec = canonical_spec(f"exec:{bot}")
    parse_bot_spec(spec)  # the driver's check passes
    bot.unlink()
    parse_bot_spec.cache_clear()
    run = RunSpec((graph("online").resolved,), 1, spec)
    out = run_packed_chunk(*pack_spec(run), 0, 1)
    assert out["error"]["kind"] == "bot"
    with pytest.raises(outside.BotFailed) as got:
        raise_chunk_error(out["error"])
    assert got.value.code == "BotExited" and got.value.seat is None
    assert str(got.value).startswith(f"bot '{spec}', game 1:0: cannot be started on the worker ")
    assert f"there is no file {str(bot)!r}" in str(got.value)
    with pytest.raises(ValueError, match="there is no file"):  # where the options are read: a usage error
        parse_bot_spec(spec)


def test_the_children_of_an_exec_bot_are_ended_with_it(tmp_path):
    pids = tmp_path / "pids"
    spec = canonical_spec("exec@20:" + program(tmp_path, "forker.py", f"""
        import json, subprocess, sys
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        open({str(pids)!r}, "w").write(str(child.pid))
        for line in sys.stdin:
            print(json.dumps({{"move": json.loads(line)["moves"][0]}}), flush=True)
    """))
    play_game(graph("online"), 1, 0, [spec] + ["random"] * 5, engine="interpreter")
    proc = external._PROCESSES[spec.partition(":")[2]]
    pgid = proc.pid
    external.close_all()
    child = int(pids.read_text())
    with pytest.raises(ProcessLookupError):  # the bot's group (the bot and its child) is gone
        os.killpg(pgid, 0)
    with pytest.raises(ProcessLookupError):
        os.kill(child, 0)


def test_exec_specs_are_checked():
    for bad, what in [("exec", "needs a command"), ("exec:", "command is missing"), ("exec@0:x", "time limit"),
                      ("exec@1e3:x", "time limit"), ("exec:'open", "cannot be split")]:
        with pytest.raises(ValueError, match=what):
            parse_bot_spec(bad)
    assert canonical_spec(f"EXEC@2.50:{MYBOT}") == f"exec@2.5:{MYBOT}"


def test_the_exec_messages_carry_the_view_and_the_moves(tmp_path):
    log = tmp_path / "log.jsonl"
    spec = canonical_spec("exec@20:" + program(tmp_path, "echo.py", f"""
        import json, sys
        with open({str(log)!r}, "a") as f:
            for line in sys.stdin:
                m = json.loads(line)
                f.write(line)
                print(json.dumps({{"move": m["moves"][-1]}}), flush=True)
    """))
    play_game(graph("online"), 1, 0, [spec] + ["heuristic"] * 5)
    external.close_all()
    import jsonschema

    from gouji_dsl.resources import bot_protocol_schema_path
    schema = json.loads(bot_protocol_schema_path().read_text(encoding="utf-8"))
    lines = [json.loads(x) for x in log.read_text().splitlines()]
    for m in lines[:: max(1, len(lines) // 20)] + [lines[-1]]:  # every message is as the schema says
        jsonschema.validate(m, schema)
    jsonschema.validate({"move": "1 pass"}, schema)
    first = lines[0]
    assert first["type"] == "choose" and first["protocol"] == 1 and first["seat"] == 1
    assert set(first["view"]) >= {"hand", "others", "top", "history", "seat", "kinds", "deck"}
    assert all(m.startswith("1 ") for m in first["moves"]) and isinstance(first["seed"], int)


def test_the_play_screen_asks_an_outside_bot_from_its_worker_thread():
    from gouji_app.play.session import PlaySession
    s = PlaySession(graph("online"), seat=1, seed=3, bots=f"exec:{MYBOT},heuristic")
    assert s.bot_searches(3) and not s.bot_searches(2)  # (exec at the odd seats; the screen's worker shows a failure)
    req = None
    for _ in range(50):
        if s.state.to_act == 3:
            req = s.bot_request()
            break
        if s.state.to_act == 1:
            s.apply(s.hint(), "you")
        else:
            s.step_bot()
    assert req is not None
    state, moves, bot = req
    assert bot.choose(state, moves) in moves


def test_exec_bots_play_in_the_app_and_a_failing_one_is_shown(tmp_path):
    import asyncio

    from pilot_helpers import notes, wait_for

    from gouji_app.play.app import PlayApp

    async def run(bots: str, until, what: str):
        app = PlayApp(graph("online"), seed=11, bots=bots, speed="instant", show_steps=False)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.play_screen
            await wait_for(pilot, lambda: until(app, screen), what=what)
            return app, screen

    _app, screen = asyncio.run(run(f"exec:{MYBOT}", lambda app, sc: sc.session.your_turn and not sc.thinking, "your turn"))
    assert {int(e.move.split()[0]) for e in screen.session.entries if e.by == "bot"} - {1}
    bad = canonical_spec("exec@5:" + program(tmp_path, "bad.py", "import sys\nfor line in sys.stdin:\n    print('{\"move\": \"9 pass\"}', flush=True)\n"))
    asyncio.run(run(bad, lambda app, sc: any("failed" in str(n.title) for n in notes(app)), "the bot's failure on screen"))
    external.close_all()


def test_after_a_bot_fails_the_play_screen_says_the_game_stopped_in_both_languages(tmp_path):
    """(t28b F9) the line under the hand said "Seat 6 is thinking…" for good after an exec bot's
    illegal answer: it says the game stopped, why, and the keys that go on (new game, undo, leave);
    the bot is not asked again by itself."""
    import asyncio

    from app_zh import speaking
    from pilot_helpers import notes, wait_for

    from gouji_app.play.app import PlayApp
    from gouji_dsl.i18n import Language

    bad = canonical_spec("exec@20:" + program(tmp_path, "illegal.py", ILLEGAL))

    async def run() -> str:
        app = PlayApp(graph("online"), seat=2, seed=1, bots=bad, speed="instant", show_steps=False)  # (seat 1 leads)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.play_screen
            await wait_for(pilot, lambda: screen.bot_failure is not None, what="the bot's failure")
            await pilot.pause()
            assert not screen.thinking and notes(app)  # (the failure's notification, as before)
            asked = len(notes(app))
            screen._schedule()  # (what a refresh does): the failed bot is not asked again
            await pilot.pause()
            assert len(notes(app)) == asked and not screen.thinking
            return str(screen.query_one("#feedback").render())

    text = asyncio.run(run())
    assert "The bot of seat 1 failed: the game has stopped." in text and "IllegalBotMove" not in text.split("ctrl")[0][:40]
    assert "answered '1 play RRRRRR'" in text and "ctrl+n new game" in text and "is thinking" not in text
    with speaking(Language.ZH):
        text = asyncio.run(run())
    assert "1 号座位的机器人出错：对局已停止。" in text and "ctrl+n 新牌局" in text and "思考中" not in text
    external.close_all()


def test_a_bot_failing_with_one_move_to_make_stops_the_game_instead_of_ending_the_app(tmp_path):
    """(t28d bug 1) a bot from outside with only a pass to make is asked on the UI thread (the steps
    after your pass or auto-pass): its failure there ended the app (`internal error: BotFailed`); it
    is shown and stops the game as when it fails in the worker."""
    import asyncio

    from pilot_helpers import notes, wait_for

    from gouji_app.play.app import PlayApp

    only_pass_is_illegal = canonical_spec("exec@20:" + program(tmp_path, "onepass.py", """
        import json, sys
        for line in sys.stdin:
            msg = json.loads(line)
            move = msg["moves"][0] if len(msg["moves"]) > 1 else "%d play RRRRRR" % msg["seat"]
            print(json.dumps({"move": move}), flush=True)
        """))

    async def run() -> tuple[str, int]:
        app = PlayApp(graph("online"), seed=11, bots=f"{only_pass_is_illegal},heuristic", speed="instant",
                      show_steps=False)
        async with app.run_test(size=(120, 40)) as pilot:
            screen = app.play_screen
            for _ in range(200):  # you pass whenever you can (F2), else play the hint, until the bot fails
                await wait_for(pilot, lambda: screen.bot_failure is not None or (screen.session.your_turn and not screen.thinking),
                               what="your turn or the bot's failure")
                if screen.bot_failure is not None:
                    break
                s = screen.session
                if any(m.verb.name == "PASS" for m in s.legal()):
                    await pilot.press("f2")
                else:
                    s.apply(s.hint(), "you")
                    screen._after_move()
            await pilot.pause()
            assert app.is_running and screen.bot_failure is not None and not screen.thinking
            assert any("failed" in str(n.title) for n in notes(app))
            assert len(screen.session.legal()) == 1  # (it failed where it had one move: on the UI thread)
            return str(screen.query_one("#feedback").render()), screen.bot_failure[0]

    text, seat = asyncio.run(run())
    assert f"The bot of seat {seat} failed: the game has stopped." in text and "answered" in text
    external.close_all()


def test_a_bot_that_ignores_the_end_of_its_input_is_killed_and_reaped(tmp_path, monkeypatch):
    monkeypatch.setattr(external, "CLOSE_SECONDS", 0.2)
    cmd = program(tmp_path, "stubborn.py", """
        import json, signal, sys, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        sys.stdin.readline()
        print(json.dumps({"move": "1 pass"}), flush=True)
        while True:
            time.sleep(1)
    """)
    p = external.ExecProcess(cmd)
    assert p.ask("stubborn", 1, {"type": "choose"}, 20) == {"move": "1 pass"}
    proc = p._proc
    p.close()
    assert proc is not None and proc.returncode is not None and p.pid is None


def test_an_exec_bot_drawing_from_its_seed_plays_the_same_game_again():
    spec = canonical_spec(f"exec:{MYBOT}")  # (it draws its declines from the message's seed)
    one, _s = play_game(graph("online"), 5, 0, [spec, "random"] * 3, engine="interpreter")
    external.close_all()  # a fresh process: nothing kept between the two games but the seeds
    two, _s = play_game(graph("online"), 5, 0, [spec, "random"] * 3, engine="interpreter")
    assert [e.get("move") for e in one.record] == [e.get("move") for e in two.record]


def _gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


@pytest.mark.skipif(not hasattr(os, "pidfd_open"), reason="waits on the processes' exits with pidfds (Linux)")
def test_a_pool_stopped_by_a_bot_failure_ends_every_workers_exec_bots(tmp_path, runner):
    pids = tmp_path / "pids"
    spec = "exec@1:" + program(tmp_path, "hang.py", f"""
        import json, os, subprocess, sys, time
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        with open({str(pids)!r}, "a") as f:
            f.write(f"{{os.getpid()}} {{child.pid}}\\n")
        try:  # the first one started plays (and stays blocked once its input ends), the others hang
            os.close(os.open({str(tmp_path / "first")!r}, os.O_CREAT | os.O_EXCL))
        except FileExistsError:
            sys.stdin.readline()
            time.sleep(60)
        for line in sys.stdin:
            print(json.dumps({{"move": json.loads(line)["moves"][0]}}), flush=True)
        time.sleep(60)
    """)
    r = runner.invoke(cli, ["simulate", "online", "--games", "50", "--bots", spec, "--workers", "2"])
    assert r.exit_code == 1 and "[BotTimeout]" in r.stderr
    started = [int(x) for x in pids.read_text().split()]
    assert started
    left = _ended_within(started, 10)
    for p in left:  # (not to leave them behind if the test fails)
        os.kill(p, 9)
    assert not left  # no bot, nor a bot's child, of either worker is left running


def _ended_within(pids: list[int], seconds: float) -> list[int]:
    """The processes of ``pids`` still running after waiting up to ``seconds`` for each to end: waits on
    their exits (a pidfd per process, readable when it ends; no polling), bounded."""
    import select
    import time
    fds: dict[int, int] = {}
    for p in pids:
        try:
            fds[os.pidfd_open(p)] = p
        except ProcessLookupError:  # ended already
            pass
    try:
        deadline = time.monotonic() + seconds
        waiting = set(fds)
        while waiting and (rest := deadline - time.monotonic()) > 0:
            ready, _w, _x = select.select(list(waiting), [], [], rest)
            waiting -= set(ready)
        return sorted(fds[fd] for fd in waiting)
    finally:
        for fd in fds:
            os.close(fd)


class _Exits:
    def __init__(self, what: BaseException):
        self.what = what

    def choose(self, view, moves):
        raise self.what


def test_a_plugin_that_exits_is_a_bot_error_and_ctrl_c_stays_ctrl_c():
    g = graph("online")
    st = new_game(g, 1)
    door = ViewOnly("peek", _Exits(SystemExit(3)), random.Random(1))
    with pytest.raises(outside.BotFailed) as got:  # not a silent exit 0 of the whole command
        door.choose(st, st.legal_moves())
    assert got.value.code == "BotError" and got.value.bot == "peek" and "SystemExit" in str(got.value)
    with pytest.raises(KeyboardInterrupt):
        ViewOnly("peek", _Exits(KeyboardInterrupt()), random.Random(1)).choose(st, st.legal_moves())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the kernel's death signal (prctl) is Linux's")
@pytest.mark.parametrize("workers", ["1", "2"])
def test_an_exec_bot_that_ignores_its_input_dies_with_a_driver_killed_by_kill_9(tmp_path, workers):
    """(N3) kill -9 of gouji duel leaves its exec bot no end of input to act on when the bot reads none: the
    kernel ends it (PR_SET_PDEATHSIG), in the driver (--workers 1) and in a run's worker (--workers 2).
    The waits are on events, bounded: the bot's pid on the driver's standard error (the bot's too), then the
    bot's exit (a pidfd, readable when it ends)."""
    import select
    import signal
    import subprocess
    spec = "exec@600:" + program(tmp_path, "deaf.py", """
        import os, sys, threading
        print(f"deaf-bot-pid {os.getpid()}", file=sys.stderr, flush=True)
        threading.Event().wait()  # never reads its input, never answers, never exits by itself
    """)
    driver = subprocess.Popen([sys.executable, "-m", "gouji_dsl", "duel", "online", spec, "heuristic", "--deals", "2",
                               "--workers", workers], stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE)
    assert driver.stderr is not None
    pid, pidfd, seen = None, None, b""
    try:
        while pid is None:
            ready, _w, _x = select.select([driver.stderr], [], [], 60)
            chunk = os.read(driver.stderr.fileno(), 4096) if ready else b""
            assert chunk, f"the bot did not start: {seen.decode(errors='replace')}"
            seen += chunk
            for line in seen.splitlines():
                if line.startswith(b"deaf-bot-pid "):
                    pid = int(line.split()[1])
        pidfd = os.pidfd_open(pid)
        driver.send_signal(signal.SIGKILL)
        driver.wait(60)
        ready, _w, _x = select.select([pidfd], [], [], 30)
        assert ready, "the exec bot outlived its driver"
    finally:
        if driver.poll() is None:
            driver.kill()
            driver.wait()
        if pid is not None and not _gone(pid):
            os.kill(pid, signal.SIGKILL)
        if pidfd is not None:
            os.close(pidfd)
        driver.stderr.close()


_ENDS_ITS_PROCESS = """
    import os, signal
    class Bot:
        def __init__(self, rng):
            self.n = 0
        def choose(self, view, moves):
            self.n += 1
            if self.n > 3:  # (a few decisions in: the games have begun)
                {how}
            return moves[0]
"""


def test_a_plug_in_that_calls_os_exit_is_named_not_a_silent_exit_0(monkeypatch, tmp_path, runner):
    """(N2) os._exit(0) would end the command at once, its games unfinished, with exit status 0: while a
    plug-in decides it is that bot's failure instead, named with its seat and game."""
    _install(monkeypatch, tmp_path, "quitter", "door_plugin_quitter:Bot",
             _ENDS_ITS_PROCESS.format(how="os._exit(0)"))
    with pytest.raises(outside.BotFailed) as got:
        play_game(graph("online"), 1, 0, ["quitter", "random"] * 3)
    assert (got.value.code, got.value.bot, got.value.game) == ("BotExited", "quitter", "1:0")
    assert "os._exit(0)" in str(got.value)
    assert os._exit is deciding._REAL_EXIT  # (the guard is lifted after the decision)
    for args in (["simulate", "online", "--games", "2", "--workers", "1", "--bots", "quitter,random"],
                 ["duel", "online", "quitter", "heuristic", "--deals", "1", "--workers", "1"]):
        r = runner.invoke(cli, args)
        assert r.exit_code == 1 and "[BotExited]" in r.stderr and "'quitter' at seat 1" in r.stderr, (args, r.output)


def _installed_for_workers(tmp_path: Path) -> dict[str, str]:
    """An environment in which spawned worker processes find the plug-ins ``quitter`` (os._exit(0)) and
    ``killer`` (SIGKILL of its own process): a distribution's metadata on PYTHONPATH, as pip leaves it."""
    site = tmp_path / "site"
    info = site / "doorbots-0.1.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: doorbots\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[gouji.bots]\nquitter = door_quitter:Bot\nkiller = door_killer:Bot\n")
    (site / "door_quitter.py").write_text(textwrap.dedent(_ENDS_ITS_PROCESS.format(how="os._exit(0)")))
    (site / "door_killer.py").write_text(textwrap.dedent(_ENDS_ITS_PROCESS.format(how="os.kill(os.getpid(), signal.SIGKILL)")))
    return {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep)}


@pytest.mark.parametrize(("bot", "args"), [
    ("quitter", ["simulate", "online", "--games", "12", "--workers", "2", "--executor", "process", "--bots", "quitter,random"]),
    ("killer", ["simulate", "online", "--games", "12", "--workers", "2", "--executor", "process", "--bots", "killer,random"]),
    ("killer", ["duel", "online", "killer", "heuristic", "--deals", "3", "--workers", "2"]),
])
def test_a_plug_in_that_ends_its_worker_is_named(tmp_path, bot, args):
    """(N2) In a run's worker: os._exit is caught as in one process; a worker that dies otherwise (SIGKILL)
    while a plug-in decides is that bot's failure, named with its seat (the worker's note), not "every
    worker died" (exit 3) nor BrokenProcessPool."""
    import subprocess
    r = subprocess.run([sys.executable, "-m", "gouji_dsl", *args], env=_installed_for_workers(tmp_path),
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    assert r.returncode == 1, r.stderr
    assert "[BotExited]" in r.stderr and f"bot '{bot}' at seat 1" in r.stderr, r.stderr
    assert ("os._exit(0)" if bot == "quitter" else "its worker process died while it was deciding") in r.stderr
    assert "Traceback" not in r.stderr and "every worker" not in r.stderr


def test_the_notes_folders_of_killed_drivers_are_removed_never_through_a_symlink(tmp_path):
    import subprocess
    gone = subprocess.Popen([sys.executable, "-c", "pass"])  # (a pid that is gone)
    gone.wait()
    left = tmp_path / f"gouji-deciding-{gone.pid}-abc123"
    (left / "x").mkdir(parents=True)
    mine = tmp_path / f"gouji-deciding-{os.getpid()}-live1"
    mine.mkdir()
    kept = tmp_path / "kept"
    (kept / "inside").mkdir(parents=True)
    (tmp_path / f"gouji-deciding-{gone.pid}-link1").symlink_to(kept)
    deciding.remove_stale_folders(str(tmp_path))
    assert not left.exists() and mine.is_dir() and (kept / "inside").is_dir()
