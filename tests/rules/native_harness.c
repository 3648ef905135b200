/* The native core's pure C on any architecture (tests/rules/test_native_portability.py):
 * random sowings in all 32 sowing variants, playouts and searches, folded into one checksum. */
#include <stdio.h>
#include "core.h"
#include "tree.h"

static uint64_t h = 1469598103934665603ULL;
static void mix(uint64_t v) { h = (h ^ v) * 1099511628211ULL; }
static int never(kc_tree *t) { return t->nodes >= t->node_cap; }

int main(void) {
    kc_init_laps();
    uint64_t rng = 2023;
    long endless = 0, sows = 0;
    for (int v = 0; v < 32; v++) {
        kc_rules r;
        kc_rules_init(&r, v & 1, v >> 1 & 1, v >> 2 & 1, v >> 3 & 1, v >> 4 & 1);
        for (int i = 0; i < 20000; i++) {
            kc_board bd = {{0}};
            int left = 60;
            while (left > 0) {
                int p = (int)(kc_random(&rng) * 20), c = 1 + (int)(kc_random(&rng) * 6);
                if (c > left) c = left;
                bd.b[p] += c;
                left -= c;
            }
            uint32_t sown = (uint32_t)(kc_random(&rng) * (1 << 20));
            for (int side = 0; side < 2; side++) {
                int pits[10], n = kc_moves_of(&bd, side, pits);
                for (int k = 0; k < n; k++) {
                    kc_board b = bd;
                    uint32_t s = sown;
                    int g = 0, ok = kc_sow(&r, &b, &s, side, pits[k], &g);
                    sows++;
                    if (!ok) { endless++; mix(77); continue; }
                    mix(b.w[0]); mix(b.w[1]); mix(b.w[2]); mix(s); mix((uint64_t)g);
                }
            }
        }
        kc_board start = {{0}};
        for (int p = 5; p < 10; p++) start.b[p] = start.b[p + 10] = 6;
        int caps[2] = {0, 0};
        kc_playout_result res;
        for (int k = 0; k < 200; k++) {
            kc_playout(&r, start, 0, 0, caps, &rng, v % 3 ? -1 : 150, &res);
            mix((uint64_t)res.captured[0]); mix((uint64_t)res.moves); mix((uint64_t)res.end);
        }
        kc_tree t;
        kc_tree_init(&t);
        t.rules = r;
        kc_weights w = {30, 0, 8, 150, 0, 30, 11, 10};
        t.w = w;
        t.check = never;
        t.node_cap = 1 << 30;
        for (int d = 1; d <= 6; d++) {
            int32_t val = kc_node(&t, &start, 0, 0, d, -KC_INF, KC_INF, 2, 1 << 30);
            mix((uint64_t)(int64_t)val); mix((uint64_t)t.nodes); mix((uint64_t)t.leaves);
        }
        mix(t.tt_used);
        kc_tree_free(&t);
    }
    printf("%zu-bit: sows %ld endless %ld checksum %016llx\n", sizeof(void *) * 8, sows, endless,
           (unsigned long long)h);
    return 0;
}
