#include "pycode_cache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* Keys are two words: mixed by multiplies, not uthash's byte-wise default. */
static inline unsigned location_hash(const void *key)
{
    uint64_t w[2];
    memcpy(w, key, sizeof w);
    uint64_t h = (w[0] * 0x9E3779B97F4A7C15u) ^ (w[1] * 0xBF58476D1CE4E5B9u);
    return (unsigned)(h ^ (h >> 29));
}
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = location_hash(keyptr))
#include <uthash.h>

struct location {
    struct {
        uintptr_t code, lasti;
    } key;
    struct vt_pyframe frame;
    UT_hash_handle hh;
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct location *locations;

int vt_pycode_cache_take(void)
{
    return pthread_mutex_trylock(&cache_lock) == 0;
}

void vt_pycode_cache_give(void)
{
    pthread_mutex_unlock(&cache_lock);
}

void vt_pycode_cache_after_fork(void)
{
    pthread_mutex_init(&cache_lock, NULL);
}

int vt_pycode_find(const void *code, int lasti, struct vt_pyframe *out)
{
    struct location *found;
    __typeof__(found->key) key = {(uintptr_t)code, (uintptr_t)lasti};
    HASH_FIND(hh, locations, &key, sizeof key, found);
    if (found)
        *out = found->frame;
    return found != NULL;
}

int vt_pycode_remember(const void *code, int lasti, const struct vt_pyframe *frame)
{
    struct location *entry = calloc(1, sizeof *entry);
    if (!entry)
        return -1;
    entry->key.code = (uintptr_t)code;
    entry->key.lasti = (uintptr_t)lasti;
    entry->frame = *frame;
    entry->frame.pinned = 1;
    HASH_ADD(hh, locations, key, sizeof entry->key, entry);
    return 0;
}
