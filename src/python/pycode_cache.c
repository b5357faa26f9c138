/* SPDX-License-Identifier: MIT */
#include "pycode_cache.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

/* Direct-mapped: a collision replaces the older entry. */
#define CACHE_SLOTS 1024

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

static unsigned slot_of(const struct vt_pycode_key *key)
{
    uint64_t h =
        (uint64_t)key->code * 0x9E3779B97F4A7C15u ^ (uint64_t)key->offset * 0xBF58476D1CE4E5B9u;
    return (unsigned)(h >> 32) % CACHE_SLOTS;
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
    const struct slot *s = &slots[slot_of(key)];
    return s->loc && same_key(&s->key, key) ? s->loc : NULL;
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
    struct slot *s = &table[slot_of(key)];
    s->key = *key;
    s->loc = loc;
}
