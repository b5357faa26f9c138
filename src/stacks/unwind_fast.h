/* SPDX-License-Identifier: MIT */
/* The calling thread's return addresses, walked on x86_64 and aarch64 through a
 * per-thread cache of unwind rules (eh_frame.h) keyed by address: the frames
 * libunwind's unw_backtrace gives, or none where it could differ. */
#ifndef VRAMTRACE_UNWIND_FAST_H
#define VRAMTRACE_UNWIND_FAST_H

#include "frame_hash.h"
#include "walk_start.h"

#include <stdint.h>

#if defined(__x86_64__) || defined(__aarch64__)

/* Up to LIMIT return addresses into FRAMES, innermost first, starting with
 * the caller's own (where it called this), as unw_backtrace(FRAMES, LIMIT)
 * called there gives them; how many, or -1 where this walk cannot say what
 * unw_backtrace would (a frame it does not know, a signal frame, a stack
 * not the thread's own, a capture inside a capture): call unw_backtrace.
 * With them, where the key begins and its hash (frame_hash.h) into *KEY:
 * frames in TRACER restart it. With a START (cfa not 0), which must be an
 * ancestor of the caller's frame on this thread's stack: the frames from
 * START's return address out, the frames below it not walked. */
int vt_unwind_fast(uintptr_t *frames, int limit, const struct vt_tracer_text *tracer,
                   const struct vt_walk_start *start, struct vt_frame_key *key);

#if defined(__aarch64__)
/* The first of FRAMES (N return addresses less one, as unw_backtrace gives
 * them; its slow path's whole ones read in the same function) whose function
 * saved its own return address signed by pointer authentication, as this
 * thread's rules say; -1 for none, or where the rules cannot be read now
 * (inside a walk). */
int vt_unwind_first_signed(const uintptr_t *frames, int n);
#endif

/* Any thread: objects may have been unloaded; every thread's cache is
 * emptied before its next walk (another object may load at their place). */
void vt_unwind_forget(void);

#else

static inline void vt_unwind_forget(void)
{
}

#endif

#endif
