/* kiothi_board.native._core: the CPython face of the native core (core.h, tree.h).
 * Boards cross as the packed ints of the Python path (pit i in bits 8i..8i+7), sown flags
 * as 20-bit masks, so either core can stand in for the other. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "core.h"
#include "tree.h"

/* One translation unit (with -fvisibility=hidden): the compiler inlines the sowing into the
 * search and the playouts across what are separate files for the reader. */
#include "sow.c"
#include "tree.c"

#define ABI 1

/* ---------------------------------------------------------------- packed ints */

static int as_bytes(PyObject *o, unsigned char *buf, size_t n, const char *what) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "%s must be an int, got %R", what, o);
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(o, buf, (Py_ssize_t)n,
                                           Py_ASNATIVEBYTES_LITTLE_ENDIAN |
                                               Py_ASNATIVEBYTES_UNSIGNED_BUFFER |
                                               Py_ASNATIVEBYTES_REJECT_NEGATIVE);
    if (need < 0) return -1;
    if ((size_t)need > n) {
        PyErr_Format(PyExc_OverflowError, "%s %R does not fit in %zu bytes", what, o, n);
        return -1;
    }
    return 0;
#else
    if (_PyLong_Sign(o) < 0) {
        PyErr_Format(PyExc_ValueError, "%s must not be negative, got %R", what, o);
        return -1;
    }
    if (_PyLong_AsByteArray((PyLongObject *)o, buf, n, 1, 0) < 0) {
        PyErr_Clear();
        PyErr_Format(PyExc_OverflowError, "%s %R does not fit in %zu bytes", what, o, n);
        return -1;
    }
    return 0;
#endif
}

static PyObject *from_bytes(const unsigned char *buf, size_t n) {
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromUnsignedNativeBytes(buf, n, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    return _PyLong_FromByteArray(buf, n, 1, 0);
#endif
}

static int get_board(PyObject *o, kc_board *bd) {
    memset(bd, 0, sizeof *bd);
    if (as_bytes(o, bd->b, KC_PITS, "board") < 0) return -1;
    if (kc_sum(bd, 0, KC_PITS) > KC_SEEDS) {
        PyErr_Format(PyExc_ValueError, "board %R holds more than %d seeds", o, KC_SEEDS);
        return -1;
    }
    return 0;
}

static int get_sown(PyObject *o, uint32_t *sown) {
    unsigned char b[4] = {0, 0, 0, 0};
    if (as_bytes(o, b, 4, "sown") < 0) return -1;
    uint32_t v = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
    if (v >> KC_PITS) {
        PyErr_Format(PyExc_ValueError, "sown %R has bits beyond the 20 pits", o);
        return -1;
    }
    *sown = v;
    return 0;
}

static int get_side(PyObject *o, int *side) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v != 0 && v != 1) {
        PyErr_Format(PyExc_ValueError, "side must be 0 (S) or 1 (N), got %R", o);
        return -1;
    }
    *side = (int)v;
    return 0;
}

static int get_position(PyObject *const *args, kc_board *bd, uint32_t *sown, int *side) {
    if (get_board(args[0], bd) < 0 || get_sown(args[1], sown) < 0) return -1;
    return get_side(args[2], side);
}

static PyObject *board_int(const kc_board *bd) { return from_bytes(bd->b, KC_PITS); }

static int need_args(Py_ssize_t n, Py_ssize_t want, const char *name) {
    if (n != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, n);
        return -1;
    }
    return 0;
}

/* The R11 key as Position.key builds it: board | sown << 160 | side << 180. */
static PyObject *key_int(const kc_board *bd, uint32_t sown, int side) {
    unsigned char k[23];
    memcpy(k, bd->b, KC_PITS);
    k[20] = (unsigned char)(sown & 0xFF);
    k[21] = (unsigned char)(sown >> 8 & 0xFF);
    k[22] = (unsigned char)((sown >> 16 & 0xF) | (unsigned)side << 4);
    return from_bytes(k, sizeof k);
}

static int key_parts(PyObject *o, kc_board *bd, uint32_t *sown, int *side) {
    unsigned char k[23];
    if (as_bytes(o, k, sizeof k, "repetition key") < 0) return -1;
    memset(bd, 0, sizeof *bd);
    memcpy(bd->b, k, KC_PITS);
    *sown = (uint32_t)k[20] | (uint32_t)k[21] << 8 | (uint32_t)(k[22] & 0xF) << 16;
    if (k[22] >> 5) {
        PyErr_Format(PyExc_ValueError, "bad repetition key %R", o);
        return -1;
    }
    *side = k[22] >> 4 & 1;
    return 0;
}

/* ---------------------------------------------------------------- Rules */

typedef struct {
    PyObject_HEAD kc_rules rules;
} RulesObject;

static int Rules_init(RulesObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"V3", "V4", "V6", "V7", "V8", NULL};
    int v3 = 0, v4 = 0, v6 = 0, v7 = 0, v8 = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|ppppp", names, &v3, &v4, &v6, &v7, &v8))
        return -1;
    kc_rules_init(&self->rules, v3, v4, v6, v7, v8);
    return 0;
}

static PyObject *sow_result(const kc_board *bd, uint32_t sown, int gain) {
    PyObject *b = board_int(bd);
    if (!b) return NULL;
    return Py_BuildValue("(NIi)", b, (unsigned)sown, gain);
}

static int get_pit(PyObject *o, const kc_board *bd, int *pit) {
    long v = PyLong_AsLong(o);
    if (v == -1 && PyErr_Occurred()) return -1;
    if (v < 0 || v >= KC_PITS) {
        PyErr_Format(PyExc_ValueError, "pit index %R out of range 0-19", o);
        return -1;
    }
    if (!bd->b[v]) {
        PyErr_Format(PyExc_ValueError, "pit %R is empty: there is nothing to sow", o);
        return -1;
    }
    *pit = (int)v;
    return 0;
}

static PyObject *Rules_sow(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side, pit, gain;
    if (need_args(n, 4, "sow") < 0 || get_position(args, &bd, &sown, &side) < 0 ||
        get_pit(args[3], &bd, &pit) < 0)
        return NULL;
    if (!kc_sow(&self->rules, &bd, &sown, side, pit, &gain)) Py_RETURN_NONE;
    return sow_result(&bd, sown, gain);
}

static PyObject *Rules_moves_of(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    int side, pits[KC_ROW];
    if (need_args(n, 2, "moves_of") < 0 || get_board(args[0], &bd) < 0 ||
        get_side(args[1], &side) < 0)
        return NULL;
    int m = kc_moves_of(&bd, side, pits);
    PyObject *out = PyTuple_New(m);
    if (!out) return NULL;
    for (int i = 0; i < m; i++) PyTuple_SET_ITEM(out, i, PyLong_FromLong(pits[i]));
    return out;
}

/* which: 0 legal moves, 1 children, 2 endless moves */
static PyObject *moves(RulesObject *self, PyObject *const *args, Py_ssize_t n, int which) {
    kc_board bd;
    uint32_t sown;
    int side, pits[KC_ROW];
    if (need_args(n, 3, which == 1 ? "children" : which ? "endless_moves" : "legal_moves") < 0 ||
        get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    PyObject *out = PyList_New(0);
    if (!out) return NULL;
    int m = kc_moves_of(&bd, side, pits);
    for (int i = 0; i < m; i++) {
        kc_board b = bd;
        uint32_t s = sown;
        int gain, ended = kc_sow(&self->rules, &b, &s, side, pits[i], &gain);
        PyObject *item = NULL;
        if (which == 0 && ended) item = PyLong_FromLong(pits[i]);
        else if (which == 2 && !ended) item = PyLong_FromLong(pits[i]);
        else if (which == 1 && ended) {
            PyObject *bi = board_int(&b);
            item = bi ? Py_BuildValue("(iNIi)", pits[i], bi, (unsigned)s, gain) : NULL;
        } else {
            continue;
        }
        if (!item || PyList_Append(out, item) < 0) {
            Py_XDECREF(item);
            Py_DECREF(out);
            return NULL;
        }
        Py_DECREF(item);
    }
    return out;
}

static PyObject *Rules_legal_moves(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    return moves(self, args, n, 0);
}

static PyObject *Rules_children(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    return moves(self, args, n, 1);
}

static PyObject *Rules_endless_moves(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    return moves(self, args, n, 2);
}

static PyObject *Rules_key(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 3, "key") < 0 || get_position(args, &bd, &sown, &side) < 0) return NULL;
    return key_int(&bd, sown, side);
}

static PyObject *Rules_playout(RulesObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side, caps[2];
    if (need_args(n, 6, "playout") < 0 || get_position(args, &bd, &sown, &side) < 0) return NULL;
    if (!PyArg_ParseTuple(args[3], "ii", &caps[0], &caps[1])) return NULL;
    long max_plies = -1;
    if (args[5] != Py_None) {
        max_plies = PyLong_AsLong(args[5]);
        if (max_plies == -1 && PyErr_Occurred()) return NULL;
        if (max_plies < 0) return PyErr_Format(PyExc_ValueError, "max_plies must be >= 0");
    }
    PyObject *state = PyObject_GetAttrString(args[4], "state");
    if (!state) return NULL;
    uint64_t rng = PyLong_AsUnsignedLongLong(state);
    Py_DECREF(state);
    if (PyErr_Occurred()) return NULL;
    kc_playout_result res;
    int rc;
    Py_BEGIN_ALLOW_THREADS rc = kc_playout(&self->rules, bd, sown, side, caps, &rng, max_plies, &res);
    Py_END_ALLOW_THREADS if (rc != 0) return PyErr_NoMemory();
    PyObject *new_state = PyLong_FromUnsignedLongLong(rng);
    if (!new_state) return NULL;
    rc = PyObject_SetAttrString(args[4], "state", new_state);
    Py_DECREF(new_state);
    if (rc < 0) return NULL;
    static const char *ends[] = {"no-moves", "repetition", "ply-limit"};
    return Py_BuildValue("(iils)", res.captured[0], res.captured[1], res.moves, ends[res.end]);
}

static PyMethodDef Rules_methods[] = {
    {"sow", (PyCFunction)(void (*)(void))Rules_sow, METH_FASTCALL,
     "sow(board, sown, side, pit) -> (board, sown, captured), or None if endless (R6)"},
    {"moves_of", (PyCFunction)(void (*)(void))Rules_moves_of, METH_FASTCALL,
     "moves_of(board, side) -> the side's non-empty pits"},
    {"legal_moves", (PyCFunction)(void (*)(void))Rules_legal_moves, METH_FASTCALL,
     "legal_moves(board, sown, side) -> the non-empty pits whose sowing ends"},
    {"children", (PyCFunction)(void (*)(void))Rules_children, METH_FASTCALL,
     "children(board, sown, side) -> [(pit, board, sown, captured)]"},
    {"endless_moves", (PyCFunction)(void (*)(void))Rules_endless_moves, METH_FASTCALL,
     "endless_moves(board, sown, side) -> the non-empty pits whose sowing never ends"},
    {"key", (PyCFunction)(void (*)(void))Rules_key, METH_FASTCALL,
     "key(board, sown, side) -> the R11 repetition key"},
    {"playout", (PyCFunction)(void (*)(void))Rules_playout, METH_FASTCALL,
     "playout(board, sown, side, captured, rng, max_plies) -> (s, n, moves, end)"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject RulesType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiothi_board.native._core.CoreRules",
    .tp_basicsize = sizeof(RulesObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CoreRules(V3=False, V4=False, V6=False, V7=False, V8=False): native relay sowing",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Rules_init,
    .tp_methods = Rules_methods,
};

/* ---------------------------------------------------------------- Tree */

typedef struct {
    PyObject_HEAD kc_tree tree;
    int ready;
    PyObject *aborted; /* the exception class the Python path raises */
    PyObject *stop, *clock;
    double deadline;
    int has_deadline;
    int busy, pyerr;
    PyThreadState *tstate;
} TreeObject;

static int tree_check(kc_tree *t) {
    TreeObject *self = (TreeObject *)t->owner;
    PyEval_RestoreThread(self->tstate);
    int abort = 0;
    if (self->stop != Py_None) {
        PyObject *r = PyObject_CallMethod(self->stop, "is_set", NULL);
        int truth = r ? PyObject_IsTrue(r) : -1;
        Py_XDECREF(r);
        if (truth < 0) self->pyerr = abort = 1;
        else abort = truth;
    }
    if (!abort && self->has_deadline) {
        PyObject *r = PyObject_CallNoArgs(self->clock);
        double now = r ? PyFloat_AsDouble(r) : -1.0;
        Py_XDECREF(r);
        if (!r || (now == -1.0 && PyErr_Occurred())) self->pyerr = abort = 1;
        else abort = now >= self->deadline;
    }
    if (!abort && t->nodes >= t->node_cap) abort = 1;
    self->tstate = PyEval_SaveThread();
    return abort;
}

static int Tree_init(TreeObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"rules", "weights", "aborted", NULL};
    PyObject *rules, *weights, *aborted;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "O!OO", names, &RulesType, &rules, &weights,
                                     &aborted))
        return -1;
    int32_t w[8];
    PyObject *seq = PySequence_Fast(weights, "weights must be a sequence of 8 ints");
    if (!seq) return -1;
    if (PySequence_Fast_GET_SIZE(seq) != 8) {
        Py_DECREF(seq);
        PyErr_SetString(PyExc_ValueError, "weights must be 8 ints (Weights field order)");
        return -1;
    }
    for (int i = 0; i < 8; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        if (v == -1 && PyErr_Occurred()) {
            Py_DECREF(seq);
            return -1;
        }
        if (v < -100000 || v > 100000) { /* keeps every score well inside 32 bits */
            Py_DECREF(seq);
            PyErr_Format(PyExc_ValueError, "weight %ld out of the native core's range -100000..100000", v);
            return -1;
        }
        w[i] = (int32_t)v;
    }
    Py_DECREF(seq);
    if (self->ready) kc_tree_free(&self->tree);
    if (kc_tree_init(&self->tree) != 0) {
        PyErr_NoMemory();
        return -1;
    }
    self->ready = 1;
    self->tree.rules = ((RulesObject *)rules)->rules;
    kc_weights kw = {w[0], w[1], w[2], w[3], w[4], w[5], w[6], w[7]};
    self->tree.w = kw;
    self->tree.check = tree_check;
    self->tree.owner = self;
    Py_INCREF(aborted);
    Py_XSETREF(self->aborted, aborted);
    Py_INCREF(Py_None);
    Py_XSETREF(self->stop, Py_None);
    Py_INCREF(Py_None);
    Py_XSETREF(self->clock, Py_None);
    return 0;
}

static void Tree_dealloc(TreeObject *self) {
    if (self->ready) kc_tree_free(&self->tree);
    Py_XDECREF(self->aborted);
    Py_XDECREF(self->stop);
    Py_XDECREF(self->clock);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static int idle(TreeObject *self) {
    if (!self->ready) {
        PyErr_SetString(PyExc_RuntimeError, "CoreTree not initialised");
        return -1;
    }
    if (self->busy) {
        PyErr_SetString(PyExc_RuntimeError, "one search at a time per CoreTree");
        return -1;
    }
    return 0;
}

static PyObject *Tree_begin(TreeObject *self, PyObject *args, PyObject *kwds) {
    static char *names[] = {"game_history", "rep_limit", "stop", "clock", "deadline", "node_cap", NULL};
    PyObject *history, *stop, *clock, *deadline;
    int rep_limit;
    long long node_cap;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OiOOOL", names, &history, &rep_limit, &stop,
                                     &clock, &deadline, &node_cap))
        return NULL;
    if (idle(self) < 0) return NULL;
    kc_tree *t = &self->tree;
    kc_counts_clear(&t->reps);
    if (history != Py_None) {
        PyObject *items = PyMapping_Items(history);
        if (!items) return NULL;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items); i++) {
            PyObject *kv = PyList_GET_ITEM(items, i);
            kc_board bd;
            uint32_t sown;
            int side;
            long c;
            if (key_parts(PyTuple_GET_ITEM(kv, 0), &bd, &sown, &side) < 0 ||
                ((c = PyLong_AsLong(PyTuple_GET_ITEM(kv, 1))) == -1 && PyErr_Occurred())) {
                Py_DECREF(items);
                return NULL;
            }
            if (kc_counts_set(&t->reps, kc_key_of(&bd, sown, side), (int32_t)c) != 0) {
                Py_DECREF(items);
                return PyErr_NoMemory();
            }
        }
        Py_DECREF(items);
    }
    self->has_deadline = deadline != Py_None;
    if (self->has_deadline) {
        self->deadline = PyFloat_AsDouble(deadline);
        if (self->deadline == -1.0 && PyErr_Occurred()) return NULL;
    }
    t->rep_limit = rep_limit;
    t->node_cap = node_cap;
    t->nodes = t->leaves = t->repcuts = 0;
    Py_INCREF(stop);
    Py_XSETREF(self->stop, stop);
    Py_INCREF(clock);
    Py_XSETREF(self->clock, clock);
    Py_RETURN_NONE;
}

static PyObject *Tree_node(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    long v[5];
    if (need_args(n, 8, "node") < 0 || idle(self) < 0 || get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    for (int i = 0; i < 5; i++) {
        v[i] = PyLong_AsLong(args[3 + i]);
        if (v[i] == -1 && PyErr_Occurred()) return NULL;
        if (v[i] < -(1L << 30) - KC_INF || v[i] > (1L << 30) + KC_INF)
            return PyErr_Format(PyExc_OverflowError, "node argument %R out of range", args[3 + i]);
    }
    kc_tree *t = &self->tree;
    self->busy = 1;
    self->pyerr = 0;
    t->aborted = t->oom = 0;
    self->tstate = PyEval_SaveThread();
    int32_t value = kc_node(t, &bd, sown, side, (int)v[0], (int32_t)v[1], (int32_t)v[2],
                            (int)v[3], (int32_t)v[4]);
    PyEval_RestoreThread(self->tstate);
    self->busy = 0;
    if (t->aborted) {
        if (self->pyerr) return NULL;
        if (t->oom) return PyErr_NoMemory();
        PyErr_SetNone(self->aborted);
        return NULL;
    }
    return PyLong_FromLong(value);
}

static PyObject *Tree_reps(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 3, "reps") < 0 || get_position(args, &bd, &sown, &side) < 0) return NULL;
    return PyLong_FromLong(kc_counts_get(&self->tree.reps, kc_key_of(&bd, sown, side)));
}

static PyObject *Tree_set_reps(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 4, "set_reps") < 0 || idle(self) < 0 ||
        get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    long c = PyLong_AsLong(args[3]);
    if (c == -1 && PyErr_Occurred()) return NULL;
    if (c < 0) return PyErr_Format(PyExc_ValueError, "a count must not be negative");
    if (kc_counts_set(&self->tree.reps, kc_key_of(&bd, sown, side), (int32_t)c) != 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Tree_repcut(TreeObject *self, PyObject *unused) {
    self->tree.repcuts++;
    Py_RETURN_NONE;
}

static PyObject *Tree_tt_get(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 3, "tt_get") < 0 || idle(self) < 0 || get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    const kc_tt_entry *e = kc_tt_find(&self->tree, kc_key_of(&bd, sown, side));
    if (!e) Py_RETURN_NONE;
    return Py_BuildValue("(iiii)", e->depth, e->flag, e->score, e->move);
}

static PyObject *Tree_tt_store(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    long v[4];
    if (need_args(n, 7, "tt_store") < 0 || idle(self) < 0 ||
        get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    for (int i = 0; i < 4; i++) {
        v[i] = PyLong_AsLong(args[3 + i]);
        if (v[i] == -1 && PyErr_Occurred()) return NULL;
    }
    if (v[0] < -32768 || v[0] > 32767 || v[1] < 0 || v[1] > 2 || v[3] < -1 || v[3] >= KC_PITS ||
        v[2] < -2 * KC_INF || v[2] > 2 * KC_INF)
        return PyErr_Format(PyExc_ValueError, "bad table entry (%ld, %ld, %ld, %ld)", v[0], v[1],
                            v[2], v[3]);
    if (kc_tt_store(&self->tree, kc_key_of(&bd, sown, side), (int)v[0], (int)v[1], (int32_t)v[2],
                    (int)v[3]) != 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Tree_tt_len(TreeObject *self, PyObject *unused) {
    return PyLong_FromSize_t(self->tree.tt_used);
}

static PyObject *Tree_tt_clear(TreeObject *self, PyObject *unused) {
    if (idle(self) < 0) return NULL;
    kc_tt_clear(&self->tree);
    Py_RETURN_NONE;
}

static PyObject *Tree_new_game(TreeObject *self, PyObject *unused) {
    if (idle(self) < 0) return NULL;
    kc_tt_clear(&self->tree);
    memset(self->tree.hist, 0, sizeof self->tree.hist);
    Py_RETURN_NONE;
}

static PyObject *Tree_evaluate(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 3, "evaluate") < 0 || get_position(args, &bd, &sown, &side) < 0) return NULL;
    return PyLong_FromLong(kc_evaluate(&self->tree.w, &bd, sown, side));
}

static PyObject *Tree_get_hist(TreeObject *self, void *closure) {
    PyObject *out = PyList_New(KC_PITS);
    if (!out) return NULL;
    for (int i = 0; i < KC_PITS; i++) PyList_SET_ITEM(out, i, PyLong_FromLongLong(self->tree.hist[i]));
    return out;
}

static PyObject *Tree_get_counter(TreeObject *self, void *closure) {
    kc_tree *t = &self->tree;
    intptr_t which = (intptr_t)closure;
    return PyLong_FromLongLong(which == 0 ? t->nodes : which == 1 ? t->leaves : t->repcuts);
}

static PyGetSetDef Tree_getset[] = {
    {"nodes", (getter)Tree_get_counter, NULL, "nodes visited since begin()", (void *)0},
    {"leaves", (getter)Tree_get_counter, NULL, "horizon values met since begin()", (void *)1},
    {"repcuts", (getter)Tree_get_counter, NULL, "repetition cut-offs since begin()", (void *)2},
    {"hist", (getter)Tree_get_hist, NULL, "the history heuristic's scores by pit", NULL},
    {NULL, NULL, NULL, NULL, NULL}};

static PyMethodDef Tree_methods[] = {
    {"begin", (PyCFunction)(void (*)(void))Tree_begin, METH_VARARGS | METH_KEYWORDS,
     "begin(game_history, rep_limit, stop, clock, deadline, node_cap): start a search"},
    {"node", (PyCFunction)(void (*)(void))Tree_node, METH_FASTCALL,
     "node(board, sown, side, depth, alpha, beta, ext, left) -> value (raises when aborted)"},
    {"reps", (PyCFunction)(void (*)(void))Tree_reps, METH_FASTCALL,
     "reps(board, sown, side) -> occurrences in the game and on the path"},
    {"set_reps", (PyCFunction)(void (*)(void))Tree_set_reps, METH_FASTCALL,
     "set_reps(board, sown, side, count): 0 forgets the position"},
    {"repcut", (PyCFunction)Tree_repcut, METH_NOARGS, "count one repetition cut-off"},
    {"tt_get", (PyCFunction)(void (*)(void))Tree_tt_get, METH_FASTCALL,
     "tt_get(board, sown, side) -> (depth, flag, score, move) or None"},
    {"tt_store", (PyCFunction)(void (*)(void))Tree_tt_store, METH_FASTCALL,
     "tt_store(board, sown, side, depth, flag, score, move)"},
    {"tt_len", (PyCFunction)Tree_tt_len, METH_NOARGS, "entries in the transposition table"},
    {"tt_clear", (PyCFunction)Tree_tt_clear, METH_NOARGS, "empty the transposition table"},
    {"new_game", (PyCFunction)Tree_new_game, METH_NOARGS, "forget the table and the history"},
    {"evaluate", (PyCFunction)(void (*)(void))Tree_evaluate, METH_FASTCALL,
     "evaluate(board, sown, side) -> centi-seeds for the side to move"},
    {NULL, NULL, 0, NULL}};

static PyTypeObject TreeType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "kiothi_board.native._core.CoreTree",
    .tp_basicsize = sizeof(TreeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "CoreTree(rules, weights, aborted): the search's inner loop with its tables",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Tree_init,
    .tp_dealloc = (destructor)Tree_dealloc,
    .tp_methods = Tree_methods,
    .tp_getset = Tree_getset,
};

/* ---------------------------------------------------------------- module */

static struct PyModuleDef module = {
    PyModuleDef_HEAD_INIT, "kiothi_board.native._core",
    "The native core: relay sowing and the search's inner loop (see kiothi_board.native).", -1,
    NULL, NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__core(void) {
    kc_init_laps();
    if (PyType_Ready(&RulesType) < 0 || PyType_Ready(&TreeType) < 0) return NULL;
    PyObject *m = PyModule_Create(&module);
    if (!m) return NULL;
    if (PyModule_AddIntConstant(m, "ABI", ABI) < 0 ||
        PyModule_AddIntConstant(m, "MAX_LAPS", KC_MAX_LAPS) < 0 ||
        PyModule_AddIntConstant(m, "CHECK_EVERY", KC_CHECK_EVERY) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    Py_INCREF(&RulesType);
    Py_INCREF(&TreeType);
    if (PyModule_AddObject(m, "CoreRules", (PyObject *)&RulesType) < 0 ||
        PyModule_AddObject(m, "CoreTree", (PyObject *)&TreeType) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
