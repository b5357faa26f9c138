/* SPDX-License-Identifier: MIT */
#include "records.h"

#include "config.h"
#include "deltas.h"
#include "format.h"
#include "proc_self.h"
#include "pystack.h"
#include "stack_limits.h"
#include "tracing.h"
#include "writer.h"

#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_STRING 4096
#define PROCESS_BUFFER (64 * 1024)

struct buf {
    uint8_t *data;
    size_t len, cap;
    int overflow;
};

struct vt_deltas vt_deltas;

uint64_t vt_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t vt_rec_last_time(void)
{
    return vt_deltas.last_time;
}

void vt_rec_rewind_time(uint64_t last_time)
{
    vt_deltas.last_time = last_time;
}

static void put_varint(struct buf *b, uint64_t v)
{
    if (b->len + VT_VARINT_MAX > b->cap) {
        b->overflow = 1;
        return;
    }
    b->len += vt_put_varint(b->data + b->len, v);
}

static void put_u8(struct buf *b, uint8_t v)
{
    if (b->len + 1 > b->cap) {
        b->overflow = 1;
        return;
    }
    b->data[b->len++] = v;
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
    if (n > MAX_STRING)
        n = MAX_STRING;
    put_varint(b, n);
    if (b->len + n > b->cap) {
        b->overflow = 1;
        return;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_str(struct buf *b, const char *s)
{
    put_bytes(b, s ? s : "", s ? strlen(s) : 0);
}

/* dt since the previous timed record; never negative. */
static void put_time(struct buf *b, uint64_t now)
{
    put_varint(b, vt_delta_time(now));
}

static void put_address(struct buf *b, uint64_t address)
{
    put_varint(b, vt_delta_address(address));
}

/* The field kinds of format.h's record layouts. */
static void vt_put_VARINT(struct buf *b, uint64_t v)
{
    put_varint(b, v);
}

static void vt_put_SVARINT(struct buf *b, int64_t v)
{
    put_varint(b, vt_zigzag(v));
}

static void vt_put_U8(struct buf *b, unsigned v)
{
    put_u8(b, (uint8_t)v);
}

static void vt_put_STR(struct buf *b, const char *s)
{
    put_str(b, s);
}

static void vt_put_BYTES(struct buf *b, struct vt_bytes bytes)
{
    put_bytes(b, bytes.data, bytes.len);
}

static void vt_put_COUNT(struct buf *b, uint64_t count)
{
    put_varint(b, count);
}

static void vt_put_WIDE(struct buf *b, uint64_t v)
{
    if (b->len + VT_WIDE_BYTES > b->cap) {
        b->overflow = 1;
        return;
    }
    vt_put_wide(b->data + b->len, v);
    b->len += VT_WIDE_BYTES;
}

static void vt_put_DT(struct buf *b, uint64_t now)
{
    put_time(b, now);
}

static void vt_put_ADDR(struct buf *b, uint64_t address)
{
    put_address(b, address);
}

#define DEFINE_ENCODER(TYPE) VT_DEFINE_ENCODER(TYPE, struct buf)
VT_RECORD_LAYOUTS(DEFINE_ENCODER)
#undef DEFINE_ENCODER

static int emit(uint8_t type, const struct buf *b)
{
    if (b->overflow)
        return 0; /* cannot happen for fixed-size records; drop rather than corrupt */
    return vt_writer_record(type, b->data, b->len);
}

/* /proc/self/cmdline: the arguments, each NUL-terminated, in CMDLINE
 * (LEN bytes); returns how many. */
static uint64_t read_cmdline(char *cmdline, size_t size, size_t *len)
{
    uint64_t argc = 0;
    *len = vt_proc_read("/proc/self/cmdline", cmdline, size - 1);
    cmdline[*len] = '\0';
    for (size_t i = 0; i < *len; i += strlen(cmdline + i) + 1)
        argc++;
    return argc;
}

static void read_boot_id(char *id, size_t size)
{
    size_t len = vt_proc_read("/proc/sys/kernel/random/boot_id", id, size - 1);
    while (len && (id[len - 1] == '\n' || id[len - 1] == ' '))
        len--;
    id[len] = '\0';
}

int vt_rec_process(void)
{
    static uint8_t data[PROCESS_BUFFER];
    static char cmdline[16 * 1024];
    struct buf b = {data, 0, sizeof data, 0};
    char exe[4096], host[256] = "", rank[24], boot_id[64];
    struct timespec real;
    size_t cmdline_len;
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    exe[n > 0 ? n : 0] = '\0';
    gethostname(host, sizeof host - 1);
    clock_gettime(CLOCK_REALTIME, &real);
    vt_deltas.start = vt_deltas.last_time = vt_now_ns();
    vt_deltas.last_address = 0;
    struct vt_rec_PROCESS head = {
        .pid = (uint64_t)getpid(),
        .ppid = (uint64_t)getppid(),
        .start_real_ns = (uint64_t)real.tv_sec * 1000000000u + (uint64_t)real.tv_nsec,
        .start_mono_ns = vt_deltas.last_time,
        .exe = exe,
        .hostname = host,
        .argc = read_cmdline(cmdline, sizeof cmdline, &cmdline_len),
    };
    vt_encode_PROCESS(&b, &head, 1);
    for (size_t i = 0; i < cmdline_len; i += strlen(cmdline + i) + 1)
        vt_encode_PROCESS_ARG(&b, &(struct vt_rec_PROCESS_ARG){.arg = cmdline + i}, 1);
    vt_config_rank(rank, sizeof rank);
    read_boot_id(boot_id, sizeof boot_id);
    struct vt_rec_PROCESS_TAIL tail = {
        .rank = rank, .start_ticks = vt_proc_start_ticks(), .boot_id = boot_id};
    vt_encode_PROCESS_TAIL(&b, &tail, 1);
    return emit(VT_REC_PROCESS, &b);
}

int vt_rec_module(const struct vt_module_info *m)
{
    uint8_t data[MAX_STRING + 128 + 64];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_MODULE rec = {
        .id = m->id,
        .bias = m->bias,
        .start = m->start,
        .end = m->end,
        .path = m->path,
        .build_id = {m->build_id, m->build_id_len > 64 ? 64 : m->build_id_len},
    };
    vt_encode_MODULE(&b, &rec, 1);
    return emit(VT_REC_MODULE, &b);
}

int vt_rec_module_unload(uint32_t id)
{
    uint8_t data[16];
    struct buf b = {data, 0, sizeof data, 0};
    vt_encode_MODULE_UNLOAD(&b, &(struct vt_rec_MODULE_UNLOAD){.module = id}, 1);
    return emit(VT_REC_MODULE_UNLOAD, &b);
}

/* The part STACK and PYSTACK share: the id and the native frames, each a
 * delta from the one before (the first from 0). */
static void put_native_frames(struct buf *b, uint32_t id, const uintptr_t *frames, unsigned n)
{
    uint64_t previous = 0;
    if (n > VT_STACK_MAX)
        n = VT_STACK_MAX;
    vt_encode_STACK(b, &(struct vt_rec_STACK){.id = id, .frames = n}, 1);
    for (unsigned i = 0; i < n; i++) {
        struct vt_rec_STACK_FRAME frame = {.delta = (int64_t)(frames[i] - previous)};
        vt_encode_STACK_FRAME(b, &frame, 1);
        previous = frames[i];
    }
}

/* Appended to STACK and PYSTACK only for a cut stack. */
static void put_cut(struct buf *b, const struct vt_stack_cut *cut)
{
    if (cut && cut->dropped)
        vt_encode_STACK_CUT(
            b, &(struct vt_rec_STACK_CUT){.dropped = cut->dropped, .cut_at = cut->at}, 1);
}

int vt_rec_stack(uint32_t id, const uintptr_t *frames, unsigned n, const struct vt_stack_cut *cut)
{
    uint8_t data[4 * VT_VARINT_MAX + VT_STACK_MAX * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    put_native_frames(&b, id, frames, n);
    put_cut(&b, cut);
    return emit(VT_REC_STACK, &b);
}

int vt_rec_pyframe(uint32_t id, const char *function, const char *file, int line)
{
    uint8_t data[2 * (VT_VARINT_MAX + MAX_STRING) + 2 * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_PYFRAME rec = {
        .id = id, .function = function, .file = file, .line = line > 0 ? (uint64_t)line : 0};
    vt_encode_PYFRAME(&b, &rec, 1);
    return emit(VT_REC_PYFRAME, &b);
}

/* The Python frames of the thread this one worked for, after the entries. */
static void put_behalf(struct buf *b, const struct vt_python_part *behalf)
{
    unsigned count = behalf->count > VT_PY_MAX ? VT_PY_MAX : behalf->count;
    struct vt_rec_PYSTACK_BEHALF head = {.flags = behalf->truncated ? VT_PYSTACK_TRUNCATED : 0,
                                         .behalf = count};
    vt_encode_PYSTACK_BEHALF(b, &head, 1);
    for (unsigned i = 0; i < count; i++)
        vt_encode_PYSTACK_BEHALF_FRAME(
            b, &(struct vt_rec_PYSTACK_BEHALF_FRAME){.id = behalf->ids[i]}, 1);
}

int vt_rec_pystack(uint32_t id, const uintptr_t *frames, unsigned n,
                   const struct vt_python_part *python, const struct vt_python_part *behalf,
                   const struct vt_stack_cut *cut)
{
    uint8_t data[10 * VT_VARINT_MAX + (VT_STACK_MAX + 3 * VT_PY_MAX) * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    unsigned count = python->count > VT_PY_MAX ? VT_PY_MAX : python->count;
    unsigned entries = python->entries > VT_PY_MAX ? VT_PY_MAX : python->entries;
    int with_behalf = behalf && behalf->count;
    put_native_frames(&b, id, frames, n);
    vt_encode_PYSTACK_PYTHON(&b, &(struct vt_rec_PYSTACK_PYTHON){.count = count}, 1);
    for (unsigned i = 0; i < count; i++)
        vt_encode_PYSTACK_PYFRAME(&b, &(struct vt_rec_PYSTACK_PYFRAME){.id = python->ids[i]}, 1);
    struct vt_rec_PYSTACK_TAIL tail = {.flags = python->truncated ? VT_PYSTACK_TRUNCATED : 0};
    vt_encode_PYSTACK_TAIL(&b, &tail, 1);
    /* The cut stands before the entries, written (0: not cut) when they follow. */
    struct vt_stack_cut none = {0, 0};
    if (!entries && !with_behalf) {
        put_cut(&b, cut);
        return emit(VT_REC_PYSTACK, &b);
    }
    cut = cut && cut->dropped ? cut : &none;
    vt_encode_STACK_CUT(&b, &(struct vt_rec_STACK_CUT){.dropped = cut->dropped, .cut_at = cut->at},
                        1);
    vt_encode_PYSTACK_ENTRIES(&b, &(struct vt_rec_PYSTACK_ENTRIES){.entries = entries}, 1);
    for (unsigned i = 0; i < entries; i++)
        vt_encode_PYSTACK_ENTRY(
            &b, &(struct vt_rec_PYSTACK_ENTRY){.frames = python->entry_frames[i]}, 1);
    if (with_behalf)
        put_behalf(&b, behalf);
    return emit(VT_REC_PYSTACK, &b);
}

int vt_rec_thread(pid_t tid, const char *name)
{
    uint8_t data[2 * VT_VARINT_MAX + 32];
    struct buf b = {data, 0, sizeof data, 0};
    vt_encode_THREAD(&b, &(struct vt_rec_THREAD){.tid = (uint64_t)tid, .name = name}, 1);
    return emit(VT_REC_THREAD, &b);
}

int vt_rec_framework(const char *name, const char *version, unsigned state)
{
    uint8_t data[3 * VT_VARINT_MAX + 64];
    struct buf b = {data, 0, sizeof data, 0};
    if (state == VT_FRAMEWORK_TENSORS && vt_writer_raise_version(VT_VERSION_TENSORS) < 0)
        return -1;
    vt_encode_FRAMEWORK(
        &b, &(struct vt_rec_FRAMEWORK){.name = name, .version = version, .state = state}, 1);
    return emit(VT_REC_FRAMEWORK, &b);
}

int vt_rec_failed(uint64_t size, uint32_t stack, unsigned api, unsigned kind, int device, int error,
                  const struct vt_meminfo *mem)
{
    uint8_t data[12 * VT_VARINT_MAX + VT_OOM_OTHERS * (3 * VT_VARINT_MAX + 18)];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_FAILED rec = {
        .time_ns = vt_now_ns(),
        .size = size,
        .stack = stack,
        .api = (uint8_t)api,
        .kind = (uint8_t)kind,
        .device = device,
        .tid = (uint64_t)vt_tid(),
        .error = (uint64_t)(unsigned)error,
    };
    if (mem) { /* the out-of-memory tail: the driver's free/total, NVML's view */
        rec.mem_free = mem->free_bytes;
        rec.mem_total = mem->total_bytes;
        rec.own_plus1 = mem->own_plus1;
        rec.others = mem->nothers;
    }
    vt_encode_FAILED(&b, &rec, mem != NULL);
    for (unsigned i = 0; mem && i < mem->nothers; i++) {
        const struct vt_other_process *p = &mem->others[i];
        struct vt_rec_FAILED_PROCESS other = {
            .pid = p->pid,
            .used_plus1 = p->used_plus1,
            .state = (uint8_t)p->state,
            .flags = p->flags,
            .comm = {(const uint8_t *)p->comm, strnlen(p->comm, sizeof p->comm)},
        };
        vt_encode_FAILED_PROCESS(&b, &other, 1);
    }
    return emit(VT_REC_FAILED, &b);
}

int vt_rec_mark(const char *label)
{
    uint8_t data[3 * VT_VARINT_MAX + MAX_STRING];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_MARK rec = {.time_ns = vt_now_ns(), .tid = (uint64_t)vt_tid(), .label = label};
    vt_encode_MARK(&b, &rec, 1);
    return emit(VT_REC_MARK, &b);
}

int vt_rec_cache_segment(uint64_t key, unsigned flags)
{
    uint8_t data[VT_VARINT_MAX + 1];
    struct buf b = {data, 0, sizeof data, 0};
    vt_encode_CACHE_SEGMENT(&b, &(struct vt_rec_CACHE_SEGMENT){.address = key, .flags = flags}, 1);
    return emit(VT_REC_CACHE_SEGMENT, &b);
}

int vt_rec_attach(const struct vt_usage_sample *devices, unsigned ndevices,
                  const char *const *routes, unsigned nroutes)
{
    uint8_t
        data[3 * VT_VARINT_MAX + 16 * 4 * VT_VARINT_MAX + VT_ATTACH_ROUTES * (VT_VARINT_MAX + 256)];
    struct buf b = {data, 0, sizeof data, 0};
    ndevices = ndevices > 16 ? 16 : ndevices;
    nroutes = nroutes > VT_ATTACH_ROUTES ? VT_ATTACH_ROUTES : nroutes;
    struct vt_rec_ATTACH rec = {
        .time_ns = vt_now_ns(), .tid = (uint64_t)vt_tid(), .devices = ndevices};
    vt_encode_ATTACH(&b, &rec, 1);
    for (unsigned i = 0; i < ndevices; i++) {
        struct vt_rec_ATTACH_DEVICE d = {
            .device = devices[i].device,
            .free_bytes = devices[i].free_bytes,
            .total_bytes = devices[i].total_bytes,
            .own_plus1 = devices[i].own_plus1,
        };
        vt_encode_ATTACH_DEVICE(&b, &d, 1);
    }
    vt_encode_ATTACH_ROUTES(&b, &(struct vt_rec_ATTACH_ROUTES){.routes = nroutes}, 1);
    for (unsigned i = 0; i < nroutes; i++)
        vt_encode_ATTACH_ROUTE(&b, &(struct vt_rec_ATTACH_ROUTE){.what = routes[i]}, 1);
    return emit(VT_REC_ATTACH, &b);
}

int vt_rec_phase(uint32_t id, const char *name)
{
    uint8_t data[VT_VARINT_MAX + MAX_STRING];
    struct buf b = {data, 0, sizeof data, 0};
    vt_encode_PHASE(&b, &(struct vt_rec_PHASE){.id = id, .name = name}, 1);
    return emit(VT_REC_PHASE, &b);
}

int vt_rec_py_finalizing(void)
{
    uint8_t data[2 * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_PY_FINALIZING rec = {.time_ns = vt_now_ns(), .tid = (uint64_t)vt_tid()};
    vt_encode_PY_FINALIZING(&b, &rec, 1);
    return emit(VT_REC_PY_FINALIZING, &b);
}

int vt_rec_end(unsigned reason, uint64_t live_allocations, int signal, int status)
{
    uint8_t data[6 * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_END rec = {
        .time_ns = vt_now_ns(),
        .reason = (uint8_t)reason,
        .live = live_allocations,
        .signal = (uint64_t)(unsigned)signal,
        .status = (uint64_t)(unsigned)status,
        .reopened = vt_writer_reopened(),
    };
    vt_encode_END(&b, &rec, 1);
    return emit(VT_REC_END, &b);
}

/* A time as ns since PROCESS.start_mono. */
static uint64_t since_start(uint64_t ns)
{
    return ns > vt_deltas.start ? ns - vt_deltas.start : 0;
}

int vt_rec_sample(uint8_t *buf, size_t cap, const struct vt_agg_counts *c,
                  const struct vt_agg_device *devices, size_t ndevices,
                  const struct vt_agg_site *sites, const uint32_t *which, size_t n)
{
    struct buf b = {buf, 0, cap, 0};
    struct vt_rec_SAMPLE head = {.time_ns = vt_now_ns(),
                                 .allocations = c->allocations,
                                 .frees = c->frees,
                                 .devices = ndevices};
    vt_encode_SAMPLE(&b, &head, 1);
    for (size_t i = 0; i < ndevices; i++) {
        struct vt_rec_SAMPLE_DEVICE d = {.device = devices[i].device,
                                         .bytes = devices[i].live_bytes};
        vt_encode_SAMPLE_DEVICE(&b, &d, 1);
    }
    vt_encode_SAMPLE_SITES(&b, &(struct vt_rec_SAMPLE_SITES){.sites = n}, 1);
    for (size_t i = 0; i < n; i++) {
        const struct vt_agg_site *s = &sites[which[i]];
        struct vt_rec_SAMPLE_SITE site = {
            .stack_id = s->key.stack_id,
            .api = (uint8_t)s->key.api,
            .kind = (uint8_t)s->key.kind,
            .device = s->key.device,
            .live_bytes = s->live_bytes,
            .live_count = s->live_count,
        };
        vt_encode_SAMPLE_SITE(&b, &site, 1);
    }
    return emit(VT_REC_SAMPLE, &b);
}

int vt_rec_sites(uint8_t *buf, size_t cap, const struct vt_agg_site *sites, size_t n)
{
    struct buf b = {buf, 0, cap, 0};
    vt_encode_SITES(&b, &(struct vt_rec_SITES){.time_ns = vt_now_ns(), .sites = n}, 1);
    for (size_t i = 0; i < n; i++) {
        const struct vt_agg_site *s = &sites[i];
        struct vt_rec_SITES_SITE site = {
            .stack_id = s->key.stack_id,
            .api = (uint8_t)s->key.api,
            .kind = (uint8_t)s->key.kind,
            .device = s->key.device,
            .allocations = s->allocations,
            .bytes_allocated = s->bytes_allocated,
            .frees = s->frees,
            .live_count = s->live_count,
            .live_bytes = s->live_bytes,
        };
        vt_encode_SITES_SITE(&b, &site, 1);
    }
    return emit(VT_REC_SITES, &b);
}

int vt_rec_totals(uint8_t *buf, size_t cap, const struct vt_agg_counts *c,
                  const struct vt_agg_device *devices, size_t ndevices)
{
    struct buf b = {buf, 0, cap, 0};
    struct vt_rec_TOTALS head = {
        .time_ns = vt_now_ns(),
        .invalid_frees = c->invalid_frees,
        .untraced_frees = c->untraced_frees,
        .teardown_allocations = c->teardown_count,
        .teardown_bytes = c->teardown_bytes,
        .peak_bytes = c->peak_bytes,
        .peak_time_ns = since_start(c->peak_ns),
        .devices = ndevices,
    };
    vt_encode_TOTALS(&b, &head, 1);
    for (size_t i = 0; i < ndevices; i++) {
        struct vt_rec_TOTALS_DEVICE d = {.device = devices[i].device,
                                         .bytes = devices[i].peak_bytes,
                                         .time_ns = since_start(devices[i].peak_ns)};
        vt_encode_TOTALS_DEVICE(&b, &d, 1);
    }
    return emit(VT_REC_TOTALS, &b);
}

int vt_rec_bad_free(const struct vt_bad_free *f)
{
    uint8_t data[20 * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_BAD_FREE rec = {
        .time_ns = f->time_ns,
        .address = f->address,
        .api = (uint8_t)f->api,
        .flags = (uint8_t)f->flags,
        .tid = (uint64_t)vt_tid(),
        .error = (uint64_t)(unsigned)f->error,
        .stack = f->stack,
        .alloc_stack = f->alloc_stack,
        .alloc_api = (uint8_t)f->alloc_api,
        .alloc_kind = (uint8_t)f->alloc_kind,
        .alloc_device = f->alloc_device,
        .alloc_size = f->alloc_size,
        .first_free_ns = since_start(f->first_free_ns),
        .first_free_api = (uint8_t)f->first_free_api,
        .first_free_tid = (uint64_t)f->first_free_tid,
        .first_free_stack = f->first_free_stack,
    };
    vt_encode_BAD_FREE(&b, &rec, 1);
    return emit(VT_REC_BAD_FREE, &b);
}

int vt_rec_device(const struct vt_device_identity *d)
{
    uint8_t data[6 * VT_VARINT_MAX + 2 * 16 + sizeof d->pci_bus_id + sizeof d->name +
                 sizeof d->parent_name + 8];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_DEVICE rec = {
        .device = d->device,
        .uuid = {d->uuid, d->has_uuid ? sizeof d->uuid : 0},
        .pci_bus_id = d->pci_bus_id,
        .name = d->name,
        .total_bytes = d->total_bytes,
        .flags = (uint8_t)d->flags,
        .parent_uuid = {d->parent_uuid, d->has_parent_uuid ? sizeof d->parent_uuid : 0},
        .parent_name = d->parent_name,
    };
    vt_encode_DEVICE(&b, &rec, 1);
    return emit(VT_REC_DEVICE, &b);
}

int vt_rec_device_usage(const struct vt_usage_sample *s)
{
    uint8_t data[8 * VT_VARINT_MAX];
    struct buf b = {data, 0, sizeof data, 0};
    struct vt_rec_DEVICE_USAGE rec = {
        .time_ns = since_start(s->time_ns),
        .reason = (uint8_t)s->reason,
        .device = s->device,
        .free_bytes = s->free_bytes,
        .total_bytes = s->total_bytes,
        .own_plus1 = s->own_plus1,
        .others_plus1 = s->others_plus1,
        .others = s->others,
        .traced_plus1 = s->traced_plus1,
    };
    vt_encode_DEVICE_USAGE(&b, &rec, 1);
    return emit(VT_REC_DEVICE_USAGE, &b);
}
