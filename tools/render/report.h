/* SPDX-License-Identifier: MIT */
/* Reading, analysing and rendering one dump: what `report` prints and what
 * `run` prints when the command exits. */
#ifndef VT_REPORT_H
#define VT_REPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "analysis.h"
#include "dump_reader.h"
#include "ending.h"
#include "frames.h"
#include "human_units.h"
#include "shown_stacks.h"
#include "suppressions.h"

struct vt_limits;

struct vt_report_options {
    bool json;
    size_t top;     /* sites shown per list; 0 = all */
    bool top_given; /* without --top, text and JSON show VT_TEXT_TOP per list */
    size_t skip;    /* warm-up markers left out of growth detection */
    FILE *out;      /* the report: text, or JSON with json */
    FILE *json_out; /* or NULL: the JSON report here too (beside a text one) */
    struct vt_suppressions *suppressions; /* or NULL; counts are per dump */
    struct vt_suppressions *known;        /* known framework memory (known_memory.h), or NULL */
    const struct vt_limits *limits;       /* or NULL: report only */
    const char *html;                     /* also write the HTML report to this file */
    bool force;                           /* which may hold a dump */
    bool part_of_many; /* one of several dumps: unused suppressions are listed once, after all */
    const struct vt_waits *waits; /* or NULL: how `vramtrace run`'s processes ended */
    /* events also go to TAP (exports count allocations per site) */
    const struct vt_event_sink *tap;
    void *tap_ctx;
};

/* What known framework memory a usage site is (NULL: none), and what the
 * framework was doing when it allocated ("during backward", or NULL). */
struct vt_site_known {
    const struct vt_suppression *known;
    const char *during;
    const struct vt_suppression *suppressed; /* a suppression matches it: check leaves it out */
};

/* Everything a renderer needs. Sites are symbolized for the shown ones. */
struct vt_report {
    const char *path;
    const struct vt_dump *dump;
    const struct vt_analysis *analysis;
    const struct vt_site *leak_sites; /* parallel to analysis->leaks */
    size_t leaks_shown;
    const struct vt_site *held_sites; /* parallel to analysis->held */
    size_t held_shown;
    const struct vt_site *failure_sites; /* parallel to analysis->failures */
    size_t failures_shown;
    /* usage over time: sites in report order, the shown ones, peak holders */
    const size_t *site_order; /* indices into analysis->usage.sites */
    size_t sites_shown;
    const struct vt_site *usage_sites; /* parallel to usage.sites; symbolized where shown */
    size_t top;
    size_t text_top;    /* what the text shows per section; 0 = all */
    size_t text_short;  /* the text's peak holders and churn sites (VT_TEXT_SHORT); 0 = all */
    size_t holders_max; /* peak holders listed per device */
    bool held_stacks;   /* the text lists held memory with stacks (--top), else a line each */
    struct vt_symbolizer *sym;
    const struct vt_suppressions *suppressions; /* or NULL */
    const struct vt_suppressions *known;        /* or NULL */
    const struct vt_site *known_sites;          /* parallel to analysis->known_leaks */
    /* parallel to usage.sites, set for every growing site */
    const struct vt_site_known *site_known;
    /* how the process ended; without an ending of its own (a signal, still
     * running, no footer) what is still allocated is live, not leaked:
     * analysis->leaks then lists it, and the summary's leaked counts are 0 */
    struct vt_ending ending;
    bool live_not_leaked;
    /* invalid frees (analysis->bad_frees), three sites each: the refused
     * free, the allocation, the first free */
    const struct vt_site *invalid_sites;
    size_t invalid_shown;
    bool unused_suppressions; /* list the unused ones (one dump; else the combined view) */
};

#define VT_TEXT_TOP 10
/* Without --top, the text's peak holders and churn list this many (the
 * first screen stays short) and say how many more. */
#define VT_TEXT_SHORT 5
/* Holders of each device's peak symbolized: the text's default length (with
 * --top N, N; the JSON lists at most this many). */
#define VT_PEAK_HOLDERS VT_TEXT_TOP

/* What a dump lets CI conclude. */
enum vt_verdict {
    VT_VERDICT_PASS,       /* within the limits */
    VT_VERDICT_BROKEN,     /* a limit was broken (a leak, an invalid free) */
    VT_VERDICT_NO_DATA,    /* nothing to judge: no successful allocation, or
                               * the process did not end on its own */
    VT_VERDICT_DAMAGED,    /* no limit broken by what was read, but records of
                               * the dump were disbelieved: not a pass */
    VT_VERDICT_UNREADABLE, /* the dump cannot be read */
};

/* One dump read, analysed and symbolized for rendering (report is ready). */
struct vt_loaded_report {
    struct vt_dump dump;
    struct vt_analysis analysis;
    struct vt_shown_stacks *shown; /* call sites by the frames shown */
    struct vt_symbolizer *sym;
    struct vt_site *leak_sites, *held_sites, *failure_sites, *usage_sites, *invalid_sites,
        *known_sites;
    struct vt_site_known *site_known;
    size_t *site_order;
    struct vt_report report;
};
int vt_report_load(const char *path, const struct vt_report_options *opts,
                   struct vt_loaded_report *l);
/* The part after the reading: L's dump and analysis are read (the replay
 * not finished yet); L's symbolizer is made unless already set. */
void vt_report_build(const char *path, const struct vt_report_options *opts,
                     struct vt_loaded_report *l);
void vt_report_unload(struct vt_loaded_report *l);

/* Several dumps (PATHS: files, or directories whose *.vtr files are read):
 * each process's report, then the combined view and which process used
 * which device; with opts->limits, each one's verdict. Returns the worst
 * verdict (UNREADABLE, then BROKEN, then PASS when anything passed, else
 * NO_DATA); without limits, UNREADABLE or PASS; NO_DATA when there was no
 * dump to read at all. */
enum vt_verdict vt_report_many(char *const *paths, size_t npaths,
                               const struct vt_report_options *opts);

/* Prints on opts->out a suppressions file for the leaks of DUMPS (after
 * opts->suppressions). -1 when a dump could not be read (said on stderr). */
int vt_gen_suppressions(char *const *dumps, size_t n, const struct vt_report_options *opts);

/* PATHS with each directory replaced by its *.vtr files (sorted), into
 * *OUT (*NOUT; free each and the array). Returns -1 when a directory
 * cannot be listed (said on stderr; the rest is kept). */
int vt_expand_dump_paths(char *const *paths, size_t npaths, char ***out, size_t *nout);
/* The same, QUIET about a directory without dumps (one watched for them). */
int vt_find_dump_paths(char *const *paths, size_t npaths, bool quiet, char ***out, size_t *nout);

void vt_render_text(const struct vt_report *r, FILE *out);
/* The suppression file patterns that matched no leak of any dump read. */
void vt_render_unused_suppressions(const struct vt_suppressions *s, FILE *out);
void vt_render_html(const struct vt_report *r, FILE *out);
/* Writes the HTML report to PATH; -1 (one line on stderr) when it cannot. */
int vt_write_html(const struct vt_report *r, const char *path, bool force);
void vt_render_json(const struct vt_report *r, FILE *out);
struct vt_json;
/* The report's fields, into an object J has open. */
void vt_render_json_fields(const struct vt_report *r, struct vt_json *j);
/* "summary": {...}, and "unused_suppressions": [...], into an open object. */
void vt_render_json_summary(struct vt_json *j, const struct vt_summary *s);
void vt_render_json_unused_suppressions(struct vt_json *j, const struct vt_suppressions *s);

/* The sites holding the most at DEVICE's peak, most first, at most
 * r->holders_max: *OUT (free it). Returns how many. */
size_t vt_report_peak_holders(const struct vt_report *r, int64_t device, size_t **out);
/* Whose cache C is ("PyTorch's cache", "NVTX heaps") and what its parts
 * are ("tensors", "regions"). */
const char *vt_report_cache_name(const struct vt_usage_cache *c);
const char *vt_report_cache_parts(const struct vt_usage_cache *c);
/* How many sites held memory on DEVICE at its peak (all, listed or not). */
size_t vt_report_holders_at_peak(const struct vt_usage *u, int64_t device);

/* Churn: the sites with allocate/free pairs, the most pairs first (then in
 * order of appearance), at most r->holders_max: *OUT (free it). Returns how many. */
size_t vt_report_churn_sites(const struct vt_report *r, size_t **out);
/* All pairs, the time inside their sites' calls, and how many sites. */
void vt_report_churn_totals(const struct vt_report *r, uint64_t *pairs, uint64_t *call_ns,
                            size_t *sites);

/* Shared by the renderers. */
const char *vt_api_label(unsigned api);
extern const char vt_version[];

#endif
