/* SPDX-License-Identifier: MIT */
/* libdw's standard search (dwfl_standard_find_debuginfo, its default path
 * ":.debug:/usr/lib/debug"): a file named by build id under
 * /usr/lib/debug/.build-id, then the .gnu_debuglink name beside the module,
 * in .debug beside it and under /usr/lib/debug; else the module's own
 * DWARF; else the servers DEBUGINFOD_URLS names. */
#include "debug_source.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* PATH, and its size and time when it exists. */
static void candidate(FILE *out, const char *path)
{
    struct stat st;
    if (stat(path, &st) == 0)
        fprintf(out, " %s %lld %lld.%09ld", path, (long long)st.st_size,
                (long long)st.st_mtim.tv_sec, st.st_mtim.tv_nsec);
}

/* Whether ELF has DWARF of its own, and its .gnu_debuglink name (or NULL). */
static bool own_dwarf(Elf *elf, const char **link)
{
    size_t names;
    bool own = false;
    *link = NULL;
    if (!elf || elf_getshdrstrndx(elf, &names) != 0)
        return false;
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(elf, scn));) {
        GElf_Shdr sh;
        const char *name = gelf_getshdr(scn, &sh) ? elf_strptr(elf, names, sh.sh_name) : NULL;
        if (name && (!strcmp(name, ".debug_info") || !strcmp(name, ".zdebug_info")))
            own = true;
        if (name && !strcmp(name, ".gnu_debuglink")) {
            Elf_Data *d = elf_getdata(scn, NULL);
            if (d && d->d_buf && d->d_size && memchr(d->d_buf, 0, d->d_size))
                *link = d->d_buf;
        }
    }
    return own;
}

char *vt_debug_source(Dwfl_Module *mod, const char *path, const unsigned char *id, size_t len)
{
    char *line = NULL, *where;
    size_t size = 0;
    FILE *out = open_memstream(&line, &size);
    if (!out)
        return NULL;
    GElf_Addr bias;
    const char *link, *servers = getenv("DEBUGINFOD_URLS");
    bool own = own_dwarf(dwfl_module_getelf(mod, &bias), &link);
    fprintf(out, "own %d servers %s;", own, servers ? servers : "");
    if (len && len <= 64) {
        char hex[129];
        for (size_t i = 0; i < len; i++)
            sprintf(hex + 2 * i, "%02x", id[i]);
        if (asprintf(&where, "/usr/lib/debug/.build-id/%.2s/%s.debug", hex, hex + 2) >= 0) {
            candidate(out, where);
            free(where);
        }
    }
    const char *slash = strrchr(path, '/');
    int dir = slash ? (int)(slash - path) : 0;
    if (link) {
        static const char *const places[] = {"%.*s/%s", "%.*s/.debug/%s", "/usr/lib/debug%.*s/%s"};
        for (size_t i = 0; i < sizeof places / sizeof places[0]; i++)
            if (asprintf(&where, places[i], dir, path, link) >= 0) {
                candidate(out, where);
                free(where);
            }
    }
    fclose(out);
    return line;
}
