/* gouji_dsl.engine.native._core: the native play-out core's compiled part.
 *
 * One binary for every ruleset (see the package docstring, gouji_dsl/engine/native/__init__.py):
 * this session it holds CPython's Mersenne Twister (mt.h) as a Python type, so that tests can
 * compare its streams with random.Random's and the game flow built on it draws the same numbers.
 *
 * Memory safety: every index a caller passes is checked against its array before use; every loop
 * is bounded (mt.h). Built by setup.py as an optional extension: where it cannot be built the
 * package still installs and the interpreter / generated module play (visibly).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "game.h"
#include "mt.h"
#include "sha512.h"
#include "vm.h"

typedef struct {
    PyObject_HEAD
    mt_state mt;
} RandomObject;

/* key: a sequence of whole numbers 0 <= w < 2**32 (the seed's 32-bit words, least significant
 * first), as CPython's random_seed hands them to init_by_array. */
static int seed_from_key(RandomObject *self, PyObject *key)
{
    PyObject *seq = PySequence_Fast(key, "the key is a sequence of 32-bit words");
    Py_ssize_t n, i;
    uint32_t *words;
    if (seq == NULL)
        return -1;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n > (1 << 20)) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "the key has more than 2**20 words");
        return -1;
    }
    words = (uint32_t *)PyMem_Malloc(sizeof(uint32_t) * (size_t)(n ? n : 1));
    if (words == NULL) {
        Py_DECREF(seq);
        PyErr_NoMemory();
        return -1;
    }
    for (i = 0; i < n; i++) {
        unsigned long long w = PyLong_AsUnsignedLongLong(PySequence_Fast_GET_ITEM(seq, i));
        if (PyErr_Occurred() || w > 0xffffffffULL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_ValueError, "a key word is not below 2**32");
            PyMem_Free(words);
            Py_DECREF(seq);
            return -1;
        }
        words[i] = (uint32_t)w;
    }
    mt_init_by_array(&self->mt, words, (size_t)n);
    PyMem_Free(words);
    Py_DECREF(seq);
    return 0;
}

static PyObject *Random_seed_text(RandomObject *self, PyObject *arg);

/* Random(key=None, text=None): seeded from a key's words, from a text's UTF-8 bytes (as
 * random.Random(text)), or as random.Random(0). */
static int Random_init(RandomObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"key", "text", NULL};
    PyObject *key = NULL, *text = NULL, *done;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|OO:Random", kwlist, &key, &text))
        return -1;
    if (key != NULL && text != NULL) {
        PyErr_SetString(PyExc_TypeError, "Random() takes a key or a text, not both");
        return -1;
    }
    if (text != NULL) {
        done = Random_seed_text(self, text);
        if (done == NULL)
            return -1;
        Py_DECREF(done);
        return 0;
    }
    if (key == NULL) {
        mt_init_by_array(&self->mt, NULL, 0);
        return 0;
    }
    return seed_from_key(self, key);
}

static PyObject *Random_seed_key(RandomObject *self, PyObject *key)
{
    if (seed_from_key(self, key) < 0)
        return NULL;
    Py_RETURN_NONE;
}

/* seed_text(data): random.Random(data) for bytes (a str's UTF-8 bytes): the number whose big-endian
 * bytes are data followed by SHA-512(data), its 32-bit words least significant first. */
static PyObject *Random_seed_text(RandomObject *self, PyObject *arg)
{
    const unsigned char *data;
    unsigned char *all;
    Py_ssize_t n, total, start, words, i;
    uint32_t *key;
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "seed_text() takes bytes (a str's UTF-8 encoding)");
        return NULL;
    }
    data = (const unsigned char *)PyBytes_AS_STRING(arg);
    n = PyBytes_GET_SIZE(arg);
    if (n > (1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "a seed text of more than 16 MiB");
        return NULL;
    }
    total = n + 64;
    all = (unsigned char *)PyMem_Malloc((size_t)total);
    key = (uint32_t *)PyMem_Malloc(sizeof(uint32_t) * (size_t)(total / 4 + 2));
    if (all == NULL || key == NULL) {
        PyMem_Free(all);
        PyMem_Free(key);
        return PyErr_NoMemory();
    }
    memcpy(all, data, (size_t)n);
    sha512(data, (size_t)n, all + n);
    for (start = 0; start < total && all[start] == 0; start++)
        ;  /* (leading zero bytes do not count: int.from_bytes drops them) */
    words = (total - start + 3) / 4;
    for (i = 0; i < words; i++) {
        uint32_t w = 0;
        int b;
        for (b = 3; b >= 0; b--) {
            Py_ssize_t at = total - 1 - (4 * i + b);
            w = (w << 8) | (at >= start ? all[at] : 0);
        }
        key[i] = w;
    }
    mt_init_by_array(&self->mt, key, (size_t)words);  /* (0 words: the key [0], as CPython seeds 0) */
    PyMem_Free(all);
    PyMem_Free(key);
    Py_RETURN_NONE;
}

static PyObject *sha512_digest(PyObject *Py_UNUSED(module), PyObject *arg)
{
    unsigned char d[64];
    if (!PyBytes_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "sha512() takes bytes");
        return NULL;
    }
    sha512((const unsigned char *)PyBytes_AS_STRING(arg), (size_t)PyBytes_GET_SIZE(arg), d);
    return PyBytes_FromStringAndSize((const char *)d, 64);
}

static PyObject *Random_seed_u64(RandomObject *self, PyObject *arg)
{
    unsigned long long n = PyLong_AsUnsignedLongLong(arg);
    if (PyErr_Occurred())
        return NULL;
    mt_seed_u64(&self->mt, (uint64_t)n);
    Py_RETURN_NONE;
}

static PyObject *Random_genrand_uint32(RandomObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyLong_FromUnsignedLong(mt_genrand_uint32(&self->mt));
}

static PyObject *Random_getrandbits(RandomObject *self, PyObject *arg)
{
    Py_ssize_t k = PyLong_AsSsize_t(arg), words, i;
    unsigned char *buf;
    PyObject *bytes, *result;
    if (k == -1 && PyErr_Occurred())
        return NULL;
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "number of bits must be non-negative");
        return NULL;
    }
    if (k <= 64)
        return PyLong_FromUnsignedLongLong(mt_getrandbits(&self->mt, (int)k));
    if (k > ((Py_ssize_t)1 << 24)) {
        PyErr_SetString(PyExc_ValueError, "more than 2**24 bits at once");
        return NULL;
    }
    words = (k - 1) / 32 + 1;
    buf = (unsigned char *)PyMem_Malloc((size_t)words * 4);
    if (buf == NULL)
        return PyErr_NoMemory();
    for (i = 0; i < words; i++, k -= 32) {
        uint32_t r = mt_genrand_uint32(&self->mt);
        if (k < 32)
            r >>= (32 - k);
        buf[4 * i] = (unsigned char)(r & 0xff);
        buf[4 * i + 1] = (unsigned char)((r >> 8) & 0xff);
        buf[4 * i + 2] = (unsigned char)((r >> 16) & 0xff);
        buf[4 * i + 3] = (unsigned char)((r >> 24) & 0xff);
    }
    bytes = PyBytes_FromStringAndSize((const char *)buf, words * 4);
    PyMem_Free(buf);
    if (bytes == NULL)
        return NULL;
    result = PyObject_CallMethod((PyObject *)&PyLong_Type, "from_bytes", "Os", bytes, "little");
    Py_DECREF(bytes);
    return result;
}

static int below(RandomObject *self, Py_ssize_t n, Py_ssize_t *out)
{
    uint64_t v;
    if (n <= 0) {
        PyErr_SetString(PyExc_ValueError, "empty range");
        return -1;
    }
    if (mt_randbelow(&self->mt, (uint64_t)n, &v) < 0 || v >= (uint64_t)n) {
        PyErr_SetString(PyExc_RuntimeError, "the generator's rejection loop ran past its bound");
        return -1;
    }
    *out = (Py_ssize_t)v;
    return 0;
}

static PyObject *Random_randbelow(RandomObject *self, PyObject *arg)
{
    unsigned long long n = PyLong_AsUnsignedLongLong(arg);
    uint64_t v;
    if (PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
            PyErr_Clear();
            PyErr_SetString(PyExc_ValueError, "the native generator draws below 0 < n < 2**64 only");
        }
        return NULL;
    }
    if (n == 0) {
        PyErr_SetString(PyExc_ValueError, "empty range");
        return NULL;
    }
    if (mt_randbelow(&self->mt, (uint64_t)n, &v) < 0) {
        PyErr_SetString(PyExc_RuntimeError, "the generator's rejection loop ran past its bound");
        return NULL;
    }
    return PyLong_FromUnsignedLongLong(v);
}

/* randint(a, b): random.Random.randint (randrange(a, b + 1): a + _randbelow(b + 1 - a)), for
 * whole numbers whose range fits below 2**63. */
static PyObject *Random_randint(RandomObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    long long a, b;
    uint64_t v;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "randint() takes two whole numbers a and b");
        return NULL;
    }
    a = PyLong_AsLongLong(args[0]);
    if (a == -1 && PyErr_Occurred())
        return NULL;
    b = PyLong_AsLongLong(args[1]);
    if (b == -1 && PyErr_Occurred())
        return NULL;
    if (b < a) {
        PyErr_Format(PyExc_ValueError, "empty range in randrange(%lld, %lld)", a, b + 1);
        return NULL;
    }
    if (a < -(1LL << 62) || b >= (1LL << 62)) {
        PyErr_SetString(PyExc_ValueError, "the native generator's randint takes a range within +-2**62");
        return NULL;
    }
    if (mt_randbelow(&self->mt, (uint64_t)(b - a) + 1, &v) < 0) {
        PyErr_SetString(PyExc_RuntimeError, "the generator's rejection loop ran past its bound");
        return NULL;
    }
    return PyLong_FromLongLong(a + (long long)v);
}

static PyObject *Random_random(RandomObject *self, PyObject *Py_UNUSED(ignored))
{
    return PyFloat_FromDouble(mt_random(&self->mt));
}

static PyObject *Random_shuffle(RandomObject *self, PyObject *arg)
{
    Py_ssize_t i, j, n;
    if (!PyList_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "shuffle() takes a list");
        return NULL;
    }
    n = PyList_GET_SIZE(arg);
    for (i = n - 1; i >= 1; i--) {
        PyObject *t;
        if (below(self, i + 1, &j) < 0)
            return NULL;
        if (PyList_GET_SIZE(arg) != n || j > i) {  /* (a list changed under us cannot happen: no callbacks) */
            PyErr_SetString(PyExc_RuntimeError, "the list changed size during shuffle");
            return NULL;
        }
        t = PyList_GET_ITEM(arg, i);
        PyList_SET_ITEM(arg, i, PyList_GET_ITEM(arg, j));
        PyList_SET_ITEM(arg, j, t);
    }
    Py_RETURN_NONE;
}

static PyObject *Random_choice(RandomObject *self, PyObject *seq)
{
    Py_ssize_t n = PySequence_Length(seq), j;
    if (n < 0)
        return NULL;
    if (n == 0) {
        PyErr_SetString(PyExc_IndexError, "Cannot choose from an empty sequence");
        return NULL;
    }
    if (below(self, n, &j) < 0)
        return NULL;
    return PySequence_GetItem(seq, j);
}

/* (3, (625 whole numbers: the 624 words and the index), None): random.Random.getstate()'s form */
static PyObject *Random_getstate(RandomObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *words = PyTuple_New(MT_N + 1), *v;
    int i;
    if (words == NULL)
        return NULL;
    mt_finish(&self->mt);  /* (the words as CPython holds them: no twist half done) */
    for (i = 0; i < MT_N; i++) {
        v = PyLong_FromUnsignedLong(self->mt.state[i]);
        if (v == NULL) {
            Py_DECREF(words);
            return NULL;
        }
        PyTuple_SET_ITEM(words, i, v);
    }
    v = PyLong_FromLong(self->mt.index);
    if (v == NULL) {
        Py_DECREF(words);
        return NULL;
    }
    PyTuple_SET_ITEM(words, MT_N, v);
    return Py_BuildValue("(iNO)", 3, words, Py_None);
}

static PyObject *Random_setstate(RandomObject *self, PyObject *state)
{
    PyObject *words;
    mt_state fresh;
    long index;
    int i;
    if (!PyTuple_Check(state) || PyTuple_GET_SIZE(state) != 3 || !PyLong_Check(PyTuple_GET_ITEM(state, 0))
        || PyLong_AsLong(PyTuple_GET_ITEM(state, 0)) != 3) {
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_ValueError, "a state is random.Random.getstate()'s (3, words, gauss_next)");
        return NULL;
    }
    words = PyTuple_GET_ITEM(state, 1);
    if (!PyTuple_Check(words) || PyTuple_GET_SIZE(words) != MT_N + 1) {
        PyErr_SetString(PyExc_ValueError, "state vector is the wrong size");
        return NULL;
    }
    for (i = 0; i < MT_N; i++) {
        unsigned long w = PyLong_AsUnsignedLong(PyTuple_GET_ITEM(words, i));
        if (PyErr_Occurred() || w > 0xffffffffUL) {
            if (!PyErr_Occurred())
                PyErr_SetString(PyExc_OverflowError, "a state word is not below 2**32");
            return NULL;
        }
        fresh.state[i] = (uint32_t)w;
    }
    index = PyLong_AsLong(PyTuple_GET_ITEM(words, MT_N));
    if (index == -1 && PyErr_Occurred())
        return NULL;
    if (index < 0 || index > MT_N) {
        PyErr_SetString(PyExc_ValueError, "invalid state");
        return NULL;
    }
    fresh.index = (int)index;
    fresh.lazy = 0;
    self->mt = fresh;
    Py_RETURN_NONE;
}

static PyMethodDef Random_methods[] = {
    {"seed_key", (PyCFunction)Random_seed_key, METH_O, "Seed from the 32-bit words of a seed (init_by_array)."},
    {"seed_text", (PyCFunction)Random_seed_text, METH_O, "Seed as random.Random(text) from the text's UTF-8 bytes."},
    {"seed_u64", (PyCFunction)Random_seed_u64, METH_O, "Seed as random.Random(n) for 0 <= n < 2**64."},
    {"genrand_uint32", (PyCFunction)Random_genrand_uint32, METH_NOARGS, "The next 32-bit word."},
    {"getrandbits", (PyCFunction)Random_getrandbits, METH_O, "As random.Random.getrandbits(k)."},
    {"randbelow", (PyCFunction)Random_randbelow, METH_O, "As random.Random._randbelow(n), 0 < n < 2**64."},
    {"randrange", (PyCFunction)Random_randbelow, METH_O, "As random.Random.randrange(n) for 0 < n < 2**64 (a random bot's draw)."},
    {"randint", (PyCFunction)(void (*)(void))Random_randint, METH_FASTCALL, "As random.Random.randint(a, b) (a game's random_seat())."},
    {"random", (PyCFunction)Random_random, METH_NOARGS, "As random.Random.random()."},
    {"shuffle", (PyCFunction)Random_shuffle, METH_O, "As random.Random.shuffle(list)."},
    {"choice", (PyCFunction)Random_choice, METH_O, "As random.Random.choice(seq)."},
    {"getstate", (PyCFunction)Random_getstate, METH_NOARGS, "The state, in random.Random.getstate()'s form."},
    {"setstate", (PyCFunction)Random_setstate, METH_O, "Set the state from random.Random.getstate()'s form."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RandomType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gouji_dsl.engine.native._core.Random",
    .tp_basicsize = sizeof(RandomObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CPython's Mersenne Twister in C: Random(key) seeds from the seed's 32-bit words.",
    .tp_methods = Random_methods,
    .tp_init = (initproc)Random_init,
    .tp_new = PyType_GenericNew,
};


/* deal(rng, deck_kinds, n_seats, n_kinds, n_ranks, first) -> (order, hands): the pack shuffled
 * by `rng` (a Random, advanced as random.Random.shuffle advances) and dealt from seat `first`:
 * `order` the deck positions in dealt order (card i goes to seat (first - 1 + i) % n + 1),
 * `hands` per seat 1..n the count per kind (index 0 is an empty placeholder, as playout's). */
static PyObject *core_deal(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *rng_obj, *hands, *order;
    Py_buffer kinds;
    int n_seats, n_kinds, n_ranks, first, i, s, k;
    const char *why = NULL;
    g_tables *t;
    g_state *st;
    if (!PyArg_ParseTuple(args, "O!y*iiii:deal", &RandomType, &rng_obj, &kinds, &n_seats, &n_kinds, &n_ranks, &first))
        return NULL;
    t = (g_tables *)PyMem_Calloc(1, sizeof(g_tables));
    st = (g_state *)PyMem_Calloc(1, sizeof(g_state));
    if (t == NULL || st == NULL) {
        PyMem_Free(t);
        PyMem_Free(st);
        PyBuffer_Release(&kinds);
        return PyErr_NoMemory();
    }
    t->n_seats = n_seats;
    t->n_kinds = n_kinds;
    t->n_ranks = n_ranks;
    if (kinds.len > G_MAX_CARDS) {
        why = "the pack has more than 2048 cards";
    } else {
        t->n_cards = (int)kinds.len;
        memcpy(t->deck_kind, kinds.buf, (size_t)kinds.len);
        g_tables_check(t, &why);
    }
    PyBuffer_Release(&kinds);
    if (why == NULL && (first < 1 || first > n_seats))
        why = "the first drawer is not a seat";
    if (why == NULL && g_deal(t, &((RandomObject *)rng_obj)->mt, first, st) < 0)
        why = "the generator failed while shuffling";
    if (why != NULL) {
        PyMem_Free(t);
        PyMem_Free(st);
        PyErr_SetString(PyExc_ValueError, why);
        return NULL;
    }
    order = PyTuple_New(t->n_cards);
    hands = PyTuple_New(t->n_seats + 1);
    if (order == NULL || hands == NULL)
        goto fail;
    for (i = 0; i < t->n_cards; i++) {
        PyObject *v = PyLong_FromLong(st->order[i]);
        if (v == NULL)
            goto fail;
        PyTuple_SET_ITEM(order, i, v);
    }
    for (s = 0; s <= t->n_seats; s++) {
        PyObject *h = PyTuple_New(t->n_kinds);
        if (h == NULL)
            goto fail;
        PyTuple_SET_ITEM(hands, s, h);
        for (k = 0; k < t->n_kinds; k++) {
            PyObject *v = PyLong_FromLong(s ? st->hands[s][k] : 0);
            if (v == NULL)
                goto fail;
            PyTuple_SET_ITEM(h, k, v);
        }
    }
    PyMem_Free(t);
    PyMem_Free(st);
    return Py_BuildValue("(NN)", order, hands);
fail:
    Py_XDECREF(order);
    Py_XDECREF(hands);
    PyMem_Free(t);
    PyMem_Free(st);
    return NULL;
}

/* ------------------------------------------------------------------------------ hook programs */
/* The flat layout of a context (int64 words), as hooks.py packs it. */
#define L_HEAD 4
#define L_VARS (L_HEAD)
#define L_PRESENT (L_VARS + 2 * VM_NSLOTS)
#define L_ATTRS (L_PRESENT + VM_NPLAYS)
#define L_PLACE (L_ATTRS + 2 * VM_NPLAYS * VM_NATTRS)
#define L_HANDS (L_PLACE + G_MAX_SEATS + 1)
#define L_SETBITS (L_HANDS + (G_MAX_SEATS + 1) * G_MAX_KINDS)
#define L_SETCOUNT (L_SETBITS + SET_N)
#define L_STRENGTH (L_SETCOUNT + SET_N)
#define L_FLAGS (L_STRENGTH + G_MAX_KINDS)
#define L_PREVFLAGS (L_FLAGS + VM_NFLAGS)
#define L_COUNTERS (L_PREVFLAGS + VM_NFLAGS)
#define L_SETORDER (L_COUNTERS + VM_NCOUNTERS * (G_MAX_SEATS + 1))
#define L_DEALT (L_SETORDER + SET_N * G_MAX_SEATS)
#define L_RECEIVED (L_DEALT + (G_MAX_SEATS + 1) * G_MAX_KINDS)
#define L_PREVPLACE (L_RECEIVED + (G_MAX_SEATS + 1) * G_MAX_KINDS)
#define L_SHOWN_N (L_PREVPLACE + G_MAX_SEATS + 1)
#define L_SHOWN_T (L_SHOWN_N + (G_MAX_SEATS + 1) * G_MAX_KINDS)
#define L_PREVBURNS (L_SHOWN_T + (G_MAX_SEATS + 1) * G_MAX_KINDS)
#define L_PLAYCOUNTS (L_PREVBURNS + 2 * (G_MAX_SEATS + 1) * (G_MAX_SEATS + 1))
#define L_PREVCOUNTERS (L_PLAYCOUNTS + VM_NPLAYS * G_MAX_KINDS)
#define L_LEN (L_PREVCOUNTERS + VM_NCOUNTERS * (G_MAX_SEATS + 1))

static int get_code(Py_buffer *b, const int32_t **code, int *n)
{
    if (b->len % 4 != 0 || b->len / 4 > VM_MAX_CODE || b->len == 0) {
        PyErr_SetString(PyExc_ValueError, "a program is 1..4096 32-bit words");
        return -1;
    }
    *code = (const int32_t *)b->buf;
    *n = (int)(b->len / 4);
    return 0;
}

static int unpack_ctx(Py_buffer *b, vm_ctx *c)
{
    const int64_t *w;
    int i, j;
    if (b->len != (Py_ssize_t)(L_LEN * 8)) {
        PyErr_SetString(PyExc_ValueError, "a context is CTX_LEN 64-bit words");
        return -1;
    }
    w = (const int64_t *)b->buf;
    memset(c, 0, sizeof *c);
    for (i = 0; i < L_LEN; i++)
        if (w[i] < -VM_INT_LIMIT || w[i] > VM_INT_LIMIT) {
            PyErr_SetString(PyExc_ValueError, "a context word is out of range");
            return -1;
        }
    c->n_seats = (int)w[0];
    c->n_teams = (int)w[1];
    c->n_kinds = (int)w[2];
    c->n_ranks = (int)w[3];
    for (i = 0; i < VM_NSLOTS; i++) {
        c->vars[i].tag = (int32_t)w[L_VARS + 2 * i];
        c->vars[i].v = w[L_VARS + 2 * i + 1];
    }
    for (i = 0; i < VM_NPLAYS; i++)
        c->play_present[i] = w[L_PRESENT + i] != 0;
    for (i = 0; i < VM_NPLAYS; i++)
        for (j = 0; j < VM_NATTRS; j++) {
            c->play_attr[i][j].tag = (int32_t)w[L_ATTRS + 2 * (i * VM_NATTRS + j)];
            c->play_attr[i][j].v = w[L_ATTRS + 2 * (i * VM_NATTRS + j) + 1];
        }
    for (i = 0; i <= G_MAX_SEATS; i++)
        c->place[i] = (int32_t)w[L_PLACE + i];
    for (i = 0; i <= G_MAX_SEATS; i++)
        for (j = 0; j < G_MAX_KINDS; j++) {
            int64_t v = w[L_HANDS + i * G_MAX_KINDS + j];
            if (v < 0 || v > 32767) {
                PyErr_SetString(PyExc_ValueError, "a hand count is out of range");
                return -1;
            }
            c->hands[i][j] = (int16_t)v;
        }
    for (i = 0; i < SET_N; i++) {
        if (w[L_SETBITS + i] < 0 || w[L_SETBITS + i] >= ((int64_t)1 << (G_MAX_SEATS + 1))) {
            PyErr_SetString(PyExc_ValueError, "a seat set is out of range");
            return -1;
        }
        c->set_bits[i] = (uint32_t)w[L_SETBITS + i];
        c->set_count[i] = (int32_t)w[L_SETCOUNT + i];
    }
    for (i = 0; i < G_MAX_KINDS; i++)
        c->strength[i] = (int32_t)w[L_STRENGTH + i];
    for (i = 0; i < VM_NFLAGS; i++) {
        if (w[L_FLAGS + i] < 0 || w[L_FLAGS + i] >= ((int64_t)1 << (G_MAX_SEATS + 1)) || w[L_PREVFLAGS + i] < 0
            || w[L_PREVFLAGS + i] >= ((int64_t)1 << (G_MAX_SEATS + 1))) {
            PyErr_SetString(PyExc_ValueError, "a flag's seat set is out of range");
            return -1;
        }
        c->flag_bits[i] = (uint32_t)w[L_FLAGS + i];
        c->prev_flag_bits[i] = (uint32_t)w[L_PREVFLAGS + i];
    }
    for (i = 0; i < VM_NCOUNTERS; i++)
        for (j = 0; j <= G_MAX_SEATS; j++) {
            c->counters[i][j] = w[L_COUNTERS + i * (G_MAX_SEATS + 1) + j];
            c->prev_counters[i][j] = w[L_PREVCOUNTERS + i * (G_MAX_SEATS + 1) + j];
        }
    for (i = 0; i < SET_N; i++)
        for (j = 0; j < G_MAX_SEATS; j++)
            c->set_order[i][j] = (int32_t)w[L_SETORDER + i * G_MAX_SEATS + j];
    for (i = 0; i <= G_MAX_SEATS; i++) {
        for (j = 0; j < G_MAX_KINDS; j++) {
            int64_t d = w[L_DEALT + i * G_MAX_KINDS + j], r = w[L_RECEIVED + i * G_MAX_KINDS + j];
            if (d < 0 || d > 32767 || r < 0 || r > 32767) {
                PyErr_SetString(PyExc_ValueError, "a dealt or received count is out of range");
                return -1;
            }
            c->dealt[i][j] = (int16_t)d;
            c->received[i][j] = (int16_t)r;
        }
        c->prev_place[i] = (int32_t)w[L_PREVPLACE + i];
        for (j = 0; j < G_MAX_KINDS; j++) {
            c->shown_n[i][j] = (int32_t)w[L_SHOWN_N + i * G_MAX_KINDS + j];
            c->shown_t[i][j] = (int32_t)w[L_SHOWN_T + i * G_MAX_KINDS + j];
        }
        for (j = 0; j <= G_MAX_SEATS; j++) {
            int64_t b0 = w[L_PREVBURNS + i * (G_MAX_SEATS + 1) + j];
            int64_t b1 = w[L_PREVBURNS + (G_MAX_SEATS + 1) * (G_MAX_SEATS + 1) + i * (G_MAX_SEATS + 1) + j];
            if (b0 < 0 || b0 > 100000 || b1 < 0 || b1 > b0) {
                PyErr_SetString(PyExc_ValueError, "a burn count is out of range");
                return -1;
            }
            c->prev_burns[0][i][j] = (int32_t)b0;
            c->prev_burns[1][i][j] = (int32_t)b1;
        }
    }
    for (i = 0; i < VM_NPLAYS; i++)
        for (j = 0; j < G_MAX_KINDS; j++) {
            int64_t k = w[L_PLAYCOUNTS + i * G_MAX_KINDS + j];
            if (k < 0 || k > 32767) {
                PyErr_SetString(PyExc_ValueError, "a play's count of a kind is out of range");
                return -1;
            }
            c->play_counts[i][j] = (int16_t)k;
        }
    if (vm_ctx_check(c) < 0) {
        PyErr_SetString(PyExc_ValueError, "the context is inconsistent (seats, kinds or a tag out of range)");
        return -1;
    }
    return 0;
}

static PyObject *core_vm_verify(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer b;
    int n_kinds, n, ok;
    const int32_t *code;
    if (!PyArg_ParseTuple(args, "y*i:vm_verify", &b, &n_kinds))
        return NULL;
    if (b.len % 4 != 0 || b.len / 4 > VM_MAX_CODE || b.len == 0 || n_kinds < 1 || n_kinds > G_MAX_KINDS) {
        PyBuffer_Release(&b);
        Py_RETURN_FALSE;
    }
    code = (const int32_t *)b.buf;
    n = (int)(b.len / 4);
    ok = vm_verify(code, n, n_kinds) == 0;
    PyBuffer_Release(&b);
    return PyBool_FromLong(ok);
}

/* vm_eval(code, ctx) -> (status, pc, tag, value, aux_tag, aux_value) (aux: VM_MISSING_ITEM's list);
 * ValueError for a program vm_verify refuses or a malformed context. */
static PyObject *core_vm_eval(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer bc, bx;
    const int32_t *code;
    int n;
    vm_ctx *c;
    vm_result r;
    PyObject *rng = Py_None;
    if (!PyArg_ParseTuple(args, "y*y*|O:vm_eval", &bc, &bx, &rng))
        return NULL;
    if (rng != Py_None && !PyObject_TypeCheck(rng, &RandomType)) {
        PyBuffer_Release(&bc);
        PyBuffer_Release(&bx);
        PyErr_SetString(PyExc_TypeError, "rng is a native Random or None");
        return NULL;
    }
    c = (vm_ctx *)PyMem_Malloc(sizeof(vm_ctx));
    if (c == NULL) {
        PyBuffer_Release(&bc);
        PyBuffer_Release(&bx);
        return PyErr_NoMemory();
    }
    if (get_code(&bc, &code, &n) < 0 || unpack_ctx(&bx, c) < 0) {
        PyMem_Free(c);
        PyBuffer_Release(&bc);
        PyBuffer_Release(&bx);
        return NULL;
    }
    if (vm_verify(code, n, c->n_kinds) < 0) {
        PyMem_Free(c);
        PyBuffer_Release(&bc);
        PyBuffer_Release(&bx);
        PyErr_SetString(PyExc_ValueError, "the program does not pass the verifier");
        return NULL;
    }
    c->rng = rng == Py_None ? NULL : &((RandomObject *)rng)->mt;
    r = vm_run(code, n, c);
    PyMem_Free(c);
    PyBuffer_Release(&bc);
    PyBuffer_Release(&bx);
    return Py_BuildValue("(iiiLiL)", r.status, r.pc, (int)r.result.tag, (long long)r.result.v, (int)r.aux.tag, (long long)r.aux.v);
}

/* vm_bench(codes, ctx, reps) -> checksum: run every program of `codes` (a list of programs) `reps`
 * times on one context, inside the core (no crossing per run): for instruction counts and timings
 * of the programs alone (benchmarks/bench_native.py). */
static PyObject *core_vm_bench(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *codes, *seq;
    Py_buffer bx;
    vm_ctx *c;
    long reps, r;
    Py_ssize_t i, n;
    long long checksum = 0;
    if (!PyArg_ParseTuple(args, "Oy*l:vm_bench", &codes, &bx, &reps))
        return NULL;
    if (reps < 0 || reps > 100000000L) {
        PyBuffer_Release(&bx);
        PyErr_SetString(PyExc_ValueError, "reps is 0..1e8");
        return NULL;
    }
    c = (vm_ctx *)PyMem_Malloc(sizeof(vm_ctx));
    if (c == NULL) {
        PyBuffer_Release(&bx);
        return PyErr_NoMemory();
    }
    if (unpack_ctx(&bx, c) < 0) {
        PyMem_Free(c);
        PyBuffer_Release(&bx);
        return NULL;
    }
    c->rng = NULL;  /* (no drawing in a benchmark) */
    PyBuffer_Release(&bx);
    seq = PySequence_Fast(codes, "codes is a list of programs");
    if (seq == NULL) {
        PyMem_Free(c);
        return NULL;
    }
    n = PySequence_Fast_GET_SIZE(seq);
    for (i = 0; i < n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) % 4 || PyBytes_GET_SIZE(o) == 0 || PyBytes_GET_SIZE(o) / 4 > VM_MAX_CODE
            || vm_verify((const int32_t *)PyBytes_AS_STRING(o), (int)(PyBytes_GET_SIZE(o) / 4), c->n_kinds) < 0) {
            Py_DECREF(seq);
            PyMem_Free(c);
            PyErr_SetString(PyExc_ValueError, "a program does not pass the verifier");
            return NULL;
        }
    }
    for (r = 0; r < reps; r++)
        for (i = 0; i < n; i++) {
            PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
            vm_result res = vm_run((const int32_t *)PyBytes_AS_STRING(o), (int)(PyBytes_GET_SIZE(o) / 4), c);
            checksum += res.status * 7 + res.result.v;
        }
    Py_DECREF(seq);
    PyMem_Free(c);
    return PyLong_FromLongLong(checksum);
}

/* hook_eval(kind, rules, default_tag, default_value, ctx) -> (status, rule, in_when, pc, tag, value, aux_tag, aux_value):
 * kind 0 a permit hook, 1 a value hook; rules a list of (when or None, effect, code) with the
 * effects of vm.h (EFF_*); every program is verified first (ValueError if one does not pass). */
#define HOOK_MAX_RULES 256
static PyObject *core_hook_eval(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *rules_obj, *seq = NULL;
    Py_buffer bx;
    int kind, dtag;
    long long dval;
    vm_ctx *c = NULL;
    vm_rule *rules = NULL;
    vm_hook_result hr;
    vm_value deflt;
    Py_ssize_t n, i;
    PyObject *rng = Py_None;
    if (!PyArg_ParseTuple(args, "iOiLy*|O:hook_eval", &kind, &rules_obj, &dtag, &dval, &bx, &rng))
        return NULL;
    if (rng != Py_None && !PyObject_TypeCheck(rng, &RandomType)) {
        PyBuffer_Release(&bx);
        PyErr_SetString(PyExc_TypeError, "rng is a native Random or None");
        return NULL;
    }
    c = (vm_ctx *)PyMem_Malloc(sizeof(vm_ctx));
    if (c == NULL) {
        PyBuffer_Release(&bx);
        return PyErr_NoMemory();
    }
    if (unpack_ctx(&bx, c) < 0)
        goto fail;
    if (kind != 0 && kind != 1) {
        PyErr_SetString(PyExc_ValueError, "kind is 0 (permit) or 1 (value)");
        goto fail;
    }
    if (dtag < 0 || dtag >= T_NTAGS || dtag == T_LIST || dtag == T_TLIST || dval < -VM_INT_LIMIT || dval > VM_INT_LIMIT
        || (dtag == T_RANK && (dval < 0 || dval >= c->n_kinds))) {
        PyErr_SetString(PyExc_ValueError, "the default is out of range");
        goto fail;
    }
    seq = PySequence_Fast(rules_obj, "rules is a list of (when, effect, code)");
    if (seq == NULL)
        goto fail;
    n = PySequence_Fast_GET_SIZE(seq);
    if (n > HOOK_MAX_RULES) {
        PyErr_SetString(PyExc_ValueError, "more than 256 rules");
        goto fail;
    }
    rules = (vm_rule *)PyMem_Calloc((size_t)(n ? n : 1), sizeof(vm_rule));
    if (rules == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (i = 0; i < n; i++) {
        PyObject *r = PySequence_Fast_GET_ITEM(seq, i), *w, *code;
        long eff;
        if (!PyTuple_Check(r) || PyTuple_GET_SIZE(r) != 3) {
            PyErr_SetString(PyExc_ValueError, "a rule is (when, effect, code)");
            goto fail;
        }
        w = PyTuple_GET_ITEM(r, 0);
        code = PyTuple_GET_ITEM(r, 2);
        eff = PyLong_AsLong(PyTuple_GET_ITEM(r, 1));
        if (eff == -1 && PyErr_Occurred())
            goto fail;
        if (eff < 0 || eff > EFF_VALUE || (kind == 0) != (eff != EFF_VALUE)) {
            PyErr_SetString(PyExc_ValueError, "a rule's effect does not fit the hook");
            goto fail;
        }
        rules[i].effect = (int)eff;
        if (w != Py_None) {
            if (!PyBytes_Check(w) || PyBytes_GET_SIZE(w) == 0 || PyBytes_GET_SIZE(w) % 4 || PyBytes_GET_SIZE(w) / 4 > VM_MAX_CODE
                || vm_verify((const int32_t *)PyBytes_AS_STRING(w), (int)(PyBytes_GET_SIZE(w) / 4), c->n_kinds) < 0) {
                PyErr_SetString(PyExc_ValueError, "a guard does not pass the verifier");
                goto fail;
            }
            rules[i].when = (const int32_t *)PyBytes_AS_STRING(w);
            rules[i].when_n = (int)(PyBytes_GET_SIZE(w) / 4);
        }
        if (!PyBytes_Check(code) || PyBytes_GET_SIZE(code) == 0 || PyBytes_GET_SIZE(code) % 4
            || PyBytes_GET_SIZE(code) / 4 > VM_MAX_CODE
            || vm_verify((const int32_t *)PyBytes_AS_STRING(code), (int)(PyBytes_GET_SIZE(code) / 4), c->n_kinds) < 0) {
            PyErr_SetString(PyExc_ValueError, "a program does not pass the verifier");
            goto fail;
        }
        rules[i].code = (const int32_t *)PyBytes_AS_STRING(code);
        rules[i].code_n = (int)(PyBytes_GET_SIZE(code) / 4);
    }
    deflt.tag = dtag;
    deflt.v = dval;
    c->rng = rng == Py_None ? NULL : &((RandomObject *)rng)->mt;
    hr = kind == 0 ? vm_permit(rules, (int)n, dval != 0, c) : vm_value_of(rules, (int)n, deflt, c);
    PyMem_Free(rules);
    Py_DECREF(seq);
    PyMem_Free(c);
    PyBuffer_Release(&bx);
    return Py_BuildValue("(iiiiiLiL)", hr.r.status, hr.rule, hr.in_when, hr.r.pc, (int)hr.r.result.tag, (long long)hr.r.result.v,
                         (int)hr.r.aux.tag, (long long)hr.r.aux.v);
fail:
    PyMem_Free(rules);
    Py_XDECREF(seq);
    PyMem_Free(c);
    PyBuffer_Release(&bx);
    return NULL;
}

#include "flow_py.h"

static PyMethodDef core_methods[] = {
    {"flow_load", core_flow_load, METH_VARARGS, "Load a ruleset's game flow program (flow.h): a Flow."},
    {"heuristic_load", core_heuristic_load, METH_VARARGS, "Load the heuristic bot's tables of a Flow (heuristic.h): a Heuristic."},
    {"sha512", sha512_digest, METH_O, "SHA-512 of bytes (the seeding's; checked against hashlib)."},
    {"hook_eval", core_hook_eval, METH_VARARGS, "Ask a permit or value hook of its rules' programs (vm.h)."},
    {"vm_bench", core_vm_bench, METH_VARARGS, "Run programs many times on one context (benchmarks)."},
    {"vm_verify", core_vm_verify, METH_VARARGS, "Whether a hook program passes the verifier (vm.h)."},
    {"vm_eval", core_vm_eval, METH_VARARGS, "Run a hook program on a context: (status, pc, tag, value)."},
    {"deal", core_deal, METH_VARARGS, "Shuffle and deal a pack: (order, hands). See game.h."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef core_module = {
    PyModuleDef_HEAD_INIT, "_core", "The native play-out core (compiled part).", -1, core_methods, NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__core(void)
{
    PyObject *m;
    if (PyType_Ready(&RandomType) < 0 || PyType_Ready(&FlowType) < 0 || PyType_Ready(&HeuristicType) < 0)
        return NULL;
    m = PyModule_Create(&core_module);
    if (m == NULL)
        return NULL;
    Py_INCREF(&RandomType);
    if (PyModule_AddObject(m, "Random", (PyObject *)&RandomType) < 0) {
        Py_DECREF(&RandomType);
        Py_DECREF(m);
        return NULL;
    }
    if (PyModule_AddIntConstant(m, "CTX_LEN", L_LEN) < 0 || PyModule_AddIntConstant(m, "NSLOTS", VM_NSLOTS) < 0
        || PyModule_AddIntConstant(m, "NPLAYS", VM_NPLAYS) < 0 || PyModule_AddIntConstant(m, "NATTRS", VM_NATTRS) < 0
        || PyModule_AddIntConstant(m, "MAX_SEATS", G_MAX_SEATS) < 0 || PyModule_AddIntConstant(m, "MAX_KINDS", G_MAX_KINDS) < 0
        || PyModule_AddIntConstant(m, "MAX_CODE", VM_MAX_CODE) < 0
        || PyModule_AddIntConstant(m, "NFLAGS", VM_NFLAGS) < 0 || PyModule_AddIntConstant(m, "NCOUNTERS", VM_NCOUNTERS) < 0
        || PyModule_AddIntConstant(m, "NLOCALS", VM_NLOCALS) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    {
        PyObject *layout = Py_BuildValue("{sisisisisisisisisisisisisisisisisisisisisi}", "vars", L_VARS, "present", L_PRESENT,
                                         "attrs", L_ATTRS, "place", L_PLACE, "hands", L_HANDS, "set_bits", L_SETBITS,
                                         "set_count", L_SETCOUNT, "strength", L_STRENGTH, "flags", L_FLAGS,
                                         "prev_flags", L_PREVFLAGS, "counters", L_COUNTERS, "set_order", L_SETORDER,
                                         "dealt", L_DEALT, "received", L_RECEIVED, "prev_place", L_PREVPLACE,
                                         "shown_n", L_SHOWN_N, "shown_t", L_SHOWN_T, "prev_burns", L_PREVBURNS, "play_counts", L_PLAYCOUNTS,
                                         "prev_counters", L_PREVCOUNTERS, "len", L_LEN);
        if (layout == NULL || PyModule_AddObject(m, "LAYOUT", layout) < 0) {
            Py_XDECREF(layout);
            Py_DECREF(m);
            return NULL;
        }
    }
    {
        PyObject *op_args = PyTuple_New(OP_NOPS);
        int i;
        if (op_args == NULL) {
            Py_DECREF(m);
            return NULL;
        }
        for (i = 0; i < OP_NOPS; i++) {
            PyObject *v = PyLong_FromLong(VM_OP_ARGS[i]);
            if (v == NULL) {
                Py_DECREF(op_args);
                Py_DECREF(m);
                return NULL;
            }
            PyTuple_SET_ITEM(op_args, i, v);
        }
        if (PyModule_AddObject(m, "OP_ARGS", op_args) < 0) {
            Py_DECREF(op_args);
            Py_DECREF(m);
            return NULL;
        }
    }
    if (PyModule_AddIntConstant(m, "FLOW_STATE_LEN", FS_LEN) < 0 || PyModule_AddIntConstant(m, "FLOW_TOP", FS_TOP) < 0
        || PyModule_AddIntConstant(m, "FLOW_ERR", FS_ERR) < 0 || PyModule_AddIntConstant(m, "FLOW_END", FS_END) < 0 || PyModule_AddIntConstant(m, "BATCH_HEAD", BR_PLACES) < 0 || PyModule_AddIntConstant(m, "BATCH_TAIL", BD_WORDS) < 0 || PyModule_AddIntConstant(m, "FLOW_HEAD", FT_HEAD) < 0
        || PyModule_AddIntConstant(m, "FLOW_MAX_QUEUE", FL_MAX_QUEUE) < 0
        || PyModule_AddIntConstant(m, "FLOW_PLAY_COUNTS", FT_PLAY_COUNTS) < 0
        || PyModule_AddIntConstant(m, "FLOW_MAX_COMBOS", FL_MAX_COMBOS) < 0
        || PyModule_AddIntConstant(m, "HEURISTIC_SEE_COUNT", HR_SEE_COUNT) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#ifndef GOUJI_SOURCE_HASH
#define GOUJI_SOURCE_HASH "" /* (built without setup.py: the package finds no fingerprint and does not use it) */
#endif
    if (PyModule_AddIntConstant(m, "ABI", 1) < 0 || PyModule_AddStringConstant(m, "SOURCE_HASH", GOUJI_SOURCE_HASH) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
