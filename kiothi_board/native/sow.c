/* Relay sowing on the byte board (R4-R9), the lap tables, and random playouts (R10-R12).
 * Every branch mirrors kiothi_board/rules/fast.py; the differential tests hold them equal. */
#include "core.h"

#include <stdlib.h>
#include <string.h>

static kc_laps laps_standard; /* a lap of 20+ seeds also drops into its own pit (R4) */
/* keep[p]: every byte 0xFF but pit p's. Lifting a pit is a word AND, not a byte store, so
 * the next lap's word additions never wait on a narrower store (store forwarding). */
static kc_board keep[KC_PITS];
static kc_laps laps_skip;     /* V3: it skips that pit */

static void fill_laps(kc_laps *t, int skip_origin) {
    memset(t, 0, sizeof *t);
    for (int q = 0; q < KC_PITS; q++) {
        for (int n = 1; n <= KC_SEEDS; n++) {
            int k = q << 6 | n, pit = q, dropped = 0, crossed_s = 0, crossed_n = 0;
            while (dropped < n) {
                pit = (pit + 1) % KC_PITS;
                if (skip_origin && pit == q) continue;
                t->add[k].b[pit] += 1;
                dropped++;
                if (pit >= KC_ROW) crossed_s = 1; /* South sowing into North's row */
                else crossed_n = 1;
            }
            t->last[k] = (uint8_t)pit;
            t->cross[0][k] = (uint8_t)crossed_s;
            t->cross[1][k] = (uint8_t)crossed_n;
        }
    }
}

void kc_init_laps(void) {
    for (int p = 0; p < KC_PITS; p++) {
        memset(keep[p].b, 0xFF, sizeof keep[p].b);
        keep[p].b[p] = 0;
    }
    fill_laps(&laps_standard, 0);
    fill_laps(&laps_skip, 1);
}

void kc_rules_init(kc_rules *r, int v3, int v4, int v6, int v7, int v8) {
    r->laps = v3 ? &laps_skip : &laps_standard;
    for (int side = 0; side < 2; side++)
        for (int p = 0; p < KC_PITS; p++)
            r->relay_flag[side][p] = (v4 || p / KC_ROW == side) ? (uint32_t)1 << p : 0;
    r->final_lap_only = v6 != 0;
    r->landing_needs_sown = v7 != 0;
    r->unsown_ends_run = v8 != 0;
}

static inline void lift(kc_board *bd, int pit) {
    bd->w[0] &= keep[pit].w[0];
    bd->w[1] &= keep[pit].w[1];
    bd->w[2] &= keep[pit].w[2];
}

static inline void add_lap(kc_board *bd, const kc_board *lap) {
    bd->w[0] += lap->w[0];
    bd->w[1] += lap->w[1];
    bd->w[2] += lap->w[2];
}

int kc_sow(const kc_rules *r, kc_board *bd, uint32_t *sown, int side, int pit, int *gain) {
    const kc_laps *t = r->laps;
    const uint8_t *cross = t->cross[side];
    const uint32_t *flag = r->relay_flag[side];
    int n = bd->b[pit];
    lift(bd, pit);
    *sown |= (uint32_t)1 << pit;
    int k = pit << 6 | n;
    add_lap(bd, &t->add[k]);
    int crossed = cross[k];
    int last = t->last[k];
    int laps = 1;
    for (;;) {
        int c = bd->b[last];
        if (c == 1) break; /* R5: the last seed fell into an empty pit */
        if (laps == KC_MAX_LAPS) return 0; /* R6: endless */
        laps++;
        lift(bd, last);
        *sown |= flag[last];
        k = last << 6 | c;
        add_lap(bd, &t->add[k]);
        crossed = r->final_lap_only ? cross[k] : (crossed | cross[k]);
        last = t->last[k];
    }
    *gain = 0;
    if (!crossed || last / KC_ROW != side) return 1; /* R8.1, R8.2 */
    int g = 0;
    if (!r->landing_needs_sown || (*sown >> last & 1)) {
        g = 1;
        bd->b[last] -= 1;
    }
    int opp = KC_PITS - 1 - last;
    int oc = bd->b[opp];
    if (oc && (*sown >> opp & 1)) {
        g += oc;
        bd->b[opp] = 0;
    }
    if (oc && last == side * KC_ROW) { /* R9: a capture in the leftmost pit */
        int from = side == 0 ? 18 : 8, to = side == 0 ? 10 : 0;
        for (int q = from; q >= to; q--) {
            int rc = bd->b[q];
            if (!rc) break;
            if (*sown >> q & 1) {
                g += rc;
                bd->b[q] = 0;
            } else if (r->unsown_ends_run) {
                break;
            }
        }
    }
    *gain = g;
    return 1;
}

int kc_moves_of(const kc_board *bd, int side, int *out) {
    int n = 0; /* without branches: which pits hold seeds is what a predictor cannot guess */
    for (int p = side * KC_ROW; p < side * KC_ROW + KC_ROW; p++) {
        out[n] = p;
        n += bd->b[p] != 0;
    }
    return n;
}

int kc_sum(const kc_board *bd, int from, int to) {
    int s = 0;
    for (int p = from; p < to; p++) s += bd->b[p];
    return s;
}

/* ---------------------------------------------------------------- key -> count tables */

int kc_counts_init(kc_counts *t, size_t min_capacity) {
    size_t cap = 16;
    while (cap < 2 * min_capacity) cap <<= 1;
    t->slots = calloc(cap, sizeof(kc_slot));
    if (!t->slots) return -1;
    t->mask = cap - 1;
    t->used = 0;
    t->gen = 1;
    return 0;
}

void kc_counts_free(kc_counts *t) {
    free(t->slots);
    t->slots = NULL;
}

void kc_counts_clear(kc_counts *t) {
    t->used = 0;
    if (++t->gen == 0) { /* the stamp wrapped: really empty the slots once */
        memset(t->slots, 0, (t->mask + 1) * sizeof(kc_slot));
        t->gen = 1;
    }
}

static size_t find_slot(const kc_counts *t, kc_key k, int *found) {
    size_t i = (size_t)kc_hash(k) & t->mask;
    for (;;) {
        const kc_slot *s = &t->slots[i];
        if (s->gen != t->gen) {
            *found = 0;
            return i;
        }
        if (kc_key_eq(s->key, k)) {
            *found = 1;
            return i;
        }
        i = (i + 1) & t->mask;
    }
}

int32_t kc_counts_get(const kc_counts *t, kc_key k) {
    int found;
    size_t i = find_slot(t, k, &found);
    return found ? t->slots[i].count : 0;
}

static int grow(kc_counts *t) {
    kc_counts bigger;
    if (kc_counts_init(&bigger, t->mask + 1) != 0) return -1;
    for (size_t i = 0; i <= t->mask; i++) {
        const kc_slot *s = &t->slots[i];
        if (s->gen == t->gen) {
            int found;
            size_t j = find_slot(&bigger, s->key, &found);
            bigger.slots[j].key = s->key;
            bigger.slots[j].count = s->count;
            bigger.slots[j].gen = bigger.gen;
            bigger.used++;
        }
    }
    free(t->slots);
    *t = bigger;
    return 0;
}

int32_t kc_counts_incr(kc_counts *t, kc_key k) {
    int found;
    size_t i = find_slot(t, k, &found);
    if (found) return ++t->slots[i].count;
    if (2 * (t->used + 1) > t->mask + 1) {
        if (grow(t) != 0) return -1;
        i = find_slot(t, k, &found);
    }
    t->slots[i].key = k;
    t->slots[i].count = 1;
    t->slots[i].gen = t->gen;
    t->used++;
    return 1;
}

int kc_counts_set(kc_counts *t, kc_key k, int32_t count) {
    int found;
    size_t i = find_slot(t, k, &found);
    if (count) {
        if (found) {
            t->slots[i].count = count;
            return 0;
        }
        if (2 * (t->used + 1) > t->mask + 1) {
            if (grow(t) != 0) return -1;
            i = find_slot(t, k, &found);
        }
        t->slots[i].key = k;
        t->slots[i].count = count;
        t->slots[i].gen = t->gen;
        t->used++;
        return 0;
    }
    if (!found) return 0;
    /* Remove with a backward shift, so probe runs stay unbroken without tombstones. */
    size_t hole = i, j = i;
    for (;;) {
        j = (j + 1) & t->mask;
        kc_slot *s = &t->slots[j];
        if (s->gen != t->gen) break;
        size_t home = (size_t)kc_hash(s->key) & t->mask;
        /* Move s into the hole unless its home lies cyclically in (hole, j]. */
        int stays = hole <= j ? (hole < home && home <= j) : (hole < home || home <= j);
        if (!stays) {
            t->slots[hole] = *s;
            hole = j;
        }
    }
    t->slots[hole].gen = t->gen - 1;
    t->used--;
    return 0;
}

/* ---------------------------------------------------------------- random playouts */

int kc_playout(const kc_rules *r, kc_board bd, uint32_t sown, int side, const int captured[2],
               uint64_t *rng, long max_plies, kc_playout_result *out) {
    kc_counts history;
    if (kc_counts_init(&history, 256) != 0) return -1;
    int caps[2] = {captured[0], captured[1]};
    long moves = 0;
    if (kc_counts_set(&history, kc_key_of(&bd, sown, side), 1) != 0) goto oom;
    for (;;) {
        int cands[KC_ROW];
        int n = kc_moves_of(&bd, side, cands), ended = 0, gain = 0;
        kc_board nb;
        uint32_t ns = 0;
        while (n) {
            int i = (int)(kc_random(rng) * n);
            nb = bd;
            ns = sown;
            if (kc_sow(r, &nb, &ns, side, cands[i], &gain)) {
                ended = 1;
                break;
            }
            memmove(&cands[i], &cands[i + 1], (size_t)(n - i - 1) * sizeof(int));
            n--; /* rejection sampling: an endless move is struck out */
        }
        if (!ended) { /* R10 */
            caps[1 - side] += kc_sum(&bd, 0, KC_PITS);
            out->end = 0;
            break;
        }
        moves++;
        if (gain || ns != sown) {
            kc_counts_clear(&history); /* irreversible: no earlier position can recur */
            caps[side] += gain;
        }
        bd = nb;
        sown = ns;
        side ^= 1;
        int32_t seen = kc_counts_incr(&history, kc_key_of(&bd, sown, side));
        if (seen < 0) goto oom;
        if (seen >= 3 || (max_plies >= 0 && moves >= max_plies)) {
            caps[0] += kc_sum(&bd, 0, KC_ROW);
            caps[1] += kc_sum(&bd, KC_ROW, KC_PITS);
            out->end = seen >= 3 ? 1 : 2;
            break;
        }
    }
    kc_counts_free(&history);
    out->captured[0] = caps[0];
    out->captured[1] = caps[1];
    out->moves = moves;
    return 0;
oom:
    kc_counts_free(&history);
    return -1;
}
