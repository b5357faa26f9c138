/* SPDX-License-Identifier: MIT */
#include "modules.h"

#include "records.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

#define BUILD_ID_KEPT 64 /* as much of a build id as the MODULE record holds */

struct written_module {
    uint64_t start; /* key: where it is mapped */
    uint64_t end;
    uint32_t id;
    int seen; /* still loaded, as of the sync in progress */
    char *path;
    size_t build_id_len;
    uint8_t build_id[BUILD_ID_KEPT];
    UT_hash_handle hh;
};

static struct {
    struct written_module *table;
    uint32_t next_id;
    unsigned long long adds_seen;
    unsigned unloads_seen; /* vt_modules_note_unload() calls synced */
    int failed;
} modules;

static unsigned unloads;    /* dlclose calls: an object may be gone */
static unsigned generation; /* syncs that found the objects changed */

static size_t build_id_of(const struct dl_phdr_info *info, const uint8_t **out)
{
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        const uint8_t *p, *end;
        if (ph->p_type != PT_NOTE)
            continue;
        p = (const uint8_t *)(info->dlpi_addr + ph->p_vaddr);
        end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *note = (const ElfW(Nhdr) *)p;
            size_t name_len = (note->n_namesz + 3) & ~3u, desc_len = (note->n_descsz + 3) & ~3u;
            const uint8_t *name = p + sizeof *note, *desc = name + name_len;
            if (desc + note->n_descsz > end)
                break;
            if (note->n_type == NT_GNU_BUILD_ID && note->n_namesz == 4 &&
                memcmp(name, "GNU", 4) == 0) {
                *out = desc;
                return note->n_descsz;
            }
            p = desc + desc_len;
        }
    }
    return 0;
}

static void extent_of(const struct dl_phdr_info *info, uint64_t *start, uint64_t *end)
{
    *start = UINT64_MAX;
    *end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uint64_t lo = info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;
        if (lo < *start)
            *start = lo;
        if (hi > *end)
            *end = hi;
    }
}

static int write_module(const struct dl_phdr_info *info, uint64_t start, uint64_t end)
{
    static char exe[4096];
    const char *path = info->dlpi_name;
    const uint8_t *build_id = NULL;
    struct written_module *m;
    if (!path || !*path) {
        ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
        exe[n > 0 ? n : 0] = '\0';
        path = exe;
    }
    m = calloc(1, sizeof *m);
    if (!m)
        return -1;
    m->start = start;
    m->end = end;
    m->id = ++modules.next_id;
    m->seen = 1;
    m->path = strdup(path);
    m->build_id_len = build_id_of(info, &build_id);
    if (m->build_id_len > BUILD_ID_KEPT)
        m->build_id_len = BUILD_ID_KEPT;
    memcpy(m->build_id, build_id, m->build_id_len);
    HASH_ADD(hh, modules.table, start, sizeof m->start, m);
    struct vt_module_info rec = {
        .id = m->id,
        .bias = info->dlpi_addr,
        .start = start,
        .end = end,
        .path = path,
        .build_id = m->build_id,
        .build_id_len = m->build_id_len,
    };
    return vt_rec_module(&rec);
}

/* The object at the start of M is the one written: the same file (path
 * and build id; a reload of the same file symbolizes the same). */
static int same_object(const struct written_module *m, const struct dl_phdr_info *info)
{
    const uint8_t *build_id = NULL;
    size_t len = build_id_of(info, &build_id);
    const char *path = info->dlpi_name && *info->dlpi_name ? info->dlpi_name : m->path;
    if (len > BUILD_ID_KEPT)
        len = BUILD_ID_KEPT;
    /* no build id: BUILD_ID is NULL, which memcmp may not be given even for 0 bytes */
    return !strcmp(m->path, path) && len == m->build_id_len &&
           (len == 0 || !memcmp(m->build_id, build_id, len));
}

/* M is no longer loaded: say so in the dump, and let no cached stack that
 * points into it be reused for what is loaded there next. */
static vt_forget_range_fn *forget_range;

static void unloaded(struct written_module *m)
{
    if (vt_rec_module_unload(m->id) < 0)
        modules.failed = 1;
    forget_range(m->start, m->end);
    HASH_DEL(modules.table, m);
    free(m->path);
    free(m);
}

static int visit(struct dl_phdr_info *info, size_t size, void *data)
{
    uint64_t start, end;
    struct written_module *m;
    (void)size;
    (void)data;
    extent_of(info, &start, &end);
    if (start >= end)
        return 0;
    HASH_FIND(hh, modules.table, &start, sizeof start, m);
    if (m && same_object(m, info)) {
        m->seen = 1;
        return 0;
    }
    if (m) /* something else is mapped there now */
        unloaded(m);
    if (write_module(info, start, end) < 0)
        modules.failed = 1;
    return 0;
}

static int read_adds(struct dl_phdr_info *info, size_t size, void *data)
{
    if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof info->dlpi_subs)
        *(unsigned long long *)data = info->dlpi_adds + info->dlpi_subs;
    return 1;
}

int vt_modules_sync(vt_forget_range_fn *forget)
{
    unsigned long long changes = 0;
    unsigned closed = __atomic_load_n(&unloads, __ATOMIC_ACQUIRE);
    struct written_module *m, *tmp;
    dl_iterate_phdr(read_adds, &changes);
    if (modules.table && changes == modules.adds_seen && closed == modules.unloads_seen)
        return 0;
    forget_range = forget;
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
    modules.adds_seen = changes;
    modules.unloads_seen = closed;
    modules.failed = 0;
    HASH_ITER(hh, modules.table, m, tmp)
        m->seen = 0;
    dl_iterate_phdr(visit, NULL);
    HASH_ITER(hh, modules.table, m, tmp)
        if (!m->seen)
            unloaded(m);
    return modules.failed ? -1 : 0;
}

unsigned vt_modules_generation(void)
{
    return __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
}

int vt_modules_unload_pending(void)
{
    return __atomic_load_n(&unloads, __ATOMIC_ACQUIRE) != modules.unloads_seen;
}

void vt_modules_note_unload(void)
{
    __atomic_add_fetch(&unloads, 1, __ATOMIC_RELEASE);
}

void vt_modules_reset(void)
{
    struct written_module *m, *tmp;
    HASH_ITER(hh, modules.table, m, tmp) {
        HASH_DEL(modules.table, m);
        free(m->path);
        free(m);
    }
    modules.next_id = 0;
    modules.adds_seen = 0;
    modules.unloads_seen = __atomic_load_n(&unloads, __ATOMIC_ACQUIRE);
}
