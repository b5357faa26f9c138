/* SPDX-License-Identifier: MIT */
/* Per-event state shared by every layer: whether this process is tracing,
 * the one lock, and the per-thread re-entrancy guard. It imports nothing
 * but a type (walk_start.h): starting, forking and ending belong to
 * src/process/, which sets the state through vt_tracing_set. */
#ifndef VRAMTRACE_TRACING_H
#define VRAMTRACE_TRACING_H

#include "walk_start.h"

#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#define VT_EXPORT __attribute__((visibility("default")))

enum vt_tracing_state {
    VT_TRACING_UNINIT,   /* nothing done yet (a hook may run before our constructor) */
    VT_TRACING_READY,    /* tracing; the dump is created with the first event */
    VT_TRACING_OFF,      /* not tracing: setuid process, or the dump failed */
    VT_TRACING_FINISHED, /* exit: the dump is closed, calls pass through */
};

static inline enum vt_tracing_state vt_tracing_get(void)
{
    extern int vt_tracing_state_now;
    return (enum vt_tracing_state)__atomic_load_n(&vt_tracing_state_now, __ATOMIC_ACQUIRE);
}

void vt_tracing_set(enum vt_tracing_state state);

/* 1 while tracing, without starting the tracer (for signal handlers). */
static inline int vt_tracing_started(void)
{
    return vt_tracing_get() == VT_TRACING_READY;
}

/* The clock around the real calls (CLOCK_MONOTONIC, through the vDSO). */
static inline uint64_t vt_call_clock_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define VT_NVTX_DEPTH 32

struct vt_thread {
    int busy;     /* inside the tracer or a traced driver call: hooks pass through */
    unsigned api; /* API tag set by an outer runtime wrapper (enum vt_api), 0 if none */
    /* with the tag: where the program called that wrapper (cfa 0: unknown),
     * for the stack walk to start at (the frames below are the tracer's and
     * the runtime's, never part of a stack's key) */
    struct vt_walk_start runtime_caller;
    int counted;              /* the driver hook accounted the tagged runtime call */
    pid_t tid;                /* cached gettid(), 0 until first use */
    unsigned name_generation; /* the dump that has this thread's name (thread_names.c) */
    /* churn: when this thread's real allocate or free call began, and the
     * time it took (written into its ALLOC or FREE record, then cleared) */
    uint64_t call_start_ns, call_ns;
    size_t free_record_end; /* the FREE record written before the real free (0: none) */
    /* the innermost NVTX range pushed and not yet popped on this thread:
     * its name's id (phase_names.h), 0 none; and the ranges pushed,
     * innermost last, each its domain's number << 32 | its name's id
     * (the first VT_NVTX_DEPTH; deeper ones are counted only): hooks_nvtx.c */
    uint32_t phase;
    unsigned nvtx_depth;
    uint64_t nvtx_pushed[VT_NVTX_DEPTH];
    struct { /* the device of the context this thread allocated in last */
        void *ctx;
        int device;
        unsigned epoch;
    } last_context;
    struct { /* the device and kind of the memory pool this thread allocated from last */
        void *pool;
        int device;
        unsigned kind;
        unsigned epoch;
    } last_pool;
};

extern __thread struct vt_thread vt_thread_state __attribute__((tls_model("initial-exec")));

/* The guard of an already started tracer: 1 (taken, call vt_leave) when
 * this thread is not inside the tracer and tracing is on, else 0. Hooks
 * use vt_enter (process/tracer.h), which starts the tracer first.
 * Inline: every traced call passes here twice. */
static inline int vt_guard_take(void)
{
    if (vt_thread_state.busy || !vt_tracing_started())
        return 0;
    vt_thread_state.busy = 1;
    return 1;
}

static inline void vt_leave(void)
{
    vt_thread_state.busy = 0;
}

/* This thread's id (gettid), cached: read on every event. */
pid_t vt_tid_first(void);
static inline pid_t vt_tid(void)
{
    pid_t tid = vt_thread_state.tid;
    return tid ? tid : vt_tid_first();
}

/* The lock around the live table, the stack table and the dump. */
void vt_lock(void);
void vt_unlock(void);
/* 0 when the lock was free and is now held (for signal handlers). */
int vt_trylock(void);
/* 1 when this thread holds the lock (interrupted inside the tracer). */
int vt_lock_held_here(void);
/* In a forked child: a fresh lock, free (the parent's holder is not here). */
void vt_lock_after_fork_child(void);

#endif
