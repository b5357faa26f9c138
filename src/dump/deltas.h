/* SPDX-License-Identifier: MIT */
/* What the dump's relative fields are written against (format.h): the time
 * of the last timed record, the address of the last ALLOC or FREE. Shared
 * by the encoders of records.c and event_records.c; PROCESS restarts them.
 * Lock held. */
#ifndef VRAMTRACE_DELTAS_H
#define VRAMTRACE_DELTAS_H

#include "format.h"

#include <stdint.h>

struct vt_deltas {
    uint64_t start; /* PROCESS.start_mono */
    uint64_t last_time;
    uint64_t last_address;
};

extern struct vt_deltas vt_deltas;

/* DT: the time since the last timed record, never negative; NOW is then
 * the last (a time read before the lock may be older). */
static inline uint64_t vt_delta_time(uint64_t now)
{
    if (now <= vt_deltas.last_time)
        return 0;
    uint64_t dt = now - vt_deltas.last_time;
    vt_deltas.last_time = now;
    return dt;
}

/* ADDR: the zigzag of the difference from the last address. */
static inline uint64_t vt_delta_address(uint64_t address)
{
    uint64_t d = vt_zigzag((int64_t)(address - vt_deltas.last_address));
    vt_deltas.last_address = address;
    return d;
}

#endif
