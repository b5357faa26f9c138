/* SPDX-License-Identifier: MIT */
/* The live allocations during replay: an open-addressing hash table keyed
 * by (address, key space), sized for millions of entries. */
#ifndef VT_LIVE_TABLE_H
#define VT_LIVE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Key spaces: device addresses, cuMemCreate handles, tensors inside a
 * framework's segments (format.h's vt_api_in_segment). */
enum vt_live_space { VT_LIVE_POINTER = 0, VT_LIVE_HANDLE = 1, VT_LIVE_TENSOR = 2 };

struct vt_live_entry {
    uint64_t address;
    uint64_t size, stack_id;
    int64_t device;
    uint32_t tid; /* the allocating thread */
    uint8_t used;
    uint8_t space : 2;              /* enum vt_live_space */
    uint8_t held_at_script_end : 1; /* live when the Python script ended */
    uint8_t api, kind;
};

struct vt_live_table {
    struct vt_live_entry *slots;
    size_t mask; /* slot count - 1; the count is a power of two */
    size_t count;
};

/* The entry for the key, or NULL. */
struct vt_live_entry *vt_live_find(const struct vt_live_table *t, uint64_t address, unsigned space);
/* Inserts a copy of E (its key must not be present). */
void vt_live_insert(struct vt_live_table *t, const struct vt_live_entry *e);
/* Removes an entry returned by vt_live_find. */
void vt_live_remove(struct vt_live_table *t, struct vt_live_entry *e);
void vt_live_free(struct vt_live_table *t);

#endif
