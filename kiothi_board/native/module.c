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

/* CoreRules.__new__ alone (no __init__) must not leave the lap tables unset: the defaults. */
static PyObject *Rules_new(PyTypeObject *type, PyObject *args, PyObject *kwds) {
    RulesObject *self = (RulesObject *)PyType_GenericNew(type, args, kwds);
    if (self) kc_rules_init(&self->rules, 0, 0, 0, 0, 0);
    return (PyObject *)self;
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
    if (!PyTuple_Check(args[3]) || PyTuple_GET_SIZE(args[3]) != 2)
        return PyErr_Format(PyExc_TypeError, "captured must be a tuple (south, north), got %R",
                            args[3]);
    for (int i = 0; i < 2; i++) {
        PyObject *c = PyTuple_GET_ITEM(args[3], i);
        long v = PyLong_Check(c) ? PyLong_AsLong(c) : -2;
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (v < 0 || v > KC_SEEDS) /* the sums below stay far inside an int */
            return PyErr_Format(PyExc_ValueError, "captured %R must be two ints 0..%d", args[3],
                                KC_SEEDS);
        caps[i] = (int)v;
    }
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
    .tp_new = Rules_new,
    .tp_init = (initproc)Rules_init,
    .tp_methods = Rules_methods,
};

#include "tree_py.c" /* the CoreTree type */

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
