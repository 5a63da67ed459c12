"""A stand-in for the gouji app behind ``gouji serve`` in tests/test_serve.py: it speaks textual's
web-driver protocol (the ``__GANGLION__`` line, then ``D``/``M`` packets: 1 byte type, 4 bytes
big-endian length, payload) and answers each packet with a ``D`` packet of JSON saying what it got,
so that a test sees what reached the app. It starts in milliseconds (the real app takes a second
and ~50 MB). ``--ignore-quit``: it does not end on the quit message nor on end of input (a hung
app), so that the server has to terminate it."""
from __future__ import annotations

import json
import os
import sys
import time


def main() -> None:
    ignore_quit = "--ignore-quit" in sys.argv
    out = sys.stdout.buffer

    def send(payload: dict) -> None:
        data = json.dumps(payload).encode()
        out.write(b"D" + len(data).to_bytes(4, "big") + data)
        out.flush()

    out.write(b"__GANGLION__\n")
    send({"started": [int(os.environ["COLUMNS"]), int(os.environ["ROWS"])], "pid": os.getpid(), "argv": sys.argv[1:]})
    inp = sys.stdin.buffer
    while True:
        kind = inp.read(1)
        if not kind:
            break
        size = int.from_bytes(inp.read(4), "big")
        payload = inp.read(size)
        if kind == b"M":
            meta = json.loads(payload)
            if meta.get("type") == "quit" and not ignore_quit:
                return
            send({"meta": meta})
        else:
            send({"stdin": payload.decode("utf-8", "replace")})
    while ignore_quit:
        time.sleep(60)


if __name__ == "__main__":
    main()
