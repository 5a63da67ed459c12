/* Python bindings of the native game flow (flow.h), included by _core.c after the context layout
 * (L_*), unpack_ctx and RandomType.
 *
 * flow_load(tables, programs) -> Flow: a ruleset's flow program (gouji_dsl/engine/native/flow.py
 * builds both: `tables` int32 words in the layout below, `programs` the hook programs as bytes,
 * each checked by vm_verify here; every table index checked).
 * Flow.run(ctx, state, picks, steps, max_steps, ev_cap[, heuristic, seats]) -> (status, steps, state, ctx,
 * events, specials): plays the play phase from the packed context and state words until flow.h stops it;
 * the seats of the bit mask `seats` that have no pick are played by the heuristic bot (heuristic_py.h).
 */
#include "flow.h"
#include "batch.h"

/* tables: header */
enum {
    FT_MAGIC = 0, FT_SEATS, FT_KINDS, FT_RANKS, FT_FILLER, FT_SPARE, FT_JK, FT_NC, FT_TEXT_LAST, FT_TEXT_NEXT,
    FT_TEXT_AFTER, FT_NTRICK, FT_BLJ, FT_HAS_PLAY, FT_PLAY_LO, FT_PLAY_HI, FT_PLAY_JOKERS, FT_FREE, FT_PLAY_COUNTS, FT_NDISCARD, FT_HEAD
};
#define FT_MAGIC_WORD 0x464c4f57  /* "FLOW" */

/* state words (int32), in and out */
#define FS_PLAYW 20
enum {
    FS_TO_ACT = 0, FS_CAP, FS_BURNER, FS_BURNED, FS_LEADER, FS_TRICK_NO, FS_YIELDED, FS_FAILED, FS_QLEN, FS_NY, FS_NLATE,
    FS_QSEAT, FS_QCAP = FS_QSEAT + FL_MAX_QUEUE, FS_YIELDERS = FS_QCAP + FL_MAX_QUEUE,
    FS_LATE = FS_YIELDERS + G_MAX_SEATS + 1, FS_TOP = FS_LATE + G_MAX_SEATS + 1,
    FS_ERR = FS_TOP + FS_PLAYW,  /* hook, seat, leading, then play, top, beaten */
    FS_ERR_PLAYS = FS_ERR + 3, FS_RESET = FS_ERR_PLAYS + 3 * FS_PLAYW, FS_MARKED, FS_COUNTED = FS_MARKED + VM_NFLAGS,
    FS_END = FS_COUNTED + VM_NCOUNTERS,  /* the game's end played here (fl_end): 1, its sweep, each seat's score */
    FS_SWEEP, FS_SCORES, FS_LEN = FS_SCORES + G_MAX_SEATS + 1
};

typedef struct {
    PyObject_HEAD
    fl_prog *prog;
    PyObject *programs;  /* the bytes the rules point into (kept alive) */
} FlowObject;

static void Flow_dealloc(FlowObject *self)
{
    PyMem_Free(self->prog);
    Py_XDECREF(self->programs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static void fs_put_play(int32_t *w, const fl_play *p)
{
    w[0] = p->present; w[1] = p->seat; w[2] = p->code.r; w[3] = p->code.n; w[4] = p->code.f; w[5] = p->code.j;
    w[6] = p->rank; w[7] = p->count; w[8] = p->carried; w[9] = p->filler; w[10] = p->jokers; w[11] = p->pure;
    w[12] = p->gouji; w[13] = p->beaten; w[14] = p->over_yield; w[15] = p->yielder; w[16] = p->empties; w[17] = p->is_burn;
    w[18] = w[19] = 0;
}

static int fs_get_play(const int32_t *w, const fl_prog *P, int n_seats, fl_play *p)
{
    memset(p, 0, sizeof *p);
    p->present = w[0] != 0;
    if (!p->present)
        return 0;
    p->seat = w[1]; p->code.r = w[2]; p->code.n = w[3]; p->code.f = w[4]; p->code.j = w[5];
    p->rank = w[6]; p->count = w[7]; p->carried = w[8]; p->filler = w[9]; p->jokers = w[10]; p->pure = w[11] != 0;
    p->gouji = w[12] != 0; p->beaten = w[13]; p->over_yield = w[14] != 0; p->yielder = w[15]; p->empties = w[16] != 0;
    p->is_burn = w[17] != 0;
    if (p->seat < 1 || p->seat > n_seats || p->code.r < -1 || p->code.r >= P->n_ranks || p->code.j < 0 || p->code.j >= P->nc
        || p->rank < 0 || p->rank >= P->n_kinds || p->beaten < 0 || p->beaten > n_seats || p->yielder < 0
        || p->yielder > n_seats || p->count < 0 || p->count > 32767 || p->carried < 0 || p->carried > p->count
        || p->code.n < 0 || p->code.n > 32767 || p->code.f < 0 || p->code.f > 32767 || (p->code.f && P->filler < 0))
        return -1;
    return 0;
}

/* a program index of the tables: NULL for -1, else the verified code (its length in *n) */
static int ft_prog(PyObject *progs, int32_t idx, const int32_t **code, int *n, int optional)
{
    PyObject *o;
    if (idx == -1 && optional) {
        *code = NULL;
        *n = 0;
        return 0;
    }
    if (idx < 0 || idx >= PyTuple_GET_SIZE(progs))
        return -1;
    o = PyTuple_GET_ITEM(progs, idx);
    *code = (const int32_t *)PyBytes_AS_STRING(o);
    *n = (int)(PyBytes_GET_SIZE(o) / 4);
    return 0;
}

static PyObject *core_flow_load(PyObject *Py_UNUSED(module), PyObject *args);
static PyObject *Flow_run(FlowObject *self, PyObject *args);
static PyObject *Flow_play_games(FlowObject *self, PyObject *args);

static PyMethodDef Flow_methods[] = {
    {"run", (PyCFunction)Flow_run, METH_VARARGS, "Play the play phase: (status, steps, state, ctx, events, specials)."},
    {"play_games", (PyCFunction)Flow_play_games, METH_VARARGS,
     "Play whole seeded games with random and heuristic bots (batch.h): play_games(ctx, deck_kinds, deck_suits, seed, start, count, max_steps[, heuristic, seats, weak, strong, teams, match_games]) -> int32 results."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject FlowType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gouji_dsl.engine.native._core.Flow",
    .tp_basicsize = sizeof(FlowObject),
    .tp_dealloc = (destructor)Flow_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A ruleset's game flow program (flow.h), loaded by flow_load.",
    .tp_methods = Flow_methods,
};

static PyObject *core_flow_load(PyObject *Py_UNUSED(module), PyObject *args)
{
    Py_buffer tb;
    PyObject *progs_obj, *progs = NULL;
    FlowObject *self = NULL;
    fl_prog *P = NULL;
    const int32_t *w;
    Py_ssize_t nw, i;
    int at, h, k;
    if (!PyArg_ParseTuple(args, "y*O:flow_load", &tb, &progs_obj))
        return NULL;
    progs = PySequence_Tuple(progs_obj);
    if (progs == NULL)
        goto fail;
    if (tb.len % 4 != 0 || tb.len / 4 < FT_HEAD) {
        PyErr_SetString(PyExc_ValueError, "the tables are int32 words");
        goto fail;
    }
    w = (const int32_t *)tb.buf;
    nw = tb.len / 4;
#define NEED_W(k_) do { if (at + (k_) > nw) { PyErr_SetString(PyExc_ValueError, "the tables end early"); goto fail; } } while (0)
#define BAD(msg) do { PyErr_SetString(PyExc_ValueError, msg); goto fail; } while (0)
    P = (fl_prog *)PyMem_Calloc(1, sizeof(fl_prog));
    if (P == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (w[FT_MAGIC] != FT_MAGIC_WORD)
        BAD("the tables are not a flow program");
    P->n_seats = w[FT_SEATS];
    P->n_kinds = w[FT_KINDS];
    P->n_ranks = w[FT_RANKS];
    P->filler = w[FT_FILLER];
    P->spare = w[FT_SPARE] != 0;
    P->jk = w[FT_JK];
    P->nc = w[FT_NC];
    if (P->n_seats < 1 || P->n_seats > 14 || P->n_kinds < 1 || P->n_kinds > G_MAX_KINDS || P->n_ranks < 0
        || P->n_ranks > P->n_kinds || P->filler < -1 || P->filler >= P->n_ranks || P->jk != P->n_kinds - P->n_ranks
        || P->jk > FL_MAX_JK || P->nc < 1 || P->nc > FL_MAX_COMBOS)
        BAD("the flow program's sizes are out of range");
    P->text_place[0] = w[FT_TEXT_LAST];
    P->text_place[1] = w[FT_TEXT_NEXT];
    P->text_place[2] = w[FT_TEXT_AFTER];
    P->n_trick_counters = w[FT_NTRICK];
    P->burn_lead_by_jokers = w[FT_BLJ] != 0;
    P->has_play = w[FT_HAS_PLAY] != 0;
    P->play_ranks = (uint64_t)(uint32_t)w[FT_PLAY_LO] | ((uint64_t)(uint32_t)w[FT_PLAY_HI] << 32);
    P->play_jokers = w[FT_PLAY_JOKERS] != 0;
    P->free_count = w[FT_FREE] != 0;
    P->play_counts = w[FT_PLAY_COUNTS] != 0;
    P->n_discard = w[FT_NDISCARD];
    if (P->n_discard < 0 || P->n_discard > P->n_kinds)
        BAD("too many discard kinds");
    if (P->n_trick_counters < 0 || P->n_trick_counters > VM_NCOUNTERS)
        BAD("too many trick counters");
    for (i = 0; i < PyTuple_GET_SIZE(progs); i++) {
        PyObject *o = PyTuple_GET_ITEM(progs, i);
        if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) == 0 || PyBytes_GET_SIZE(o) % 4 || PyBytes_GET_SIZE(o) / 4 > VM_MAX_CODE
            || vm_verify((const int32_t *)PyBytes_AS_STRING(o), (int)(PyBytes_GET_SIZE(o) / 4), P->n_kinds) < 0)
            BAD("a program does not pass the verifier");
    }
    at = FT_HEAD;
    NEED_W(P->n_discard);
    for (k = 0; k < P->n_discard; k++) {
        P->discard_kinds[k] = w[at++];
        if (P->discard_kinds[k] < 0 || P->discard_kinds[k] >= P->n_kinds)
            BAD("a discard kind is out of range");
    }
    NEED_W(P->n_trick_counters);
    for (k = 0; k < P->n_trick_counters; k++) {
        P->trick_counters[k] = w[at++];
        if (P->trick_counters[k] < 0 || P->trick_counters[k] >= VM_NCOUNTERS)
            BAD("a trick counter is out of range");
    }
    NEED_W(P->nc * (P->jk + 2));
    for (k = 0; k < P->nc; k++) {
        int j, sum = 0;
        for (j = 0; j < P->jk; j++) {
            if (w[at] < 0 || w[at] > 32767)
                BAD("a joker combination is out of range");
            P->combo[k][j] = (int16_t)w[at++];
            sum += P->combo[k][j];
        }
        P->combo_n[k] = w[at++];
        P->combo_top[k] = w[at++];
        if (P->combo_n[k] != sum || (k == 0) != (sum == 0) || (sum > 0 && (P->combo_top[k] < P->n_ranks || P->combo_top[k] >= P->n_kinds))
            || (k > 0 && P->combo_n[k] < P->combo_n[k - 1]))
            BAD("a joker combination is inconsistent");
        if (sum == 0)
            P->combo_top[k] = 0;
    }
    NEED_W(P->nc * P->nc);
    for (k = 0; k < P->nc; k++) {
        int j;
        for (j = 0; j < P->nc; j++) {
            if (w[at] < -1 || w[at] > 127)
                BAD("a cover entry is out of range");
            P->cover[k][j] = (int8_t)w[at++];
        }
    }
    for (h = 0; h < H_N; h++) {
        fl_hook *hk = &P->hooks[h];
        NEED_W(5);
        hk->n = w[at];
        hk->kind = w[at + 1];
        hk->deflt.tag = w[at + 2];
        hk->deflt.v = w[at + 3];
        hk->none_ok = w[at + 4] != 0;
        at += 5;
        if (hk->n < 0 || hk->n > FL_MAX_RULES || (hk->kind != 0 && hk->kind != 1) || hk->deflt.tag < 0
            || hk->deflt.tag >= T_NTAGS || (hk->deflt.tag == T_LIST && hk->deflt.v != 0) || (hk->deflt.tag == T_RANK && (hk->deflt.v < 0 || hk->deflt.v >= P->n_kinds)))
            BAD("a hook's header is out of range");
        NEED_W(3 * hk->n);
        for (k = 0; k < hk->n; k++) {
            vm_rule *r = &hk->rules[k];
            r->effect = w[at + 1];
            if (r->effect < 0 || r->effect > EFF_VALUE || (hk->kind == 0) != (r->effect != EFF_VALUE))
                BAD("a rule's effect does not fit its hook");
            if (ft_prog(progs, w[at], &r->when, &r->when_n, 1) < 0 || ft_prog(progs, w[at + 2], &r->code, &r->code_n, 0) < 0)
                BAD("a rule names no program");
            at += 3;
        }
    }
    for (h = 0; h < TR_N; h++) {
        fl_trigger *t = &P->triggers[h];
        NEED_W(1);
        t->n = w[at++];
        if (t->n < 0 || t->n > FL_MAX_RULES)
            BAD("a trigger has too many rules");
        NEED_W(8 * t->n);
        for (k = 0; k < t->n; k++) {
            fl_trule *r = &t->rules[k];
            if (ft_prog(progs, w[at], &r->when, &r->when_n, 1) < 0 || ft_prog(progs, w[at + 1], &r->target, &r->target_n, 1) < 0
                || ft_prog(progs, w[at + 2], &r->amount, &r->amount_n, 1) < 0
                || ft_prog(progs, w[at + 5], &r->code, &r->code_n, 1) < 0
                || ft_prog(progs, w[at + 7], &r->giver, &r->giver_n, 1) < 0)
                BAD("a trigger rule names no program");
            r->effect = w[at + 3];
            r->slot = w[at + 4];
            r->rule = w[at + 6];
            if (r->effect < TE_MARK || r->effect > TE_GIVE || (r->effect == TE_GIVE && h != TR_SEAT_SETUP)
                || (r->effect < TE_PLACE && (r->slot < 0 || r->slot >= (r->effect == TE_COUNT ? VM_NCOUNTERS : VM_NFLAGS)))
                || (r->effect == TE_PLACE && (h >= TR_SEAT_SETUP || r->code == NULL || r->rule < 2 || r->rule > 1000000))
                || (r->effect == TE_GIVE && r->code == NULL))
                BAD("a trigger rule's effect is out of range");
            at += 8;
        }
    }
    NEED_W(1);  /* whether the game's end is played here (its hooks H_UNFINISHED_ORDER..H_SCORE loaded) */
    P->end = w[at++] != 0;
    NEED_W(1);  /* whether whole games are played here (the setup hooks H_FIRST_DRAWER..H_FIRST_LEADER loaded: batch.h) */
    P->games = w[at++] != 0;
    NEED_W(1);  /* whether whole matches are played here (the tribute hooks H_TRIBUTE_KINDS..H_RETURN_TRIBUTE loaded) */
    P->matches = w[at++] != 0;
    NEED_W(3);  /* the flag slots of chose_head, chose_headless, declared (-1: no program reads the flag) */
    P->flag_chose_head = w[at++];
    P->flag_chose_headless = w[at++];
    P->flag_declared = w[at++];
    if (P->flag_chose_head < -1 || P->flag_chose_head >= VM_NFLAGS || P->flag_chose_headless < -1
        || P->flag_chose_headless >= VM_NFLAGS || P->flag_declared < -1 || P->flag_declared >= VM_NFLAGS)
        BAD("a setup flag's slot is out of range");
    for (h = 0; h < 2; h++) {  /* the ruleset's own choices asked at the deal, then at the setup (text ids) */
        NEED_W(1);
        P->n_choices[h] = w[at++];
        if (P->n_choices[h] < 0 || P->n_choices[h] > FL_MAX_CHOICES)
            BAD("too many choices at one point");
        NEED_W(P->n_choices[h]);
        for (k = 0; k < P->n_choices[h]; k++) {
            if (w[at] < 0)
                BAD("a choice's text is out of range");
            P->choices[h][k] = w[at++];
        }
    }
    NEED_W(2);  /* the text of a pass; the counters a deal dealt again keeps */
    P->text_pass = w[at++];
    P->n_kept = w[at++];
    if (P->text_pass < 0 || P->n_kept < 0 || P->n_kept > VM_NCOUNTERS)
        BAD("a pass's text or the kept counters are out of range");
    NEED_W(P->n_kept);
    for (k = 0; k < P->n_kept; k++) {
        if (w[at] < 0 || w[at] >= VM_NCOUNTERS)
            BAD("a kept counter's slot is out of range");
        P->kept[k] = w[at++];
    }
    if (at != nw)
        BAD("the tables have words left over");
#undef NEED_W
#undef BAD
    self = PyObject_New(FlowObject, &FlowType);
    if (self == NULL)
        goto fail;
    self->prog = P;
    self->programs = progs;
    PyBuffer_Release(&tb);
    return (PyObject *)self;
fail:
    PyMem_Free(P);
    Py_XDECREF(progs);
    PyBuffer_Release(&tb);
    return NULL;
}

/* the context fields the flow changes, back into the packed layout (the rest as it came) */
static void flow_pack_ctx(const vm_ctx *c, int64_t *w)
{
    int i, j;
    for (i = 0; i <= G_MAX_SEATS; i++)
        w[L_PLACE + i] = c->place[i];
    for (i = 0; i <= G_MAX_SEATS; i++)
        for (j = 0; j < G_MAX_KINDS; j++)
            w[L_HANDS + i * G_MAX_KINDS + j] = c->hands[i][j];
    for (i = 0; i < SET_N; i++) {
        w[L_SETBITS + i] = c->set_bits[i];
        w[L_SETCOUNT + i] = c->set_count[i];
        for (j = 0; j < G_MAX_SEATS; j++)
            w[L_SETORDER + i * G_MAX_SEATS + j] = c->set_order[i][j];
    }
    for (i = 0; i < VM_NFLAGS; i++)
        w[L_FLAGS + i] = c->flag_bits[i];
    for (i = 0; i < VM_NCOUNTERS; i++)
        for (j = 0; j <= G_MAX_SEATS; j++)
            w[L_COUNTERS + i * (G_MAX_SEATS + 1) + j] = c->counters[i][j];
}

/* the events as the generated module logs them (compact tuples): moves as ("move", seat, verb,
 * counts or None, ""), the rest by kind; trick_won carries the counts (Python classifies them).
 * specials: (index, kind, a, b, c) of every event that is not a move (Python keeps places,
 * retirements and burns from them). NULL on an error (set). */
static PyObject *fl_counts_tuple(const fl_prog *P, const int32_t *e)
{
    PyObject *t = PyTuple_New(P->n_kinds);
    int k, r = e[4], n = e[5], f = e[6], j = e[7];
    if (t == NULL)
        return NULL;
    if (j < 0 || j >= P->nc || r < -1 || r >= P->n_ranks) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_RuntimeError, "an event's play is out of range");
        return NULL;
    }
    for (k = 0; k < P->n_kinds; k++) {
        long v = 0;
        PyObject *o;
        if (k < P->n_ranks) {
            if (k == r)
                v = n;
            if (k == P->filler && f)
                v += f;
        } else {
            v = P->combo[j][k - P->n_ranks];
        }
        o = PyLong_FromLong(v);
        if (o == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, o);
    }
    return t;
}

/* the counts of a discard event (kind e[2], e[3] cards of it) */
static PyObject *fl_discard_tuple(const fl_prog *P, const int32_t *e)
{
    PyObject *t;
    int k;
    if (e[2] < 0 || e[2] >= P->n_kinds) {
        PyErr_SetString(PyExc_RuntimeError, "a discard's kind is out of range");
        return NULL;
    }
    t = PyTuple_New(P->n_kinds);
    if (t == NULL)
        return NULL;
    for (k = 0; k < P->n_kinds; k++) {
        PyObject *o = PyLong_FromLong(k == e[2] ? e[3] : 0);
        if (o == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, k, o);
    }
    return t;
}

static int fl_events_out(const fl_prog *P, const int32_t *ev, int nev, PyObject **list_out, PyObject **spec_out)
{
    static const char *kind_names[] = {"", "move", "move", "move", "move", "place", "trick_won", "retire", "no_lead", "burn",
                                       "counter_burn", "burn_undone", "burn_success", "burn_failed", "move", "discard"};
    static const char *places[] = {"last", "next", "after-finishers"};
    static const char *rules[] = {"engine.no-lead", "engine.burn-failure"};
    PyObject *list = PyList_New(0), *spec = PyList_New(0), *empty = PyUnicode_InternFromString("");
    PyObject *verbs[5] = {NULL, NULL, NULL, NULL, NULL}, *move_word = PyUnicode_InternFromString("move");
    int at;
    if (list == NULL || spec == NULL || empty == NULL || move_word == NULL)
        goto fail;
    verbs[1] = PyUnicode_InternFromString("play");
    verbs[2] = PyUnicode_InternFromString("burn");
    verbs[3] = PyUnicode_InternFromString("pass");
    verbs[4] = PyUnicode_InternFromString("yield");
    if (!verbs[1] || !verbs[2] || !verbs[3] || !verbs[4])
        goto fail;
    for (at = 0; at + FL_EV_WORDS <= nev; at += FL_EV_WORDS) {
        const int32_t *e = ev + at;
        int kind = e[0];
        PyObject *item = NULL, *cnt;
        if (kind < EV_PLAY || kind > EV_DISCARD) {
            PyErr_SetString(PyExc_RuntimeError, "an event of no kind");
            goto fail;
        }
        if (kind <= EV_YIELD) {
            if (kind <= EV_BURNMOVE) {
                cnt = fl_counts_tuple(P, e);
                if (cnt == NULL)
                    goto fail;
            } else {
                cnt = Py_None;
                Py_INCREF(cnt);
            }
            item = PyTuple_New(5);
            if (item != NULL) {
                PyObject *seat = PyLong_FromLong(e[1]);
                if (seat == NULL) {
                    Py_DECREF(item);
                    Py_DECREF(cnt);
                    goto fail;
                }
                Py_INCREF(move_word);
                Py_INCREF(verbs[kind]);
                Py_INCREF(empty);
                PyTuple_SET_ITEM(item, 0, move_word);
                PyTuple_SET_ITEM(item, 1, seat);
                PyTuple_SET_ITEM(item, 2, verbs[kind]);
                PyTuple_SET_ITEM(item, 3, cnt);
                PyTuple_SET_ITEM(item, 4, empty);
            } else {
                Py_DECREF(cnt);
            }
        } else if (kind == EV_DISCARDMOVE || kind == EV_DISCARD) {
            cnt = fl_discard_tuple(P, e);
            if (cnt == NULL)
                goto fail;
            if (kind == EV_DISCARD)
                item = Py_BuildValue("(siN)", "discard", e[1], cnt);
            else
                item = Py_BuildValue("(sisNs)", "move", e[1], "discard", cnt, "");
        } else if (kind == EV_TRICK_WON) {
            cnt = fl_counts_tuple(P, e);
            if (cnt == NULL)
                goto fail;
            item = Py_BuildValue("(siN)", kind_names[kind], e[1], cnt);
        } else if (kind == EV_RETIRE) {
            if (e[2] < 0 || e[2] > 2 || e[3] < 0) {
                PyErr_SetString(PyExc_RuntimeError, "a retirement out of range");
                goto fail;
            }
            if (e[3] <= 1)
                item = Py_BuildValue("(siss)", kind_names[kind], e[1], places[e[2]], rules[e[3]]);
            else  /* (a place rule's: Python names it, from the specials) */
                item = Py_BuildValue("(sisO)", kind_names[kind], e[1], places[e[2]], Py_None);
        } else if (kind == EV_NO_LEAD || kind == EV_BURN_FAILED) {
            item = Py_BuildValue("(si)", kind_names[kind], e[1]);
        } else if (kind == EV_PLACE || kind == EV_COUNTER_BURN || kind == EV_BURN_UNDONE) {
            item = Py_BuildValue("(sii)", kind_names[kind], e[1], e[2]);
        } else {  /* burn, burn_success: the burned seat or None */
            if (e[2])
                item = Py_BuildValue("(sii)", kind_names[kind], e[1], e[2]);
            else
                item = Py_BuildValue("(siO)", kind_names[kind], e[1], Py_None);
        }
        if (item == NULL || PyList_Append(list, item) < 0) {
            Py_XDECREF(item);
            goto fail;
        }
        Py_DECREF(item);
        if (kind > EV_YIELD) {
            PyObject *sp = Py_BuildValue("(iiiii)", (int)(at / FL_EV_WORDS), kind, e[1], e[2], e[3]);
            if (sp == NULL || PyList_Append(spec, sp) < 0) {
                Py_XDECREF(sp);
                goto fail;
            }
            Py_DECREF(sp);
        }
    }
    Py_DECREF(empty);
    Py_DECREF(move_word);
    for (at = 1; at < 5; at++)
        Py_DECREF(verbs[at]);
    *list_out = list;
    *spec_out = spec;
    return 0;
fail:
    Py_XDECREF(list);
    Py_XDECREF(spec);
    Py_XDECREF(empty);
    Py_XDECREF(move_word);
    for (at = 1; at < 5; at++)
        Py_XDECREF(verbs[at]);
    return -1;
}

#include "heuristic_py.h"

static PyObject *Flow_run(FlowObject *self, PyObject *args)
{
    Py_buffer cb, sb;
    PyObject *heur = Py_None;
    unsigned long heur_seats = 0;
    PyObject *picks, *seq = NULL, *out = NULL, *state_out = NULL, *ctx_out = NULL, *ev_out = NULL;
    PyObject *ev_list = NULL, *ev_spec = NULL;
    long steps, max_steps, ev_cap;
    fl_state *s = NULL;
    const fl_prog *P = self->prog;
    const int32_t *w;
    int32_t *sw;
    int i, status, n, end;
    fl_result result;
    memset(&result, 0, sizeof result);
    if (!PyArg_ParseTuple(args, "y*y*Olll|Ok:run", &cb, &sb, &picks, &steps, &max_steps, &ev_cap, &heur, &heur_seats))
        return NULL;
    s = (fl_state *)PyMem_Calloc(1, sizeof(fl_state));
    if (s == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    if (unpack_ctx(&cb, &s->c) < 0)
        goto fail;
    n = s->c.n_seats;
    if (n != P->n_seats || s->c.n_kinds != P->n_kinds || s->c.n_ranks != P->n_ranks) {
        PyErr_SetString(PyExc_ValueError, "the context is not of this program's ruleset");
        goto fail;
    }
    if (sb.len != FS_LEN * 4) {
        PyErr_SetString(PyExc_ValueError, "the state is FLOW_STATE_LEN int32 words");
        goto fail;
    }
    if (steps < 0 || max_steps < 0 || max_steps > 1000000000L || ev_cap < 1024 || ev_cap > (1L << 26)) {
        PyErr_SetString(PyExc_ValueError, "steps, max_steps or the event capacity out of range");
        goto fail;
    }
    w = (const int32_t *)sb.buf;
    s->to_act = w[FS_TO_ACT];
    s->cap = w[FS_CAP];
    s->burner = w[FS_BURNER];
    s->burned_seat = w[FS_BURNED];
    s->trick_leader = w[FS_LEADER];
    s->trick_no = w[FS_TRICK_NO];
    s->yielded = (uint32_t)w[FS_YIELDED];
    s->failed = (uint32_t)w[FS_FAILED];
    s->qlen = w[FS_QLEN];
    s->ny = w[FS_NY];
    s->nlate = w[FS_NLATE];
    if (s->to_act < 1 || s->to_act > n || s->cap < FL_LEAD || s->cap > FL_BURN || s->burner < 0 || s->burner > n
        || s->burned_seat < 0 || s->burned_seat > n || s->trick_leader < 0 || s->trick_leader > n || s->trick_no < 0
        || s->qlen < 0 || s->qlen > FL_MAX_QUEUE || s->ny < 0 || s->ny > n || s->nlate < 0 || s->nlate > n
        || (s->yielded >> (n + 1)) || (s->failed >> (n + 1))) {
        PyErr_SetString(PyExc_ValueError, "the state is out of range");
        goto fail;
    }
    for (i = 0; i < s->qlen; i++) {
        s->qseat[i] = w[FS_QSEAT + i];
        s->qcap[i] = w[FS_QCAP + i];
        if (s->qseat[i] < 0 || s->qseat[i] > n || (s->qcap[i] != FL_FOLLOW && s->qcap[i] != FL_BURN)) {
            PyErr_SetString(PyExc_ValueError, "a queue entry is out of range");
            goto fail;
        }
    }
    for (i = 0; i < s->ny; i++)
        if ((s->yielders[i] = w[FS_YIELDERS + i]) < 1 || s->yielders[i] > n) {
            PyErr_SetString(PyExc_ValueError, "a yielder is out of range");
            goto fail;
        }
    for (i = 0; i < s->nlate; i++)
        if ((s->late[i] = w[FS_LATE + i]) < 1 || s->late[i] > n) {
            PyErr_SetString(PyExc_ValueError, "a late seat is out of range");
            goto fail;
        }
    if (fs_get_play(w + FS_TOP, P, n, &s->top) < 0 || (s->cap != FL_LEAD && !s->top.present)) {
        PyErr_SetString(PyExc_ValueError, "the play on the table is out of range");
        goto fail;
    }
    {
        long cards = 0;
        int k;
        for (i = 1; i <= n; i++) {
            if (s->c.place[i] < 0 || s->c.place[i] > n) {
                PyErr_SetString(PyExc_ValueError, "a place is out of range");
                goto fail;
            }
            for (k = 0; k < s->c.n_kinds; k++)
                cards += s->c.hands[i][k];
        }
        if (cards > G_MAX_CARDS) {  /* (the hands hold at most a pack: every enumeration stays small) */
            PyErr_SetString(PyExc_ValueError, "the hands hold more cards than a pack can have");
            goto fail;
        }
    }
    seq = PySequence_Fast(picks, "picks is a list of native Random or None per seat 0..n");
    if (seq == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(seq) != n + 1) {
        PyErr_SetString(PyExc_ValueError, "picks has one entry per seat 0..n");
        goto fail;
    }
    for (i = 0; i <= n; i++) {
        PyObject *o = PySequence_Fast_GET_ITEM(seq, i);
        if (o == Py_None || i == 0)
            continue;
        if (!PyObject_TypeCheck(o, &RandomType)) {
            PyErr_SetString(PyExc_TypeError, "a pick is a native Random or None");
            goto fail;
        }
        s->pick[i] = &((RandomObject *)o)->mt;
    }
    if (heur != Py_None) {  /* the seats the heuristic bot plays (heuristic.h) */
        const HeuristicObject *h = (const HeuristicObject *)heur;
        if (!PyObject_TypeCheck(heur, &HeuristicType) || h->n_kinds != P->n_kinds || h->nc != P->nc
            || (heur_seats & ~(((1UL << n) - 1) << 1))) {
            PyErr_SetString(PyExc_ValueError, "the heuristic is not of this program's ruleset, or a seat is out of range");
            goto fail;
        }
        s->heur = h->prog;
        s->heur_seats = (uint32_t)heur_seats;
    } else if (heur_seats) {
        PyErr_SetString(PyExc_ValueError, "heuristic seats without the heuristic's tables");
        goto fail;
    }
    ev_out = PyBytes_FromStringAndSize(NULL, ev_cap * 4);
    if (ev_out == NULL)
        goto fail;
    s->ev = (int32_t *)PyBytes_AS_STRING(ev_out);
    s->ev_cap = (int)ev_cap;
    s->steps = steps;
    s->max_steps = max_steps;
    s->err_hook = -1;
    fl_recount(s);
    fl_set_passed(s, s->c.set_bits[SET_PASSED]);
    s->c.rng = NULL;  /* (a program that draws is refused when the flow program is built) */
    status = fl_run(s, P);
    end = status == FL_OVER && fl_end(s, P, &result);
    if (fl_events_out(P, s->ev, s->nev, &ev_list, &ev_spec) < 0)
        goto fail;
    state_out = PyBytes_FromStringAndSize(NULL, FS_LEN * 4);
    if (state_out == NULL)
        goto fail;
    sw = (int32_t *)PyBytes_AS_STRING(state_out);
    memset(sw, 0, FS_LEN * 4);
    sw[FS_TO_ACT] = s->to_act;
    sw[FS_CAP] = s->cap;
    sw[FS_BURNER] = s->burner;
    sw[FS_BURNED] = s->burned_seat;
    sw[FS_LEADER] = s->trick_leader;
    sw[FS_TRICK_NO] = s->trick_no;
    sw[FS_YIELDED] = (int32_t)s->yielded;
    sw[FS_FAILED] = (int32_t)s->failed;
    sw[FS_QLEN] = s->qlen;
    sw[FS_NY] = s->ny;
    sw[FS_NLATE] = s->nlate;
    for (i = 0; i < s->qlen && i < FL_MAX_QUEUE; i++) {
        sw[FS_QSEAT + i] = s->qseat[i];
        sw[FS_QCAP + i] = s->qcap[i];
    }
    for (i = 0; i < s->ny && i <= G_MAX_SEATS; i++)
        sw[FS_YIELDERS + i] = s->yielders[i];
    for (i = 0; i < s->nlate && i <= G_MAX_SEATS; i++)
        sw[FS_LATE + i] = s->late[i];
    fs_put_play(sw + FS_TOP, &s->top);
    sw[FS_ERR] = s->err_hook;
    sw[FS_ERR + 1] = s->err_seat;
    sw[FS_ERR + 2] = s->err_leading;
    fs_put_play(sw + FS_ERR_PLAYS, &s->err_play);
    fs_put_play(sw + FS_ERR_PLAYS + FS_PLAYW, &s->err_top);
    fs_put_play(sw + FS_ERR_PLAYS + 2 * FS_PLAYW, &s->err_beaten);
    sw[FS_RESET] = (int32_t)s->reset;
    for (i = 0; i < VM_NFLAGS; i++)
        sw[FS_MARKED + i] = (int32_t)s->marked[i];
    for (i = 0; i < VM_NCOUNTERS; i++)
        sw[FS_COUNTED + i] = (int32_t)s->counted[i];
    if (end) {
        sw[FS_END] = 1;
        sw[FS_SWEEP] = result.sweep;
        for (i = 1; i <= n && i <= G_MAX_SEATS; i++)
            sw[FS_SCORES + i] = (int32_t)result.score[i];
    }
    ctx_out = PyBytes_FromStringAndSize((const char *)cb.buf, cb.len);
    if (ctx_out == NULL)
        goto fail;
    flow_pack_ctx(&s->c, (int64_t *)PyBytes_AS_STRING(ctx_out));
    out = Py_BuildValue("(ilNNNN)", status, s->steps, state_out, ctx_out, ev_list, ev_spec);
    state_out = ctx_out = ev_list = ev_spec = NULL;
fail:
    Py_XDECREF(ev_list);
    Py_XDECREF(ev_spec);
    Py_XDECREF(state_out);
    Py_XDECREF(ctx_out);
    Py_XDECREF(ev_out);
    Py_XDECREF(seq);
    PyMem_Free(s);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&sb);
    return out;
}

/* Flow.play_games(ctx, deck_kinds, deck_suits, seed, start, count, max_steps[, heuristic, seats, weak,
 * strong, teams, match_games]) -> bytes: games
 * start .. start+count-1 of run `seed` (its text's UTF-8 bytes), each BR_WORDS(n) int32 words
 * (batch.h). ctx: a fresh game's context words; deck_kinds / deck_suits: per card of the pack its
 * kind and its suit (0: none, else 1..15); the seats of the bit mask `seats` are the heuristic bot's
 * (heuristic_load's tables; weak / strong: its setup thresholds); teams: the ruleset's (the design
 * metrics' lead changes). With match_games > 1 the games are chained into matches of that many
 * (game i is game i % match_games of its match: a later game of a match follows the game before
 * it, tribute between them; one whose match began before `start`, or whose previous game the core
 * left to Python, is left to Python too). The games run without the GIL. */
static PyObject *Flow_play_games(FlowObject *self, PyObject *args)
{
    Py_buffer cb, kb, ub, sb;
    long start, count, max_steps, i, match_games = 1;
    int last_ok = 0;
    const fl_prog *P = self->prog;
    vm_ctx *base = NULL;
    g_tables *t = NULL;
    bt_work *W = NULL;
    int32_t *ev = NULL, *res;
    PyObject *out = NULL;
    char seed[260];
    const char *why = NULL;
    const int ev_cap = 1 << 16;
    int n = P->n_seats, k;
    PyObject *heur = Py_None;
    unsigned long heur_seats = 0;
    bt_bots B = {NULL, 0, 1.2, 5.0, 2};
    if (!PyArg_ParseTuple(args, "y*y*y*y*lll|Okddil:play_games", &cb, &kb, &ub, &sb, &start, &count, &max_steps, &heur,
                          &heur_seats, &B.weak, &B.strong, &B.teams, &match_games))
        return NULL;
    if (!P->games || !P->end)
        why = "this flow program does not play whole games";
    else if (match_games < 1 || match_games > 1000000L || (match_games > 1 && !P->matches))
        why = "match_games out of range, or matches this flow program does not play";
    else if (heur != Py_None && (!PyObject_TypeCheck(heur, &HeuristicType) || ((const HeuristicObject *)heur)->n_kinds != P->n_kinds
                                 || ((const HeuristicObject *)heur)->nc != P->nc || (heur_seats & ~(((1UL << n) - 1) << 1))))
        why = "the heuristic is not of this program's ruleset, or a seat is out of range";
    else if (heur == Py_None && heur_seats)
        why = "heuristic seats without the heuristic's tables";
    else if (!(B.weak == B.weak) || !(B.strong == B.strong))
        why = "the heuristic's thresholds are not numbers";
    else if (B.teams < 1 || B.teams > G_MAX_SEATS)
        why = "teams out of range";
    else if (start < 0 || start > (1L << 40) || count < 0 || count > 1000000L || max_steps < 0 || max_steps > 1000000000L)
        why = "start, count or max_steps out of range";
    else if (sb.len < 0 || sb.len > 200 || memchr(sb.buf, 0, (size_t)sb.len) != NULL)
        why = "a seed text of at most 200 bytes with no NUL";
    else if (kb.len != ub.len || kb.len < 1 || kb.len > G_MAX_CARDS)
        why = "the pack's kinds and suits differ in length or do not fit";
    if (why == NULL) {
        const uint8_t *u = (const uint8_t *)ub.buf;
        for (i = 0; i < ub.len && why == NULL; i++)
            if (u[i] >= 16)
                why = "a suit number is above 15";
    }
    if (why != NULL) {
        PyErr_SetString(PyExc_ValueError, why);
        goto done;
    }
    memcpy(seed, sb.buf, (size_t)sb.len);
    seed[sb.len] = 0;
    if (heur != Py_None) {
        B.heur = ((const HeuristicObject *)heur)->prog;
        B.seats = (uint32_t)heur_seats;
    }
    base = (vm_ctx *)PyMem_Calloc(1, sizeof(vm_ctx));
    t = (g_tables *)PyMem_Calloc(1, sizeof(g_tables));
    W = (bt_work *)PyMem_Calloc(1, sizeof(bt_work));
    ev = (int32_t *)PyMem_Calloc((size_t)ev_cap, sizeof(int32_t));
    if (base == NULL || t == NULL || W == NULL || ev == NULL) {
        PyErr_NoMemory();
        goto done;
    }
    if (unpack_ctx(&cb, base) < 0)
        goto done;
    if (base->n_seats != n || base->n_kinds != P->n_kinds || base->n_ranks != P->n_ranks) {
        PyErr_SetString(PyExc_ValueError, "the context is not of this program's ruleset");
        goto done;
    }
    t->n_seats = n;
    t->n_kinds = P->n_kinds;
    t->n_ranks = P->n_ranks;
    t->n_cards = (int)kb.len;
    memcpy(t->deck_kind, kb.buf, (size_t)kb.len);
    if (g_tables_check(t, &why) < 0) {
        PyErr_SetString(PyExc_ValueError, why);
        goto done;
    }
    out = PyBytes_FromStringAndSize(NULL, (Py_ssize_t)count * BR_WORDS(n) * 4);
    if (out == NULL)
        goto done;
    res = (int32_t *)PyBytes_AS_STRING(out);
    k = 0;
    Py_BEGIN_ALLOW_THREADS
    for (i = 0; i < count; i++) {
        int32_t *o = res + i * BR_WORDS(n);
        int follows = (start + i) % match_games != 0;
        if (follows && (i == 0 || !last_ok)) {  /* (the game before it is not the core's: Python plays it) */
            memset(o, 0, sizeof(int32_t) * (size_t)BR_WORDS(n));
            o[BR_STATUS] = BG_PYTHON;
            last_ok = 0;
            continue;
        }
        bt_game(W, P, &B, base, t, (const uint8_t *)ub.buf, seed, start + i, max_steps, ev, ev_cap, o, follows);
        last_ok = o[BR_STATUS] == BG_OK;
    }
    Py_END_ALLOW_THREADS
    (void)k;
done:
    PyMem_Free(base);
    PyMem_Free(t);
    PyMem_Free(W);
    PyMem_Free(ev);
    PyBuffer_Release(&cb);
    PyBuffer_Release(&kb);
    PyBuffer_Release(&ub);
    PyBuffer_Release(&sb);
    return out;
}
