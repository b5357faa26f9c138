/* SPDX-License-Identifier: MIT */
#include "watch_view.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "site_label.h"
#include "timeline.h"
#include "xalloc.h"

#define SPARK_WIDTH 40
#define LINE_MAX_BYTES 1024

/* Lines are built here, then cut to the terminal's width. */
struct lines {
    FILE *out;
    bool terminal;
    unsigned columns, printed;
    char buf[LINE_MAX_BYTES];
    size_t len;
};

static void add(struct lines *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(struct lines *l, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(l->buf + l->len, sizeof l->buf - l->len, fmt, ap);
    va_end(ap);
    if (n > 0)
        l->len = l->len + (size_t)n < sizeof l->buf ? l->len + (size_t)n : sizeof l->buf - 1;
}

/* Prints the line, cut to the width (counting UTF-8 characters, not bytes). */
static void end_line(struct lines *l)
{
    unsigned shown = 0;
    size_t i = 0;
    for (; i < l->len; i++) {
        if (((unsigned char)l->buf[i] & 0xc0) != 0x80 && l->columns && ++shown > l->columns)
            break;
    }
    fwrite(l->buf, 1, i, l->out);
    if (l->terminal)
        fputs("\033[K", l->out); /* clear what a longer line left there */
    fputc('\n', l->out);
    l->len = 0;
    l->printed++;
}

static const char *base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

static const char *command(const struct vt_dump *d)
{
    return d->process.argc ? base(d->process.argv[0]) : d->process.exe ? base(d->process.exe) : "?";
}

/* Since the process started, by the wall clock (its dump may be quiet). */
static uint64_t running_for(const struct vt_dump *d)
{
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    uint64_t ns = (uint64_t)now.tv_sec * 1000000000u + (uint64_t)now.tv_nsec;
    return ns > d->process.start_real_ns ? ns - d->process.start_real_ns : d->last_time_ns;
}

static const char *state(const struct vt_report *r, bool running)
{
    return running ? "running" : vt_ending_name(r->ending.reason);
}

/* Live bytes per time bin, as bars scaled to the device's peak. */
static void sparkline(struct lines *l, const struct vt_usage *u, const struct vt_usage_device *d)
{
    static const char *const bars[] = {" ", "▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"};
    size_t n = d->bin_max.n + 1, per = (n + SPARK_WIDTH - 1) / SPARK_WIDTH;
    for (size_t i = 0; i < n; i += per) {
        uint64_t high = 0;
        for (size_t k = i; k < i + per && k < n; k++) {
            struct vt_timeline_sample s = vt_timeline_sample(u, d, k);
            high = s.max_bytes > high ? s.max_bytes : high;
        }
        size_t level = d->peak_bytes ? (size_t)((high * 8 + d->peak_bytes - 1) / d->peak_bytes) : 0;
        add(l, "%s", bars[level > 8 ? 8 : level]);
    }
}

static void device_name(const struct vt_usage_device *d, char *buf)
{
    if (d->device < 0)
        snprintf(buf, 32, "unknown device");
    else
        snprintf(buf, 32, "device %" PRId64, d->device);
}

static const struct vt_usage *sorting;

static int by_live_desc(const void *pa, const void *pb)
{
    const struct vt_usage_site *a = &sorting->sites[*(const size_t *)pa];
    const struct vt_usage_site *b = &sorting->sites[*(const size_t *)pb];
    if (a->live_bytes != b->live_bytes)
        return a->live_bytes > b->live_bytes ? -1 : 1;
    return *(const size_t *)pa < *(const size_t *)pb ? -1 : 1;
}

/* The sites holding memory now, most first; returns how many (at most MAX). */
static size_t top_sites(const struct vt_usage *u, size_t *out, size_t max)
{
    size_t n = 0, *all = vt_xcalloc(u->nsites, sizeof *all);
    for (size_t i = 0; i < u->nsites; i++)
        if (u->sites[i].live_bytes)
            all[n++] = i;
    sorting = u;
    qsort(all, n, sizeof *all, by_live_desc);
    n = n < max ? n : max;
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

static void signed_size(int64_t bytes, char *buf)
{
    char h[32];
    snprintf(buf, 32, "%s%s", bytes < 0 ? "-" : "+",
             vt_human_size((uint64_t)(bytes < 0 ? -bytes : bytes), h));
}

static void sites_table(struct lines *l, const struct vt_report *r, size_t max)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t *order = vt_xcalloc(max ? max : 1, sizeof *order);
    size_t n = top_sites(u, order, max);
    /* labelled as every view labels them: apart from each other */
    struct vt_site *sites = vt_xcalloc(n, sizeof *sites);
    const struct vt_site **list = vt_xcalloc(n, sizeof *list);
    for (size_t i = 0; i < n; i++) {
        vt_site_frames(r->sym, r->dump, u->sites[order[i]].stack_id, u->sites[order[i]].api,
                       &sites[i]);
        list[i] = &sites[i];
    }
    char **labels = vt_site_labels(list, n);
    add(l, "top call sites by live bytes:");
    end_line(l);
    add(l, "  %12s  %12s  %12s  %s", "live",
        u->by_marks    ? "per marker"
        : u->by_allocs ? "per tick"
                       : "",
        "per second", "call site");
    end_line(l);
    for (size_t i = 0; i < n; i++) {
        const struct vt_usage_site *s = &u->sites[order[i]];
        char live[32], marker[32] = "", second[32] = "";
        if (u->by_marks || u->by_allocs)
            signed_size(s->bytes_per_interval, marker);
        if (vt_usage_rate_shown(s)) {
            signed_size((int64_t)s->bytes_per_second, second);
            strcat(second, "/s");
        }
        add(l, "  %12s  %12s  %12s  %s%s", vt_human_size(s->live_bytes, live), marker, second,
            labels[i], s->kind == VT_KIND_HOST ? " [host]" : "");
        end_line(l);
    }
    if (!n) {
        add(l, "  (nothing allocated now)");
        end_line(l);
    }
    vt_site_labels_free(labels, n);
    for (size_t i = 0; i < n; i++)
        vt_site_free(&sites[i]);
    free(list);
    free(sites);
    free(order);
}

void vt_watch_warm(struct vt_symbolizer *sym, const struct vt_dump *dump, const struct vt_usage *u,
                   size_t top)
{
    size_t *order = vt_xcalloc(top ? top : 1, sizeof *order);
    size_t n = top_sites(u, order, top);
    for (size_t i = 0; i < n; i++) {
        struct vt_site site;
        vt_site_frames(sym, dump, u->sites[order[i]].stack_id, u->sites[order[i]].api, &site);
        vt_site_free(&site);
    }
    free(order);
}

/* "churn 10 allocate/free pairs, 0.076 ms in those calls; most: LABEL" */
static void churn_line(struct lines *l, const struct vt_report *r)
{
    uint64_t pairs, call_ns;
    size_t nsites, *order, n = vt_report_churn_sites(r, &order);
    char time[32], label[1024];
    vt_report_churn_totals(r, &pairs, &call_ns, &nsites);
    if (pairs && n) {
        vt_site_label(&r->usage_sites[order[0]], 1, label, sizeof label);
        add(l, "churn %" PRIu64 " allocate/free pairs, %s in those calls; most: %s%s", pairs,
            vt_format_time(call_ns, time), label,
            vt_usage_churn_large(&r->analysis->usage, &r->analysis->usage.sites[order[0]])
                ? " (a pool would avoid it)"
                : "");
        end_line(l);
    }
    free(order);
}

unsigned vt_watch_view(const struct vt_report *r, const struct vt_watch_look *look, FILE *out)
{
    struct lines l = {.out = out, .terminal = look->terminal, .columns = look->columns};
    const struct vt_analysis *a = r->analysis;
    const struct vt_usage *u = &a->usage;
    const struct vt_summary *s = &a->summary;
    char t[32], live[32], peak[32], name[32];
    add(&l, "vramtrace watch  %s (pid %" PRIu64 ")  %s  %s  %s", command(r->dump),
        r->dump->process.pid, state(r, look->running),
        vt_format_time(look->running ? running_for(r->dump) : r->dump->last_time_ns, t), r->path);
    end_line(&l);
    for (size_t i = 0; i < u->ndevices; i++) {
        const struct vt_usage_device *d = &u->devices[i];
        device_name(d, name);
        add(&l, "%-14s live %10s  peak %10s  ", name, vt_human_size(d->live_bytes, live),
            vt_human_size(d->peak_bytes, peak));
        sparkline(&l, u, d);
        end_line(&l);
    }
    if (!u->ndevices) {
        add(&l, "no device memory allocated yet");
        end_line(&l);
    }
    add(&l,
        "allocations %" PRIu64 "  frees %" PRIu64 "  failed allocations %" PRIu64 "  markers %zu",
        s->allocations, s->frees, s->failed_allocations, u->nmarks);
    end_line(&l);
    churn_line(&l, r);
    /* the sites that fit: the view must not scroll, or it cannot be redrawn in place */
    size_t want = look->top ? look->top : u->nsites;
    size_t fixed = l.printed + 2, room = look->rows > fixed + 1 ? look->rows - fixed - 1 : 1;
    sites_table(&l, r, look->rows && room < want ? room : want);
    return l.printed;
}

void vt_watch_line(const struct vt_report *r, bool running, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    char t[32], where[1024];
    size_t top;
    fprintf(out, "t=%s state=%s",
            vt_format_time(running ? running_for(r->dump) : r->dump->last_time_ns, t),
            state(r, running));
    for (size_t i = 0; i < u->ndevices; i++)
        fprintf(out, " device%" PRId64 "_live=%" PRIu64 " device%" PRId64 "_peak=%" PRIu64,
                u->devices[i].device, u->devices[i].live_bytes, u->devices[i].device,
                u->devices[i].peak_bytes);
    fprintf(out, " failed=%" PRIu64, r->analysis->summary.failed_allocations);
    if (top_sites(u, &top, 1)) {
        struct vt_site site;
        vt_site_frames(r->sym, r->dump, u->sites[top].stack_id, u->sites[top].api, &site);
        vt_site_label(&site, 1, where, sizeof where);
        vt_site_free(&site);
        fprintf(out, " top_live=%" PRIu64 " top_site=\"%s\"", u->sites[top].live_bytes, where);
    }
    fputc('\n', out);
}

/* Call sites of the leaks counted as device memory (host ones are apart). */
static size_t device_leak_sites(const struct vt_analysis *a)
{
    size_t n = 0;
    for (size_t i = 0; i < a->nleaks; i++)
        n += vt_kind_counts_as_vram(a->leaks[i].kind) != 0;
    return n;
}

void vt_watch_verdict(const struct vt_report *r, FILE *out)
{
    const struct vt_summary *s = &r->analysis->summary;
    char sentence[512], bytes[32];
    size_t sites = device_leak_sites(r->analysis);
    fprintf(out, "vramtrace watch: process %" PRIu64 " ", r->dump->process.pid);
    if (vt_ending_sentence(&r->ending, sentence, sizeof sentence))
        fprintf(out, "%s", sentence);
    else
        fprintf(out, "exited");
    if (r->live_not_leaked)
        fprintf(out, "; %s live at the end", vt_human_size(s->live_at_end_bytes, bytes));
    else if (s->leaked_bytes)
        fprintf(out, "; leaked %s in %" PRIu64 " allocation%s from %zu call site%s",
                vt_human_size(s->leaked_bytes, bytes), s->leaked_allocations,
                s->leaked_allocations == 1 ? "" : "s", sites, sites == 1 ? "" : "s");
    else
        fprintf(out, "; no device memory leaked");
    if (!r->live_not_leaked && s->host_leaked_bytes)
        fprintf(out, " (and %s of page-locked host memory)",
                vt_human_size(s->host_leaked_bytes, bytes));
    fprintf(out, ": vramtrace report %s\n", r->path);
}
