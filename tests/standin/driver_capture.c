/* SPDX-License-Identifier: MIT */
/* Stream capture: between cuStreamBeginCapture and cuStreamEndCapture the
 * work queued on a stream goes into a graph instead of running;
 * stream-ordered allocations become allocation nodes (their addresses
 * fixed, no memory until the graph is launched) and stream-ordered frees
 * free nodes. Captured streams are created streams (capturing the legacy
 * or per-thread default stream is refused here); a thread's capture mode
 * is kept (cuThreadExchangeStreamCaptureMode) but calls that a global
 * capture forbids are not refused. A stream that waits on an event recorded
 * in a capture joins it (cuStreamWaitEvent: a fork), its work going into
 * the same graph; it must be joined back (the origin stream waits on an
 * event recorded on it) before the origin ends the capture, else the
 * capture is CUDA_ERROR_STREAM_CAPTURE_UNJOINED; ending the capture on a
 * joined stream is CUDA_ERROR_STREAM_CAPTURE_UNMATCHED. */
#include "driver_internal.h"

#include <stdlib.h>

struct scapture {
    CUstream stream;
    CUstreamCaptureStatus status;
    CUstreamCaptureMode mode;
    cuuint64_t id;
    struct sgraph *graph; /* the origin's: a joined stream's is borrowed */
    int joined;           /* joined by an event (not the origin) */
    int rejoined;         /* ... and joined back into the origin */
    UT_hash_handle hh;
};

static struct scapture *g_captures; /* by stream */
static cuuint64_t g_capture_ids;
static __thread CUstreamCaptureMode t_mode;

/* Lock held. */
static struct scapture *capture_locked(CUstream s)
{
    struct scapture *c;
    HASH_FIND(hh, g_captures, &s, sizeof s, c);
    return c;
}

static CUresult begin_capture(CUstream hStream, CUstreamCaptureMode mode)
{
    struct sctx *ctx;
    struct sgraph *g;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    if (!hStream || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
    CUresult r = stream_ctx(hStream, &ctx);
    if (r != CUDA_SUCCESS)
        return r;
    struct scapture *c = calloc(1, sizeof *c);
    if (!c || graph_new(&g) != CUDA_SUCCESS) {
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    pthread_mutex_lock(&g_lock);
    if (capture_locked(hStream)) {
        pthread_mutex_unlock(&g_lock);
        graph_destroy(g);
        free(c);
        return CUDA_ERROR_ILLEGAL_STATE;
    }
    *c = (struct scapture){.stream = hStream,
                           .status = CU_STREAM_CAPTURE_STATUS_ACTIVE,
                           .mode = mode,
                           .id = ++g_capture_ids,
                           .graph = g};
    HASH_ADD(hh, g_captures, stream, sizeof c->stream, c);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamBeginCapture_v2(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin_capture(hStream, mode);
}

EXPORT CUresult cuStreamBeginCapture_v2_ptsz(CUstream hStream, CUstreamCaptureMode mode)
{
    return begin_capture(hStream, mode);
}

/* The streams ORIGIN's capture joined leave it; whether each had joined
 * back. Lock held. */
static int drop_joined_locked(const struct scapture *origin)
{
    struct scapture *c, *tmp;
    int all_back = 1;
    HASH_ITER(hh, g_captures, c, tmp) {
        if (c->joined && c->id == origin->id) {
            all_back &= c->rejoined;
            HASH_DEL(g_captures, c);
            free(c);
        }
    }
    return all_back;
}

/* The capture's graph; an invalidated or unjoined capture ends without one. */
static CUresult end_capture(CUstream hStream, CUgraph *phGraph)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraph)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct scapture *c = capture_locked(hStream);
    if (c && c->joined) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_STREAM_CAPTURE_UNMATCHED;
    }
    int all_back = 1;
    if (c) {
        HASH_DEL(g_captures, c);
        all_back = drop_joined_locked(c);
    }
    pthread_mutex_unlock(&g_lock);
    if (!c)
        return CUDA_ERROR_ILLEGAL_STATE;
    CUresult r = CUDA_SUCCESS;
    if (!all_back) {
        graph_destroy(c->graph);
        *phGraph = NULL;
        r = CUDA_ERROR_STREAM_CAPTURE_UNJOINED;
    } else if (c->status == CU_STREAM_CAPTURE_STATUS_INVALIDATED) {
        graph_destroy(c->graph);
        *phGraph = NULL;
        r = CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
    } else {
        *phGraph = (CUgraph)c->graph;
    }
    free(c);
    return r;
}

EXPORT CUresult cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
    return end_capture(hStream, phGraph);
}

EXPORT CUresult cuStreamEndCapture_ptsz(CUstream hStream, CUgraph *phGraph)
{
    return end_capture(hStream, phGraph);
}

/* STREAM's capture status, id and graph (NONE, 0, NULL when not capturing). */
static CUresult capture_info(CUstream hStream, CUstreamCaptureStatus *status, cuuint64_t *id,
                             CUgraph *graph)
{
    struct sctx *ctx;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!status)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = stream_ctx(hStream, &ctx);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    struct scapture *c = capture_locked(hStream);
    *status = c ? c->status : CU_STREAM_CAPTURE_STATUS_NONE;
    if (id)
        *id = c ? c->id : 0;
    if (graph)
        *graph = c ? (CUgraph)c->graph : NULL;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamIsCapturing(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, captureStatus, NULL, NULL);
}

EXPORT CUresult cuStreamIsCapturing_ptsz(CUstream hStream, CUstreamCaptureStatus *captureStatus)
{
    return capture_info(hStream, captureStatus, NULL, NULL);
}

EXPORT CUresult cuStreamGetCaptureInfo(CUstream hStream, CUstreamCaptureStatus *captureStatus,
                                       cuuint64_t *id)
{
    return capture_info(hStream, captureStatus, id, NULL);
}

EXPORT CUresult cuStreamGetCaptureInfo_ptsz(CUstream hStream,
                                            CUstreamCaptureStatus *captureStatus, cuuint64_t *id)
{
    return capture_info(hStream, captureStatus, id, NULL);
}

/* The capture's dependencies are not tracked: none are reported. */
static CUresult capture_info_v2(CUstream hStream, CUstreamCaptureStatus *status, cuuint64_t *id,
                                CUgraph *graph, const CUgraphNode **dependencies,
                                const CUgraphEdgeData **edges, size_t *count)
{
    CUresult r = capture_info(hStream, status, id, graph);
    if (r == CUDA_SUCCESS && dependencies)
        *dependencies = NULL;
    if (r == CUDA_SUCCESS && edges)
        *edges = NULL;
    if (r == CUDA_SUCCESS && count)
        *count = 0;
    return r;
}

EXPORT CUresult cuStreamGetCaptureInfo_v2(CUstream hStream, CUstreamCaptureStatus *captureStatus,
                                          cuuint64_t *id, CUgraph *graph,
                                          const CUgraphNode **dependencies, size_t *count)
{
    return capture_info_v2(hStream, captureStatus, id, graph, dependencies, NULL, count);
}

EXPORT CUresult cuStreamGetCaptureInfo_v2_ptsz(CUstream hStream,
                                               CUstreamCaptureStatus *captureStatus,
                                               cuuint64_t *id, CUgraph *graph,
                                               const CUgraphNode **dependencies, size_t *count)
{
    return capture_info_v2(hStream, captureStatus, id, graph, dependencies, NULL, count);
}

EXPORT CUresult cuStreamGetCaptureInfo_v3(CUstream hStream, CUstreamCaptureStatus *captureStatus,
                                          cuuint64_t *id, CUgraph *graph,
                                          const CUgraphNode **dependencies,
                                          const CUgraphEdgeData **edges, size_t *count)
{
    return capture_info_v2(hStream, captureStatus, id, graph, dependencies, edges, count);
}

EXPORT CUresult cuStreamGetCaptureInfo_v3_ptsz(CUstream hStream,
                                               CUstreamCaptureStatus *captureStatus,
                                               cuuint64_t *id, CUgraph *graph,
                                               const CUgraphNode **dependencies,
                                               const CUgraphEdgeData **edges, size_t *count)
{
    return capture_info_v2(hStream, captureStatus, id, graph, dependencies, edges, count);
}

EXPORT CUresult cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
    if (!mode || *mode > CU_STREAM_CAPTURE_MODE_RELAXED)
        return CUDA_ERROR_INVALID_VALUE;
    CUstreamCaptureMode previous = t_mode;
    t_mode = *mode;
    *mode = previous;
    return CUDA_SUCCESS;
}

/* The graph STREAM is capturing into, or NULL (stream-ordered calls run). */
struct sgraph *capture_graph(CUstream stream)
{
    pthread_mutex_lock(&g_lock);
    struct scapture *c = capture_locked(stream);
    struct sgraph *g = c && c->status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? c->graph : NULL;
    pthread_mutex_unlock(&g_lock);
    return g;
}

cuuint64_t capture_id(CUstream stream)
{
    pthread_mutex_lock(&g_lock);
    struct scapture *c = capture_locked(stream);
    cuuint64_t id = c && c->status == CU_STREAM_CAPTURE_STATUS_ACTIVE ? c->id : 0;
    pthread_mutex_unlock(&g_lock);
    return id;
}

/* Capture ID's origin entry, or NULL (it ended). Lock held. */
static struct scapture *origin_locked(cuuint64_t id)
{
    struct scapture *c, *tmp;
    HASH_ITER(hh, g_captures, c, tmp) {
        if (c->id == id && !c->joined)
            return c;
    }
    return NULL;
}

/* STREAM joins ORIGIN's capture. Lock held. */
static CUresult join_locked(CUstream stream, const struct scapture *origin)
{
    if (!stream || stream == CU_STREAM_LEGACY || stream == CU_STREAM_PER_THREAD)
        return CUDA_ERROR_STREAM_CAPTURE_IMPLICIT;
    struct scapture *c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *c = (struct scapture){.stream = stream,
                           .status = origin->status,
                           .mode = origin->mode,
                           .id = origin->id,
                           .graph = origin->graph,
                           .joined = 1};
    HASH_ADD(hh, g_captures, stream, sizeof c->stream, c);
    return CUDA_SUCCESS;
}

CUresult capture_wait(CUstream stream, cuuint64_t capture, CUstream recorded_on)
{
    CUresult r = CUDA_SUCCESS;
    pthread_mutex_lock(&g_lock);
    struct scapture *origin = origin_locked(capture), *mine = capture_locked(stream);
    if (!origin) {
        /* that capture ended: its event orders nothing now */
    } else if (!mine) {
        r = join_locked(stream, origin);
    } else if (mine->id != capture) {
        r = CUDA_ERROR_STREAM_CAPTURE_MERGE;
    } else {
        struct scapture *from = capture_locked(recorded_on);
        if (from && from->joined && from != mine)
            from->rejoined = 1;
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC_PTSZ("cuStreamBeginCapture", 10010, cuStreamBeginCapture_v2)
PROC_PTSZ("cuStreamEndCapture", 10000, cuStreamEndCapture)
PROC_PTSZ("cuStreamIsCapturing", 10000, cuStreamIsCapturing)
PROC_PTSZ("cuStreamGetCaptureInfo", 10010, cuStreamGetCaptureInfo)
PROC_PTSZ("cuStreamGetCaptureInfo", 11030, cuStreamGetCaptureInfo_v2)
PROC_PTSZ("cuStreamGetCaptureInfo", 12030, cuStreamGetCaptureInfo_v3)
PROC("cuThreadExchangeStreamCaptureMode", 10010, cuThreadExchangeStreamCaptureMode)
