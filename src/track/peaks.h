/* SPDX-License-Identifier: MIT */
/* Peaks since checkpoints (vramtrace_peak_since): each of the most recent
 * VT_PEAK_CHECKPOINTS checkpoints follows the live device + managed bytes
 * allocated after it, and the highest value they reached: inside a
 * framework's cache whose tensors are traced, its tensors, not its segments
 * (as vramtrace_leaked_since counts them). The tracker's
 * lock is held for every call. */
#ifndef VT_PEAKS_H
#define VT_PEAKS_H

#include <stdbool.h>
#include <stdint.h>

/* include/vramtrace.h's VRAMTRACE_PEAK_CHECKPOINTS and _PEAK_UNKNOWN */
#define VT_PEAK_CHECKPOINTS 16
#define VT_PEAK_UNKNOWN UINT64_MAX

/* Checkpoint SEQ (the allocation counter then) is followed from now on; the
 * oldest followed one is forgotten to make room. */
void vt_peaks_follow(uint64_t seq);
/* The live bytes of allocation number SEQ changed by DELTA. */
void vt_peaks_change(uint64_t seq, int64_t delta);
/* Allocation SEQ, of SIZE bytes and counted, is a segment of a framework's
 * cache whose tensors are counted instead: it leaves the figures, and the
 * peak it alone raised. */
void vt_peaks_unsegment(uint64_t seq, uint64_t size);
/* The peak since checkpoint SEQ into *PEAK; false when it is not followed. */
bool vt_peaks_since(uint64_t seq, uint64_t *peak);
void vt_peaks_reset(void);

#endif
