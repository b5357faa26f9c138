#include "report.h"

#include <stdlib.h>

#include "format.h"
#include "symbolize.h"

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
    struct vt_site *sites = calloc(n ? n : 1, sizeof *sites);
    if (!sites) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return sites;
}

static void free_sites(struct vt_site *sites, size_t n)
{
    for (size_t i = 0; i < n; i++)
        vt_site_free(&sites[i]);
    free(sites);
}

static void take_out(struct vt_summary *s, const struct vt_leak *leak)
{
    if (vt_kind_counts_as_device(leak->kind)) {
        s->leaked_bytes -= leak->bytes;
        s->leaked_allocations -= leak->allocations;
    } else {
        s->host_leaked_bytes -= leak->bytes;
        s->host_leaked_allocations -= leak->allocations;
    }
    s->suppressed_bytes += leak->bytes;
    s->suppressed_allocations += leak->allocations;
}

/* Leaves out the leaks that a suppression matches, tallying them there. */
static void suppress_leaks(struct vt_analysis *a, struct vt_symbolizer *sym,
                           const struct vt_dump *dump, struct vt_suppressions *sups)
{
    size_t kept = 0;
    vt_suppressions_reset_counts(sups);
    for (size_t i = 0; i < a->nleaks; i++) {
        struct vt_site all;
        vt_site_all_frames(sym, dump, a->leaks[i].stack_id, &all);
        struct vt_suppression *match = vt_suppressions_match(sups, all.frames, all.nframes);
        vt_site_free(&all);
        if (!match) {
            a->leaks[kept++] = a->leaks[i];
            continue;
        }
        match->count += a->leaks[i].allocations;
        match->bytes += a->leaks[i].bytes;
        take_out(&a->summary, &a->leaks[i]);
    }
    a->nleaks = kept;
}

int vt_report_dump(const char *path, const struct vt_report_options *opts)
{
    struct vt_dump dump;
    struct vt_analysis analysis = {0};
    if (vt_dump_read(path, &vt_analysis_sink, &analysis, &dump) != 0) {
        vt_analysis_free(&analysis);
        vt_dump_free(&dump);
        return -1;
    }
    vt_analysis_finish(&analysis);
    struct vt_symbolizer *sym = vt_symbolizer_new(&dump);
    if (opts->suppressions)
        suppress_leaks(&analysis, sym, &dump, opts->suppressions);
    struct vt_report r = {
        .path = path, .dump = &dump, .analysis = &analysis, .top = opts->top, .sym = sym,
        .suppressions = opts->suppressions,
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
    r.leak_sites = leak_sites;
    r.failure_sites = failure_sites;
    if (opts->json)
        vt_render_json(&r, opts->out);
    else
        vt_render_text(&r, opts->out);
    fflush(opts->out);
    size_t broken = opts->limits ? vt_limits_apply(&r, opts->limits, stderr) : 0;
    free_sites(leak_sites, r.leaks_shown);
    free_sites(failure_sites, r.failures_shown);
    vt_symbolizer_free(sym);
    vt_analysis_free(&analysis);
    vt_dump_free(&dump);
    return (int)broken;
}
