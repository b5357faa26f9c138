/* SPDX-License-Identifier: MIT */
#include "shown_stacks.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

/* The table's keys are kilobytes (every frame's names and paths): hashed
 * eight bytes at a step, not uthash's default byte by byte (dump_model.h
 * has included uthash already; its macros use HASH_FUNCTION where they
 * are expanded). */
static inline unsigned shown_hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t h = 0x9E3779B97F4A7C15u ^ len, w;
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(&w, p, 8);
        h = (h ^ w) * 0xBF58476D1CE4E5B9u;
        h ^= h >> 29;
    }
    if (len) {
        w = 0;
        memcpy(&w, p, len);
        h = (h ^ w) * 0xBF58476D1CE4E5B9u;
        h ^= h >> 29;
    }
    h = (h ^ (h >> 32)) * 0x94D049BB133111EBu;
    return (unsigned)(h ^ (h >> 31));
}
#undef HASH_FUNCTION
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = shown_hash((keyptr), (keylen)))

#include "format.h"
#include "frames.h"
#include "xalloc.h"

/* The frames shown, as one string: that is what a call site is. */
struct shown {
    char *key;
    uint64_t stack_id;
    UT_hash_handle hh;
};

struct vt_shown_stacks {
    const struct vt_dump *dump;
    struct vt_symbolizer *sym;
    size_t sym_modules; /* the dump's modules when SYM was made */
    uint64_t *site_of;  /* by stack id: its site's stack (0: not looked at yet) */
    size_t nsite_of;
    struct shown *table;
};

struct vt_shown_stacks *vt_shown_stacks_new(const struct vt_dump *dump)
{
    struct vt_shown_stacks *s = vt_xcalloc(1, sizeof *s);
    s->dump = dump;
    return s;
}

void vt_shown_stacks_free(struct vt_shown_stacks *s)
{
    struct shown *e, *tmp;
    if (!s)
        return;
    HASH_ITER(hh, s->table, e, tmp) {
        HASH_DEL(s->table, e);
        free(e->key);
        free(e);
    }
    vt_symbolizer_free(s->sym);
    free(s->site_of);
    free(s);
}

struct vt_symbolizer *vt_shown_stacks_take_symbolizer(struct vt_shown_stacks *s)
{
    struct vt_symbolizer *sym = s->sym;
    if (!sym || s->sym_modules != s->dump->nmodules)
        return NULL;
    s->sym = NULL;
    return sym;
}

/* A growing string. */
struct text {
    char *p;
    size_t len, cap;
};

static void put(struct text *t, const char *s, size_t n)
{
    if (t->len + n + 1 > t->cap) {
        t->cap = 2 * (t->len + n + 1);
        t->p = vt_xrealloc(t->p, t->cap, 1);
    }
    memcpy(t->p + t->len, s, n);
    t->len += n;
    t->p[t->len] = 0;
}

static void put_str(struct text *t, const char *s)
{
    put(t, s ? s : "", s ? strlen(s) + 1 : 1); /* with its NUL: no two strings run together */
}

static void put_u64(struct text *t, uint64_t v)
{
    put(t, (const char *)&v, sizeof v);
}

/* What a report shows of one frame; an address only where it shows no name. */
static void put_frame(struct text *t, const struct vt_frame *f)
{
    put_str(t, f->function);
    put_str(t, f->file);
    put_str(t, f->module);
    put_u64(t, f->line);
    put_u64(t, (uint64_t)f->inlined << 1 | (uint64_t)f->python);
    put_u64(t, f->function ? 0 : f->module ? f->offset : f->address);
}

/* The frames STACK_ID shows, as bytes in T. */
static void shown_key(struct vt_shown_stacks *s, uint64_t stack_id, struct text *t)
{
    struct vt_site site;
    /* A symbolizer of every module read so far: a stack refers only to
     * modules recorded before it. */
    if (!s->sym || s->sym_modules != s->dump->nmodules) {
        vt_symbolizer_free(s->sym);
        s->sym = vt_symbolizer_new(s->dump);
        s->sym_modules = s->dump->nmodules;
    }
    vt_site_frames(s->sym, s->dump, stack_id, VT_API_unknown, &site);
    put_u64(t, site.dropped);
    put_u64(t, site.cut_at);
    put_u64(t, site.python_truncated);
    for (size_t i = 0; i < site.nframes; i++)
        put_frame(t, site.frames[i]);
    if (site.behalf) { /* the frames of the thread it worked for, after a mark */
        put_u64(t, UINT64_MAX - site.behalf->python_truncated);
        for (size_t i = 0; i < site.behalf->nframes; i++)
            put_frame(t, site.behalf->frames[i]);
    }
    vt_site_free(&site);
}

static uint64_t first_showing(struct vt_shown_stacks *s, uint64_t stack_id)
{
    struct text t = {0};
    struct shown *e;
    shown_key(s, stack_id, &t);
    HASH_FIND(hh, s->table, t.p, t.len, e);
    if (e) {
        free(t.p);
        return e->stack_id;
    }
    e = vt_xcalloc(1, sizeof *e);
    e->key = t.p;
    e->stack_id = stack_id;
    HASH_ADD_KEYPTR(hh, s->table, e->key, t.len, e);
    return stack_id;
}

uint64_t vt_shown_stack(void *ctx, uint64_t stack_id)
{
    struct vt_shown_stacks *s = ctx;
    if (!stack_id || !vt_dump_stack(s->dump, stack_id))
        return stack_id;
    if (stack_id >= s->dump->stack_index_len) /* ids far from 1, 2, ...: not cached */
        return first_showing(s, stack_id);
    if (stack_id >= s->nsite_of) {
        size_t n = s->nsite_of ? s->nsite_of : 1024;
        while (n <= stack_id)
            n *= 2;
        s->site_of = vt_xrealloc(s->site_of, n, sizeof *s->site_of);
        memset(s->site_of + s->nsite_of, 0, (n - s->nsite_of) * sizeof *s->site_of);
        s->nsite_of = n;
    }
    if (!s->site_of[stack_id])
        s->site_of[stack_id] = first_showing(s, stack_id);
    return s->site_of[stack_id];
}
