#include "stacks.h"

#include "modules.h"
#include "records.h"
#include "tracer.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

struct known_stack {
    UT_hash_handle hh;
    uint32_t id;
    int count;
    uintptr_t frames[]; /* the key */
};

static struct {
    struct known_stack *table;
    uint32_t next_id;
} stacks;

static struct {
    uintptr_t start, end; /* this library's text and data */
    int ready;
} self;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t here = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (here < lo || here >= hi)
        return 0;
    self.start = lo;
    self.end = hi;
    return 1;
}

static int in_tracer(uintptr_t ip)
{
    if (!__atomic_load_n(&self.ready, __ATOMIC_ACQUIRE)) {
        dl_iterate_phdr(find_self, (void *)(uintptr_t)&vt_stack_capture);
        __atomic_store_n(&self.ready, 1, __ATOMIC_RELEASE);
    }
    return ip >= self.start && ip < self.end;
}

void vt_stack_capture(struct vt_stack *stack)
{
    void *raw[VT_STACK_MAX];
    int n = unw_backtrace(raw, VT_STACK_MAX), first = 0;
    for (int i = 0; i < n; i++)
        if (in_tracer((uintptr_t)raw[i]))
            first = i + 1;
    stack->count = n > first ? n - first : 0;
    for (int i = 0; i < stack->count; i++)
        stack->frames[i] = (uintptr_t)raw[first + i];
}

uint32_t vt_stack_intern(const struct vt_stack *stack)
{
    struct known_stack *known;
    size_t key_len = (size_t)stack->count * sizeof(uintptr_t);
    if (stack->count == 0)
        return 0;
    HASH_FIND(hh, stacks.table, stack->frames, key_len, known);
    if (known)
        return known->id;
    known = malloc(sizeof *known + key_len);
    if (!known)
        return 0;
    known->id = ++stacks.next_id;
    known->count = stack->count;
    memcpy(known->frames, stack->frames, key_len);
    HASH_ADD_KEYPTR(hh, stacks.table, known->frames, key_len, known);
    /* Modules first: the reader symbolizes a stack with the modules before it. */
    vt_modules_sync();
    if (vt_rec_stack(known->id, known->frames, (unsigned)known->count) < 0)
        return 0;
    return known->id;
}

int vt_stack_frames(uint32_t id, uintptr_t *out, int max)
{
    struct known_stack *s, *tmp;
    HASH_ITER(hh, stacks.table, s, tmp) {
        if (s->id != id)
            continue;
        int n = s->count < max ? s->count : max;
        memcpy(out, s->frames, (size_t)n * sizeof *out);
        return n;
    }
    return 0;
}

void vt_stacks_reset(void)
{
    struct known_stack *s, *tmp;
    HASH_ITER(hh, stacks.table, s, tmp) {
        HASH_DEL(stacks.table, s);
        free(s);
    }
    stacks.next_id = 0;
}
