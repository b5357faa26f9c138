/* SPDX-License-Identifier: MIT */
/* What the dump gets for each event: one output, chosen once at start-up
 * (process/tracer.c) before the first event, either every event as a
 * record (events.c, the default) or per-call-site aggregates
 * (aggregate.c, VRAMTRACE_MODE=aggregate). The live table (track/track.c)
 * calls it with the tracer lock held; nothing here decides the mode per
 * event. */
#ifndef VRAMTRACE_OUTPUT_H
#define VRAMTRACE_OUTPUT_H

#include "alloc_info.h"
#include "writer.h"

#include <stdint.h>

#define VT_OUTPUT_SAMPLED 1

struct vt_output {
    uint32_t header_flags; /* of the dump (format.h VT_FLAG_*) */
    /* An allocation entered or left the live table. */
    void (*insert)(const struct vt_alloc_info *info, uint32_t stack);
    void (*discard)(const struct vt_alloc_info *info, uint32_t stack);
    /* An allocation (FLAGS: VT_ALLOC_RESTORED or 0) and a free of KEY
     * (INFO, STACK: what it freed; NULL, 0: nothing traced) at TIME_NS.
     * 0; VT_OUTPUT_SAMPLED when a sample was written, which the driver's
     * view of the devices should follow; -1 when tracing must stop (the
     * writer said why). */
    int (*alloc)(const struct vt_alloc_info *info, uint32_t stack, unsigned flags,
                 uint64_t time_ns);
    int (*free)(const struct vt_alloc_info *info, uint32_t stack, uint64_t key, unsigned api,
                unsigned status_flags, uint64_t stream, uint64_t time_ns);
    /* Right before a MARK: 0 or -1. Async-signal-safe. */
    int (*before_mark)(void);
    /* Before END, at exit and in the fatal-signal handler. Async-signal-safe. */
    void (*finish)(void);
    /* DEVICE_USAGE's traced bytes on DEVICE + 1, where the dump lacks them
     * (0: the replay of the events knows them). */
    uint64_t (*device_traced_plus1)(int device);
};

/* The output of this process, set once at start-up (never NULL after). */
extern const struct vt_output *vt_output;
void vt_output_choose(const struct vt_output *output);

/* What the lifecycle does with the lock held each time an event finds the
 * dump open (signal handlers once it exists, marks that waited for the
 * lock): set once at start-up. */
void vt_output_when_ready(void (*ready)(void));

/* Where the END of a dump that stopped early reads how many allocations the
 * tracer still held (the live table, which uses the output: set once at
 * start-up). */
void vt_output_count_live_with(uint64_t (*count)(void));

/* With the lock held: make sure the dump is open (created with its PROCESS
 * record and module list on the first event). 0 when events can be
 * written, -1 when tracing stopped. */
int vt_output_ready(void);

/* Stops tracing after an unrecoverable output error (lock held); WHY is
 * warned, unless NULL (the writer already said what went wrong). */
void vt_disable_locked(const char *why);

/* A MARK with LABEL (lock held, dump open): 0 or -1. Async-signal-safe. */
int vt_output_mark(const char *label);
/* Lock held, right after a free's FREE record was written (before the real
 * free): its WIDE call_ns FIELD is held for vt_output_free_took (not held
 * when no record was written: aggregate mode). */
void vt_output_hold_free_call(struct vt_held_field *field);
/* Without the lock, once the real free returned: FREED, it took CALL_NS
 * (its field filled in); else the field keeps its 0. Lets the field go. */
void vt_output_free_took(struct vt_held_field *field, int freed, uint64_t call_ns);

/* PY_FINALIZING, after what aggregate mode writes before a MARK (lock
 * held, dump open): 0 or -1. */
int vt_output_py_finalizing(void);

#endif
