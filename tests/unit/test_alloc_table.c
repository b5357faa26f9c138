/* SPDX-License-Identifier: MIT */
/* The tracer's live-allocation table (src/core/alloc_table.c): exact counts
 * and contents under insert, remove and growth; removal (backward shift)
 * never hides an entry further along its probe run, also where the run
 * wraps past the last slot; iterating over the slots with removals (as a
 * context's teardown does) finds every entry; churn at a steady size
 * leaves no debris (the table does not grow). */
#include <stdlib.h>

#include "alloc_table.h"
#include "unit_check.h"

static struct vt_live entry(uint64_t key, uint64_t size)
{
    return (struct vt_live){
        .info = {.key = key, .size = size}, .seq = key ^ 0x5a5a, .stack = (uint32_t)key};
}

static uint64_t size_of(const struct vt_alloc_table *t, uint64_t key)
{
    const struct vt_live *e = vt_alloc_table_find(t, key);
    return e ? e->info.size : 0;
}

static int remove_key(struct vt_alloc_table *t, uint64_t key)
{
    struct vt_live *e = vt_alloc_table_find(t, key);
    if (e)
        vt_alloc_table_remove(t, e);
    return e != NULL;
}

/* Slot of KEY's home in T (the table's hash). */
static size_t home_of(const struct vt_alloc_table *t, uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15u) >> t->shift);
}

static void basics(void)
{
    struct vt_alloc_table t = {0};
    CHECK("find in an empty table", vt_alloc_table_find(&t, 0x7f0000000000) == NULL);
    struct vt_live a = entry(0x7f0000000000, 4096), b = entry(0x7f0000200000, 1 << 20);
    struct vt_live *in = vt_alloc_table_insert(&t, &a);
    CHECK("insert returns the entry", in && in->info.key == a.info.key && in->used);
    vt_alloc_table_insert(&t, &b);
    CHECK_EQ("count", t.count, 2);
    CHECK_EQ("first size", size_of(&t, 0x7f0000000000), 4096);
    CHECK_EQ("second size", size_of(&t, 0x7f0000200000), 1 << 20);
    CHECK_EQ("stack and seq kept", vt_alloc_table_find(&t, 0x7f0000200000)->seq,
             0x7f0000200000 ^ 0x5a5a);
    CHECK("an absent key", vt_alloc_table_find(&t, 0x7f0000100000) == NULL);
    CHECK("the first is removed", remove_key(&t, 0x7f0000000000));
    CHECK_EQ("count after removal", t.count, 1);
    CHECK("the first is gone", vt_alloc_table_find(&t, 0x7f0000000000) == NULL);
    CHECK_EQ("the second stays", size_of(&t, 0x7f0000200000), 1 << 20);
    CHECK("the second is removed", remove_key(&t, 0x7f0000200000));
    CHECK("an emptied table finds nothing", vt_alloc_table_find(&t, 0x7f0000200000) == NULL);
    vt_alloc_table_free(&t);
    CHECK("freed", t.slots == NULL && t.count == 0);
}

/* Keys whose home is the last slot run on into slot 0 and up: removing
 * the first of them moves the others back, across the end. */
static void wrapping_run(void)
{
    struct vt_alloc_table t = {0};
    struct vt_live placeholder = entry(0x1234, 1);
    vt_alloc_table_insert(&t, &placeholder); /* the table has its slots */
    uint64_t outside = 2;
    while (home_of(&t, outside) != t.mask / 2)
        outside++;
    struct vt_live first = entry(outside, 1);
    vt_alloc_table_insert(&t, &first);
    remove_key(&t, 0x1234);
    uint64_t last[4];
    int n = 0;
    for (uint64_t k = outside + 1; n < 4; k++)
        if (home_of(&t, k) == t.mask) {
            struct vt_live e = entry(k, k * 10);
            last[n++] = k;
            vt_alloc_table_insert(&t, &e);
        }
    CHECK_EQ("first of the run in the last slot", t.slots[t.mask].info.key, last[0]);
    CHECK_EQ("the run wrapped to slot 0", t.slots[0].info.key, last[1]);
    CHECK("the run's head is removed", remove_key(&t, last[0]));
    for (int i = 1; i < 4; i++)
        CHECK_EQ("the rest of the run is still found", size_of(&t, last[i]), last[i] * 10);
    CHECK_EQ("a key moved back into the last slot", t.slots[t.mask].info.key, last[1]);
    CHECK_EQ("the key outside the run stays", size_of(&t, outside), 1);
    CHECK_EQ("count", t.count, 4);
    vt_alloc_table_free(&t);
}

/* A million keys shaped like device addresses (few, high bits differ). */
static void growth(void)
{
    enum { N = 1000000 };
    struct vt_alloc_table t = {0};
    for (uint64_t i = 0; i < N; i++) {
        struct vt_live e = entry(0x7f0000000000 + i * 512, i + 1);
        vt_alloc_table_insert(&t, &e);
    }
    CHECK_EQ("count after growth", t.count, N);
    CHECK("at most half full", 2 * t.count <= t.mask + 1);
    size_t found = 0, used = 0;
    for (uint64_t i = 0; i < N; i++)
        found += size_of(&t, 0x7f0000000000 + i * 512) == i + 1;
    for (size_t i = 0; i <= t.mask; i++)
        used += t.slots[i].used;
    CHECK_EQ("every key found with its size", found, N);
    CHECK_EQ("slots in use", used, N);
    for (uint64_t i = 0; i < N; i += 2)
        remove_key(&t, 0x7f0000000000 + i * 512);
    found = 0;
    for (uint64_t i = 0; i < N; i++)
        found += size_of(&t, 0x7f0000000000 + i * 512) == (i % 2 ? i + 1 : 0);
    CHECK_EQ("the odd ones found, the even ones gone", found, N);
    CHECK_EQ("count after removing half", t.count, N / 2);
    vt_alloc_table_free(&t);
}

/* Removing while walking the slots, looking at a slot again after each
 * removal: every matching entry goes, every other one stays. */
static void remove_while_iterating(void)
{
    enum { N = 5000 };
    struct vt_alloc_table t = {0};
    for (uint64_t i = 1; i <= N; i++) {
        struct vt_live e = entry(i * 4096, i);
        vt_alloc_table_insert(&t, &e);
    }
    size_t removed = 0;
    for (size_t i = 0; i <= t.mask;) {
        struct vt_live *e = &t.slots[i];
        if (e->used && e->info.size % 3 == 0) {
            vt_alloc_table_remove(&t, e);
            removed++;
            continue;
        }
        i++;
    }
    CHECK_EQ("every third removed", removed, N / 3);
    CHECK_EQ("count", t.count, N - N / 3);
    size_t right = 0;
    for (uint64_t i = 1; i <= N; i++)
        right += size_of(&t, i * 4096) == (i % 3 ? i : 0);
    CHECK_EQ("the others all found", right, N);
    vt_alloc_table_free(&t);
}

/* A program that allocates and frees for ever at a steady live count:
 * the table neither grows nor loses an entry. */
static void churn(void)
{
    struct vt_alloc_table t = {0};
    uint64_t live[16];
    for (int i = 0; i < 16; i++) {
        live[i] = 0x7f0000000000 + (uint64_t)i * 0x100000;
        struct vt_live e = entry(live[i], 1);
        vt_alloc_table_insert(&t, &e);
    }
    size_t slots = t.mask + 1;
    uint64_t next = 0x7e0000000000;
    for (int round = 0; round < 200000; round++) {
        int i = round % 16;
        remove_key(&t, live[i]);
        live[i] = next;
        next += 0x200;
        struct vt_live e = entry(live[i], 2);
        vt_alloc_table_insert(&t, &e);
    }
    CHECK_EQ("count", t.count, 16);
    CHECK_EQ("no growth", t.mask + 1, slots);
    size_t found = 0;
    for (int i = 0; i < 16; i++)
        found += size_of(&t, live[i]) == 2;
    CHECK_EQ("the live ones found", found, 16);
    vt_alloc_table_free(&t);
}

int main(void)
{
    basics();
    wrapping_run();
    growth();
    remove_while_iterating();
    churn();
    return unit_result("alloc_table");
}
