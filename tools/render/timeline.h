/* SPDX-License-Identifier: MIT */
/* `vramtrace timeline`: total live bytes per device over time. */
#ifndef VT_TIMELINE_H
#define VT_TIMELINE_H

#include <stdio.h>

#include "dump_reader.h"
#include "usage_series.h"

/* The device bins, plus the bin still open at the end, as samples. */
struct vt_timeline_sample {
    uint64_t end_ns;     /* the bin covers (end_ns - tick_ns, end_ns] */
    uint64_t max_bytes;  /* highest live bytes in the bin */
    uint64_t last_bytes; /* live bytes at its end */
};

/* Sample I (0 .. nticks) of device D. */
struct vt_timeline_sample vt_timeline_sample(const struct vt_usage *u,
                                             const struct vt_usage_device *d, size_t i);

/* Charts, per device, fitting 80 columns: peak and markers marked. */
void vt_timeline_chart(const struct vt_dump *dump, const struct vt_usage *u, FILE *out);
void vt_timeline_json(const struct vt_dump *dump, const struct vt_usage *u, FILE *out);

#endif
