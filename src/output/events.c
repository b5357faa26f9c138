/* SPDX-License-Identifier: MIT */
#include "events.h"

#include "phase_names.h"
#include "records.h"
#include "writer.h"
#include "tracing.h"

static void unchanged(const struct vt_alloc_info *info, uint32_t stack)
{
    (void)info;
    (void)stack;
}

static int write_alloc(const struct vt_alloc_info *info, uint32_t stack, unsigned flags,
                       uint64_t time_ns)
{
    /* the NVTX range it was made in; a restored one was not made now */
    uint32_t phase = flags ? 0 : vt_thread_state.phase;
    if (vt_phase_note(phase) < 0)
        return -1;
    struct vt_rec_ALLOC ev = {
        .time_ns = time_ns,
        .address = info->key,
        .size = info->size,
        .stack = stack,
        .api = (uint8_t)info->api,
        .kind_flags = (uint8_t)(info->kind | vt_space_flag(info->space) | flags),
        .device = info->device,
        .stream = info->stream,
        .call_ns = vt_thread_state.call_ns, /* 0 for what no call of this thread made */
        .phase = phase,
    };
    return vt_rec_alloc(&ev);
}

static int write_free(const struct vt_alloc_info *info, uint32_t stack, uint64_t key, unsigned api,
                      unsigned status_flags, uint64_t stream, uint64_t time_ns)
{
    (void)info;
    (void)stack;
    /* the real free runs after its record: its call_ns (the record's last
     * field, WIDE) is filled in then (vt_output_free_took) */
    int written = vt_rec_free(time_ns, key, api, status_flags, stream, vt_thread_state.call_ns);
    vt_thread_state.free_record_end = written == 0 ? vt_writer_mark() : 0;
    return written;
}

static int nothing_before_mark(void)
{
    return 0;
}

static void nothing_to_finish(void)
{
}

/* The replay of the events knows the traced bytes. */
static uint64_t traced_unwritten(int device)
{
    (void)device;
    return 0;
}

const struct vt_output vt_output_events = {
    .header_flags = 0,
    .insert = unchanged,
    .discard = unchanged,
    .alloc = write_alloc,
    .free = write_free,
    .before_mark = nothing_before_mark,
    .finish = nothing_to_finish,
    .device_traced_plus1 = traced_unwritten,
};
