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
    size_t skip;      /* warm-up markers left out of growth detection */
    FILE *out;
    struct vt_suppressions *suppressions;   /* or NULL; counts are per dump */
    const struct vt_limits *limits;         /* or NULL: report only */
    const char *html; /* also write the HTML report to this file */
    /* events also go to TAP (exports count allocations per site) */
    const struct vt_event_sink *tap;
    void *tap_ctx;
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
    /* usage over time: sites in report order, the shown ones, peak holders */
    const size_t *site_order;               /* indices into analysis->usage.sites */
    size_t sites_shown;
    const struct vt_site *usage_sites;      /* parallel to usage.sites; symbolized where shown */
    size_t top;
    struct vt_symbolizer *sym;
    const struct vt_suppressions *suppressions;   /* or NULL */
};

#define VT_PEAK_HOLDERS 5

/* Reports PATH (suppressed leaks left out and tallied), then, with limits,
 * one line on stderr per limit broken. Returns -1 when the dump cannot be
 * read (one line on stderr already), else the number of limits broken. */
int vt_report_dump(const char *path, const struct vt_report_options *opts);

/* One dump read, analysed and symbolized for rendering (report is ready). */
struct vt_loaded_report {
    struct vt_dump dump;
    struct vt_analysis analysis;
    struct vt_symbolizer *sym;
    struct vt_site *leak_sites, *failure_sites, *usage_sites;
    size_t *site_order;
    struct vt_report report;
};
int vt_report_load(const char *path, const struct vt_report_options *opts,
                   struct vt_loaded_report *l);
void vt_report_unload(struct vt_loaded_report *l);

/* Several dumps (PATHS: files, or directories whose *.vtr files are read):
 * each process's report, then the combined view and which process used
 * which device. Returns -1 when any dump could not be read. */
int vt_report_many(char *const *paths, size_t npaths, const struct vt_report_options *opts);

void vt_render_text(const struct vt_report *r, FILE *out);
void vt_render_html(const struct vt_report *r, FILE *out);
/* Writes the HTML report to PATH; -1 (one line on stderr) when it cannot. */
int vt_write_html(const struct vt_report *r, const char *path);
void vt_render_json(const struct vt_report *r, FILE *out);
struct vt_json;
/* The report's fields, into an object J has open. */
void vt_render_json_fields(const struct vt_report *r, struct vt_json *j);

/* Shared by the renderers. */
const char *vt_api_label(unsigned api);
/* "12.0 MiB"; BUF holds at least 32 bytes. */
const char *vt_human_size(uint64_t bytes, char *buf);
/* A time since the process started: "2.345 ms", "12.500 s"; BUF holds 32. */
const char *vt_format_time(uint64_t ns, char *buf);
void vt_print_time(uint64_t ns, FILE *out);
extern const char vt_version[];

#endif
