/* SPDX-License-Identifier: MIT */
#include "phase_names.h"

#include "records.h"

#include <sched.h>
#include <string.h>

#define SLOTS (2 * VT_PHASES_MAX) /* open addressing, at most half full */
#define ARENA (64 * 1024)
#define FNV_BASIS 2166136261u /* FNV-1a */
#define FNV_PRIME 16777619u

struct name {
    const char *text; /* NUL-terminated, in arena */
    uint32_t len, hash;
};

static struct name names[VT_PHASES_MAX + 1]; /* by id; 0 unused */
static uint32_t slots[SLOTS];                /* ids, 0 empty; published with release */
static char arena[ARENA];
static uint32_t nnames;
static size_t arena_used;
static int adding;                                          /* a spin lock around insertion only */
static unsigned written[VT_PHASES_MAX + 1], generation = 1; /* under the tracer lock */

static uint32_t hash_of(const char *s, size_t len)
{
    uint32_t h = FNV_BASIS;
    for (size_t i = 0; i < len; i++)
        h = (h ^ (unsigned char)s[i]) * FNV_PRIME;
    return h;
}

/* The id in slot I if it holds NAME; 0 when the slot is empty, -1 when it
 * holds another name. */
static inline __attribute__((always_inline)) int64_t slot_holds(size_t i, const char *s, size_t len,
                                                                uint32_t h)
{
    uint32_t id = __atomic_load_n(&slots[i], __ATOMIC_ACQUIRE);
    if (!id)
        return 0;
    const struct name *n = &names[id];
    if (n->hash != h || n->len != len)
        return -1;
    for (size_t k = 0; k < len; k++) /* names are short: no call */
        if (n->text[k] != s[k])
            return -1;
    return id;
}

/* Spin lock held: NAME's id, added where it is not there yet. */
static uint32_t add(const char *s, size_t len, uint32_t h)
{
    size_t i = h & (SLOTS - 1);
    for (int64_t found; (found = slot_holds(i, s, len, h)) != 0; i = (i + 1) & (SLOTS - 1))
        if (found > 0)
            return (uint32_t)found; /* another thread added it meanwhile */
    if (nnames == VT_PHASES_MAX || arena_used + len + 1 > ARENA)
        return 0;
    char *text = &arena[arena_used];
    memcpy(text, s, len);
    text[len] = 0;
    arena_used += len + 1;
    uint32_t id = ++nnames;
    names[id] = (struct name){text, (uint32_t)len, h};
    __atomic_store_n(&slots[i], id, __ATOMIC_RELEASE);
    return id;
}

static uint32_t add_locked(const char *name, size_t len, uint32_t h);

static inline __attribute__((always_inline)) uint32_t intern(const char *name, size_t len,
                                                             uint32_t h)
{
    for (size_t i = h & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
        int64_t found = slot_holds(i, name, len, h);
        if (found > 0)
            return (uint32_t)found;
        if (found == 0)
            break;
    }
    return add_locked(name, len, h);
}

/* NAME's id, added under the spin lock where it is not there yet. */
static uint32_t add_locked(const char *name, size_t len, uint32_t h)
{
    /* a signal handler may push while its thread adds: give up (no phase)
     * rather than wait for ever */
    for (int tries = 0; __atomic_exchange_n(&adding, 1, __ATOMIC_ACQUIRE); tries++)
        if (tries == 1000)
            return 0;
        else
            sched_yield();
    uint32_t id = add(name, len, h);
    __atomic_store_n(&adding, 0, __ATOMIC_RELEASE);
    return id;
}

uint32_t vt_phase_intern(const char *name, size_t len)
{
    if (len > VT_PHASE_NAME_MAX)
        len = VT_PHASE_NAME_MAX;
    return intern(name, len, hash_of(name, len));
}

/* Its length and hash in one pass: a range pushed costs this. */
uint32_t vt_phase_intern_string(const char *name)
{
    uint32_t h = FNV_BASIS;
    size_t len = 0;
    for (; name[len] && len < VT_PHASE_NAME_MAX; len++)
        h = (h ^ (unsigned char)name[len]) * FNV_PRIME;
    return intern(name, len, h);
}

const char *vt_phase_name(uint32_t id)
{
    return id && id <= VT_PHASES_MAX && names[id].text ? names[id].text : "";
}

int vt_phase_note(uint32_t id)
{
    if (!id || id > VT_PHASES_MAX || written[id] == generation)
        return 0;
    written[id] = generation;
    return vt_rec_phase(id, names[id].text);
}

void vt_phase_names_reset(void)
{
    adding = 0; /* a thread of the parent's may have held it: not here */
    generation++;
}
