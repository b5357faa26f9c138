/* Process-wide tracer state: lazy start-up, the one lock, per-thread
 * re-entrancy guard, fork and exit handling. */
#ifndef VRAMTRACE_TRACER_H
#define VRAMTRACE_TRACER_H

#include <sys/types.h>

#define VT_EXPORT __attribute__((visibility("default")))

struct vt_thread {
    int busy;         /* inside the tracer or a traced driver call: hooks pass through */
    unsigned api;     /* API tag set by an outer runtime wrapper (enum vt_api), 0 if none */
    int counted;      /* the driver hook accounted the tagged runtime call */
    pid_t tid;        /* cached gettid(), 0 until first use */
    unsigned name_generation; /* the dump that has this thread's name (thread_names.c) */
    struct {          /* the device of the context this thread allocated in last */
        void *ctx;
        int device;
        unsigned epoch;
    } last_context;
    struct {          /* the device of the memory pool this thread allocated from last */
        void *pool;
        int device;
        unsigned epoch;
    } last_pool;
};

extern __thread struct vt_thread vt_thread_state __attribute__((tls_model("initial-exec")));

/* Starts a traced operation on this thread: 1 (guard taken, call vt_leave)
 * when this call should be recorded, 0 when it must pass straight through. */
int vt_enter(void);
void vt_leave(void);

/* 1 while allocations are being traced in this process. */
int vt_tracing(void);

pid_t vt_tid(void);

/* The lock around the live table, the stack table and the dump. */
void vt_lock(void);
void vt_unlock(void);
/* 0 when the lock was free and is now held (for signal handlers). */
int vt_trylock(void);

/* 1 while tracing, without starting the tracer (for signal handlers). */
int vt_tracing_started(void);

/* With the lock held: make sure the dump is open (created on the first
 * event). Returns 0 when events can be written, -1 when tracing stopped. */
int vt_output_ready(void);

/* Stops tracing after an unrecoverable output error (lock held); WHY is
 * warned, unless NULL (the writer already said what went wrong). */
void vt_disable_locked(const char *why);

/* From a signal handler about to let SIG end the process: writes the END
 * record (VT_END_SIGNAL, SIG) and closes the dump, unless the lock stays
 * held (waits at most ~100 ms, never when this thread holds it). */
void vt_finish_from_signal(int sig);

/* The same for _exit(STATUS) (VT_END_UNDERSCORE_EXIT). Async-signal-safe. */
void vt_finish_underscore_exit(int status);

/* Around exec: vt_exec_begin writes END (VT_END_EXEC) and returns 1 with
 * the lock held (0: nothing to do, e.g. in a vfork child); if exec then
 * fails, vt_exec_failed erases that END and tracing goes on. */
int vt_exec_begin(void);
void vt_exec_failed(void);

/* Prints "vramtrace: ..." on stderr without stdio (safe in any context). */
void vt_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
