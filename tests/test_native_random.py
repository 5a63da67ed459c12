"""The native core's generator is CPython's Mersenne Twister bit for bit: seeded as
``random.Random(seed)`` seeds (str and bytes through SHA-512, ints by their absolute value, floats
by their hash), the same words, ``getrandbits`` of every width, ``_randbelow``, ``random()``,
``shuffle`` and ``choice``, over long streams and many seeds; states move both ways between the
two generators."""
from __future__ import annotations

import random

import pytest

from gouji_dsl.engine import native

pytestmark = pytest.mark.skipif(not native.available(), reason=f"native core not built: {native.unavailable_reason()}")

STR_SEEDS = ["", "a", "1", "diff", "diff:0", "diff:17:bot3", "séance", "够级", "x" * 300] + [f"run:{i}" for i in range(40)]
INT_SEEDS = [0, 1, 2, 5, -1, -5, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 2**63, 2**64 - 1, 2**64, 10**40, -(10**40),
             True, False] + list(range(100, 140))
OTHER_SEEDS = [b"", b"bytes", bytearray(b"ba"), 0.5, -2.25, 1e300, float("inf")]
SEEDS = STR_SEEDS + INT_SEEDS + OTHER_SEEDS


@pytest.mark.parametrize("seed", SEEDS, ids=repr)
def test_words_and_states_are_pythons(seed):
    ref, got = random.Random(seed), native.new_random(seed)
    assert got.getstate() == ref.getstate()  # the seeding (init_by_array over the seed's words)
    assert [got.genrand_uint32() for _ in range(3000)] == [ref.getrandbits(32) for _ in range(3000)]  # past 2 refills
    assert got.getstate() == ref.getstate()


@pytest.mark.parametrize("seed", STR_SEEDS[:12] + INT_SEEDS[:12], ids=repr)
def test_getrandbits_of_every_width(seed):
    ref, got = random.Random(seed), native.new_random(seed)
    widths = [k for k in range(0, 200)] + [257, 1000, 4096]
    assert [got.getrandbits(k) for k in widths * 3] == [ref.getrandbits(k) for k in widths * 3]


@pytest.mark.parametrize("seed", SEEDS[:30], ids=repr)
def test_randbelow_random_shuffle_choice(seed):
    ref, got = random.Random(seed), native.new_random(seed)
    bounds = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 100, 216, 2**31, 2**32 - 1, 2**32, 2**32 + 1, 3**30, 2**63, 2**64 - 1]
    for _ in range(40):
        for n in bounds:
            assert got.randbelow(n) == ref._randbelow(n)
    ref, got = random.Random(seed), native.new_random(seed)
    for _ in range(40):
        assert [got.randbelow(n) for n in bounds] == [ref._randbelow(n) for n in bounds]
        assert [got.random() for _ in range(5)] == [ref.random() for _ in range(5)]
        for size in (0, 1, 2, 3, 54, 216, 324):
            a, b = list(range(size)), list(range(size))
            got.shuffle(a)
            ref.shuffle(b)
            assert a == b
        seq = "abcdefghijklmnopq"
        assert [got.choice(seq) for _ in range(7)] == [ref.choice(seq) for _ in range(7)]
    assert got.getstate() == ref.getstate()


def test_randbelow_matches_randrange_as_random_bots_draw():
    """A random bot draws ``rng.randrange(len(moves))``: the same as the native ``randbelow``."""
    ref, got = random.Random("bots"), native.new_random("bots")
    sizes = [1 + (i * 7919) % 97 for i in range(5000)]
    assert [got.randbelow(n) for n in sizes] == [ref.randrange(n) for n in sizes]


def test_randint_as_a_games_random_seat_draws():
    """A game's generator is the core's where the deal is native: ``random_seat()`` draws
    ``randint(1, N)`` from it, as from random.Random (ranges of every width, negative bounds)."""
    ref, got = random.Random("seat"), native.new_random("seat")
    ranges = [(1, 1), (1, 4), (1, 6), (1, 16), (-3, 3), (0, 2**31), (5, 2**40), (-(2**61), 2**61)]
    for _ in range(300):
        assert [got.randint(a, b) for a, b in ranges] == [ref.randint(a, b) for a, b in ranges]
    assert got.getstate() == ref.getstate()
    for bad in ((2, 1), (0, 2**63), (1,), ("a", 2)):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            got.randint(*bad)


def test_sub_generators_seeded_from_64_bits():
    """``random.Random(rng.getrandbits(64))`` (how search bots seed their play-outs) is
    ``seed_u64``."""
    ref = random.Random("parent")
    got = native.new_random("parent")
    for _ in range(50):
        a, b = ref.getrandbits(64), got.getrandbits(64)
        assert a == b
        child = native.new_random(0)
        child.seed_u64(b)
        assert child.getstate() == random.Random(a).getstate()


def test_states_move_both_ways():
    ref = random.Random("both")
    for _ in range(700):
        ref.random()
    got = native.from_python(ref)
    assert got.getstate() == ref.getstate()
    assert [got.getrandbits(17) for _ in range(100)] == [ref.getrandbits(17) for _ in range(100)]
    for _ in range(333):
        got.random()
    back = random.Random(0)
    native.to_python(got, back)
    assert [back.random() for _ in range(100)] == [got.random() for _ in range(100)]
    unseeded = native.new_random(None)  # (from the OS, through a random.Random)
    assert len(unseeded.getstate()[1]) == 625


@pytest.mark.parametrize("bad", [(2, (0,) * 625, None), (3, (0,) * 624, None), (3, (0,) * 624 + (625,), None),
                                 (3, (2**32,) + (0,) * 624, None), (3, (-1,) + (0,) * 624, None), "state", (3,)])
def test_bad_states_are_refused(bad):
    got = native.new_random("keep")
    before = got.getstate()
    with pytest.raises((ValueError, TypeError, OverflowError)):
        got.setstate(bad)
    assert got.getstate() == before  # a refused state changes nothing


def test_bad_arguments_are_refused():
    got = native.new_random(1)
    for call in (lambda: got.randbelow(0), lambda: got.randbelow(-1), lambda: got.randbelow(2**64),
                 lambda: got.getrandbits(-1), lambda: got.seed_key([2**32]), lambda: got.seed_key([-1]),
                 lambda: got.shuffle((1, 2))):
        with pytest.raises((ValueError, TypeError, OverflowError)):
            call()
    with pytest.raises(IndexError):
        got.choice([])
    with pytest.raises(TypeError):
        native.seed_key(object())
    assert native.seed_key(0) == [0] and native.seed_key(2**32) == [0, 1]


def test_switched_off(monkeypatch):
    monkeypatch.setenv(native.DISABLE_ENV, "1")
    assert not native.available() and native.DISABLE_ENV in (native.unavailable_reason() or "")
    with pytest.raises(native.Unsupported):
        native.new_random(1)


def test_sha512_and_text_seeding_in_c():
    """The core's SHA-512 is hashlib's at every length around its block edges, and seeding from a
    text in C (seed_text) is random.Random(text), leading zero bytes included."""
    import hashlib

    from gouji_dsl.engine.native import _core
    data = bytes(range(256)) * 9
    for n in [*range(0, 260), 1000, 2303]:
        assert _core.sha512(data[:n]) == hashlib.sha512(data[:n]).digest(), n
    for s in [*STR_SEEDS, "\x00", "\x00\x00abc", "\x00" * 70]:
        got = _core.Random()
        got.seed_text(s.encode())
        assert got.getstate() == random.Random(s).getstate(), s
        assert got.getstate() == _core.Random(native.seed_key(s)).getstate()
    with pytest.raises(TypeError):
        _core.Random().seed_text("text")  # (bytes: the caller encodes)
