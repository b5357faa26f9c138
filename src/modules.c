#include "modules.h"

#include "records.h"
#include "tracer.h"

#include <elf.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <uthash.h>

struct written_module {
    uint64_t start;            /* key: where it is mapped */
    char *path;
    UT_hash_handle hh;
};

static struct {
    struct written_module *table;
    uint32_t next_id;
    unsigned long long adds_seen;
    int failed;
} modules;

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
    m->path = strdup(path);
    HASH_ADD(hh, modules.table, start, sizeof m->start, m);
    struct vt_module_info rec = {
        .id = ++modules.next_id, .bias = info->dlpi_addr, .start = start, .end = end,
        .path = path,
    };
    rec.build_id_len = build_id_of(info, &build_id);
    rec.build_id = build_id;
    return vt_rec_module(&rec);
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
    if (m && strcmp(m->path, info->dlpi_name && *info->dlpi_name ? info->dlpi_name : m->path) == 0)
        return 0;
    if (m) { /* something else is mapped there now */
        HASH_DEL(modules.table, m);
        free(m->path);
        free(m);
    }
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

int vt_modules_sync(void)
{
    unsigned long long changes = 0;
    dl_iterate_phdr(read_adds, &changes);
    if (modules.table && changes == modules.adds_seen)
        return 0;
    modules.adds_seen = changes;
    modules.failed = 0;
    dl_iterate_phdr(visit, NULL);
    return modules.failed ? -1 : 0;
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
}
