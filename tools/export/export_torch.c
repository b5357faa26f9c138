/* SPDX-License-Identifier: MIT */
/* The pickle `torch.cuda.memory._dump_snapshot()` writes, the parts that
 * PyTorch's memory_viz (https://pytorch.org/memory_viz) reads: "device_traces"
 * (one list of trace events per device, in time order) and "segments" (the
 * memory held when the dump ends).
 *
 * Where PyTorch's tensors were traced inside its cache, as PyTorch's own
 * snapshot has them: a segment of the cache is segment_alloc and
 * segment_free, each tensor alloc and free_requested + free_completed, and
 * a segment still held at the end lists its tensors as active_allocated
 * blocks, the room between them inactive (expandable segments are handles,
 * not addresses: their tensors are in the trace, not in the segments list).
 * Any other allocation is its own segment holding one block: segment_alloc
 * + alloc, its free free_requested + free_completed + segment_free (with
 * the allocation's frames: frees have no stack), one segment of one
 * active_allocated block at the end. Which allocations are the cache's
 * segments is read first (CACHE_SEGMENT records follow their allocation).
 * An out-of-memory failure is an "oom" event.
 * Times (time_us) are microseconds since the epoch, as PyTorch's. Page-locked
 * host memory is left out (it is no device's); an allocation whose device is
 * unknown is put on device 0. One pass over the dump per device: each
 * device's list is written whole before the next. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "export.h"
#include "pickle.h"
#include "xalloc.h"

#define OOM_ERROR 2 /* CUDA_ERROR_OUT_OF_MEMORY */

struct live_key {
    uint64_t address;
    uint64_t is_handle;
};

struct live_block {
    struct live_key key;
    uint64_t size, stack_id, stream;
    unsigned api;
    bool cache_segment; /* holds tensors, traced as blocks of their own */
    UT_hash_handle hh;
};

/* An allocation that was a segment of a framework's cache: its address and
 * when it was made (an address is used again). */
struct cache_segment {
    struct live_key key;
    uint64_t time_ns;
};

struct segment_mark {
    struct cache_segment segment;
    UT_hash_handle hh;
};

struct frames_memo {
    uint64_t stack_id;
    uint32_t memo;
    UT_hash_handle hh;
};

/* Memo ids of the strings written many times (0: not written yet). */
enum {
    S_ACTION,
    S_ADDR,
    S_SIZE,
    S_STREAM,
    S_TIME,
    S_FRAMES,
    S_FILENAME,
    S_LINE,
    S_NAME,
    S_ALLOC,
    S_FREE_REQUESTED,
    S_FREE_COMPLETED,
    S_SEGMENT_ALLOC,
    S_SEGMENT_FREE,
    S_COUNT
};
static const char *const interned_text[S_COUNT] = {
    "action", "addr", "size",  "stream",         "time_us",        "frames",        "filename",
    "line",   "name", "alloc", "free_requested", "free_completed", "segment_alloc", "segment_free"};

struct torch {
    struct vt_pickle p;
    uint32_t interned[S_COUNT];
    const struct vt_dump *dump; /* the first read: stacks, modules */
    struct vt_symbolizer *sym;
    struct frames_memo *frames;
    struct live_block *live;       /* this pass's device: allocations */
    struct live_block *tensors;    /* ... and tensors inside the cache's segments */
    struct segment_mark *made;     /* the first pass: live allocations, when made */
    struct segment_mark *segments; /* the cache's segments */
    int64_t device;                /* of this pass */
    uint64_t start_real_ns;
};

static void key(struct torch *t, unsigned which)
{
    vt_pickle_interned(&t->p, &t->interned[which], interned_text[which]);
}

static const char *base(const char *path)
{
    const char *slash = path ? strrchr(path, '/') : NULL;
    return slash ? slash + 1 : path;
}

/* One frame as memory_viz shows it: "filename:line:name". */
static void write_frame(struct torch *t, const struct vt_frame *f)
{
    char name[512];
    if (f->function)
        snprintf(name, sizeof name, "%s", f->function);
    else if (f->module)
        snprintf(name, sizeof name, "%s+0x%" PRIx64, base(f->module), f->offset);
    else
        snprintf(name, sizeof name, "0x%" PRIx64, f->address);
    vt_pickle_dict_begin(&t->p);
    key(t, S_FILENAME);
    vt_pickle_str(&t->p, f->file ? f->file : f->module ? f->module : "??");
    key(t, S_LINE);
    vt_pickle_uint(&t->p, f->line);
    key(t, S_NAME);
    vt_pickle_str(&t->p, name);
    vt_pickle_dict_end(&t->p);
}

static const struct vt_frame behalf_marker = {.function = VT_BEHALF_MARKER};

/* A stack's frames, innermost first, written once and then referred to. */
static void write_frames(struct torch *t, uint64_t stack_id, unsigned api)
{
    struct frames_memo *m;
    HASH_FIND(hh, t->frames, &stack_id, sizeof stack_id, m);
    if (m) {
        vt_pickle_memo_get(&t->p, m->memo);
        return;
    }
    struct vt_site site;
    vt_site_frames(t->sym, t->dump, stack_id, api, &site);
    vt_pickle_list_begin(&t->p);
    for (size_t i = 0; i < site.nframes; i++)
        write_frame(t, site.frames[i]);
    if (site.behalf) { /* then the thread it allocated for (backward()'s caller) */
        write_frame(t, &behalf_marker);
        for (size_t i = 0; i < site.behalf->nframes; i++)
            write_frame(t, site.behalf->frames[i]);
    }
    vt_pickle_list_end(&t->p);
    vt_site_free(&site);
    m = vt_xcalloc(1, sizeof *m);
    m->stack_id = stack_id;
    m->memo = vt_pickle_memo_put(&t->p);
    HASH_ADD(hh, t->frames, stack_id, sizeof m->stack_id, m);
}

static void write_event(struct torch *t, unsigned action, const struct live_block *b,
                        uint64_t time_ns)
{
    vt_pickle_dict_begin(&t->p);
    key(t, S_ACTION);
    key(t, action);
    key(t, S_ADDR);
    vt_pickle_uint(&t->p, b->key.address);
    key(t, S_SIZE);
    vt_pickle_uint(&t->p, b->size);
    key(t, S_STREAM);
    vt_pickle_uint(&t->p, b->stream);
    key(t, S_TIME);
    vt_pickle_uint(&t->p, (t->start_real_ns + time_ns) / 1000);
    key(t, S_FRAMES);
    write_frames(t, b->stack_id, b->api);
    vt_pickle_dict_end(&t->p);
}

static int64_t device_of(int64_t device)
{
    return device < 0 ? 0 : device;
}

static void release(struct torch *t, struct live_block *b, uint64_t time_ns)
{
    write_event(t, S_FREE_REQUESTED, b, time_ns);
    write_event(t, S_FREE_COMPLETED, b, time_ns);
    write_event(t, S_SEGMENT_FREE, b, time_ns);
    HASH_DEL(t->live, b);
    free(b);
}

/* A segment of the cache, or a tensor in one, freed: its events only. */
static void release_part(struct torch *t, struct live_block **table, struct live_block *b,
                         uint64_t time_ns)
{
    if (b->cache_segment) {
        write_event(t, S_SEGMENT_FREE, b, time_ns);
    } else {
        write_event(t, S_FREE_REQUESTED, b, time_ns);
        write_event(t, S_FREE_COMPLETED, b, time_ns);
    }
    HASH_DEL(*table, b);
    free(b);
}

static bool is_cache_segment(const struct torch *t, struct live_key k, uint64_t time_ns)
{
    struct cache_segment key = {k, time_ns};
    struct segment_mark *m;
    HASH_FIND(hh, t->segments, &key, sizeof key, m);
    return m != NULL;
}

static void on_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct torch *t = ctx;
    struct live_key k = {ev->address, (ev->flags & VT_ADDR_HANDLE) != 0};
    bool tensor = vt_api_in_segment(ev->api);
    struct live_block *b, **table = tensor ? &t->tensors : &t->live;
    if (!vt_kind_counts_as_vram(ev->kind) || device_of(ev->device) != t->device)
        return;
    HASH_FIND(hh, *table, &k, sizeof k, b);
    if (b && (tensor || b->cache_segment)) /* a free the tracer never saw: the newer wins */
        release_part(t, table, b, ev->time_ns);
    else if (b)
        release(t, b, ev->time_ns);
    b = vt_xcalloc(1, sizeof *b);
    *b = (struct live_block){.key = k,
                             .size = ev->size,
                             .stack_id = ev->stack_id,
                             .stream = ev->stream,
                             .api = ev->api,
                             .cache_segment = !tensor && is_cache_segment(t, k, ev->time_ns)};
    HASH_ADD(hh, *table, key, sizeof b->key, b);
    if (!tensor)
        write_event(t, S_SEGMENT_ALLOC, b, ev->time_ns);
    if (!b->cache_segment)
        write_event(t, S_ALLOC, b, ev->time_ns);
}

static void on_free(void *ctx, const struct vt_free_event *ev)
{
    struct torch *t = ctx;
    struct live_key k = {ev->address, (ev->flags & VT_ADDR_HANDLE) != 0};
    bool tensor = vt_api_in_segment(ev->api);
    struct live_block *b, **table = tensor ? &t->tensors : &t->live;
    if (ev->status != VT_FREE_OK && ev->status != VT_FREE_TEARDOWN)
        return;
    HASH_FIND(hh, *table, &k, sizeof k, b);
    if (b && (tensor || b->cache_segment))
        release_part(t, table, b, ev->time_ns);
    else if (b)
        release(t, b, ev->time_ns);
}

/* The first pass: which allocations the cache's allocator called its
 * segments (CACHE_SEGMENT follows the allocation, after its events would
 * have been written). */
static void find_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    struct torch *t = ctx;
    if (vt_api_in_segment(ev->api))
        return;
    struct segment_mark *m = vt_xcalloc(1, sizeof *m), *old;
    m->segment =
        (struct cache_segment){{ev->address, (ev->flags & VT_ADDR_HANDLE) != 0}, ev->time_ns};
    HASH_FIND(hh, t->made, &m->segment.key, sizeof m->segment.key, old);
    if (old) {
        HASH_DEL(t->made, old);
        free(old);
    }
    HASH_ADD(hh, t->made, segment.key, sizeof m->segment.key, m);
}

static void find_segment(void *ctx, const struct vt_cache_segment_event *ev)
{
    struct torch *t = ctx;
    struct live_key k = {ev->address, (ev->flags & VT_ADDR_HANDLE) != 0};
    struct segment_mark *made, *m;
    HASH_FIND(hh, t->made, &k, sizeof k, made);
    if (!made || is_cache_segment(t, k, made->segment.time_ns))
        return;
    m = vt_xcalloc(1, sizeof *m);
    m->segment = made->segment;
    HASH_ADD(hh, t->segments, segment, sizeof m->segment, m);
}

static const struct vt_event_sink segments_sink = {.alloc = find_alloc,
                                                   .cache_segment = find_segment};

static void str_item(struct torch *t, const char *k, const char *v)
{
    vt_pickle_str(&t->p, k);
    vt_pickle_str(&t->p, v);
}

static void uint_item(struct torch *t, const char *k, uint64_t v)
{
    vt_pickle_str(&t->p, k);
    vt_pickle_uint(&t->p, v);
}

/* What memory_viz's trace() and segsum() read of an out-of-memory error. */
static void on_failed(void *ctx, const struct vt_failed_event *ev)
{
    struct torch *t = ctx;
    if (ev->error != OOM_ERROR || !vt_kind_counts_as_vram(ev->kind) ||
        device_of(ev->device) != t->device)
        return;
    uint64_t device_free = ev->has_meminfo ? ev->mem_free : 0;
    vt_pickle_dict_begin(&t->p);
    str_item(t, "action", "oom");
    uint_item(t, "addr", device_free);
    uint_item(t, "size", ev->size);
    uint_item(t, "stream", 0);
    uint_item(t, "time_us", (t->start_real_ns + ev->time_ns) / 1000);
    uint_item(t, "device_free", device_free);
    key(t, S_FRAMES);
    write_frames(t, ev->stack_id, ev->api);
    vt_pickle_dict_end(&t->p);
}

static const struct vt_event_sink torch_sink = {
    .alloc = on_alloc, .free = on_free, .failed = on_failed};

static int by_address(const void *pa, const void *pb)
{
    const struct live_block *a = *(const struct live_block *const *)pa;
    const struct live_block *b = *(const struct live_block *const *)pb;
    return a->key.address < b->key.address ? -1 : a->key.address > b->key.address;
}

static void write_block(struct torch *t, uint64_t address, uint64_t size, const char *state,
                        const struct live_block *b)
{
    vt_pickle_dict_begin(&t->p);
    uint_item(t, "address", address);
    uint_item(t, "size", size);
    uint_item(t, "requested_size", b ? size : 0);
    str_item(t, "state", state);
    key(t, S_FRAMES);
    if (b)
        write_frames(t, b->stack_id, b->api);
    else { /* free room: no stack */
        vt_pickle_list_begin(&t->p);
        vt_pickle_list_end(&t->p);
    }
    vt_pickle_dict_end(&t->p);
}

/* A live set sorted by address (take_live). */
struct blocks {
    struct live_block **b;
    size_t n;
};

/* SEGMENT's blocks: the tensors inside it (from *NEXT on in TENSORS, by
 * address), the room between them inactive; without tensors of its own,
 * it is one block. Returns the bytes in tensors. */
static uint64_t write_blocks(struct torch *t, const struct live_block *segment,
                             const struct blocks *tensors, size_t *next)
{
    uint64_t at = segment->key.address, end = at + segment->size, used = 0;
    vt_pickle_str(&t->p, "blocks");
    vt_pickle_list_begin(&t->p);
    if (!segment->cache_segment) {
        write_block(t, at, segment->size, "active_allocated", segment);
        vt_pickle_list_end(&t->p);
        return segment->size;
    }
    while (*next < tensors->n && tensors->b[*next]->key.address < at)
        (*next)++; /* in no segment held at the end (an expandable one's) */
    for (; *next < tensors->n && tensors->b[*next]->key.address < end; (*next)++) {
        const struct live_block *b = tensors->b[*next];
        if (b->key.address > at)
            write_block(t, at, b->key.address - at, "inactive", NULL);
        write_block(t, b->key.address, b->size, "active_allocated", b);
        at = b->key.address + b->size;
        used += b->size;
    }
    if (at < end)
        write_block(t, at, end - at, "inactive", NULL);
    vt_pickle_list_end(&t->p);
    return used;
}

/* A segment, as torch.cuda.memory._snapshot() has them: the allocation's
 * own, or one of the cache's with its tensors. */
static void write_segment(struct torch *t, const struct live_block *b, const struct blocks *tensors,
                          size_t *next)
{
    vt_pickle_dict_begin(&t->p);
    uint_item(t, "device", (uint64_t)t->device);
    uint_item(t, "address", b->key.address);
    uint_item(t, "total_size", b->size);
    str_item(t, "segment_type", b->size >= (1u << 20) ? "large" : "small");
    vt_pickle_str(&t->p, "segment_pool_id");
    vt_pickle_int_pair(&t->p, 0, 0);
    vt_pickle_str(&t->p, "is_expandable");
    vt_pickle_bool(&t->p, false);
    uint_item(t, "stream", b->stream);
    key(t, S_FRAMES);
    write_frames(t, b->stack_id, b->api);
    uint64_t used = write_blocks(t, b, tensors, next);
    uint_item(t, "allocated_size", used);
    uint_item(t, "active_size", used);
    uint_item(t, "requested_size", used);
    vt_pickle_dict_end(&t->p);
}

/* The blocks still live after a pass, by address; the table is emptied. */
static struct blocks take_live(struct live_block **table)
{
    struct blocks all = {vt_xcalloc(HASH_COUNT(*table) + 1, sizeof *all.b), 0};
    struct live_block *b, *tmp;
    HASH_ITER(hh, *table, b, tmp) {
        HASH_DEL(*table, b);
        all.b[all.n++] = b;
    }
    qsort(all.b, all.n, sizeof *all.b, by_address);
    return all;
}

struct device_segments {
    struct blocks segments, tensors;
};

static int64_t device_count(const struct vt_analysis *a)
{
    int64_t n = 1;
    for (size_t i = 0; i < a->usage.ndevices; i++)
        if (a->usage.devices[i].device + 1 > n)
            n = a->usage.devices[i].device + 1;
    for (size_t i = 0; i < a->nfailures; i++)
        if (a->failures[i].device + 1 > n)
            n = a->failures[i].device + 1;
    return n;
}

static int write_traces(struct torch *t, const char *path, struct device_segments *segs,
                        int64_t ndevices)
{
    struct vt_dump first;
    int found = vt_dump_reread(path, &segments_sink, t, &first);
    vt_dump_free(&first);
    if (found != 0)
        return -1;
    vt_pickle_str(&t->p, "device_traces");
    vt_pickle_list_begin(&t->p);
    for (t->device = 0; t->device < ndevices; t->device++) {
        struct vt_dump again;
        vt_pickle_list_begin(&t->p);
        int status = vt_dump_reread(path, &torch_sink, t, &again);
        vt_dump_free(&again);
        if (status != 0)
            return -1;
        vt_pickle_list_end(&t->p);
        segs[t->device].segments = take_live(&t->live);
        segs[t->device].tensors = take_live(&t->tensors);
    }
    vt_pickle_list_end(&t->p);
    return 0;
}

static void write_segments(struct torch *t, struct device_segments *segs, int64_t ndevices)
{
    vt_pickle_str(&t->p, "segments");
    vt_pickle_list_begin(&t->p);
    for (t->device = 0; t->device < ndevices; t->device++) {
        size_t next = 0;
        for (size_t i = 0; i < segs[t->device].segments.n; i++)
            write_segment(t, segs[t->device].segments.b[i], &segs[t->device].tensors, &next);
    }
    vt_pickle_list_end(&t->p);
}

static void free_blocks(struct blocks *all)
{
    for (size_t i = 0; i < all->n; i++)
        free(all->b[i]);
    free(all->b);
}

static void free_all(struct torch *t, struct device_segments *segs, int64_t ndevices)
{
    struct frames_memo *m, *mtmp;
    struct live_block *b, *btmp;
    HASH_ITER(hh, t->frames, m, mtmp) {
        HASH_DEL(t->frames, m);
        free(m);
    }
    struct segment_mark *s, *stmp;
    struct live_block **blocks[] = {&t->live, &t->tensors};
    struct segment_mark **marks[] = {&t->made, &t->segments};
    for (size_t i = 0; i < 2; i++) {
        HASH_ITER(hh, *blocks[i], b, btmp) {
            HASH_DEL(*blocks[i], b);
            free(b);
        }
        HASH_ITER(hh, *marks[i], s, stmp) {
            HASH_DEL(*marks[i], s);
            free(s);
        }
    }
    for (int64_t d = 0; d < ndevices; d++) {
        free_blocks(&segs[d].segments);
        free_blocks(&segs[d].tensors);
    }
    free(segs);
}

int vt_export_torch_snapshot(const char *path, FILE *out)
{
    struct vt_loaded_report l;
    struct vt_report_options opts = {0};
    if (vt_report_load(path, &opts, &l) != 0)
        return -1;
    if (l.dump.aggregated) {
        fprintf(stderr,
                "vramtrace: %s: an aggregate-mode dump has no individual allocations "
                "for a memory_viz snapshot (trace in events mode, the default)\n",
                path);
        vt_report_unload(&l);
        return -1;
    }
    struct torch t = {.dump = &l.dump, .sym = l.sym, .start_real_ns = l.dump.process.start_real_ns};
    int64_t ndevices = device_count(&l.analysis);
    struct device_segments *segs = vt_xcalloc((size_t)ndevices, sizeof *segs);
    vt_pickle_begin(&t.p, out);
    vt_pickle_dict_begin(&t.p);
    int status = write_traces(&t, path, segs, ndevices);
    if (status == 0) {
        write_segments(&t, segs, ndevices);
        vt_pickle_dict_end(&t.p);
        vt_pickle_end(&t.p);
    }
    free_all(&t, segs, ndevices);
    vt_report_unload(&l);
    return status;
}
