/* SPDX-License-Identifier: MIT */
/* `vramtrace export`: one dump's call sites with every value the exports
 * show, and one writer per format. */
#ifndef VT_EXPORT_H
#define VT_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "report.h"

/* A call site: one (stack, api, kind, device), as the report groups them. */
struct vt_export_site {
    const struct vt_usage_site *usage;     /* stack_id, kind, device, live and peak bytes */
    const struct vt_site *site;            /* symbolized frames and the API the program called */
    uint64_t leaked_allocations;           /* live at exit (bytes: usage->live_bytes) */
    uint64_t allocated_bytes, allocations; /* over the whole run */
};

struct vt_alloc_tally;

/* A loaded report (every site symbolized) and its sites, in report order. */
struct vt_export {
    struct vt_loaded_report loaded;
    struct vt_alloc_tally *tally;
    struct vt_export_site *sites;
    size_t nsites;
};

/* Returns -1 when the dump cannot be read (one line on stderr already). */
int vt_export_load(const char *path, struct vt_export *e);
void vt_export_unload(struct vt_export *e);

/* What a folded profile counts. */
enum vt_export_what { VT_WHAT_LEAKED, VT_WHAT_PEAK, VT_WHAT_ALLOCATED };
uint64_t vt_export_value(const struct vt_export_site *s, enum vt_export_what what);

/* Folded stacks of E; with BASE, the differential form "stack base e". */
void vt_export_folded(const struct vt_export *e, const struct vt_export *base,
                      enum vt_export_what what, FILE *out);
/* profile.proto, gzip-compressed. Returns -1 when writing fails. */
int vt_export_pprof(const struct vt_export *e, FILE *out);
/* The pickle torch.cuda.memory._dump_snapshot() writes (memory_viz's
 * segments and device_traces), from the dump at PATH. Returns -1 when it
 * cannot be read or holds no individual allocations (said on stderr). */
int vt_export_torch_snapshot(const char *path, FILE *out);
/* Chrome trace event JSON, one process per dump; -1 when a dump cannot be
 * read again for its allocations' lifetimes (said on stderr). */
int vt_export_chrome(const struct vt_export *const *dumps, size_t n, FILE *out);

#endif
