/* SPDX-License-Identifier: MIT */
#include "pycode_cache.h"

#include "pyload.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Direct-mapped: a collision replaces the older entry. */
#define SLOT_BITS 10
#define CACHE_SLOTS (1 << SLOT_BITS)

struct slot {
    struct vt_pycode_key key;
    struct vt_pyloc *loc;
};

static __thread struct slot *slots __attribute__((tls_model("initial-exec")));
static pthread_key_t free_at_exit;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

/* At the thread's end; a later destructor that allocates finds no table. */
static void drop_slots(void *table)
{
    slots = NULL;
    free(table);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&free_at_exit, drop_slots) == 0;
}

/* Fibonacci hashing: the product's top bits depend on every bit below. */
static unsigned slot_of(uintptr_t code, long offset)
{
    uint64_t h = ((uint64_t)code ^ (uint64_t)offset << 40) * 0x9E3779B97F4A7C15u;
    return (unsigned)(h >> (64 - SLOT_BITS));
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
    if (!slots)
        return NULL;
    const struct slot *s = &slots[slot_of(key->code, key->offset)];
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

/* Where the fields a remembered entry is checked against lie, read from
 * the layout once for all the frames of a stack. */
struct live_fields {
    long name, file, table, firstlineno, str_hash, bytes_size;
};

/* Whether the live CODE is still the object KEY was made of: the same
 * name, file and line table objects (each checked too: one freed and
 * another made at its address), first line. */
static inline int still_same(const char *code, const struct vt_pycode_key *key,
                             const struct live_fields *at)
{
    const char *name = vt_load_ptr(code, at->name);
    if ((uintptr_t)name != key->name)
        return 0;
    const char *file = vt_load_ptr(code, at->file);
    if ((uintptr_t)file != key->file)
        return 0;
    const char *table = vt_load_ptr(code, at->table);
    return (uintptr_t)table == key->table &&
           vt_load_int(code, at->firstlineno) == key->firstlineno &&
           vt_load_long(name, at->str_hash) == key->name_hash &&
           vt_load_long(file, at->str_hash) == key->file_hash &&
           vt_load_long(table, at->bytes_size) == key->table_len;
}

/* An empty slot's code is 0, never a code object's: a slot whose code and
 * offset match holds a location. */
int vt_pycode_find_live(const char *const *code, const long *offset, int n, struct vt_pyloc **loc)
{
    int missed = 0;
    const struct vt_pylayout *L = &vt_py.layout;
    const struct live_fields at = {vt_py.code_function, L->code_filename, L->code_linetable,
                                   L->code_firstlineno, L->str_hash,      L->bytes_size};
    const struct slot *table = slots;
    if (!table) {
        memset(loc, 0, (size_t)n * sizeof *loc);
        return n;
    }
    for (int i = 0; i < n; i++) {
        const struct slot *s = &table[slot_of((uintptr_t)code[i], offset[i])];
        int hit = s->key.code == (uintptr_t)code[i] && s->key.offset == offset[i] &&
                  still_same(code[i], &s->key, &at);
        loc[i] = hit ? s->loc : NULL;
        missed += !hit;
    }
    return missed;
}

/* This thread's table, made on first use and freed when the thread ends. */
static struct slot *own_slots(void)
{
    if (slots)
        return slots;
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    struct slot *made = calloc(CACHE_SLOTS, sizeof *made);
    if (made && pthread_setspecific(free_at_exit, made) != 0) {
        free(made);
        made = NULL;
    }
    return slots = made;
}

void vt_pycode_remember(const struct vt_pycode_key *key, struct vt_pyloc *loc)
{
    struct slot *table = own_slots();
    if (!table)
        return;
    struct slot *s = &table[slot_of(key->code, key->offset)];
    s->key = *key;
    s->loc = loc;
}
