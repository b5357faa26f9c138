/* SPDX-License-Identifier: MIT */
/* `report --gen-suppressions`: a suppressions file for the leaks of the
 * dumps read, one "leak:" line per call site: the innermost named frame
 * that no other leaking site has (the first caller that differs when sites
 * allocate through one helper), anchored, after a comment naming every site
 * the line covers. A line that covers several sites (no one frame tells them
 * apart) is said on stderr. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "site_label.h"
#include "xalloc.h"

/* A leaking site, kept past its dump's symbolizer. */
struct gen_site {
    char **functions; /* its own frames' function names, innermost first (NULL: none) */
    size_t nfunctions;
    char *module; /* the innermost frame's module file name, or NULL */
    char *comment;
};

/* A line of the file and the sites it covers. */
struct gen_line {
    char *pattern;
    size_t *sites;
    size_t nsites;
};

struct gen {
    struct gen_site *sites;
    size_t nsites;
    struct gen_line *lines;
    size_t nlines;
};

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static char *describe(const struct vt_leak *leak, const struct vt_site *site)
{
    char size[32], label[1024], *text;
    vt_site_label(site, VT_LABEL_MAX_FRAMES, label, sizeof label);
    if (asprintf(&text, "# %s in %" PRIu64 " %s via %s: %s", vt_human_size(leak->bytes, size),
                 leak->allocations, leak->allocations == 1 ? "allocation" : "allocations",
                 vt_api_label(site->api), label) < 0)
        return NULL;
    return text;
}

static void keep_site(struct gen *g, const struct vt_leak *leak, const struct vt_site *site)
{
    g->sites = vt_xrealloc(g->sites, g->nsites + 1, sizeof *g->sites);
    struct gen_site *s = &g->sites[g->nsites++];
    *s = (struct gen_site){.comment = describe(leak, site)};
    s->functions = vt_xcalloc(site->nframes ? site->nframes : 1, sizeof *s->functions);
    for (size_t i = vt_site_first_own_frame(site); i < site->nframes; i++)
        if (!vt_frame_is_runtime(site->frames[i]))
            s->functions[s->nfunctions++] =
                site->frames[i]->function ? strdup(site->frames[i]->function) : NULL;
    for (size_t i = 0; i < site->nframes && !s->module; i++)
        if (site->frames[i]->module)
            s->module = strdup(base_name(site->frames[i]->module));
}

static void add_leaks(const struct vt_loaded_report *l, struct gen *g)
{
    const struct vt_analysis *a = &l->analysis;
    if (l->report.live_not_leaked)
        return; /* what a crashed or running process held is no leak */
    for (size_t i = 0; i < a->nleaks; i++) {
        struct vt_site site;
        vt_site_frames(l->sym, &l->dump, a->leaks[i].stack_id, a->leaks[i].api, &site);
        keep_site(g, &a->leaks[i], &site);
        vt_site_free(&site);
    }
}

static bool calls(const struct gen_site *s, const char *function)
{
    for (size_t i = 0; i < s->nfunctions; i++)
        if (s->functions[i] && !strcmp(s->functions[i], function))
            return true;
    return false;
}

/* Whether the sites have the same named frames (a line cannot part them). */
static bool alike(const struct gen_site *a, const struct gen_site *b)
{
    if (a->nfunctions != b->nfunctions)
        return false;
    for (size_t i = 0; i < a->nfunctions; i++)
        if (strcmp(a->functions[i] ? a->functions[i] : "", b->functions[i] ? b->functions[i] : ""))
            return false;
    return true;
}

/* The innermost function of S that no other site (with other frames) calls;
 * else its innermost function; else its module. NULL: nothing to name. */
static char *pattern_for(const struct gen *g, size_t which)
{
    const struct gen_site *s = &g->sites[which];
    const char *innermost = NULL, *own = NULL;
    for (size_t i = 0; i < s->nfunctions && !own; i++) {
        const char *f = s->functions[i];
        if (!f)
            continue;
        innermost = innermost ? innermost : f;
        bool shared = false;
        for (size_t k = 0; k < g->nsites && !shared; k++)
            shared = k != which && !alike(s, &g->sites[k]) && calls(&g->sites[k], f);
        own = shared ? NULL : f;
    }
    innermost = own ? own : innermost;
    char *pattern;
    if (innermost)
        return asprintf(&pattern, "^%s$", innermost) < 0 ? NULL : pattern;
    return s->module ? strdup(s->module) : NULL;
}

static void cover(struct gen *g, char *pattern, size_t site)
{
    struct gen_line *line = NULL;
    for (size_t i = 0; i < g->nlines && !line; i++)
        if (!strcmp(g->lines[i].pattern, pattern))
            line = &g->lines[i];
    if (line) {
        free(pattern);
    } else {
        g->lines = vt_xrealloc(g->lines, g->nlines + 1, sizeof *g->lines);
        line = &g->lines[g->nlines++];
        *line = (struct gen_line){.pattern = pattern};
    }
    line->sites = vt_xrealloc(line->sites, line->nsites + 1, sizeof *line->sites);
    line->sites[line->nsites++] = site;
}

static void print_lines(const struct gen *g, FILE *out)
{
    for (size_t i = 0; i < g->nlines; i++) {
        const struct gen_line *line = &g->lines[i];
        for (size_t k = 0; k < line->nsites; k++)
            if (g->sites[line->sites[k]].comment)
                fprintf(out, "%s\n", g->sites[line->sites[k]].comment);
        fprintf(out, "leak:%s\n", line->pattern);
        bool several = false;
        for (size_t k = 1; k < line->nsites; k++)
            several |= !alike(&g->sites[line->sites[0]], &g->sites[line->sites[k]]);
        if (several)
            fprintf(stderr,
                    "vramtrace: leak:%s covers %zu call sites that no one frame tells apart "
                    "(listed above it): edit it if only some should be suppressed\n",
                    line->pattern, line->nsites);
    }
}

static void free_gen(struct gen *g)
{
    for (size_t i = 0; i < g->nsites; i++) {
        for (size_t k = 0; k < g->sites[i].nfunctions; k++)
            free(g->sites[i].functions[k]);
        free(g->sites[i].functions);
        free(g->sites[i].module);
        free(g->sites[i].comment);
    }
    for (size_t i = 0; i < g->nlines; i++) {
        free(g->lines[i].pattern);
        free(g->lines[i].sites);
    }
    free(g->sites);
    free(g->lines);
}

int vt_gen_suppressions(char *const *dumps, size_t n, const struct vt_report_options *opts)
{
    struct gen g = {0};
    int status = 0;
    fputs("# vramtrace suppressions (vramtrace report --gen-suppressions) for the leaks of:\n",
          opts->out);
    for (size_t i = 0; i < n; i++)
        fprintf(opts->out, "#   %s\n", dumps[i]);
    for (size_t i = 0; i < n; i++) {
        struct vt_loaded_report l;
        if (vt_report_load(dumps[i], opts, &l) != 0) {
            status = -1;
            continue;
        }
        add_leaks(&l, &g);
        vt_report_unload(&l);
    }
    for (size_t i = 0; i < g.nsites; i++) {
        char *pattern = pattern_for(&g, i);
        if (pattern)
            cover(&g, pattern, i);
    }
    print_lines(&g, opts->out);
    if (!g.nlines)
        fputs("# (no leaks to suppress)\n", opts->out);
    free_gen(&g);
    fflush(opts->out);
    return status;
}
