"""Time the club table server (issue 27): a match of bots on one table served over loopback to N
spectators (every move is sent to each of them as its own state message), in one process.

    python benchmarks/bench_table.py [--ruleset qingdao] [--watchers 1,8] [--seed 1]

Prints, per number of spectators: wall and CPU seconds of the match (server and clients share the
process), its moves, moves a second, and the messages each spectator got.
"""
from __future__ import annotations

import argparse
import asyncio
import time

from aiohttp.test_utils import TestServer

from gouji_dsl.tools.cli_host import table_rules
from gouji_dsl.tools.table.client import TableClient
from gouji_dsl.tools.table.protocol import Limits
from gouji_dsl.tools.table.server import TableServer


async def one_match(ruleset: str, watchers: int, seed: str) -> dict[str, float]:
    server = TableServer("127.0.0.1", 0, limits=Limits(spectators=max(16, watchers)), record_dir=None)
    room = server.open_table(table_rules(ruleset), people={1}, between=0.0, seed=seed)  # starts when seat 1 is taken
    ts = TestServer(server.make_app(), host="127.0.0.1", port=0)
    await ts.start_server()
    assert ts.port is not None
    server.listening_on(ts.port)
    link = server.room_link(room)
    try:
        clients = [await TableClient.connect(link, watch=True) for _ in range(watchers)]
        t0, c0 = time.perf_counter(), time.process_time()
        player = await TableClient.connect(link, name="bench")
        await player.send({"type": "auto", "on": True})  # his bot plays him too: a match of bots
        await asyncio.gather(*(c.receive("match_over", timeout=3600) for c in clients))
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        moves = sum(1 for e in room.table.record().events if e["type"] == "move")
        got = len(clients[0].messages)
        for c in [*clients, player]:
            await c.close()
    finally:
        await ts.close()
    return {"wall": wall, "cpu": cpu, "moves": moves, "messages": got}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--ruleset", default="qingdao")
    ap.add_argument("--watchers", default="1,8", help="numbers of spectators, comma-separated")
    ap.add_argument("--seed", default="1")
    args = ap.parse_args()
    for n in (int(x) for x in args.watchers.split(",")):
        r = asyncio.run(one_match(args.ruleset, n, args.seed))
        print(f"{args.ruleset}, {n} spectator(s): {r['wall']:.2f} s wall, {r['cpu']:.2f} s CPU, {r['moves']:.0f} moves, "
              f"{r['moves'] / r['wall']:.0f} moves/s, {r['messages']:.0f} messages each")


if __name__ == "__main__":
    main()
