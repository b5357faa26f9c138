/* SPDX-License-Identifier: MIT */
/* The tracer's live-allocation table (src/track/alloc_table.c): exact counts
 * and contents under add, remove and growth; removal (backward shift)
 * never hides an entry further along its probe run, also where the run
 * wraps past the last slot; iterating over the slots with removals (as a
 * context's teardown does) finds every entry; churn at a steady size
 * leaves no debris (the table does not grow). */
#include <stdlib.h>

#include "alloc_table.h"
#include "unit_check.h"

/* Adds KEY with SIZE (and a seq and stack made of the key); FRESH: whether
 * it was new. */
static struct vt_live *put_fresh(struct vt_alloc_table *t, uint64_t key, uint64_t size, int *fresh)
{
    struct vt_live *e = vt_alloc_table_add(t, key, fresh);
    if (e) {
        *e = (struct vt_live){.info = {.key = key}, .used = 1};
        e->info.size = size;
        e->seq = key ^ 0x5a5a;
        e->stack = (uint32_t)key;
    }
    return e;
}

static struct vt_live *put(struct vt_alloc_table *t, uint64_t key, uint64_t size)
{
    int fresh;
    return put_fresh(t, key, size, &fresh);
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

static void basics(void)
{
    struct vt_alloc_table t = {0};
    CHECK("find in an empty table", vt_alloc_table_find(&t, 0x7f0000000000) == NULL);
    int fresh = 0;
    struct vt_live *in = put_fresh(&t, 0x7f0000000000, 4096, &fresh);
    CHECK("add returns a fresh entry", in && in->info.key == 0x7f0000000000 && in->used && fresh);
    put(&t, 0x7f0000200000, 1 << 20);
    CHECK_EQ("count", t.count, 2);
    in = vt_alloc_table_add(&t, 0x7f0000000000, &fresh);
    CHECK("adding a key there finds its entry", in && !fresh && in->info.size == 4096);
    CHECK_EQ("count after adding a key there", t.count, 2);
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
    put(&t, 0x1234, 1); /* the table has its slots */
    uint64_t outside = 2;
    while (vt_alloc_table_home(&t, outside) != t.mask / 2)
        outside++;
    put(&t, outside, 1);
    remove_key(&t, 0x1234);
    uint64_t last[4];
    int n = 0;
    for (uint64_t k = outside + 1; n < 4; k++)
        if (vt_alloc_table_home(&t, k) == t.mask) {
            last[n++] = k;
            put(&t, k, k * 10);
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
    for (uint64_t i = 0; i < N; i++)
        put(&t, 0x7f0000000000 + i * 512, i + 1);
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
    for (uint64_t i = 1; i <= N; i++)
        put(&t, i * 4096, i);
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
        put(&t, live[i], 1);
    }
    size_t slots = t.mask + 1;
    uint64_t next = 0x7e0000000000;
    for (int round = 0; round < 200000; round++) {
        int i = round % 16;
        remove_key(&t, live[i]);
        live[i] = next;
        next += 0x200;
        put(&t, live[i], 2);
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
