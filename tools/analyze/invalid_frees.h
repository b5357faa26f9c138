/* SPDX-License-Identifier: MIT */
/* Frees the driver refused (BAD_FREE records), grouped memcheck style: one
 * entry per distinct (stack of the refused free, allocation's stack, first
 * free's stack, API, double or not), with how often it happened and the
 * first occurrence's address and time. */
#ifndef VT_INVALID_FREES_H
#define VT_INVALID_FREES_H

#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"

struct vt_invalid_free {
    uint64_t count;
    struct vt_bad_free_event first; /* the first occurrence */
};

struct vt_invalid_free_entry; /* internal: grouping */

struct vt_invalid_frees {
    struct vt_invalid_free *list; /* in order of first occurrence */
    size_t n;
    struct vt_invalid_free_entry *table;
};

void vt_invalid_frees_add(struct vt_invalid_frees *f, const struct vt_bad_free_event *ev);
void vt_invalid_frees_free(struct vt_invalid_frees *f);

#endif
