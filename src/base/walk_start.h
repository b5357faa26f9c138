/* SPDX-License-Identifier: MIT */
/* Where a stack walk may start (unwind_fast.h): a frame of the program's
 * that a hook of ours was called from, read in that hook. */
#ifndef VRAMTRACE_WALK_START_H
#define VRAMTRACE_WALK_START_H

#include <stdint.h>

/* An ancestor frame a walk may start at instead of its own: the return
 * address into it, the CFA of the frame it called (the stack pointer on
 * return) and its rbp; cfa 0 where unknown. */
struct vt_walk_start {
    uintptr_t ip, cfa, bp;
};

#if defined(__aarch64__)
/* IP without its pointer authentication code, as libunwind 1.7 strips it:
 * xpaclri (hint #7: a NOP on a CPU without pointer authentication, where
 * nothing is signed) strips x30's, with either key. */
static inline uintptr_t vt_stripped_return(uintptr_t ip)
{
    register uintptr_t x30 __asm__("x30") = ip;
    __asm__("hint #7" : "+r"(x30));
    return x30;
}
#endif

/* Into *START: the frame that called the function this is inlined into
 * (a function that takes its frame's address keeps a frame pointer: the
 * caller's rbp saved at it, the return address above; on aarch64 the frame
 * record, the caller's x29 and x30 as saved, signed or not, and the CFA
 * where the compiler's CFI puts it). Where the return address is not found
 * there, or off x86_64 and aarch64: cfa 0. */
static inline __attribute__((always_inline)) void
vt_walk_start_of_caller(struct vt_walk_start *start)
{
#if defined(__x86_64__)
    const uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t ip = (uintptr_t)__builtin_return_address(0);
    int kept = fp[1] == ip;
    start->ip = ip;
    start->cfa = kept ? (uintptr_t)(fp + 2) : 0;
    start->bp = kept ? fp[0] : 0;
#elif defined(__aarch64__)
    const uintptr_t *fp = __builtin_frame_address(0);
    uintptr_t ip = vt_stripped_return((uintptr_t)__builtin_return_address(0));
    int kept = vt_stripped_return(fp[1]) == ip;
    start->ip = ip;
    start->cfa = kept ? (uintptr_t)__builtin_dwarf_cfa() : 0;
    start->bp = kept ? fp[0] : 0;
#else
    start->cfa = 0;
#endif
}

#endif
