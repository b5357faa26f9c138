/* SPDX-License-Identifier: MIT */
#include "dump_building.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

/* A later PROCESS record replaces an earlier one. */
static void build_process(struct vt_dump *d, struct vt_process *proc)
{
    vt_process_free(&d->process);
    d->process = *proc;
    memset(proc, 0, sizeof *proc);
}

static void build_module(struct vt_dump *d, struct vt_module *m)
{
    d->modules = vt_xgrow(d->modules, d->nmodules, sizeof *d->modules);
    d->modules[d->nmodules++] = *m;
    memset(m, 0, sizeof *m);
}

/* Adds S to the dump: the tracer numbers stacks 1, 2, ..., so an array
 * finds them faster than the hash (a report looks each up many times). */
static void build_stack(struct vt_dump *d, struct vt_dump_stack_record **taken)
{
    struct vt_dump_stack_record *s = *taken;
    *taken = NULL;
    HASH_ADD(hh, d->stacks, id, sizeof s->id, s);
    if (s->id >= d->stack_index_len && s->id < 2 * (uint64_t)HASH_COUNT(d->stacks) + 1024) {
        size_t len = d->stack_index_len ? 2 * d->stack_index_len : 1024;
        while (len <= s->id)
            len *= 2;
        d->stack_index = vt_xrealloc(d->stack_index, len, sizeof *d->stack_index);
        memset(d->stack_index + d->stack_index_len, 0,
               (len - d->stack_index_len) * sizeof *d->stack_index);
        d->stack_index_len = len;
    }
    if (s->id < d->stack_index_len)
        d->stack_index[s->id] = s;
}

static void build_pyframe(struct vt_dump *d, struct vt_dump_pyframe **taken)
{
    struct vt_dump_pyframe *f = *taken;
    *taken = NULL;
    HASH_ADD(hh, d->pyframes, id, sizeof f->id, f);
}

/* A thread's (or phase's) name; a later record for the same id (a reused
 * tid, a renamed thread) replaces it. */
static void build_name(struct vt_thread_name **names, struct vt_thread_name *rec)
{
    struct vt_thread_name *t;
    HASH_FIND(hh, *names, &rec->tid, sizeof rec->tid, t);
    if (!t) {
        t = vt_xcalloc(1, sizeof *t);
        t->tid = rec->tid;
        HASH_ADD(hh, *names, tid, sizeof t->tid, t);
    }
    free(t->name);
    t->name = rec->name;
    rec->name = NULL;
}

static void build_framework(struct vt_dump *d, struct vt_framework_seen *rec)
{
    d->frameworks = vt_xgrow(d->frameworks, d->nframeworks, sizeof *d->frameworks);
    d->frameworks[d->nframeworks++] = *rec;
    memset(rec, 0, sizeof *rec);
}

/* One per device: a later record replaces it. */
static void build_device(struct vt_dump *dump, struct vt_device_info *d)
{
    size_t i = 0;
    while (i < dump->ndevices && dump->devices[i].device != d->device)
        i++;
    if (i == dump->ndevices)
        dump->devices = vt_xrealloc(dump->devices, ++dump->ndevices, sizeof *dump->devices);
    else
        vt_device_info_free(&dump->devices[i]);
    dump->devices[i] = *d;
    memset(d, 0, sizeof *d);
}

static const char *const end_names[] = {
    [VT_END_EXIT] = "exit",
    [VT_END_SIGNAL] = "signal",
    [VT_END_EXEC] = "exec",
    [VT_END_UNDERSCORE_EXIT] = "_exit",
    [VT_END_STOPPED] = "tracing stopped",
    [VT_END_DETACHED] = "detached",
};

static void build_end(struct vt_dump *d, unsigned reason, int signal, int status, unsigned reopened)
{
    d->complete = d->has_footer = true;
    d->end_reason = reason;
    d->end_signal = signal;
    d->end_status = status;
    d->end_reopened = reopened;
    if (reason < sizeof end_names / sizeof end_names[0])
        snprintf(d->end, sizeof d->end, "%s", end_names[reason]);
    else
        snprintf(d->end, sizeof d->end, "end reason %u", reason);
}

/* The sink's callbacks that are NULL are skipped. */
static void build_event(const struct vt_event_sink *sink, void *ctx, const struct vt_believed *rec)
{
    switch (rec->type) {
    case VT_REC_ALLOC:
        if (sink->alloc)
            sink->alloc(ctx, &rec->as.alloc);
        break;
    case VT_REC_FREE:
        if (sink->free)
            sink->free(ctx, &rec->as.free);
        break;
    case VT_REC_FAILED:
        if (sink->failed)
            sink->failed(ctx, &rec->as.failed);
        break;
    case VT_REC_MARK:
        if (sink->mark)
            sink->mark(ctx, &rec->as.mark);
        break;
    case VT_REC_SAMPLE:
        if (sink->sample)
            sink->sample(ctx, &rec->as.sample);
        break;
    case VT_REC_SITES:
        if (sink->sites)
            sink->sites(ctx, &rec->as.sites);
        break;
    case VT_REC_TOTALS:
        if (sink->totals)
            sink->totals(ctx, &rec->as.totals);
        break;
    case VT_REC_DEVICE_USAGE:
        if (sink->device_usage)
            sink->device_usage(ctx, &rec->as.device_usage);
        break;
    case VT_REC_BAD_FREE:
        if (sink->bad_free)
            sink->bad_free(ctx, &rec->as.bad_free);
        break;
    case VT_REC_PY_FINALIZING:
        if (sink->py_finalizing)
            sink->py_finalizing(ctx, &rec->as.py_finalizing);
        break;
    case VT_REC_CACHE_SEGMENT:
        if (sink->cache_segment)
            sink->cache_segment(ctx, &rec->as.cache_segment);
        break;
    default:
        break;
    }
}

void vt_build(struct vt_dump *dump, const struct vt_event_sink *sink, void *ctx,
              struct vt_believed *rec)
{
    switch (rec->type) {
    case VT_REC_PROCESS:
        build_process(dump, &rec->as.process);
        break;
    case VT_REC_MODULE:
        build_module(dump, &rec->as.module);
        break;
    case VT_REC_MODULE_UNLOAD:
        dump->modules[rec->as.module_unload].unloaded_epoch = ++dump->module_epoch;
        break;
    case VT_REC_STACK:
    case VT_REC_PYSTACK:
        build_stack(dump, &rec->as.stack);
        break;
    case VT_REC_PYFRAME:
        build_pyframe(dump, &rec->as.pyframe);
        break;
    case VT_REC_THREAD:
        build_name(&dump->threads, &rec->as.thread);
        break;
    case VT_REC_PHASE:
        build_name(&dump->phases, &rec->as.thread);
        break;
    case VT_REC_ATTACH:
        if (!dump->attach) { /* one per dump: a second is the writer's error, ignored */
            dump->attach = rec->as.attach;
            rec->as.attach = NULL;
        }
        break;
    case VT_REC_FRAMEWORK:
        build_framework(dump, &rec->as.framework);
        break;
    case VT_REC_DEVICE:
        build_device(dump, &rec->as.device);
        break;
    case VT_REC_END:
        build_end(dump, rec->as.end.reason, rec->as.end.signal, rec->as.end.status,
                  rec->as.end.reopened);
        break;
    default:
        build_event(sink, ctx, rec);
        break;
    }
}
