/* SPDX-License-Identifier: MIT */
/* Parses a .vtr dump (format: src/format.h). Nothing in the file is
 * trusted: every varint, length, count and id is checked against the bytes
 * that are really there before it is used, and errors name the offset. */
#include "dump_reader.h"
#include "progress.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"

struct reader {
    const uint8_t *base, *end; /* the whole file, or a part of it (base_offset) */
    size_t base_offset;        /* the file offset of base */
    struct vt_dump *dump;
    const struct vt_event_sink *sink;
    void *ctx;
    const char *record_name; /* for error messages */
    uint64_t time_ns;        /* since process start */
    uint64_t prev_address;   /* ALLOC/FREE addresses are deltas */
    char error[160];
    size_t error_offset;
};

/* The payload of one record. */
struct cursor {
    const uint8_t *p, *end;
};

static bool fail(struct reader *r, const uint8_t *at, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->error, sizeof r->error, fmt, ap);
    va_end(ap);
    r->error_offset = r->base_offset + (size_t)(at - r->base);
    return false;
}

static bool get_varint(struct reader *r, struct cursor *c, const char *field, uint64_t *out)
{
    const uint8_t *at = c->p;
    if (vt_get_varint(&c->p, c->end, out) != 0)
        return fail(r, at, "corrupt %s record: bad %s", r->record_name, field);
    return true;
}

static bool get_svarint(struct reader *r, struct cursor *c, const char *field, int64_t *out)
{
    uint64_t v;
    if (!get_varint(r, c, field, &v))
        return false;
    *out = vt_unzigzag(v);
    return true;
}

static bool get_u8(struct reader *r, struct cursor *c, const char *field, unsigned *out)
{
    if (c->p >= c->end)
        return fail(r, c->p, "corrupt %s record: %s missing", r->record_name, field);
    *out = *c->p++;
    return true;
}

/* Checks a length or count read from the file against the bytes left in
 * the record, before anything is allocated for it. UNIT is the fewest bytes
 * one element can take. */
static bool check_fits(struct reader *r, const struct cursor *c, const uint8_t *at, uint64_t count,
                       size_t unit, const char *field)
{
    if (count > (uint64_t)(c->end - c->p) / unit)
        return fail(r, at, "corrupt %s record: %s %llu exceeds the record", r->record_name, field,
                    (unsigned long long)count);
    return true;
}

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static bool get_bytes(struct reader *r, struct cursor *c, const char *field, uint8_t **out,
                      size_t *len_out)
{
    const uint8_t *at = c->p;
    uint64_t len;
    if (!get_varint(r, c, field, &len) || !check_fits(r, c, at, len, 1, field))
        return false;
    *out = xcalloc(len + 1, 1); /* NUL-terminated, for the strings */
    memcpy(*out, c->p, len);
    c->p += len;
    if (len_out)
        *len_out = len;
    return true;
}

static bool get_str(struct reader *r, struct cursor *c, const char *field, char **out)
{
    return get_bytes(r, c, field, (uint8_t **)out, NULL);
}

static bool get_dt(struct reader *r, struct cursor *c)
{
    uint64_t dt;
    if (!get_varint(r, c, "time delta", &dt))
        return false;
    r->time_ns += dt;
    r->dump->last_time_ns = r->time_ns;
    return true;
}

static bool get_address(struct reader *r, struct cursor *c, uint64_t *out)
{
    int64_t delta;
    if (!get_svarint(r, c, "address delta", &delta))
        return false;
    r->prev_address += (uint64_t)delta;
    *out = r->prev_address;
    return true;
}

/* The field kinds of format.h's record layouts, read from IN. The last
 * COUNT read says how many items come next (items_fit). */
struct field_in {
    struct reader *r;
    struct cursor *c;
    const char *count_label;
    const uint8_t *count_at;
};

static const uint8_t *vt_get_position(const struct field_in *in)
{
    return in->c->p;
}

static bool vt_get_more(const struct field_in *in)
{
    return in->c->p < in->c->end;
}

static bool vt_get_VARINT(struct field_in *in, const char *label, uint64_t *v)
{
    return get_varint(in->r, in->c, label, v);
}

static bool vt_get_SVARINT(struct field_in *in, const char *label, int64_t *v)
{
    return get_svarint(in->r, in->c, label, v);
}

static bool vt_get_U8(struct field_in *in, const char *label, unsigned *v)
{
    return get_u8(in->r, in->c, label, v);
}

/* Allocated (NUL-terminated): the caller frees it. */
static bool vt_get_STR(struct field_in *in, const char *label, const char **v)
{
    char *s;
    if (!get_str(in->r, in->c, label, &s))
        return false;
    *v = s;
    return true;
}

/* Allocated (NUL-terminated): the caller frees it. */
static bool vt_get_BYTES(struct field_in *in, const char *label, struct vt_bytes *v)
{
    uint8_t *data;
    size_t len;
    if (!get_bytes(in->r, in->c, label, &data, &len))
        return false;
    v->data = data;
    v->len = len;
    return true;
}

static bool vt_get_COUNT(struct field_in *in, const char *label, uint64_t *v)
{
    in->count_label = label;
    in->count_at = in->c->p;
    return get_varint(in->r, in->c, label, v);
}

static bool vt_get_DT(struct field_in *in, const char *label, uint64_t *v)
{
    (void)label; /* "time delta", as get_dt says */
    if (!get_dt(in->r, in->c))
        return false;
    *v = in->r->time_ns;
    return true;
}

static bool vt_get_ADDR(struct field_in *in, const char *label, uint64_t *v)
{
    (void)label; /* "address delta", as get_address says */
    return get_address(in->r, in->c, v);
}

#define DEFINE_DECODER(TYPE) VT_DEFINE_DECODER(TYPE, struct field_in)
VT_RECORD_LAYOUTS(DEFINE_DECODER)
#undef DEFINE_DECODER

/* free_fields_<LAYOUT>(rec): what its decoder allocated (STR and BYTES
 * fields), for a record that is not kept. */
#define FREE_VARINT(v)
#define FREE_SVARINT(v)
#define FREE_U8(v)
#define FREE_COUNT(v)
#define FREE_DT(v)
#define FREE_ADDR(v)
#define FREE_STR(v) free((void *)(v));
#define FREE_BYTES(v) free((void *)(v).data);
#define FREE_FIELD(kind, name, label) FREE_##kind(rec->name)
#define DEFINE_FREER(TYPE)                                                            \
    __attribute__((unused)) static void free_fields_##TYPE(struct vt_rec_##TYPE *rec) \
    {                                                                                 \
        (void)rec;                                                                    \
        VT_REC_##TYPE##_FIELDS(FREE_FIELD) VT_REC_##TYPE##_APPENDED(FREE_FIELD)       \
    }
VT_RECORD_LAYOUTS(DEFINE_FREER)
#undef DEFINE_FREER

/* Whether an appended field that began at AT was in the record. */
static bool present(const struct cursor *c, const uint8_t *at)
{
    return at < c->end;
}

/* COUNT items of at least MIN_BYTES each, as the last COUNT field said,
 * fit in what is left of the record. */
static bool items_fit(struct field_in *in, uint64_t count, size_t min_bytes)
{
    return check_fits(in->r, in->c, in->count_at, count, min_bytes, in->count_label);
}

/* Room for COUNT items of SIZE bytes, once they fit (NULL: they do not). */
static void *items_room(struct field_in *in, uint64_t count, size_t min_bytes, size_t size)
{
    return items_fit(in, count, min_bytes) ? xcalloc((size_t)count, size) : NULL;
}

/* Events may only refer to stacks defined earlier in the file. */
static bool check_stack_ref(struct reader *r, const uint8_t *at, uint64_t id)
{
    if (id != 0 && !vt_dump_stack(r->dump, id))
        return fail(r, at, "corrupt %s record: undefined stack %llu", r->record_name,
                    (unsigned long long)id);
    return true;
}

static void free_process(struct vt_process *proc)
{
    free(proc->exe);
    free(proc->hostname);
    for (size_t i = 0; i < proc->argc; i++)
        free(proc->argv[i]);
    free(proc->argv);
    free(proc->rank);
    free(proc->boot_id);
    memset(proc, 0, sizeof *proc);
}

static bool read_process(struct reader *r, struct cursor *c)
{
    struct vt_process *proc = &r->dump->process;
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_PROCESS head = {0};
    struct vt_rec_PROCESS_TAIL tail = {0};
    struct vt_at_PROCESS at;
    struct vt_at_PROCESS_TAIL tail_at;
    free_process(proc); /* a later PROCESS record replaces an earlier one */
    if (!vt_decode_PROCESS(&in, &head, &at)) {
        free_fields_PROCESS(&head);
        return false;
    }
    proc->pid = head.pid;
    proc->ppid = head.ppid;
    proc->start_real_ns = head.start_real_ns;
    proc->start_mono_ns = head.start_mono_ns;
    proc->exe = (char *)head.exe;
    proc->hostname = (char *)head.hostname;
    proc->argv = items_room(&in, head.argc, VT_MIN_BYTES(PROCESS_ARG), sizeof *proc->argv);
    if (!proc->argv)
        return false;
    for (; proc->argc < head.argc; proc->argc++) {
        struct vt_rec_PROCESS_ARG arg = {0};
        struct vt_at_PROCESS_ARG arg_at;
        if (!vt_decode_PROCESS_ARG(&in, &arg, &arg_at))
            return false;
        proc->argv[proc->argc] = (char *)arg.arg;
    }
    if (!vt_decode_PROCESS_TAIL(&in, &tail, &tail_at)) {
        free_fields_PROCESS_TAIL(&tail);
        return false;
    }
    proc->rank = (char *)tail.rank;
    proc->start_ticks = tail.start_ticks;
    proc->boot_id = (char *)tail.boot_id;
    if (proc->rank && !proc->rank[0]) {
        free(proc->rank);
        proc->rank = NULL;
    }
    proc->present = true;
    return true;
}

static bool read_module(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_MODULE rec = {0};
    struct vt_at_MODULE at;
    if (!vt_decode_MODULE(&in, &rec, &at) ||
        (rec.start > rec.end && !fail(r, at.id, "corrupt MODULE record: start after end"))) {
        free_fields_MODULE(&rec);
        return false;
    }
    struct vt_module m = {
        .id = rec.id,
        .bias = rec.bias,
        .start = rec.start,
        .end = rec.end,
        .path = (char *)rec.path,
        .build_id = (uint8_t *)rec.build_id.data,
        .build_id_len = rec.build_id.len,
    };
    struct vt_dump *d = r->dump;
    m.loaded_epoch = d->module_epoch;
    m.unloaded_epoch = UINT64_MAX;
    struct vt_module *grown = realloc(d->modules, (d->nmodules + 1) * sizeof *grown);
    if (!grown) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    d->modules = grown;
    d->modules[d->nmodules++] = m;
    return true;
}

static bool read_module_unload(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_MODULE_UNLOAD rec;
    struct vt_at_MODULE_UNLOAD at;
    struct vt_dump *d = r->dump;
    if (!vt_decode_MODULE_UNLOAD(&in, &rec, &at))
        return false;
    uint64_t id = rec.module;
    for (size_t i = d->nmodules; i-- > 0;)
        if (d->modules[i].id == id && d->modules[i].unloaded_epoch == UINT64_MAX) {
            d->modules[i].unloaded_epoch = ++d->module_epoch;
            return true;
        }
    return fail(r, at.module, "corrupt MODULE_UNLOAD record: module %llu is not loaded",
                (unsigned long long)id);
}

static void free_stack(struct vt_dump_stack_record *s)
{
    free(s->frames);
    free(s->python);
    free(s->entry_frames);
    free(s);
}

/* The part STACK and PYSTACK share: id and native frames. NULL on error. */
static struct vt_dump_stack_record *read_native_frames(struct field_in *in)
{
    struct reader *r = in->r;
    struct vt_rec_STACK head = {0};
    struct vt_at_STACK at;
    uint64_t address = 0;
    if (!vt_decode_STACK(in, &head, &at))
        return NULL;
    if (head.id == 0 || vt_dump_stack(r->dump, head.id)) {
        fail(r, at.id, "corrupt %s record: stack id %llu %s", r->record_name,
             (unsigned long long)head.id, head.id ? "defined twice" : "is reserved");
        return NULL;
    }
    uint64_t *frames = items_room(in, head.frames, VT_MIN_BYTES(STACK_FRAME), sizeof *frames);
    if (!frames)
        return NULL;
    struct vt_dump_stack_record *s = xcalloc(1, sizeof *s);
    s->id = head.id;
    s->module_epoch = r->dump->module_epoch;
    s->frames = frames;
    for (; s->nframes < head.frames; s->nframes++) {
        struct vt_rec_STACK_FRAME frame;
        struct vt_at_STACK_FRAME frame_at;
        if (!vt_decode_STACK_FRAME(in, &frame, &frame_at)) {
            free_stack(s);
            return NULL;
        }
        address += (uint64_t)frame.delta;
        s->frames[s->nframes] = address;
    }
    return s;
}

/* The appended fields of a cut stack, when present. */
static bool read_cut(struct field_in *in, struct vt_dump_stack_record *s)
{
    struct vt_rec_STACK_CUT cut = {0};
    struct vt_at_STACK_CUT at;
    if (!vt_decode_STACK_CUT(in, &cut, &at))
        return false;
    if (cut.cut_at > s->nframes)
        return fail(in->r, at.dropped, "corrupt %s record: cut after frame %llu of %zu",
                    in->r->record_name, (unsigned long long)cut.cut_at, s->nframes);
    s->dropped = cut.dropped;
    s->cut_at = (size_t)cut.cut_at;
    return true;
}

/* Adds S to the dump: the tracer numbers stacks 1, 2, ..., so an array
 * finds them faster than the hash (a report looks each up many times). */
static void add_stack(struct vt_dump *d, struct vt_dump_stack_record *s)
{
    HASH_ADD(hh, d->stacks, id, sizeof s->id, s);
    if (s->id >= d->stack_index_len && s->id < 2 * (uint64_t)HASH_COUNT(d->stacks) + 1024) {
        size_t len = d->stack_index_len ? 2 * d->stack_index_len : 1024;
        while (len <= s->id)
            len *= 2;
        struct vt_dump_stack_record **grown = realloc(d->stack_index, len * sizeof *grown);
        if (!grown) {
            fputs("vramtrace: out of memory\n", stderr);
            exit(1);
        }
        memset(grown + d->stack_index_len, 0, (len - d->stack_index_len) * sizeof *grown);
        d->stack_index = grown;
        d->stack_index_len = len;
    }
    if (s->id < d->stack_index_len)
        d->stack_index[s->id] = s;
}

static bool read_stack(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_dump_stack_record *s = read_native_frames(&in);
    if (!s)
        return false;
    if (!read_cut(&in, s)) {
        free_stack(s);
        return false;
    }
    add_stack(r->dump, s);
    return true;
}

/* PYSTACK's Python frames, each defined by an earlier PYFRAME. */
static bool read_python_frames(struct field_in *in, struct vt_dump_stack_record *s)
{
    struct vt_rec_PYSTACK_PYTHON python = {0};
    struct vt_at_PYSTACK_PYTHON at;
    if (!vt_decode_PYSTACK_PYTHON(in, &python, &at))
        return false;
    s->python = items_room(in, python.count, VT_MIN_BYTES(PYSTACK_PYFRAME), sizeof *s->python);
    if (!s->python)
        return false;
    for (; s->npython < python.count; s->npython++) {
        struct vt_rec_PYSTACK_PYFRAME frame;
        struct vt_at_PYSTACK_PYFRAME frame_at;
        if (!vt_decode_PYSTACK_PYFRAME(in, &frame, &frame_at))
            return false;
        if (!vt_dump_pyframe(in->r->dump, frame.id))
            return fail(in->r, frame_at.id,
                        "corrupt PYSTACK record: Python frame %llu is not defined",
                        (unsigned long long)frame.id);
        s->python[s->npython] = frame.id;
    }
    return true;
}

/* How many of the Python frames each interpreter entry holds, when the
 * record says (absent in older dumps); they must add up to the frames. */
static bool read_entries(struct field_in *in, struct vt_dump_stack_record *s)
{
    struct vt_rec_PYSTACK_ENTRIES entries = {0};
    struct vt_at_PYSTACK_ENTRIES at;
    uint64_t sum = 0;
    if (!vt_decode_PYSTACK_ENTRIES(in, &entries, &at))
        return false;
    if (!entries.entries)
        return true;
    s->entry_frames =
        items_room(in, entries.entries, VT_MIN_BYTES(PYSTACK_ENTRY), sizeof *s->entry_frames);
    if (!s->entry_frames)
        return false;
    for (; s->nentries < entries.entries; s->nentries++) {
        struct vt_rec_PYSTACK_ENTRY entry;
        struct vt_at_PYSTACK_ENTRY entry_at;
        if (!vt_decode_PYSTACK_ENTRY(in, &entry, &entry_at))
            return false;
        sum += entry.frames;
        if (entry.frames > s->npython || sum > s->npython)
            return fail(in->r, entry_at.frames,
                        "corrupt PYSTACK record: its interpreter entries hold more than its %zu "
                        "Python frames",
                        s->npython);
        s->entry_frames[s->nentries] = (size_t)entry.frames;
    }
    if (sum != s->npython)
        return fail(in->r, at.entries,
                    "corrupt PYSTACK record: its interpreter entries hold %llu of its %zu Python "
                    "frames",
                    (unsigned long long)sum, s->npython);
    return true;
}

static bool read_pystack(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_PYSTACK_TAIL tail = {0};
    struct vt_at_PYSTACK_TAIL tail_at;
    struct vt_dump_stack_record *s = read_native_frames(&in);
    if (!s)
        return false;
    if (!read_python_frames(&in, s) || !vt_decode_PYSTACK_TAIL(&in, &tail, &tail_at) ||
        !read_cut(&in, s) || !read_entries(&in, s)) {
        free_stack(s);
        return false;
    }
    s->python_truncated = (tail.flags & VT_PYSTACK_TRUNCATED) != 0;
    add_stack(r->dump, s);
    return true;
}

static bool read_pyframe(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_PYFRAME rec = {0};
    struct vt_at_PYFRAME at;
    if (!vt_decode_PYFRAME(&in, &rec, &at) ||
        ((rec.id == 0 || vt_dump_pyframe(r->dump, rec.id)) &&
         !fail(r, at.id, "corrupt PYFRAME record: id %llu %s", (unsigned long long)rec.id,
               rec.id ? "defined twice" : "is reserved"))) {
        free_fields_PYFRAME(&rec);
        return false;
    }
    struct vt_dump_pyframe *f = xcalloc(1, sizeof *f);
    f->id = rec.id;
    f->function = (char *)rec.function;
    f->file = (char *)rec.file;
    f->line = rec.line;
    HASH_ADD(hh, r->dump->pyframes, id, sizeof f->id, f);
    return true;
}

/* Per-event records and aggregates never mix in one dump. */
static bool check_mode(struct reader *r, const struct cursor *c, bool aggregate_record)
{
    if (r->dump->aggregated != aggregate_record)
        return fail(r, c->p, "corrupt %s record: not expected in a dump written in %s mode",
                    r->record_name, r->dump->aggregated ? "aggregate" : "events");
    return true;
}

static bool read_alloc(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_ALLOC rec = {0};
    struct vt_at_ALLOC at;
    if (!check_mode(r, c, false) || !vt_decode_ALLOC(&in, &rec, &at) ||
        !check_stack_ref(r, at.stack, rec.stack))
        return false;
    struct vt_dump_alloc ev = {
        .time_ns = rec.time_ns,
        .address = rec.address,
        .size = rec.size,
        .stack_id = rec.stack,
        .api = rec.api,
        .kind = rec.kind_flags & VT_KIND_MASK,
        .flags = rec.kind_flags & ~(unsigned)VT_KIND_MASK,
        .device = rec.device,
        .tid = rec.tid,
        .stream = rec.stream,
    };
    if (ev.kind >= VT_KIND_COUNT)
        return fail(r, at.kind_flags, "corrupt ALLOC record: unknown kind %u", ev.kind);
    r->sink->alloc(r->ctx, &ev);
    return true;
}

static bool read_free(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_FREE rec = {0};
    struct vt_at_FREE at;
    if (!check_mode(r, c, false) || !vt_decode_FREE(&in, &rec, &at))
        return false;
    struct vt_free_event ev = {
        .time_ns = rec.time_ns,
        .address = rec.address,
        .api = rec.api,
        .status = rec.status_flags & VT_FREE_STATUS_MASK,
        .flags = rec.status_flags & ~(unsigned)VT_FREE_STATUS_MASK,
        .tid = rec.tid,
        .stream = rec.stream,
    };
    if (ev.status > VT_FREE_TEARDOWN)
        return fail(r, at.status_flags, "corrupt FREE record: unknown status %u", ev.status);
    r->sink->free(r->ctx, &ev);
    return true;
}

/* A value + 1, 0 for unknown. */
static void plus1(uint64_t v, bool *known, uint64_t *value)
{
    *known = v != 0;
    *value = v ? v - 1 : 0;
}

/* FAILED's appended NVML view: the other processes, the first
 * VT_GPU_PROCESSES_MAX kept. */
static bool read_gpu_processes(struct field_in *in, uint64_t count, struct vt_failed_event *ev)
{
    if (!items_fit(in, count, VT_MIN_BYTES(FAILED_PROCESS)))
        return false;
    for (uint64_t i = 0; i < count; i++) {
        struct vt_rec_FAILED_PROCESS rec = {0};
        struct vt_at_FAILED_PROCESS at;
        if (!vt_decode_FAILED_PROCESS(in, &rec, &at)) {
            free_fields_FAILED_PROCESS(&rec);
            return false;
        }
        if (i < VT_GPU_PROCESSES_MAX) {
            struct vt_gpu_process_info *p = &ev->others[ev->nothers++];
            p->pid = rec.pid;
            plus1(rec.used_plus1, &p->has_used, &p->used);
            p->state = (char)rec.state;
            p->orphaned = (rec.flags & VT_PROCESS_ORPHANED) != 0;
            snprintf(p->comm, sizeof p->comm, "%s", (const char *)rec.comm.data);
        }
        free_fields_FAILED_PROCESS(&rec);
    }
    return true;
}

static bool read_failed(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_FAILED rec = {0};
    struct vt_at_FAILED at;
    if (!vt_decode_FAILED(&in, &rec, &at) || !check_stack_ref(r, at.stack, rec.stack))
        return false;
    struct vt_failed_event ev = {
        .time_ns = rec.time_ns,
        .size = rec.size,
        .stack_id = rec.stack,
        .api = rec.api,
        .kind = rec.kind,
        .device = rec.device,
        .tid = rec.tid,
        .error = rec.error,
        /* appended: the driver's free and total memory */
        .has_meminfo = present(c, at.mem_free),
        .mem_free = rec.mem_free,
        .mem_total = rec.mem_total,
    };
    /* appended: NVML's view */
    plus1(rec.own_plus1, &ev.has_own, &ev.own_bytes);
    if (!read_gpu_processes(&in, rec.others, &ev))
        return false;
    if (ev.kind >= VT_KIND_COUNT)
        return fail(r, at.kind, "corrupt FAILED record: unknown kind %u", ev.kind);
    r->sink->failed(r->ctx, &ev);
    return true;
}

static bool read_mark(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_MARK rec = {0};
    struct vt_at_MARK at;
    if (!vt_decode_MARK(&in, &rec, &at))
        return false;
    struct vt_mark_event ev = {.time_ns = rec.time_ns, .tid = rec.tid, .label = rec.label};
    if (r->sink->mark)
        r->sink->mark(r->ctx, &ev);
    free((char *)rec.label);
    return true;
}

static const char *const end_names[] = {
    [VT_END_EXIT] = "exit",
    [VT_END_SIGNAL] = "signal",
    [VT_END_EXEC] = "exec",
    [VT_END_UNDERSCORE_EXIT] = "_exit",
};

static bool read_end(struct reader *r, struct cursor *c)
{
    /* live: the tracer's own count; the replay makes its own. Signal and
     * status: absent in older dumps. */
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_END rec = {0};
    struct vt_at_END at;
    if (!vt_decode_END(&in, &rec, &at))
        return false;
    unsigned reason = rec.reason;
    uint64_t sig = rec.signal, status = rec.status;
    if (reason == VT_END_SIGNAL && (sig == 0 || sig >= 1024))
        return fail(r, at.reason, "corrupt END record: signal %llu", (unsigned long long)sig);
    r->dump->complete = r->dump->has_footer = true;
    r->dump->end_reason = reason;
    r->dump->end_signal = reason == VT_END_SIGNAL ? (int)sig : 0;
    r->dump->end_status = reason == VT_END_UNDERSCORE_EXIT ? (int)(status & 0xff) : 0;
    if (reason < sizeof end_names / sizeof end_names[0])
        snprintf(r->dump->end, sizeof r->dump->end, "%s", end_names[reason]);
    else
        snprintf(r->dump->end, sizeof r->dump->end, "end reason %u", reason);
    return true;
}

static bool read_bad_free_body(struct reader *r, struct cursor *c, struct vt_bad_free_event *ev)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_BAD_FREE rec = {0};
    struct vt_at_BAD_FREE at;
    if (!vt_decode_BAD_FREE(&in, &rec, &at) || !check_stack_ref(r, at.stack, rec.stack) ||
        !check_stack_ref(r, at.alloc_stack, rec.alloc_stack) ||
        !check_stack_ref(r, at.first_free_stack, rec.first_free_stack))
        return false;
    *ev = (struct vt_bad_free_event){
        .address = rec.address,
        .api = rec.api,
        .flags = rec.flags,
        .tid = rec.tid,
        .error = rec.error,
        .stack_id = rec.stack,
        .alloc_stack_id = rec.alloc_stack,
        .alloc_api = rec.alloc_api,
        .alloc_kind = rec.alloc_kind,
        .alloc_device = rec.alloc_device,
        .alloc_size = rec.alloc_size,
        .first_free_ns = rec.first_free_ns,
        .first_free_api = rec.first_free_api,
        .first_free_tid = rec.first_free_tid,
        .first_free_stack_id = rec.first_free_stack,
    };
    if ((ev->flags & VT_BAD_FREE_ALLOC_KNOWN) && ev->alloc_kind >= VT_KIND_COUNT)
        return fail(r, at.alloc_stack, "corrupt BAD_FREE record: unknown kind %u", ev->alloc_kind);
    if (ev->first_free_ns > r->time_ns)
        return fail(r, at.first_free_ns, "corrupt BAD_FREE record: first free after the record");
    return true;
}

static bool read_bad_free(struct reader *r, struct cursor *c)
{
    struct vt_bad_free_event ev = {0};
    if (!read_bad_free_body(r, c, &ev))
        return false;
    ev.time_ns = r->time_ns;
    if (r->sink->bad_free)
        r->sink->bad_free(r->ctx, &ev);
    return true;
}

/* A site's key (stack, api, kind, device): the part SAMPLE and SITES share. */
static bool check_site_key(struct reader *r, uint64_t stack_id, const uint8_t *stack_at,
                           unsigned kind, const uint8_t *kind_at)
{
    if (!check_stack_ref(r, stack_at, stack_id))
        return false;
    if (kind >= VT_KIND_COUNT)
        return fail(r, kind_at, "corrupt %s record: unknown kind %u", r->record_name, kind);
    return true;
}

static bool read_sample_body(struct field_in *in, struct vt_sample_event *ev,
                             struct vt_device_bytes **devices, struct vt_site_state **sites)
{
    struct reader *r = in->r;
    struct vt_rec_SAMPLE head = {0};
    struct vt_at_SAMPLE at;
    struct vt_rec_SAMPLE_SITES sites_head = {0};
    struct vt_at_SAMPLE_SITES sites_at;
    if (!check_mode(r, in->c, true) || !vt_decode_SAMPLE(in, &head, &at))
        return false;
    ev->allocations = head.allocations;
    ev->frees = head.frees;
    *devices = items_room(in, head.devices, VT_MIN_BYTES(SAMPLE_DEVICE), sizeof **devices);
    if (!*devices)
        return false;
    for (; ev->ndevices < head.devices; ev->ndevices++) {
        struct vt_rec_SAMPLE_DEVICE d;
        struct vt_at_SAMPLE_DEVICE d_at;
        if (!vt_decode_SAMPLE_DEVICE(in, &d, &d_at))
            return false;
        (*devices)[ev->ndevices] = (struct vt_device_bytes){d.device, d.bytes, 0};
    }
    if (!vt_decode_SAMPLE_SITES(in, &sites_head, &sites_at))
        return false;
    *sites = items_room(in, sites_head.sites, VT_MIN_BYTES(SAMPLE_SITE), sizeof **sites);
    if (!*sites)
        return false;
    for (; ev->nsites < sites_head.sites; ev->nsites++) {
        struct vt_rec_SAMPLE_SITE site;
        struct vt_at_SAMPLE_SITE site_at;
        if (!vt_decode_SAMPLE_SITE(in, &site, &site_at) ||
            !check_site_key(r, site.stack_id, site_at.stack_id, site.kind, site_at.kind))
            return false;
        (*sites)[ev->nsites] = (struct vt_site_state){.stack_id = site.stack_id,
                                                      .api = site.api,
                                                      .kind = site.kind,
                                                      .device = site.device,
                                                      .live_bytes = site.live_bytes,
                                                      .live_count = site.live_count};
    }
    return true;
}

static bool read_sample(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_sample_event ev = {0};
    struct vt_device_bytes *devices = NULL;
    struct vt_site_state *sites = NULL;
    bool ok = read_sample_body(&in, &ev, &devices, &sites);
    ev.time_ns = r->time_ns;
    ev.devices = devices;
    ev.sites = sites;
    if (ok && r->sink->sample)
        r->sink->sample(r->ctx, &ev);
    free(devices);
    free(sites);
    return ok;
}

static bool read_sites_body(struct field_in *in, struct vt_sites_event *ev,
                            struct vt_site_state **sites)
{
    struct reader *r = in->r;
    struct vt_rec_SITES head = {0};
    struct vt_at_SITES at;
    if (!check_mode(r, in->c, true) || !vt_decode_SITES(in, &head, &at))
        return false;
    *sites = items_room(in, head.sites, VT_MIN_BYTES(SITES_SITE), sizeof **sites);
    if (!*sites)
        return false;
    for (; ev->nsites < head.sites; ev->nsites++) {
        struct vt_rec_SITES_SITE site;
        struct vt_at_SITES_SITE site_at;
        if (!vt_decode_SITES_SITE(in, &site, &site_at) ||
            !check_site_key(r, site.stack_id, site_at.stack_id, site.kind, site_at.kind))
            return false;
        (*sites)[ev->nsites] = (struct vt_site_state){.stack_id = site.stack_id,
                                                      .api = site.api,
                                                      .kind = site.kind,
                                                      .device = site.device,
                                                      .live_bytes = site.live_bytes,
                                                      .live_count = site.live_count,
                                                      .allocations = site.allocations,
                                                      .bytes_allocated = site.bytes_allocated,
                                                      .frees = site.frees};
    }
    return true;
}

static bool read_sites(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_sites_event ev = {0};
    struct vt_site_state *sites = NULL;
    bool ok = read_sites_body(&in, &ev, &sites);
    ev.time_ns = r->time_ns;
    ev.sites = sites;
    if (ok && r->sink->sites)
        r->sink->sites(r->ctx, &ev);
    free(sites);
    return ok;
}

static bool read_totals_body(struct field_in *in, struct vt_totals_event *ev,
                             struct vt_device_bytes **devices)
{
    struct reader *r = in->r;
    struct vt_rec_TOTALS head = {0};
    struct vt_at_TOTALS at;
    if (!check_mode(r, in->c, true) || !vt_decode_TOTALS(in, &head, &at))
        return false;
    if (head.peak_time_ns > r->time_ns)
        return fail(r, at.peak_time_ns, "corrupt TOTALS record: peak time after the record");
    ev->invalid_frees = head.invalid_frees;
    ev->untraced_frees = head.untraced_frees;
    ev->teardown_allocations = head.teardown_allocations;
    ev->teardown_bytes = head.teardown_bytes;
    ev->peak_bytes = head.peak_bytes;
    ev->peak_time_ns = head.peak_time_ns;
    *devices = items_room(in, head.devices, VT_MIN_BYTES(TOTALS_DEVICE), sizeof **devices);
    if (!*devices)
        return false;
    for (; ev->ndevices < head.devices; ev->ndevices++) {
        struct vt_rec_TOTALS_DEVICE d;
        struct vt_at_TOTALS_DEVICE d_at;
        if (!vt_decode_TOTALS_DEVICE(in, &d, &d_at))
            return false;
        if (d.time_ns > r->time_ns)
            return fail(r, d_at.time_ns, "corrupt TOTALS record: peak time after the record");
        (*devices)[ev->ndevices] = (struct vt_device_bytes){d.device, d.bytes, d.time_ns};
    }
    return true;
}

static bool read_totals(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_totals_event ev = {0};
    struct vt_device_bytes *devices = NULL;
    bool ok = read_totals_body(&in, &ev, &devices);
    ev.time_ns = r->time_ns;
    ev.devices = devices;
    if (ok && r->sink->totals)
        r->sink->totals(r->ctx, &ev);
    free(devices);
    return ok;
}

static void free_device(struct vt_device_info *d)
{
    free(d->pci_bus_id);
    free(d->name);
    memset(d, 0, sizeof *d);
}

/* An empty string is an unknown value: NULL. */
static char *unless_empty(const char *s)
{
    if (s && !*s) {
        free((void *)s);
        return NULL;
    }
    return (char *)s;
}

static bool read_device(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_DEVICE rec = {0};
    struct vt_at_DEVICE at;
    struct vt_device_info d = {0};
    if (!vt_decode_DEVICE(&in, &rec, &at) ||
        (rec.uuid.len != 0 && rec.uuid.len != sizeof d.uuid &&
         !fail(r, at.uuid, "corrupt DEVICE record: a UUID of %llu bytes",
               (unsigned long long)rec.uuid.len))) {
        free_fields_DEVICE(&rec);
        return false;
    }
    d.device = rec.device;
    memcpy(d.uuid, rec.uuid.data, rec.uuid.len);
    d.has_uuid = rec.uuid.len != 0;
    free((void *)rec.uuid.data);
    d.pci_bus_id = unless_empty(rec.pci_bus_id);
    d.name = unless_empty(rec.name);
    d.total_bytes = rec.total_bytes;
    struct vt_dump *dump = r->dump;
    for (size_t i = 0; i < dump->ndevices; i++)
        if (dump->devices[i].device == d.device) { /* a later record replaces it */
            free_device(&dump->devices[i]);
            dump->devices[i] = d;
            return true;
        }
    struct vt_device_info *grown = realloc(dump->devices, (dump->ndevices + 1) * sizeof *grown);
    if (!grown) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    dump->devices = grown;
    dump->devices[dump->ndevices++] = d;
    return true;
}

static bool read_device_usage(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_DEVICE_USAGE rec = {0}; /* traced_plus1 0: not written */
    struct vt_at_DEVICE_USAGE at;
    if (!vt_decode_DEVICE_USAGE(&in, &rec, &at))
        return false;
    if (rec.time_ns > r->time_ns + 1000000000ull) /* taken before its record: a little earlier */
        return fail(r, at.time_ns, "corrupt DEVICE_USAGE record: time after the record");
    struct vt_device_usage_event ev = {
        .time_ns = rec.time_ns,
        .reason = rec.reason,
        .device = rec.device,
        .free_bytes = rec.free_bytes,
        .total_bytes = rec.total_bytes,
        .others_count = rec.others,
    };
    plus1(rec.own_plus1, &ev.has_own, &ev.own_bytes);
    plus1(rec.others_plus1, &ev.has_others, &ev.others_bytes);
    plus1(rec.traced_plus1, &ev.has_traced, &ev.traced_bytes);
    if (ev.reason >= VT_USAGE_REASON_COUNT)
        return fail(r, at.reason, "corrupt DEVICE_USAGE record: unknown reason %u", ev.reason);
    if (ev.free_bytes > ev.total_bytes)
        return fail(r, at.reason, "corrupt DEVICE_USAGE record: more free than total memory");
    if (r->sink->device_usage)
        r->sink->device_usage(r->ctx, &ev);
    return true;
}

/* A thread's name; a later record for the same tid (a reused id, a renamed
 * thread) replaces it. */
static bool read_thread(struct reader *r, struct cursor *c)
{
    struct field_in in = {r, c, NULL, NULL};
    struct vt_rec_THREAD rec = {0};
    struct vt_at_THREAD at;
    struct vt_thread_name *t;
    if (!vt_decode_THREAD(&in, &rec, &at))
        return false;
    uint64_t tid = rec.tid;
    char *name = (char *)rec.name;
    HASH_FIND(hh, r->dump->threads, &tid, sizeof tid, t);
    if (!t) {
        t = xcalloc(1, sizeof *t);
        t->tid = tid;
        HASH_ADD(hh, r->dump->threads, tid, sizeof t->tid, t);
    }
    free(t->name);
    t->name = name;
    return true;
}

static const struct {
    const char *name;
    bool (*read)(struct reader *r, struct cursor *c);
} record_readers[VT_REC_MAX_KNOWN + 1] = {
    [VT_REC_PROCESS] = {"PROCESS", read_process},
    [VT_REC_MODULE] = {"MODULE", read_module},
    [VT_REC_STACK] = {"STACK", read_stack},
    [VT_REC_ALLOC] = {"ALLOC", read_alloc},
    [VT_REC_FREE] = {"FREE", read_free},
    [VT_REC_FAILED] = {"FAILED", read_failed},
    [VT_REC_MARK] = {"MARK", read_mark},
    [VT_REC_END] = {"END", read_end},
    [VT_REC_PYFRAME] = {"PYFRAME", read_pyframe},
    [VT_REC_PYSTACK] = {"PYSTACK", read_pystack},
    [VT_REC_SAMPLE] = {"SAMPLE", read_sample},
    [VT_REC_SITES] = {"SITES", read_sites},
    [VT_REC_TOTALS] = {"TOTALS", read_totals},
    [VT_REC_THREAD] = {"THREAD", read_thread},
    [VT_REC_DEVICE] = {"DEVICE", read_device},
    [VT_REC_DEVICE_USAGE] = {"DEVICE_USAGE", read_device_usage},
    [VT_REC_BAD_FREE] = {"BAD_FREE", read_bad_free},
    [VT_REC_MODULE_UNLOAD] = {"MODULE_UNLOAD", read_module_unload},
};

/* Trailing bytes in a known record are fields a newer writer appended:
 * ignored, like unknown record types. */
static bool read_record(struct reader *r, unsigned type, struct cursor *c)
{
    if (type > VT_REC_MAX_KNOWN || !record_readers[type].read)
        return true;
    r->record_name = record_readers[type].name;
    return record_readers[type].read(r, c);
}

/* A dump that stops early: keep what was read, say why it is partial. */
static void mark_partial(struct reader *r, const char *fmt, size_t offset)
{
    r->dump->complete = false;
    snprintf(r->dump->end, sizeof r->dump->end, fmt, offset);
}

static bool only_zeros(const uint8_t *p, const uint8_t *end)
{
    for (; p < end; p++)
        if (*p)
            return false;
    return true;
}

/* Reads the record length varint at P. Returns 1 on success, 0 when the
 * file ends inside it, -1 when it is malformed. */
static int read_length(const uint8_t **p, const uint8_t *end, uint64_t *len)
{
    const uint8_t *q = *p;
    size_t n = 0;
    while (q + n < end && n < VT_VARINT_MAX && (q[n] & 0x80))
        n++;
    if (q + n >= end)
        return 0;
    return vt_get_varint(p, end, len) == 0 ? 1 : -1;
}

static bool read_records_from(struct reader *r, struct vt_progress *progress)
{
    const uint8_t *p = r->base + VT_HEADER_LEN;
    vt_progress_start(progress, r->dump->path, (size_t)(r->end - r->base));
    while (p < r->end) {
        const uint8_t *record = p;
        vt_progress_update(progress, (size_t)(p - r->base));
        unsigned type = *p++;
        uint64_t len;
        if (type == VT_REC_PAD) {
            if (!only_zeros(p, r->end))
                mark_partial(r, "written data ends at offset %zu but non-zero bytes follow",
                             (size_t)(record - r->base));
            return true;
        }
        int got = read_length(&p, r->end, &len);
        if (got < 0)
            return fail(r, record, "corrupt record length");
        if (got == 0 || len > (uint64_t)(r->end - p)) {
            mark_partial(r, "truncated: the record at offset %zu is cut off by the end of the file",
                         (size_t)(record - r->base));
            return true;
        }
        struct cursor c = {p, p + len};
        if (!read_record(r, type, &c))
            return false;
        p += len;
    }
    return true;
}

static bool read_records(struct reader *r)
{
    struct vt_progress progress;
    bool ok = read_records_from(r, &progress);
    vt_progress_end(&progress);
    return ok;
}

static bool check_header(struct reader *r)
{
    size_t size = (size_t)(r->end - r->base);
    if (size == 0)
        return fail(r, r->base, "empty file");
    if (size < VT_MAGIC_LEN || memcmp(r->base, VT_MAGIC, VT_MAGIC_LEN) != 0)
        return fail(r, r->base, "not a vramtrace dump");
    if (size < VT_HEADER_LEN)
        return fail(r, r->base + size, "truncated header");
    const uint8_t *v = r->base + VT_MAGIC_LEN;
    r->dump->version =
        (uint32_t)v[0] | (uint32_t)v[1] << 8 | (uint32_t)v[2] << 16 | (uint32_t)v[3] << 24;
    if (r->dump->version > VT_VERSION)
        return fail(r, v,
                    "dump format version %u is newer than this vramtrace reads (%u); "
                    "upgrade vramtrace",
                    r->dump->version, VT_VERSION);
    if (r->dump->version == 0)
        return fail(r, v, "unsupported dump format version 0");
    r->dump->aggregated = (v[4] & VT_FLAG_AGGREGATED) != 0;
    if (r->dump->aggregated && r->dump->version < VT_VERSION_AGGREGATED)
        return fail(r, v, "aggregate-mode flag in a version %u dump", r->dump->version);
    return true;
}

static void print_error(const char *path, const struct reader *r, bool with_offset)
{
    if (with_offset)
        fprintf(stderr, "vramtrace: %s: %s at offset %zu\n", path, r->error, r->error_offset);
    else
        fprintf(stderr, "vramtrace: %s: %s\n", path, r->error);
}

static int map_file(const char *path, const uint8_t **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        errno = err;
        return -1;
    }
    *size = (size_t)st.st_size;
    *data = NULL;
    if (*size) {
        void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int err = errno;
            close(fd);
            errno = err;
            return -1;
        }
        *data = m;
    }
    close(fd);
    return 0;
}

int vt_dump_read_memory(const char *path, const uint8_t *data, size_t size,
                        const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump)
{
    static const uint8_t empty[1];
    memset(dump, 0, sizeof *dump);
    dump->path = path;
    struct reader r = {.base = data ? data : empty, .dump = dump, .sink = sink, .ctx = ctx};
    r.end = r.base + size;
    bool ok = check_header(&r);
    if (!ok)
        print_error(path, &r, r.error_offset != 0);
    else if (!(ok = read_records(&r)))
        print_error(path, &r, true);
    else if (!dump->complete && !dump->end[0])
        snprintf(dump->end, sizeof dump->end, "no footer");
    return ok ? 0 : -1;
}

int vt_dump_read(const char *path, const struct vt_event_sink *sink, void *ctx,
                 struct vt_dump *dump)
{
    const uint8_t *data;
    size_t size;
    memset(dump, 0, sizeof *dump);
    dump->path = path;
    if (map_file(path, &data, &size) != 0) {
        fprintf(stderr, "vramtrace: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int result = vt_dump_read_memory(path, data, size, sink, ctx, dump);
    if (data)
        munmap((void *)data, size);
    return result;
}

/* The header of a file still being created may be zeros yet. */
static bool header_written(const uint8_t *data, size_t size)
{
    return size >= VT_HEADER_LEN && data[0] != 0;
}

/* Whole records from *P on, up to END: stops at the padding or at a record
 * the writer has not finished (its type byte is stored last, with release
 * semantics: acquire it first). Returns 1 when stopped at a cut record. */
static int read_appended_records(struct reader *r, const uint8_t **p, struct vt_dump_position *pos)
{
    while (*p < r->end) {
        const uint8_t *record = *p, *q = *p + 1;
        unsigned type = __atomic_load_n(record, __ATOMIC_ACQUIRE);
        uint64_t len;
        if (type == VT_REC_PAD)
            return 0;
        int got = read_length(&q, r->end, &len);
        if (got < 0) {
            fail(r, record, "corrupt record length");
            return -1;
        }
        if (got == 0 || len > (uint64_t)(r->end - q)) {
            mark_partial(r, "truncated: the record at offset %zu is cut off by the end of the file",
                         r->base_offset + (size_t)(record - r->base));
            return 1;
        }
        struct cursor c = {q, q + len};
        if (!read_record(r, type, &c))
            return -1;
        *p = q + len;
        pos->offset = r->base_offset + (size_t)(*p - r->base);
        pos->time_ns = r->time_ns;
        pos->prev_address = r->prev_address;
    }
    return 0;
}

int vt_dump_read_appended(const char *path, const uint8_t *data, size_t start, size_t size,
                          struct vt_dump_position *pos, const struct vt_event_sink *sink, void *ctx,
                          struct vt_dump *dump)
{
    struct reader r = {.base = data,
                       .end = data + size,
                       .base_offset = start,
                       .dump = dump,
                       .sink = sink,
                       .ctx = ctx,
                       .time_ns = pos->time_ns,
                       .prev_address = pos->prev_address};
    dump->path = path;
    if (pos->offset == 0) {
        if (start != 0 || !header_written(data, size))
            return 0;
        if (!check_header(&r)) {
            print_error(path, &r, r.error_offset != 0);
            return -1;
        }
        pos->offset = VT_HEADER_LEN;
    }
    if (pos->offset < start || pos->offset > start + size)
        return 0;
    if (!dump->has_footer)
        dump->end[0] = 0;
    const uint8_t *p = data + (pos->offset - start);
    int result = read_appended_records(&r, &p, pos);
    if (result < 0)
        print_error(path, &r, true);
    else if (!dump->complete && !dump->end[0])
        snprintf(dump->end, sizeof dump->end, "no footer");
    return result;
}

void vt_dump_free(struct vt_dump *dump)
{
    struct vt_dump_stack_record *s, *tmp;
    HASH_ITER(hh, dump->stacks, s, tmp) {
        HASH_DEL(dump->stacks, s);
        free_stack(s);
    }
    struct vt_dump_pyframe *f, *ftmp;
    HASH_ITER(hh, dump->pyframes, f, ftmp) {
        HASH_DEL(dump->pyframes, f);
        free(f->function);
        free(f->file);
        free(f);
    }
    struct vt_thread_name *t, *ttmp;
    HASH_ITER(hh, dump->threads, t, ttmp) {
        HASH_DEL(dump->threads, t);
        free(t->name);
        free(t);
    }
    for (size_t i = 0; i < dump->nmodules; i++) {
        free(dump->modules[i].path);
        free(dump->modules[i].build_id);
    }
    free(dump->modules);
    free(dump->stack_index);
    for (size_t i = 0; i < dump->ndevices; i++)
        free_device(&dump->devices[i]);
    free(dump->devices);
    free_process(&dump->process);
    memset(dump, 0, sizeof *dump);
}

const struct vt_dump_stack_record *vt_dump_stack(const struct vt_dump *dump, uint64_t id)
{
    struct vt_dump_stack_record *s;
    if (id < dump->stack_index_len && dump->stack_index[id])
        return dump->stack_index[id];
    HASH_FIND(hh, dump->stacks, &id, sizeof id, s);
    return s;
}

const char *vt_dump_thread_name(const struct vt_dump *dump, uint64_t tid)
{
    struct vt_thread_name *t;
    HASH_FIND(hh, dump->threads, &tid, sizeof tid, t);
    return t ? t->name : NULL;
}

const struct vt_dump_pyframe *vt_dump_pyframe(const struct vt_dump *dump, uint64_t id)
{
    struct vt_dump_pyframe *f;
    HASH_FIND(hh, dump->pyframes, &id, sizeof id, f);
    return f;
}

const struct vt_module *vt_dump_module_at(const struct vt_dump *dump, uint64_t addr, uint64_t epoch)
{
    for (size_t i = dump->nmodules; i-- > 0;) {
        const struct vt_module *m = &dump->modules[i];
        if (addr >= m->start && addr < m->end && m->loaded_epoch <= epoch &&
            epoch < m->unloaded_epoch)
            return m;
    }
    return NULL;
}

const struct vt_device_info *vt_dump_device(const struct vt_dump *dump, int64_t device)
{
    for (size_t i = 0; i < dump->ndevices; i++)
        if (dump->devices[i].device == device)
            return &dump->devices[i];
    return NULL;
}

const char *vt_device_uuid_text(const struct vt_device_info *d, char *buf)
{
    const uint8_t *u = d->uuid;
    if (!d->has_uuid)
        return NULL;
    snprintf(buf, VT_UUID_TEXT,
             "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0], u[1],
             u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13], u[14],
             u[15]);
    return buf;
}
