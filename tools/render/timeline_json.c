/* SPDX-License-Identifier: MIT */
/* `vramtrace timeline --json`: the samples behind the chart. */
#include "json_writer.h"
#include "report.h"
#include "timeline.h"

static void write_uint(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

static void write_marks(struct vt_json *j, const struct vt_usage *u)
{
    vt_json_key(j, "marks");
    vt_json_begin_array(j);
    for (size_t i = 0; i < u->nmarks; i++) {
        vt_json_begin_object(j);
        write_uint(j, "time_ns", u->marks[i].time_ns);
        vt_json_key(j, "label");
        vt_json_string(j, u->marks[i].label);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

static void write_device(struct vt_json *j, const struct vt_usage *u,
                         const struct vt_usage_device *d)
{
    vt_json_begin_object(j);
    vt_json_key(j, "device");
    vt_json_int(j, d->device);
    write_uint(j, "peak_bytes", d->peak_bytes);
    write_uint(j, "peak_time_ns", d->peak_time_ns);
    write_uint(j, "end_bytes", d->live_bytes);
    vt_json_key(j, "samples");
    vt_json_begin_array(j);
    for (size_t i = 0; i <= d->bin_max.n; i++) {
        struct vt_timeline_sample s = vt_timeline_sample(u, d, i);
        vt_json_begin_object(j);
        write_uint(j, "time_ns", s.end_ns);
        write_uint(j, "max_bytes", s.max_bytes);
        write_uint(j, "bytes", s.last_bytes);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_end_object(j);
}

void vt_timeline_json(const struct vt_dump *dump, const struct vt_usage *u, FILE *out)
{
    struct vt_json j;
    vt_json_init(&j, out);
    vt_json_begin_object(&j);
    vt_json_key(&j, "vramtrace_version");
    vt_json_string(&j, vt_version);
    vt_json_key(&j, "dump");
    vt_json_string(&j, dump->path);
    vt_json_key(&j, "complete");
    vt_json_bool(&j, dump->complete);
    write_uint(&j, "duration_ns", u->end_ns);
    write_uint(&j, "tick_ns", u->tick_ns);
    write_marks(&j, u);
    vt_json_key(&j, "devices");
    vt_json_begin_array(&j);
    for (size_t i = 0; i < u->ndevices; i++)
        write_device(&j, u, &u->devices[i]);
    vt_json_end_array(&j);
    vt_json_end_object(&j);
}
