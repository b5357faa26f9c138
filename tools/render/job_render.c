/* SPDX-License-Identifier: MIT */
/* The job view as text and JSON (job.h): one line per rank, then what all
 * ranks share once, what differs, and which rank ran out of memory first. */
#include <inttypes.h>
#include <stdio.h>

#include "job.h"
#include "json_writer.h"

static void print_rank_line(const struct vt_job_process *p, FILE *out)
{
    char peak[32], held[32], leaked[32], grows[64], device[24] = "-";
    if (p->device >= 0)
        snprintf(device, sizeof device, "%" PRId64, p->device);
    fprintf(out, "    %-5s %-8" PRIu64 " %-16s %-6s %10s %10s %10s%s  %s\n", p->rank, p->pid,
            p->host[0] ? p->host : "?", device, vt_human_size(p->peak_bytes, peak),
            vt_human_size(p->held_bytes, held), vt_human_size(p->leaked_bytes, leaked),
            p->live_not_leaked ? " live" : "     ", vt_job_grows(p, grows, sizeof grows));
}

/* "rank 2", "ranks 1, 3" */
static void print_rank_list(const struct vt_job *job, const size_t *ranks, size_t n, FILE *out)
{
    fputs(n == 1 ? "rank " : "ranks ", out);
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s%s", i ? ", " : "", vt_job_rank(job, ranks[i])->rank);
}

/* " (not ranks 0, 3)": those G's site does not grow in. */
static void print_other_ranks(const struct vt_job *job, const struct vt_job_growth *g, FILE *out)
{
    size_t n = job->nranks - g->nranks, shown = 0;
    fprintf(out, " (not rank%s ", n == 1 ? "" : "s");
    for (size_t r = 0, k = 0; r < job->nranks; r++) {
        while (k < g->nranks && g->ranks[k] < r)
            k++;
        if (k == g->nranks || g->ranks[k] != r)
            fprintf(out, "%s%s", shown++ ? ", " : "", vt_job_rank(job, r)->rank);
    }
    fputc(')', out);
}

static void print_growth(const struct vt_job *job, const struct vt_job_growth *g, FILE *out)
{
    char least[32], most[32];
    const char *per = vt_job_interval(vt_job_rank(job, g->ranks[0]));
    fputs("vramtrace: ", out);
    if (g->nranks == job->nranks)
        fprintf(out, "all %zu ranks", job->nranks);
    else
        print_rank_list(job, g->ranks, g->nranks, out);
    fprintf(out, ": growing %s", vt_human_size((uint64_t)(g->least > 0 ? g->least : 0), least));
    if (g->most != g->least)
        fprintf(out, " to %s", vt_human_size((uint64_t)(g->most > 0 ? g->most : 0), most));
    fprintf(out, " %s at %s", per, g->label);
    if (g->nranks == 1)
        fputs(" (no other rank)", out);
    else if (g->nranks < job->nranks)
        print_other_ranks(job, g, out);
    fputc('\n', out);
}

static void print_outlier(const struct vt_job *job, const struct vt_job_outlier *o, FILE *out)
{
    char over[32], bytes[32], median[32];
    fprintf(out,
            "vramtrace: rank %s: %s more %sthan the median of the other ranks at %s (%s there, "
            "median %s)\n",
            vt_job_rank(job, o->rank)->rank, vt_human_size(o->bytes - o->median_bytes, over),
            o->at_end ? "held at the end " : "", o->label, vt_human_size(o->bytes, bytes),
            vt_human_size(o->median_bytes, median));
}

static void print_first_oom(const struct vt_job *job, FILE *out)
{
    const struct vt_job_process *p = vt_job_rank(job, job->first_oom);
    char size[32], when[32];
    fprintf(out,
            "vramtrace: rank %s ran out of memory first: %s refused on device %" PRId64
            ", %s into its run",
            p->rank, vt_human_size(p->oom_bytes, size), p->oom_device,
            vt_format_time(p->oom_ns, when));
    for (size_t r = 0, n = 0; r < job->nranks; r++)
        if (r != job->first_oom && vt_job_rank(job, r)->oom)
            fprintf(out, "%s%s", n++ ? ", " : "; then rank ", vt_job_rank(job, r)->rank);
    fprintf(out, "; its autopsy: in its report below (%s)\n", p->path);
}

void vt_job_render_text(const struct vt_job *job, FILE *out)
{
    size_t said = 0;
    fprintf(out, "\n== job: %zu ranks on %zu %s ==\n", job->nranks, job->nhosts,
            job->nhosts == 1 ? "host" : "hosts");
    fprintf(out, "    %-5s %-8s %-16s %-6s %10s %10s %10s       %s\n", "rank", "pid", "host",
            "device", "peak", "held", "leaked", "grows");
    for (size_t r = 0; r < job->nranks; r++)
        print_rank_line(vt_job_rank(job, r), out);
    for (size_t i = 0; i < job->ngrowth; i++, said++)
        print_growth(job, &job->growth[i], out);
    for (size_t i = 0; i < job->noutliers; i++, said++)
        print_outlier(job, &job->outliers[i], out);
    if (job->first_oom < job->nranks) {
        print_first_oom(job, out);
        said++;
    }
    if (!said)
        fprintf(out,
                "vramtrace: the %zu ranks are alike: none grows, none holds more than the "
                "others at a call site\n",
                job->nranks);
}

static void json_uint(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

static void json_string(struct vt_json *j, const char *key, const char *v)
{
    vt_json_key(j, key);
    vt_json_string(j, v);
}

static void json_rank(const struct vt_job_process *p, struct vt_json *j)
{
    vt_json_begin_object(j);
    json_string(j, "rank", p->rank);
    json_uint(j, "pid", p->pid);
    json_string(j, "host", p->host);
    json_string(j, "dump", p->path);
    vt_json_key(j, "device");
    p->device >= 0 ? vt_json_int(j, p->device) : vt_json_null(j);
    json_uint(j, "peak_bytes", p->peak_bytes);
    json_uint(j, "held_bytes", p->held_bytes);
    json_uint(j, "leaked_bytes", p->leaked_bytes);
    vt_json_key(j, "live_not_leaked");
    vt_json_bool(j, p->live_not_leaked);
    json_string(j, "interval", p->by_marks ? "step" : "tick");
    vt_json_key(j, "growing");
    vt_json_begin_array(j);
    for (size_t i = 0; i < p->nsites; i++) {
        if (!p->sites[i].growing)
            continue;
        vt_json_begin_object(j);
        json_string(j, "label", p->sites[i].label);
        vt_json_key(j, "bytes_per_interval");
        vt_json_int(j, p->sites[i].bytes_per_interval);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_end_object(j);
}

static void json_growth(const struct vt_job *job, const struct vt_job_growth *g, struct vt_json *j)
{
    vt_json_begin_object(j);
    json_string(j, "label", g->label);
    vt_json_key(j, "all_ranks");
    vt_json_bool(j, g->nranks == job->nranks);
    vt_json_key(j, "ranks");
    vt_json_begin_array(j);
    for (size_t i = 0; i < g->nranks; i++)
        vt_json_string(j, vt_job_rank(job, g->ranks[i])->rank);
    vt_json_end_array(j);
    vt_json_key(j, "least_bytes_per_interval");
    vt_json_int(j, g->least);
    vt_json_key(j, "most_bytes_per_interval");
    vt_json_int(j, g->most);
    vt_json_end_object(j);
}

static void json_first_oom(const struct vt_job *job, struct vt_json *j)
{
    vt_json_key(j, "first_oom");
    if (job->first_oom == job->nranks) {
        vt_json_null(j);
        return;
    }
    const struct vt_job_process *p = vt_job_rank(job, job->first_oom);
    vt_json_begin_object(j);
    json_string(j, "rank", p->rank);
    json_uint(j, "pid", p->pid);
    json_string(j, "host", p->host);
    json_string(j, "dump", p->path);
    json_uint(j, "bytes", p->oom_bytes);
    vt_json_key(j, "device");
    vt_json_int(j, p->oom_device);
    json_uint(j, "time_ns", p->oom_ns);
    vt_json_end_object(j);
}

void vt_job_render_json(const struct vt_job *job, struct vt_json *j)
{
    vt_json_key(j, "job");
    if (!job) {
        vt_json_null(j);
        return;
    }
    vt_json_begin_object(j);
    json_uint(j, "hosts", job->nhosts);
    vt_json_key(j, "ranks");
    vt_json_begin_array(j);
    for (size_t r = 0; r < job->nranks; r++)
        json_rank(vt_job_rank(job, r), j);
    vt_json_end_array(j);
    vt_json_key(j, "growing");
    vt_json_begin_array(j);
    for (size_t i = 0; i < job->ngrowth; i++)
        json_growth(job, &job->growth[i], j);
    vt_json_end_array(j);
    vt_json_key(j, "outliers");
    vt_json_begin_array(j);
    for (size_t i = 0; i < job->noutliers; i++) {
        const struct vt_job_outlier *o = &job->outliers[i];
        vt_json_begin_object(j);
        json_string(j, "rank", vt_job_rank(job, o->rank)->rank);
        json_string(j, "label", o->label);
        json_uint(j, "bytes", o->bytes);
        json_uint(j, "median_bytes", o->median_bytes);
        json_string(j, "at", o->at_end ? "end" : "peak");
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    json_first_oom(job, j);
    vt_json_end_object(j);
}
