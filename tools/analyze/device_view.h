/* SPDX-License-Identifier: MIT */
/* The driver's view of each device over time (DEVICE_USAGE records) next to
 * what was traced live on it at that moment, and the decomposition of what
 * the device has in use: traced live in this process + what this process
 * holds outside the traced calls (its context, library workspaces) + what
 * other processes hold. The last two need NVML's per-process figure. */
#ifndef VT_DEVICE_VIEW_H
#define VT_DEVICE_VIEW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"

struct vt_device_sample {
    uint64_t time_ns;
    unsigned reason; /* enum vt_usage_reason */
    int64_t device;
    uint64_t driver_total, driver_free, driver_used;
    uint64_t traced_live;     /* device + managed traced live then */
    bool has_split;           /* NVML said what this process uses */
    int64_t process_untraced; /* this process's NVML figure - traced live */
    int64_t other_processes;  /* driver used - this process's NVML figure */
    bool has_listed;          /* NVML's own sum for the other processes */
    uint64_t listed_bytes, listed_count;
};

struct vt_device_view {
    struct vt_device_sample *samples; /* in dump order */
    size_t n, cap;
};

void vt_device_view_add(struct vt_device_view *v, const struct vt_device_usage_event *ev,
                        uint64_t traced_live);
/* The last sample of DEVICE (the end of the run), or NULL. */
const struct vt_device_sample *vt_device_view_last(const struct vt_device_view *v, int64_t device);
const char *vt_usage_reason_name(unsigned reason);
void vt_device_view_free(struct vt_device_view *v);

#endif
