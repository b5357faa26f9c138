/* SPDX-License-Identifier: MIT */
#include "target.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

static FILE *open_maps(pid_t pid)
{
    char maps[64];
    snprintf(maps, sizeof maps, "/proc/%d/maps", (int)pid);
    return fopen(maps, "re");
}

struct mapping {
    uint64_t start, end, offset;
    char path[4096];
};

/* One line of /proc/PID/maps; 0 at the end. */
static int next_mapping(FILE *f, struct mapping *m)
{
    char line[4352];
    if (!fgets(line, sizeof line, f))
        return 0;
    m->path[0] = '\0';
    if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %4095[^\n]", &m->start, &m->end, &m->offset,
               m->path) < 3)
        m->path[0] = '\0';
    return 1;
}

static const char *file_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The object mapped at START in PID: the mapping itself (map_files), else
 * its file as the process sees it (its root: a container's), else as we
 * do. */
static int open_object(pid_t pid, uint64_t start, uint64_t end, const char *path)
{
    char rooted[4200];
    int fd;
    snprintf(rooted, sizeof rooted, "/proc/%d/map_files/%lx-%lx", (int)pid, (unsigned long)start,
             (unsigned long)end);
    if ((fd = open(rooted, O_RDONLY | O_CLOEXEC)) >= 0)
        return fd;
    snprintf(rooted, sizeof rooted, "/proc/%d/root%s", (int)pid, path);
    fd = open(rooted, O_RDONLY | O_CLOEXEC);
    return fd >= 0 ? fd : open(path, O_RDONLY | O_CLOEXEC);
}

/* The lowest PT_LOAD's page address in the file FD (its load bias is the
 * mapping of offset 0 minus this). */
static int first_load_page(const uint8_t *elf, size_t size, uint64_t *page)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
    if (size < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) ||
        eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_phoff + (uint64_t)eh->e_phnum * sizeof(Elf64_Phdr) > size)
        return -1;
    const Elf64_Phdr *ph = (const Elf64_Phdr *)(elf + eh->e_phoff);
    for (unsigned i = 0; i < eh->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            *page = ph[i].p_vaddr & ~(uint64_t)0xfff;
            return 0;
        }
    return -1;
}

/* The first mapping (offset 0) of the object PREFIX in PID: 0, -1 when
 * none, -2 (errno) when the map cannot be read. */
static int find_object(pid_t pid, const char *prefix, struct mapping *found)
{
    FILE *f = open_maps(pid);
    int r = -1;
    if (!f)
        return -2;
    while (r < 0 && next_mapping(f, found))
        if (found->path[0] == '/' && found->offset == 0 &&
            strncmp(file_name(found->path), prefix, strlen(prefix)) == 0)
            r = 0;
    fclose(f);
    return r;
}

/* The object's file mapped read-only into *ELF (*SIZE bytes); -1 if it
 * cannot be opened. */
static int map_object(pid_t pid, const struct mapping *m, void **elf, size_t *size)
{
    struct stat st;
    int fd = open_object(pid, m->start, m->end, m->path);
    *elf = MAP_FAILED;
    if (fd >= 0 && fstat(fd, &st) == 0 && (size_t)st.st_size > sizeof(Elf64_Ehdr)) {
        *size = (size_t)st.st_size;
        *elf = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    if (fd >= 0)
        close(fd);
    return *elf == MAP_FAILED ? -1 : 0;
}

int vt_target_object(pid_t pid, const char *prefix, char *path, size_t size, uint64_t *bias)
{
    struct mapping m;
    uint64_t page = 0;
    size_t elf_size;
    void *elf;
    int r = find_object(pid, prefix, &m);
    if (r != 0)
        return r;
    snprintf(path, size, "%s", m.path);
    *bias = m.start; /* the bias: the mapping minus the first segment's page */
    if (map_object(pid, &m, &elf, &elf_size) == 0) {
        if (first_load_page(elf, elf_size, &page) == 0)
            *bias -= page;
        munmap(elf, elf_size);
    }
    return 0;
}

/* NAME's value in the .dynsym of the ELF image ELF (SIZE bytes), its
 * default version (a hidden compat version is skipped); 0 if none. */
static uint64_t dynamic_symbol(const uint8_t *elf, size_t size, const char *name)
{
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)elf;
    if (eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > size)
        return 0;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(elf + eh->e_shoff);
    const Elf64_Shdr *dynsym = NULL, *versym = NULL;
    for (unsigned i = 0; i < eh->e_shnum; i++)
        if (sh[i].sh_type == SHT_DYNSYM)
            dynsym = &sh[i];
        else if (sh[i].sh_type == SHT_GNU_versym)
            versym = &sh[i];
    if (!dynsym || dynsym->sh_link >= eh->e_shnum)
        return 0;
    const Elf64_Shdr *strs = &sh[dynsym->sh_link];
    if (dynsym->sh_offset + dynsym->sh_size > size || strs->sh_offset + strs->sh_size > size ||
        (versym && versym->sh_offset + versym->sh_size > size))
        return 0;
    const Elf64_Sym *syms = (const Elf64_Sym *)(elf + dynsym->sh_offset);
    const char *str = (const char *)(elf + strs->sh_offset);
    const uint16_t *vers = versym ? (const uint16_t *)(elf + versym->sh_offset) : NULL;
    size_t n = dynsym->sh_size / sizeof *syms;
    for (size_t i = 1; i < n; i++)
        if (syms[i].st_shndx != SHN_UNDEF && syms[i].st_name < strs->sh_size &&
            strcmp(str + syms[i].st_name, name) == 0 && !(vers && (vers[i] & 0x8000)))
            return syms[i].st_value;
    return 0;
}

uint64_t vt_target_symbol(pid_t pid, const char *prefix, const char *name)
{
    struct mapping m;
    uint64_t value = 0, page = 0;
    size_t size;
    void *elf;
    if (find_object(pid, prefix, &m) != 0 || map_object(pid, &m, &elf, &size) != 0)
        return 0;
    if (first_load_page(elf, size, &page) == 0)
        value = dynamic_symbol(elf, size, name);
    munmap(elf, size);
    return value ? m.start - page + value : 0;
}

int vt_target_read(pid_t pid, uint64_t address, void *out, size_t len)
{
    struct iovec local = {out, len}, remote = {(void *)(uintptr_t)address, len};
    return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

int vt_target_write(pid_t pid, uint64_t address, const void *data, size_t len)
{
    struct iovec local = {(void *)data, len}, remote = {(void *)(uintptr_t)address, len};
    return process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

int vt_target_object_at(pid_t pid, uint64_t address, char *name, size_t size)
{
    FILE *f = open_maps(pid);
    struct mapping m;
    int found = -1;
    if (!f)
        return -1;
    while (found < 0 && next_mapping(f, &m))
        if (address >= m.start && address < m.end) {
            snprintf(name, size, "%s", m.path[0] == '/' ? file_name(m.path) : m.path);
            found = 0;
        }
    fclose(f);
    return found;
}
