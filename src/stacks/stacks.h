/* SPDX-License-Identifier: MIT */
/* Native call stacks: captured with libunwind, the tracer's own frames
 * dropped, de-duplicated so that each distinct stack is written once. */
#ifndef VRAMTRACE_STACKS_H
#define VRAMTRACE_STACKS_H

#include "pystack.h"
#include "stack_limits.h"

#include <stdint.h>

struct vt_stack {
    /* From key[start] (the tracer's own frames before it), the
     * de-duplication key: the native frames (count of them), then, with
     * Python frames, a separator, their locations and their entries; or,
     * with another thread's, another separator and their locations. */
    uintptr_t key[VT_STACK_MAX + 1 + 2 * VT_PY_MAX];
    int start;
    int count;
    unsigned dropped; /* frames left out of a deeper stack */
    int cut_at;       /* where: between frames[cut_at - 1] and frames[cut_at] */
    int key_len;
    unsigned hash;            /* of the key: taken before the lock */
    uint64_t walk;            /* the remembered walk its native part repeats (frame_hash.h), 0 */
    struct vt_pystack python; /* empty when the thread is not running Python */
    /* Without Python frames of its own: those of the thread it works for
     * (pybehalf.h); empty when there is none. */
    struct vt_pystack behalf;
};

/* Before any thread captures: libunwind sets itself up on its first unwind
 * and writes a global there outside its lock (its signal mask). */
void vt_stacks_init(void);

/* Captures the calling thread's stack, starting at the caller of the
 * outermost tracer function on it, and its Python frames. Any thread, no lock. */
void vt_stack_capture(struct vt_stack *stack);

/* Up to LIMIT return addresses of the calling thread, innermost first, the
 * whole stack as vt_stack_capture walks it (on aarch64 each less one, as
 * libunwind's fast trace gives them, signed ones stripped): how many. */
int vt_stack_return_addresses(uintptr_t *frames, int limit);

/* Lock held: the id of this stack, writing it (and any new modules) to the
 * dump the first time it is seen. 0 when the stack is empty or not written. */
uint32_t vt_stack_intern(const struct vt_stack *stack);

/* Lock held: copies up to MAX frames of stack ID (innermost first) into
 * OUT; returns how many (0 for an unknown id). A linear search: for the
 * public API's rare questions, not for the hot path. */
int vt_stack_frames(uint32_t id, uintptr_t *out, int max);

/* Lock held: cached stacks with a frame in [START, END) (an unloaded
 * module) are not reused; a later capture writes its stack anew. */
void vt_stacks_forget_range(uint64_t start, uint64_t end);

/* Lock held: the module list written up to now (vt_modules_sync), cached
 * stacks into unloaded modules forgotten. 0 or -1. */
int vt_stacks_sync_modules(void);

/* Forget what was written (a new dump starts). */
void vt_stacks_reset(void);

#endif
