/* SPDX-License-Identifier: MIT */
/* `report --gen-suppressions`: a suppressions file for the leaks of the
 * dumps read, one "leak:" line per call site (its innermost named frame,
 * anchored), each after a comment saying what it suppresses. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "report.h"
#include "xalloc.h"

struct patterns {
    char **list;
    size_t n;
};

static bool seen(const struct patterns *p, const char *pattern)
{
    for (size_t i = 0; i < p->n; i++)
        if (!strcmp(p->list[i], pattern))
            return true;
    return false;
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* "^function$" of the innermost frame with a name, else its module's
 * file name; NULL when the stack names nothing. */
static char *pattern_for(const struct vt_site *site)
{
    char *pattern = NULL;
    for (size_t i = 0; i < site->nframes; i++)
        if (site->frames[i]->function) {
            if (asprintf(&pattern, "^%s$", site->frames[i]->function) < 0)
                pattern = NULL;
            return pattern;
        }
    for (size_t i = 0; i < site->nframes; i++)
        if (site->frames[i]->module)
            return strdup(base_name(site->frames[i]->module));
    return NULL;
}

static void describe(const struct vt_leak *leak, const struct vt_site *site, FILE *out)
{
    char size[32];
    fprintf(out, "# %s in %" PRIu64 " %s via %s:", vt_human_size(leak->bytes, size),
            leak->allocations, leak->allocations == 1 ? "allocation" : "allocations",
            vt_api_label(site->api));
    for (size_t i = 0; i < site->nframes && i < 4; i++) {
        const struct vt_frame *f = site->frames[i];
        fprintf(out, "%s %s", i ? " <-" : "", f->function ? f->function : "??");
        if (i == 0 && f->file)
            fprintf(out, " %s:%u", f->file, f->line);
    }
    fputc('\n', out);
}

static void add_leaks(const struct vt_loaded_report *l, struct patterns *p, FILE *out)
{
    const struct vt_analysis *a = &l->analysis;
    if (l->report.live_not_leaked)
        return; /* what a crashed or running process held is no leak */
    for (size_t i = 0; i < a->nleaks; i++) {
        struct vt_site site;
        vt_site_frames(l->sym, &l->dump, a->leaks[i].stack_id, a->leaks[i].api, &site);
        char *pattern = pattern_for(&site);
        if (pattern && !seen(p, pattern)) {
            describe(&a->leaks[i], &site, out);
            fprintf(out, "leak:%s\n", pattern);
            p->list = vt_xrealloc(p->list, p->n + 1, sizeof *p->list);
            p->list[p->n++] = pattern;
        } else {
            free(pattern);
        }
        vt_site_free(&site);
    }
}

int vt_gen_suppressions(char *const *dumps, size_t n, const struct vt_report_options *opts)
{
    struct patterns p = {0};
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
        add_leaks(&l, &p, opts->out);
        vt_report_unload(&l);
    }
    if (!p.n)
        fputs("# (no leaks to suppress)\n", opts->out);
    for (size_t i = 0; i < p.n; i++)
        free(p.list[i]);
    free(p.list);
    fflush(opts->out);
    return status;
}
