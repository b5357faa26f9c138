/* SPDX-License-Identifier: MIT */
#include "track.h"

#include "alloc_table.h"
#include "devices.h"
#include "entry_pool.h"
#include "format.h"
#include "freed.h"
#include "output.h"
#include "peaks.h"
#include "records.h"
#include "thread_names.h"
#include "tracing.h"

#include <stdlib.h>
#include <string.h>

/* Every key is one 64-bit word (an address or a handle): one multiply
 * spreads it, where uthash's default hash goes byte by byte. */
static inline unsigned word_hash(const void *key)
{
    uint64_t w;
    memcpy(&w, key, sizeof w);
    w *= 0x9E3779B97F4A7C15u;
    return (unsigned)(w >> 32);
}
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = word_hash(keyptr))

/* uthash (the mappings' table) frees a table's buckets when its last entry
 * leaves and allocates them again with the next one: a program that holds
 * one mapping at a time would pay a calloc and two frees per pair. The last few small blocks
 * released are kept for reuse instead (the lock is held). */
#define SPARE_BLOCKS 4
#define SPARE_MAX_SIZE 4096 /* a fresh table's size; a grown one's buckets go back */
static struct {
    void *block;
    size_t size;
} spare[SPARE_BLOCKS];

static void *table_block_get(size_t size)
{
    for (int i = 0; i < SPARE_BLOCKS; i++)
        if (spare[i].block && spare[i].size == size) {
            void *block = spare[i].block;
            spare[i].block = NULL;
            return block;
        }
    return malloc(size);
}

static void table_block_put(void *block, size_t size)
{
    for (int i = 0; i < SPARE_BLOCKS && size <= SPARE_MAX_SIZE; i++)
        if (!spare[i].block) {
            spare[i].block = block;
            spare[i].size = size;
            return;
        }
    free(block);
}
#define uthash_malloc(size) table_block_get(size)
#define uthash_free(block, size) table_block_put((block), (size))
#include <uthash.h>

struct mapping {
    uint64_t va;
    uint64_t size;
    uint64_t handle;
    UT_hash_handle hh;
};

static struct {
    struct vt_alloc_table by_space[VT_SPACE_COUNT];
    struct mapping *mappings;
    uint64_t live_bytes; /* device + managed */
    uint64_t seq;
    struct vt_entry_pool maps;
} table = {.maps = VT_ENTRY_POOL(struct mapping)};

static struct vt_live *find(enum vt_space space, uint64_t key)
{
    return vt_alloc_table_find(&table.by_space[space], key);
}

/* The device's view: a tensor's bytes are its segment's. */
static int counts_on_device(const struct vt_alloc_info *info)
{
    return vt_kind_counts_as_vram(info->kind) && info->space != VT_SPACE_TENSOR;
}

/* The program's view, as leaked_since counts: a framework's tensors, not
 * the segments of its cache that hold them. */
static int counts_for_checkpoints(const struct vt_alloc_info *info)
{
    return vt_kind_counts_as_vram(info->kind) && !info->cache_segment;
}

/* E, filled in, entered the table: the counters. */
static void count(const struct vt_live *e)
{
    if (counts_on_device(&e->info))
        __atomic_fetch_add(&table.live_bytes, e->info.size, __ATOMIC_RELAXED);
    if (counts_for_checkpoints(&e->info))
        vt_peaks_change(e->seq, (int64_t)e->info.size);
    vt_output->insert(&e->info, e->stack);
}

/* E leaves the counters (it stays in the table). */
static void uncount(const struct vt_live *e)
{
    if (counts_on_device(&e->info))
        __atomic_fetch_sub(&table.live_bytes, e->info.size, __ATOMIC_RELAXED);
    if (counts_for_checkpoints(&e->info))
        vt_peaks_change(e->seq, -(int64_t)e->info.size);
    vt_output->discard(&e->info, e->stack);
}

static void discard(struct vt_live *e)
{
    uncount(e);
    vt_alloc_table_remove(&table.by_space[e->info.space], e);
}

/* The entry of INFO's key, holding INFO (the rest to fill in, then
 * count); NULL when memory ran out. One still there is an address handed
 * out again: its free went unseen. */
static struct vt_live *enter(const struct vt_alloc_info *info)
{
    int fresh;
    struct vt_live *e = vt_alloc_table_add(&table.by_space[info->space], info->key, &fresh);
    if (!e)
        return NULL;
    if (!fresh)
        uncount(e);
    e->info = *info;
    e->mappings = 0;
    e->released = 0;
    return e;
}

static void write_or_stop(int result)
{
    if (result < 0)
        vt_disable_locked(NULL); /* the writer said why */
    else if (result == VT_OUTPUT_SAMPLED)
        vt_devices_request(VT_USAGE_SAMPLE); /* the driver's view, once the lock is free */
}

static void write_alloc(const struct vt_live *e, unsigned flags, uint64_t time_ns)
{
    write_or_stop(vt_output->alloc(&e->info, e->stack, flags, time_ns));
}

/* INFO and STACK: what was freed (NULL, 0: nothing traced). */
static void write_free(const struct vt_alloc_info *info, uint32_t stack, uint64_t key, unsigned api,
                       unsigned status_flags, uint64_t stream, uint64_t time_ns)
{
    write_or_stop(vt_output->free(info, stack, key, api, status_flags, stream, time_ns));
}

static void track_alloc(const struct vt_alloc_info *info, const struct vt_stack *stack,
                        uint32_t stack_id, uint64_t now)
{
    struct vt_live *e;
    vt_lock();
    e = vt_output_ready() == 0 ? enter(info) : NULL;
    if (e) {
        write_or_stop(vt_thread_name_note());
        e->stack = stack ? vt_stack_intern(stack) : stack_id;
        e->seq = __atomic_add_fetch(&table.seq, 1, __ATOMIC_RELAXED);
        count(e);
        write_alloc(e, 0, now);
    }
    vt_unlock();
}

void vt_track_alloc(const struct vt_alloc_info *info, const struct vt_stack *stack, uint64_t now)
{
    track_alloc(info, stack, 0, now);
}

void vt_track_alloc_interned(const struct vt_alloc_info *info, uint32_t stack_id)
{
    track_alloc(info, NULL, stack_id, vt_now_ns());
}

uint32_t vt_track_stack_id(const struct vt_stack *stack)
{
    uint32_t id = 0;
    vt_lock();
    if (vt_output_ready() == 0)
        id = vt_stack_intern(stack);
    vt_unlock();
    return id;
}

void vt_track_framework(const char *name, const char *version, unsigned state)
{
    vt_lock();
    if (vt_output_ready() == 0)
        write_or_stop(vt_rec_framework(name, version, state));
    vt_unlock();
}

uint64_t vt_track_live_size(uint64_t key, enum vt_space space)
{
    vt_lock();
    struct vt_live *e = find(space, key);
    uint64_t size = e ? e->info.size : 0;
    vt_unlock();
    return size;
}

void vt_track_failed(const struct vt_alloc_info *info, int error, const struct vt_stack *stack,
                     const struct vt_meminfo *mem)
{
    vt_lock();
    if (vt_output_ready() == 0) {
        write_or_stop(vt_thread_name_note());
        write_or_stop(vt_rec_failed(info->size, vt_stack_intern(stack), info->api, info->kind,
                                    info->device, error, mem));
    }
    vt_unlock();
}

/* The traced allocation E is being freed now: remembered for telling a
 * later refused free of it as a double free. */
static void remember_freed(const struct vt_live *e, unsigned api, uint32_t free_stack, uint64_t now)
{
    struct vt_freed *f = vt_freed_remember(e->info.key, e->info.space);
    f->alloc_stack = e->stack;
    f->alloc_api = e->info.api;
    f->alloc_kind = e->info.kind;
    f->alloc_device = e->info.device;
    f->size = e->info.size;
    f->time_ns = now;
    f->free_api = api;
    f->free_tid = vt_tid();
    f->free_stack = free_stack;
}

void vt_track_free_begin(uint64_t key, enum vt_space space, unsigned api, uint64_t stream,
                         const struct vt_stack *stack, struct vt_pending_free *pending,
                         uint64_t now)
{
    struct vt_live *e;
    pending->traced = 0;
    pending->call_ns.at = NULL;
    vt_lock();
    e = vt_output_ready() == 0 ? find(space, key) : NULL;
    if (e) {
        pending->traced = 1;
        pending->info = e->info;
        pending->stack = e->stack;
        pending->seq = e->seq;
        pending->free_stack = stack ? vt_stack_intern(stack) : 0;
        remember_freed(e, api, pending->free_stack, now);
        discard(e);
        write_free(&pending->info, pending->stack, key, api, VT_FREE_OK | vt_space_flag(space),
                   stream, now);
        vt_output_hold_free_call(&pending->call_ns);
    }
    vt_unlock();
}

/* Where the refused free came from, and what it tried to free: the live
 * allocation or a graph's allocation node (INFO, STACK_ID, KNOWN: the flag
 * that says which) or, for a double free, the one freed before. */
static void write_bad_free(uint64_t key, enum vt_space space, unsigned api, int result,
                           uint32_t free_stack, const struct vt_alloc_info *info,
                           uint32_t alloc_stack, unsigned known)
{
    const struct vt_freed *before = info ? NULL : vt_freed_find(key, space);
    struct vt_bad_free f = {
        .time_ns = vt_now_ns(),
        .address = key,
        .api = api,
        .flags = vt_space_flag(space),
        .error = result,
        .stack = free_stack,
    };
    if (info) {
        f.flags |= known;
        f.alloc_stack = alloc_stack;
        f.alloc_api = info->api;
        f.alloc_kind = info->kind;
        f.alloc_device = info->device;
        f.alloc_size = info->size;
    } else if (before) {
        f.flags |= VT_BAD_FREE_ALLOC_KNOWN | VT_BAD_FREE_DOUBLE;
        f.alloc_stack = before->alloc_stack;
        f.alloc_api = before->alloc_api;
        f.alloc_kind = before->alloc_kind;
        f.alloc_device = before->alloc_device;
        f.alloc_size = before->size;
        f.first_free_ns = before->time_ns;
        f.first_free_api = before->free_api;
        f.first_free_tid = before->free_tid;
        f.first_free_stack = before->free_stack;
    }
    write_or_stop(vt_rec_bad_free(&f));
}

void vt_track_free_end(uint64_t key, enum vt_space space, unsigned api, uint64_t stream,
                       const struct vt_stack *stack, const struct vt_pending_free *pending,
                       int result)
{
    struct vt_stack here;
    if (result != 0 && !stack) { /* refused: rare, worth its backtrace */
        vt_stack_capture(&here);
        stack = &here;
    }
    vt_lock();
    if (vt_output_ready() < 0) {
        vt_unlock();
        return;
    }
    uint32_t free_stack = result != 0 ? vt_stack_intern(stack) : 0;
    if (pending->traced) { /* the driver refused: it is still allocated */
        struct vt_live *e = enter(&pending->info);
        vt_freed_forget(key, space);
        if (e) {
            e->stack = pending->stack;
            e->seq = pending->seq;
            count(e);
            write_alloc(e, VT_ALLOC_RESTORED, vt_now_ns());
        }
        write_bad_free(key, space, api, result, free_stack, &pending->info, pending->stack,
                       VT_BAD_FREE_ALLOC_KNOWN);
    } else {
        unsigned status = result == 0 ? VT_FREE_UNTRACED : VT_FREE_INVALID;
        write_free(NULL, 0, key, api, status | vt_space_flag(space), stream, vt_now_ns());
        if (result != 0)
            write_bad_free(key, space, api, result, free_stack,
                           pending->graph_node ? &pending->info : NULL, pending->stack,
                           VT_BAD_FREE_GRAPH_NODE);
    }
    vt_unlock();
}

static void release_if_unused(struct vt_live *e, unsigned api)
{
    if (!e->released || e->mappings > 0)
        return;
    write_free(&e->info, e->stack, e->info.key, api, VT_FREE_OK | VT_ADDR_HANDLE, 0, vt_now_ns());
    discard(e);
}

static void forget_mapping(struct mapping *m)
{
    HASH_DEL(table.mappings, m);
    vt_entry_put(&table.maps, m);
}

void vt_track_vmm_map(uint64_t va, uint64_t size, uint64_t handle)
{
    struct mapping *m;
    struct vt_live *e;
    vt_lock();
    e = find(VT_SPACE_HANDLE, handle);
    if (e && vt_output_ready() == 0) {
        HASH_FIND(hh, table.mappings, &va, sizeof va, m);
        if (m) /* an unmap we did not see */
            forget_mapping(m);
        m = vt_entry_get(&table.maps);
        if (m) {
            *m = (struct mapping){.va = va, .size = size, .handle = handle};
            HASH_ADD(hh, table.mappings, va, sizeof m->va, m);
            e->mappings++;
        }
    }
    vt_unlock();
}

/* One mapping unmapped: its allocation is gone when released and unmapped. */
static void unmapped(struct mapping *m)
{
    struct vt_live *e = find(VT_SPACE_HANDLE, m->handle);
    forget_mapping(m);
    if (e && e->mappings > 0) {
        e->mappings--;
        release_if_unused(e, VT_API_cuMemUnmap);
    }
}

/* The driver unmaps whole mappings that cover the range without a gap
 * (cuMemUnmap refuses part of one): each is found by its address, the next
 * at the end of the one before, so that unmapping a segment page by page
 * (PyTorch's expandable segments) is linear. A range that has no mapping at
 * its start or one of its page boundaries is scanned, as it was before. */
void vt_track_vmm_unmap(uint64_t va, uint64_t size)
{
    struct mapping *m, *tmp;
    uint64_t at = va, end = va + size;
    vt_lock();
    if (vt_output_ready() == 0) {
        while (at < end) {
            HASH_FIND(hh, table.mappings, &at, sizeof at, m);
            if (!m || !m->size)
                break;
            at += m->size;
            unmapped(m);
        }
        if (at < end)
            HASH_ITER(hh, table.mappings, m, tmp) {
                if (m->va >= at && m->va < end)
                    unmapped(m);
            }
    }
    vt_unlock();
}

/* E (live at KEY in SPACE) is a segment of a framework's cache: marked for
 * the per-checkpoint figures, and said in the dump, once. Lock held. */
static void mark_cache_segment(struct vt_live *e, uint64_t key, enum vt_space space)
{
    if (!e || e->info.cache_segment)
        return;
    e->info.cache_segment = 1;
    vt_peaks_unsegment(e->seq, e->info.size);
    if (vt_output_ready() == 0)
        write_or_stop(vt_rec_cache_segment(key, vt_space_flag(space)));
}

int vt_track_nvtx_heap(uint64_t va, uint64_t size, struct vt_alloc_info *heap)
{
    struct vt_live *e;
    int ours = 0;
    vt_lock();
    e = vt_output_ready() == 0 ? find(VT_SPACE_POINTER, va) : NULL;
    if (e && (!e->info.cache_segment || e->info.nvtx_heap) && size <= e->info.size) {
        if (!e->info.nvtx_heap)
            write_or_stop(vt_rec_cache_segment(va, VT_SEGMENT_NVTX_HEAP));
        e->info.cache_segment = e->info.nvtx_heap = 1;
        *heap = e->info;
        ours = 1;
    }
    vt_unlock();
    return ours;
}

void vt_track_free_regions(uint64_t lo, uint64_t hi)
{
    uint64_t now = vt_now_ns();
    struct vt_alloc_table *t = &table.by_space[VT_SPACE_TENSOR];
    vt_lock();
    for (size_t i = 0; vt_output_ready() == 0 && t->slots && i <= t->mask;) {
        struct vt_live *e = &t->slots[i];
        if (!e->used || e->info.api != VT_API_nvtxMemRegionsRegister || e->info.key < lo ||
            e->info.key >= hi) {
            i++;
            continue;
        }
        remember_freed(e, VT_API_nvtxMemRegionsUnregister, 0, now);
        write_free(&e->info, e->stack, e->info.key, VT_API_nvtxMemRegionsUnregister, VT_FREE_OK, 0,
                   now);
        discard(e); /* an entry after it may move into slot i */
    }
    vt_unlock();
}

/* [VA, VA + SIZE) is a segment of a framework's cache, or a part of one
 * mapped (PyTorch's expandable segments, page by page): the allocation
 * behind it, a device pointer or each handle mapped there, is marked. */
void vt_track_cache_segment(uint64_t va, uint64_t size)
{
    struct mapping *m;
    struct vt_live *e;
    vt_lock();
    if ((e = find(VT_SPACE_POINTER, va)))
        mark_cache_segment(e, va, VT_SPACE_POINTER);
    for (uint64_t at = va; !e && at < va + size; at += m->size) {
        HASH_FIND(hh, table.mappings, &at, sizeof at, m);
        if (!m || !m->size)
            break;
        mark_cache_segment(find(VT_SPACE_HANDLE, m->handle), m->handle, VT_SPACE_HANDLE);
    }
    vt_unlock();
}

void vt_track_vmm_release(uint64_t handle)
{
    struct vt_live *e;
    vt_lock();
    e = vt_output_ready() == 0 ? find(VT_SPACE_HANDLE, handle) : NULL;
    if (e) {
        e->released = 1;
        release_if_unused(e, VT_API_cuMemRelease);
    }
    vt_unlock();
}

/* What a context's teardown frees: memory of that context, and with the
 * primary context of a device (DEVICE >= 0) what the device's memory pools
 * held (CTX NULL: the primary context is not known, anything on DEVICE).
 * cuMemCreate memory belongs to no context: the driver frees it only once
 * released and unmapped. */
static int torn_down(const struct vt_live *e, void *ctx, int device)
{
    if (e->info.api == VT_API_cuMemCreate)
        return 0;
    if (!ctx)
        return e->info.device == device;
    return e->info.ctx == ctx || (device >= 0 && !e->info.ctx && e->info.device == device);
}

void vt_track_teardown(void *ctx, int device, unsigned api)
{
    vt_lock();
    int ready = vt_output_ready();
    for (int s = 0; s < 2 && ready == 0; s++) {
        struct vt_alloc_table *t = &table.by_space[s];
        for (size_t i = 0; t->slots && i <= t->mask;) {
            struct vt_live *e = &t->slots[i];
            if (!e->used || !torn_down(e, ctx, device)) {
                i++;
                continue;
            }
            write_free(&e->info, e->stack, e->info.key, api,
                       VT_FREE_TEARDOWN | vt_space_flag(e->info.space), 0, vt_now_ns());
            discard(e); /* an entry after it may move into slot i */
        }
    }
    vt_unlock();
}

/* Without the lock: a signal handler may ask while its thread holds it. */
uint64_t vt_track_live_bytes(void)
{
    return __atomic_load_n(&table.live_bytes, __ATOMIC_RELAXED);
}

/* Lock held. */
uint64_t vt_track_live_count(void)
{
    return table.by_space[VT_SPACE_POINTER].count + table.by_space[VT_SPACE_HANDLE].count;
}

uint64_t vt_track_checkpoint(void)
{
    return __atomic_load_n(&table.seq, __ATOMIC_RELAXED);
}

uint64_t vt_track_checkpoint_followed(void)
{
    vt_lock();
    uint64_t seq = table.seq;
    vt_peaks_follow(seq);
    vt_unlock();
    return seq;
}

bool vt_track_peak_since(uint64_t checkpoint, uint64_t *peak)
{
    vt_lock();
    bool followed = vt_peaks_since(checkpoint, peak);
    vt_unlock();
    return followed;
}

/* What a program left since a checkpoint: its device memory, and inside a
 * framework's cache whose tensors are traced, the tensors it kept, not the
 * segments that hold them (they came at whichever line grew the cache). */
static int left_since(const struct vt_live *e, uint64_t checkpoint)
{
    return e->used && e->seq > checkpoint && vt_kind_counts_as_vram(e->info.kind) &&
           !e->info.cache_segment;
}

uint64_t vt_track_bytes_since(uint64_t checkpoint)
{
    uint64_t bytes = 0;
    vt_lock();
    for (int s = 0; s < VT_SPACE_COUNT; s++) {
        const struct vt_alloc_table *t = &table.by_space[s];
        for (size_t i = 0; t->slots && i <= t->mask; i++) {
            const struct vt_live *e = &t->slots[i];
            if (left_since(e, checkpoint))
                bytes += e->info.size;
        }
    }
    vt_unlock();
    return bytes;
}

struct site_sum {
    uint32_t stack;
    uint64_t bytes, allocations;
};

static void add_to_sites(struct site_sum *sums, size_t *n, const struct vt_live *e)
{
    size_t i = 0;
    while (i < *n && sums[i].stack != e->stack)
        i++;
    if (i == *n) {
        if (*n == VT_SITES_TRACKED)
            return;
        sums[(*n)++] = (struct site_sum){.stack = e->stack};
    }
    sums[i].bytes += e->info.size;
    sums[i].allocations++;
}

static int by_bytes_desc(const void *pa, const void *pb)
{
    const struct site_sum *a = pa, *b = pb;
    if (a->bytes != b->bytes)
        return a->bytes > b->bytes ? -1 : 1;
    return a->stack < b->stack ? -1 : a->stack > b->stack;
}

size_t vt_track_sites_since(uint64_t checkpoint, struct vt_site_total *out, size_t max)
{
    struct site_sum sums[VT_SITES_TRACKED];
    size_t n = 0;
    vt_lock();
    for (int s = 0; s < VT_SPACE_COUNT; s++) {
        const struct vt_alloc_table *t = &table.by_space[s];
        for (size_t i = 0; t->slots && i <= t->mask; i++) {
            const struct vt_live *e = &t->slots[i];
            if (left_since(e, checkpoint))
                add_to_sites(sums, &n, e);
        }
    }
    qsort(sums, n, sizeof *sums, by_bytes_desc);
    if (n > max)
        n = max;
    for (size_t i = 0; i < n; i++) {
        out[i].bytes = sums[i].bytes;
        out[i].allocations = sums[i].allocations;
        out[i].nframes = vt_stack_frames(sums[i].stack, out[i].frames, VT_SITE_FRAMES);
    }
    vt_unlock();
    return n;
}

void vt_track_reset(void)
{
    struct mapping *m, *mtmp;
    for (int s = 0; s < VT_SPACE_COUNT; s++) {
        struct vt_alloc_table *t = &table.by_space[s];
        for (size_t i = 0; t->slots && i <= t->mask; i++)
            if (t->slots[i].used)
                uncount(&t->slots[i]);
        vt_alloc_table_free(t);
    }
    HASH_ITER(hh, table.mappings, m, mtmp)
        forget_mapping(m);
    table.seq = 0;
    vt_peaks_reset();
    vt_freed_reset();
}
