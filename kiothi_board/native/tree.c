/* The search's inner loop, branch for branch the `node` closure of kiothi_board/ai/search.py:
 * the same nodes in the same order, the same counters, the same table entries. */
#include "tree.h"

#include <stdlib.h>
#include <string.h>

#define TT_START 4096

int kc_tree_init(kc_tree *t) {
    memset(t, 0, sizeof *t);
    t->tt = calloc(TT_START, sizeof(kc_tt_entry));
    if (!t->tt) return -1;
    t->tt_mask = TT_START - 1;
    if (kc_counts_init(&t->reps, 64) != 0) {
        free(t->tt);
        t->tt = NULL;
        return -1;
    }
    t->rep_limit = 1;
    t->node_cap = INT64_MAX;
    return 0;
}

void kc_tree_free(kc_tree *t) {
    free(t->tt);
    t->tt = NULL;
    kc_counts_free(&t->reps);
}

void kc_tt_clear(kc_tree *t) {
    kc_tt_entry *small = calloc(TT_START, sizeof(kc_tt_entry));
    if (small) { /* give the memory back, as a cleared dict does */
        free(t->tt);
        t->tt = small;
        t->tt_mask = TT_START - 1;
    } else {
        memset(t->tt, 0, (t->tt_mask + 1) * sizeof(kc_tt_entry));
    }
    t->tt_used = 0;
}

static size_t tt_slot(const kc_tt_entry *tt, size_t mask, kc_key k) {
    size_t i = (size_t)kc_hash(k) & mask;
    while (tt[i].key.k2 && !kc_key_eq(tt[i].key, k)) i = (i + 1) & mask;
    return i;
}

const kc_tt_entry *kc_tt_find(const kc_tree *t, kc_key k) {
    const kc_tt_entry *e = &t->tt[tt_slot(t->tt, t->tt_mask, k)];
    return e->key.k2 ? e : NULL;
}

/* Entries are never replaced by others: like the dict of the Python path, the table keeps
 * every key until it is cleared (between searches, past the searcher's tt_limit). */
static int tt_grow(kc_tree *t) {
    size_t cap = (t->tt_mask + 1) * 2;
    kc_tt_entry *bigger = calloc(cap, sizeof(kc_tt_entry));
    if (!bigger) return -1;
    for (size_t i = 0; i <= t->tt_mask; i++)
        if (t->tt[i].key.k2) bigger[tt_slot(bigger, cap - 1, t->tt[i].key)] = t->tt[i];
    free(t->tt);
    t->tt = bigger;
    t->tt_mask = cap - 1;
    return 0;
}

int kc_tt_store(kc_tree *t, kc_key k, int depth, int flag, int32_t score, int move) {
    size_t i = tt_slot(t->tt, t->tt_mask, k);
    if (!t->tt[i].key.k2) {
        if (2 * (t->tt_used + 1) > t->tt_mask + 1) {
            if (tt_grow(t) != 0) return -1;
            i = tt_slot(t->tt, t->tt_mask, k);
        }
        t->tt_used++;
    }
    kc_tt_entry *e = &t->tt[i];
    e->key = k;
    e->depth = (int16_t)depth;
    e->flag = (int8_t)flag;
    e->score = score;
    e->move = (int8_t)move;
    return 0;
}

/* Sown seeds the opponent's leftmost capture would sweep (R9) off one row. */
static int32_t chain_exposed(const kc_board *bd, uint32_t sown, int last, int first) {
    if (!bd->b[last]) return 0;
    int32_t total = 0;
    for (int i = last - 1; i >= first; i--) {
        int c = bd->b[i];
        if (!c) break;
        if (sown >> i & 1) total += c;
    }
    return total;
}

int32_t kc_evaluate(const kc_weights *w, const kc_board *bd, uint32_t sown, int side) {
    int32_t row[2] = {0, 0}, exposed[2] = {0, 0}, pits[2] = {0, 0}, big[2] = {0, 0};
    for (int p = 0; p < KC_PITS; p++) {
        int c = bd->b[p], r = p >= KC_ROW;
        row[r] += c;
        if (sown >> p & 1) exposed[r] += c;
        pits[r] += c != 0;
        big[r] += c >= w->pile_size;
    }
    int32_t uns_s = row[0] - exposed[0], uns_n = row[1] - exposed[1];
    int32_t score = w->row * (row[0] - row[1]) + w->safe * (uns_s - uns_n) +
                    w->mobility * (pits[0] - pits[1]);
    if (pits[0] <= 1) score -= w->last_pit;
    if (pits[1] <= 1) score += w->last_pit;
    if (w->chain) {
        score -= w->chain * chain_exposed(bd, sown, 9, 0);
        score += w->chain * chain_exposed(bd, sown, 19, 10);
    }
    if (w->pile) score += w->pile * (big[0] - big[1]);
    return (side == 0 ? score : -score) + w->tempo;
}

/* R11's split from the mover's view: own row minus the opponent's, in centi-seeds. */
static inline int32_t split(const kc_board *bd, int mover) {
    int32_t d = kc_sum(bd, 0, KC_ROW) - kc_sum(bd, KC_ROW, KC_PITS);
    return 100 * (mover == 0 ? d : -d);
}

typedef struct {
    kc_board b;
    uint32_t s;
    int p, g;
    int64_t order;
} kid;

int32_t kc_node(kc_tree *t, const kc_board *bd, uint32_t sown, int side, int depth,
                int32_t alpha, int32_t beta, int ext, int32_t left) {
    t->nodes++;
    if (!(t->nodes & KC_CHECK_EVERY) && t->check(t)) {
        t->aborted = 1;
        return 0;
    }
    if (depth <= 0) {
        if (!kc_sum(bd, side * KC_ROW, side * KC_ROW + KC_ROW))
            return -100 * kc_sum(bd, 0, KC_PITS); /* R10 */
        t->leaves++;
        return kc_evaluate(&t->w, bd, sown, side);
    }
    kc_key key = kc_key_of(bd, sown, side);
    const kc_tt_entry *entry = kc_tt_find(t, key);
    int ttmove = -1;
    if (entry) {
        int edepth = entry->depth, eflag = entry->flag;
        int32_t escore = entry->score;
        ttmove = entry->move;
        if (edepth >= depth && (eflag == KC_EXACT || (eflag == KC_LOWER && escore >= beta) ||
                                (eflag == KC_UPPER && escore <= alpha))) {
            if (edepth != KC_SOLVED) t->leaves++; /* the stored value rests on a horizon too */
            return escore;
        }
    }
    kid kids[KC_ROW];
    int n = 0;
    for (int p = side * KC_ROW; p < side * KC_ROW + KC_ROW; p++) {
        if (!bd->b[p]) continue;
        kid *k = &kids[n];
        k->b = *bd;
        k->s = sown;
        if (kc_sow(&t->rules, &k->b, &k->s, side, p, &k->g)) {
            k->p = p;
            n++;
        }
    }
    if (!n) return -100 * kc_sum(bd, 0, KC_PITS); /* R10 */
    if (n > 1) {
        for (int i = 0; i < n; i++)
            kids[i].order = (int64_t)(kids[i].p == ttmove) * 10000000 +
                            (int64_t)kids[i].g * 100000 + t->hist[kids[i].p];
        for (int i = 1; i < n; i++) { /* stable, highest first, as list.sort(reverse=True) */
            kid x = kids[i];
            int j = i - 1;
            while (j >= 0 && kids[j].order < x.order) {
                kids[j + 1] = kids[j];
                j--;
            }
            kids[j + 1] = x;
        }
    }
    int64_t h0 = t->leaves, r0 = t->repcuts;
    int other = side ^ 1;
    int32_t best = -KC_INF, a = alpha, v;
    int best_move = -1, first = 1;
    for (int i = 0; i < n; i++) {
        const kid *k = &kids[i];
        int32_t gain = 100 * k->g;
        if (left <= 1) {
            v = gain + split(&k->b, side); /* ply limit (R11) */
        } else {
            kc_key ck = kc_key_of(&k->b, k->s, other);
            int32_t c = kc_counts_get(&t->reps, ck);
            if (c >= t->rep_limit) {
                t->repcuts++;
                v = gain + split(&k->b, side); /* R11 repetition */
            } else {
                int nd = depth - 1, ne = ext;
                if (k->g && nd <= 0 && ext) { /* a capture may leave a recapture pending */
                    nd = 1;
                    ne = ext - 1;
                }
                if (kc_counts_set(&t->reps, ck, c + 1) != 0) {
                    t->oom = t->aborted = 1;
                    return 0;
                }
                if (first) {
                    v = gain - kc_node(t, &k->b, k->s, other, nd, gain - beta, gain - a, ne, left - 1);
                } else {
                    v = gain - kc_node(t, &k->b, k->s, other, nd, gain - a - 1, gain - a, ne,
                                       left - 1);
                    if (!t->aborted && a < v && v < beta)
                        v = gain - kc_node(t, &k->b, k->s, other, nd, gain - beta, gain - a, ne,
                                           left - 1);
                }
                /* Restoring a count never needs memory: the key is in the table. */
                kc_counts_set(&t->reps, ck, c);
                if (t->aborted) return 0;
            }
        }
        first = 0;
        if (v > best) {
            best = v;
            best_move = k->p;
            if (v > a) {
                a = v;
                if (a >= beta) {
                    t->hist[k->p] += (int64_t)depth * depth;
                    break;
                }
            }
        }
    }
    if (t->repcuts == r0) { /* values that met a repetition depend on the path */
        int flag = best >= beta ? KC_LOWER : best <= alpha ? KC_UPPER : KC_EXACT;
        if (kc_tt_store(t, key, t->leaves == h0 ? KC_SOLVED : depth, flag, best, best_move) != 0) {
            t->oom = t->aborted = 1;
            return 0;
        }
    }
    return best;
}
