#include "report.h"

#include <stdlib.h>

#include "format.h"
#include "symbolize.h"
#include "xalloc.h"

const char *vt_api_label(unsigned api)
{
    const char *name = vt_api_name(api);
    return name ? name : "unknown";
}

static size_t shown(size_t total, size_t top)
{
    return top && top < total ? top : total;
}

static struct vt_site *new_sites(size_t n)
{
    return vt_xcalloc(n, sizeof(struct vt_site));
}

static void free_sites(struct vt_site *sites, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vt_site_free(&sites[i]);
    free(sites);
}

/* Symbolizes the usage sites a report shows: the first SHOWN in ORDER, the
 * holders at each device peak and at each out-of-memory failure. */
static struct vt_site *usage_sites(struct vt_symbolizer *sym, const struct vt_dump *dump,
                                   const struct vt_analysis *a, const size_t *order,
                                   size_t shown)
{
    const struct vt_usage *u = &a->usage;
    struct vt_site *sites = new_sites(u->nsites);
    bool *wanted = vt_xcalloc(u->nsites, sizeof *wanted);
    size_t holders[VT_PEAK_HOLDERS];
    for (size_t i = 0; i < shown; i++)
        wanted[order[i]] = true;
    for (size_t d = 0; d < u->ndevices; d++) {
        size_t n = vt_usage_holders(u, u->devices[d].device, true, holders, VT_PEAK_HOLDERS);
        for (size_t i = 0; i < n; i++)
            wanted[holders[i]] = true;
    }
    for (size_t f = 0; f < a->nfailures; f++)
        for (size_t i = 0; i < a->failures[f].nholders; i++)
            wanted[a->failures[f].holders[i].site] = true;
    for (size_t i = 0; i < u->nsites; i++)
        if (wanted[i])
            vt_site_frames(sym, dump, u->sites[i].stack_id, u->sites[i].api, &sites[i]);
        else
            sites[i].api = u->sites[i].api;
    free(wanted);
    return sites;
}

int vt_report_dump(const char *path, const struct vt_report_options *opts, bool *device_leak)
{
    struct vt_dump dump;
    struct vt_analysis analysis = {.skip = opts->skip};
    if (vt_dump_read(path, &vt_analysis_sink, &analysis, &dump) != 0) {
        vt_analysis_free(&analysis);
        vt_dump_free(&dump);
        return -1;
    }
    vt_analysis_finish(&analysis);
    struct vt_symbolizer *sym = vt_symbolizer_new(&dump);
    struct vt_report r = {
        .path = path, .dump = &dump, .analysis = &analysis, .top = opts->top,
        .leaks_shown = shown(analysis.nleaks, opts->top),
        .failures_shown = shown(analysis.nfailures, opts->top),
    };
    struct vt_site *leak_sites = new_sites(r.leaks_shown);
    struct vt_site *failure_sites = new_sites(r.failures_shown);
    for (size_t i = 0; i < r.leaks_shown; i++)
        vt_site_frames(sym, &dump, analysis.leaks[i].stack_id, analysis.leaks[i].api,
                       &leak_sites[i]);
    for (size_t i = 0; i < r.failures_shown; i++)
        vt_site_frames(sym, &dump, analysis.failures[i].stack_id, analysis.failures[i].api,
                       &failure_sites[i]);
    size_t *order = vt_xcalloc(analysis.usage.nsites, sizeof *order);
    vt_usage_report_order(&analysis.usage, order);
    r.site_order = order;
    r.sites_shown = shown(analysis.usage.nsites, opts->top);
    struct vt_site *all_sites = usage_sites(sym, &dump, &analysis, order, r.sites_shown);
    r.usage_sites = all_sites;
    r.leak_sites = leak_sites;
    r.failure_sites = failure_sites;
    if (opts->json)
        vt_render_json(&r, opts->out);
    else
        vt_render_text(&r, opts->out);
    fflush(opts->out);
    *device_leak = analysis.summary.leaked_allocations > 0;
    free_sites(leak_sites, r.leaks_shown);
    free_sites(failure_sites, r.failures_shown);
    free_sites(all_sites, analysis.usage.nsites);
    free(order);
    vt_symbolizer_free(sym);
    vt_analysis_free(&analysis);
    vt_dump_free(&dump);
    return 0;
}
