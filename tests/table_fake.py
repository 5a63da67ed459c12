"""A small table server for the client's tests (docs/table-protocol.md, version 1), on loopback.

It speaks the messages ``gouji join`` uses — hello/welcome, ruleset, table, seed, state (each seat its
own ``view``, the events it may see, its legal moves), move, why, hint, next, bye, error — and plays
the other seats with the heuristic bot, with the real interpreter as the judge. ``drop(seat)``
closes a seat's socket as a crashed network would (its seat goes to the bot: 托管).
"""
from __future__ import annotations

import asyncio
import hashlib
import random
import secrets
from typing import Any

from aiohttp import WSMsgType, web
from aiohttp.test_utils import TestServer

from gouji_dsl import resources
from gouji_dsl.bots import HeuristicBot
from gouji_dsl.diagnostics import GoujiError
from gouji_dsl.engine.explain import explain
from gouji_dsl.engine.interpreter import IllegalMove, choice_words, new_game, parse_move
from gouji_dsl.ruleset.graph import load_graph

CODE = "K7QM"


def _public(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out = []
    for e in events:
        if e["type"] == "deal":
            out.append({"type": "deal", "game_number": e.get("game_number", 1)})
        else:
            out.append(e)
    return out


class FakeTable:
    def __init__(self, ruleset: str = "online", seed: int = 3, people: tuple[int, ...] = (1,)):
        self.graph = load_graph(ruleset)
        self.text = (resources.rules_dir() / f"{ruleset}.yaml").read_text(encoding="utf-8")
        self.seed = f"fake-{seed}"
        self.state = new_game(self.graph, f"{self.seed}:0")
        self.people = set(people)
        self.tokens = {s: secrets.token_urlsafe(24) for s in range(1, self.graph.n_seats + 1)}
        self.names: dict[int, str] = {}
        self.sockets: dict[int, web.WebSocketResponse] = {}
        self.watchers: list[web.WebSocketResponse] = []
        self.sent: dict[int, int] = {}  # seat -> how many record events it has been sent
        self.seq = 0
        self.hellos: list[dict[str, Any]] = []
        self.server: TestServer | None = None

    # -------------------------------------------------------------- what a seat sees
    def table_msg(self) -> dict[str, Any]:
        seats = []
        for s in range(1, self.graph.n_seats + 1):
            if s in self.people:
                seats.append({"seat": s, "who": "player", "name": self.names.get(s), "connected": s in self.sockets,
                              "auto": s not in self.sockets})
            else:
                seats.append({"seat": s, "who": "bot", "name": "heuristic", "connected": False, "auto": True})
        return {"type": "table", "started": True, "game": 1, "games": 1, "spectators": len(self.watchers), "seats": seats}

    def state_msg(self, seat: int | None, full: bool, last: dict[str, Any] | None) -> dict[str, Any]:
        st = self.state
        if seat is None:
            view = st.view(1)
            view = {**view, "seat": None, "hand": None,
                    "others": {k: {"team": v["team"]} for k, v in view["others"].items()}}
            view["others"]["1"] = {"team": st.team(1)}
        else:
            view = st.view(seat)
        start = 0 if full or seat is None else self.sent.get(seat, 0)
        events = _public(st.record[start:])
        if seat is not None:
            self.sent[seat] = len(st.record)
        msg: dict[str, Any] = {"type": "state", "seq": self.seq, "game": 1, "full": full, "view": view,
                               "events": events, "last": last, "your_turn": seat is not None and st.to_act == seat,
                               "timer_s": None}
        if seat is not None and st.to_act == seat and not st.over:
            moves = [m.text(st.model) for m in list(st.legal_moves())[:200]]
            msg["legal"] = {"count": len(moves), "moves": moves, "more": False}
        return msg

    async def broadcast(self, last: dict[str, Any] | None) -> None:
        self.seq += 1
        for seat, ws in list(self.sockets.items()):
            await ws.send_json(self.state_msg(seat, False, last))
        for ws in self.watchers:
            await ws.send_json(self.state_msg(None, True, last))

    async def bots(self) -> None:
        st = self.state
        for _ in range(2000):
            if st.over or st.to_act is None or st.to_act in self.sockets:
                break
            seat = st.to_act
            mv = HeuristicBot(random.Random(f"{self.seed}:{len(st.record)}")).choose(st, st.legal_moves())
            st.apply_in_place(mv)
            await self.broadcast({"seat": seat, "move": mv.text(st.model), "by": "bot"})
        if st.over:
            msg = {"type": "game_over", "game": 1, "games": 1, "places": {str(k): v for k, v in st.places.items()},
                   "scores": {str(k): v for k, v in st.scores.items()}, "sweep": bool(st.sweep), "tribute": []}
            for ws in [*self.sockets.values(), *self.watchers]:
                await ws.send_json(msg)
                await ws.send_json({"type": "match_over", "games": [], "totals": {}, "seed": self.seed,
                                    "seed_sha256": hashlib.sha256(self.seed.encode()).hexdigest(), "record": None})

    # -------------------------------------------------------------- the socket
    async def handle(self, request: web.Request) -> web.WebSocketResponse:
        ws = web.WebSocketResponse()
        await ws.prepare(request)
        seat: int | None = None
        try:
            first = await ws.receive_json()
            self.hellos.append(first)
            if first.get("token"):
                seat = next((s for s, t in self.tokens.items() if t == first["token"]), None)
                if seat is None:
                    await ws.send_json({"type": "error", "code": "bad_token", "message": "no seat has that token"})
                    await ws.close()
                    return ws
            elif not first.get("watch"):
                seat = first.get("seat") or next((s for s in sorted(self.people) if s not in self.sockets), None)
            if first.get("name") and seat is not None:
                self.names[seat] = first["name"]
            await ws.send_json({"type": "welcome", "protocol": 1, "code": CODE,
                                "role": "player" if seat is not None else "spectator", "seat": seat,
                                "token": self.tokens[seat] if seat is not None else None,
                                "name": self.names.get(seat) if seat else None, "seats": 6, "games": 1, "timer_s": None})
            await ws.send_json({"type": "ruleset", "name": self.graph.name, "path": f"{self.graph.name}.yaml",
                                "text": self.text, "sha256": hashlib.sha256(self.text.encode()).hexdigest()})
            if seat is not None:
                self.sockets[seat] = ws
            else:
                self.watchers.append(ws)
            await ws.send_json(self.table_msg())
            await ws.send_json({"type": "seed", "sha256": hashlib.sha256(self.seed.encode()).hexdigest(), "scheme": "…"})
            await self.others({"type": "auto", "seat": seat, "on": False, "why": "back"}, ws) if seat else None
            await self.others(self.table_msg(), ws)
            await self.bots()
            await ws.send_json(self.state_msg(seat, True, None))
            async for m in ws:
                if m.type != WSMsgType.TEXT:
                    continue
                await self.request(ws, seat, m.json())
        finally:
            if seat is not None and self.sockets.get(seat) is ws:
                del self.sockets[seat]
                await self.others({"type": "auto", "seat": seat, "on": True, "why": "disconnected"}, None)
                await self.bots()
            if ws in self.watchers:
                self.watchers.remove(ws)
        return ws

    async def others(self, msg: dict[str, Any], but: Any) -> None:
        for ws in [*self.sockets.values(), *self.watchers]:
            if ws is not but and not ws.closed:
                await ws.send_json(msg)

    async def request(self, ws: web.WebSocketResponse, seat: int | None, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        rid = msg.get("id")
        st = self.state

        async def error(code: str, message: str, **more: Any) -> None:
            await ws.send_json({"type": "error", "id": rid, "code": code, "message": message, **more})

        if seat is None and kind in ("move", "why", "hint", "legal"):
            await error("not_seated", "a spectator cannot do that")
            return
        if kind in ("move", "why"):
            try:
                mv = parse_move(str(msg.get("move")), st.model, st.n_seats, words=choice_words(self.graph))
            except GoujiError as e:
                await error("bad_move", e.diagnostics[0].message)
                return
            exp = explain(st, mv)
            why = {"type": "why", "id": rid, "move": mv.text(st.model), "legal": exp.legal, "sentence": exp.sentence(),
                   "text": exp.format(),
                   "reasons": [{"rule": r.rule_id, "verdict": r.verdict, "text": r.text, "where": r.where}
                               for r in exp.reasons],
                   "chain": [{"fact": b.fact, "rules": list(b.rule_ids)} for b in exp.chain], "warnings": []}
            if kind == "why":
                await ws.send_json(why)
                return
            if st.to_act != seat or mv.seat != seat:
                await error("not_your_turn", f"seat {st.to_act} is to act, not seat {seat}")
                return
            try:
                st.apply_in_place(mv)
            except IllegalMove as e:
                await error("illegal_move", str(e), why=why)
                return
            await self.broadcast({"seat": seat, "move": mv.text(st.model), "by": "player"})
            await self.bots()
        elif kind == "hint":
            mv = HeuristicBot(random.Random(0)).choose(st, st.legal_moves()) if st.to_act == seat else None
            await ws.send_json({"type": "hint", "id": rid, "move": mv.text(st.model) if mv else None, "by": "heuristic"})
        elif kind == "bye":
            await ws.close()
        else:
            await error("bad_message", f"unknown type {kind!r}")

    async def drop(self, seat: int) -> None:
        """Close the seat's socket from the server's side (a lost connection)."""
        ws = self.sockets.get(seat)
        if ws is not None:
            await ws.close()

    async def start(self) -> str:
        app = web.Application()
        app.router.add_get("/ws", self.handle)
        self.server = TestServer(app, host="127.0.0.1")
        await self.server.start_server()
        return f"http://127.0.0.1:{self.server.port}"

    async def stop(self) -> None:
        for ws in [*self.sockets.values(), *self.watchers]:
            await ws.close()
        if self.server is not None:
            await self.server.close()
        await asyncio.sleep(0)
