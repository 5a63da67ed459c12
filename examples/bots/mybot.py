#!/usr/bin/env python3
"""A Gouji bot written from outside gouji-dsl: `gouji duel online exec:examples/bots/mybot.py heuristic`.

It reads one JSON object per line on stdin ({"type": "choose", "view": ..., "moves": [...]}) and
answers each with one line {"move": "..."}: here the cheapest play (lowest cards first), keeping
jokers and 2s for later, and passing when the only plays would spend them.
"""
import json
import random
import sys

RANKS = "3456789TJQKA2BR"  # low to high; B, R are the jokers


def cost(move):
    seat, verb, *cards = move.split()  # "3 play RR TTT" -> "3", "play", ["RR", "TTT"]
    if verb not in ("play", "burn", "discard", "return"):
        return 0
    return sum(RANKS.index(c[0]) ** 2 * len(c) for c in cards) / max(1, sum(map(len, cards)))


def choose(view, moves, rng):
    plays = [m for m in moves if m.split()[1] in ("play", "burn")]
    cheap = [m for m in plays if not any(c in "2BR" for c in m.split(None, 2)[2])]
    if cheap:
        return min(cheap, key=cost)
    declines = [m for m in moves if m.split()[1] in ("pass", "yield")]
    return rng.choice(declines) if declines else min(moves, key=cost)


for line in sys.stdin:
    message = json.loads(line)
    rng = random.Random(message["seed"])
    print(json.dumps({"move": choose(message["view"], message["moves"], rng)}), flush=True)
