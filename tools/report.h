/* Reading, analysing and rendering one dump: what `report` prints and what
 * `run` prints when the command exits. */
#ifndef VT_REPORT_H
#define VT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "dump_reader.h"
#include "frames.h"
#include "limits.h"
#include "suppressions.h"

struct vt_report_options {
    bool json;
    size_t top;       /* sites shown per list; 0 = all */
    FILE *out;
    struct vt_suppressions *suppressions;   /* or NULL; counts are per dump */
    const struct vt_limits *limits;         /* or NULL: report only */
};

/* Everything a renderer needs. Sites are symbolized for the shown ones. */
struct vt_report {
    const char *path;
    const struct vt_dump *dump;
    const struct vt_analysis *analysis;
    const struct vt_site *leak_sites;       /* parallel to analysis->leaks */
    size_t leaks_shown;
    const struct vt_site *failure_sites;    /* parallel to analysis->failures */
    size_t failures_shown;
    size_t top;
    struct vt_symbolizer *sym;
    const struct vt_suppressions *suppressions;   /* or NULL */
};

/* Reports PATH (suppressed leaks left out and tallied), then, with limits,
 * one line on stderr per limit broken. Returns -1 when the dump cannot be
 * read (one line on stderr already), else the number of limits broken. */
int vt_report_dump(const char *path, const struct vt_report_options *opts);

void vt_render_text(const struct vt_report *r, FILE *out);
void vt_render_json(const struct vt_report *r, FILE *out);

/* Shared by the renderers. */
const char *vt_api_label(unsigned api);
/* "12.0 MiB"; BUF holds at least 32 bytes. */
const char *vt_human_size(uint64_t bytes, char *buf);
extern const char vt_version[];

#endif
