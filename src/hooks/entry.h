/* SPDX-License-Identifier: MIT */
/* How an entry point (a hook, the framework tracker) begins a traced event:
 * each may start the tracer (tracer.h), which nothing below the entry
 * points does. The event itself goes on in event.h. Inline: every hooked
 * call passes here. */
#ifndef VRAMTRACE_ENTRY_H
#define VRAMTRACE_ENTRY_H

#include "event.h"
#include "tracer.h"

#include <errno.h>

/* vt_enter for an event around a real call: its clock starts here (the
 * event's vt_on_* ends it). */
static inline int vt_event_begin(void)
{
    if (!vt_enter())
        return 0;
    vt_thread_state.call_start_ns = vt_call_clock_ns(); /* the real call follows */
    return 1;
}

/* The runtime wrappers: they tag the thread with the API the program
 * called (vt_on_runtime_begin: 1 when tagged), and the driver hook that the
 * runtime reaches records the event under that name. Only when no driver
 * hook saw the call is it recorded at the end of the tag, from what the
 * runtime wrapper describes (event.h, vt_on_unseen_runtime_*). */
static inline __attribute__((always_inline)) int vt_on_runtime_begin(unsigned api)
{
    if (vt_thread_state.busy || vt_thread_state.api || !vt_tracing()) {
        /* a runtime call inside the tagged one (from a signal handler, or
         * the runtime's own): its stack is not the tagged call's */
        vt_thread_state.runtime_caller.cfa = 0;
        return 0;
    }
    vt_thread_state.api = api;
    vt_thread_state.counted = 0;
    vt_walk_start_of_caller(&vt_thread_state.runtime_caller);
    return 1;
}

/* Ends the tag; 1 when the driver hooks did not see the call. */
static inline int vt_runtime_end_unseen(void)
{
    vt_thread_state.api = 0;
    return !vt_thread_state.counted;
}

/* A failure the driver never saw (no driver loaded, a bad argument) is
 * recorded too: a run where every allocation failed has nothing to judge. */
static inline void vt_on_runtime_alloc(cudaError_t result, struct vt_alloc_info info)
{
    if (!vt_runtime_end_unseen() || (result == cudaSuccess && !info.key))
        return;
    int saved = errno;
    if (vt_event_begin())
        vt_on_unseen_runtime_alloc(result, info);
    errno = saved;
}

static inline void vt_on_runtime_free(cudaError_t result, uint64_t key, unsigned api,
                                      uint64_t stream)
{
    if (!vt_runtime_end_unseen() || result != cudaSuccess || !key)
        return;
    int saved = errno;
    if (vt_event_begin())
        vt_on_unseen_runtime_free(key, api, stream);
    errno = saved;
}

/* A tagged call that the driver hooks record in full (arrays, reset). */
static inline void vt_on_runtime_end(void)
{
    vt_runtime_end_unseen();
}

#endif
