/* The search's inner loop (kiothi_board/ai/search.py's `node`): negamax PVS with the
 * transposition table, move ordering, repetition and ply-limit terminals and the evaluation. */
#ifndef KIOTHI_TREE_H
#define KIOTHI_TREE_H

#include "core.h"

#define KC_INF 1000000
#define KC_SOLVED 999
#define KC_EXACT 0
#define KC_LOWER 1
#define KC_UPPER 2
#define KC_CHECK_EVERY 1023

typedef struct {
    kc_key key; /* k2 == 0: an empty slot (real keys have bit 63 set) */
    int32_t score;
    int16_t depth;
    int8_t flag;
    int8_t move;
} kc_tt_entry;

typedef struct {
    int32_t row, safe, mobility, last_pit, chain, pile, pile_size, tempo;
} kc_weights;

typedef struct kc_tree kc_tree;
/* Called every 1,024 nodes: nonzero aborts the search (the stop event, the clock, an error). */
typedef int (*kc_check_fn)(kc_tree *t);

struct kc_tree {
    kc_rules rules;
    kc_weights w;
    kc_tt_entry *tt;
    size_t tt_mask, tt_used;
    int64_t hist[KC_PITS];
    kc_counts reps;
    int rep_limit;
    int64_t nodes, leaves, repcuts, node_cap;
    int aborted; /* set by a failed check or an error; the tree unwinds at once */
    int oom;
    kc_check_fn check;
    void *owner; /* the Python object, for the check */
};

int kc_tree_init(kc_tree *t);
void kc_tree_free(kc_tree *t);
void kc_tt_clear(kc_tree *t);
const kc_tt_entry *kc_tt_find(const kc_tree *t, kc_key k);
int kc_tt_store(kc_tree *t, kc_key k, int depth, int flag, int32_t score, int move);
int32_t kc_evaluate(const kc_weights *w, const kc_board *bd, uint32_t sown, int side);
int32_t kc_node(kc_tree *t, const kc_board *bd, uint32_t sown, int side, int depth,
                int32_t alpha, int32_t beta, int ext, int32_t left);

#endif
