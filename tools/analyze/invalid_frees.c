/* SPDX-License-Identifier: MIT */
#include "invalid_frees.h"

#include <string.h>

#include <uthash.h>

#include "format.h"
#include "xalloc.h"

struct group_key {
    uint64_t stack_id, alloc_stack_id, first_free_stack_id;
    uint64_t api, kind; /* kind: VT_BAD_FREE_* flags */
};

struct vt_invalid_free_entry {
    struct group_key key;
    size_t index;
    UT_hash_handle hh;
};

void vt_invalid_frees_add(struct vt_invalid_frees *f, const struct vt_bad_free_event *ev)
{
    struct group_key key;
    struct vt_invalid_free_entry *e;
    memset(&key, 0, sizeof key);
    key.stack_id = ev->stack_id;
    key.alloc_stack_id = ev->alloc_stack_id;
    key.first_free_stack_id = ev->first_free_stack_id;
    key.api = ev->api;
    key.kind = ev->flags & (VT_BAD_FREE_ALLOC_KNOWN | VT_BAD_FREE_DOUBLE | VT_BAD_FREE_GRAPH_NODE);
    HASH_FIND(hh, f->table, &key, sizeof key, e);
    if (!e) {
        e = vt_xcalloc(1, sizeof *e);
        e->key = key;
        e->index = f->n;
        HASH_ADD(hh, f->table, key, sizeof e->key, e);
        f->list = vt_xgrow(f->list, f->n, sizeof *f->list);
        f->list[f->n++] = (struct vt_invalid_free){.first = *ev};
    }
    f->list[e->index].count++;
}

void vt_invalid_frees_free(struct vt_invalid_frees *f)
{
    struct vt_invalid_free_entry *e, *tmp;
    HASH_ITER(hh, f->table, e, tmp) {
        HASH_DEL(f->table, e);
        free(e);
    }
    free(f->list);
    memset(f, 0, sizeof *f);
}
