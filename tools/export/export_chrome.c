/* SPDX-License-Identifier: MIT */
/* Chrome trace event JSON (the "JSON Array/Object Format" that Perfetto UI
 * and chrome://tracing open): per dump one process, named after its
 * command; per device a counter of live bytes at the end of each time bin
 * of the usage series and one of the highest live bytes within each bin;
 * instant events for markers, each device's peak and out-of-memory
 * failures (on track 0); each allocation's lifetime as a slice on a track
 * per device and call site (export_lifetimes.c). Dumps are placed on one
 * clock by their start times. */
#include <inttypes.h>
#include <string.h>

#include "export.h"
#include "chrome_trace.h"
#include "export_lifetimes.h"
#include "json_writer.h"
#include "timeline.h"

#define FIRST_LIFETIME_TID 1 /* track 0: counters and instants */

static void begin_event(struct vt_chrome_trace *t, const char *name, const char *ph,
                        uint64_t time_ns)
{
    vt_chrome_begin_event(t, name, ph, 0, time_ns);
}

static void begin_instant(struct vt_chrome_trace *t, const char *name, uint64_t time_ns)
{
    begin_event(t, name, "i", time_ns);
    vt_json_key(&t->j, "s");
    vt_json_string(&t->j, "p");
    vt_json_key(&t->j, "args");
    vt_json_begin_object(&t->j);
}

static void end_instant(struct vt_chrome_trace *t)
{
    vt_json_end_object(&t->j);
    vt_json_end_object(&t->j);
}

static void counter(struct vt_chrome_trace *t, const char *name, uint64_t time_ns, uint64_t bytes)
{
    begin_event(t, name, "C", time_ns);
    vt_json_key(&t->j, "args");
    vt_json_begin_object(&t->j);
    vt_json_key(&t->j, "bytes");
    vt_json_uint(&t->j, bytes);
    vt_json_end_object(&t->j);
    vt_json_end_object(&t->j);
}

static void process_name(struct vt_chrome_trace *t, const struct vt_dump *d)
{
    char name[512];
    const char *exe = d->process.argc ? d->process.argv[0] : d->process.exe;
    const char *slash = exe ? strrchr(exe, '/') : NULL;
    snprintf(name, sizeof name, "%s (pid %" PRIu64 ")",
             slash ? slash + 1
             : exe ? exe
                   : "?",
             t->pid);
    vt_json_begin_object(&t->j);
    vt_json_key(&t->j, "name");
    vt_json_string(&t->j, "process_name");
    vt_json_key(&t->j, "ph");
    vt_json_string(&t->j, "M");
    vt_json_key(&t->j, "pid");
    vt_json_uint(&t->j, t->pid);
    vt_json_key(&t->j, "args");
    vt_json_begin_object(&t->j);
    vt_json_key(&t->j, "name");
    vt_json_string(&t->j, name);
    vt_json_end_object(&t->j);
    vt_json_end_object(&t->j);
}

static void device_name(const struct vt_usage_device *d, const char *what, char *buf, size_t n)
{
    if (d->device < 0)
        snprintf(buf, n, "unknown device %s", what);
    else
        snprintf(buf, n, "device %" PRId64 " %s", d->device, what);
}

/* The live bytes step from 0 at the start to each bin's last value at its
 * end; the highest value of a bin is stamped at the bin's start. */
static void device_counters(struct vt_chrome_trace *t, const struct vt_usage *u,
                            const struct vt_usage_device *d)
{
    char live[64], high[64];
    device_name(d, "live bytes", live, sizeof live);
    device_name(d, "highest live bytes per bin", high, sizeof high);
    counter(t, live, 0, 0);
    uint64_t bin_start = 0;
    for (size_t i = 0; i <= d->bin_max.n; i++) {
        struct vt_timeline_sample s = vt_timeline_sample(u, d, i);
        counter(t, high, bin_start, s.max_bytes);
        counter(t, live, s.end_ns, s.last_bytes);
        bin_start = s.end_ns;
    }
}

static void peak(struct vt_chrome_trace *t, const struct vt_usage_device *d)
{
    char name[64];
    device_name(d, "peak", name, sizeof name);
    begin_instant(t, name, d->peak_time_ns);
    vt_json_key(&t->j, "device");
    vt_json_int(&t->j, d->device);
    vt_json_key(&t->j, "bytes");
    vt_json_uint(&t->j, d->peak_bytes);
    end_instant(t);
}

static void marks(struct vt_chrome_trace *t, const struct vt_usage *u)
{
    for (size_t i = 0; i < u->nmarks; i++) {
        begin_instant(t, u->marks[i].label, u->marks[i].time_ns);
        vt_json_key(&t->j, "marker");
        vt_json_uint(&t->j, i);
        end_instant(t);
    }
}

static void out_of_memory(struct vt_chrome_trace *t, const struct vt_analysis *a)
{
    for (size_t i = 0; i < a->nfailures; i++) {
        const struct vt_failure *f = &a->failures[i];
        if (!f->oom)
            continue;
        begin_instant(t, "out of memory", f->time_ns);
        vt_json_key(&t->j, "device");
        vt_json_int(&t->j, f->device);
        vt_json_key(&t->j, "requested_bytes");
        vt_json_uint(&t->j, f->size);
        vt_json_key(&t->j, "live_bytes");
        vt_json_uint(&t->j, f->device_live_bytes);
        vt_json_key(&t->j, "count");
        vt_json_uint(&t->j, f->count);
        end_instant(t);
    }
}

static int dump_events(struct vt_chrome_trace *t, const struct vt_export *e)
{
    const struct vt_dump *d = &e->loaded.dump;
    const struct vt_usage *u = &e->loaded.analysis.usage;
    process_name(t, d);
    for (size_t i = 0; i < u->ndevices; i++) {
        device_counters(t, u, &u->devices[i]);
        peak(t, &u->devices[i]);
    }
    marks(t, u);
    out_of_memory(t, &e->loaded.analysis);
    vt_chrome_thread_name(t, 0, "live bytes, markers, peaks");
    return vt_chrome_lifetimes(t, e, FIRST_LIFETIME_TID);
}

static uint64_t earliest_start(const struct vt_export *const *dumps, size_t n)
{
    uint64_t first = UINT64_MAX;
    for (size_t i = 0; i < n; i++)
        if (dumps[i]->loaded.dump.process.start_real_ns < first)
            first = dumps[i]->loaded.dump.process.start_real_ns;
    return first;
}

int vt_export_chrome(const struct vt_export *const *dumps, size_t n, FILE *out)
{
    struct vt_chrome_trace t;
    int status = 0;
    uint64_t first = earliest_start(dumps, n);
    vt_json_init(&t.j, out);
    vt_json_begin_object(&t.j);
    vt_json_key(&t.j, "displayTimeUnit");
    vt_json_string(&t.j, "ns");
    vt_json_key(&t.j, "traceEvents");
    vt_json_begin_array(&t.j);
    for (size_t i = 0; i < n; i++) {
        const struct vt_process *p = &dumps[i]->loaded.dump.process;
        /* a dump without a PROCESS record still gets a process of its own */
        t.pid = p->present ? p->pid : i + 1;
        t.offset_ns = p->start_real_ns - first;
        if (dump_events(&t, dumps[i]) != 0)
            status = -1;
    }
    vt_json_end_array(&t.j);
    vt_json_end_object(&t.j);
    return status;
}
