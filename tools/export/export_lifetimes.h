/* The Chrome/Perfetto export's allocation lifetimes, and what the export
 * shares with it (export_chrome.c). */
#ifndef VT_EXPORT_LIFETIMES_H
#define VT_EXPORT_LIFETIMES_H

#include <stdint.h>

#include "export.h"
#include "json_writer.h"

struct vt_chrome_trace {
    struct vt_json j;
    uint64_t pid;
    uint64_t offset_ns;   /* this dump's start after the earliest one */
};

/* Opens an event object: name, ph, pid, tid, ts (the caller closes it). */
void vt_chrome_begin_event(struct vt_chrome_trace *t, const char *name, const char *ph,
                           uint64_t tid, uint64_t time_ns);
/* Names the track TID ("thread_name" metadata) and orders it by TID. */
void vt_chrome_thread_name(struct vt_chrome_trace *t, uint64_t tid, const char *name);

/* Writes E's allocation lifetimes on tracks FIRST_TID, FIRST_TID + 1, ...
 * (reading its dump once more). Returns -1 when the dump cannot be read
 * again (said on stderr). */
int vt_chrome_lifetimes(struct vt_chrome_trace *t, const struct vt_export *e, uint64_t first_tid);

#endif
