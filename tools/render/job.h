/* SPDX-License-Identifier: MIT */
/* The job that several dumps make (job.c): its ranks (processes that
 * carry a rank and made CUDA allocation calls), what all of them grow,
 * what only some grow, which rank holds more than the others at a call
 * site, and which ran out of memory first. Kept as each dump is read, so
 * the dumps need not stay in memory. Rendered by job_render.c (text,
 * JSON) and job_html.c. The rules are in docs/reports.md#jobs. */
#ifndef VT_JOB_H
#define VT_JOB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "report.h"

/* An outlier holds this much more than the median of the other ranks at a
 * site, and a quarter of that median more (noise: allocators round, a
 * batch of another length): at its peak there, else at the end. */
#define VT_JOB_OUTLIER_MIN_BYTES (1ull << 20)
#define VT_JOB_OUTLIER_SHARE 4
/* Sites that held less than this at their peak in a rank count as 0 there. */
#define VT_JOB_SITE_FLOOR (64ull << 10)

/* What a rank held at one call site (device and managed memory, over its
 * devices), by the site's label of VT_LABEL_MAX_FRAMES frames. */
struct vt_job_site {
    char *key;   /* the long label: the same site in every rank */
    char *label; /* its first frame's label (the key where two sites share it) */
    uint64_t peak_bytes, live_bytes;
    bool growing;
    int64_t bytes_per_interval;
    bool long_label; /* another site's first frame reads alike */
};

/* The per-device live bytes of a rank's device, in time bins (for charts). */
struct vt_job_series {
    uint64_t tick_ns, end_ns;
    uint64_t *bins; /* the highest live bytes in each bin */
    size_t nbins;
};

struct vt_job_process {
    char *path, *rank, *host, *boot_id;
    uint64_t pid, ppid, start_real_ns;
    int64_t device; /* its peak's device; -1: none */
    uint64_t peak_bytes, held_bytes, leaked_bytes;
    bool live_not_leaked; /* leaked_bytes are only still allocated (no ending of its own) */
    uint64_t allocations; /* successful and failed */
    bool by_marks;        /* growth judged per marker (step), else per tick */
    struct vt_job_site *sites;
    size_t nsites;
    bool oom; /* its first out-of-memory failure: */
    uint64_t oom_ns, oom_bytes;
    int64_t oom_device;
    struct vt_job_series series;
    bool is_rank;    /* set by vt_job_finish */
    bool called_out; /* what it does is said apart from the others */
};

/* A site that grows in some ranks: which (indices into the job's ranks). */
struct vt_job_growth {
    const char *key, *label;
    size_t *ranks;
    size_t nranks;
    int64_t least, most; /* bytes per interval */
};

/* A rank that held more than the others at a site: at its peak there, or
 * (AT_END) at the same peak but kept at the end. */
struct vt_job_outlier {
    size_t rank; /* index into ranks */
    const char *label;
    uint64_t bytes, median_bytes;
    bool at_end;
};

struct vt_job {
    struct vt_job_process *processes; /* in the order read */
    size_t nprocesses;
    /* set by vt_job_finish: */
    size_t *ranks; /* indices of the ranks, by rank number, host, pid */
    size_t nranks;
    size_t nhosts;
    struct vt_job_growth *growth; /* in order of the first rank's sites */
    size_t ngrowth;
    struct vt_job_outlier *outliers; /* most over the median first */
    size_t noutliers;
    size_t first_oom; /* index into ranks; nranks: none ran out */
};

/* Keeps what the job view needs of L (a read report). */
void vt_job_add(struct vt_job *job, const struct vt_loaded_report *l);
/* Decides the ranks and compares them. Returns whether there is a job:
 * two ranks at least. */
bool vt_job_finish(struct vt_job *job);
void vt_job_free(struct vt_job *job);

static inline const struct vt_job_process *vt_job_rank(const struct vt_job *job, size_t i)
{
    return &job->processes[job->ranks[i]];
}

/* "per step" where the rank's growth was judged at markers, else "per tick". */
const char *vt_job_interval(const struct vt_job_process *p);
/* What P's growing sites add per interval ("1.0 MiB per step"), or "-". */
const char *vt_job_grows(const struct vt_job_process *p, char *buf, size_t len);

/* The job view on OUT / into J's open object ("job": {...} or null). */
void vt_job_render_text(const struct vt_job *job, FILE *out);
struct vt_json;
void vt_job_render_json(const struct vt_job *job, struct vt_json *j);
/* The job's page (tools/export/job_html.c): a chart per rank on one byte
 * scale; without IS_JOB, a chart per process. -1 (said on stderr) when
 * PATH cannot be written. */
int vt_job_write_html(const struct vt_job *job, bool is_job, const char *path, bool force);

#endif
