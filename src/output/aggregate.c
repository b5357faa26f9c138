/* SPDX-License-Identifier: MIT */
#include "aggregate.h"

#include "format.h"
#include "output.h"
#include "records.h"
#include "warn.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FIRST_INTERVAL_NS (100u * 1000000u)

/* Sites in an array (indices stay valid as it grows), found through an
 * open-addressing table of index + 1 (0: empty slot). Everything a record
 * needs is allocated beforehand, so records can be written from signal
 * handlers. */
static struct {
    struct vt_agg_site *sites;
    size_t nsites, cap;
    uint32_t *slots;
    size_t mask;     /* slot count - 1 */
    uint32_t *dirty; /* indices of sites changed since the last SAMPLE */
    size_t ndirty;
    uint8_t *buf; /* record encoding, VT_AGG_RECORD_MAX(cap) bytes */
    size_t last;  /* lookup cache: an alloc and its free, a loop */
    int out_of_memory;
    struct vt_agg_device devices[VT_AGG_DEVICES_MAX];
    size_t ndevices;
    struct vt_agg_counts counts;
    int changed; /* anything since the last SAMPLE */
    uint64_t first_interval_ns, interval_ns, next_sample_ns;
    unsigned samples_at_interval;
} agg;

/* VRAMTRACE_MODE: "aggregate", or "events" (the default; other values warned). */
static int aggregate_requested(void)
{
    const char *mode = getenv("VRAMTRACE_MODE");
    if (!mode || !*mode || !strcmp(mode, "events"))
        return 0;
    if (!strcmp(mode, "aggregate"))
        return 1;
    vt_warn("VRAMTRACE_MODE=%s is neither events nor aggregate; recording every event", mode);
    return 0;
}

/* VRAMTRACE_SAMPLE_INTERVAL_MS: whole milliseconds, at most a day. */
static uint64_t first_interval(void)
{
    const char *ms = getenv("VRAMTRACE_SAMPLE_INTERVAL_MS");
    char *end;
    unsigned long long n;
    if (!ms || !*ms)
        return FIRST_INTERVAL_NS;
    errno = 0;
    n = strtoull(ms, &end, 10);
    if (*end || errno || n == 0 || n > 86400000ull || *ms == '-') {
        vt_warn("VRAMTRACE_SAMPLE_INTERVAL_MS=%s is not a whole number of milliseconds from 1 "
                "to 86400000; sampling every %u ms",
                ms, FIRST_INTERVAL_NS / 1000000u);
        return FIRST_INTERVAL_NS;
    }
    return (uint64_t)n * 1000000u;
}

int vt_agg_configure(void)
{
    int saved = errno; /* the program's, whatever strtoull does */
    int requested = aggregate_requested();
    if (requested)
        agg.first_interval_ns = agg.interval_ns = first_interval();
    errno = saved;
    return requested;
}

static struct vt_site_key site_of(const struct vt_alloc_info *info, uint32_t stack)
{
    return vt_site_key(stack, info->api, info->kind, info->device);
}

static size_t slot_of(const struct vt_site_key *key)
{
    uint64_t h = key->stack_id * 0x9e3779b97f4a7c15ull;
    h ^= (key->api << 40 | key->kind << 32 | (uint32_t)key->device) * 0xff51afd7ed558ccdull;
    return (size_t)(h ^ h >> 29) & agg.mask;
}

static struct vt_agg_site *find(const struct vt_alloc_info *info, uint32_t stack)
{
    struct vt_site_key key = site_of(info, stack);
    if (agg.nsites && vt_site_key_eq(&agg.sites[agg.last].key, &key))
        return &agg.sites[agg.last];
    if (!agg.slots)
        return NULL;
    for (size_t i = slot_of(&key); agg.slots[i]; i = (i + 1) & agg.mask)
        if (vt_site_key_eq(&agg.sites[agg.slots[i] - 1].key, &key)) {
            agg.last = agg.slots[i] - 1;
            return &agg.sites[agg.last];
        }
    return NULL;
}

static void put_slot(const struct vt_agg_site *s, uint32_t index)
{
    size_t i = slot_of(&s->key);
    while (agg.slots[i])
        i = (i + 1) & agg.mask;
    agg.slots[i] = index + 1;
}

/* Room for twice as many sites, the table at most half full. */
static int grow(void)
{
    size_t cap = agg.cap ? 2 * agg.cap : 64;
    struct vt_agg_site *sites = realloc(agg.sites, cap * sizeof *sites);
    if (sites)
        agg.sites = sites;
    uint32_t *dirty = sites ? realloc(agg.dirty, cap * sizeof *dirty) : NULL;
    if (dirty)
        agg.dirty = dirty;
    uint8_t *buf = dirty ? malloc(VT_AGG_RECORD_MAX(cap)) : NULL;
    uint32_t *slots = buf ? calloc(2 * cap, sizeof *slots) : NULL;
    if (!slots) {
        free(buf);
        return -1;
    }
    free(agg.buf);
    free(agg.slots);
    agg.buf = buf;
    agg.slots = slots;
    agg.mask = 2 * cap - 1;
    agg.cap = cap;
    for (size_t i = 0; i < agg.nsites; i++)
        put_slot(&agg.sites[i], (uint32_t)i);
    return 0;
}

static struct vt_agg_site *find_or_add(const struct vt_alloc_info *info, uint32_t stack)
{
    struct vt_agg_site *s = find(info, stack);
    if (s)
        return s;
    if (agg.nsites == agg.cap && grow() < 0) {
        agg.out_of_memory = 1;
        return NULL;
    }
    s = &agg.sites[agg.nsites];
    *s = (struct vt_agg_site){.key = site_of(info, stack)};
    put_slot(s, (uint32_t)agg.nsites);
    agg.last = agg.nsites++;
    return s;
}

/* NULL when VT_AGG_DEVICES_MAX devices are taken (their sites stay exact). */
static struct vt_agg_device *device(int id)
{
    for (size_t i = 0; i < agg.ndevices; i++)
        if (agg.devices[i].device == id)
            return &agg.devices[i];
    if (agg.ndevices == VT_AGG_DEVICES_MAX)
        return NULL;
    agg.devices[agg.ndevices] = (struct vt_agg_device){.device = id};
    return &agg.devices[agg.ndevices++];
}

static void mark_dirty(struct vt_agg_site *s)
{
    agg.changed = 1;
    if (!s->dirty) {
        s->dirty = 1;
        agg.dirty[agg.ndirty++] = (uint32_t)(s - agg.sites);
    }
}

/* Live bytes of a site and its device moved by SIGN (+1 or -1) x SIZE. */
static void move_live(struct vt_agg_site *s, const struct vt_alloc_info *info, int sign)
{
    struct vt_agg_device *d;
    s->live_count += (uint64_t)(int64_t)sign;
    s->live_bytes += (uint64_t)(int64_t)sign * info->size;
    mark_dirty(s);
    if (!vt_kind_counts_as_vram(info->kind) || info->space == VT_SPACE_TENSOR)
        return; /* a tensor's bytes are its segment's on the device */
    agg.counts.live_bytes += (uint64_t)(int64_t)sign * info->size;
    d = device(info->device);
    if (d)
        d->live_bytes += (uint64_t)(int64_t)sign * info->size;
}

static void insert(const struct vt_alloc_info *info, uint32_t stack)
{
    struct vt_agg_site *s = find_or_add(info, stack);
    if (s)
        move_live(s, info, +1);
}

static void discard(const struct vt_alloc_info *info, uint32_t stack)
{
    struct vt_agg_site *s = find(info, stack);
    if (s)
        move_live(s, info, -1);
}

/* The encoding buffer; before the first site, one that fits no sites. */
static uint8_t *record_buf(size_t *cap)
{
    static uint8_t no_sites[VT_AGG_RECORD_MAX(0)];
    *cap = agg.buf ? VT_AGG_RECORD_MAX(agg.cap) : sizeof no_sites;
    return agg.buf ? agg.buf : no_sites;
}

static int write_sample(void)
{
    size_t cap;
    uint8_t *buf = record_buf(&cap);
    int result = vt_rec_sample(buf, cap, &agg.counts, agg.devices, agg.ndevices, agg.sites,
                               agg.dirty, agg.ndirty);
    for (size_t i = 0; i < agg.ndirty; i++)
        agg.sites[agg.dirty[i]].dirty = 0;
    agg.ndirty = 0;
    agg.changed = 0;
    return result;
}

/* A SAMPLE at the first event at or after the next sample time; after
 * VT_SAMPLES_PER_INTERVAL of them the interval doubles, so their number
 * grows with the logarithm of the run time. */
static int tick(uint64_t now)
{
    if (!agg.next_sample_ns) {
        agg.next_sample_ns = now + agg.interval_ns;
        return 0;
    }
    if (now < agg.next_sample_ns)
        return 0;
    if (++agg.samples_at_interval == VT_SAMPLES_PER_INTERVAL) {
        agg.samples_at_interval = 0;
        agg.interval_ns *= 2;
    }
    int result = write_sample();
    /* from the sample's own time: samples in the dump lie an interval apart */
    agg.next_sample_ns = vt_rec_last_time() + agg.interval_ns;
    return result < 0 ? result : VT_OUTPUT_SAMPLED;
}

static int out_of_memory(void)
{
    vt_disable_locked("out of memory for the per-site aggregates");
    return -1;
}

static void note_peak(int id, uint64_t now)
{
    struct vt_agg_device *d = device(id);
    if (agg.counts.live_bytes > agg.counts.peak_bytes) {
        agg.counts.peak_bytes = agg.counts.live_bytes;
        agg.counts.peak_ns = now;
    }
    if (d && d->live_bytes > d->peak_bytes) {
        d->peak_bytes = d->live_bytes;
        d->peak_ns = now;
    }
}

static int write_alloc(const struct vt_alloc_info *info, uint32_t stack, unsigned kind_flags,
                       uint64_t now)
{
    struct vt_agg_site *s = find(info, stack);
    if (!s || agg.out_of_memory)
        return out_of_memory();
    if (kind_flags & VT_ALLOC_RESTORED) {
        /* the free before it failed: an invalid free, not a free (as the CLI counts) */
        s->frees -= s->frees > 0;
        agg.counts.frees -= agg.counts.frees > 0;
        agg.counts.invalid_frees++;
    } else {
        s->allocations++;
        s->bytes_allocated += info->size;
        agg.counts.allocations++;
    }
    if (vt_kind_counts_as_vram(info->kind))
        note_peak(info->device, now);
    return tick(now);
}

static int write_free(const struct vt_alloc_info *info, uint32_t stack, uint64_t key, unsigned api,
                      unsigned status_flags, uint64_t stream, uint64_t now)
{
    (void)key;
    (void)api;
    (void)stream;
    struct vt_agg_site *s = info ? find(info, stack) : NULL;
    agg.changed = 1;
    switch (status_flags & VT_FREE_STATUS_MASK) {
    case VT_FREE_OK:
        if (s)
            s->frees++;
        agg.counts.frees++;
        break;
    case VT_FREE_TEARDOWN:
        agg.counts.teardown_count++;
        agg.counts.teardown_bytes += info ? info->size : 0;
        break;
    case VT_FREE_UNTRACED:
        agg.counts.untraced_frees++;
        break;
    default:
        agg.counts.invalid_frees++;
    }
    return tick(now);
}

/* Its samples are older: the live bytes of now. */
static uint64_t device_traced_plus1(int id)
{
    for (size_t i = 0; i < agg.ndevices; i++)
        if (agg.devices[i].device == id)
            return agg.devices[i].live_bytes + 1;
    return 1;
}

/* A SAMPLE now, when anything changed since the last one (before a MARK,
 * so growth between markers is exact). Async-signal-safe. */
static int sample_now(void)
{
    if (!agg.changed)
        return 0;
    return write_sample();
}

/* SITES and TOTALS, before END. Async-signal-safe. */
static void finish(void)
{
    size_t cap;
    uint8_t *buf = record_buf(&cap);
    vt_rec_sites(buf, cap, agg.sites, agg.nsites);
    vt_rec_totals(buf, cap, &agg.counts, agg.devices, agg.ndevices);
}

void vt_agg_reset(void)
{
    agg.nsites = agg.ndirty = agg.ndevices = agg.last = 0;
    if (agg.slots)
        memset(agg.slots, 0, (agg.mask + 1) * sizeof *agg.slots);
    memset(&agg.counts, 0, sizeof agg.counts);
    agg.changed = agg.out_of_memory = 0;
    agg.interval_ns = agg.first_interval_ns;
    agg.next_sample_ns = 0;
    agg.samples_at_interval = 0;
}

const struct vt_output vt_output_aggregate = {
    .header_flags = VT_FLAG_AGGREGATED,
    .insert = insert,
    .discard = discard,
    .alloc = write_alloc,
    .free = write_free,
    .before_mark = sample_now,
    .finish = finish,
    .device_traced_plus1 = device_traced_plus1,
};
