/* SPDX-License-Identifier: MIT */
#include "process_metrics.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "site_label.h"
#include "xalloc.h"

static char *copy(const char *s)
{
    s = s ? s : "";
    return strcpy(vt_xcalloc(strlen(s) + 1, 1), s);
}

static const char *base(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void device_of(const struct vt_dump *d, int64_t device, struct vt_metrics_device *out)
{
    if (device < 0)
        snprintf(out->device, sizeof out->device, "unknown");
    else
        snprintf(out->device, sizeof out->device, "%" PRId64, device);
    out->uuid[0] = '\0';
    for (size_t i = 0; i < d->ndevices; i++)
        if (d->devices[i].device == device && vt_device_uuid_text(&d->devices[i], out->uuid))
            break;
}

/* "function file:line" of the site's first own frame, as every view names
 * it (site_label.c), into a new string. */
static char *site_label(const struct vt_report *r, const struct vt_usage_site *s, unsigned *api)
{
    struct vt_site site;
    char buf[1024];
    vt_site_frames(r->sym, r->dump, s->stack_id, s->api, &site);
    *api = site.api;
    vt_site_label(&site, 1, buf, sizeof buf);
    vt_site_free(&site);
    return copy(buf);
}

/* Sites of one label, API and device, being summed. */
struct site_group {
    char *key; /* the three, for the hash */
    struct vt_metrics_site site;
    UT_hash_handle hh;
};

static void add_to_group(struct site_group **groups, const struct vt_report *r,
                         const struct vt_usage_site *s)
{
    unsigned api;
    char *label = site_label(r, s, &api);
    char *key = vt_xcalloc(strlen(label) + 64, 1);
    sprintf(key, "%u %" PRId64 " %s", api, s->device, label);
    struct site_group *g;
    HASH_FIND_STR(*groups, key, g);
    if (g) {
        free(key);
        free(label);
    } else {
        g = vt_xcalloc(1, sizeof *g);
        g->key = key;
        g->site.site = label;
        g->site.api = vt_api_label(api);
        device_of(r->dump, s->device, &g->site.where);
        HASH_ADD_KEYPTR(hh, *groups, g->key, strlen(g->key), g);
    }
    g->site.live_bytes += s->live_bytes;
    g->site.growth_bytes_per_second += s->growing ? s->bytes_per_second : 0;
}

static int by_live_desc(const void *pa, const void *pb)
{
    const struct vt_metrics_site *a = pa, *b = pb;
    if (a->live_bytes != b->live_bytes)
        return a->live_bytes > b->live_bytes ? -1 : 1;
    return strcmp(a->site, b->site);
}

/* The TOP groups of the sites holding device memory now, most first. */
static void top_sites(const struct vt_report *r, size_t top, struct vt_metrics_process *p)
{
    const struct vt_usage *u = &r->analysis->usage;
    struct site_group *groups = NULL, *g, *tmp;
    for (size_t i = 0; top && i < u->nsites; i++)
        if (u->sites[i].live_bytes && vt_kind_counts_as_vram(u->sites[i].kind))
            add_to_group(&groups, r, &u->sites[i]);
    size_t n = HASH_COUNT(groups), k = 0;
    struct vt_metrics_site *all = vt_xcalloc(n, sizeof *all);
    HASH_ITER(hh, groups, g, tmp) {
        all[k++] = g->site;
        HASH_DEL(groups, g);
        free(g->key);
        free(g);
    }
    qsort(all, n, sizeof *all, by_live_desc);
    p->nsites = n < top ? n : top;
    for (size_t i = p->nsites; i < n; i++)
        free(all[i].site);
    p->sites = all;
}

void vt_metrics_from_report(const struct vt_report *r, bool running, const char *job, size_t top,
                            struct vt_metrics_process *p)
{
    const struct vt_process *proc = &r->dump->process;
    const struct vt_summary *s = &r->analysis->summary;
    const struct vt_usage *u = &r->analysis->usage;
    memset(p, 0, sizeof *p);
    p->host = copy(proc->hostname);
    p->process = copy(proc->argc ? base(proc->argv[0]) : proc->exe ? base(proc->exe) : "");
    p->rank = copy(proc->rank);
    p->job = copy(job);
    if (proc->present)
        snprintf(p->pid, sizeof p->pid, "%" PRIu64, proc->pid);
    p->running = running;
    p->counts[VT_METRICS_ALLOCATIONS] = s->allocations;
    p->counts[VT_METRICS_FREES] = s->frees;
    p->counts[VT_METRICS_FAILED_ALLOCATIONS] = s->failed_allocations;
    p->counts[VT_METRICS_INVALID_FREES] = s->invalid_frees;
    p->devices = vt_xcalloc(u->ndevices, sizeof *p->devices);
    for (size_t i = 0; i < u->ndevices; i++) {
        struct vt_metrics_device *d = &p->devices[p->ndevices++];
        device_of(r->dump, u->devices[i].device, d);
        d->live_bytes = u->devices[i].live_bytes;
        d->peak_bytes = u->devices[i].peak_bytes;
    }
    top_sites(r, top, p);
}

void vt_metrics_free(struct vt_metrics_process *p)
{
    free(p->host);
    free(p->process);
    free(p->rank);
    free(p->job);
    free(p->devices);
    for (size_t i = 0; i < p->nsites; i++)
        free(p->sites[i].site);
    free(p->sites);
    memset(p, 0, sizeof *p);
}
