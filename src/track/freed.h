/* SPDX-License-Identifier: MIT */
/* The allocations freed last (a bounded, direct-mapped table), so that a
 * free the driver refuses can be told as a double free, with the stack that
 * allocated the memory and the first free's time, thread, API and, where
 * free stacks are recorded (VRAMTRACE_FREE_STACKS=1), stack. All calls with
 * the tracer lock held. */
#ifndef VRAMTRACE_FREED_H
#define VRAMTRACE_FREED_H

#include "alloc_info.h"

#include <stdint.h>
#include <sys/types.h>

struct vt_freed {
    uint64_t key;
    unsigned generation; /* the slot's entry is current when it is the table's */
    enum vt_space space;
    uint32_t alloc_stack;
    unsigned alloc_api, alloc_kind;
    int alloc_device;
    uint64_t size;
    uint64_t time_ns; /* of the free, vt_now_ns's clock */
    unsigned free_api;
    pid_t free_tid;
    uint32_t free_stack; /* 0: not recorded */
};

/* The entry to fill for KEY, freed now (it replaces whatever had its slot);
 * its key, space and generation are set. */
struct vt_freed *vt_freed_remember(uint64_t key, enum vt_space space);
/* The remembered free of KEY, or NULL. */
const struct vt_freed *vt_freed_find(uint64_t key, enum vt_space space);
/* KEY is live again (the free was refused): not freed after all. */
void vt_freed_forget(uint64_t key, enum vt_space space);
/* Forked child: the parent's frees are not ours. */
void vt_freed_reset(void);

/* 1 when VRAMTRACE_FREE_STACKS=1 asks for the stack of every free (read
 * once; it costs a backtrace per free). */
int vt_free_stacks_enabled(void);

#endif
