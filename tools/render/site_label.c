/* SPDX-License-Identifier: MIT */
/* Labels that tell call sites apart: see site_label.h. */
#include "site_label.h"

#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cxx_names.h"
#include "xalloc.h"

const char *vt_display_path(const char *path)
{
    static char cwd[PATH_MAX];
    static size_t cwd_len;
    if (!cwd[0] && getcwd(cwd, sizeof cwd))
        cwd_len = strlen(cwd);
    if (cwd_len > 1 && !strncmp(path, cwd, cwd_len) && path[cwd_len] == '/')
        return path + cwd_len + 1;
    return path;
}

/* The frames a label can name: the program's own, then the framework's
 * call it made (the framework frame it called) as the second, to tell two
 * sites at one line apart; without frames of the program's own, those of
 * the thread it allocated for (the line that called backward()), else
 * every frame but the runtime's. */
struct own {
    const struct vt_frame *f[VT_LABEL_MAX_FRAMES + 1];
    size_t n;
    size_t call; /* f[call] is the framework's call (0: there is none) */
};

static size_t first_users_frame(const struct vt_site *s)
{
    for (size_t i = 0; i < s->nframes; i++)
        if (vt_frame_is_users(s->frames[i]))
            return i;
    return s->nframes;
}

static void own_frames(const struct vt_site *s, struct own *o)
{
    size_t first = first_users_frame(s);
    o->n = o->call = 0;
    if (first == s->nframes && s->behalf && first_users_frame(s->behalf) < s->behalf->nframes) {
        own_frames(s->behalf, o);
        return;
    }
    if (first == s->nframes) {
        for (size_t i = vt_site_first_own_frame(s); i < s->nframes && o->n < VT_LABEL_MAX_FRAMES;
             i++)
            if (!vt_frame_is_runtime(s->frames[i]))
                o->f[o->n++] = s->frames[i];
        return;
    }
    for (size_t i = first; i < s->nframes && o->n < VT_LABEL_MAX_FRAMES + (o->call > 0); i++) {
        if (!vt_frame_is_users(s->frames[i]))
            continue;
        o->f[o->n++] = s->frames[i];
        if (o->n == 1 && first > 0 && vt_frame_framework(s->frames[first - 1]))
            o->f[o->call = o->n++] = s->frames[first - 1];
    }
}

static int compare_text(const char *a, const char *b)
{
    return strcmp(a ? a : "", b ? b : "");
}

/* Frames are alike when a label would print them alike. */
static int compare_frame(const struct vt_frame *a, const struct vt_frame *b)
{
    if (a == b)
        return 0;
    int c = compare_text(a->function, b->function);
    if (!c)
        c = compare_text(a->file, b->file);
    if (!c)
        c = a->line < b->line ? -1 : a->line > b->line;
    if (!c && !a->file)
        c = compare_text(a->module, b->module);
    if (!c && !a->file)
        c = a->offset < b->offset ? -1 : a->offset > b->offset;
    return c;
}

/* Leading frames two sites share. */
static size_t common(const struct own *a, const struct own *b)
{
    size_t n = 0;
    while (n < a->n && n < b->n && !compare_frame(a->f[n], b->f[n]))
        n++;
    return n;
}

static const struct own *sorting; /* qsort has no context argument */

static int by_frames(const void *pa, const void *pb)
{
    const struct own *a = &sorting[*(const size_t *)pa], *b = &sorting[*(const size_t *)pb];
    size_t n = common(a, b);
    if (n < a->n && n < b->n)
        return compare_frame(a->f[n], b->f[n]);
    return a->n < b->n ? -1 : a->n > b->n;
}

/* A and B have the same own frames: from the outermost frame in, the first
 * where they part names each (the innermost such part, if a site parts from
 * two neighbours) where both are Python frames, lines of the framework's
 * Python code (a C++ frame there is a template wrapper, no help to read).
 * Identical stacks stay alike. */
static bool part_inside(const struct vt_site *a, const struct vt_site *b, size_t *depth_a,
                        size_t *depth_b)
{
    size_t i = 0;
    while (i < a->nframes && i < b->nframes &&
           !compare_frame(a->frames[a->nframes - 1 - i], b->frames[b->nframes - 1 - i]))
        i++;
    if (i == a->nframes || i == b->nframes || !a->frames[a->nframes - 1 - i]->python ||
        !b->frames[b->nframes - 1 - i]->python)
        return false;
    size_t ka = VT_LABEL_INNER + a->nframes - 1 - i, kb = VT_LABEL_INNER + b->nframes - 1 - i;
    /* the part nearest the allocation: the lower frame index */
    *depth_a = *depth_a >= VT_LABEL_INNER && *depth_a < ka ? *depth_a : ka;
    *depth_b = *depth_b >= VT_LABEL_INNER && *depth_b < kb ? *depth_b : kb;
    return true;
}

/* Sorted by their frames, a site shares the longest prefix with a neighbour:
 * one frame more than that tells it apart. */
void vt_label_depths(const struct vt_site *const *sites, size_t n, size_t *depths)
{
    struct own *own = vt_xcalloc(n ? n : 1, sizeof *own);
    size_t *order = vt_xcalloc(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++) {
        own_frames(sites[i], &own[i]);
        order[i] = i;
        depths[i] = 1;
    }
    sorting = own;
    qsort(order, n, sizeof *order, by_frames);
    for (size_t k = 0; k + 1 < n; k++) {
        size_t a = order[k], b = order[k + 1], shared = common(&own[a], &own[b]) + 1;
        if (shared > own[a].n && shared > own[b].n &&
            part_inside(sites[a], sites[b], &depths[a], &depths[b]))
            continue;
        if (shared > depths[a])
            depths[a] = shared < own[a].n ? shared : own[a].n ? own[a].n : 1;
        if (shared > depths[b])
            depths[b] = shared < own[b].n ? shared : own[b].n ? own[b].n : 1;
    }
    free(order);
    free(own);
}

static int location(const struct vt_frame *f, char *buf, size_t len)
{
    if (f->file)
        return snprintf(buf, len, f->python ? " (%s:%u)" : " %s:%u", vt_display_path(f->file),
                        f->line);
    if (f->module) {
        const char *slash = strrchr(f->module, '/');
        return snprintf(buf, len, f->function ? " (%s+0x%" PRIx64 ")" : " %s+0x%" PRIx64,
                        slash ? slash + 1 : f->module, f->offset);
    }
    return f->function ? 0 : snprintf(buf, len, " 0x%" PRIx64, f->address);
}

void vt_frame_call_name(const struct vt_frame *f, char *buf, size_t len)
{
    char name[VT_SHORT_NAME_MAX];
    int n = snprintf(buf, len, "%s",
                     f->function ? vt_short_name(f->function, true, name, sizeof name) : "??");
    if (n < 0 || (size_t)n >= len)
        return;
    if (f->python && f->file)
        snprintf(buf + n, len - (size_t)n, " (%s:%u)", vt_package_path(f->file), f->line);
    else if (!f->function)
        location(f, buf + n, len - (size_t)n);
}

void vt_site_label(const struct vt_site *site, size_t depth, char *buf, size_t len)
{
    struct own o;
    own_frames(site, &o);
    size_t used = 0;
    buf[0] = '\0';
    if (!o.n) {
        snprintf(buf, len, "(no stack recorded)");
        return;
    }
    for (size_t i = 0; i < o.n && i < depth && used < len; i++) {
        const struct vt_frame *f = o.f[i];
        char name[VT_SHORT_NAME_MAX];
        if (o.call && i == o.call) {
            int n = snprintf(buf + used, len - used, " via ");
            if (n < 0 || used + (size_t)n >= len)
                break;
            used += (size_t)n;
            vt_frame_call_name(f, buf + used, len - used);
            used += strlen(buf + used);
            continue;
        }
        int n = snprintf(buf + used, len - used, "%s%s", i ? " <- " : "",
                         f->function ? vt_short_name(f->function, true, name, sizeof name) : "??");
        if (n > 0 && used + (size_t)n < len)
            n += location(f, buf + used + (size_t)n, len - used - (size_t)n);
        if (n < 0)
            break;
        used += (size_t)n;
    }
    if (depth >= VT_LABEL_INNER && depth - VT_LABEL_INNER < site->nframes && used + 5 < len) {
        used += (size_t)snprintf(buf + used, len - used, " \u2026 ");
        vt_frame_call_name(site->frames[depth - VT_LABEL_INNER], buf + used, len - used);
    }
}

char **vt_site_labels(const struct vt_site *const *sites, size_t n)
{
    size_t *depths = vt_xcalloc(n ? n : 1, sizeof *depths);
    char **labels = vt_xcalloc(n ? n : 1, sizeof *labels);
    vt_label_depths(sites, n, depths);
    for (size_t i = 0; i < n; i++) {
        char label[1024];
        vt_site_label(sites[i], depths[i], label, sizeof label);
        labels[i] = vt_xstrdup(label);
    }
    free(depths);
    return labels;
}

void vt_site_labels_free(char **labels, size_t n)
{
    for (size_t i = 0; labels && i < n; i++)
        free(labels[i]);
    free(labels);
}
