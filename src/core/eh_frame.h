/* SPDX-License-Identifier: MIT */
/* How to step out of one x86_64 frame, read from the call frame information
 * (.eh_frame, found through .eh_frame_hdr) of the loaded object holding the
 * address: the few shapes unwind_fast.c can walk, anything else "cannot". */
#ifndef VRAMTRACE_EH_FRAME_H
#define VRAMTRACE_EH_FRAME_H

#include <stdint.h>

enum vt_unwind_stop {
    VT_UNWIND_GOES_ON = 0, /* a CFA rule */
    VT_UNWIND_END,         /* the outermost frame: return address or rbp undefined */
    VT_UNWIND_CANNOT,      /* anything else: libunwind walks this stack */
};

/* The rule of the frame whose return address (or, innermost, whose current
 * instruction's end) is IP: CFA = (rbp if from_rbp, else rsp) + cfa_off;
 * the return address lies at CFA - 8, the caller's rsp is the CFA, and its
 * rbp is read at CFA + rbp_off (rbp_off < 0) or is this frame's (rbp_off ==
 * 0). A rule that stops says CFA = rsp + 0, which the walk's check that the
 * CFA rises refuses before it reads why: one test a frame for both. */
struct vt_unwind_rule {
    uintptr_t ip;
    int32_t cfa_off;
    int16_t rbp_off;
    uint8_t from_rbp;
    uint8_t stop; /* enum vt_unwind_stop */
};

/* Fills RULE (all but its ip) for the instruction at ADDR, read from
 * the CFI of the object loaded there. Takes the dynamic linker's lock
 * (dl_iterate_phdr); no allocation. */
void vt_eh_frame_rule(uintptr_t addr, struct vt_unwind_rule *rule);

#endif
