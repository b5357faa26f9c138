/* SPDX-License-Identifier: MIT */
#include "leak_limits.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_usage.h"
#include "report.h"
#include "site_label.h"
#include "size_arg.h"
#include "xalloc.h"

static int set_limit(bool *has, uint64_t *max, const char *arg, const char *cmd, const char *name,
                     struct vt_check_options *o)
{
    if (vt_parse_size(arg, max) != 0) {
        fprintf(stderr,
                "vramtrace %s: %s needs a size such as 1048576, 512KiB or 1.5 MiB, "
                "not '%s'\n",
                cmd, name, arg);
        return VT_EXIT_USAGE;
    }
    *has = true;
    o->limits_given = true;
    return 0;
}

static void add_file(const char ***files, size_t *n, const char *path)
{
    *files = realloc(*files, (*n + 1) * sizeof **files);
    if (!*files) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(VT_EXIT_ERROR);
    }
    (*files)[(*n)++] = path;
}

/* A count option: a non-negative number no larger than MAX. */
static int set_count(const char *arg, long max, const char *cmd, const char *name, long *out)
{
    long v = vt_parse_count(arg);
    if (v < 0 || v > max) {
        fprintf(stderr, "vramtrace %s: %s needs a number from 0 to %ld, not '%s'\n", cmd, name, max,
                arg);
        return VT_EXIT_USAGE;
    }
    *out = v;
    return 0;
}

int vt_check_option(struct vt_check_options *o, int c, const char *arg, const char *cmd)
{
    struct vt_limits *l = &o->limits;
    long v;
    int bad;
    switch (c) {
    case VT_OPT_MAX_INVALID_FREES:
        if ((bad = set_count(arg, LONG_MAX, cmd, "--max-invalid-frees", &v)))
            return bad;
        l->has_invalid = true;
        l->max_invalid = (uint64_t)v;
        return 0;
    case VT_OPT_ERROR_EXITCODE:
        if ((bad = set_count(arg, 255, cmd, "--error-exitcode", &v)))
            return bad;
        if (v == 0) {
            fprintf(stderr, "vramtrace %s: --error-exitcode 0 would let a broken limit pass\n",
                    cmd);
            return VT_EXIT_USAGE;
        }
        o->error_exitcode = (int)v;
        return 0;
    case VT_OPT_SKIP:
        if ((bad = set_count(arg, LONG_MAX, cmd, "--skip", &v)))
            return bad;
        o->skip = (size_t)v;
        return 0;
    case VT_OPT_MAX_LEAKED:
        return set_limit(&l->has_leaked, &l->max_leaked, arg, cmd, "--max-leaked", o);
    case VT_OPT_MAX_PER_SITE:
        return set_limit(&l->has_per_site, &l->max_per_site, arg, cmd, "--max-leaked-per-site", o);
    case VT_OPT_MAX_GROWTH:
        return set_limit(&l->has_growth, &l->max_growth, arg, cmd, "--max-growth", o);
    case VT_OPT_MAX_HELD:
        return set_limit(&l->has_held, &l->max_held, arg, cmd, "--max-held", o);
    case VT_OPT_SUPPRESSIONS:
        add_file(&o->suppression_files, &o->nfiles, arg);
        return 0;
    case VT_OPT_NO_DEFAULT_SUPPRESSIONS:
        o->no_default_suppressions = true;
        return 0;
    case VT_OPT_KNOWN:
        add_file(&o->known_files, &o->nknown_files, arg);
        return 0;
    case VT_OPT_NO_DEFAULT_KNOWN:
        o->no_default_known = true;
        return 0;
    }
    return -1;
}

static int load_known(struct vt_check_options *o)
{
    const char *env = getenv(VT_KNOWN_ENV);
    if (!o->no_default_known)
        vt_known_add_defaults(&o->known);
    if (env && *env && vt_known_load(&o->known, env) != 0)
        return VT_EXIT_ERROR;
    for (size_t i = 0; i < o->nknown_files; i++)
        if (vt_known_load(&o->known, o->known_files[i]) != 0)
            return VT_EXIT_ERROR;
    return 0;
}

int vt_check_options_load(struct vt_check_options *o)
{
    const char *env = getenv(VT_SUPPRESSIONS_ENV);
    if (!o->no_default_suppressions)
        vt_suppressions_add_defaults(&o->suppressions);
    if (env && *env && vt_suppressions_load(&o->suppressions, env) != 0)
        return VT_EXIT_ERROR;
    for (size_t i = 0; i < o->nfiles; i++)
        if (vt_suppressions_load(&o->suppressions, o->suppression_files[i]) != 0)
            return VT_EXIT_ERROR;
    return load_known(o);
}

struct vt_limits vt_check_effective_limits(const struct vt_check_options *o)
{
    struct vt_limits l = o->limits;
    if (!o->limits_given) {
        l.has_leaked = true, l.max_leaked = 0;
        l.has_growth = l.growth_implied = true, l.max_growth = 0;
    }
    if (!l.has_invalid)
        l.has_invalid = true, l.max_invalid = 0;
    return l;
}

int vt_check_leak_status(const struct vt_check_options *o)
{
    return o->error_exitcode ? o->error_exitcode : VT_DEFAULT_LEAK_STATUS;
}

void vt_check_options_free(struct vt_check_options *o)
{
    vt_suppressions_free(&o->suppressions);
    free(o->suppression_files);
    o->suppression_files = NULL;
    o->nfiles = 0;
    vt_suppressions_free(&o->known);
    free(o->known_files);
    o->known_files = NULL;
    o->nknown_files = 0;
}

static void print_over(FILE *out, const char *path, uint64_t bytes, const char *what,
                       const char *option, uint64_t limit)
{
    char size[32], max[32];
    fprintf(out, "vramtrace: %s: %" PRIu64 " bytes (%s) %s, over %s %" PRIu64 " (%s)", path, bytes,
            vt_human_size(bytes, size), what, option, limit, vt_human_size(limit, max));
}

/* The leaks over LIMIT at one site, each named by its label (told apart
 * from the other sites over it): "...: scratch_buffer x.c:41 <- prepare_batch
 * x.c:47 via cudaMalloc". */
static size_t check_sites(const struct vt_report *r, uint64_t limit, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    size_t *over = vt_xcalloc(a->nleaks, sizeof *over), n = 0;
    for (size_t i = 0; i < a->nleaks; i++)
        if (vt_kind_counts_as_vram(a->leaks[i].kind) && a->leaks[i].bytes > limit)
            over[n++] = i;
    struct vt_site *sites = vt_xcalloc(n, sizeof *sites);
    const struct vt_site **list = vt_xcalloc(n, sizeof *list);
    for (size_t k = 0; k < n; k++) {
        vt_site_frames(r->sym, r->dump, a->leaks[over[k]].stack_id, a->leaks[over[k]].api,
                       &sites[k]);
        list[k] = &sites[k];
    }
    char **labels = vt_site_labels(list, n);
    for (size_t k = 0; k < n; k++) {
        print_over(out, r->path, a->leaks[over[k]].bytes, "leaked at one call site",
                   "--max-leaked-per-site", limit);
        fprintf(out, ": %s via %s\n", labels[k], vt_api_label(sites[k].api));
        vt_site_free(&sites[k]);
    }
    vt_site_labels_free(labels, n);
    free(list);
    free(sites);
    free(over);
    return n;
}

/* Whether usage site I counts for --max-growth: growing device or managed
 * memory that no suppression matches. */
static bool held_to_growth(const struct vt_report *r, size_t i)
{
    const struct vt_usage_site *s = &r->analysis->usage.sites[i];
    return s->growing && vt_kind_counts_as_vram(s->kind) && !r->site_known[i].suppressed;
}

/* What the growing sites held to it rose by, and how many they are. */
static uint64_t growth_of_sites(const struct vt_report *r, size_t *sites)
{
    uint64_t sum = 0;
    *sites = 0;
    for (size_t i = 0; i < r->analysis->usage.nsites; i++)
        if (held_to_growth(r, i)) {
            sum += r->analysis->usage.sites[i].growth_bytes;
            ++*sites;
        }
    return sum;
}

/* Where the growth is most from: ": mostly at LABEL via API (N bytes)". */
static void print_growth_site(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    const struct vt_usage_site *most = NULL;
    for (size_t i = 0; i < u->nsites; i++) {
        const struct vt_usage_site *s = &u->sites[i];
        if (held_to_growth(r, i) && (!most || s->growth_bytes > most->growth_bytes))
            most = s;
    }
    if (most) {
        struct vt_site site;
        char label[1024], size[32];
        vt_site_frames(r->sym, r->dump, most->stack_id, most->api, &site);
        vt_site_label(&site, 1, label, sizeof label);
        fprintf(out, ": mostly at %s via %s (%s)", label, vt_api_label(site.api),
                vt_human_size(most->growth_bytes, size));
        vt_site_free(&site);
    }
    fputc('\n', out);
}

/* What --max-growth measures: the growing sites' rise by the growth rule
 * (growth_rule.h), as the report judges it, but for those a suppression
 * matches; where growth is not judged on the program's steps (markers or
 * allocation ticks: time ticks, or fewer than 3 markers after --skip), the
 * leaked bytes. */
static uint64_t growth_measure(const struct vt_report *r, char *buf, size_t size)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t growing;
    uint64_t growth = growth_of_sites(r, &growing);
    if (u->by_allocs) {
        snprintf(buf, size,
                 "of growth at %zu growing call %s (judged on %zu ticks of %llu repeated %s "
                 "each, no markers)",
                 growing, growing == 1 ? "site" : "sites", vt_usage_boundaries(u),
                 (unsigned long long)u->tick_allocs,
                 u->tick_allocs == 1 ? "allocation" : "allocations");
        return growth;
    }
    if (!u->by_marks) {
        snprintf(buf, size, "of growth (leaked; no markers)");
        return r->analysis->summary.leaked_bytes;
    }
    if (!vt_usage_growth_judged(u)) {
        snprintf(buf, size, "of growth (leaked; fewer than 3 markers%s)",
                 u->skip ? " after --skip" : "");
        return r->analysis->summary.leaked_bytes;
    }
    snprintf(buf, size, "of growth at %zu growing call %s (judged on %zu markers, %zu skipped)",
             growing, growing == 1 ? "site" : "sites", vt_usage_boundaries(u), u->skip);
    return growth;
}

/* The growth limit; the default one holds only growth judged on the
 * program's steps (the default --max-leaked 0 covers the rest). */
static bool check_growth(const struct vt_report *r, const struct vt_limits *limits, FILE *out)
{
    char from[192];
    if (!limits->has_growth ||
        (limits->growth_implied && !vt_usage_growth_reliable(&r->analysis->usage)))
        return false;
    uint64_t growth = growth_measure(r, from, sizeof from);
    if (growth <= limits->max_growth)
        return false;
    print_over(out, r->path, growth, from, "--max-growth", limits->max_growth);
    print_growth_site(r, out);
    return true;
}

size_t vt_limits_apply(const struct vt_report *r, const struct vt_limits *limits, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    size_t broken = 0;
    if (limits->has_leaked && a->summary.leaked_bytes > limits->max_leaked) {
        print_over(out, r->path, a->summary.leaked_bytes, "leaked", "--max-leaked",
                   limits->max_leaked);
        fputc('\n', out);
        broken++;
    }
    if (limits->has_per_site)
        broken += check_sites(r, limits->max_per_site, out);
    broken += check_growth(r, limits, out);
    if (limits->has_held && a->summary.held_bytes > limits->max_held) {
        print_over(out, r->path, a->summary.held_bytes,
                   "held when the script ended (freed by the interpreter's shutdown)", "--max-held",
                   limits->max_held);
        fputc('\n', out);
        broken++;
    }
    return broken;
}

size_t vt_limits_apply_invalid_frees(const struct vt_report *r, const struct vt_limits *limits,
                                     FILE *out)
{
    uint64_t n = r->analysis->summary.invalid_frees;
    if (!limits->has_invalid || n <= limits->max_invalid)
        return 0;
    fprintf(out,
            "vramtrace: %s: %" PRIu64 " invalid %s (refused by the driver), over "
            "--max-invalid-frees %" PRIu64 "\n",
            r->path, n, n == 1 ? "free" : "frees", limits->max_invalid);
    return 1;
}
