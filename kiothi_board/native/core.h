/* The native core of kiothi-board: relay sowing (RULES.md R4-R10) and the search's inner
 * loop, exactly as the Python path computes them (kiothi_board/rules/fast.py and
 * kiothi_board/ai/search.py). Plain C99 on a plain byte board: no CPython types here, so
 * the search can run with the GIL released. */
#ifndef KIOTHI_CORE_H
#define KIOTHI_CORE_H

#include <stddef.h>
#include <stdint.h>

#define KC_PITS 20
#define KC_ROW 10
#define KC_SEEDS 60
#define KC_MAX_LAPS 1000 /* R6: the first lap and 999 relays */
#define KC_STRIDE 64     /* lap table index: (lift pit << 6) | seeds, seeds <= 60 */

/* Pit i holds b[i] seeds; b[20..23] stay 0. Counts never exceed 60, so adding a lap's
 * byte mask word by word never carries from one pit into the next, on any endianness. */
typedef union {
    uint8_t b[24];
    uint64_t w[3];
} kc_board;

typedef struct {
    kc_board add[KC_PITS * KC_STRIDE];
    uint8_t last[KC_PITS * KC_STRIDE];
    uint8_t cross[2][KC_PITS * KC_STRIDE]; /* by mover: the lap dropped into the other row */
} kc_laps;

typedef struct {
    const kc_laps *laps;          /* V3 picks the table */
    uint32_t relay_flag[2][KC_PITS]; /* bits a relay out of pit p sets (R7; V4: any pit) */
    int final_lap_only;           /* V6 */
    int landing_needs_sown;       /* V7 */
    int unsown_ends_run;          /* V8 */
} kc_rules;

/* An exact R11 key: pits 0-7, pits 8-15, then pits 16-19 | sown << 32 | side << 52 | 1 << 63. */
typedef struct {
    uint64_t k0, k1, k2;
} kc_key;

void kc_init_laps(void);
void kc_rules_init(kc_rules *r, int v3, int v4, int v6, int v7, int v8);
/* Sow `pit` for `side` in place: 1 and the seeds captured, or 0 if the move is endless. */
int kc_sow(const kc_rules *r, kc_board *bd, uint32_t *sown, int side, int pit, int *gain);
int kc_moves_of(const kc_board *bd, int side, int *out);
int kc_sum(const kc_board *bd, int from, int to);

static inline kc_key kc_key_of(const kc_board *bd, uint32_t sown, int side) {
    kc_key k;
    k.k0 = bd->w[0];
    k.k1 = bd->w[1];
    k.k2 = (uint64_t)bd->b[16] | (uint64_t)bd->b[17] << 8 | (uint64_t)bd->b[18] << 16 |
           (uint64_t)bd->b[19] << 24 | (uint64_t)sown << 32 | (uint64_t)side << 52 |
           (uint64_t)1 << 63;
    return k;
}

static inline uint64_t kc_hash(kc_key k) {
    uint64_t h = k.k0 * 0x9E3779B97F4A7C15ULL;
    h ^= (k.k1 + 0x632BE59BD9B4E019ULL) * 0xC2B2AE3D27D4EB4FULL;
    h ^= (k.k2 + 0x165667B19E3779F9ULL) * 0xD6E8FEB86659FD93ULL;
    h ^= h >> 32;
    h *= 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 29);
}

static inline int kc_key_eq(kc_key a, kc_key b) {
    return a.k0 == b.k0 && a.k1 == b.k1 && a.k2 == b.k2;
}

/* A table of key -> count: repetition counts (with deletion) and playout histories
 * (cleared in O(1) by a generation stamp). Capacity is a power of two, load <= 1/2. */
typedef struct {
    kc_key key;
    int32_t count;
    uint32_t gen;
} kc_slot;

typedef struct {
    kc_slot *slots;
    size_t mask;
    size_t used;
    uint32_t gen;
} kc_counts;

int kc_counts_init(kc_counts *t, size_t min_capacity);
void kc_counts_free(kc_counts *t);
void kc_counts_clear(kc_counts *t);
int32_t kc_counts_get(const kc_counts *t, kc_key k);
/* Add one to a key's count and return it; -1 when memory runs out. */
int32_t kc_counts_incr(kc_counts *t, kc_key k);
/* Set a key's count; 0 removes it. Returns -1 when memory runs out. */
int kc_counts_set(kc_counts *t, kc_key k, int32_t count);

/* SplitMix64, the playouts' random source (also in rules/fast.py, bit for bit). */
static inline double kc_random(uint64_t *state) {
    uint64_t z = (*state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return (double)(z >> 11) * (1.0 / 9007199254740992.0);
}

typedef struct {
    int captured[2];
    long moves;
    int end; /* 0 no-moves, 1 repetition, 2 ply-limit */
} kc_playout_result;

/* A uniformly random playout, as fast.random_playout; -1 when memory runs out. */
int kc_playout(const kc_rules *r, kc_board bd, uint32_t sown, int side, const int captured[2],
               uint64_t *rng, long max_plies, kc_playout_result *out);

#endif
