"""A hand-written minimal Gouji engine with ``online``'s rules fixed in code: the yardstick of
``benchmarks/bench_engine.py`` ("× the hand-written reference"). Not part of gouji-dsl: it has
no rulesets, no explanations, no records; it exists to show what a tight special-purpose engine
costs on this machine, in the same run as the generated one.

Rules played (``rules/online.yaml`` and ``base.yaml``): 216 cards (four decks with jokers), six
seats in two teams, plays of one rank with 2s as filler and jokers attached (mixed jokers read as
small), answers of the same count and a higher rank with every joker covered by a stronger one,
gouji plays (five 10s, four Js, three Qs, two Ks or As, one 2, or any joker) answered only by the
opposite while he has a head, burns offered to the gouji player's teammates then the other
opponents, each in turn whether or not he can beat the play (a burner leads with a joker until
his last play, or comes last), the pass rule (a
passed player answers only his opposite), yields, the scramble at four players, 接风, the first
lead by shown 3s, places and team scores with the sweep doubling. Revolutions and dead gouji are
left out (they are rare). Bots choose uniformly among the legal moves; leads are counted, not
listed, as the generated engine does.
"""
from __future__ import annotations

import random

N = 6
NR = 13            # ranks 3..2 are 0..12; small joker 13, big joker 14
FILL = 12          # the 2
GOUJI_MIN = {7: 5, 8: 4, 9: 3, 10: 2, 11: 2, 12: 1}
POINTS = {1: 4, 2: 2, 3: 0, 4: 0, 5: -2, 6: -4}
OPP = [0, 4, 5, 6, 1, 2, 3]
NEXT = [0, 2, 3, 4, 5, 6, 1]
PREV = [0, 6, 1, 2, 3, 4, 5]
AFTER = [[]] + [[(s - 1 + i) % N + 1 for i in range(1, N)] for s in range(1, N + 1)]
MATES = [[]] + [[t for t in AFTER[s] if t % 2 == s % 2] for s in range(1, N + 1)]
FOES = [[]] + [[t for t in AFTER[s] if t % 2 != s % 2 and t != OPP[s]] for s in range(1, N + 1)]
# the pack: 13 ranks x 16 cards (4 suits x 4 decks) + 4 small + 4 big jokers; a card is kind*4 + suit
DECK = [k * 4 + (j % 4) for k in range(NR) for j in range(16)] + [13 * 4] * 4 + [14 * 4] * 4


def _gouji(r: int, c: int, nj: int) -> bool:
    return nj > 0 or (r in GOUJI_MIN and c >= GOUJI_MIN[r])


def _answers(hand: list[int], tr: int, tc: int, tcar: int, tj: int, tjk: int) -> list[tuple[int, int, int, int, int]]:
    """Plays (rank, n, fill, small, big) that beat a play of ``tc`` cards of rank ``tr`` with
    ``tcar`` rank cards and ``tj`` jokers read as kind ``tjk`` (13 small, 14 big)."""
    out = []
    hb, hr_ = hand[13], hand[14]
    jt = hb + hr_
    # jokers that cover: each lead joker needs a stronger one (only big jokers beat small ones;
    # mixed jokers read as small, so a cover uses big jokers only)
    if tj and (tjk == 14 or hr_ < tj):
        return out
    if tcar == 0:  # pure jokers: big jokers over small ones, the same count
        if hr_ >= tc and tjk == 13:
            out.append((-1, 0, 0, 0, tc))
        return out
    fill = hand[FILL]
    if jt < tc and (tr + 1 >= NR or max(hand[tr + 1:NR]) + fill + jt < tc):
        return out  # no group is big enough: a forced pass
    for r in range(tr + 1, NR):
        h = hand[r]
        if not h:
            continue
        fm = fill if r != FILL else 0
        if h + fm + jt < tc:
            continue
        for n in range(1, min(h, tc) + 1):
            for f in range(0, min(fm, tc - n) + 1):
                rest = tc - n - f
                if rest == 0:
                    if not tj:
                        out.append((r, n, f, 0, 0))
                    continue
                if rest > jt:
                    continue
                if tj:  # big jokers only (covering tj, the rest spare)
                    if rest <= hr_ and rest >= tj:
                        out.append((r, n, f, 0, rest))
                else:
                    for b in range(max(0, rest - hr_), min(hb, rest) + 1):
                        out.append((r, n, f, b, rest - b))
    if not tj and jt >= tc:  # pure jokers over a rank play of the same count
        for b in range(max(0, tc - hr_), min(hb, tc) + 1):
            out.append((-1, 0, 0, b, tc - b))
    elif tj and hr_ >= tc:
        out.append((-1, 0, 0, 0, tc))
    return out


def _lead_count(hand: list[int]) -> int:
    J = (hand[13] + 1) * (hand[14] + 1)
    fill = hand[FILL]
    total = J - 1
    for r in range(NR):
        if hand[r]:
            total += hand[r] * ((fill if r != FILL else 0) + 1) * J
    return total


def _lead_at(hand: list[int], i: int) -> tuple[int, int, int, int, int]:
    hb1, hr1 = hand[13] + 1, hand[14] + 1
    J = hb1 * hr1
    fill = hand[FILL]
    for r in range(NR):
        h = hand[r]
        if not h:
            continue
        fm = (fill if r != FILL else 0) + 1
        block = h * fm * J
        if i < block:
            n, rest = divmod(i, fm * J)
            f, j = divmod(rest, J)
            return r, n + 1, f, j // hr1, j % hr1
        i -= block
    i += 1
    return -1, 0, 0, i // hr1, i % hr1


def _burner_lead(hand: list[int], s: int, pick) -> tuple[int, int, int, int, int] | None:
    """A burner's lead, uniformly among those that carry a joker or empty the hand (counted per
    group of rank cards: every joker combination but none, and none only for the last cards)."""
    hb1, hr1 = hand[13] + 1, hand[14] + 1
    J = hb1 * hr1
    size = sum(hand)
    fill = hand[FILL]
    blocks = []
    total = J - 1  # pure jokers
    for r in range(NR):
        h = hand[r]
        if not h:
            continue
        for n in range(1, h + 1):
            for f in range((fill if r != FILL else 0) + 1):
                c = J - 1 + (n + f == size)
                if c:
                    blocks.append((r, n, f, c))
                    total += c
    if not total:
        return None
    i = pick(s, total)
    for r, n, f, c in blocks:
        if i < c:
            j = i + 1 if c < J else i  # (the joker-less play comes first, where allowed)
            return r, n, f, j // hr1, j % hr1
        i -= c
    j = i + 1
    return -1, 0, 0, j // hr1, j % hr1


def play_game(seed: str, bot_seed: str) -> int:
    """One game with random bots; returns the number of decisions."""
    rng = random.Random(seed)
    deck = DECK[:]
    gb = rng.getrandbits  # rng.shuffle(deck), its index draws written out
    for i in range(len(deck) - 1, 0, -1):
        m = i + 1
        k = m.bit_length()
        j = gb(k)
        while j >= m:
            j = gb(k)
        deck[i], deck[j] = deck[j], deck[i]
    hands = [[0] * 15 for _ in range(N + 1)]
    best = (0, 0, 0)
    for s in range(1, N + 1):
        h = hands[s]
        seen = [0, 0, 0, 0]
        for i, c in enumerate(deck[s - 1::N]):
            h[c >> 2] += 1
            if c < 4:  # a 3: the most same-suit 3s shown leads, the first to show them on ties
                seen[c] += 1
                if seen[c] >= 2 and (seen[c] > best[0] or (seen[c] == best[0] and i * N + s < best[1])):
                    best = (seen[c], i * N + s, s)
    bots = [None] + [random.Random(f"{bot_seed}:{s}").getrandbits for s in range(1, N + 1)]
    leader = best[2] or rng.randint(1, N)
    places: dict[int, int] = {}
    burner = 0
    decisions = 0

    def pick(s: int, m: int) -> int:
        gb = bots[s]
        k = m.bit_length()
        i = gb(k)
        while i >= m:
            i = gb(k)
        return i

    def active(s: int) -> bool:
        return s not in places

    def headless(s: int) -> bool:
        return OPP[s] in places

    def finish(s: int) -> None:
        nonlocal burner
        places[s] = min(q for q in range(1, N + 1) if q not in places.values())
        if burner == s:
            burner = 0

    while len(places) < N - 1:
        # ---- lead
        s = leader
        hand = hands[s]
        if burner == s:
            p = _burner_lead(hand, s, pick)
            if p is None:  # the burn fails: the worst free place at once
                places[s] = max(q for q in range(1, N + 1) if q not in places.values())
                burner = 0
                leader = next((t for t in AFTER[s] if active(t)), 0)
                continue
        else:
            p = _lead_at(hand, pick(s, _lead_count(hand)))
        decisions += 1
        passed: set[int] = set()
        top_seat = s
        while True:
            r, n, f, b, rr = p
            hand = hands[top_seat]
            if r >= 0:
                hand[r] -= n
            hand[FILL] -= f
            hand[13] -= b
            hand[14] -= rr
            nj = b + rr
            tc = n + f + nj
            tr = r if r >= 0 else (13 if b else 14)
            tjk = 13 if b else 14
            g = _gouji(tr, tc, nj)
            if not any(hand):
                finish(top_seat)
                if len(places) >= N - 1:
                    break
            scramble = N - len(places) <= 4
            queue: list[tuple[int, bool]] = []
            if g and not scramble and not headless(top_seat):
                queue = [(t, True) for t in MATES[top_seat] + FOES[top_seat]]
            queue += [(t, False) for t in AFTER[top_seat] if t not in passed]
            queue += [(t, False) for t in AFTER[top_seat] if t in passed]
            answered = False
            yielded: set[int] = set()
            qi = 0
            while qi < len(queue):
                t, burn = queue[qi]
                qi += 1
                if not active(t) or t == top_seat:
                    continue
                if burn:
                    if t == OPP[top_seat] or t in passed:
                        continue
                elif not scramble:
                    if t in passed and t != OPP[top_seat]:
                        continue
                    if g and not headless(top_seat) and t != OPP[top_seat] and not headless(t):
                        continue
                ans = _answers(hands[t], tr, tc, n + f, nj, tjk)  # (a burn offer is made even without one)
                can_yield = (not burn and not scramble and t not in yielded and t == OPP[top_seat] and not g
                             and (PREV[t] in passed or not active(PREV[t]))
                             and (PREV[PREV[t]] in passed or not active(PREV[PREV[t]]))
                             and not ((NEXT[t] in passed or not active(NEXT[t]))
                                      and (NEXT[NEXT[t]] in passed or not active(NEXT[NEXT[t]]))))
                m = len(ans) + 1 + can_yield
                i = pick(t, m)
                decisions += 1
                if i < len(ans):
                    if burn:
                        burner = t
                    elif burner == top_seat:
                        burner = 0
                    p = ans[i]
                    top_seat = t
                    answered = True
                    break
                if i == len(ans):
                    if not burn:
                        passed.add(t)
                    continue
                yielded.add(t)  # yield: asked again after the next two
                queue.insert(qi + 2, (t, False))
            if len(places) >= N - 1:
                break
            if not answered:
                leader = top_seat if active(top_seat) else next((t for t in AFTER[top_seat] if active(t)), 0)
                break
    for s in range(1, N + 1):
        if s not in places:
            places[s] = min(q for q in range(1, N + 1) if q not in places.values())
    odd = sum(POINTS[places[s]] for s in (1, 3, 5))
    sweep = sorted(places[s] for s in (1, 3, 5)) == [1, 2, 3] or sorted(places[s] for s in (2, 4, 6)) == [1, 2, 3]
    _ = odd * (2 if sweep else 1)
    return decisions


def run(games: int, seed: str = "ref") -> int:
    """Play ``games`` games; returns the total number of decisions."""
    return sum(play_game(f"{seed}:{i}", f"{seed}:{i}:bot") for i in range(games))


if __name__ == "__main__":  # pragma: no cover - a quick look
    import time
    t = time.process_time()
    d = run(500)
    dt = time.process_time() - t
    print(f"{500 / dt:.0f} games/s, {d / 500:.0f} decisions per game")
