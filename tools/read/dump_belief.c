/* SPDX-License-Identifier: MIT */
/* Nothing in the file is trusted: every varint, length, count and id is
 * checked against the bytes that are really there before it is used. What
 * cannot be decoded costs its record; what decodes but cannot be true
 * (an id never defined, a kind out of range, a time the process's clock
 * never reached) is clamped where the rest of the record still stands, and
 * dropped where it does not. */
#include "dump_belief.h"

#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

/* One record being believed: the payload left, and the first thing in it
 * that was disbelieved, with what was done about it. */
struct record_in {
    struct vt_belief *b;
    const uint8_t *p, *end;
    const char *name;
    const char *count_label; /* the last COUNT field read, for items_fit */
    const uint8_t *count_at;
    char doubt[160];
    const char *done;
    unsigned more_doubts;
};

/* Notes the first doubt of the record (later ones are counted); DONE says
 * what was done about it. Returns false, for the decoders' convention. */
__attribute__((format(printf, 3, 4))) static bool doubt(struct record_in *in, const char *done,
                                                        const char *fmt, ...)
{
    va_list ap;
    if (in->doubt[0]) {
        in->more_doubts++;
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(in->doubt, sizeof in->doubt, fmt, ap);
    va_end(ap);
    in->done = done;
    return false;
}

/* A record that cannot be believed at all: whatever doubt was noted first
 * stands, and the record is dropped. */
static bool drop(struct record_in *in)
{
    if (!in->doubt[0])
        doubt(in, "dropped", "unreadable");
    in->done = "dropped";
    return false;
}

static void count_and_say(struct vt_belief *b, const char *name, size_t offset, const char *what,
                          const char *done, unsigned more)
{
    uint64_t n = ++b->dump->disbelieved;
    if (!b->warnings || n > VT_WARNINGS_SHOWN)
        return;
    fprintf(b->warnings, "vramtrace: warning: %s: %s record at offset %zu: %s; %s", b->path, name,
            offset, what, done);
    if (more)
        fprintf(b->warnings, " (and %u more doubts in it)", more);
    fputc('\n', b->warnings);
}

void vt_disbelieve_rest(struct vt_belief *b, size_t offset, const char *what)
{
    count_and_say(b, "the", offset, what, "the rest of the file is not read", 0);
}

void vt_belief_summary(const struct vt_belief *b)
{
    uint64_t n = b->dump->disbelieved;
    if (b->warnings && n > VT_WARNINGS_SHOWN)
        fprintf(b->warnings, "vramtrace: warning: %s: %llu more records disbelieved (not shown)\n",
                b->path, (unsigned long long)(n - VT_WARNINGS_SHOWN));
}

/* ---- the field kinds of format.h's layouts, read from IN ---- */

static const uint8_t *vt_get_position(const struct record_in *in)
{
    return in->p;
}

static bool vt_get_VARINT(struct record_in *in, const char *label, uint64_t *v);

/* A WIDE field is a varint of a fixed length: any varint reader reads it. */
static bool vt_get_WIDE(struct record_in *in, const char *label, uint64_t *v)
{
    return vt_get_VARINT(in, label, v);
}

static bool vt_get_more(const struct record_in *in)
{
    return in->p < in->end;
}

static bool vt_get_VARINT(struct record_in *in, const char *label, uint64_t *v)
{
    if (vt_get_varint(&in->p, in->end, v) != 0)
        return doubt(in, "dropped", "bad %s", label);
    return true;
}

static bool vt_get_SVARINT(struct record_in *in, const char *label, int64_t *v)
{
    uint64_t u;
    if (!vt_get_VARINT(in, label, &u))
        return false;
    *v = vt_unzigzag(u);
    return true;
}

static bool vt_get_U8(struct record_in *in, const char *label, unsigned *v)
{
    if (in->p >= in->end)
        return doubt(in, "dropped", "%s missing", label);
    *v = *in->p++;
    return true;
}

/* A length or count read from the file, checked against the bytes left in
 * the record before anything is allocated for it; UNIT is the fewest bytes
 * one element can take. */
static bool fits(struct record_in *in, uint64_t count, size_t unit, const char *label)
{
    if (count > (uint64_t)(in->end - in->p) / unit)
        return doubt(in, "dropped", "%s %llu exceeds the record", label, (unsigned long long)count);
    return true;
}

/* Allocated and NUL-terminated (the strings): the caller frees it. */
static bool vt_get_BYTES(struct record_in *in, const char *label, struct vt_bytes *v)
{
    uint64_t len;
    if (!vt_get_VARINT(in, label, &len) || !fits(in, len, 1, label))
        return false;
    uint8_t *data = vt_xcalloc((size_t)len + 1, 1);
    memcpy(data, in->p, (size_t)len);
    in->p += len;
    v->data = data;
    v->len = len;
    return true;
}

static bool vt_get_STR(struct record_in *in, const char *label, const char **v)
{
    struct vt_bytes bytes;
    if (!vt_get_BYTES(in, label, &bytes))
        return false;
    *v = (const char *)bytes.data;
    return true;
}

static bool vt_get_COUNT(struct record_in *in, const char *label, uint64_t *v)
{
    in->count_label = label;
    in->count_at = in->p;
    return vt_get_VARINT(in, label, v);
}

/* The time: the process's clock moves on by the dt. */
static bool vt_get_DT(struct record_in *in, const char *label, uint64_t *v)
{
    uint64_t dt;
    if (!vt_get_VARINT(in, label, &dt))
        return false;
    in->b->time_ns += dt;
    in->b->dump->last_time_ns = in->b->time_ns;
    *v = in->b->time_ns;
    return true;
}

static bool vt_get_ADDR(struct record_in *in, const char *label, uint64_t *v)
{
    int64_t delta;
    if (!vt_get_SVARINT(in, label, &delta))
        return false;
    in->b->prev_address += (uint64_t)delta;
    *v = in->b->prev_address;
    return true;
}

#define DEFINE_DECODER(TYPE) VT_DEFINE_DECODER(TYPE, struct record_in)
VT_RECORD_LAYOUTS(DEFINE_DECODER)
#undef DEFINE_DECODER

/* free_fields_<LAYOUT>(rec): what its decoder allocated (STR and BYTES
 * fields), for a record not kept. */
#define FREE_VARINT(v)
#define FREE_SVARINT(v)
#define FREE_U8(v)
#define FREE_COUNT(v)
#define FREE_DT(v)
#define FREE_ADDR(v)
#define FREE_WIDE(v)
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
static bool present(const struct record_in *in, const uint8_t *at)
{
    return at < in->end;
}

/* COUNT items of at least MIN_BYTES each, as the last COUNT field said,
 * fit in what is left of the record. */
static bool items_fit(struct record_in *in, uint64_t count, size_t min_bytes)
{
    return fits(in, count, min_bytes, in->count_label);
}

/* Room for COUNT items of SIZE bytes, once they fit (NULL: they do not). */
static void *items_room(struct record_in *in, uint64_t count, size_t min_bytes, size_t size)
{
    return items_fit(in, count, min_bytes) ? vt_xcalloc((size_t)count, size) : NULL;
}

/* ---- references, kinds, times ---- */

/* A stack an event refers to must be defined earlier in the file; one that
 * is not is left out of the event (0: no stack). */
static uint64_t stack_ref(struct record_in *in, uint64_t id)
{
    if (id != 0 && !vt_dump_stack(in->b->dump, id)) {
        doubt(in, "kept without that stack", "undefined stack %llu", (unsigned long long)id);
        return 0;
    }
    return id;
}

static uint64_t phase_ref(struct record_in *in, uint64_t id)
{
    if (id != 0 && !vt_dump_phase_name(in->b->dump, id)) {
        doubt(in, "kept without that phase", "undefined phase %llu", (unsigned long long)id);
        return 0;
    }
    return id;
}

static bool kind_known(struct record_in *in, unsigned kind)
{
    if (kind >= VT_KIND_COUNT)
        return doubt(in, "dropped", "unknown kind %u", kind);
    return true;
}

/* Per-event records and aggregates never mix in one dump. */
static bool mode_fits(struct record_in *in, bool aggregate_record)
{
    if (in->b->dump->aggregated != aggregate_record)
        return doubt(in, "dropped", "not expected in a dump written in %s mode",
                     in->b->dump->aggregated ? "aggregate" : "events");
    return true;
}

/* A time taken before the record was written (a peak, a first free) cannot
 * be later than the record's own time on the process's clock. */
static uint64_t not_after_record(struct record_in *in, uint64_t time_ns, const char *what)
{
    if (time_ns > in->b->time_ns) {
        doubt(in, "time clamped to the record's", "%s %llu ns after the record's own (%llu ns)",
              what, (unsigned long long)time_ns, (unsigned long long)in->b->time_ns);
        return in->b->time_ns;
    }
    return time_ns;
}

/* Which records carry the time as their first field (format.h: "every
 * timed record starts with varint dt"). */
static bool timed(unsigned type)
{
    switch (type) {
    case VT_REC_ALLOC:
    case VT_REC_FREE:
    case VT_REC_FAILED:
    case VT_REC_MARK:
    case VT_REC_END:
    case VT_REC_SAMPLE:
    case VT_REC_SITES:
    case VT_REC_TOTALS:
    case VT_REC_BAD_FREE:
    case VT_REC_PY_FINALIZING:
    case VT_REC_ATTACH:
        return true;
    default:
        return false;
    }
}

/* The process's clock at the first timed record after the current one
 * (false when none follows in the data). Remembered: it stays the answer
 * until the reading passes that record, so looking ahead costs each record
 * once however many records between ask. */
static bool clock_ahead(struct vt_belief *b, uint64_t *time_ns)
{
    size_t from = vt_frame_offset(b->framer);
    if (b->ahead_offset < from || b->ahead_offset == 0) {
        struct vt_framer f = *b->framer;
        struct vt_frame frame;
        b->ahead_found = false;
        while (vt_frame_next(&f, &frame) == VT_FRAME_RECORD) {
            const uint8_t *p = frame.payload;
            uint64_t dt;
            if (timed(frame.type) && vt_get_varint(&p, frame.end, &dt) == 0) {
                b->ahead_found = true;
                b->ahead_time_ns = b->time_ns + dt;
                break;
            }
        }
        b->ahead_offset = frame.offset;
    }
    *time_ns = b->ahead_time_ns;
    return b->ahead_found;
}

/* ---- the records ---- */

/* The head is the process; a command line or tail that cannot be read is
 * left out, the rest kept. */
static bool believe_process(struct record_in *in, struct vt_process *proc)
{
    struct vt_rec_PROCESS head = {0};
    struct vt_rec_PROCESS_TAIL tail = {0};
    struct vt_at_PROCESS at;
    struct vt_at_PROCESS_TAIL tail_at;
    if (!vt_decode_PROCESS(in, &head, &at)) {
        free_fields_PROCESS(&head);
        return drop(in);
    }
    *proc = (struct vt_process){
        .present = true,
        .pid = head.pid,
        .ppid = head.ppid,
        .start_real_ns = head.start_real_ns,
        .start_mono_ns = head.start_mono_ns,
        .exe = (char *)head.exe,
        .hostname = (char *)head.hostname,
    };
    proc->argv = items_room(in, head.argc, VT_MIN_BYTES(PROCESS_ARG), sizeof *proc->argv);
    for (; proc->argv && proc->argc < head.argc; proc->argc++) {
        struct vt_rec_PROCESS_ARG arg = {0};
        struct vt_at_PROCESS_ARG arg_at;
        if (!vt_decode_PROCESS_ARG(in, &arg, &arg_at))
            break;
        proc->argv[proc->argc] = (char *)arg.arg;
    }
    if (in->doubt[0]) {
        in->done = "kept without the rest of its command line and tail";
        return true;
    }
    if (!vt_decode_PROCESS_TAIL(in, &tail, &tail_at)) {
        free_fields_PROCESS_TAIL(&tail);
        in->done = "kept without its tail (rank, writer identity)";
        return true;
    }
    proc->rank = (char *)tail.rank;
    proc->start_ticks = tail.start_ticks;
    proc->boot_id = (char *)tail.boot_id;
    if (proc->rank && !proc->rank[0]) {
        free(proc->rank);
        proc->rank = NULL;
    }
    return true;
}

static bool believe_module(struct record_in *in, struct vt_module *m)
{
    struct vt_rec_MODULE rec = {0};
    struct vt_at_MODULE at;
    if (!vt_decode_MODULE(in, &rec, &at) ||
        (rec.start > rec.end && !doubt(in, "dropped", "start after end"))) {
        free_fields_MODULE(&rec);
        return drop(in);
    }
    *m = (struct vt_module){
        .id = rec.id,
        .bias = rec.bias,
        .start = rec.start,
        .end = rec.end,
        .path = (char *)rec.path,
        .build_id = (uint8_t *)rec.build_id.data,
        .build_id_len = rec.build_id.len,
        .loaded_epoch = in->b->dump->module_epoch,
        .unloaded_epoch = UINT64_MAX,
    };
    return true;
}

static bool believe_module_unload(struct record_in *in, size_t *index)
{
    struct vt_rec_MODULE_UNLOAD rec;
    struct vt_at_MODULE_UNLOAD at;
    const struct vt_dump *d = in->b->dump;
    if (!vt_decode_MODULE_UNLOAD(in, &rec, &at))
        return drop(in);
    for (size_t i = d->nmodules; i-- > 0;)
        if (d->modules[i].id == rec.module && d->modules[i].unloaded_epoch == UINT64_MAX) {
            *index = i;
            return true;
        }
    doubt(in, "dropped", "module %llu is not loaded", (unsigned long long)rec.module);
    return drop(in);
}

/* A stack whose frames cannot be read keeps its id, with no frames: what
 * refers to it is still grouped by it, and nothing else is lost. */
static struct vt_dump_stack_record *frameless(struct record_in *in, uint64_t id)
{
    struct vt_dump_stack_record *s = vt_xcalloc(1, sizeof *s);
    s->id = id;
    s->module_epoch = in->b->dump->module_epoch;
    in->done = "kept without its frames";
    return s;
}

/* The part STACK and PYSTACK share: id and native frames. NULL: dropped
 * (no id to keep). */
static struct vt_dump_stack_record *believe_native_frames(struct record_in *in, bool *whole)
{
    struct vt_rec_STACK head = {0};
    struct vt_at_STACK at;
    uint64_t address = 0;
    *whole = false;
    if (!vt_decode_STACK(in, &head, &at))
        return drop(in), NULL;
    if (head.id == 0 || vt_dump_stack(in->b->dump, head.id)) {
        doubt(in, "dropped", "stack id %llu %s", (unsigned long long)head.id,
              head.id ? "defined twice (the first definition stands)" : "is reserved");
        return drop(in), NULL;
    }
    uint64_t *frames = items_room(in, head.frames, VT_MIN_BYTES(STACK_FRAME), sizeof *frames);
    if (!frames)
        return frameless(in, head.id);
    struct vt_dump_stack_record *s = vt_xcalloc(1, sizeof *s);
    s->id = head.id;
    s->module_epoch = in->b->dump->module_epoch;
    s->frames = frames;
    for (; s->nframes < head.frames; s->nframes++) {
        struct vt_rec_STACK_FRAME frame;
        struct vt_at_STACK_FRAME frame_at;
        if (!vt_decode_STACK_FRAME(in, &frame, &frame_at)) {
            vt_dump_stack_free(s);
            return frameless(in, head.id);
        }
        address += (uint64_t)frame.delta;
        s->frames[s->nframes] = address;
    }
    *whole = true;
    return s;
}

/* The appended fields of a cut stack, when present; a cut past the last
 * frame is put at the end. */
static void believe_cut(struct record_in *in, struct vt_dump_stack_record *s)
{
    struct vt_rec_STACK_CUT cut = {0};
    struct vt_at_STACK_CUT at;
    if (!vt_decode_STACK_CUT(in, &cut, &at)) {
        in->done = "kept without the count of frames it left out";
        return;
    }
    if (cut.cut_at > s->nframes) {
        doubt(in, "the cut put after the last frame", "cut after frame %llu of %zu",
              (unsigned long long)cut.cut_at, s->nframes);
        cut.cut_at = s->nframes;
    }
    s->dropped = cut.dropped;
    s->cut_at = (size_t)cut.cut_at;
}

static bool believe_stack(struct record_in *in, struct vt_dump_stack_record **out)
{
    bool whole;
    *out = believe_native_frames(in, &whole);
    if (*out && whole)
        believe_cut(in, *out);
    return *out != NULL;
}

/* PYSTACK's Python frames, each defined by an earlier PYFRAME (one that is
 * not is left out of the stack); *RECORDED: how many the record has.
 * False: the rest cannot be read. */
static bool believe_python_frames(struct record_in *in, struct vt_dump_stack_record *s,
                                  uint64_t *recorded)
{
    struct vt_rec_PYSTACK_PYTHON python = {0};
    struct vt_at_PYSTACK_PYTHON at;
    if (!vt_decode_PYSTACK_PYTHON(in, &python, &at))
        return false;
    *recorded = python.count;
    s->python = items_room(in, python.count, VT_MIN_BYTES(PYSTACK_PYFRAME), sizeof *s->python);
    if (!s->python)
        return false;
    for (uint64_t i = 0; i < python.count; i++) {
        struct vt_rec_PYSTACK_PYFRAME frame;
        struct vt_at_PYSTACK_PYFRAME frame_at;
        if (!vt_decode_PYSTACK_PYFRAME(in, &frame, &frame_at))
            return false;
        if (!vt_dump_pyframe(in->b->dump, frame.id))
            doubt(in, "that Python frame left out", "Python frame %llu is not defined",
                  (unsigned long long)frame.id);
        else
            s->python[s->npython++] = frame.id;
    }
    return true;
}

/* How many of the Python frames each interpreter entry holds (appended;
 * absent in older dumps), after the cut. Entries that do not add up to the
 * RECORDED frames, all of them kept, are left out: the frames then stand
 * together, as in older dumps. False when the list could not be read to
 * its end (nothing after it is believed). */
static bool believe_entries(struct record_in *in, struct vt_dump_stack_record *s, uint64_t recorded)
{
    struct vt_rec_PYSTACK_ENTRIES entries = {0};
    struct vt_at_PYSTACK_ENTRIES at;
    uint64_t sum = 0;
    bool whole = true;
    if (!vt_decode_PYSTACK_ENTRIES(in, &entries, &at))
        return false;
    if (!entries.entries)
        return true;
    s->entry_frames =
        items_room(in, entries.entries, VT_MIN_BYTES(PYSTACK_ENTRY), sizeof *s->entry_frames);
    whole = s->entry_frames != NULL;
    for (uint64_t i = 0; s->entry_frames && i < entries.entries; i++) {
        struct vt_rec_PYSTACK_ENTRY entry;
        struct vt_at_PYSTACK_ENTRY entry_at;
        if (!vt_decode_PYSTACK_ENTRY(in, &entry, &entry_at) || entry.frames > recorded) {
            sum = UINT64_MAX;
            whole = false;
            break;
        }
        sum += entry.frames;
        s->entry_frames[s->nentries++] = (size_t)entry.frames;
    }
    if (s->entry_frames && sum == recorded && recorded == s->npython)
        return true;
    if (s->entry_frames && sum != recorded)
        doubt(in, "kept without its interpreter entries",
              "its interpreter entries do not hold its %llu Python frames",
              (unsigned long long)recorded);
    free(s->entry_frames);
    s->entry_frames = NULL;
    s->nentries = 0;
    return whole;
}

/* The Python frames of the thread this one worked for (appended; absent in
 * older dumps and where none were read). Frames not defined are left out;
 * a list that cannot be read costs the list. */
static void believe_behalf(struct record_in *in, struct vt_dump_stack_record *s)
{
    struct vt_rec_PYSTACK_BEHALF head = {0};
    struct vt_at_PYSTACK_BEHALF at;
    if (!vt_decode_PYSTACK_BEHALF(in, &head, &at)) {
        in->done = "kept without the frames of the thread it worked for";
        return;
    }
    if (!head.behalf)
        return;
    s->behalf = items_room(in, head.behalf, VT_MIN_BYTES(PYSTACK_BEHALF_FRAME), sizeof *s->behalf);
    if (!s->behalf)
        in->done = "kept without the frames of the thread it worked for";
    for (uint64_t i = 0; s->behalf && i < head.behalf; i++) {
        struct vt_rec_PYSTACK_BEHALF_FRAME frame;
        struct vt_at_PYSTACK_BEHALF_FRAME frame_at;
        if (!vt_decode_PYSTACK_BEHALF_FRAME(in, &frame, &frame_at)) {
            free(s->behalf);
            s->behalf = NULL;
            s->nbehalf = 0;
            in->done = "kept without the frames of the thread it worked for";
            return;
        }
        if (!vt_dump_pyframe(in->b->dump, frame.id))
            doubt(in, "that Python frame left out", "Python frame %llu is not defined",
                  (unsigned long long)frame.id);
        else
            s->behalf[s->nbehalf++] = frame.id;
    }
    s->behalf_truncated = (head.flags & VT_PYSTACK_TRUNCATED) != 0;
}

static bool believe_pystack(struct record_in *in, struct vt_dump_stack_record **out)
{
    struct vt_rec_PYSTACK_TAIL tail = {0};
    struct vt_at_PYSTACK_TAIL tail_at;
    uint64_t recorded = 0;
    bool whole;
    struct vt_dump_stack_record *s = believe_native_frames(in, &whole);
    *out = s;
    if (!s || !whole)
        return s != NULL;
    if (!believe_python_frames(in, s, &recorded) || !vt_decode_PYSTACK_TAIL(in, &tail, &tail_at)) {
        free(s->python);
        s->python = NULL;
        s->npython = 0;
        in->done = "kept without its Python frames";
        return true;
    }
    s->python_truncated = (tail.flags & VT_PYSTACK_TRUNCATED) != 0;
    believe_cut(in, s);
    if (believe_entries(in, s, recorded))
        believe_behalf(in, s);
    return true;
}

static bool believe_pyframe(struct record_in *in, struct vt_dump_pyframe **out)
{
    struct vt_rec_PYFRAME rec = {0};
    struct vt_at_PYFRAME at;
    if (!vt_decode_PYFRAME(in, &rec, &at) ||
        ((rec.id == 0 || vt_dump_pyframe(in->b->dump, rec.id)) &&
         !doubt(in, "dropped", "Python frame id %llu %s", (unsigned long long)rec.id,
                rec.id ? "defined twice (the first definition stands)" : "is reserved"))) {
        free_fields_PYFRAME(&rec);
        return drop(in);
    }
    struct vt_dump_pyframe *f = vt_xcalloc(1, sizeof *f);
    f->id = rec.id;
    f->function = (char *)rec.function;
    f->file = (char *)rec.file;
    f->line = rec.line;
    *out = f;
    return true;
}

static bool believe_alloc(struct record_in *in, struct vt_dump_alloc *ev)
{
    struct vt_rec_ALLOC rec = {0};
    struct vt_at_ALLOC at;
    if (!vt_decode_ALLOC(in, &rec, &at) || !mode_fits(in, false))
        return drop(in);
    *ev = (struct vt_dump_alloc){
        .time_ns = rec.time_ns,
        .address = rec.address,
        .size = rec.size,
        .stack_id = stack_ref(in, rec.stack),
        .api = rec.api,
        .kind = rec.kind_flags & VT_KIND_MASK,
        .flags = rec.kind_flags & ~(unsigned)VT_KIND_MASK,
        .device = rec.device,
        .tid = rec.tid,
        .stream = rec.stream,
        .call_ns = rec.call_ns,
        .phase = phase_ref(in, rec.phase),
    };
    return kind_known(in, ev->kind) || drop(in);
}

static bool believe_free(struct record_in *in, struct vt_free_event *ev)
{
    struct vt_rec_FREE rec = {0};
    struct vt_at_FREE at;
    if (!vt_decode_FREE(in, &rec, &at) || !mode_fits(in, false))
        return drop(in);
    *ev = (struct vt_free_event){
        .time_ns = rec.time_ns,
        .address = rec.address,
        .api = rec.api,
        .status = rec.status_flags & VT_FREE_STATUS_MASK,
        .flags = rec.status_flags & ~(unsigned)VT_FREE_STATUS_MASK,
        .tid = rec.tid,
        .stream = rec.stream,
        .call_ns = rec.call_ns,
    };
    if (ev->status > VT_FREE_TEARDOWN)
        return doubt(in, "dropped", "unknown status %u", ev->status) || drop(in);
    return true;
}

/* A value + 1, 0 for unknown. */
static void plus1(uint64_t v, bool *known, uint64_t *value)
{
    *known = v != 0;
    *value = v ? v - 1 : 0;
}

/* FAILED's appended NVML view: the other processes, the first
 * VT_GPU_PROCESSES_MAX kept. False: they cannot be read. */
static bool believe_gpu_processes(struct record_in *in, uint64_t count, struct vt_failed_event *ev)
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

static bool believe_failed(struct record_in *in, struct vt_failed_event *ev)
{
    struct vt_rec_FAILED rec = {0};
    struct vt_at_FAILED at;
    if (!vt_decode_FAILED(in, &rec, &at))
        return drop(in);
    *ev = (struct vt_failed_event){
        .time_ns = rec.time_ns,
        .size = rec.size,
        .stack_id = stack_ref(in, rec.stack),
        .api = rec.api,
        .kind = rec.kind,
        .device = rec.device,
        .tid = rec.tid,
        .error = rec.error,
        /* appended: the driver's free and total memory */
        .has_meminfo = present(in, at.mem_free),
        .mem_free = rec.mem_free,
        .mem_total = rec.mem_total,
    };
    /* appended: NVML's view */
    plus1(rec.own_plus1, &ev->has_own, &ev->own_bytes);
    if (!kind_known(in, ev->kind))
        return drop(in);
    if (!believe_gpu_processes(in, rec.others, ev)) {
        ev->nothers = 0;
        in->done = "kept without the other processes on its GPU";
    }
    return true;
}

static bool believe_mark(struct record_in *in, struct vt_mark_event *ev)
{
    struct vt_rec_MARK rec = {0};
    struct vt_at_MARK at;
    if (!vt_decode_MARK(in, &rec, &at)) {
        free_fields_MARK(&rec);
        return drop(in);
    }
    *ev = (struct vt_mark_event){.time_ns = rec.time_ns, .tid = rec.tid, .label = rec.label};
    return true;
}

static bool believe_py_finalizing(struct record_in *in, struct vt_py_finalizing_event *ev)
{
    struct vt_rec_PY_FINALIZING rec = {0};
    struct vt_at_PY_FINALIZING at;
    if (!vt_decode_PY_FINALIZING(in, &rec, &at))
        return drop(in);
    *ev = (struct vt_py_finalizing_event){.time_ns = rec.time_ns, .tid = rec.tid};
    return true;
}

static bool believe_cache_segment(struct record_in *in, struct vt_cache_segment_event *ev)
{
    struct vt_rec_CACHE_SEGMENT rec = {0};
    struct vt_at_CACHE_SEGMENT at;
    if (!vt_decode_CACHE_SEGMENT(in, &rec, &at))
        return drop(in);
    *ev = (struct vt_cache_segment_event){.address = rec.address, .flags = rec.flags};
    return true;
}

/* END: the process ended. A signal ending whose number cannot be one is
 * kept as an ending by an unknown signal. */
static bool believe_end(struct record_in *in, struct vt_believed *out)
{
    struct vt_rec_END rec = {0};
    struct vt_at_END at;
    if (!vt_decode_END(in, &rec, &at))
        return drop(in);
    out->as.end.reason = rec.reason;
    out->as.end.signal = rec.reason == VT_END_SIGNAL ? (int)(rec.signal & 0x3ff) : 0;
    out->as.end.status = rec.reason == VT_END_UNDERSCORE_EXIT ? (int)(rec.status & 0xff)
                         : rec.reason == VT_END_STOPPED       ? (int)(rec.status & 0xff)
                                                              : 0;
    if (rec.reason == VT_END_SIGNAL && (rec.signal == 0 || rec.signal >= 1024)) {
        doubt(in, "kept as an ending by an unknown signal", "signal %llu",
              (unsigned long long)rec.signal);
        out->as.end.signal = 0;
    }
    out->as.end.reopened = rec.reopened > UINT_MAX ? UINT_MAX : (unsigned)rec.reopened;
    return true;
}

/* The site key of SAMPLE and SITES: an undefined stack is left out, a site
 * of an unknown kind is left out of the record. */
static bool site_believed(struct record_in *in, uint64_t *stack_id, unsigned kind)
{
    *stack_id = stack_ref(in, *stack_id);
    if (kind >= VT_KIND_COUNT) {
        doubt(in, "that site left out", "a site of unknown kind %u", kind);
        return false;
    }
    return true;
}

static bool believe_sample(struct record_in *in, struct vt_sample_event *ev)
{
    struct vt_rec_SAMPLE head = {0};
    struct vt_at_SAMPLE at;
    struct vt_rec_SAMPLE_SITES sites_head = {0};
    struct vt_at_SAMPLE_SITES sites_at;
    struct vt_device_bytes *devices;
    struct vt_site_state *sites;
    *ev = (struct vt_sample_event){0};
    if (!vt_decode_SAMPLE(in, &head, &at) || !mode_fits(in, true))
        return drop(in);
    ev->time_ns = head.time_ns;
    ev->allocations = head.allocations;
    ev->frees = head.frees;
    devices = items_room(in, head.devices, VT_MIN_BYTES(SAMPLE_DEVICE), sizeof *devices);
    ev->devices = devices;
    if (!devices)
        return drop(in);
    for (; ev->ndevices < head.devices; ev->ndevices++) {
        struct vt_rec_SAMPLE_DEVICE d;
        struct vt_at_SAMPLE_DEVICE d_at;
        if (!vt_decode_SAMPLE_DEVICE(in, &d, &d_at))
            return drop(in);
        devices[ev->ndevices] = (struct vt_device_bytes){d.device, d.bytes, 0};
    }
    if (!vt_decode_SAMPLE_SITES(in, &sites_head, &sites_at))
        return drop(in);
    sites = items_room(in, sites_head.sites, VT_MIN_BYTES(SAMPLE_SITE), sizeof *sites);
    ev->sites = sites;
    if (!sites)
        return drop(in);
    for (uint64_t i = 0; i < sites_head.sites; i++) {
        struct vt_rec_SAMPLE_SITE site;
        struct vt_at_SAMPLE_SITE site_at;
        if (!vt_decode_SAMPLE_SITE(in, &site, &site_at))
            return drop(in);
        if (site_believed(in, &site.stack_id, site.kind))
            sites[ev->nsites++] = (struct vt_site_state){.stack_id = site.stack_id,
                                                         .api = site.api,
                                                         .kind = site.kind,
                                                         .device = site.device,
                                                         .live_bytes = site.live_bytes,
                                                         .live_count = site.live_count};
    }
    return true;
}

static bool believe_sites(struct record_in *in, struct vt_sites_event *ev)
{
    struct vt_rec_SITES head = {0};
    struct vt_at_SITES at;
    struct vt_site_state *sites;
    *ev = (struct vt_sites_event){0};
    if (!vt_decode_SITES(in, &head, &at) || !mode_fits(in, true))
        return drop(in);
    ev->time_ns = head.time_ns;
    sites = items_room(in, head.sites, VT_MIN_BYTES(SITES_SITE), sizeof *sites);
    ev->sites = sites;
    if (!sites)
        return drop(in);
    for (uint64_t i = 0; i < head.sites; i++) {
        struct vt_rec_SITES_SITE site;
        struct vt_at_SITES_SITE site_at;
        if (!vt_decode_SITES_SITE(in, &site, &site_at))
            return drop(in);
        if (site_believed(in, &site.stack_id, site.kind))
            sites[ev->nsites++] = (struct vt_site_state){.stack_id = site.stack_id,
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

static bool believe_totals(struct record_in *in, struct vt_totals_event *ev)
{
    struct vt_rec_TOTALS head = {0};
    struct vt_at_TOTALS at;
    struct vt_device_bytes *devices;
    *ev = (struct vt_totals_event){0};
    if (!vt_decode_TOTALS(in, &head, &at) || !mode_fits(in, true))
        return drop(in);
    *ev = (struct vt_totals_event){
        .time_ns = head.time_ns,
        .invalid_frees = head.invalid_frees,
        .untraced_frees = head.untraced_frees,
        .teardown_allocations = head.teardown_allocations,
        .teardown_bytes = head.teardown_bytes,
        .peak_bytes = head.peak_bytes,
        .peak_time_ns = not_after_record(in, head.peak_time_ns, "peak time"),
    };
    devices = items_room(in, head.devices, VT_MIN_BYTES(TOTALS_DEVICE), sizeof *devices);
    ev->devices = devices;
    if (!devices)
        return drop(in);
    for (; ev->ndevices < head.devices; ev->ndevices++) {
        struct vt_rec_TOTALS_DEVICE d;
        struct vt_at_TOTALS_DEVICE d_at;
        if (!vt_decode_TOTALS_DEVICE(in, &d, &d_at))
            return drop(in);
        devices[ev->ndevices] = (struct vt_device_bytes){
            d.device, d.bytes, not_after_record(in, d.time_ns, "a device's peak time")};
    }
    return true;
}

/* THREAD: a thread's name by its tid. */
static bool believe_thread(struct record_in *in, struct vt_thread_name *t)
{
    struct vt_rec_THREAD rec = {0};
    struct vt_at_THREAD at;
    if (!vt_decode_THREAD(in, &rec, &at)) {
        free_fields_THREAD(&rec);
        return drop(in);
    }
    *t = (struct vt_thread_name){.tid = rec.tid, .name = (char *)rec.name};
    return true;
}

/* PHASE: an NVTX range's name, kept as a thread's is (tid: the id). */
static bool believe_phase(struct record_in *in, struct vt_thread_name *t)
{
    struct vt_rec_PHASE rec = {0};
    struct vt_at_PHASE at;
    bool known = vt_decode_PHASE(in, &rec, &at) && (rec.id || doubt(in, "dropped", "phase id 0"));
    if (!known) {
        free_fields_PHASE(&rec);
        return drop(in);
    }
    *t = (struct vt_thread_name){.tid = rec.id, .name = (char *)rec.name};
    return true;
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

/* FRAMEWORK: a state this version does not know drops it. */
static bool believe_framework(struct record_in *in, struct vt_framework_seen *f)
{
    struct vt_rec_FRAMEWORK rec = {0};
    struct vt_at_FRAMEWORK at;
    if (!vt_decode_FRAMEWORK(in, &rec, &at) || rec.state >= VT_FRAMEWORK_STATE_COUNT) {
        free_fields_FRAMEWORK(&rec);
        return rec.state >= VT_FRAMEWORK_STATE_COUNT
                   ? doubt(in, "dropped", "unknown framework state %u", rec.state)
                   : drop(in);
    }
    *f = (struct vt_framework_seen){
        .name = (char *)rec.name, .version = unless_empty(rec.version), .state = rec.state};
    return true;
}

/* ATTACH: the held memory per device, then the routes not reached. */
static bool believe_attach(struct record_in *in, struct vt_attach_info **out)
{
    struct vt_rec_ATTACH head = {0};
    struct vt_rec_ATTACH_ROUTES routes = {0};
    struct vt_at_ATTACH at;
    struct vt_at_ATTACH_ROUTES routes_at;
    struct vt_attach_info *a = vt_xcalloc(1, sizeof *a);
    *out = a;
    if (!vt_decode_ATTACH(in, &head, &at))
        return drop(in);
    a->time_ns = head.time_ns;
    a->devices = items_room(in, head.devices, VT_MIN_BYTES(ATTACH_DEVICE), sizeof *a->devices);
    if (!a->devices && head.devices)
        return drop(in);
    for (; a->ndevices < head.devices; a->ndevices++) {
        struct vt_rec_ATTACH_DEVICE d;
        struct vt_at_ATTACH_DEVICE d_at;
        if (!vt_decode_ATTACH_DEVICE(in, &d, &d_at))
            return drop(in);
        a->devices[a->ndevices] = (struct vt_attach_device){
            (int)d.device, d.free_bytes,
            d.total_bytes > d.free_bytes ? d.total_bytes : d.free_bytes, d.own_plus1};
    }
    if (!vt_decode_ATTACH_ROUTES(in, &routes, &routes_at))
        return drop(in);
    a->routes = items_room(in, routes.routes, VT_MIN_BYTES(ATTACH_ROUTE), sizeof *a->routes);
    if (!a->routes && routes.routes)
        return drop(in);
    for (; a->nroutes < routes.routes; a->nroutes++) {
        struct vt_rec_ATTACH_ROUTE r = {0};
        struct vt_at_ATTACH_ROUTE r_at;
        if (!vt_decode_ATTACH_ROUTE(in, &r, &r_at)) {
            free_fields_ATTACH_ROUTE(&r);
            return drop(in);
        }
        a->routes[a->nroutes] = (char *)r.what;
    }
    return true;
}

/* 16 bytes, or none (unknown); another length is doubted. Frees FIELD. */
static bool believe_uuid(struct record_in *in, struct vt_bytes *field, const char *what,
                         const char *consequence, uint8_t out[16])
{
    bool whole = field->len == 16;
    if (whole)
        memcpy(out, field->data, 16);
    else if (field->len != 0)
        doubt(in, consequence, "a %s of %llu bytes", what, (unsigned long long)field->len);
    free((void *)field->data);
    return whole;
}

static bool believe_device(struct record_in *in, struct vt_device_info *d)
{
    struct vt_rec_DEVICE rec = {0};
    struct vt_at_DEVICE at;
    if (!vt_decode_DEVICE(in, &rec, &at)) {
        free_fields_DEVICE(&rec);
        return drop(in);
    }
    *d = (struct vt_device_info){
        .device = rec.device, .total_bytes = rec.total_bytes, .mig = rec.flags & VT_DEVICE_MIG};
    d->has_uuid = believe_uuid(in, &rec.uuid, "UUID", "kept without its UUID", d->uuid);
    d->has_parent_uuid = believe_uuid(in, &rec.parent_uuid, "parent GPU UUID",
                                      "kept without its GPU's UUID", d->parent_uuid);
    d->pci_bus_id = unless_empty(rec.pci_bus_id);
    d->name = unless_empty(rec.name);
    d->parent_name = unless_empty(rec.parent_name);
    return true;
}

/* The driver was asked outside the tracer's lock, so the record may come
 * after records of later times, and after an idle hour: its time is only
 * bounded by the process's clock at the next timed record (a second of
 * slack for the threads that raced it to the lock). */
#define USAGE_SLACK_NS 1000000000ull

static bool believe_device_usage(struct record_in *in, struct vt_device_usage_event *ev)
{
    struct vt_rec_DEVICE_USAGE rec = {0}; /* traced_plus1 0: not written */
    struct vt_at_DEVICE_USAGE at;
    uint64_t bound;
    if (!vt_decode_DEVICE_USAGE(in, &rec, &at))
        return drop(in);
    *ev = (struct vt_device_usage_event){
        .time_ns = rec.time_ns,
        .reason = rec.reason,
        .device = rec.device,
        .free_bytes = rec.free_bytes,
        .total_bytes = rec.total_bytes,
        .others_count = rec.others,
    };
    plus1(rec.own_plus1, &ev->has_own, &ev->own_bytes);
    plus1(rec.others_plus1, &ev->has_others, &ev->others_bytes);
    plus1(rec.traced_plus1, &ev->has_traced, &ev->traced_bytes);
    if (ev->reason >= VT_USAGE_REASON_COUNT)
        return doubt(in, "dropped", "unknown reason %u", ev->reason) || drop(in);
    if (ev->free_bytes > ev->total_bytes)
        return doubt(in, "dropped", "more free than total memory") || drop(in);
    if (clock_ahead(in->b, &bound) && ev->time_ns > bound && ev->time_ns - bound > USAGE_SLACK_NS) {
        doubt(in, "time clamped to the next record's",
              "time %llu ns is later than the next timed record's (%llu ns)",
              (unsigned long long)ev->time_ns, (unsigned long long)bound);
        ev->time_ns = bound;
    }
    return true;
}

/* A refused free: references to undefined stacks are left out; an
 * allocation of unknown kind is left out of it. */
static bool believe_bad_free(struct record_in *in, struct vt_bad_free_event *ev)
{
    struct vt_rec_BAD_FREE rec = {0};
    struct vt_at_BAD_FREE at;
    if (!vt_decode_BAD_FREE(in, &rec, &at))
        return drop(in);
    *ev = (struct vt_bad_free_event){
        .time_ns = rec.time_ns,
        .address = rec.address,
        .api = rec.api,
        .flags = rec.flags,
        .tid = rec.tid,
        .error = rec.error,
        .stack_id = stack_ref(in, rec.stack),
        .alloc_stack_id = stack_ref(in, rec.alloc_stack),
        .alloc_api = rec.alloc_api,
        .alloc_kind = rec.alloc_kind,
        .alloc_device = rec.alloc_device,
        .alloc_size = rec.alloc_size,
        .first_free_ns = not_after_record(in, rec.first_free_ns, "first free time"),
        .first_free_api = rec.first_free_api,
        .first_free_tid = rec.first_free_tid,
        .first_free_stack_id = stack_ref(in, rec.first_free_stack),
    };
    unsigned known = VT_BAD_FREE_ALLOC_KNOWN | VT_BAD_FREE_GRAPH_NODE;
    if ((ev->flags & known) && ev->alloc_kind >= VT_KIND_COUNT) {
        doubt(in, "kept without its allocation", "an allocation of unknown kind %u",
              ev->alloc_kind);
        ev->flags &= ~known;
        ev->alloc_stack_id = ev->alloc_size = 0;
        ev->alloc_api = ev->alloc_kind = 0;
        ev->alloc_device = 0;
    }
    return true;
}

static const char *const record_names[VT_REC_MAX_KNOWN + 1] = {
    [VT_REC_PROCESS] = "PROCESS",
    [VT_REC_MODULE] = "MODULE",
    [VT_REC_STACK] = "STACK",
    [VT_REC_ALLOC] = "ALLOC",
    [VT_REC_FREE] = "FREE",
    [VT_REC_FAILED] = "FAILED",
    [VT_REC_MARK] = "MARK",
    [VT_REC_END] = "END",
    [VT_REC_PYFRAME] = "PYFRAME",
    [VT_REC_PYSTACK] = "PYSTACK",
    [VT_REC_SAMPLE] = "SAMPLE",
    [VT_REC_SITES] = "SITES",
    [VT_REC_TOTALS] = "TOTALS",
    [VT_REC_THREAD] = "THREAD",
    [VT_REC_DEVICE] = "DEVICE",
    [VT_REC_DEVICE_USAGE] = "DEVICE_USAGE",
    [VT_REC_BAD_FREE] = "BAD_FREE",
    [VT_REC_MODULE_UNLOAD] = "MODULE_UNLOAD",
    [VT_REC_PY_FINALIZING] = "PY_FINALIZING",
    [VT_REC_FRAMEWORK] = "FRAMEWORK",
    [VT_REC_CACHE_SEGMENT] = "CACHE_SEGMENT",
    [VT_REC_ATTACH] = "ATTACH",
    [VT_REC_PHASE] = "PHASE",
};

static bool believe_type(struct record_in *in, struct vt_believed *out)
{
    switch (out->type) {
    case VT_REC_PROCESS:
        return believe_process(in, &out->as.process);
    case VT_REC_MODULE:
        return believe_module(in, &out->as.module);
    case VT_REC_STACK:
        return believe_stack(in, &out->as.stack);
    case VT_REC_ALLOC:
        return believe_alloc(in, &out->as.alloc);
    case VT_REC_FREE:
        return believe_free(in, &out->as.free);
    case VT_REC_FAILED:
        return believe_failed(in, &out->as.failed);
    case VT_REC_MARK:
        return believe_mark(in, &out->as.mark);
    case VT_REC_END:
        return believe_end(in, out);
    case VT_REC_PYFRAME:
        return believe_pyframe(in, &out->as.pyframe);
    case VT_REC_PYSTACK:
        return believe_pystack(in, &out->as.stack);
    case VT_REC_SAMPLE:
        return believe_sample(in, &out->as.sample);
    case VT_REC_SITES:
        return believe_sites(in, &out->as.sites);
    case VT_REC_TOTALS:
        return believe_totals(in, &out->as.totals);
    case VT_REC_THREAD:
        return believe_thread(in, &out->as.thread);
    case VT_REC_DEVICE:
        return believe_device(in, &out->as.device);
    case VT_REC_DEVICE_USAGE:
        return believe_device_usage(in, &out->as.device_usage);
    case VT_REC_BAD_FREE:
        return believe_bad_free(in, &out->as.bad_free);
    case VT_REC_MODULE_UNLOAD:
        return believe_module_unload(in, &out->as.module_unload);
    case VT_REC_PY_FINALIZING:
        return believe_py_finalizing(in, &out->as.py_finalizing);
    case VT_REC_FRAMEWORK:
        return believe_framework(in, &out->as.framework);
    case VT_REC_CACHE_SEGMENT:
        return believe_cache_segment(in, &out->as.cache_segment);
    case VT_REC_ATTACH:
        return believe_attach(in, &out->as.attach);
    case VT_REC_PHASE:
        return believe_phase(in, &out->as.thread);
    default:
        return false;
    }
}

/* Trailing bytes in a known record are fields a newer writer appended:
 * ignored, like records of unknown types. */
bool vt_believe(struct vt_belief *b, const struct vt_frame *frame, struct vt_believed *out)
{
    memset(out, 0, sizeof *out);
    out->type = frame->type;
    if (frame->type > VT_REC_MAX_KNOWN || !record_names[frame->type])
        return false;
    struct record_in in = {
        .b = b, .p = frame->payload, .end = frame->end, .name = record_names[frame->type]};
    bool kept = believe_type(&in, out);
    if (!kept)
        vt_believed_free(out);
    if (in.doubt[0])
        count_and_say(b, in.name, frame->offset, in.doubt, in.done, in.more_doubts);
    return kept;
}

void vt_believed_free(struct vt_believed *rec)
{
    switch (rec->type) {
    case VT_REC_PROCESS:
        vt_process_free(&rec->as.process);
        break;
    case VT_REC_MODULE:
        free(rec->as.module.path);
        free(rec->as.module.build_id);
        break;
    case VT_REC_STACK:
    case VT_REC_PYSTACK:
        vt_dump_stack_free(rec->as.stack);
        break;
    case VT_REC_PYFRAME:
        if (rec->as.pyframe) {
            free(rec->as.pyframe->function);
            free(rec->as.pyframe->file);
            free(rec->as.pyframe);
        }
        break;
    case VT_REC_MARK:
        free((char *)rec->as.mark.label);
        break;
    case VT_REC_SAMPLE:
        free((void *)rec->as.sample.devices);
        free((void *)rec->as.sample.sites);
        break;
    case VT_REC_SITES:
        free((void *)rec->as.sites.sites);
        break;
    case VT_REC_TOTALS:
        free((void *)rec->as.totals.devices);
        break;
    case VT_REC_THREAD:
        free(rec->as.thread.name);
        break;
    case VT_REC_FRAMEWORK:
        free(rec->as.framework.name);
        free(rec->as.framework.version);
        break;
    case VT_REC_ATTACH:
        vt_attach_info_free(rec->as.attach);
        break;
    case VT_REC_DEVICE:
        free(rec->as.device.pci_bus_id);
        free(rec->as.device.name);
        free(rec->as.device.parent_name);
        break;
    default:
        break;
    }
    memset(&rec->as, 0, sizeof rec->as);
}
