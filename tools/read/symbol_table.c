/* SPDX-License-Identifier: MIT */
/* dwfl_module_addrinfo reads every symbol of the module for each address
 * (elfutils' search_table). Here the symbols that can name an address are
 * read once into two arrays sorted by address, the globals and the locals
 * (libdw searches the locals only when no global has the address), and
 * each address applies libdw's rules to the few symbols around it: the
 * sized ones that hold it, in table order, then the closest sizeless one
 * in the same section. */
#include "symbol_table.h"

#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* Each BLOCK-th entry keeps the highest end of all entries up to it: the
 * walk back from an address stops where nothing before can hold it. */
#define BLOCK 64

struct entry {
    GElf_Addr value; /* the symbol's address in the Dwfl */
    GElf_Xword size;
    uint32_t index; /* dwfl_module_getsym_info's */
};

struct sorted {
    struct entry *v;
    size_t n;
    GElf_Addr *reach; /* [b]: the highest end of entries 0 .. BLOCK * (b + 1) - 1 */
};

struct vt_symbol_table {
    Dwfl_Module *mod;
    struct sorted globals, locals;
};

/* Sorts V by value, entries of one value kept in their order (by index):
 * a radix sort, 16 bits a pass, a pass left out where all share the
 * digit. qsort took half of a report of a PyTorch dump (546,000 symbols). */
static void sort_by_value(struct entry *v, size_t n)
{
    struct entry *tmp = vt_xcalloc(n, sizeof *tmp), *from = v, *to = tmp;
    size_t *count = vt_xcalloc(1u << 16, sizeof *count);
    for (unsigned shift = 0; shift < 64; shift += 16) {
        memset(count, 0, (1u << 16) * sizeof *count);
        for (size_t i = 0; i < n; i++)
            count[(from[i].value >> shift) & 0xffff]++;
        if (n && count[(from[0].value >> shift) & 0xffff] == n)
            continue; /* one digit for all */
        for (size_t d = 0, at = 0; d < 1u << 16; d++) {
            size_t c = count[d];
            count[d] = at;
            at += c;
        }
        for (size_t i = 0; i < n; i++)
            to[count[(from[i].value >> shift) & 0xffff]++] = from[i];
        struct entry *swap = from;
        from = to;
        to = swap;
    }
    if (from != v)
        memcpy(v, from, n * sizeof *v);
    free(count);
    free(tmp);
}

static void sort_entries(struct sorted *s)
{
    sort_by_value(s->v, s->n);
    s->reach = vt_xcalloc(s->n / BLOCK + 1, sizeof *s->reach);
    GElf_Addr reach = 0;
    for (size_t i = 0; i < s->n; i++) {
        if (s->v[i].value + s->v[i].size > reach)
            reach = s->v[i].value + s->v[i].size;
        if ((i + 1) % BLOCK == 0)
            s->reach[i / BLOCK] = reach;
    }
}

/* What libdw's search_table considers: defined, named, not a section,
 * file or TLS symbol (an empty name is looked at only when found). */
static bool considered(const GElf_Sym *sym)
{
    int type = GELF_ST_TYPE(sym->st_info);
    return sym->st_name != 0 && sym->st_shndx != SHN_UNDEF && type != STT_SECTION &&
           type != STT_FILE && type != STT_TLS;
}

struct vt_symbol_table *vt_symbol_table_read(Dwfl_Module *mod)
{
    int n = dwfl_module_getsymtab(mod);
    int first_global = dwfl_module_getsymtab_first_global(mod);
    if (n <= 1 || first_global < 0)
        return NULL;
    struct vt_symbol_table *t = vt_xcalloc(1, sizeof *t);
    t->mod = mod;
    t->globals.v = vt_xcalloc((size_t)n, sizeof *t->globals.v);
    t->locals.v = vt_xcalloc(first_global > 1 ? (size_t)first_global : 1, sizeof *t->locals.v);
    for (int i = 1; i < n; i++) {
        GElf_Sym sym;
        GElf_Addr value;
        const char *name = dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL);
        if (!name || !considered(&sym))
            continue;
        struct sorted *s = i < first_global ? &t->locals : &t->globals;
        s->v[s->n++] = (struct entry){value, sym.st_size, (uint32_t)i};
    }
    sort_entries(&t->globals);
    sort_entries(&t->locals);
    return t;
}

void vt_symbol_table_free(struct vt_symbol_table *t)
{
    if (!t)
        return;
    free(t->globals.v);
    free(t->globals.reach);
    free(t->locals.v);
    free(t->locals.reach);
    free(t);
}

/* One symbol as libdw's search sees it. */
struct candidate {
    const char *name;
    GElf_Sym sym;
    GElf_Addr value;
    GElf_Word shndx;
};

static int binding_value(const GElf_Sym *sym)
{
    switch (GELF_ST_BIND(sym->st_info)) {
    case STB_GLOBAL:
        return 3;
    case STB_WEAK:
        return 2;
    case STB_LOCAL:
        return 1;
    default:
        return 0;
    }
}

/* libdw's choice between the closest sized symbol so far and C (in table order). */
static bool replaces(const struct candidate *best, const struct candidate *c)
{
    if (!best || best->value < c->value || binding_value(&best->sym) < binding_value(&c->sym))
        return true;
    return best->value == c->value && ((best->sym.st_size > c->sym.st_size &&
                                        binding_value(&best->sym) <= binding_value(&c->sym)) ||
                                       (best->sym.st_size >= c->sym.st_size &&
                                        binding_value(&best->sym) < binding_value(&c->sym)));
}

static bool read_candidate(Dwfl_Module *mod, uint32_t index, struct candidate *c)
{
    c->name = dwfl_module_getsym_info(mod, (int)index, &c->sym, &c->value, &c->shndx, NULL, NULL);
    return c->name && c->name[0];
}

/* How many entries are at or below ADDR. */
static size_t at_or_below(const struct sorted *s, GElf_Addr addr)
{
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid].value <= addr)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

/* The highest end of the first N entries: the "min_label" a sizeless
 * symbol must not be below. */
static GElf_Addr reach_of(const struct sorted *s, size_t n)
{
    GElf_Addr reach = n >= BLOCK ? s->reach[n / BLOCK - 1] : 0;
    for (size_t i = n / BLOCK * BLOCK; i < n; i++)
        if (s->v[i].value + s->v[i].size > reach)
            reach = s->v[i].value + s->v[i].size;
    return reach;
}

static int by_index(const void *pa, const void *pb)
{
    uint32_t a = ((const struct entry *)pa)->index, b = ((const struct entry *)pb)->index;
    return a < b ? -1 : a > b;
}

/* The sized symbols of S that hold ADDR, as libdw picks among them in table
 * order: into *BEST (name NULL: none). */
static void closest_sized(Dwfl_Module *mod, const struct sorted *s, GElf_Addr addr,
                          struct candidate *best)
{
    struct entry *holding = NULL;
    size_t nholding = 0;
    best->name = NULL;
    for (size_t i = at_or_below(s, addr); i-- > 0;) {
        if ((i + 1) % BLOCK == 0 && s->reach[i / BLOCK] <= addr)
            break; /* nothing at or before I reaches ADDR */
        if (s->v[i].size && addr - s->v[i].value < s->v[i].size) {
            holding = vt_xgrow(holding, nholding, sizeof *holding);
            holding[nholding++] = s->v[i];
        }
    }
    if (nholding > 1)
        qsort(holding, nholding, sizeof *holding, by_index);
    for (size_t i = 0; i < nholding; i++) {
        struct candidate c;
        if (read_candidate(mod, holding[i].index, &c) && replaces(best->name ? best : NULL, &c))
            *best = c;
    }
    free(holding);
}

/* Whether libdw counts VALUE in ADDR's section (dwfl_module_addrinfo's
 * same_section). */
static bool same_section(Dwfl_Module *mod, const struct candidate *c, GElf_Addr addr)
{
    if (c->shndx >= SHN_LORESERVE)
        return c->value == addr;
    Dwarf_Addr a = addr, v = c->value, bias;
    return dwfl_module_address_section(mod, &a, &bias) ==
           dwfl_module_address_section(mod, &v, &bias);
}

/* The sizeless symbol of S libdw falls back to for ADDR: at the highest
 * address at or below it, not below MIN_LABEL (the end of every symbol
 * below), in ADDR's section; the last such in table order. */
static bool sizeless(Dwfl_Module *mod, const struct sorted *s, GElf_Addr addr, GElf_Addr min_label,
                     struct candidate *found)
{
    size_t n = at_or_below(s, addr);
    if (!n || s->v[n - 1].value < min_label)
        return false;
    /* sorted by address, then index: the last in table order comes first */
    for (size_t i = n; i-- > 0 && s->v[i].value == s->v[n - 1].value;)
        if (!s->v[i].size && read_candidate(mod, s->v[i].index, found) &&
            same_section(mod, found, addr))
            return true;
    return false;
}

const char *vt_symbol_table_find(const struct vt_symbol_table *t, GElf_Addr addr)
{
    struct candidate best, global, local;
    closest_sized(t->mod, &t->globals, addr, &best);
    if (best.name)
        return best.name;
    GElf_Addr min_label = reach_of(&t->globals, at_or_below(&t->globals, addr));
    bool have_global = sizeless(t->mod, &t->globals, addr, min_label, &global);
    if (!t->locals.n || (have_global && global.value == addr))
        return have_global ? global.name : NULL; /* libdw looks no further */
    closest_sized(t->mod, &t->locals, addr, &best);
    if (best.name)
        return best.name;
    GElf_Addr local_label = reach_of(&t->locals, at_or_below(&t->locals, addr));
    if (local_label > min_label)
        min_label = local_label;
    if (sizeless(t->mod, &t->locals, addr, min_label, &local))
        return local.name; /* the locals are searched after the globals */
    return have_global && global.value >= min_label ? global.name : NULL;
}
