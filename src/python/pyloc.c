/* SPDX-License-Identifier: MIT */
#include "pyloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct text {
    UT_hash_handle hh;
    char bytes[]; /* NUL-terminated, the key without the NUL */
};

struct location {
    UT_hash_handle hh;
    struct {
        const char *function, *file; /* interned: equal texts, equal pointers */
        int line;
    } key;
    struct vt_pyloc loc;
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct text *texts;
static struct location *locations;

static const char *intern_text(const char *s, size_t len)
{
    struct text *t;
    HASH_FIND(hh, texts, s, len, t);
    if (t)
        return t->bytes;
    t = malloc(sizeof *t + len + 1);
    if (!t)
        return NULL;
    memcpy(t->bytes, s, len);
    t->bytes[len] = '\0';
    HASH_ADD(hh, texts, bytes, len, t);
    return t->bytes;
}

static struct vt_pyloc *intern_locked(const char *function, size_t function_len, const char *file,
                                      size_t file_len, int line)
{
    struct location *l, probe;
    memset(&probe.key, 0, sizeof probe.key);
    probe.key.function = intern_text(function, function_len);
    probe.key.file = intern_text(file, file_len);
    probe.key.line = line;
    if (!probe.key.function || !probe.key.file)
        return NULL;
    HASH_FIND(hh, locations, &probe.key, sizeof probe.key, l);
    if (l)
        return &l->loc;
    l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    l->key = probe.key;
    l->loc.function = l->key.function;
    l->loc.file = l->key.file;
    l->loc.line = line;
    HASH_ADD(hh, locations, key, sizeof l->key, l);
    return &l->loc;
}

struct vt_pyloc *vt_pyloc_intern(const char *function, size_t function_len, const char *file,
                                 size_t file_len, int line)
{
    pthread_mutex_lock(&table_lock);
    struct vt_pyloc *loc = intern_locked(function, function_len, file, file_len, line);
    pthread_mutex_unlock(&table_lock);
    return loc;
}

void vt_pyloc_after_fork(void)
{
    pthread_mutex_init(&table_lock, NULL);
}
