/* The JSON report (schema in tools/vramtrace.1 and the contract in issue 2). */
#include "format.h"
#include "json_writer.h"
#include "report.h"

static void write_frames(struct vt_json *j, const struct vt_site *site)
{
    vt_json_key(j, "frames");
    vt_json_begin_array(j);
    for (size_t i = 0; i < site->nframes; i++) {
        const struct vt_frame *f = site->frames[i];
        vt_json_begin_object(j);
        vt_json_key(j, "function");
        vt_json_string(j, f->function);
        vt_json_key(j, "file");
        vt_json_string(j, f->file);
        vt_json_key(j, "line");
        if (f->line)
            vt_json_uint(j, f->line);
        else
            vt_json_null(j);
        vt_json_key(j, "module");
        vt_json_string(j, f->module);
        vt_json_key(j, "offset");
        if (f->module && !f->python)
            vt_json_uint(j, f->offset);
        else
            vt_json_null(j);
        vt_json_key(j, "address");
        if (f->python)
            vt_json_null(j);
        else
            vt_json_uint(j, f->address);
        vt_json_key(j, "inlined");
        vt_json_bool(j, f->inlined);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

static void write_uint_field(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

/* Without a PROCESS record every field is null, so readers need not check
 * for a missing object. */
static void write_process(struct vt_json *j, const struct vt_process *p)
{
    vt_json_key(j, "process");
    vt_json_begin_object(j);
    vt_json_key(j, "pid");
    p->present ? vt_json_uint(j, p->pid) : vt_json_null(j);
    vt_json_key(j, "ppid");
    p->present ? vt_json_uint(j, p->ppid) : vt_json_null(j);
    vt_json_key(j, "exe");
    vt_json_string(j, p->exe);
    vt_json_key(j, "argv");
    vt_json_begin_array(j);
    for (size_t i = 0; i < p->argc; i++)
        vt_json_string(j, p->argv[i]);
    vt_json_end_array(j);
    vt_json_key(j, "hostname");
    vt_json_string(j, p->hostname);
    vt_json_key(j, "start_time_ns");
    p->present ? vt_json_uint(j, p->start_real_ns) : vt_json_null(j);
    vt_json_end_object(j);
}

static void write_summary(struct vt_json *j, const struct vt_summary *s)
{
    vt_json_key(j, "summary");
    vt_json_begin_object(j);
    write_uint_field(j, "allocations", s->allocations);
    write_uint_field(j, "frees", s->frees);
    write_uint_field(j, "peak_bytes", s->peak_bytes);
    write_uint_field(j, "peak_time_ns", s->peak_time_ns);
    write_uint_field(j, "leaked_bytes", s->leaked_bytes);
    write_uint_field(j, "leaked_allocations", s->leaked_allocations);
    write_uint_field(j, "host_leaked_bytes", s->host_leaked_bytes);
    write_uint_field(j, "host_leaked_allocations", s->host_leaked_allocations);
    write_uint_field(j, "failed_allocations", s->failed_allocations);
    write_uint_field(j, "invalid_frees", s->invalid_frees);
    write_uint_field(j, "untraced_frees", s->untraced_frees);
    write_uint_field(j, "teardown_freed_bytes", s->teardown_freed_bytes);
    write_uint_field(j, "teardown_freed_allocations", s->teardown_freed_allocations);
    write_uint_field(j, "suppressed_bytes", s->suppressed_bytes);
    write_uint_field(j, "suppressed_allocations", s->suppressed_allocations);
    vt_json_end_object(j);
}

static void write_leaks(struct vt_json *j, const struct vt_report *r)
{
    vt_json_key(j, "leaks");
    vt_json_begin_array(j);
    for (size_t i = 0; i < r->leaks_shown; i++) {
        const struct vt_leak *leak = &r->analysis->leaks[i];
        vt_json_begin_object(j);
        write_uint_field(j, "bytes", leak->bytes);
        write_uint_field(j, "allocations", leak->allocations);
        vt_json_key(j, "api");
        vt_json_string(j, vt_api_label(r->leak_sites[i].api));
        vt_json_key(j, "kind");
        vt_json_string(j, vt_kind_name(leak->kind));
        vt_json_key(j, "device");
        vt_json_int(j, leak->device);
        write_uint_field(j, "stack_id", leak->stack_id);
        write_frames(j, &r->leak_sites[i]);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    write_uint_field(j, "leaks_omitted", r->analysis->nleaks - r->leaks_shown);
}

static void write_failures(struct vt_json *j, const struct vt_report *r)
{
    vt_json_key(j, "failed");
    vt_json_begin_array(j);
    for (size_t i = 0; i < r->failures_shown; i++) {
        const struct vt_failure *f = &r->analysis->failures[i];
        vt_json_begin_object(j);
        write_uint_field(j, "bytes", f->size);
        write_uint_field(j, "count", f->count);
        vt_json_key(j, "api");
        vt_json_string(j, vt_api_label(r->failure_sites[i].api));
        vt_json_key(j, "kind");
        vt_json_string(j, vt_kind_name(f->kind));
        vt_json_key(j, "device");
        vt_json_int(j, f->device);
        write_uint_field(j, "error", f->error);
        write_uint_field(j, "stack_id", f->stack_id);
        write_frames(j, &r->failure_sites[i]);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    write_uint_field(j, "failed_omitted", r->analysis->nfailures - r->failures_shown);
}

/* The suppressions that matched: pattern, allocations, bytes, where from. */
static void write_suppressed(struct vt_json *j, const struct vt_suppressions *s)
{
    vt_json_key(j, "suppressed");
    vt_json_begin_array(j);
    for (size_t i = 0; s && i < s->n; i++) {
        if (!s->list[i].count)
            continue;
        vt_json_begin_object(j);
        vt_json_key(j, "pattern");
        vt_json_string(j, s->list[i].pattern);
        write_uint_field(j, "count", s->list[i].count);
        write_uint_field(j, "bytes", s->list[i].bytes);
        vt_json_key(j, "origin");
        vt_json_string(j, s->list[i].origin);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
}

void vt_render_json(const struct vt_report *r, FILE *out)
{
    struct vt_json j;
    vt_json_init(&j, out);
    vt_json_begin_object(&j);
    vt_json_key(&j, "vramtrace_version");
    vt_json_string(&j, vt_version);
    write_uint_field(&j, "format_version", r->dump->version);
    vt_json_key(&j, "dump");
    vt_json_string(&j, r->path);
    vt_json_key(&j, "complete");
    vt_json_bool(&j, r->dump->complete);
    vt_json_key(&j, "end");
    vt_json_string(&j, r->dump->end);
    vt_json_key(&j, "signal");
    r->dump->end_signal ? vt_json_uint(&j, (uint64_t)r->dump->end_signal) : vt_json_null(&j);
    write_uint_field(&j, "duration_ns", r->dump->last_time_ns);
    write_process(&j, &r->dump->process);
    write_summary(&j, &r->analysis->summary);
    write_leaks(&j, r);
    write_failures(&j, r);
    write_suppressed(&j, r->suppressions);
    vt_json_end_object(&j);
}
