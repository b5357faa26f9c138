/* SPDX-License-Identifier: MIT */
/* How to step out of one x86_64 or aarch64 frame, read from the call frame
 * information (.eh_frame, found through .eh_frame_hdr) of the loaded object
 * holding the address: the few shapes unwind_fast.c can walk, anything else
 * "cannot". */
#ifndef VRAMTRACE_EH_FRAME_H
#define VRAMTRACE_EH_FRAME_H

#include <stdint.h>

/* How the walk steps out of a frame; the caller's stack pointer is the CFA
 * in all three that go on. x86_64: the return address lies at CFA - 8. On
 * aarch64 rsp reads sp and rbp x29 (the frame pointer), and the return
 * address is x30's value saved at CFA + ra_off, in the frame (x30 kept in
 * its register is left to libunwind, as its own fast trace leaves it),
 * signed by pointer authentication where ra_signed says so. */
enum vt_unwind_how {
    VT_UNWIND_RSP,           /* CFA = rsp + cfa_off (x86_64: cfa_off >= 8); rbp kept */
    VT_UNWIND_RSP_SAVED_RBP, /* the same, rbp at CFA + rbp_off, in [-cfa_off, -8] */
    VT_UNWIND_RBP,           /* CFA = rbp + cfa_off; rbp at CFA + rbp_off (< 0), or kept (0) */
    VT_UNWIND_END,           /* the outermost frame: return address or rbp undefined */
    VT_UNWIND_CANNOT,        /* anything else: libunwind walks this stack */
};

/* The rule of the frame whose return address (or, innermost, whose current
 * instruction's end) is IP. */
struct vt_unwind_rule {
    uintptr_t ip;
    int32_t cfa_off;
    int32_t rbp_off;
    int32_t ra_off;    /* aarch64: x30 at CFA + ra_off (< 0); x86_64: -8 */
    uint8_t how;       /* enum vt_unwind_how */
    uint8_t ra_signed; /* aarch64: x30 saved signed by pointer authentication */
};

/* Fills RULE (all but its ip) for the instruction at ADDR, read from
 * the CFI of the object loaded there. Takes the dynamic linker's lock
 * (dl_iterate_phdr); no allocation. */
void vt_eh_frame_rule(uintptr_t addr, struct vt_unwind_rule *rule);

#endif
