/* SPDX-License-Identifier: MIT */
#include "device_view.h"

#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

void vt_device_view_add(struct vt_device_view *v, const struct vt_device_usage_event *ev,
                        uint64_t traced_live)
{
    struct vt_device_sample s = {
        .time_ns = ev->time_ns,
        .reason = ev->reason,
        .device = ev->device,
        .driver_total = ev->total_bytes,
        .driver_free = ev->free_bytes,
        .driver_used = ev->total_bytes - ev->free_bytes,
        .traced_live = traced_live,
        .has_split = ev->has_own,
        .has_listed = ev->has_others,
        .listed_bytes = ev->others_bytes,
        .listed_count = ev->others_count,
    };
    if (s.has_split) {
        s.process_untraced = (int64_t)(ev->own_bytes - traced_live);
        s.other_processes = (int64_t)(s.driver_used - ev->own_bytes);
    }
    if (v->n == v->cap) {
        v->cap = v->cap ? 2 * v->cap : 16;
        v->samples = vt_xrealloc(v->samples, v->cap, sizeof *v->samples);
    }
    v->samples[v->n++] = s;
}

const struct vt_device_sample *vt_device_view_last(const struct vt_device_view *v, int64_t device)
{
    for (size_t i = v->n; i-- > 0;)
        if (v->samples[i].device == device)
            return &v->samples[i];
    return NULL;
}

const char *vt_usage_reason_name(unsigned reason)
{
    static const char *const names[VT_USAGE_REASON_COUNT] = {"start", "marker", "sample",
                                                             "teardown", "exit"};
    return reason < VT_USAGE_REASON_COUNT ? names[reason] : "unknown";
}

void vt_device_view_free(struct vt_device_view *v)
{
    free(v->samples);
    memset(v, 0, sizeof *v);
}
