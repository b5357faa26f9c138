/* SPDX-License-Identifier: MIT */
/* The counts a replay adds up: what a report's summary says. */
#ifndef VT_SUMMARY_H
#define VT_SUMMARY_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct vt_summary {
    uint64_t allocations, frees;
    /* the highest peak of a single device (device + managed memory on it),
     * never a sum over devices: no GPU held that; peak_device -1 when none */
    uint64_t peak_bytes, peak_time_ns;
    int64_t peak_device;
    size_t peak_devices;                       /* devices that held memory */
    uint64_t leaked_bytes, leaked_allocations; /* device + managed */
    uint64_t host_leaked_bytes, host_leaked_allocations;
    uint64_t host_peak_bytes, host_peak_time_ns; /* page-locked host memory */
    uint64_t failed_allocations, invalid_frees, untraced_frees;
    uint64_t teardown_freed_bytes, teardown_freed_allocations;
    uint64_t suppressed_bytes, suppressed_allocations; /* left out of the above */
    uint64_t known_bytes, known_allocations;           /* known framework memory: left out too */
    uint64_t host_known_bytes, host_known_allocations; /* page-locked host memory of those */
    /* held when the Python script ended and freed by the interpreter's
     * shutdown after: still reachable, not leaked (device + managed; host) */
    uint64_t held_bytes, held_allocations;
    uint64_t host_held_bytes, host_held_allocations;
    /* device + managed still allocated when the dump ends: the leaked
     * bytes when the process ended on its own (ending.h), else only live */
    uint64_t live_at_end_bytes, live_at_end_allocations;
};

#endif
