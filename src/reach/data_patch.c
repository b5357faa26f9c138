/* SPDX-License-Identifier: MIT */
#include "data_patch.h"

#include "got_patch.h"
#include "hook_table.h"
#include "resolve.h"

#include <dlfcn.h>
#include <link.h>

/* The addresses the program may hold, each with our wrapper for it (NULL:
 * two wrappers claim the address, which is left alone). The function a
 * driver exports under a hook's name is that hook's: its wrapper calls
 * exactly it, whichever requests the driver also answers with it. */
#define KNOWN_MAX 256
static struct known {
    void *real, *wrapper;
    int exported;
} known[KNOWN_MAX];
static size_t nknown;
static uintptr_t lowest, highest;

/* The objects that define them (the driver), never patched. */
#define DRIVERS_MAX 8
static uintptr_t drivers[DRIVERS_MAX];
static size_t ndrivers;

/* The objects in which words were changed, and those in which a word was
 * left (an address two wrappers claim, or one not written). */
#define PATCHED_MAX 64
static uintptr_t patched[PATCHED_MAX], left[PATCHED_MAX];
static size_t npatched, nleft;

static int listed(const uintptr_t *list, size_t n, uintptr_t bias)
{
    for (size_t i = 0; i < n; i++)
        if (list[i] == bias)
            return 1;
    return 0;
}

static void note_driver(void *real)
{
    Dl_info info;
    struct link_map *m = NULL;
    if (dladdr1(real, &info, (void **)&m, RTLD_DL_LINKMAP) && m &&
        !listed(drivers, ndrivers, m->l_addr) && ndrivers < DRIVERS_MAX)
        drivers[ndrivers++] = m->l_addr;
}

static void note(void *real, void *wrapper, int exported, void *arg)
{
    (void)arg;
    if (!real || !wrapper || vt_is_own_address(real))
        return;
    for (size_t i = 0; i < nknown; i++)
        if (known[i].real == real) {
            if (exported && !known[i].exported)
                known[i] = (struct known){real, wrapper, 1};
            else if (exported == known[i].exported && known[i].wrapper != wrapper)
                known[i].wrapper = NULL;
            return;
        }
    if (nknown == KNOWN_MAX)
        return;
    known[nknown++] = (struct known){real, wrapper, exported};
    note_driver(real);
    if (!lowest || (uintptr_t)real < lowest)
        lowest = (uintptr_t)real;
    if ((uintptr_t)real > highest)
        highest = (uintptr_t)real;
}

static const struct known *known_as(void *word)
{
    if ((uintptr_t)word < lowest || (uintptr_t)word > highest)
        return NULL;
    for (size_t i = 0; i < nknown; i++)
        if (known[i].real == word)
            return &known[i];
    return NULL;
}

/* The words of [START, END) outside RELRO [RO_START, RO_END); *UNCHANGED
 * counts the driver functions left there. */
static int patch_range(uintptr_t start, uintptr_t end, uintptr_t ro_start, uintptr_t ro_end,
                       uintptr_t bias, int *unchanged)
{
    int changed = 0;
    start = (start + sizeof(void *) - 1) & ~(uintptr_t)(sizeof(void *) - 1);
    for (uintptr_t a = start; a + sizeof(void *) <= end; a += sizeof(void *)) {
        void **word = (void **)a, *old;
        const struct known *k;
        if (a >= ro_start && a < ro_end)
            continue;
        old = __atomic_load_n(word, __ATOMIC_ACQUIRE);
        k = known_as(old);
        if (k && k->wrapper && vt_got_patch_word(word, old, k->wrapper, bias) == 0)
            changed++;
        else if (k)
            (*unchanged)++;
    }
    return changed;
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t ro_start = 0, ro_end = 0, bias = info->dlpi_addr;
    int changed = 0, unchanged = 0;
    (void)size;
    if (vt_got_skipped(info) || listed(drivers, ndrivers, bias))
        return 0;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_GNU_RELRO) {
            ro_start = bias + info->dlpi_phdr[i].p_vaddr;
            ro_end = ro_start + info->dlpi_phdr[i].p_memsz;
        }
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W))
            changed += patch_range(bias + ph->p_vaddr, bias + ph->p_vaddr + ph->p_memsz, ro_start,
                                   ro_end, bias, &unchanged);
    }
    if (changed && npatched < PATCHED_MAX)
        patched[npatched++] = bias;
    if (unchanged && nleft < PATCHED_MAX)
        left[nleft++] = bias;
    *(int *)data += changed;
    return 0;
}

int vt_data_patch_loaded(void)
{
    int changed = 0;
    nknown = ndrivers = npatched = nleft = 0;
    lowest = highest = 0;
    vt_hook_each_real(note, NULL);
    if (!nknown)
        return 0;
    vt_got_lock();
    dl_iterate_phdr(patch_object, &changed);
    vt_got_unlock();
    return changed;
}

int vt_data_patched_in(uintptr_t bias)
{
    return listed(patched, npatched, bias) && !listed(left, nleft, bias);
}

int vt_data_left_in(uintptr_t bias)
{
    return listed(left, nleft, bias);
}
