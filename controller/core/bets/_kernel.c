/* The live edge's compiled kernel (controller/core/bets/kernel.py wraps it; the pure-Python reference is
 * controller/core/bets/exact.py position_weights, and packed.py the pure-Python fast path).
 *
 * Kernel(blob, groups): blob is controller/core/bets/exact_tables.bin, the multiset tables classified
 * through the rules table (the format is written and read by controller/core/bets/tables.py); groups is a
 * sequence of sequences of position indices. Kernel.sums(values) takes the counts left of the ten baccarat
 * values and returns, for each group, the number of ordered six-card deals from that shoe that end in one
 * of the group's final positions: the same whole numbers as the reference, in unsigned 64-bit arithmetic,
 * exact because no sum exceeds perm(cards left, 6), refused (ValueError) for shoes where that could
 * overflow. The computation runs without the GIL.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <stdint.h>
#include <string.h>

#define LEVELS 6
#define VALUES 10
#define MAX_CARDS_LEFT 1500 /* perm(1500, 6) < 2**64 */
#define MAGIC "CRPXT001"
#define MAGIC_SIZE 8

typedef struct {
    PyObject_HEAD
    Py_ssize_t level_size[LEVELS + 1]; /* multisets of 0..6 values; level 0 holds the empty one */
    Py_ssize_t level_start[LEVELS + 1]; /* where each level starts in one array of all multisets */
    Py_ssize_t multisets;
    uint32_t *parent;   /* per multiset of level >= 1: the global index of its parent */
    uint8_t *factor;    /* per multiset of level >= 1: 10 * j + v, the falling factor it multiplies by */
    Py_ssize_t positions;
    uint8_t *cards;      /* per position: cards in the round (4, 5 or 6) */
    Py_ssize_t *first;   /* per position: its first entry; first[positions] = entries */
    uint16_t *member;    /* per entry: index of the multiset in its level */
    uint8_t *orderings;  /* per entry: orderings of that multiset ending in the position */
    Py_ssize_t groups;
    Py_ssize_t *group_first; /* per group: its first position index entry; group_first[groups] = total */
    uint32_t *group_position;
} Kernel;

static void
kernel_free_arrays(Kernel *self)
{
    PyMem_Free(self->parent);
    PyMem_Free(self->factor);
    PyMem_Free(self->cards);
    PyMem_Free(self->first);
    PyMem_Free(self->member);
    PyMem_Free(self->orderings);
    PyMem_Free(self->group_first);
    PyMem_Free(self->group_position);
    self->parent = NULL;
    self->factor = NULL;
    self->cards = NULL;
    self->first = NULL;
    self->member = NULL;
    self->orderings = NULL;
    self->group_first = NULL;
    self->group_position = NULL;
}

static void
kernel_dealloc(Kernel *self)
{
    kernel_free_arrays(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

typedef struct {
    const unsigned char *at;
    const unsigned char *end;
} Reader;

static int
read_bytes(Reader *reader, Py_ssize_t count, const unsigned char **out)
{
    if (reader->end - reader->at < count) {
        PyErr_SetString(PyExc_ValueError, "the edge tables end too early");
        return -1;
    }
    *out = reader->at;
    reader->at += count;
    return 0;
}

static int
read_u16(Reader *reader, uint32_t *out)
{
    const unsigned char *at;
    if (read_bytes(reader, 2, &at) < 0) {
        return -1;
    }
    *out = (uint32_t)at[0] | ((uint32_t)at[1] << 8);
    return 0;
}

static int
read_u32(Reader *reader, uint32_t *out)
{
    const unsigned char *at;
    if (read_bytes(reader, 4, &at) < 0) {
        return -1;
    }
    *out = (uint32_t)at[0] | ((uint32_t)at[1] << 8) | ((uint32_t)at[2] << 16) | ((uint32_t)at[3] << 24);
    return 0;
}

static int
parse_levels(Kernel *self, Reader *reader)
{
    uint32_t size;
    self->level_size[0] = 1;
    self->level_start[0] = 0;
    self->multisets = 1;
    for (int level = 1; level <= LEVELS; level++) {
        if (read_u16(reader, &size) < 0) {
            return -1;
        }
        self->level_size[level] = size;
        self->level_start[level] = self->multisets;
        self->multisets += size;
    }
    self->parent = PyMem_Calloc((size_t)self->multisets, sizeof(uint32_t));
    self->factor = PyMem_Calloc((size_t)self->multisets, sizeof(uint8_t));
    if (self->parent == NULL || self->factor == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int level = 1; level <= LEVELS; level++) {
        for (Py_ssize_t i = 0; i < self->level_size[level]; i++) {
            uint32_t parent;
            if (read_u16(reader, &parent) < 0) {
                return -1;
            }
            if ((Py_ssize_t)parent >= self->level_size[level - 1]) {
                PyErr_SetString(PyExc_ValueError, "the edge tables name a parent that does not exist");
                return -1;
            }
            self->parent[self->level_start[level] + i] = (uint32_t)(self->level_start[level - 1] + parent);
        }
    }
    for (int level = 1; level <= LEVELS; level++) {
        const unsigned char *factors;
        if (read_bytes(reader, self->level_size[level], &factors) < 0) {
            return -1;
        }
        for (Py_ssize_t i = 0; i < self->level_size[level]; i++) {
            if (factors[i] >= LEVELS * VALUES) {
                PyErr_SetString(PyExc_ValueError, "the edge tables hold a factor out of range");
                return -1;
            }
            self->factor[self->level_start[level] + i] = factors[i];
        }
    }
    return 0;
}

static int
parse_positions(Kernel *self, Reader *reader)
{
    uint32_t positions, entries;
    if (read_u16(reader, &positions) < 0 || read_u32(reader, &entries) < 0) {
        return -1;
    }
    self->positions = positions;
    self->cards = PyMem_Calloc(positions + 1, sizeof(uint8_t));
    self->first = PyMem_Calloc(positions + 1, sizeof(Py_ssize_t));
    self->member = PyMem_Calloc(entries + 1, sizeof(uint16_t));
    self->orderings = PyMem_Calloc(entries + 1, sizeof(uint8_t));
    if (self->cards == NULL || self->first == NULL || self->member == NULL || self->orderings == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t total = 0;
    for (uint32_t p = 0; p < positions; p++) {
        const unsigned char *position;
        uint32_t count;
        if (read_bytes(reader, 4, &position) < 0 || read_u16(reader, &count) < 0) {
            return -1;
        }
        int cards = position[2] + position[3];
        if (cards < 4 || cards > LEVELS) {
            PyErr_SetString(PyExc_ValueError, "the edge tables hold a position of an impossible size");
            return -1;
        }
        self->cards[p] = (uint8_t)cards;
        self->first[p] = total;
        total += count;
    }
    self->first[positions] = total;
    if (total != (Py_ssize_t)entries) {
        PyErr_SetString(PyExc_ValueError, "the edge tables' entry count does not add up");
        return -1;
    }
    for (uint32_t p = 0; p < positions; p++) {
        int level = self->cards[p];
        for (Py_ssize_t e = self->first[p]; e < self->first[p + 1]; e++) {
            uint32_t member;
            if (read_u16(reader, &member) < 0) {
                return -1;
            }
            if ((Py_ssize_t)member >= self->level_size[level]) {
                PyErr_SetString(PyExc_ValueError, "the edge tables name a multiset that does not exist");
                return -1;
            }
            self->member[e] = (uint16_t)member;
        }
    }
    const unsigned char *orderings;
    if (read_bytes(reader, (Py_ssize_t)entries, &orderings) < 0) {
        return -1;
    }
    memcpy(self->orderings, orderings, entries);
    if (reader->at != reader->end) {
        PyErr_SetString(PyExc_ValueError, "the edge tables have bytes past their end");
        return -1;
    }
    return 0;
}

static int
parse_groups(Kernel *self, PyObject *groups)
{
    PyObject *outer = PySequence_Fast(groups, "groups: expected a sequence of sequences of position indices");
    if (outer == NULL) {
        return -1;
    }
    Py_ssize_t count = PySequence_Fast_GET_SIZE(outer);
    PyObject **items = PySequence_Fast_ITEMS(outer);
    self->groups = count;
    self->group_first = PyMem_Calloc((size_t)count + 1, sizeof(Py_ssize_t));
    if (self->group_first == NULL) {
        Py_DECREF(outer);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t total = 0;
    for (Py_ssize_t g = 0; g < count; g++) {
        Py_ssize_t size = PySequence_Size(items[g]);
        if (size < 0) {
            Py_DECREF(outer);
            return -1;
        }
        self->group_first[g] = total;
        total += size;
    }
    self->group_first[count] = total;
    self->group_position = PyMem_Calloc((size_t)total + 1, sizeof(uint32_t));
    if (self->group_position == NULL) {
        Py_DECREF(outer);
        PyErr_NoMemory();
        return -1;
    }
    for (Py_ssize_t g = 0; g < count; g++) {
        for (Py_ssize_t i = 0; i < self->group_first[g + 1] - self->group_first[g]; i++) {
            PyObject *item = PySequence_GetItem(items[g], i);
            if (item == NULL) {
                Py_DECREF(outer);
                return -1;
            }
            Py_ssize_t position = PyLong_AsSsize_t(item);
            Py_DECREF(item);
            if (position == -1 && PyErr_Occurred()) {
                Py_DECREF(outer);
                return -1;
            }
            if (position < 0 || position >= self->positions) {
                Py_DECREF(outer);
                PyErr_Format(PyExc_ValueError, "group %zd: position %zd out of range", g, position);
                return -1;
            }
            self->group_position[self->group_first[g] + i] = (uint32_t)position;
        }
    }
    Py_DECREF(outer);
    return 0;
}

static int
kernel_init(Kernel *self, PyObject *args, PyObject *kwds)
{
    static char *keywords[] = {"blob", "groups", NULL};
    Py_buffer blob;
    PyObject *groups;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "y*O", keywords, &blob, &groups)) {
        return -1;
    }
    kernel_free_arrays(self);
    Reader reader = {(const unsigned char *)blob.buf, (const unsigned char *)blob.buf + blob.len};
    const unsigned char *magic;
    int status = -1;
    if (read_bytes(&reader, MAGIC_SIZE, &magic) < 0) {
        goto done;
    }
    if (memcmp(magic, MAGIC, MAGIC_SIZE) != 0) {
        PyErr_SetString(PyExc_ValueError, "not the edge tables (their first bytes differ)");
        goto done;
    }
    if (parse_levels(self, &reader) < 0 || parse_positions(self, &reader) < 0 || parse_groups(self, groups) < 0) {
        goto done;
    }
    status = 0;
done:
    PyBuffer_Release(&blob);
    if (status < 0) {
        kernel_free_arrays(self);
    }
    return status;
}

static int
read_values(PyObject *values, uint64_t counts[VALUES], uint64_t *left)
{
    PyObject *sequence = PySequence_Fast(values, "values: expected the counts of the ten baccarat values");
    if (sequence == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(sequence) != VALUES) {
        Py_DECREF(sequence);
        PyErr_SetString(PyExc_ValueError, "values: expected the counts of the ten baccarat values");
        return -1;
    }
    *left = 0;
    for (int v = 0; v < VALUES; v++) {
        long count = PyLong_AsLong(PySequence_Fast_GET_ITEM(sequence, v));
        if (count == -1 && PyErr_Occurred()) {
            Py_DECREF(sequence);
            return -1;
        }
        if (count < 0 || count > MAX_CARDS_LEFT) {
            Py_DECREF(sequence);
            PyErr_Format(PyExc_ValueError, "values: a count of %ld is out of range", count);
            return -1;
        }
        counts[v] = (uint64_t)count;
        *left += (uint64_t)count;
    }
    Py_DECREF(sequence);
    if (*left < LEVELS || *left > MAX_CARDS_LEFT) {
        PyErr_Format(PyExc_ValueError, "values: %llu cards left, the kernel takes %d to %d",
                     (unsigned long long)*left, LEVELS, MAX_CARDS_LEFT);
        return -1;
    }
    return 0;
}

static void
compute(const Kernel *self, const uint64_t counts[VALUES], uint64_t left, uint64_t *weights, uint64_t *sums,
        uint64_t *out)
{
    uint64_t falling[LEVELS * VALUES];
    for (int j = 0; j < LEVELS; j++) {
        for (int v = 0; v < VALUES; v++) {
            falling[j * VALUES + v] = counts[v] > (uint64_t)j ? counts[v] - (uint64_t)j : 0;
        }
    }
    weights[0] = 1;
    for (Py_ssize_t m = 1; m < self->multisets; m++) {
        weights[m] = weights[self->parent[m]] * falling[self->factor[m]];
    }
    uint64_t fill[LEVELS + 1] = {0, 0, 0, 0, (left - 4) * (left - 5), left - 5, 1};
    const uint16_t *member = self->member;
    const uint8_t *orderings = self->orderings;
    for (Py_ssize_t p = 0; p < self->positions; p++) {
        const uint64_t *level = weights + self->level_start[self->cards[p]];
        uint64_t total = 0;
        for (Py_ssize_t e = self->first[p], end = self->first[p + 1]; e < end; e++) {
            total += level[member[e]] * orderings[e];
        }
        sums[p] = total * fill[self->cards[p]];
    }
    for (Py_ssize_t g = 0; g < self->groups; g++) {
        uint64_t total = 0;
        for (Py_ssize_t i = self->group_first[g]; i < self->group_first[g + 1]; i++) {
            total += sums[self->group_position[i]];
        }
        out[g] = total;
    }
}

static PyObject *
kernel_sums(Kernel *self, PyObject *values)
{
    if (self->parent == NULL) {
        PyErr_SetString(PyExc_ValueError, "the kernel has no tables");
        return NULL;
    }
    uint64_t counts[VALUES];
    uint64_t left;
    if (read_values(values, counts, &left) < 0) {
        return NULL;
    }
    size_t cells = (size_t)self->multisets + (size_t)self->positions + (size_t)self->groups;
    uint64_t *scratch = PyMem_RawMalloc(cells * sizeof(uint64_t));
    if (scratch == NULL) {
        return PyErr_NoMemory();
    }
    uint64_t *weights = scratch;
    uint64_t *sums = weights + self->multisets;
    uint64_t *out = sums + self->positions;
    Py_BEGIN_ALLOW_THREADS
    compute(self, counts, left, weights, sums, out);
    Py_END_ALLOW_THREADS
    PyObject *result = PyList_New(self->groups);
    if (result != NULL) {
        for (Py_ssize_t g = 0; g < self->groups; g++) {
            PyObject *number = PyLong_FromUnsignedLongLong(out[g]);
            if (number == NULL) {
                Py_CLEAR(result);
                break;
            }
            PyList_SET_ITEM(result, g, number);
        }
    }
    PyMem_RawFree(scratch);
    return result;
}

static int
read_counts(PyObject *given, const char *name, Py_ssize_t size, uint64_t *counts)
{
    PyObject *sequence = PySequence_Fast(given, name);
    if (sequence == NULL) {
        return -1;
    }
    if (PySequence_Fast_GET_SIZE(sequence) != size) {
        Py_DECREF(sequence);
        PyErr_Format(PyExc_ValueError, "%s: expected %zd counts", name, size);
        return -1;
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        long count = PyLong_AsLong(PySequence_Fast_GET_ITEM(sequence, i));
        if (count == -1 && PyErr_Occurred()) {
            Py_DECREF(sequence);
            return -1;
        }
        if (count < 0 || count > MAX_CARDS_LEFT) {
            Py_DECREF(sequence);
            PyErr_Format(PyExc_ValueError, "%s: a count of %ld is out of range", name, count);
            return -1;
        }
        counts[i] = (uint64_t)count;
    }
    Py_DECREF(sequence);
    return 0;
}

/* Ordered draws of two cards alike, and of four cards whose first two are alike and last two are alike,
 * by the classes counts counts (controller/core/bets/kernel.py _same_twice and _both_hands_alike). */
static void
alike(const uint64_t *counts, Py_ssize_t size, uint64_t *twice, uint64_t *both)
{
    uint64_t same = 0, total = 0;
    for (Py_ssize_t i = 0; i < size; i++) {
        same += counts[i] * (counts[i] > 0 ? counts[i] - 1 : 0);
    }
    for (Py_ssize_t i = 0; i < size; i++) {
        uint64_t n = counts[i];
        if (n > 1) {
            uint64_t pair = n * (n - 1);
            uint64_t rest = same - pair + (n > 3 ? (n - 2) * (n - 3) : 0);
            total += pair * rest;
        }
    }
    *twice = same;
    *both = total;
}

static PyObject *
kernel_pairs(PyObject *module, PyObject *args)
{
    PyObject *ranks_given, *cards_given;
    if (!PyArg_ParseTuple(args, "OO:pairs", &ranks_given, &cards_given)) {
        return NULL;
    }
    uint64_t ranks[13], cards[52], same_rank, both_ranks, same_card, both_cards;
    if (read_counts(ranks_given, "ranks", 13, ranks) < 0 || read_counts(cards_given, "cards", 52, cards) < 0) {
        return NULL;
    }
    alike(ranks, 13, &same_rank, &both_ranks);
    alike(cards, 52, &same_card, &both_cards);
    return Py_BuildValue("(KKKK)", (unsigned long long)same_rank, (unsigned long long)both_ranks,
                         (unsigned long long)same_card, (unsigned long long)both_cards);
}

static PyMethodDef module_methods[] = {
    {"pairs", (PyCFunction)kernel_pairs, METH_VARARGS,
     "pairs(ranks, cards) -> (same rank, both hands by rank, same card, both hands by card): ordered draws of two "
     "cards alike, and of four cards whose first two are alike and last two are alike, by rank (13 counts) and by "
     "card (52 counts)."},
    {NULL, NULL, 0, NULL},
};

static PyMethodDef kernel_methods[] = {
    {"sums", (PyCFunction)kernel_sums, METH_O,
     "sums(values) -> list of int: for each group, the ordered six-card deals from a shoe holding values[v] "
     "cards of each baccarat value v that end in one of the group's final positions."},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject KernelType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "controller.core.bets._kernel.Kernel",
    .tp_basicsize = sizeof(Kernel),
    .tp_dealloc = (destructor)kernel_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Kernel(blob, groups): the multiset tables and the groups of final positions to sum.",
    .tp_methods = kernel_methods,
    .tp_init = (initproc)kernel_init,
    .tp_new = PyType_GenericNew,
};

static struct PyModuleDef kernel_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "controller.core.bets._kernel",
    .m_doc = "The live edge's compiled kernel: exact whole-number sums over the multiset tables.",
    .m_size = -1,
    .m_methods = module_methods,
};

PyMODINIT_FUNC
PyInit__kernel(void)
{
    if (PyType_Ready(&KernelType) < 0) {
        return NULL;
    }
    PyObject *module = PyModule_Create(&kernel_module);
    if (module == NULL) {
        return NULL;
    }
    Py_INCREF(&KernelType);
    if (PyModule_AddObject(module, "Kernel", (PyObject *)&KernelType) < 0) {
        Py_DECREF(&KernelType);
        Py_DECREF(module);
        return NULL;
    }
    if (PyModule_AddIntConstant(module, "MAX_CARDS_LEFT", MAX_CARDS_LEFT) < 0) {
        Py_DECREF(module);
        return NULL;
    }
    return module;
}
