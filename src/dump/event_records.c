/* SPDX-License-Identifier: MIT */
/* ALLOC and FREE, the records of every event, encoded straight into the
 * dump's mapping from format.h's layouts. No bounds checks: the largest
 * either can be fits the room the writer gives (checked at compile time). */
#include "records.h"

#include "deltas.h"
#include "format.h"
#include "tracing.h"
#include "writer.h"

struct cursor {
    uint8_t *p;
};

/* The field kinds these layouts use, and the most bytes each takes. */
static inline void vt_put_VARINT(struct cursor *c, uint64_t v)
{
    c->p += vt_put_varint(c->p, v);
}

static inline void vt_put_SVARINT(struct cursor *c, int64_t v)
{
    vt_put_VARINT(c, vt_zigzag(v));
}

static inline void vt_put_U8(struct cursor *c, unsigned v)
{
    *c->p++ = (uint8_t)v;
}

static inline void vt_put_DT(struct cursor *c, uint64_t now)
{
    vt_put_VARINT(c, vt_delta_time(now));
}

static inline void vt_put_ADDR(struct cursor *c, uint64_t address)
{
    vt_put_VARINT(c, vt_delta_address(address));
}

static inline void vt_put_WIDE(struct cursor *c, uint64_t v)
{
    vt_put_wide(c->p, v);
    c->p += VT_WIDE_BYTES;
}

#define MOST_VARINT VT_VARINT_MAX
#define MOST_SVARINT VT_VARINT_MAX
#define MOST_U8 1
#define MOST_DT VT_VARINT_MAX
#define MOST_ADDR VT_VARINT_MAX
#define MOST_WIDE VT_WIDE_BYTES
#define MOST_BYTES(kind, name, label) +MOST_##kind
#define FITS(TYPE)                                                                       \
    _Static_assert(0 VT_REC_##TYPE##_FIELDS(MOST_BYTES)                                  \
                           VT_REC_##TYPE##_APPENDED(MOST_BYTES) <= VT_SMALL_PAYLOAD_MAX, \
                   #TYPE " fits a small record")

VT_DEFINE_ENCODER(ALLOC, struct cursor)
VT_DEFINE_ENCODER(FREE, struct cursor)
FITS(ALLOC);
FITS(FREE);

int vt_rec_alloc(struct vt_rec_ALLOC *e)
{
    if (vt_api_in_segment(e->api) &&
        vt_writer_raise_version(e->api == VT_API_nvtxMemRegionsRegister ? VT_VERSION_REGIONS
                                                                        : VT_VERSION_TENSORS) < 0)
        return -1;
    struct cursor c = {vt_writer_small_begin()};
    uint8_t *payload = c.p;
    if (!payload)
        return -1;
    e->tid = (uint64_t)vt_tid();
    vt_encode_ALLOC(&c, e, 1);
    /* no phase: its last field, the varint 0 (one byte), is left out */
    vt_writer_small_end(VT_REC_ALLOC, payload, (size_t)(c.p - payload) - (e->phase == 0));
    return 0;
}

int vt_rec_free(uint64_t time_ns, uint64_t address, unsigned api, unsigned status_flags,
                uint64_t stream, uint64_t call_ns)
{
    struct cursor c = {vt_writer_small_begin()};
    uint8_t *payload = c.p;
    if (!payload)
        return -1;
    struct vt_rec_FREE rec = {
        .time_ns = time_ns,
        .address = address,
        .api = (uint8_t)api,
        .status_flags = (uint8_t)status_flags,
        .tid = (uint64_t)vt_tid(),
        .stream = stream,
        .call_ns = call_ns,
    };
    vt_encode_FREE(&c, &rec, 1);
    vt_writer_small_end(VT_REC_FREE, payload, (size_t)(c.p - payload));
    return 0;
}
