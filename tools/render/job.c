/* SPDX-License-Identifier: MIT */
/* The job of several dumps: see job.h. */
#include "job.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "site_label.h"
#include "xalloc.h"

static char *copy_or_empty(const char *s)
{
    return vt_xstrdup(s ? s : "");
}

/* A string's entry in a look-up table: an index, or another string. */
struct text_entry {
    const char *text;
    size_t index;
    const char *other;
    bool shared;
    UT_hash_handle hh;
};

static void free_entries(struct text_entry **table)
{
    struct text_entry *e, *tmp;
    HASH_ITER(hh, *table, e, tmp) {
        HASH_DEL(*table, e);
        free(e);
    }
}

static struct text_entry *add_entry(struct text_entry **table, const char *text)
{
    struct text_entry *e = vt_xcalloc(1, sizeof *e);
    e->text = text;
    HASH_ADD_KEYPTR(hh, *table, e->text, strlen(e->text), e);
    return e;
}

/* The rank's site of KEY (INDEX: the rank's sites by key), made where it
 * is not there yet. */
static struct vt_job_site *site_of(struct vt_job_process *p, struct text_entry **index,
                                   const char *key, const char *label)
{
    struct text_entry *e;
    HASH_FIND_STR(*index, key, e);
    if (e)
        return &p->sites[e->index];
    p->sites = vt_xgrow(p->sites, p->nsites, sizeof *p->sites);
    p->sites[p->nsites] = (struct vt_job_site){.key = vt_xstrdup(key), .label = vt_xstrdup(label)};
    add_entry(index, p->sites[p->nsites].key)->index = p->nsites;
    return &p->sites[p->nsites++];
}

/* Device and managed sites that held VT_JOB_SITE_FLOOR at least, or grow:
 * labelled (symbolized here where the report did not show them). A
 * framework's segment whose tensors are traced is left out: its tensors
 * are the sites, at the same lines. */
static void add_sites(struct vt_job_process *p, const struct vt_loaded_report *l)
{
    const struct vt_usage *u = &l->analysis.usage;
    struct text_entry *index = NULL;
    for (size_t i = 0; i < u->nsites; i++) {
        const struct vt_usage_site *s = &u->sites[i];
        if (!vt_kind_counts_as_vram(s->kind) || s->holds_tensors ||
            (s->peak_live_bytes < VT_JOB_SITE_FLOOR && !s->growing))
            continue;
        struct vt_site own = {0};
        const struct vt_site *site = &l->usage_sites[i];
        if (!site->frames && l->sym) {
            vt_site_frames(l->sym, &l->dump, s->stack_id, s->api, &own);
            site = &own;
        }
        char key[1024], label[1024];
        vt_site_label(site, VT_LABEL_MAX_FRAMES, key, sizeof key);
        vt_site_label(site, 1, label, sizeof label);
        vt_site_free(&own);
        struct vt_job_site *js = site_of(p, &index, key, label);
        js->peak_bytes += s->peak_live_bytes;
        js->live_bytes += s->live_bytes;
        if (s->growing) {
            js->growing = true;
            js->bytes_per_interval += s->bytes_per_interval;
        }
    }
    free_entries(&index);
}

static void add_series(struct vt_job_process *p, const struct vt_usage *u)
{
    const struct vt_usage_device *d = vt_usage_device(u, p->device);
    if (!d)
        return;
    p->series.tick_ns = u->tick_ns;
    p->series.end_ns = u->end_ns;
    p->series.nbins = d->bin_max.n + 1; /* the bin still open at the end too */
    p->series.bins = vt_xcalloc(p->series.nbins, sizeof *p->series.bins);
    if (d->bin_max.n)
        memcpy(p->series.bins, d->bin_max.bytes, d->bin_max.n * sizeof *p->series.bins);
    p->series.bins[d->bin_max.n] = d->open_bin_max;
}

static void add_oom(struct vt_job_process *p, const struct vt_analysis *a)
{
    for (size_t i = 0; i < a->nfailures; i++) {
        const struct vt_failure *f = &a->failures[i];
        if (f->oom && (!p->oom || f->time_ns < p->oom_ns)) {
            p->oom = true;
            p->oom_ns = f->time_ns;
            p->oom_bytes = f->size;
            p->oom_device = f->device;
        }
    }
}

void vt_job_add(struct vt_job *job, const struct vt_loaded_report *l)
{
    const struct vt_process *proc = &l->dump.process;
    const struct vt_summary *s = &l->analysis.summary;
    job->processes = vt_xgrow(job->processes, job->nprocesses, sizeof *job->processes);
    struct vt_job_process *p = &job->processes[job->nprocesses++];
    *p = (struct vt_job_process){
        .path = vt_xstrdup(l->report.path),
        .rank = proc->rank && *proc->rank ? vt_xstrdup(proc->rank) : NULL,
        .host = copy_or_empty(proc->hostname),
        .boot_id = copy_or_empty(proc->boot_id),
        .pid = proc->pid,
        .ppid = proc->ppid,
        .start_real_ns = proc->start_real_ns,
        .device = s->peak_device,
        .peak_bytes = s->peak_bytes,
        .held_bytes = s->held_bytes,
        .leaked_bytes = l->report.live_not_leaked ? s->live_at_end_bytes : s->leaked_bytes,
        .live_not_leaked = l->report.live_not_leaked,
        .allocations = s->allocations + s->failed_allocations,
        .by_marks = l->analysis.usage.by_marks,
    };
    add_sites(p, l);
    add_series(p, &l->analysis.usage);
    add_oom(p, &l->analysis);
}

const char *vt_job_interval(const struct vt_job_process *p)
{
    return p->by_marks ? "per step" : "per tick";
}

const char *vt_job_grows(const struct vt_job_process *p, char *buf, size_t len)
{
    char size[32];
    int64_t per = 0;
    for (size_t i = 0; i < p->nsites; i++)
        per += p->sites[i].growing ? p->sites[i].bytes_per_interval : 0;
    if (per > 0)
        snprintf(buf, len, "%s %s", vt_human_size((uint64_t)per, size), vt_job_interval(p));
    else
        snprintf(buf, len, "-");
    return buf;
}

/* One process: the same host (and boot: pids repeat across hosts and
 * reboots) and pid. */
static bool same_process(const struct vt_job_process *p, const char *host, const char *boot_id,
                         uint64_t pid)
{
    return p->pid == pid && !strcmp(p->host, host) && !strcmp(p->boot_id, boot_id);
}

/* A process forked by a rank inherits its rank: it is part of that rank. */
static bool child_of_its_rank(const struct vt_job *job, const struct vt_job_process *p)
{
    for (size_t i = 0; i < job->nprocesses; i++) {
        const struct vt_job_process *q = &job->processes[i];
        if (q != p && q->rank && !strcmp(q->rank, p->rank) &&
            same_process(q, p->host, p->boot_id, p->ppid))
            return true;
    }
    return false;
}

static const struct vt_job *sorting; /* qsort has no context argument */

static int by_rank(const void *pa, const void *pb)
{
    const struct vt_job_process *a = &sorting->processes[*(const size_t *)pa],
                                *b = &sorting->processes[*(const size_t *)pb];
    char *ea, *eb;
    unsigned long long ra = strtoull(a->rank, &ea, 10), rb = strtoull(b->rank, &eb, 10);
    int c;
    if (!*ea && !*eb && ra != rb) /* 2 before 10 */
        return ra < rb ? -1 : 1;
    if ((c = strcmp(a->rank, b->rank)) || (c = strcmp(a->host, b->host)))
        return c;
    return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static void find_ranks(struct vt_job *job)
{
    job->ranks = vt_xcalloc(job->nprocesses, sizeof *job->ranks);
    for (size_t i = 0; i < job->nprocesses; i++) {
        struct vt_job_process *p = &job->processes[i];
        p->is_rank = p->rank && p->allocations && !child_of_its_rank(job, p);
    }
    for (size_t i = 0; i < job->nprocesses; i++)
        if (job->processes[i].is_rank)
            job->ranks[job->nranks++] = i;
    sorting = job;
    qsort(job->ranks, job->nranks, sizeof *job->ranks, by_rank);
    for (size_t i = 0; i < job->nranks; i++) {
        size_t k = 0;
        while (k < i && strcmp(vt_job_rank(job, k)->host, vt_job_rank(job, i)->host))
            k++;
        job->nhosts += k == i;
    }
}

/* Two sites that one frame names alike are named by their long labels. */
static void tell_labels_apart(struct vt_job *job)
{
    struct text_entry *labels = NULL, *e;
    for (size_t r = 0; r < job->nranks; r++)
        for (size_t i = 0; i < vt_job_rank(job, r)->nsites; i++) {
            const struct vt_job_site *s = &vt_job_rank(job, r)->sites[i];
            HASH_FIND_STR(labels, s->label, e);
            if (!e)
                add_entry(&labels, s->label)->other = s->key;
            else if (strcmp(e->other, s->key))
                e->shared = true;
        }
    for (size_t r = 0; r < job->nranks; r++)
        for (size_t i = 0; i < vt_job_rank(job, r)->nsites; i++) {
            struct vt_job_site *s = &job->processes[job->ranks[r]].sites[i];
            HASH_FIND_STR(labels, s->label, e); /* every label is in the table */
            s->long_label = e && e->shared;
        }
    free_entries(&labels);
    for (size_t r = 0; r < job->nranks; r++)
        for (size_t i = 0; i < vt_job_rank(job, r)->nsites; i++) {
            struct vt_job_site *s = &job->processes[job->ranks[r]].sites[i];
            if (s->long_label) {
                free(s->label);
                s->label = vt_xstrdup(s->key);
            }
        }
}

static struct vt_job_growth *growth_of(struct vt_job *job, const struct vt_job_site *s)
{
    for (size_t i = 0; i < job->ngrowth; i++)
        if (!strcmp(job->growth[i].key, s->key))
            return &job->growth[i];
    job->growth = vt_xgrow(job->growth, job->ngrowth, sizeof *job->growth);
    job->growth[job->ngrowth] = (struct vt_job_growth){
        s->key, s->label, vt_xcalloc(job->nranks, sizeof(size_t)), 0, INT64_MAX, INT64_MIN};
    return &job->growth[job->ngrowth++];
}

static void find_growth(struct vt_job *job)
{
    for (size_t r = 0; r < job->nranks; r++) {
        const struct vt_job_process *p = vt_job_rank(job, r);
        for (size_t i = 0; i < p->nsites; i++) {
            if (!p->sites[i].growing)
                continue;
            struct vt_job_growth *g = growth_of(job, &p->sites[i]);
            int64_t b = p->sites[i].bytes_per_interval;
            g->ranks[g->nranks++] = r;
            g->least = b < g->least ? b : g->least;
            g->most = b > g->most ? b : g->most;
        }
    }
}

/* Growth at KEY in some ranks only: said as growth, not again as more. */
static bool grows_apart(const struct vt_job *job, const char *key, size_t rank)
{
    for (size_t i = 0; i < job->ngrowth; i++) {
        const struct vt_job_growth *g = &job->growth[i];
        if (strcmp(g->key, key) || g->nranks == job->nranks)
            continue;
        for (size_t k = 0; k < g->nranks; k++)
            if (g->ranks[k] == rank)
                return true;
    }
    return false;
}

/* A site over all ranks: each one's peak bytes there and what it held
 * there at the end (0: not held). */
struct key_entry {
    const char *key, *label;
    uint64_t *peak, *end; /* per rank */
    UT_hash_handle hh;
};

static int by_value(const void *pa, const void *pb)
{
    uint64_t a = *(const uint64_t *)pa, b = *(const uint64_t *)pb;
    return a < b ? -1 : a > b;
}

/* The median of SORTED's N values without the one at index SKIP. */
static uint64_t median_without(const uint64_t *sorted, size_t n, size_t skip)
{
    size_t m = n - 1, lo = (m - 1) / 2, hi = m / 2;
    uint64_t a = sorted[lo + (lo >= skip)], b = sorted[hi + (hi >= skip)];
    return a / 2 + b / 2 + (a % 2 + b % 2) / 2;
}

/* Of N VALUES (SORTED: the same, in order), whether the one of rank R is
 * more than the median of the others by the rule of job.h; *MEDIAN. */
static bool over_median(const uint64_t *values, const uint64_t *sorted, size_t n, size_t r,
                        uint64_t *median)
{
    size_t at = 0; /* where this rank's value stands in SORTED */
    while (sorted[at] != values[r])
        at++;
    *median = median_without(sorted, n, at);
    uint64_t least = *median / VT_JOB_OUTLIER_SHARE > VT_JOB_OUTLIER_MIN_BYTES
                         ? *median / VT_JOB_OUTLIER_SHARE
                         : VT_JOB_OUTLIER_MIN_BYTES;
    return values[r] > *median && values[r] - *median >= least;
}

static uint64_t *sorted_copy(const uint64_t *values, size_t n)
{
    uint64_t *sorted = vt_xcalloc(n, sizeof *sorted);
    memcpy(sorted, values, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, by_value);
    return sorted;
}

/* Each rank over the others at E's site: at its peak there, else at the
 * end (the same peak, but kept). */
static void compare_site(struct vt_job *job, const struct key_entry *e)
{
    uint64_t *peaks = sorted_copy(e->peak, job->nranks), *ends = sorted_copy(e->end, job->nranks);
    for (size_t r = 0; r < job->nranks; r++) {
        uint64_t median;
        struct vt_job_outlier o = {r, e->label, e->peak[r], 0, false};
        if (grows_apart(job, e->key, r))
            continue;
        if (over_median(e->peak, peaks, job->nranks, r, &median))
            o.median_bytes = median;
        else if (over_median(e->end, ends, job->nranks, r, &median))
            o = (struct vt_job_outlier){r, e->label, e->end[r], median, true};
        else
            continue;
        job->outliers = vt_xgrow(job->outliers, job->noutliers, sizeof *job->outliers);
        job->outliers[job->noutliers++] = o;
    }
    free(peaks);
    free(ends);
}

static int by_excess(const void *pa, const void *pb)
{
    const struct vt_job_outlier *a = pa, *b = pb;
    uint64_t ea = a->bytes - a->median_bytes, eb = b->bytes - b->median_bytes;
    if (ea != eb)
        return ea > eb ? -1 : 1;
    if (a->rank != b->rank)
        return a->rank < b->rank ? -1 : 1;
    return strcmp(a->label, b->label);
}

static void find_outliers(struct vt_job *job)
{
    struct key_entry *keys = NULL, *e, *tmp;
    for (size_t r = 0; r < job->nranks; r++) {
        const struct vt_job_process *p = vt_job_rank(job, r);
        for (size_t i = 0; i < p->nsites; i++) {
            const struct vt_job_site *s = &p->sites[i];
            HASH_FIND_STR(keys, s->key, e);
            if (!e) {
                e = vt_xcalloc(1, sizeof *e);
                *e = (struct key_entry){.key = s->key, .label = s->label};
                e->peak = vt_xcalloc(job->nranks, sizeof *e->peak);
                e->end = vt_xcalloc(job->nranks, sizeof *e->end);
                HASH_ADD_KEYPTR(hh, keys, e->key, strlen(e->key), e);
            }
            bool counted = s->peak_bytes >= VT_JOB_SITE_FLOOR;
            e->peak[r] = counted ? s->peak_bytes : 0;
            e->end[r] = counted ? s->live_bytes : 0;
        }
    }
    HASH_ITER(hh, keys, e, tmp) {
        compare_site(job, e);
        HASH_DEL(keys, e);
        free(e->peak);
        free(e->end);
        free(e);
    }
    if (job->noutliers)
        qsort(job->outliers, job->noutliers, sizeof *job->outliers, by_excess);
}

static void find_first_oom(struct vt_job *job)
{
    job->first_oom = job->nranks;
    for (size_t r = 0; r < job->nranks; r++) {
        const struct vt_job_process *p = vt_job_rank(job, r), *first;
        if (!p->oom)
            continue;
        first = job->first_oom < job->nranks ? vt_job_rank(job, job->first_oom) : NULL;
        if (!first || p->start_real_ns + p->oom_ns < first->start_real_ns + first->oom_ns)
            job->first_oom = r;
    }
}

static void call_out(struct vt_job *job)
{
    for (size_t i = 0; i < job->ngrowth; i++)
        for (size_t k = 0; job->growth[i].nranks < job->nranks && k < job->growth[i].nranks; k++)
            job->processes[job->ranks[job->growth[i].ranks[k]]].called_out = true;
    for (size_t i = 0; i < job->noutliers; i++)
        job->processes[job->ranks[job->outliers[i].rank]].called_out = true;
    for (size_t r = 0; r < job->nranks; r++)
        if (vt_job_rank(job, r)->oom)
            job->processes[job->ranks[r]].called_out = true;
}

bool vt_job_finish(struct vt_job *job)
{
    find_ranks(job);
    if (job->nranks < 2)
        return false;
    tell_labels_apart(job);
    find_growth(job);
    find_outliers(job);
    find_first_oom(job);
    call_out(job);
    return true;
}

void vt_job_free(struct vt_job *job)
{
    for (size_t i = 0; i < job->nprocesses; i++) {
        struct vt_job_process *p = &job->processes[i];
        for (size_t k = 0; k < p->nsites; k++) {
            free(p->sites[k].key);
            free(p->sites[k].label);
        }
        free(p->sites);
        free(p->path);
        free(p->rank);
        free(p->host);
        free(p->boot_id);
        free(p->series.bins);
    }
    for (size_t i = 0; i < job->ngrowth; i++)
        free(job->growth[i].ranks);
    free(job->growth);
    free(job->outliers);
    free(job->ranks);
    free(job->processes);
    *job = (struct vt_job){0};
}
