/* SPDX-License-Identifier: MIT */
#include "elf_symbol.h"

#include <elf.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/auxv.h>

/* Our own string helpers: this code runs inside dlsym calls made while other
 * interposers (sanitizer runtimes) initialise, when their strlen/strcmp
 * interceptors cannot be called yet. */
static size_t str_len(const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return n;
}

int vt_str_eq(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t ls = str_len(s), lx = str_len(suffix);
    return ls >= lx && vt_str_eq(s + ls - lx, suffix) && (ls == lx || s[ls - lx - 1] == '/');
}

uintptr_t vt_elf_dyn_ptr(uintptr_t base, uintptr_t value)
{
    return value < base ? base + value : value;
}

/* The parts of an object's dynamic section that symbol lookups read. */
struct dyn_tables {
    const uint32_t *gnu_hash;
    const ElfW(Sym) * symtab;
    const char *strtab;
    const ElfW(Half) * versym;
};

/* 0 when the object (BASE, DYN) has the tables a lookup needs. */
static int read_tables(uintptr_t base, const ElfW(Dyn) * dyn, struct dyn_tables *t)
{
    *t = (struct dyn_tables){0};
    for (const ElfW(Dyn) *d = dyn; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_GNU_HASH)
            t->gnu_hash = (const uint32_t *)vt_elf_dyn_ptr(base, d->d_un.d_ptr);
        else if (d->d_tag == DT_SYMTAB)
            t->symtab = (const ElfW(Sym) *)vt_elf_dyn_ptr(base, d->d_un.d_ptr);
        else if (d->d_tag == DT_STRTAB)
            t->strtab = (const char *)vt_elf_dyn_ptr(base, d->d_un.d_ptr);
        else if (d->d_tag == DT_VERSYM)
            t->versym = (const ElfW(Half) *)vt_elf_dyn_ptr(base, d->d_un.d_ptr);
    }
    return t->gnu_hash && t->symtab && t->strtab && t->gnu_hash[0] ? 0 : -1;
}

static uint32_t gnu_hash(const char *s)
{
    uint32_t h = 5381;
    for (; *s; s++)
        h = h * 33 + (unsigned char)*s;
    return h;
}

/* The version name of symbol INDEX, or NULL when it is unversioned. */
static const char *version_of(uintptr_t base, const ElfW(Dyn) * dyn, const char *strtab,
                              uint32_t index, int *hidden)
{
    const ElfW(Half) *versym = NULL;
    const ElfW(Verdef) *verdef = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        if (dyn->d_tag == DT_VERSYM)
            versym = (const ElfW(Half) *)vt_elf_dyn_ptr(base, dyn->d_un.d_ptr);
        else if (dyn->d_tag == DT_VERDEF)
            verdef = (const ElfW(Verdef) *)vt_elf_dyn_ptr(base, dyn->d_un.d_ptr);
    }
    *hidden = 0;
    if (!versym || !verdef)
        return NULL;
    *hidden = (versym[index] & 0x8000) != 0;
    for (;;) {
        if (verdef->vd_ndx == (versym[index] & 0x7fff) && !(verdef->vd_flags & VER_FLG_BASE)) {
            const ElfW(Verdaux) *aux =
                (const ElfW(Verdaux) *)((const char *)verdef + verdef->vd_aux);
            return strtab + aux->vda_name;
        }
        if (!verdef->vd_next)
            return NULL;
        verdef = (const ElfW(Verdef) *)((const char *)verdef + verdef->vd_next);
    }
}

/* What the dynamic linker would bind: for an IFUNC (glibc's strlen...), the
 * implementation its resolver selects, not the resolver. */
static void *symbol_address(uintptr_t base, const ElfW(Sym) * sym)
{
    void *address = (void *)(base + sym->st_value);
    if (ELF64_ST_TYPE(sym->st_info) == STT_GNU_IFUNC)
        return ((void *(*)(unsigned long))address)(getauxval(AT_HWCAP));
    return address;
}

/* Symbol NAME defined in the object (BASE, DYN): with VERSION, that version;
 * without, the default one (not a hidden compat version), as dlsym does.
 * UNVERSIONED_OK: an unversioned definition satisfies VERSION too, as in the
 * dynamic linker's binding of a versioned reference (dlvsym refuses it). */
static void *lookup_dynamic(uintptr_t base, const ElfW(Dyn) * dyn, const char *name,
                            const char *version, int unversioned_ok)
{
    struct dyn_tables t;
    if (read_tables(base, dyn, &t) < 0)
        return NULL;
    const uint32_t *table = t.gnu_hash;
    const ElfW(Sym) *symtab = t.symtab;
    const char *strtab = t.strtab;
    uint32_t nbuckets = table[0], symoffset = table[1], bloom_size = table[2];
    const ElfW(Addr) *bloom = (const ElfW(Addr) *)(table + 4);
    const uint32_t *buckets = (const uint32_t *)(bloom + bloom_size);
    const uint32_t *chain = buckets + nbuckets;
    uint32_t h = gnu_hash(name);
    for (uint32_t i = buckets[h % nbuckets]; i != 0 && i >= symoffset; i++) {
        uint32_t h2 = chain[i - symoffset];
        const ElfW(Sym) *sym = &symtab[i];
        if ((h | 1) == (h2 | 1) && sym->st_shndx != SHN_UNDEF && sym->st_value != 0 &&
            vt_str_eq(strtab + sym->st_name, name)) {
            int hidden;
            const char *v = version_of(base, dyn, strtab, i, &hidden);
            if (version ? v && vt_str_eq(v, version) : !hidden)
                return symbol_address(base, sym);
            if (unversioned_ok && !v && !hidden)
                return symbol_address(base, sym);
        }
        if (h2 & 1)
            break;
    }
    return NULL;
}

/* The version named by DT_VERNEED entry INDEX, NULL if none. */
static const char *needed_version(uintptr_t base, const ElfW(Dyn) * dyn, const char *strtab,
                                  ElfW(Half) index)
{
    const ElfW(Verneed) *need = NULL;
    for (; dyn->d_tag != DT_NULL; dyn++)
        if (dyn->d_tag == DT_VERNEED)
            need = (const ElfW(Verneed) *)vt_elf_dyn_ptr(base, dyn->d_un.d_ptr);
    while (need) {
        const ElfW(Vernaux) *aux = (const ElfW(Vernaux) *)((const char *)need + need->vn_aux);
        for (unsigned i = 0; i < need->vn_cnt; i++) {
            if (aux->vna_other == index)
                return strtab + aux->vna_name;
            aux = (const ElfW(Vernaux) *)((const char *)aux + aux->vna_next);
        }
        need = need->vn_next ? (const ElfW(Verneed) *)((const char *)need + need->vn_next) : NULL;
    }
    return NULL;
}

int vt_elf_imports(const struct link_map *map, const char *name, const char **version)
{
    struct dyn_tables t;
    *version = NULL;
    if (!map->l_ld || read_tables(map->l_addr, map->l_ld, &t) < 0)
        return 0;
    /* The GNU hash table covers defined symbols only; the undefined ones
     * come first in the symbol table, before its symoffset. */
    for (uint32_t i = 1; i < t.gnu_hash[1]; i++)
        if (t.symtab[i].st_shndx == SHN_UNDEF && vt_str_eq(t.strtab + t.symtab[i].st_name, name)) {
            if (t.versym && (t.versym[i] & 0x7fff) > 1)
                *version = needed_version(map->l_addr, map->l_ld, t.strtab, t.versym[i] & 0x7fff);
            return 1;
        }
    return 0;
}

void *vt_elf_lookup_map(const struct link_map *map, const char *name, const char *version)
{
    return map->l_ld ? lookup_dynamic(map->l_addr, map->l_ld, name, version, 0) : NULL;
}

void *vt_elf_binding_map(const struct link_map *map, const char *name, const char *version)
{
    return map->l_ld ? lookup_dynamic(map->l_addr, map->l_ld, name, version, 1) : NULL;
}

/* Walks the dynamic linker's list itself, not dl_iterate_phdr: ThreadSanitizer
 * intercepts that and calls our dlsym (so this) before its interceptors work. */
void *vt_elf_lookup(const char *soname, const char *name)
{
    for (const struct link_map *m = _r_debug.r_map; m; m = m->l_next)
        if (m->l_name && ends_with(m->l_name, soname))
            return vt_elf_lookup_map(m, name, NULL);
    return NULL;
}
