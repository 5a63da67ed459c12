/* CPython's Mersenne Twister (Modules/_randommodule.c), reproduced bit for bit.
 *
 * The generator random.Random uses: MT19937 with CPython's seeding (init_by_array over the
 * 32-bit words of the seed, least significant word first), genrand_uint32, getrandbits(k),
 * _randbelow(n) (getrandbits-based rejection: k = n.bit_length() bits, drawn again while >= n),
 * random() (53 bits from two words), shuffle and choice built on _randbelow. A seed gives the
 * same stream here and in Python: tests/test_native_random.py compares long streams.
 *
 * Header-only (static inline): the extension module and the fuzz harness include it.
 * Every loop is bounded: the rejection loop of _randbelow gives up after MT_MAX_REJECTIONS
 * draws (each draw is accepted with probability > 1/2, so this never happens for a real
 * generator; a caller treats the error as a failure, never as a value).
 */
#ifndef GOUJI_MT_H
#define GOUJI_MT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define MT_N 624
#define MT_M 397
#define MT_MATRIX_A 0x9908b0dfU
#define MT_UPPER_MASK 0x80000000U
#define MT_LOWER_MASK 0x7fffffffU
#define MT_MAX_REJECTIONS 4096

typedef struct {
    uint32_t state[MT_N];
    int index;
    /* a twist in progress (0: none): words lazy - 1 .. MT_N - 1 are still the old block's. A
       generator seeded for one game draws a few dozen words of the 624: each word is twisted when
       it is first drawn, in order, which is the same in-place recurrence as twisting them all at
       once (mt_finish before the words are read from outside: getstate) */
    int lazy;
} mt_state;

static inline void mt_init_genrand(mt_state *r, uint32_t s)
{
    uint32_t *mt = r->state;
    int mti;
    mt[0] = s;
    for (mti = 1; mti < MT_N; mti++)
        mt[mti] = (1812433253U * (mt[mti - 1] ^ (mt[mti - 1] >> 30)) + (uint32_t)mti);
    r->index = mti;
    r->lazy = 0;
}

/* CPython's init_by_array; key_length 0 is treated as the key [0] (as CPython seeds 0). */
static inline void mt_init_by_array(mt_state *r, const uint32_t *init_key, size_t key_length)
{
    static const uint32_t zero = 0;
    uint32_t *mt = r->state;
    size_t i, j, k;
    if (key_length == 0) {
        init_key = &zero;
        key_length = 1;
    }
    {
        /* init_genrand(19650218) is the same 624 words for every seed: computed once, then copied */
        static uint32_t base[MT_N];
        static int have_base = 0;
        if (!have_base) {
            mt_init_genrand(r, 19650218U);
            memcpy(base, mt, sizeof base);
            have_base = 1;
        } else {
            memcpy(mt, base, sizeof base);
            r->index = MT_N;
        }
    }
    /* the two mixing passes as CPython runs them (i from 1 with mt[0] = mt[N-1] at each wrap, j over
       the key), split into runs without a wrap inside: the previous word kept in a register, no test
       per word (the same words in the same order) */
    {
        uint32_t prev = mt[0];
        size_t left = (MT_N > key_length ? MT_N : key_length);
        i = 1;
        j = 0;
        while (left) {
            size_t run = MT_N - i, kr = key_length - j, stop;
            if (run > left)
                run = left;
            if (run > kr)
                run = kr;
            for (stop = i + run; i < stop; i++, j++) {
                prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1664525U)) + init_key[j] + (uint32_t)j;
                mt[i] = prev;
            }
            left -= run;
            if (i >= MT_N) {
                mt[0] = prev;
                i = 1;
            }
            if (j >= key_length)
                j = 0;
        }
        for (k = MT_N - 1; k;) {
            size_t run = MT_N - i, stop;
            if (run > k)
                run = k;
            for (stop = i + run; i < stop; i++) {
                prev = (mt[i] ^ ((prev ^ (prev >> 30)) * 1566083941U)) - (uint32_t)i;
                mt[i] = prev;
            }
            k -= run;
            if (i >= MT_N) {
                mt[0] = prev;
                i = 1;
            }
        }
    }
    mt[0] = 0x80000000U;
    r->index = MT_N;
    r->lazy = 0;
}

/* random.Random(n) for a whole number 0 <= n < 2**64 (e.g. Random(rng.getrandbits(64))). */
static inline void mt_seed_u64(mt_state *r, uint64_t n)
{
    uint32_t key[2];
    key[0] = (uint32_t)(n & 0xffffffffU);
    key[1] = (uint32_t)(n >> 32);
    mt_init_by_array(r, key, key[1] ? 2 : 1);
}

/* twist the words of the twist in progress up to (not including) `upto` (genrand's recurrence, word
 * by word in order: a word kk < N - M reads the old words kk + 1 and kk + M, a later one the new
 * word kk + M - N, the last the new word 0) */
static inline void mt_twist_to(mt_state *r, int upto)
{
    static const uint32_t mag01[2] = {0x0U, MT_MATRIX_A};
    uint32_t *mt = r->state, y;
    int kk = r->lazy - 1;
    if (r->lazy <= 0 || r->lazy > MT_N)
        return;
    if (upto > MT_N)
        upto = MT_N;
    for (; kk < upto && kk < MT_N - MT_M; kk++) {
        y = (mt[kk] & MT_UPPER_MASK) | (mt[kk + 1] & MT_LOWER_MASK);
        mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    for (; kk < upto && kk < MT_N - 1; kk++) {
        y = (mt[kk] & MT_UPPER_MASK) | (mt[kk + 1] & MT_LOWER_MASK);
        mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ mag01[y & 0x1U];
    }
    if (kk < upto && kk == MT_N - 1) {
        y = (mt[MT_N - 1] & MT_UPPER_MASK) | (mt[0] & MT_LOWER_MASK);
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ mag01[y & 0x1U];
        kk++;
    }
    r->lazy = kk >= MT_N ? 0 : kk + 1;
}

/* the twist in progress finished: the 624 words as CPython holds them */
static inline void mt_finish(mt_state *r)
{
    mt_twist_to(r, MT_N);
}

#define MT_LAZY_STEP 16  /* words twisted at a time */

static inline uint32_t mt_genrand_uint32(mt_state *r)
{
    uint32_t *mt = r->state;
    uint32_t y;
    if (r->index >= MT_N || r->index < 0) {
        mt_finish(r);  /* (a state set from outside mid-twist: cannot happen; kept exact all the same) */
        r->index = 0;
        r->lazy = 1;
    }
    if (r->lazy > 0 && r->index >= r->lazy - 1)
        mt_twist_to(r, r->index + MT_LAZY_STEP);
    y = mt[r->index++];
    y ^= (y >> 11);
    y ^= (y << 7) & 0x9d2c5680U;
    y ^= (y << 15) & 0xefc60000U;
    y ^= (y >> 18);
    return y;
}

/* getrandbits(k) for 0 <= k <= 64 (words least significant first, as CPython fills them). */
static inline uint64_t mt_getrandbits(mt_state *r, int k)
{
    uint64_t lo, hi;
    if (k <= 0)
        return 0;
    if (k <= 32)
        return mt_genrand_uint32(r) >> (32 - k);
    if (k > 64)
        k = 64;
    lo = mt_genrand_uint32(r);
    hi = mt_genrand_uint32(r) >> (64 - k);
    return lo | (hi << 32);
}

static inline int mt_bit_length(uint64_t n)
{
    int k = 0;
    while (n && k < 64) {
        n >>= 1;
        k++;
    }
    return k;
}

/* _randbelow(n) for 0 < n < 2**64: 0 on success (*out set), -1 when n == 0 or the rejection
 * loop ran past MT_MAX_REJECTIONS draws. */
static inline int mt_randbelow(mt_state *r, uint64_t n, uint64_t *out)
{
    int k, tries;
    uint64_t v;
    if (n == 0)
        return -1;
    k = mt_bit_length(n);
    for (tries = 0; tries < MT_MAX_REJECTIONS; tries++) {
        v = mt_getrandbits(r, k);
        if (v < n) {
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* random(): 53 random bits as a float in [0, 1). */
static inline double mt_random(mt_state *r)
{
    uint32_t a = mt_genrand_uint32(r) >> 5, b = mt_genrand_uint32(r) >> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
}

/* shuffle of items[0..n): random.Random.shuffle's draws and swaps. 0, or -1 as mt_randbelow. */
static inline int mt_shuffle_int(mt_state *r, int32_t *items, size_t n)
{
    size_t i;
    uint64_t j;
    int32_t t;
    if (n < 2)
        return 0;
    for (i = n - 1; i >= 1; i--) {
        if (mt_randbelow(r, (uint64_t)i + 1, &j) < 0 || j > i)
            return -1;
        t = items[i];
        items[i] = items[j];
        items[j] = t;
    }
    return 0;
}

#endif /* GOUJI_MT_H */
