/* SPDX-License-Identifier: MIT */
/* Writing Chrome trace event JSON objects (chrome_trace.c). */
#ifndef VT_CHROME_TRACE_H
#define VT_CHROME_TRACE_H

#include <stdint.h>

#include "json_writer.h"

struct vt_chrome_trace {
    struct vt_json j;
    uint64_t pid;
    uint64_t offset_ns; /* this dump's start after the earliest one */
};

/* Opens an event object: name, ph, pid, tid, ts (the caller closes it). */
void vt_chrome_begin_event(struct vt_chrome_trace *t, const char *name, const char *ph,
                           uint64_t tid, uint64_t time_ns);
/* Names the track TID ("thread_name" metadata) and orders it by TID. */
void vt_chrome_thread_name(struct vt_chrome_trace *t, uint64_t tid, const char *name);

#endif
