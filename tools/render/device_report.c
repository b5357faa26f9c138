/* SPDX-License-Identifier: MIT */
/* Which GPU each device of the process was, and what its memory held at the
 * end of the run: the driver's "used" split into what was traced live in
 * this process, what this process held outside the traced calls (context,
 * library workspaces) and what other processes held. Text and JSON. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "device_report.h"
#include "json_writer.h"
#include "proc_status.h"

static int by_number(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The devices to describe: those with a DEVICE record and those that had
 * allocations but no record (older dumps), in the devices' order (0 before
 * 1, not the order of first use). Returns how many; at most MAX. */
static size_t devices_used(const struct vt_report *r, int64_t *out, size_t max)
{
    const struct vt_dump *d = r->dump;
    const struct vt_usage *u = &r->analysis->usage;
    size_t n = 0;
    for (size_t i = 0; i < d->ndevices && n < max; i++)
        out[n++] = d->devices[i].device;
    for (size_t i = 0; i < u->ndevices && n < max; i++)
        if (u->devices[i].device >= 0 && !vt_dump_device(d, u->devices[i].device))
            out[n++] = u->devices[i].device;
    qsort(out, n, sizeof *out, by_number);
    return n;
}

/* "1.0 MiB", "-1.0 MiB" */
static const char *signed_size(int64_t bytes, char *buf)
{
    if (bytes >= 0)
        return vt_human_size((uint64_t)bytes, buf);
    buf[0] = '-';
    vt_human_size((uint64_t)-bytes, buf + 1);
    return buf;
}

static const char *when(unsigned reason)
{
    switch (reason) {
    case VT_USAGE_START:
        return "at its first allocation";
    case VT_USAGE_MARK:
        return "at the last marker";
    case VT_USAGE_SAMPLE:
        return "at the last sample";
    case VT_USAGE_TEARDOWN:
        return "before its context was torn down";
    default:
        return "at exit";
    }
}

static void print_identity(const struct vt_device_info *info, FILE *out)
{
    char uuid[VT_UUID_TEXT], total[32];
    const char *sep = " (";
    if (!info)
        return;
    if (info->name) {
        fprintf(out, "%s%s", sep, info->name);
        sep = ", ";
    }
    if (vt_device_uuid_text(info, uuid)) {
        fprintf(out, "%s%s", sep, uuid);
        sep = ", ";
    }
    if (info->mig) {
        const char *gpu = vt_device_parent_uuid_text(info, uuid);
        fprintf(out, "%sa MIG device of %s", sep, gpu ? gpu : "its GPU");
        if (info->parent_name)
            fprintf(out, " (%s)", info->parent_name);
        sep = ", ";
    }
    if (info->pci_bus_id) {
        fprintf(out, "%sPCI %s", sep, info->pci_bus_id);
        sep = ", ";
    }
    if (info->total_bytes) {
        fprintf(out, "%s%s", sep, vt_human_size(info->total_bytes, total));
        sep = ", ";
    }
    if (sep[0] == ',')
        fputc(')', out);
}

/* "40.0 GiB used on the device = 31.2 GiB traced live in this process + ..." */
static void print_split(const struct vt_device_sample *s, FILE *out)
{
    char used[32], traced[32], own[32], others[32], listed[32];
    fprintf(out, "    %s used on the device = %s traced live in this process + ",
            vt_human_size(s->driver_used, used), vt_human_size(s->traced_live, traced));
    if (!s->has_split) {
        fprintf(out,
                "%s outside the traced calls, in this process or in others (without "
                "NVML's figure for this process, they cannot be told apart)\n",
                signed_size((int64_t)(s->driver_used - s->traced_live), others));
        return;
    }
    fprintf(out,
            "%s this process holds outside the traced calls (context, library "
            "workspaces) + %s other processes",
            signed_size(s->process_untraced, own), signed_size(s->other_processes, others));
    if (s->has_listed && s->listed_count)
        fprintf(out, " (NVML lists %" PRIu64 " other %s with %s)", s->listed_count,
                s->listed_count == 1 ? "process" : "processes",
                vt_human_size(s->listed_bytes, listed));
    fputc('\n', out);
}

/* The last sample is not the end when the driver could not be asked then
 * (the device's context was gone, the process killed): what was traced live
 * at the end is said apart, so that the line is not read as the end's. */
static void print_live_at_end(const struct vt_report *r, const struct vt_device_sample *s,
                              int64_t device, FILE *out)
{
    const struct vt_usage_device *u = vt_usage_device(&r->analysis->usage, device);
    uint64_t live = u ? u->live_bytes : 0;
    char size[32];
    if (s->reason == VT_USAGE_EXIT || live == s->traced_live)
        return;
    fprintf(out,
            "    at the end of the dump: %s traced live in this process (the driver's view of "
            "the device was not read again)\n",
            vt_human_size(live, size));
}

void vt_render_text_devices(const struct vt_report *r, FILE *out)
{
    int64_t devices[64];
    size_t n = devices_used(r, devices, 64);
    for (size_t i = 0; i < n; i++) {
        const struct vt_device_sample *s = vt_device_view_last(&r->analysis->devices, devices[i]);
        if (!s && !vt_dump_device(r->dump, devices[i]))
            continue; /* an older dump: nothing more than the device number */
        fprintf(out, "\nDevice %" PRId64, devices[i]);
        print_identity(vt_dump_device(r->dump, devices[i]), out);
        if (!s) {
            fputs(": the driver's view of its memory was not recorded\n", out);
            continue;
        }
        fprintf(out, ", %s (", when(s->reason));
        vt_print_time(s->time_ns, out);
        fputs("):\n", out);
        print_split(s, out);
        print_live_at_end(r, s, devices[i], out);
    }
}

/* ---- JSON ---- */

static void json_uint(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

static void json_uuid(struct vt_json *j, const struct vt_device_info *info)
{
    char uuid[VT_UUID_TEXT];
    vt_json_key(j, "uuid");
    vt_json_string(j, info ? vt_device_uuid_text(info, uuid) : NULL);
}

static void write_device(struct vt_json *j, const struct vt_report *r, int64_t device)
{
    const struct vt_device_info *info = vt_dump_device(r->dump, device);
    char uuid[VT_UUID_TEXT];
    vt_json_begin_object(j);
    vt_json_key(j, "device");
    vt_json_int(j, device);
    json_uuid(j, info);
    vt_json_key(j, "pci_bus_id");
    vt_json_string(j, info ? info->pci_bus_id : NULL);
    vt_json_key(j, "name");
    vt_json_string(j, info ? info->name : NULL);
    vt_json_key(j, "total_bytes");
    info && info->total_bytes ? vt_json_uint(j, info->total_bytes) : vt_json_null(j);
    vt_json_key(j, "mig");
    vt_json_bool(j, info && info->mig);
    vt_json_key(j, "parent_uuid");
    vt_json_string(j, info ? vt_device_parent_uuid_text(info, uuid) : NULL);
    vt_json_key(j, "parent_name");
    vt_json_string(j, info && info->mig ? info->parent_name : NULL);
    vt_json_key(j, "host");
    vt_json_string(j, r->dump->process.hostname);
    vt_json_end_object(j);
}

/* The numbers of one sample (NULL: none recorded, only the traced side is known). */
static void write_split(struct vt_json *j, const struct vt_device_sample *s, uint64_t traced)
{
    vt_json_key(j, "driver_used_bytes");
    s ? vt_json_uint(j, s->driver_used) : vt_json_null(j);
    json_uint(j, "traced_live_bytes", s ? s->traced_live : traced);
    vt_json_key(j, "process_untraced_bytes");
    s && s->has_split ? vt_json_int(j, s->process_untraced) : vt_json_null(j);
    vt_json_key(j, "other_processes_bytes");
    s && s->has_split ? vt_json_int(j, s->other_processes) : vt_json_null(j);
    vt_json_key(j, "driver_total_bytes");
    s ? vt_json_uint(j, s->driver_total) : vt_json_null(j);
    vt_json_key(j, "driver_free_bytes");
    s ? vt_json_uint(j, s->driver_free) : vt_json_null(j);
    vt_json_key(j, "other_processes_listed");
    s && s->has_listed ? vt_json_uint(j, s->listed_count) : vt_json_null(j);
    vt_json_key(j, "time_ns");
    s ? vt_json_uint(j, s->time_ns) : vt_json_null(j);
    vt_json_key(j, "reason");
    vt_json_string(j, s ? vt_usage_reason_name(s->reason) : NULL);
}

static void write_usage(struct vt_json *j, const struct vt_report *r, int64_t device)
{
    const struct vt_device_view *v = &r->analysis->devices;
    const struct vt_usage_device *u = vt_usage_device(&r->analysis->usage, device);
    vt_json_begin_object(j);
    vt_json_key(j, "device");
    vt_json_int(j, device);
    json_uuid(j, vt_dump_device(r->dump, device));
    write_split(j, vt_device_view_last(v, device), u ? u->live_bytes : 0);
    json_uint(j, "traced_live_at_end_bytes", u ? u->live_bytes : 0);
    vt_json_key(j, "samples");
    vt_json_begin_array(j);
    for (size_t i = 0; i < v->n; i++)
        if (v->samples[i].device == device) {
            vt_json_begin_object(j);
            write_split(j, &v->samples[i], 0);
            vt_json_end_object(j);
        }
    vt_json_end_array(j);
    vt_json_end_object(j);
}

void vt_render_json_devices(const struct vt_report *r, struct vt_json *j)
{
    int64_t devices[64];
    size_t n = devices_used(r, devices, 64);
    vt_json_key(j, "devices");
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        write_device(j, r, devices[i]);
    vt_json_end_array(j);
    vt_json_key(j, "device_usage");
    vt_json_begin_array(j);
    for (size_t i = 0; i < n; i++)
        write_usage(j, r, devices[i]);
    vt_json_end_array(j);
}

/* ---- the other processes at an out-of-memory error ---- */

static void print_gpu_process(const struct vt_gpu_process_info *p, FILE *out)
{
    char used[32];
    fprintf(out, "PID %" PRIu64 " (", p->pid);
    if (p->state)
        fprintf(out, "%s, %s%s", p->comm, p->orphaned ? "orphaned, " : "",
                vt_proc_state_name(p->state));
    else
        fputs("in another container or namespace", out);
    fprintf(out, ", %s)", p->has_used ? vt_human_size(p->used, used) : "use unknown");
}

void vt_render_text_gpu_processes(const struct vt_failure *f, FILE *out)
{
    char size[32];
    if (f->has_own)
        fprintf(out,
                "    this process used %s of the GPU (NVML), %s of it outside the traced "
                "calls\n",
                vt_human_size(f->own_bytes, size),
                signed_size((int64_t)(f->own_bytes - f->device_live_bytes), size + 16));
    if (!f->nothers)
        return;
    fputs("    other processes on the GPU (NVML), largest first: ", out);
    for (size_t i = 0; i < f->nothers; i++) {
        fputs(i ? ", " : "", out);
        print_gpu_process(&f->others[i], out);
    }
    fputc('\n', out);
}

void vt_render_json_gpu_processes(const struct vt_failure *f, struct vt_json *j)
{
    vt_json_key(j, "process_bytes");
    f->has_own ? vt_json_uint(j, f->own_bytes) : vt_json_null(j);
    vt_json_key(j, "other_processes");
    vt_json_begin_array(j);
    for (size_t i = 0; i < f->nothers; i++) {
        const struct vt_gpu_process_info *p = &f->others[i];
        vt_json_begin_object(j);
        json_uint(j, "pid", p->pid);
        vt_json_key(j, "used_bytes");
        p->has_used ? vt_json_uint(j, p->used) : vt_json_null(j);
        vt_json_key(j, "state");
        vt_json_string(j, p->state ? vt_proc_state_name(p->state) : "not visible");
        vt_json_key(j, "orphaned");
        vt_json_bool(j, p->orphaned);
        vt_json_key(j, "command");
        vt_json_string(j, p->state ? p->comm : NULL);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}
