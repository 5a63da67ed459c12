/* Python bindings of the native heuristic bot (heuristic.h), included by _core.c after flow_py.h.
 *
 * heuristic_load(flow, vals, jsum, hook, programs, gouji_penalty, late) -> Heuristic: the bot's
 * tables for the ruleset of `flow` (gouji_dsl/engine/native/heuristic.py builds them): the card
 * values per kind, the sum of each joker combination's classified jokers, the see_count hook in
 * flow.py's hook words (n, kind, default tag, default value, none_ok, then when / effect / code
 * per rule) over `programs` (each checked by vm_verify). Flow.run takes it with the seats it plays.
 */

typedef struct {
    PyObject_HEAD
    hr_prog *prog;
    PyObject *programs;  /* the bytes the rules point into (kept alive) */
    int n_kinds, nc;     /* the flow program's (checked when a run is given it) */
} HeuristicObject;

static void Heuristic_dealloc(HeuristicObject *self)
{
    PyMem_Free(self->prog);
    Py_XDECREF(self->programs);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyTypeObject HeuristicType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "gouji_dsl.engine.native._core.Heuristic",
    .tp_basicsize = sizeof(HeuristicObject),
    .tp_dealloc = (destructor)Heuristic_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "The heuristic bot's tables for one ruleset's flow program (heuristic.h), loaded by heuristic_load.",
};

static PyObject *core_heuristic_load(PyObject *Py_UNUSED(module), PyObject *args)
{
    PyObject *flow, *vals_obj, *jsum_obj, *progs_obj, *vals = NULL, *jsum = NULL, *progs = NULL;
    Py_buffer hb;
    double penalty, late;
    HeuristicObject *self = NULL;
    hr_prog *H = NULL;
    const fl_prog *P;
    const int32_t *w;
    Py_ssize_t nw, i;
    int k;
    if (!PyArg_ParseTuple(args, "O!OOy*Odd:heuristic_load", &FlowType, &flow, &vals_obj, &jsum_obj, &hb, &progs_obj, &penalty,
                          &late))
        return NULL;
    P = ((FlowObject *)flow)->prog;
#define BAD(msg) do { PyErr_SetString(PyExc_ValueError, msg); goto fail; } while (0)
    vals = PySequence_Fast(vals_obj, "vals is a sequence of floats");
    jsum = PySequence_Fast(jsum_obj, "jsum is a sequence of ints");
    progs = PySequence_Tuple(progs_obj);
    if (vals == NULL || jsum == NULL || progs == NULL)
        goto fail;
    if (PySequence_Fast_GET_SIZE(vals) != P->n_kinds || PySequence_Fast_GET_SIZE(jsum) != P->nc)
        BAD("one card value per kind and one joker sum per combination");
    if (hb.len % 4 != 0 || hb.len / 4 < 5)
        BAD("the hook is int32 words");
    H = (hr_prog *)PyMem_Calloc(1, sizeof(hr_prog));
    if (H == NULL) {
        PyErr_NoMemory();
        goto fail;
    }
    for (k = 0; k < P->n_kinds; k++) {
        H->vals[k] = PyFloat_AsDouble(PySequence_Fast_GET_ITEM(vals, k));
        if (H->vals[k] == -1.0 && PyErr_Occurred())
            goto fail;
    }
    for (k = 0; k < P->nc; k++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(jsum, k));
        if (v == -1 && PyErr_Occurred())
            goto fail;
        if (v < 0 || v > 1000000)
            BAD("a joker sum is out of range");
        H->jsum[k] = (int)v;
    }
    H->gouji_penalty = penalty;
    H->late = late;
    for (i = 0; i < PyTuple_GET_SIZE(progs); i++) {
        PyObject *o = PyTuple_GET_ITEM(progs, i);
        if (!PyBytes_Check(o) || PyBytes_GET_SIZE(o) == 0 || PyBytes_GET_SIZE(o) % 4 || PyBytes_GET_SIZE(o) / 4 > VM_MAX_CODE
            || vm_verify((const int32_t *)PyBytes_AS_STRING(o), (int)(PyBytes_GET_SIZE(o) / 4), P->n_kinds) < 0)
            BAD("a program does not pass the verifier");
    }
    w = (const int32_t *)hb.buf;
    nw = hb.len / 4;
    {
        fl_hook *hk = &H->see_count;
        hk->n = w[0];
        hk->kind = w[1];
        hk->deflt.tag = w[2];
        hk->deflt.v = w[3];
        hk->none_ok = w[4] != 0;
        if (hk->n < 0 || hk->n > FL_MAX_RULES || hk->kind != 0 || hk->deflt.tag != T_BOOL || nw != 5 + 3 * (Py_ssize_t)hk->n)
            BAD("the see_count hook's words are out of range");
        for (k = 0; k < hk->n; k++) {
            vm_rule *r = &hk->rules[k];
            const int32_t *x = w + 5 + 3 * k;
            r->effect = x[1];
            if (r->effect < 0 || r->effect >= EFF_VALUE)
                BAD("a see_count rule's effect is not a permit's");
            if (ft_prog(progs, x[0], &r->when, &r->when_n, 1) < 0 || ft_prog(progs, x[2], &r->code, &r->code_n, 0) < 0)
                BAD("a see_count rule names no program");
        }
    }
#undef BAD
    self = PyObject_New(HeuristicObject, &HeuristicType);
    if (self == NULL)
        goto fail;
    self->prog = H;
    self->programs = progs;
    self->n_kinds = P->n_kinds;
    self->nc = P->nc;
    Py_DECREF(vals);
    Py_DECREF(jsum);
    PyBuffer_Release(&hb);
    return (PyObject *)self;
fail:
    PyMem_Free(H);
    Py_XDECREF(vals);
    Py_XDECREF(jsum);
    Py_XDECREF(progs);
    PyBuffer_Release(&hb);
    return NULL;
}
