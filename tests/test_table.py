"""The club table (issue 27): `gouji host`'s server with several clients in one process on loopback.

Every wait is on a message (bounded: the client's receive has a timeout), never a fixed sleep; the
bots are the heuristic (instant); matches are two games (a house ruleset on qingdao: tribute and
teammates' hands shown at ten cards) so the suite stays fast.
"""
from __future__ import annotations

import asyncio
import functools
import hashlib
import json
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

aiohttp = pytest.importorskip("aiohttp", reason="the table server needs aiohttp (the web extra)")
from aiohttp.test_utils import TestServer  # noqa: E402
from click.testing import CliRunner  # noqa: E402

from gouji_dsl.engine.records import check_record, parse_record, record_graph  # noqa: E402
from gouji_dsl.tools.cli import cli  # noqa: E402
from gouji_dsl.tools.cli_host import read_seats, table_rules  # noqa: E402
from gouji_dsl.tools.table.client import TableClient, TableClosed, parse_address  # noqa: E402
from gouji_dsl.tools.table.protocol import CloseCode, Limits, visible_event  # noqa: E402
from gouji_dsl.tools.table.server import Room, TableServer  # noqa: E402

HOUSE = """\
ruleset: club-house
extends: qingdao
title: a club's house rules (qingdao, two games a match)
settings:
  match_games:
    value: 2
    says: "A match is two games at this club."
"""
_bundled = functools.cache(table_rules)  # (a bundled ruleset is compiled once for these tests)


def rules_of(ruleset: str) -> Any:
    return _bundled(ruleset) if "/" not in ruleset else table_rules(ruleset)


FAST = Limits(messages_per_s=100_000, burst=100_000)
WAIT = 60.0  # the longest any one message is waited for (a loaded machine); normally milliseconds


class Served:
    def __init__(self, server: TableServer, room: Room, port: int) -> None:
        self.server, self.room, self.port = server, room, port

    @property
    def link(self) -> str:
        return self.server.room_link(self.room)

    async def join(self, **kw: Any) -> TableClient:
        return await TableClient.connect(self.link, timeout=WAIT, **kw)


def serve(test: Callable[[Served], Awaitable[None]], ruleset: str = "online", *, limits: Limits = FAST,
          record_dir: Path | None = None, **table: Any) -> None:
    async def main() -> None:
        server = TableServer("127.0.0.1", 0, limits=limits, record_dir=record_dir)
        room = server.open_table(rules_of(ruleset), **{"between": 0.0, "seed": "club", **table})
        ts = TestServer(server.make_app(), host="127.0.0.1", port=0)
        await ts.start_server()
        assert ts.port is not None
        server.listening_on(ts.port)
        try:
            await asyncio.wait_for(test(Served(server, room, ts.port)), 4 * WAIT)
        finally:
            await ts.close()
    asyncio.run(main())


async def play_to_the_end(c: TableClient, *, ask_why: bool = False) -> dict[str, Any]:
    """A scripted player: the first legal move whenever it is his turn, ready at once after each
    game; returns the match_over message."""
    asked = False
    while True:
        m = await c.receive("state", "game_over", "match_over", timeout=WAIT)
        if m["type"] == "match_over":
            return m
        if m["type"] == "game_over":
            await c.send({"type": "next"})
        elif m.get("your_turn"):
            move = m["legal"]["moves"][0]
            if ask_why and not asked:
                asked = True
                why = await c.ask("why", move=move, timeout=WAIT)
                assert why["type"] == "why" and why["legal"] is True and why["sentence"].startswith(move), why
                hint = await c.ask("hint", timeout=WAIT)
                assert hint["move"] is not None
                legal = await c.ask("legal", timeout=WAIT)
                assert move in legal["moves"]
            await c.move(move, at=m["seq"])


# ------------------------------------------------------------------------------ what a seat may be told
def walk(x: Any, path: tuple = ()) -> Any:
    if isinstance(x, dict):
        for k, v in x.items():
            yield path + (k,), k, v
            yield from walk(v, path + (k,))
    elif isinstance(x, list):
        for i, v in enumerate(x):
            yield from walk(v, path + (i,))


def _check_event(e: dict[str, Any], seat: int | None) -> None:
    kind = e.get("type")
    if kind == "deal":
        assert set(e) <= {"type", "game_number", "redeal"}, e
    if kind == "transfer" and e.get("rule") == "return" and seat not in (e.get("giver"), e.get("receiver")):
        assert e["cards"] is None, (seat, e)  # a return tribute (还贡) between two other seats
    if kind == "move":
        parts = e["move"].split()
        if parts[1] == "return" and parts[0] != str(seat):
            assert len(parts) == 2, (seat, e)


def _check_view(view: dict[str, Any], seat: int | None) -> None:
    assert view["seat"] == seat
    if seat is None:
        assert view["hand"] is None
    for t, info in view["others"].items():
        if "hand" in info:  # qingdao's view.teammates-advise: a teammate's hand at ten cards or fewer
            assert seat is not None and int(t) != seat and info["team"] == (1 if seat % 2 else 2), (seat, t, info)
            assert sum(ch.isdigit() or ch.isupper() for ch in info["hand"]) <= 10, info


def assert_private(messages: list[dict[str, Any]], seat: int | None) -> None:
    """No message to ``seat`` (None: a spectator) carries another seat's hidden cards: no deal's
    hands, no seed before the match is over, another seat's hand only where the ruleset shows it,
    a return tribute's cards only to the seats that gave or got them."""
    for m in messages:
        for path, key, _value in walk(m):
            assert key != "hands", (seat, m["type"], path)
            if key == "seed":
                assert m["type"] == "match_over" and path == ("seed",), (seat, m["type"], path)
        if m["type"] == "state":
            _check_view(m["view"], seat)
            for e in m["events"]:
                _check_event(e, seat)
            if "last" in m:
                _check_event({"type": "move", "move": m["last"]["move"]}, seat)
            told = m["trick"]["plays"] + (m["last_trick"] or {"plays": []})["plays"] + m.get("log", [])
            for e in told:  # the public move log: another seat's return without its cards
                _check_event({"type": "move", "move": e["move"]}, seat)
            assert ("legal" in m) == bool(m["your_turn"]) and (seat is not None or not m["your_turn"])
        if m["type"] == "game_over":
            for e in m["tribute"]:
                _check_event(e, seat)


def test_a_whole_match_with_tribute_between_bots_and_two_players_with_a_spectator(tmp_path):
    """Two scripted players and four bots play a match of two games on the host's own ruleset file
    (its text travels with the table); tribute is paid before the second game; a spectator watches;
    no message carries a hidden card; the seed revealed matches the hash sent before the first deal;
    the saved record replays with --check."""
    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")
    records = tmp_path / "records"

    async def test(s: Served) -> None:
        watcher = await s.join(watch=True)
        a = await s.join(name="Li")
        b = await s.join(name="Wang")
        assert (a.seat, b.seat, watcher.seat) == (1, 2, None) and a.token and a.token != b.token
        assert watcher.welcome["role"] == "spectator" and watcher.token is None
        ruleset = await a.receive("ruleset")
        assert ruleset["text"] == HOUSE and ruleset["sha256"] == hashlib.sha256(HOUSE.encode()).hexdigest()
        commit = (await a.receive("seed"))["sha256"]
        results = await asyncio.gather(play_to_the_end(a, ask_why=True), play_to_the_end(b),
                                       watcher.receive("match_over", timeout=4 * WAIT))
        over = results[0]
        assert hashlib.sha256(over["seed"].encode()).hexdigest() == commit == over["seed_sha256"]
        assert [g["game"] for g in over["games"]] == [1, 2] and over["totals"]
        # the tribute of game 2 (qingdao's fall tribute at least): told to everyone, the cards only to those involved
        game2 = [m for m in a.messages if m["type"] == "game_over"][1]
        assert game2["tribute"], game2
        starts = [m for m in a.messages if m["type"] == "state" and m["full"]]
        assert len(starts) == 2  # one full state per game
        seen_seats = {m["view"]["seat"] for m in watcher.messages if m["type"] == "state"}
        assert seen_seats == {None}
        for c, seat in ((a, 1), (b, 2), (watcher, None)):
            assert_private(c.messages, seat)
        # the spectator was told of return tribute (还贡) without its cards
        assert any(e.get("count") and e["cards"] is None for m in watcher.messages if m["type"] == "state" for e in m["events"]
                   if e["type"] == "transfer")
        # somebody saw a teammate's hand at ten cards (qingdao's 挑牌 rule), so the check above was exercised
        assert any("hand" in info for m in a.messages + b.messages if m["type"] == "state" for info in m["view"]["others"].values())
        async with aiohttp.ClientSession() as http, http.get(over["record"]) as r:
            assert r.status == 200
            text = await r.text()
        for c in (a, b, watcher):
            await c.close()
        saved = list(records.glob(f"table-{s.room.table.code}-*.json"))
        assert len(saved) == 1 and saved[0].read_text(encoding="utf-8") == text
        record = parse_record(text, str(saved[0]))
        assert record.ruleset_text == HOUSE and record.bots[1] == "human" and record.bots[3] == "heuristic"
        assert len(check_record(record_graph(record), record)) == 2

    serve(test, str(house), people={1, 2}, record_dir=records)
    saved = next(records.glob("table-*.json"))
    res = CliRunner().invoke(cli, ["replay", "--check", str(saved)])
    assert res.exit_code == 0 and ": ok" in res.output, res.output


def test_a_dropped_player_is_played_by_his_bot_and_takes_his_seat_back_with_his_token():
    async def test(s: Served) -> None:
        watcher = await s.join(watch=True)
        a = await s.join(name="Li")
        first = await a.receive("state")
        assert first["full"]
        token = a.token
        await a.session.close()  # the terminal is killed: the connection drops without a close frame
        auto = await watcher.receive("auto", timeout=WAIT)
        assert auto == {"type": "auto", "seat": 1, "on": True, "why": "disconnected"}
        await watcher.receive("state", timeout=WAIT, where=lambda m: (m.get("last") or {}).get("seat") == 1
                              and m["last"]["by"] == "bot")  # his bot moved for him: the table did not wait
        back = await TableClient.connect(s.link, token=token, timeout=WAIT)
        assert back.seat == 1 and back.token == token
        state = await back.receive("state", timeout=WAIT)
        assert state["full"] and state["seq"] == s.room.table.seq or state["seq"] <= s.room.table.seq
        assert_game_so_far(state)
        assert state["view"]["hand"] == s.room.table.state.view(1)["hand"] or state["seq"] < s.room.table.seq
        again = await watcher.receive("auto", timeout=WAIT)
        assert again == {"type": "auto", "seat": 1, "on": False, "why": "back"}
        over = await play_to_the_end(back)
        assert over["type"] == "match_over"
        assert_private(back.messages, 1)
        assert_private(watcher.messages, None)
        await back.close()
        await watcher.close()

    serve(test, people={1})


def assert_game_so_far(state: dict[str, Any]) -> None:
    """A full state carries the game as it stands: the public move log (each move with who made it
    and its trick), the current trick's moves and the last trick's, as its events tell them."""
    moves = [e["move"] for e in state["events"] if e["type"] == "move"]
    log = state["log"]
    assert [e["move"] for e in log] == moves and moves, state
    assert all(e["by"] in ("player", "bot") and e["seat"] == int(e["move"].split()[0]) for e in log), log
    won = [e for e in state["events"] if e["type"] == "trick_won"]
    trick = state["trick"]
    assert trick["number"] == len(won) + 1 and trick["plays"] == [
        {k: v for k, v in e.items() if k != "trick"} for e in log if e["trick"] == trick["number"]]
    if won:
        last = state["last_trick"]
        assert last["number"] == len(won) and last["winner"] == won[-1]["seat"] and last["play"] == won[-1]["play"]
        assert last["plays"] and any(p["move"].endswith(" play " + last["play"]) for p in last["plays"]), last


def test_whoever_joins_between_games_or_after_the_match_gets_the_summary_and_the_break_waits_for_players(tmp_path):
    """A spectator who joins while the break after game 1 is on gets that game's game_over (its
    scores those of the record); the break does not end while the player (in 托管) has not sent
    next; one who joins after the match gets game 2's game_over and the match_over (revealed seed)."""
    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")

    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        await a.send({"type": "auto", "on": True})
        over1 = await a.receive("game_over", timeout=4 * WAIT)
        assert over1["game"] == 1 and 0 < over1["next_in_s"] <= 600
        late = await s.join(watch=True)
        again = await late.receive("game_over", timeout=WAIT)
        assert {k: again[k] for k in ("game", "places", "scores", "team_scores")} == {
            k: over1[k] for k in ("game", "places", "scores", "team_scores")}
        first = s.room.table.finals[0]
        assert over1["scores"] == {str(k): v for k, v in first.scores.items()}
        assert over1["scores"] == next(e for e in first.record if e["type"] == "game_over")["scores"]
        assert s.room.table.game_index == 0  # the break goes on: he has not sent next (托管 or not)
        await a.send({"type": "next"})
        over2 = await a.receive("game_over", timeout=4 * WAIT)
        done = await a.receive("match_over", timeout=WAIT)
        assert over2["game"] == 2 and over2["next_in_s"] is None
        last = a.last("state")  # the game's last state carries its result too
        assert last is not None and last["result"]["scores"] == over2["scores"] and last["result"]["places"] == over2["places"]
        assert over2["scores"] == {str(k): v for k, v in s.room.table.finals[1].scores.items()}
        after = await s.join(watch=True)
        got = await after.receive("game_over", timeout=WAIT)
        assert got["game"] == 2 and got["scores"] == over2["scores"]
        assert (await after.receive("match_over", timeout=WAIT)) == done and done["seed"] == "club"
        state = next(m for m in after.messages if m["type"] == "state")
        assert state["full"] and state["game"] == 2
        assert_game_so_far(state)
        for c, seat in ((a, 1), (late, None), (after, None)):
            assert_private(c.messages, seat)
            await c.close()

    serve(test, str(house), people={1}, between=600.0)


def test_a_player_out_of_time_is_played_by_his_bot_until_he_is_back():
    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        auto = await a.receive("auto", timeout=WAIT)  # he never moves
        assert auto == {"type": "auto", "seat": 1, "on": True, "why": "timer"}
        await a.receive("state", timeout=WAIT, where=lambda m: (m.get("last") or {}).get("seat") == 1)
        await a.send({"type": "auto", "on": False})
        assert (await a.receive("auto", timeout=WAIT))["why"] == "back"
        table = await a.receive("table", timeout=WAIT)
        assert table["seats"][0]["auto"] is False
        await a.close()

    serve(test, people={1}, timer=0.05)


async def play_hints_to_the_end(c: TableClient) -> dict[str, Any]:
    """A player who plays the table's hint whenever it is his turn (asking why and the legal
    moves first: questions change nothing), ready at once after each game."""
    while True:
        m = await c.receive("state", "game_over", "match_over", timeout=WAIT)
        if m["type"] == "match_over":
            return m
        if m["type"] == "game_over":
            await c.send({"type": "next"})
        elif m.get("your_turn"):
            hint = await c.ask("hint", timeout=WAIT)
            assert hint["seq"] == m["seq"] and hint["move"] is not None, hint
            await c.ask("why", move=hint["move"], timeout=WAIT)
            await c.ask("legal", timeout=WAIT)
            await c.move(hint["move"], at=m["seq"])


def test_same_seed_and_same_moves_give_the_same_match_at_a_shared_table(tmp_path):
    """Two runs of one table (a two-game match with tribute, seed ``club9``), seat 1 playing the
    table's hints: the same records, deal for deal and move for move (the bots' choices and the
    deals depend only on the seed and the moves made, not on when messages came)."""
    house = tmp_path / "house.yaml"
    house.write_text(HOUSE, encoding="utf-8")
    records = []

    async def test(s: Served) -> None:
        async with await s.join(name="Li") as li:
            await play_hints_to_the_end(li)
        assert s.room.table.match_over
        records.append(json.dumps(s.room.table.record().to_json(), sort_keys=True))

    for _run in range(2):
        serve(test, str(house), people={1}, seed="club9", between=600.0)
    assert records[0] == records[1]
    moves = [e["move"] for e in json.loads(records[0])["events"] if e["type"] == "move"]
    assert "1 return 33" in moves  # (seat 1 came first in game 1: it returned tribute before game 2)


def test_a_bots_choice_dropped_because_the_table_moved_on_gives_its_draws_back():
    """A bot asked on a state the table has left (a person took his seat back, a search thought too
    long): its choice is dropped and its generator put back, so its next choice is the one a table
    that never asked it makes (random bots: every choice draws)."""
    from gouji_dsl.tools.table.game import Table

    def table() -> Table:
        t = Table(rules_of("online"), "TEST", seed="club", people=set(), bots="random")
        t.start()
        return t

    asked, fresh = table(), table()
    seat = asked.state.to_act
    assert seat is not None
    draws = asked.bot_draws(seat)
    legal = list(asked.state.legal_moves())
    mv = asked.bot_for(seat).choose(asked.state, legal)
    assert not asked.bot_move(seat, mv, asked.seq - 1, draws)  # (chosen on an older state: dropped)
    for t in (asked, fresh):
        for _move in range(30):
            s = t.state.to_act
            assert s is not None and not t.state.over
            choice = t.bot_for(s).choose(t.state, list(t.state.legal_moves()))
            assert t.bot_move(s, choice, t.seq, t.bot_draws(s))
    assert asked.state.record == fresh.state.record


def test_bad_and_out_of_turn_messages_get_a_stable_code_and_change_nothing():
    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        assert (await a.ask("move", move="pass"))["code"] == "not_started"
        watcher = await s.join(watch=True)
        for text, code in (("{", "bad_json"), ("[1, 2]", "bad_json")):
            await a.ws.send_str(text)
            assert (await a.receive("error"))["code"] == code
        assert (await a.ask("dance"))["code"] == "bad_message"
        await a.send({"no": "type"})
        assert "no 'type'" in (await a.receive("error"))["message"]
        for kind in (["hello"], {"a": 1}, 3):  # a type of the wrong kind (the protocol: bad_message, not internal)
            await a.send({"type": kind})
            wrong = await a.receive("error")
            assert wrong["code"] == "bad_message" and "not a text" in wrong["message"], wrong
        again = await a.ask("hello", code=s.room.table.code)
        assert again["code"] == "bad_message" and "already said hello" in again["message"]
        assert (await watcher.ask("start"))["code"] == "not_seated"
        await a.send({"type": "start"})
        state = await a.receive("state", where=lambda m: m["your_turn"])  # the bots moved up to his turn
        seq, t = state["seq"], s.room.table
        hand = t.state.view(1)["hand"]
        assert (await watcher.ask("move", move="1 pass"))["code"] == "not_seated"
        assert (await a.ask("move", move="2 pass"))["code"] == "not_your_turn"
        bad = await a.ask("move", move="play XQ")
        assert bad["code"] == "bad_move" and "X" in bad["message"]
        illegal = await a.ask("move", move="play RRRRRRRR")
        assert illegal["code"] == "illegal_move" and illegal["why"]["legal"] is False and illegal["why"]["reasons"]
        assert (await a.ask("move", move=state["legal"]["moves"][0], at=seq - 1))["code"] == "stale"
        assert (await a.ask("move", move=42))["code"] == "bad_message"
        assert (await a.ask("why", move="2 pass"))["code"] == "not_your_turn"
        assert t.seq == seq and t.state.view(1)["hand"] == hand and t.state.to_act == 1  # nothing changed
        await a.send({"type": "view", "id": "v"})
        now = await a.receive("state", where=lambda m: m.get("id") == "v")
        assert now["full"] and now["seq"] == seq
        assert now["view"]["hand"] == hand
        with pytest.raises(TableClosed) as refused:
            await TableClient.connect(s.link, seat=2, timeout=WAIT)
        assert refused.value.error is not None and refused.value.error["code"] == "no_free_seat"
        for kw, code in (({"token": "x" * 32}, "bad_token"),):
            with pytest.raises(TableClosed) as refused:
                await TableClient.connect(s.link, timeout=WAIT, **kw)
            assert refused.value.error is not None and refused.value.error["code"] == code
        with pytest.raises(TableClosed) as refused:
            await TableClient.connect(f"{s.server.base_url}/t/ZZZZ", timeout=WAIT)
        assert refused.value.error is not None and refused.value.error["code"] == "no_such_table"
        # a message over the size limit: too_big, and that socket closes; the table goes on
        await a.ws.send_str(json.dumps({"type": "ping", "pad": "x" * FAST.message_bytes}))
        assert (await a.receive("error"))["code"] == "too_big"
        assert await closed_with(a) == CloseCode.TOO_BIG
        assert (await watcher.receive("auto", timeout=WAIT))["why"] == "disconnected"
        assert_private(a.messages, 1)
        await a.close()
        await watcher.close()

    serve(test, people={1, 2})


def test_hello_first_and_the_rate_limit():
    """A refused hello: its error, then the close (4000, the error's code as the reason); no hello
    in time: closed (4005); bye: closed (1000); a message that would wait too long: rate_limited."""
    async def test(s: Served) -> None:
        async with aiohttp.ClientSession() as http:
            async with http.ws_connect(f"http://127.0.0.1:{s.port}/ws") as ws:
                await ws.send_str(json.dumps({"type": "ping"}))
                err = json.loads((await ws.receive(timeout=WAIT)).data)
                assert err["code"] == "hello_first"
                close = await ws.receive(timeout=WAIT)
                assert (close.type, close.data, close.extra) == (aiohttp.WSMsgType.CLOSE, CloseCode.REFUSED, "hello_first")
            async with http.ws_connect(f"http://127.0.0.1:{s.port}/ws") as ws:  # (says nothing)
                close = await ws.receive(timeout=WAIT)
                assert (close.type, close.data, close.extra) == (aiohttp.WSMsgType.CLOSE, CloseCode.HELLO_TIMEOUT, "hello_timeout")
        leaving = await s.join(watch=True)
        await leaving.send({"type": "bye"})
        assert await closed_with(leaving) == CloseCode.NORMAL
        a = await s.join(watch=True)
        for _ in range(3):  # (the hello took one of the burst's 3.5)
            await a.send({"type": "ping"})
        assert (await a.receive("error"))["code"] == "rate_limited"
        await a.close()

    serve(test, limits=Limits(messages_per_s=0.001, burst=3.5, hello_s=1.0))


def test_a_flood_is_rate_limited_and_then_closed_with_a_code():
    """A client that keeps sending faster than the rate: the messages that would wait too long are
    dropped with ``rate_limited``; after ``flood_drops`` of them in a row the socket is closed
    (4002). The reading never waits on the rate, so a flood is seen as it comes."""
    async def test(s: Served) -> None:
        w = await s.join(watch=True)
        a = await s.join(watch=True)
        for i in range(300):
            await a.send({"type": "ping", "id": i})
        assert await closed_with(a) == CloseCode.RATE_LIMITED
        limited = [m for m in a.messages if m.get("code") == "rate_limited"]
        assert len(limited) == 4 and "closed" in limited[-1]["message"]  # flood_drops 3, then the close
        b = await s.join(watch=True)
        for _ in range(300):  # frames that are not even JSON text count too
            await b.ws.send_bytes(b"\x00")
        assert await closed_with(b) == CloseCode.RATE_LIMITED
        await w.send({"type": "ping", "id": "w"})  # the other connection is untouched
        await w.receive("pong", where=lambda m: m.get("id") == "w", timeout=WAIT)
        await w.close()

    serve(test, limits=Limits(messages_per_s=0.001, burst=2, slowed_s=1.0, flood_drops=3))


def test_the_host_header_and_a_foreign_pages_websocket_are_refused():
    async def test(s: Served) -> None:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"http://127.0.0.1:{s.port}/t/{s.room.table.code}", headers={"Host": "evil.example"}) as r:
                assert r.status == 403
            async with http.get(s.link) as r:
                info = await r.json()
                assert info["code"] == s.room.table.code and info["protocol"] == 1 and "token" not in json.dumps(info)
            async with http.get(s.link, headers={"Accept": "text/html"}) as r:  # the link opened in a browser
                page = await r.text()
                assert r.content_type == "text/html" and f"gouji join {s.link}" in page and "<script" not in page
            async with http.get(s.link + "/record") as r:
                assert r.status == 409
            with pytest.raises(aiohttp.WSServerHandshakeError) as refused:
                await http.ws_connect(f"http://127.0.0.1:{s.port}/ws", headers={"Origin": "http://evil.example"})
            assert refused.value.status == 403

    serve(test)


def test_the_command_prints_the_code_the_links_and_says_there_is_no_login():
    server = TableServer("127.0.0.1", 8765)
    room = server.open_table(rules_of("online"), people={1, 3})
    text = "\n".join(server.listening_lines())
    code = room.table.code
    assert f"gouji join http://127.0.0.1:8765/t/{code}" in text and "no login" in text and "this machine only" in text
    assert f"?token={room.table.seats[1].token}" in text and room.table.seats[2].token not in text
    assert room.table.seed not in text and room.table.seed_sha256 in text
    assert parse_address(server.seat_link(room, 3)) == ("http://127.0.0.1:8765", code, room.table.seats[3].token)
    assert parse_address(code.lower()) == ("http://127.0.0.1:8765", code, None)
    assert read_seats("1, 3", 6) == {1, 3} and read_seats("all", 6) is None and read_seats("none", 6) == set()
    with pytest.raises(ValueError):
        read_seats("7", 6)
    wide = TableServer("0.0.0.0", 8765)
    wide.open_table(rules_of("online"))
    text = "\n".join(wide.listening_lines())
    assert "every network" in text and "from another machine: gouji join http://" in text and "no login" in text
    assert wide.answers("127.0.0.1:8765") and wide.answers("192.168.1.20:8765") and not wide.answers("evil.example:8765")
    res = CliRunner().invoke(cli, ["host", "online", "--seats", "0"])
    assert res.exit_code == 2 and "--seats" in res.output
    res = CliRunner().invoke(cli, ["host", "no-such-ruleset"])
    assert res.exit_code == 1
    res = CliRunner().invoke(cli, ["host", "--help"])
    assert res.exit_code == 0 and "no login" in res.output


def test_what_a_seat_is_told_of_a_transfer_return_and_deal():
    """As the determinizer reads a seat's knowledge: tribute is seen by all, a return tribute only
    by the two seats involved; a deal never."""
    tribute = {"type": "transfer", "giver": 6, "receiver": 1, "cards": "RB 2", "rule": "tribute.fall"}
    assert visible_event(tribute, 3) == tribute and visible_event(tribute, None) == tribute
    back = {"type": "transfer", "giver": 1, "receiver": 6, "cards": "3 4", "rule": "return"}
    assert visible_event(back, 1) == back and visible_event(back, 6) == back
    assert visible_event(back, 3) == {"type": "transfer", "giver": 1, "receiver": 6, "rule": "return", "cards": None, "count": 2}
    assert visible_event(back, None)["cards"] is None
    ret = {"type": "move", "move": "1 return 3 4"}
    assert visible_event(ret, 1) == ret and visible_event(ret, 2) == {"type": "move", "move": "1 return", "count": 2}
    assert visible_event({"type": "move", "move": "2 discard 44"}, 3)["move"] == "2 discard 44"
    deal = {"type": "deal", "game_number": 2, "seed": "s:1", "hands": {"1": "R"}, "source": "random", "prev": {}}
    assert visible_event(deal, 1) == {"type": "deal", "game_number": 2}


def test_search_bots_think_in_a_worker_thread_and_the_table_answers_meanwhile(monkeypatch):
    """Seat 2's ISMCTS (a small budget) chooses in asyncio.to_thread on a copy of the state; the
    table answers a ping meanwhile; the move it chose is played."""
    import gouji_dsl.tools.table.server as table_server
    threads: list[Any] = []
    real = asyncio.to_thread

    async def counted(fn: Any, *args: Any) -> Any:
        threads.append(args[0])
        return await real(fn, *args)
    monkeypatch.setattr(table_server.asyncio, "to_thread", counted)

    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        await a.send({"type": "ping", "id": "p"})
        assert (await a.receive("pong", where=lambda m: m.get("id") == "p", timeout=WAIT))["type"] == "pong"
        while True:  # he plays until seat 2's search bot has moved
            m = await a.receive("state", timeout=WAIT)
            if (m.get("last") or {}).get("seat") == 2:
                break
            if m["your_turn"]:
                await a.move(m["legal"]["moves"][0], at=m["seq"])
        assert threads and all(st is not s.room.table.state for st in threads)  # each thought on a copy
        await a.close()

    serve(test, people={1}, bots="heuristic,ismcts:4,heuristic,heuristic,heuristic,heuristic")


def test_random_messages_get_answers_with_known_codes_and_never_stop_the_table():
    """A seeded stream of odd messages (unknown types, fields of every kind, odd text) from a player
    and a spectator: each answer is a known message type, each error a known code (never
    ``internal``), and the table then plays on to the end of its match."""
    import random

    from gouji_dsl.tools.table.protocol import ErrorCode
    rng = random.Random(27)
    values: list[Any] = [None, True, 0, -1, 10**30, 1.5, "", "x", "pass", "play", "1 play 3", "play RR", "burn",
                         "choose head", "2 pass", "\u9f99\ud800", "\x00", [], {}, [1, "a"], {"a": 1}, "a" * 3000]
    kinds = ["move", "why", "legal", "hint", "auto", "next", "start", "view", "ping", "hello", "nope", None, 3, ""]
    known = {"state", "table", "auto", "error", "legal", "why", "hint", "pong", "game_over", "match_over"}

    def message() -> dict[str, Any]:
        m: dict[str, Any] = {"type": rng.choice(kinds)}
        for key in rng.sample(["move", "at", "limit", "on", "id", "seat", "token", "code", "watch"], rng.randint(0, 3)):
            m[key] = rng.choice(values)
        return m

    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        w = await s.join(watch=True)
        for i in range(200):
            await (a if i % 3 else w).ws.send_str(json.dumps(message()))  # (\ud800 written as JSON writes it)
        for c in (a, w):
            await c.send({"type": "ping", "id": "end"})
            await c.receive("pong", where=lambda m: m.get("id") == "end", timeout=WAIT)
        codes = {str(c) for c in ErrorCode} - {"internal", "table_failed"}
        for c in (a, w):
            for m in c.messages:
                assert m["type"] in known | {"welcome", "ruleset", "seed"}, m
                if m["type"] == "error":
                    assert m["code"] in codes, m
        assert_private(a.messages, 1)
        assert_private(w.messages, None)
        await a.send({"type": "auto", "on": True})
        await w.receive("match_over", timeout=WAIT)
        await a.close()
        await w.close()

    serve(test, people={1})


def test_start_after_starts_once_a_person_sat_and_the_host_can_start_every_table():
    async def test(s: Served) -> None:
        a = await s.join(name="Li")  # seats 2..6 are kept for people too, but --start-after 0 starts now
        state = await a.receive("state", timeout=WAIT)
        assert state["full"] and s.room.table.started
        table = a.last("table")
        assert table is not None and [x["who"] for x in table["seats"]] == ["player"] + ["bot"] * 5
        assert s.server.start_all() == 0  # (every table has started)
        await a.close()

    serve(test, people=None, start_after=0.0)


def test_after_the_match_a_start_begins_the_next_one_with_a_new_seed_and_its_own_record(tmp_path):
    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        first_hash = (await a.receive("seed"))["sha256"]
        await a.send({"type": "auto", "on": True})  # his bot plays for him (托管 on request)
        assert (await a.receive("auto", timeout=WAIT))["why"] == "asked"
        first = await a.receive("match_over", timeout=WAIT)
        await a.send({"type": "start"})
        second_hash = (await a.receive("seed", timeout=WAIT))["sha256"]
        assert second_hash != first_hash
        second = await a.receive("match_over", timeout=WAIT)
        assert hashlib.sha256(second["seed"].encode()).hexdigest() == second_hash and second["seed"] == first["seed"] + ":match2"
        await a.close()

    serve(test, people={1}, record_dir=tmp_path)
    records = sorted(tmp_path.glob("table-*.json"))
    assert len(records) == 2 and sum(p.name.endswith("-match2.json") for p in records) == 1
    for path in records:
        record = parse_record(path.read_text(encoding="utf-8"), str(path))
        assert len(check_record(record_graph(record), record)) == 1


def test_a_server_stopped_during_a_later_match_saves_that_match_unfinished(tmp_path):
    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        await a.send({"type": "auto", "on": True})
        await a.receive("match_over", timeout=WAIT)
        await a.send({"type": "auto", "on": False})  # (match 2 waits for him)
        await a.receive("auto", where=lambda m: m["on"] is False, timeout=WAIT)
        await a.send({"type": "start"})
        await a.receive("seed", timeout=WAIT)
        await a.receive("state", where=lambda m: m["your_turn"], timeout=WAIT)
        # the test returns with match 2 under way: the server stops (as on Ctrl+C)

    serve(test, people={1}, record_dir=tmp_path)
    names = sorted(p.name for p in tmp_path.glob("table-*.json"))
    assert len(names) == 2 and any(n.endswith("-match2-unfinished.json") for n in names), names
    unfinished = next(p for p in tmp_path.glob("*-match2-unfinished.json"))
    record = parse_record(unfinished.read_text(encoding="utf-8"), str(unfinished))
    check_record(record_graph(record), record)


FAILS = """\
ruleset: fails
extends: online
title: a follow rule that divides by zero
rules:
  - id: follow.divides
    on: follow
    when: "count(finished) >= 0"
    require: "1 // (count(passed_seats) - count(passed_seats)) == 0"
    says: "Fails whenever it is asked."
"""


def test_a_rule_that_fails_stops_its_table_with_a_message_and_the_server_goes_on(tmp_path):
    fails = tmp_path / "fails.yaml"
    fails.write_text(FAILS, encoding="utf-8")

    async def test(s: Served) -> None:
        a = await s.join(name="Li")
        while True:  # he leads when it is his turn, until a follow is asked of someone
            m = await a.receive("state", "error", timeout=WAIT)
            if m["type"] == "error":
                break
            if m["your_turn"]:
                await a.move(m["legal"]["moves"][0], at=m["seq"])
        assert m["code"] == "table_failed" and "follow.divides" in m["message"], m
        assert (await a.ask("move", move="pass"))["code"] == "table_failed"
        await a.send({"type": "ping", "id": "p"})
        await a.receive("pong", where=lambda m: m.get("id") == "p", timeout=WAIT)
        async with aiohttp.ClientSession() as http, http.get(s.link) as r:
            assert r.status == 200
        await a.close()

    serve(test, str(fails), people={1})


async def closed_with(c: TableClient) -> int | None:
    """Wait (bounded) until the server closed ``c``; its close code."""
    with pytest.raises(TableClosed):
        await c.receive("no such message", timeout=WAIT)
    return c.ws.close_code


def test_the_seat_token_on_a_new_connection_takes_the_seat_from_the_old_one_which_is_told_and_the_name_stays():
    """The token is the identity: a hello with it takes the seat from a live connection (the
    documented reconnect path), which is told ``replaced`` and closed with 4001; the seat keeps the
    name it was first claimed with, whatever name the later hello asks for (said in ``notes``)."""
    async def test(s: Served) -> None:
        w = await s.join(watch=True)
        a = await s.join(name="Li", seat=3)
        assert a.seat == 3 and a.welcome["notes"] == []
        other = await TableClient.connect(s.link, token=a.token, name="Mallory", timeout=WAIT)  # another name, same token
        assert other.seat == 3 and other.welcome["name"] == "Li"
        assert [n["code"] for n in other.welcome["notes"]] == ["name_kept"] and "Li" in other.welcome["notes"][0]["message"]
        replaced = await a.receive("replaced", timeout=WAIT)
        assert replaced["code"] == "replaced" and replaced["seat"] == 3 and replaced["message"]
        assert await closed_with(a) == 4001 == CloseCode.REPLACED
        back = await TableClient.connect(s.link, token=a.token, name="Li", timeout=WAIT)  # the owner takes it back
        assert back.welcome["name"] == "Li" and back.welcome["notes"] == []
        assert (await other.receive("replaced", timeout=WAIT))["seat"] == 3
        assert await closed_with(other) == 4001
        await back.send({"type": "ping", "id": 1})
        await back.receive("pong", timeout=WAIT)
        table = s.room.table_json()
        assert table["seats"][2] == {"seat": 3, "who": "player", "name": "Li", "connected": True, "auto": False}
        shown = [m["seats"][2]["name"] for m in w.messages if m["type"] == "table"]
        assert set(shown) <= {None, "Li"}, shown  # nobody was ever shown seat 3 under another name
        for c in (back, w):
            await c.close()

    serve(test, people={1, 3})


def test_connections_and_spectators_are_bounded():
    async def test(s: Served) -> None:
        w = await s.join(watch=True)
        with pytest.raises(TableClosed) as refused:
            await s.join(watch=True)  # one spectator a table
        assert refused.value.error is not None and refused.value.error["code"] == "too_many"
        a = await s.join(name="Li")
        with pytest.raises(TableClosed) as refused:
            await s.join(name="Wang")  # two connections a server
        assert refused.value.error is not None and refused.value.error["code"] == "too_many"
        for c in (w, a):
            await c.close()

    serve(test, people={1, 2}, limits=Limits(connections=2, spectators=1, messages_per_s=1000, burst=1000))


def test_a_client_that_cannot_keep_up_is_dropped_and_its_seat_played_by_its_bot():
    """A connection whose outgoing queue is full is dropped (here: the server's side of it told so
    directly, as Conn.send does when its outbox overflows); the others are told of the 托管."""
    from gouji_dsl.tools.table.server import Conn

    class _Socket:
        closed = False
    full = Conn(_Socket(), Limits(outbox=2))  # type: ignore[arg-type]
    for _ in range(3):
        full.send({"type": "pong"})
    assert full.dropped

    async def test(s: Served) -> None:
        w = await s.join(watch=True)
        a = await s.join(name="Li")
        await a.receive("state", timeout=WAIT)
        mine = next(c for c in s.room.conns if c.seat_number == 1)
        mine.drop()  # what an overflowing outbox does
        auto = await w.receive("auto", timeout=WAIT)
        assert auto == {"type": "auto", "seat": 1, "on": True, "why": "disconnected"}
        assert await closed_with(a) == CloseCode.TOO_SLOW
        await w.close()
        await a.close()

    serve(test, people={1})


PEEKS = """\
ruleset: peeks
extends: online
title: a play rule that reads the opposite's hidden hand
rules:
  - id: play.peek-opposite
    on: play
    when: "leading"
    require: "holds(opposite(seat), 'R') + holds(opposite(seat), 'B') < 100"
    says: "A lead needs the opposite to hold fewer than 100 jokers (always; but it reads his hand)."
"""


def test_why_is_computed_from_the_asking_seats_view_and_says_what_it_leaves_out(tmp_path):
    """A why that needs no hidden card is the play screen's explanation, whole (no ``hidden``). On
    a ruleset whose play rule reads the opposite's hand (hidden from the asker), the verdict is the
    server's but the reasons are left out, and the answer says so (code ``hidden``): neither the
    rule that read the hand nor what it found is told, in the why answer or in an illegal move's error."""
    from gouji_dsl.engine.explain import explain
    from gouji_dsl.tools.table.game import Table
    from gouji_dsl.tools.table.protocol import why_json
    peeks = tmp_path / "peeks.yaml"
    peeks.write_text(PEEKS, encoding="utf-8")
    for ruleset, hidden in (("online", False), (str(peeks), True)):
        t = Table(rules_of(ruleset), "K7QM", seed="club")
        t.start()
        st = t.state
        while st.phase != "play" or st.top is not None:
            st.apply_in_place(st.legal_moves()[0])
        seat = st.to_act
        lead = st.legal_moves()[0]
        why = t.why(seat, lead.text(st.model))
        assert why["legal"] is True and why["move"] == lead.text(st.model)
        if not hidden:
            assert "hidden" not in why and why["text"] == explain(st, lead).format()
            continue
        assert why["hidden"]["code"] == "hidden" and why["hidden"]["left_out"] == ["reasons"], why
        assert why["reasons"] == [] and "peek" not in json.dumps(why) and "cannot see" in why["sentence"]
        assert any(r.rule_id == "play.peek-opposite" for r in explain(st, lead).reasons)  # (what the full view would say)
        with pytest.raises(Exception) as refused:  # an illegal lead: refused, its why without the hidden reasons
            t.move(seat, "play RRRRRRRR")
        err = refused.value.to_json()  # type: ignore[attr-defined]
        assert err["code"] == "illegal_move" and err["why"]["legal"] is False and "peek" not in json.dumps(err["why"])
        assert why_json(st, lead, seat)["hidden"]["left_out"] == ["reasons"]
