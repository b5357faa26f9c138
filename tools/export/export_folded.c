/* SPDX-License-Identifier: MIT */
/* Folded stacks (Brendan Gregg's format, read by flamegraph.pl, inferno
 * and speedscope): "root;...;leaf BYTES", one line per distinct stack, the
 * API the program called as the leaf. With a base dump, the differential
 * form "root;...;leaf BASE_BYTES BYTES" (difffolded.pl, inferno-diff-folded).
 * Stacks are matched by their symbolized names, never by address, so two
 * runs compare. Page-locked host memory is left out: it is not VRAM. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "format.h"
#include "xalloc.h"

struct folded_line {
    char *stack;
    uint64_t value, base;
};

struct folded {
    struct folded_line *lines;
    size_t n;
};

/* ';' separates frames and a newline ends the line: neither may be in a name. */
static void put_name(const char *s, FILE *out)
{
    for (; *s; s++)
        fputc(*s == ';' || *s == '\n' || *s == '\r' ? '_' : *s, out);
}

static const char *base_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

static void put_frame(const struct vt_frame *f, FILE *out)
{
    char buf[64];
    if (f->python) { /* py-spy's style: the line tells loop bodies apart */
        put_name(f->function ? f->function : "??", out);
        snprintf(buf, sizeof buf, ":%u)", f->line);
        fputs(" (", out);
        put_name(f->file ? base_name(f->file) : "??", out);
        fputs(buf, out);
    } else if (f->function) {
        put_name(f->function, out);
    } else if (f->module) {
        put_name(base_name(f->module), out);
        fprintf(out, "+0x%" PRIx64, f->offset);
    } else {
        fprintf(out, "0x%" PRIx64, f->address);
    }
}

static char *stack_string(const struct vt_site *site)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *out = open_memstream(&buf, &len);
    if (!out) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    if (site->behalf) { /* the thread it allocated for (backward()'s caller) as its root */
        for (size_t i = site->behalf->nframes; i-- > 0;) {
            put_frame(site->behalf->frames[i], out);
            fputc(';', out);
        }
        fputs(VT_BEHALF_MARKER ";", out);
    }
    if (site->nframes == 0)
        fputs("[no stack];", out);
    for (size_t i = site->nframes; i-- > 0;) {
        put_frame(site->frames[i], out);
        fputc(';', out);
        if (site->dropped && i == site->cut_at)
            fputs("[frames dropped];", out);
    }
    put_name(vt_api_label(site->api), out);
    fclose(out);
    return buf;
}

static void add_sites(struct folded *f, const struct vt_export *e, enum vt_export_what what,
                      bool base)
{
    for (size_t i = 0; i < e->nsites; i++) {
        const struct vt_export_site *s = &e->sites[i];
        uint64_t v = vt_export_value(s, what);
        if (!vt_kind_counts_as_vram(s->usage->kind) || !v)
            continue;
        f->lines = vt_xrealloc(f->lines, f->n + 1, sizeof *f->lines);
        f->lines[f->n++] = (struct folded_line){stack_string(s->site), base ? 0 : v, base ? v : 0};
    }
}

static int by_stack(const void *pa, const void *pb)
{
    return strcmp(((const struct folded_line *)pa)->stack, ((const struct folded_line *)pb)->stack);
}

/* Sorted, with the values of equal stacks (other devices, other dumps) added up. */
static void merge_equal(struct folded *f)
{
    size_t out = 0;
    if (f->n)
        qsort(f->lines, f->n, sizeof *f->lines, by_stack);
    for (size_t i = 0; i < f->n; i++) {
        if (out && !strcmp(f->lines[out - 1].stack, f->lines[i].stack)) {
            f->lines[out - 1].value += f->lines[i].value;
            f->lines[out - 1].base += f->lines[i].base;
            free(f->lines[i].stack);
        } else {
            f->lines[out++] = f->lines[i];
        }
    }
    f->n = out;
}

void vt_export_folded(const struct vt_export *e, const struct vt_export *base,
                      enum vt_export_what what, FILE *out)
{
    struct folded f = {0};
    add_sites(&f, e, what, false);
    if (base)
        add_sites(&f, base, what, true);
    merge_equal(&f);
    for (size_t i = 0; i < f.n; i++) {
        fputs(f.lines[i].stack, out);
        if (base)
            fprintf(out, " %" PRIu64, f.lines[i].base);
        fprintf(out, " %" PRIu64 "\n", f.lines[i].value);
        free(f.lines[i].stack);
    }
    free(f.lines);
}
