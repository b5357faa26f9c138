/* SPDX-License-Identifier: MIT */
#include "got_patch.h"

#include "elf_symbol.h"
#include "resolve.h"

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

/* One entry we wrote: where, what it held, what we put there, and the load
 * bias of its object (an entry whose object was unloaded is not touched). */
struct patched {
    void **slot;
    void *old, *ours;
    uintptr_t bias;
};

void *vt_own_export(const char *name)
{
    struct link_map *self = vt_own_map();
    return self ? vt_elf_lookup_map(self, name, NULL) : NULL;
}

/* The dynamic linker and the tracer itself are left as they are. */
int vt_got_skipped(const struct dl_phdr_info *info)
{
    struct link_map *self = vt_own_map();
    uintptr_t own_bias = self ? self->l_addr : 0;
    const char *name = info->dlpi_name, *slash;
    if (info->dlpi_addr == own_bias && name && name[0])
        return 1;
    slash = name ? strrchr(name, '/') : NULL;
    return name && strncmp(slash ? slash + 1 : name, "ld-linux", 8) == 0;
}

#if defined(__x86_64__)

static pthread_mutex_t patch_lock = PTHREAD_MUTEX_INITIALIZER;
static struct patched *entries;
static size_t count, capacity;
static vt_got_choose_fn chooser;     /* set while patched */
static unsigned long long seen_adds; /* dl_iterate_phdr's load count at the last patching */

/* Grown by mmap, not malloc: this runs inside dlsym. */
static int remember(void **slot, void *old, void *ours, uintptr_t bias)
{
    if (count == capacity) {
        size_t more = capacity ? capacity * 2 : 256;
        struct patched *grown = mmap(NULL, more * sizeof *grown, PROT_READ | PROT_WRITE,
                                     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        if (grown == MAP_FAILED)
            return -1;
        if (entries) {
            memcpy(grown, entries, count * sizeof *grown);
            munmap(entries, capacity * sizeof *grown);
        }
        entries = grown;
        capacity = more;
    }
    entries[count++] = (struct patched){slot, old, ours, bias};
    return 0;
}

/* The pages of RELRO that the dynamic linker made read-only (its end
 * rounded down, as _dl_protect_relro does). */
struct relro {
    uintptr_t start, end;
};

/* Writes VALUE into SLOT where it still holds *EXPECTED: 0; -1 where a
 * thread of the program (or the dynamic linker, binding lazily) wrote it
 * meanwhile, *EXPECTED then what it holds; -2 where its page of RELRO could
 * not be made writable (it is made read-only again after the store). */
static int write_slot(void **slot, void **expected, void *value, const struct relro *ro)
{
    uintptr_t page = (uintptr_t)slot & ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    int read_only = (uintptr_t)slot >= ro->start && (uintptr_t)slot < ro->end;
    size_t len = (size_t)sysconf(_SC_PAGESIZE);
    if (read_only && mprotect((void *)page, len, PROT_READ | PROT_WRITE) != 0)
        return -2;
    int written =
        __atomic_compare_exchange_n(slot, expected, value, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
    if (read_only)
        mprotect((void *)page, len, PROT_READ);
    return written ? 0 : -1;
}

struct tables {
    const ElfW(Sym) * symtab;
    const char *strtab;
    const ElfW(Rela) * rela[2];
    size_t rela_size[2];
};

static void read_dynamic(uintptr_t bias, const ElfW(Dyn) * dyn, struct tables *t)
{
    memset(t, 0, sizeof *t);
    for (; dyn->d_tag != DT_NULL; dyn++)
        switch (dyn->d_tag) {
        case DT_SYMTAB:
            t->symtab = (const ElfW(Sym) *)vt_elf_dyn_ptr(bias, dyn->d_un.d_ptr);
            break;
        case DT_STRTAB:
            t->strtab = (const char *)vt_elf_dyn_ptr(bias, dyn->d_un.d_ptr);
            break;
        case DT_JMPREL:
            t->rela[0] = (const ElfW(Rela) *)vt_elf_dyn_ptr(bias, dyn->d_un.d_ptr);
            break;
        case DT_PLTRELSZ:
            t->rela_size[0] = dyn->d_un.d_val;
            break;
        case DT_RELA:
            t->rela[1] = (const ElfW(Rela) *)vt_elf_dyn_ptr(bias, dyn->d_un.d_ptr);
            break;
        case DT_RELASZ:
            t->rela_size[1] = dyn->d_un.d_val;
            break;
        default:
            break;
        }
}

/* An entry already ours (patched before, or an earlier patching's object). */
static int already_patched(void **slot)
{
    for (size_t i = 0; i < count; i++)
        if (entries[i].slot == slot)
            return 1;
    return 0;
}

/* OLD in SLOT replaced by OURS and remembered (with what it held when
 * written): a GOT entry whatever it holds by then (ANY), a word of data only
 * while it still holds OLD. -1 where it was patched already or not written. */
static int patch_word(void **slot, void *old, void *ours, uintptr_t bias, const struct relro *ro,
                      int any)
{
    int r;
    if (already_patched(slot) || remember(slot, old, ours, bias) < 0)
        return -1;
    do
        r = write_slot(slot, &entries[count - 1].old, ours, ro);
    while (r == -1 && any && entries[count - 1].old != ours);
    if (r == 0)
        return 0;
    count--;
    return -1;
}

static int patch_relocs(uintptr_t bias, const struct tables *t, const struct relro *ro)
{
    int changed = 0;
    for (int k = 0; k < 2; k++)
        for (size_t i = 0; t->rela[k] && i < t->rela_size[k] / sizeof(ElfW(Rela)); i++) {
            const ElfW(Rela) *r = &t->rela[k][i];
            unsigned type = ELF64_R_TYPE(r->r_info);
            void **slot = (void **)(bias + r->r_offset), *ours, *old;
            if ((type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) ||
                !ELF64_R_SYM(r->r_info))
                continue;
            ours = chooser(t->strtab + t->symtab[ELF64_R_SYM(r->r_info)].st_name);
            old = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
            if (ours && old != ours && patch_word(slot, old, ours, bias, ro, 1) == 0)
                changed++;
        }
    return changed;
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
    int *changed = data;
    const ElfW(Dyn) *dyn = NULL;
    struct relro ro = {0, 0};
    uintptr_t mask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    struct tables t;
    (void)size;
    if (vt_got_skipped(info))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_DYNAMIC)
            dyn = (const ElfW(Dyn) *)(info->dlpi_addr + ph->p_vaddr);
        else if (ph->p_type == PT_GNU_RELRO)
            ro = (struct relro){(info->dlpi_addr + ph->p_vaddr) & mask,
                                (info->dlpi_addr + ph->p_vaddr + ph->p_memsz) & mask};
    }
    if (!dyn)
        return 0;
    read_dynamic(info->dlpi_addr, dyn, &t);
    if (t.symtab && t.strtab)
        *changed += patch_relocs(info->dlpi_addr, &t, &ro);
    seen_adds = info->dlpi_adds;
    return 0;
}

int vt_got_patch_loaded(vt_got_choose_fn choose)
{
    int changed = 0;
    pthread_mutex_lock(&patch_lock);
    chooser = choose;
    dl_iterate_phdr(patch_object, &changed);
    pthread_mutex_unlock(&patch_lock);
    return changed;
}

void vt_got_lock(void)
{
    pthread_mutex_lock(&patch_lock);
}

void vt_got_unlock(void)
{
    pthread_mutex_unlock(&patch_lock);
}

int vt_got_patch_word(void **slot, void *old, void *ours, uintptr_t bias)
{
    static const struct relro writable = {0, 0};
    return patch_word(slot, old, ours, bias, &writable, 0);
}

static int adds_now(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    *(unsigned long long *)data = info->dlpi_adds;
    return 1; /* the first object says it */
}

void vt_got_patch_new(void)
{
    unsigned long long adds = 0;
    int changed = 0;
    if (!__atomic_load_n(&chooser, __ATOMIC_ACQUIRE))
        return;
    dl_iterate_phdr(adds_now, &adds);
    pthread_mutex_lock(&patch_lock);
    if (chooser && adds != seen_adds)
        dl_iterate_phdr(patch_object, &changed);
    pthread_mutex_unlock(&patch_lock);
}

/* The object at BIAS still holds SLOT (not unloaded, nothing else there). */
static int still_loaded(void **slot, uintptr_t bias)
{
    Dl_info info;
    struct link_map *m = NULL;
    return dladdr1(slot, &info, (void **)&m, RTLD_DL_LINKMAP) && m && m->l_addr == bias;
}

/* The RELRO pages around SLOT, read from its object's program headers. */
static struct relro relro_of(void **slot)
{
    Dl_info info;
    struct relro ro = {0, 0};
    uintptr_t mask = ~((uintptr_t)sysconf(_SC_PAGESIZE) - 1);
    struct link_map *m = NULL;
    if (!dladdr1(slot, &info, (void **)&m, RTLD_DL_LINKMAP) || !m || !info.dli_fbase)
        return ro;
    const ElfW(Ehdr) *elf = info.dli_fbase;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)elf + elf->e_phoff);
    for (unsigned i = 0; i < elf->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_RELRO)
            ro = (struct relro){(m->l_addr + ph[i].p_vaddr) & mask,
                                (m->l_addr + ph[i].p_vaddr + ph[i].p_memsz) & mask};
    return ro;
}

int vt_got_restore(void)
{
    int restored = 0;
    pthread_mutex_lock(&patch_lock);
    __atomic_store_n(&chooser, NULL, __ATOMIC_RELEASE);
    for (size_t i = 0; i < count; i++) {
        struct patched *e = &entries[i];
        struct relro ro;
        if (!still_loaded(e->slot, e->bias) ||
            __atomic_load_n(e->slot, __ATOMIC_ACQUIRE) != e->ours)
            continue;
        ro = relro_of(e->slot);
        void *ours = e->ours;
        if (write_slot(e->slot, &ours, e->old, &ro) == 0)
            restored++;
    }
    count = 0;
    pthread_mutex_unlock(&patch_lock);
    return restored;
}

#else

int vt_got_patch_loaded(vt_got_choose_fn choose)
{
    (void)choose;
    return -1;
}

void vt_got_patch_new(void)
{
}

int vt_got_restore(void)
{
    return 0;
}

void vt_got_lock(void)
{
}

void vt_got_unlock(void)
{
}

int vt_got_patch_word(void **slot, void *old, void *ours, uintptr_t bias)
{
    (void)slot, (void)old, (void)ours, (void)bias;
    return -1;
}

#endif
