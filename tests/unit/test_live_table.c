/* The CLI's live-allocation table (tools/analyze/live_table.c): an address
 * and a cuMemCreate handle of the same value are different keys; removal
 * (backward shift) never hides an entry further along its probe run; the
 * table grows past a million entries with every one still found. */
#include <stdlib.h>

#include "live_table.h"
#include "unit_check.h"

static struct vt_live_entry entry(uint64_t address, bool is_handle, uint64_t size)
{
    return (struct vt_live_entry){
        .address = address, .space = is_handle, .size = size, .stack_id = address + 1};
}

static uint64_t size_of(const struct vt_live_table *t, uint64_t address, bool is_handle)
{
    const struct vt_live_entry *e = vt_live_find(t, address, is_handle);
    return e ? e->size : 0;
}

/* Removes the entry of the key; false (a failed check) when it is not found. */
static bool remove_key(struct vt_live_table *t, uint64_t address, bool is_handle)
{
    struct vt_live_entry *e = vt_live_find(t, address, is_handle);
    if (e)
        vt_live_remove(t, e);
    return e != NULL;
}

static void address_and_handle_spaces(void)
{
    struct vt_live_table t = {0};
    CHECK("find in an empty table", vt_live_find(&t, 0x7f0000000000, false) == NULL);
    struct vt_live_entry a = entry(0x7f0000000000, false, 4096),
                         h = entry(0x7f0000000000, true, 2 << 20);
    vt_live_insert(&t, &a);
    vt_live_insert(&t, &h);
    CHECK_EQ("count", t.count, 2);
    CHECK_EQ("the address's size", size_of(&t, 0x7f0000000000, false), 4096);
    CHECK_EQ("the handle's size", size_of(&t, 0x7f0000000000, true), 2 << 20);
    CHECK_EQ("the handle's stack", vt_live_find(&t, 0x7f0000000000, true)->stack_id,
             0x7f0000000001);
    CHECK("the address is found to remove", remove_key(&t, 0x7f0000000000, false));
    CHECK_EQ("count after removing the address", t.count, 1);
    CHECK("the address is gone", vt_live_find(&t, 0x7f0000000000, false) == NULL);
    CHECK_EQ("the handle stays", size_of(&t, 0x7f0000000000, true), 2 << 20);
    vt_live_free(&t);
    CHECK("freed", t.slots == NULL && t.count == 0);
}

/* Addresses 2 MiB apart (as the driver hands them out), removed in an
 * order that punches holes into probe runs. */
static void many_with_removals(void)
{
    enum { N = 1200000 };
    struct vt_live_table t = {0};
    for (uint64_t i = 0; i < N; i++) {
        struct vt_live_entry e = entry(0x7f0000000000 + (i << 21), false, i + 1);
        vt_live_insert(&t, &e);
    }
    CHECK_EQ("count after inserting", t.count, N);
    CHECK("at most half full", 2 * t.count <= t.mask + 1);
    size_t found = 0, right = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint64_t size = size_of(&t, 0x7f0000000000 + (i << 21), false);
        found += size != 0;
        right += size == i + 1;
    }
    CHECK_EQ("entries found", found, N);
    CHECK_EQ("entries with their own size", right, N);
    size_t removed = 0;
    for (uint64_t i = 0; i < N; i += 3)
        removed += remove_key(&t, 0x7f0000000000 + (i << 21), false);
    CHECK_EQ("entries found to remove", removed, (N + 2) / 3);
    CHECK_EQ("count after removing every third", t.count, N - (N + 2) / 3);
    size_t kept = 0, gone = 0;
    for (uint64_t i = 0; i < N; i++) {
        uint64_t size = size_of(&t, 0x7f0000000000 + (i << 21), false);
        if (i % 3 == 0)
            gone += size == 0;
        else
            kept += size == i + 1;
    }
    CHECK_EQ("removed entries gone", gone, (N + 2) / 3);
    CHECK_EQ("other entries still found", kept, N - (N + 2) / 3);
    CHECK("a handle of a live address's value is not found",
          vt_live_find(&t, 0x7f0000000000 + (1 << 21), true) == NULL);
    vt_live_free(&t);
}

/* A small table where every key shares its home slot's neighbourhood:
 * removing the first of a run must move the rest back. */
static void removal_inside_a_run(void)
{
    struct vt_live_table t = {0};
    for (uint64_t i = 0; i < 400; i++) { /* 1024 slots: long runs */
        struct vt_live_entry e = entry(i * 4096, false, i + 10);
        vt_live_insert(&t, &e);
    }
    size_t removed = 0;
    for (uint64_t i = 0; i < 400; i += 2)
        removed += remove_key(&t, i * 4096, false);
    CHECK_EQ("even entries found to remove", removed, 200);
    size_t right = 0;
    for (uint64_t i = 1; i < 400; i += 2)
        right += size_of(&t, i * 4096, false) == i + 10;
    CHECK_EQ("odd entries found after removing the even ones", right, 200);
    for (uint64_t i = 0; i < 400; i += 2) { /* and inserted again */
        struct vt_live_entry e = entry(i * 4096, false, i + 20);
        vt_live_insert(&t, &e);
    }
    right = 0;
    for (uint64_t i = 0; i < 400; i++)
        right += size_of(&t, i * 4096, false) == (i % 2 ? i + 10 : i + 20);
    CHECK_EQ("all found after inserting the even ones again", right, 400);
    CHECK_EQ("count", t.count, 400);
    vt_live_free(&t);
}

int main(void)
{
    address_and_handle_spaces();
    many_with_removals();
    removal_inside_a_run();
    return unit_result("live_table");
}
/* SPDX-License-Identifier: MIT */
