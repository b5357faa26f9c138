/* SPDX-License-Identifier: MIT */
/* The hash of a stack's native frames, from the innermost kept one out:
 * one step a frame, restarted at each frame of the tracer's own (the key
 * begins after the outermost of them). The stack walk takes it as it goes
 * (unwind_fast.c) and stacks.c the same way over frames libunwind gave:
 * one stack, one hash, whichever walked it. */
#ifndef VRAMTRACE_FRAME_HASH_H
#define VRAMTRACE_FRAME_HASH_H

#include <stdint.h>

#define VT_FRAME_HASH_SEED 0x9E3779B97F4A7C15u

/* Two instructions a frame; a single frame that differs always changes
 * the result (the multiplier is odd). */
static inline uint64_t vt_frame_hash_step(uint64_t h, uintptr_t frame)
{
    return (h + frame) * 0xBF58476D1CE4E5B9u;
}

/* The tracer's own code: [start, start + span). */
struct vt_tracer_text {
    uintptr_t start, span;
};

static inline int vt_is_tracer_frame(const struct vt_tracer_text *t, uintptr_t frame)
{
    return frame - t->start < t->span; /* one unsigned compare */
}

/* Where a walk's key begins (after the outermost tracer frame) and the
 * hash of the frames from there, before the key's length is mixed in.
 * WALK: the remembered walk (unwind_fast.c) whose frames these are, a
 * number the calling thread never gives another; 0: none. */
struct vt_frame_key {
    int first;
    uint64_t hash;
    uint64_t walk;
};

#endif
