/* The CoreTree type: the search's inner loop (tree.c) as a Python object. Included by
 * module.c, whose helpers (get_position, key_parts, need_args, RulesType) it uses. */

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
    if (self->busy) { /* a search runs on these tables with the GIL released */
        PyErr_SetString(PyExc_RuntimeError, "one search at a time per CoreTree");
        return -1;
    }
    if (!PyExceptionClass_Check(aborted)) {
        PyErr_Format(PyExc_TypeError, "aborted must be an exception class, got %R", aborted);
        return -1;
    }
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
    self->ready = 0; /* until the new tables exist */
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

#define KC_MAX_DEPTH 512
#define KC_MAX_EXT 64

/* Every method and getter first: a tree made by __new__ alone has no tables, and while a
 * search runs (the GIL released) its tables are the search's. */
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

/* A repetition count: an int 0..KC_MAX_COUNT (so that count + 1 never overflows). */
#define KC_MAX_COUNT (1 << 20)
static int get_count(PyObject *o, long *c) {
    if (!PyLong_Check(o)) {
        PyErr_Format(PyExc_TypeError, "a count must be an int, got %R", o);
        return -1;
    }
    *c = PyLong_AsLong(o);
    if (*c == -1 && PyErr_Occurred()) return -1;
    if (*c < 0 || *c > KC_MAX_COUNT) {
        PyErr_Format(PyExc_ValueError, "count %R out of range 0..%d", o, KC_MAX_COUNT);
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
    if (node_cap < 0) return PyErr_Format(PyExc_ValueError, "node_cap must be >= 0, got %lld", node_cap);
    if (stop != Py_None && !PyObject_HasAttrString(stop, "is_set"))
        return PyErr_Format(PyExc_TypeError, "stop must be None or have is_set(), got %R", stop);
    if (deadline != Py_None && !PyCallable_Check(clock))
        return PyErr_Format(PyExc_TypeError, "clock must be callable with a deadline, got %R", clock);
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
            if (!PyTuple_Check(kv) || PyTuple_GET_SIZE(kv) != 2) {
                PyErr_Format(PyExc_TypeError, "game_history items must be (key, count), got %R", kv);
                Py_DECREF(items);
                return NULL;
            }
            if (key_parts(PyTuple_GET_ITEM(kv, 0), &bd, &sown, &side) < 0 ||
                get_count(PyTuple_GET_ITEM(kv, 1), &c) < 0) {
                Py_DECREF(items);
                kc_counts_clear(&t->reps);
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
    /* The recursion goes at most depth + ext frames deep: both bounded, so no stack runs out. */
    if (v[0] > KC_MAX_DEPTH)
        return PyErr_Format(PyExc_ValueError, "depth %ld over the native core's %d", v[0], KC_MAX_DEPTH);
    if (v[3] < 0 || v[3] > KC_MAX_EXT)
        return PyErr_Format(PyExc_ValueError, "ext %ld out of range 0..%d", v[3], KC_MAX_EXT);
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
    if (need_args(n, 3, "reps") < 0 || idle(self) < 0 || get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    return PyLong_FromLong(kc_counts_get(&self->tree.reps, kc_key_of(&bd, sown, side)));
}

static PyObject *Tree_set_reps(TreeObject *self, PyObject *const *args, Py_ssize_t n) {
    kc_board bd;
    uint32_t sown;
    int side;
    if (need_args(n, 4, "set_reps") < 0 || idle(self) < 0 ||
        get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    long c;
    if (get_count(args[3], &c) < 0) return NULL;
    if (kc_counts_set(&self->tree.reps, kc_key_of(&bd, sown, side), (int32_t)c) != 0)
        return PyErr_NoMemory();
    Py_RETURN_NONE;
}

static PyObject *Tree_repcut(TreeObject *self, PyObject *unused) {
    if (idle(self) < 0) return NULL;
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
    if (idle(self) < 0) return NULL;
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
    if (need_args(n, 3, "evaluate") < 0 || idle(self) < 0 ||
        get_position(args, &bd, &sown, &side) < 0)
        return NULL;
    return PyLong_FromLong(kc_evaluate(&self->tree.w, &bd, sown, side));
}

static PyObject *Tree_get_hist(TreeObject *self, void *closure) {
    if (idle(self) < 0) return NULL;
    PyObject *out = PyList_New(KC_PITS);
    if (!out) return NULL;
    for (int i = 0; i < KC_PITS; i++) {
        PyObject *v = PyLong_FromLongLong(self->tree.hist[i]);
        if (!v) {
            Py_DECREF(out);
            return NULL;
        }
        PyList_SET_ITEM(out, i, v);
    }
    return out;
}

static PyObject *Tree_get_counter(TreeObject *self, void *closure) {
    if (idle(self) < 0) return NULL;
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
