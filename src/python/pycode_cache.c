/* SPDX-License-Identifier: MIT */
#include "pycode_cache.h"

#include "pyload.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Direct-mapped: a collision replaces the older entry. */
#define CACHE_SLOTS (1 << VT_PYCODE_SLOT_BITS)

__thread struct vt_pycode_slot *vt_pycode_slots __attribute__((tls_model("initial-exec")));
static pthread_key_t free_at_exit;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

/* At the thread's end; a later destructor that allocates finds no table. */
static void drop_slots(void *table)
{
    vt_pycode_slots = NULL;
    free(table);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&free_at_exit, drop_slots) == 0;
}

static int same_key(const struct vt_pycode_key *a, const struct vt_pycode_key *b)
{
    return a->code == b->code && a->offset == b->offset && a->name == b->name &&
           a->file == b->file && a->table == b->table && a->name_hash == b->name_hash &&
           a->file_hash == b->file_hash && a->table_len == b->table_len &&
           a->firstlineno == b->firstlineno;
}

struct vt_pyloc *vt_pycode_find(const struct vt_pycode_key *key)
{
    const struct vt_pycode_slot *table = vt_pycode_slots;
    if (!table)
        return NULL;
    const struct vt_pycode_slot *s = &table[vt_pycode_slot_of(key->code, key->offset)];
    return s->loc && same_key(&s->key, key) ? s->loc : NULL;
}

void vt_pycode_live_key(const char *code, long offset, struct vt_pycode_key *key)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *name = vt_load_ptr(code, vt_py.code_function);
    const char *file = vt_load_ptr(code, L->code_filename);
    const char *table = vt_load_ptr(code, L->code_linetable);
    key->code = (uintptr_t)code;
    key->offset = offset;
    key->name = (uintptr_t)name;
    key->file = (uintptr_t)file;
    key->table = (uintptr_t)table;
    key->name_hash = vt_load_long(name, L->str_hash);
    key->file_hash = vt_load_long(file, L->str_hash);
    key->table_len = vt_load_long(table, L->bytes_size);
    key->firstlineno = vt_load_int(code, L->code_firstlineno);
}

int vt_pycode_find_live(const char *const *code, const long *offset, int n, struct vt_pyloc **loc)
{
    int missed = 0;
    struct vt_pycode_fields at;
    const struct vt_pycode_slot *table = vt_pycode_slots;
    if (!table) {
        memset(loc, 0, (size_t)n * sizeof *loc);
        return n;
    }
    vt_pycode_fields_of(&at);
    for (int i = 0; i < n; i++) {
        const struct vt_pycode_slot *s = vt_pycode_hit(table, code[i], offset[i], &at);
        loc[i] = s ? s->loc : NULL;
        missed += !s;
    }
    return missed;
}

/* This thread's table, made on first use and freed when the thread ends. */
static struct vt_pycode_slot *own_slots(void)
{
    if (vt_pycode_slots)
        return vt_pycode_slots;
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    struct vt_pycode_slot *made = calloc(CACHE_SLOTS, sizeof *made);
    if (made && pthread_setspecific(free_at_exit, made) != 0) {
        free(made);
        made = NULL;
    }
    return vt_pycode_slots = made;
}

void vt_pycode_remember(const struct vt_pycode_key *key, struct vt_pyloc *loc)
{
    struct vt_pycode_slot *table = own_slots();
    if (!table)
        return;
    struct vt_pycode_slot *s = &table[vt_pycode_slot_of(key->code, key->offset)];
    s->key = *key;
    s->loc = loc;
    s->checked = 0;
}
