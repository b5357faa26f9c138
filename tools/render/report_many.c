/* SPDX-License-Identifier: MIT */
/* `vramtrace report` over several dumps (one per process of a job): each
 * process's report, then the combined totals and which process used which
 * GPU. A GPU is the same one in two processes when host and UUID are the
 * same (device numbers depend on CUDA_VISIBLE_DEVICES); dumps without
 * device identity fall back to (host, device number). Dumps are read one
 * at a time; only the per-device lines stay. */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "job.h"
#include "json_writer.h"
#include "report.h"
#include "report_dump.h"
#include "xalloc.h"

/* One process's use of one device. */
struct device_use {
    int64_t device;
    size_t process; /* index into the dumps read */
    uint64_t peak_bytes, end_bytes;
    char *host;              /* the process's host ("" unknown) */
    char uuid[VT_UUID_TEXT]; /* "" when the dump does not say */
    int64_t first_device;    /* the lowest device number of its GPU's uses, for the order */
    size_t first_process;    /* the first process of its GPU's uses, for the order */
};

struct process_info {
    char *path, *rank, *host, *exe;
    uint64_t pid, ppid;
    bool read;
    struct vt_ending ending;
    uint64_t live_bytes; /* device + managed at the end (leaked, or live) */
    bool leaked;         /* ... and it counts as leaked */
    size_t growing;      /* its call sites growing */
    enum vt_verdict verdict;
};

struct combined {
    struct process_info *processes;
    size_t nprocesses;
    struct device_use *uses;
    size_t nuses;
    struct vt_summary total;
    enum vt_verdict worst; /* of the verdicts, with limits */
    size_t passed;
    struct vt_job job; /* parallel to processes */
    char **texts;      /* each process's text report (NULL: JSON only) */
    size_t *text_sizes;
};

static char *xstrdup(const char *s)
{
    char *copy = strdup(s ? s : "");
    if (!copy) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return copy;
}

static void add_path(char ***list, size_t *n, const char *path)
{
    *list = vt_xrealloc(*list, *n + 1, sizeof **list);
    (*list)[(*n)++] = xstrdup(path);
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_dump_name(const char *name)
{
    size_t len = strlen(name);
    return len > 4 && !strcmp(name + len - 4, ".vtr");
}

/* The *.vtr files of DIR, sorted (none: said on stderr). Returns -1 when
 * DIR cannot be listed. */
static int add_directory(char ***list, size_t *n, const char *dir, bool quiet)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t first = *n;
    if (!d) {
        fprintf(stderr, "vramtrace: %s: %s\n", dir, strerror(errno));
        return -1;
    }
    while ((e = readdir(d))) {
        struct stat st;
        char *path;
        size_t len = strlen(dir); /* "tree/" names tree/x.vtr, not tree//x.vtr */
        if (!is_dump_name(e->d_name) ||
            asprintf(&path, "%s%s%s", dir, len && dir[len - 1] == '/' ? "" : "/", e->d_name) < 0)
            continue;
        if (stat(path, &st) == 0 && S_ISREG(st.st_mode))
            add_path(list, n, path);
        free(path);
    }
    closedir(d);
    if (*n == first) { /* nothing to read: the caller says what that means */
        if (!quiet)
            fprintf(stderr, "vramtrace: %s: no .vtr dumps in this directory\n", dir);
    } else {
        qsort(*list + first, *n - first, sizeof **list, by_name);
    }
    return 0;
}

/* Counts add up; the peak is the highest single device's of a single
 * process (processes and devices peak at different times). */
static void add_total(struct vt_summary *t, const struct vt_summary *s)
{
    t->allocations += s->allocations;
    t->frees += s->frees;
    if (s->peak_bytes > t->peak_bytes) {
        t->peak_bytes = s->peak_bytes;
        t->peak_time_ns = s->peak_time_ns;
        t->peak_device = s->peak_device;
    }
    t->leaked_bytes += s->leaked_bytes;
    t->leaked_allocations += s->leaked_allocations;
    if (s->host_peak_bytes > t->host_peak_bytes) {
        t->host_peak_bytes = s->host_peak_bytes;
        t->host_peak_time_ns = s->host_peak_time_ns;
    }
    t->host_leaked_bytes += s->host_leaked_bytes;
    t->host_leaked_allocations += s->host_leaked_allocations;
    t->failed_allocations += s->failed_allocations;
    t->invalid_frees += s->invalid_frees;
    t->untraced_frees += s->untraced_frees;
    t->teardown_freed_bytes += s->teardown_freed_bytes;
    t->teardown_freed_allocations += s->teardown_freed_allocations;
    t->suppressed_bytes += s->suppressed_bytes;
    t->suppressed_allocations += s->suppressed_allocations;
    t->known_bytes += s->known_bytes;
    t->known_allocations += s->known_allocations;
    t->host_known_bytes += s->host_known_bytes;
    t->host_known_allocations += s->host_known_allocations;
    t->live_at_end_bytes += s->live_at_end_bytes;
    t->live_at_end_allocations += s->live_at_end_allocations;
    t->held_bytes += s->held_bytes;
    t->held_allocations += s->held_allocations;
    t->host_held_bytes += s->host_held_bytes;
    t->host_held_allocations += s->host_held_allocations;
}

/* The physical GPU of a use: host and UUID, else host and device number. */
static int same_gpu(const struct device_use *a, const struct device_use *b)
{
    if (strcmp(a->host, b->host) || strcmp(a->uuid, b->uuid))
        return 0;
    return a->uuid[0] || a->device == b->device;
}

static void record(struct combined *c, const struct vt_loaded_report *l)
{
    const struct vt_usage *u = &l->analysis.usage;
    struct process_info *p = &c->processes[c->nprocesses - 1];
    p->read = true;
    p->pid = l->dump.process.pid;
    p->ppid = l->dump.process.ppid;
    p->rank = l->dump.process.rank ? xstrdup(l->dump.process.rank) : NULL;
    p->host = xstrdup(l->dump.process.hostname);
    p->exe = xstrdup(l->dump.process.exe ? l->dump.process.exe : "?");
    p->ending = l->report.ending;
    p->live_bytes = l->analysis.summary.live_at_end_bytes;
    p->leaked = !l->report.live_not_leaked;
    p->growing = vt_usage_growing_sites(u);
    add_total(&c->total, &l->analysis.summary);
    for (size_t i = 0; i < u->ndevices; i++) {
        c->uses = vt_xrealloc(c->uses, c->nuses + 1, sizeof *c->uses);
        const struct vt_device_info *info = vt_dump_device(&l->dump, u->devices[i].device);
        struct device_use *use = &c->uses[c->nuses++];
        *use = (struct device_use){u->devices[i].device,
                                   c->nprocesses - 1,
                                   u->devices[i].peak_bytes,
                                   u->devices[i].live_bytes,
                                   xstrdup(l->dump.process.hostname),
                                   "",
                                   0,
                                   0};
        if (info)
            vt_device_uuid_text(info, use->uuid);
    }
}

static int by_device_then_process(const void *pa, const void *pb)
{
    const struct device_use *a = pa, *b = pb;
    int order;
    if (a->first_device != b->first_device)
        return a->first_device < b->first_device ? -1 : 1;
    if (a->first_process != b->first_process)
        return a->first_process < b->first_process ? -1 : 1;
    if ((order = strcmp(a->host, b->host)) || (order = strcmp(a->uuid, b->uuid)))
        return order;
    if (a->device != b->device)
        return a->device < b->device ? -1 : 1;
    return a->process < b->process ? -1 : a->process > b->process;
}

/* Each GPU's uses together, GPUs in the order of their lowest device number. */
static void order_by_gpu(struct combined *c)
{
    for (size_t i = 0; i < c->nuses; i++) {
        struct device_use *u = &c->uses[i];
        u->first_device = u->device;
        u->first_process = u->process;
        for (size_t k = 0; k < c->nuses; k++)
            if (same_gpu(u, &c->uses[k])) {
                if (c->uses[k].device < u->first_device)
                    u->first_device = c->uses[k].device;
                if (c->uses[k].process < u->first_process)
                    u->first_process = c->uses[k].process;
            }
    }
    qsort(c->uses, c->nuses, sizeof *c->uses, by_device_then_process);
}

/* The uses of the GPU at uses[i]: how many there are from i on. */
static size_t device_run(const struct combined *c, size_t i)
{
    size_t n = 1;
    while (i + n < c->nuses && same_gpu(&c->uses[i + n], &c->uses[i]))
        n++;
    return n;
}

/* Whether the uses from I on (N of them) give their GPU one device number. */
static bool one_device_number(const struct combined *c, size_t i, size_t n)
{
    for (size_t k = i + 1; k < i + n; k++)
        if (c->uses[k].device != c->uses[i].device)
            return false;
    return true;
}

/* Two processes on one physical GPU: a bug when each rank should have its own. */
static void warn_shared(const struct combined *c, size_t i, size_t n, FILE *out)
{
    const struct device_use *u = &c->uses[i];
    if (!u->uuid[0])
        fprintf(out,
                "vramtrace: warning: device %" PRId64 " is used by %zu processes (the dumps "
                "do not say which GPU it is); if each rank should have its own, check "
                "cudaSetDevice\n",
                u->device, n);
    else if (one_device_number(c, i, n))
        fprintf(out,
                "vramtrace: warning: device %" PRId64 " is used by %zu processes, all on "
                "the same GPU (%s); if each rank should have its own, check cudaSetDevice and "
                "CUDA_VISIBLE_DEVICES\n",
                u->device, n, u->uuid);
    else
        fprintf(out,
                "vramtrace: warning: GPU %s is used by %zu processes (as different device "
                "numbers); if each rank should have its own, check cudaSetDevice and "
                "CUDA_VISIBLE_DEVICES\n",
                u->uuid, n);
}

/* Of the N uses from uses[i], those by processes with a rank: ranks of a
 * job sharing a device is the classic bug; workers of one process are not. */
static size_t ranked_processes(const struct combined *c, size_t i, size_t n)
{
    size_t ranked = 0;
    for (size_t k = i; k < i + n; k++)
        ranked += c->processes[c->uses[k].process].rank != NULL;
    return ranked;
}

/* "exit", "_exit(3)", "SIGSEGV", "running", "no footer" */
static const char *ending_label(const struct vt_ending *e, char *buf)
{
    switch (e->reason) {
    case VT_ENDING_SIGNAL:
        return vt_signal_name(e->signal, buf);
    case VT_ENDING_UNDERSCORE_EXIT:
        snprintf(buf, 16, "_exit(%d)", e->status);
        return buf;
    case VT_ENDING_UNKNOWN:
        return e->writer == VT_WRITER_GONE ? "killed" : "no footer";
    case VT_ENDING_STOPPED:
        return "stopped";
    case VT_ENDING_DETACHED:
        return "detached";
    case VT_ENDING_EMPTY:
        return "no record";
    default:
        return vt_ending_name(e->reason);
    }
}

/* Dumps of several hosts: a pid names a process only with its host. */
static bool several_hosts(const struct combined *c)
{
    for (size_t i = 1; i < c->nprocesses; i++)
        if (strcmp(c->processes[i].host, c->processes[0].host))
            return true;
    return false;
}

/* One line per process: how it ended and what it left. */
static void print_processes(const struct combined *c, FILE *out)
{
    char size[32], ending[16];
    bool hosts = several_hosts(c);
    fputs("\nProcesses:\n", out);
    for (size_t i = 0; i < c->nprocesses; i++) {
        const struct process_info *p = &c->processes[i];
        fprintf(out, "    pid %-8" PRIu64 " ppid %-8" PRIu64 " %s%s%-10s %-7s %10s  %s\n", p->pid,
                p->ppid, hosts ? p->host : "", hosts ? " " : "", ending_label(&p->ending, ending),
                p->leaked ? "leaked" : "live", vt_human_size(p->live_bytes, size), p->path);
    }
}

static size_t growing_processes(const struct combined *c)
{
    size_t n = 0;
    for (size_t i = 0; i < c->nprocesses; i++)
        n += c->processes[i].growing > 0;
    return n;
}

/* What grows leads: "vramtrace: growing in 1 of 4 processes: pid 4242
 * rank 2 (1 call site)"; each process's report says where. */
static void print_growing(const struct combined *c, FILE *out)
{
    size_t n = growing_processes(c);
    if (!n)
        return;
    fprintf(out, "vramtrace: growing in %zu of %zu processes:", n, c->nprocesses);
    for (size_t i = 0, shown = 0; i < c->nprocesses; i++) {
        const struct process_info *p = &c->processes[i];
        if (!p->growing)
            continue;
        fprintf(out, "%s pid %" PRIu64 "%s%s%s%s (%zu call %s)", shown++ ? "," : "", p->pid,
                several_hosts(c) ? " on " : "", several_hosts(c) ? p->host : "",
                p->rank ? " rank " : "", p->rank ? p->rank : "", p->growing,
                p->growing == 1 ? "site" : "sites");
    }
    fputc('\n', out);
}

/* Whether the uses from I on (N of them) are one rank's alone: in a job,
 * its line gives the device; only GPUs shared or used by other processes
 * are listed. */
static bool one_rank_alone(const struct combined *c, bool job, size_t i, size_t n)
{
    return job && n == 1 && c->job.processes[c->uses[i].process].is_rank;
}

/* Each GPU and the processes that used it. */
static void print_devices(const struct combined *c, bool job, FILE *out)
{
    char peak[32], end[32];
    size_t alone = 0;
    for (size_t i = 0; i < c->nuses; i += device_run(c, i)) {
        size_t n = device_run(c, i);
        if (one_rank_alone(c, job, i, n)) {
            alone++;
            continue;
        }
        fprintf(out, "\nDevice %" PRId64, c->uses[i].device);
        if (c->uses[i].uuid[0])
            fprintf(out, " (%s%s%s)", c->uses[i].uuid, c->uses[i].host[0] ? " on " : "",
                    c->uses[i].host);
        fprintf(out, ": used by %zu %s\n", n, n == 1 ? "process" : "processes");
        for (size_t k = i; k < i + n; k++) {
            const struct process_info *p = &c->processes[c->uses[k].process];
            fprintf(out,
                    "    pid %-8" PRIu64 " rank %-6s device %-3" PRId64 " peak %10s  at exit "
                    "%10s  %s\n",
                    p->pid, p->rank ? p->rank : "-", c->uses[k].device,
                    vt_human_size(c->uses[k].peak_bytes, peak),
                    vt_human_size(c->uses[k].end_bytes, end), p->path);
        }
        if (ranked_processes(c, i, n) > 1)
            warn_shared(c, i, n, out);
    }
    if (alone)
        fprintf(out,
                "\nvramtrace: %zu %s used by one rank alone (the job's lines give each "
                "rank's device)\n",
                alone, alone == 1 ? "GPU" : "GPUs");
}

/* In a job, what grows is in the job's lines. */
static void print_combined(const struct combined *c, bool job, FILE *out)
{
    char size[32];
    fprintf(out, "\n== combined: %zu %s ==\n", c->nprocesses,
            c->nprocesses == 1 ? "process" : "processes");
    if (!job)
        print_growing(c, out);
    fprintf(out,
            "vramtrace: %s (%" PRIu64 " bytes) of device memory leaked in %" PRIu64
            " allocations, %" PRIu64 " failed allocations, %" PRIu64 " invalid frees, over all "
            "processes\n",
            vt_human_size(c->total.leaked_bytes, size), c->total.leaked_bytes,
            c->total.leaked_allocations, c->total.failed_allocations, c->total.invalid_frees);
    if (c->total.known_bytes)
        fprintf(out,
                "vramtrace: %s (%" PRIu64 " bytes) of known framework memory held at the end "
                "(not counted as leaked), over all processes\n",
                vt_human_size(c->total.known_bytes, size), c->total.known_bytes);
    print_processes(c, out);
    print_devices(c, job, out);
}

static void json_process_ref(struct vt_json *j, const struct process_info *p)
{
    vt_json_key(j, "dump");
    vt_json_string(j, p->path);
    vt_json_key(j, "pid");
    vt_json_uint(j, p->pid);
    vt_json_key(j, "rank");
    vt_json_string(j, p->rank);
    vt_json_key(j, "host");
    vt_json_string(j, p->host);
}

static void json_uint(struct vt_json *j, const char *key, uint64_t v)
{
    vt_json_key(j, key);
    vt_json_uint(j, v);
}

static void write_combined(const struct combined *c, struct vt_json *j)
{
    vt_json_key(j, "combined");
    vt_json_begin_object(j);
    json_uint(j, "processes", c->nprocesses);
    json_uint(j, "growing_processes", growing_processes(c));
    json_uint(j, "leaked_bytes", c->total.leaked_bytes);
    json_uint(j, "leaked_allocations", c->total.leaked_allocations);
    json_uint(j, "failed_allocations", c->total.failed_allocations);
    vt_json_key(j, "devices");
    vt_json_begin_array(j);
    for (size_t i = 0; i < c->nuses; i += device_run(c, i)) {
        vt_json_begin_object(j);
        vt_json_key(j, "device");
        vt_json_int(j, c->uses[i].device);
        vt_json_key(j, "uuid");
        vt_json_string(j, c->uses[i].uuid[0] ? c->uses[i].uuid : NULL);
        vt_json_key(j, "host");
        vt_json_string(j, c->uses[i].host);
        vt_json_key(j, "shared");
        vt_json_bool(j, device_run(c, i) > 1);
        vt_json_key(j, "processes");
        vt_json_begin_array(j);
        for (size_t k = i; k < i + device_run(c, i); k++) {
            vt_json_begin_object(j);
            json_process_ref(j, &c->processes[c->uses[k].process]);
            vt_json_key(j, "device");
            vt_json_int(j, c->uses[k].device);
            json_uint(j, "peak_bytes", c->uses[k].peak_bytes);
            json_uint(j, "end_bytes", c->uses[k].end_bytes);
            vt_json_end_object(j);
        }
        vt_json_end_array(j);
        vt_json_end_object(j);
    }
    vt_json_end_array(j);
    vt_json_end_object(j);
}

/* How bad a verdict is for the whole set. */
static int rank(enum vt_verdict v)
{
    switch (v) {
    case VT_VERDICT_UNREADABLE:
        return 3;
    case VT_VERDICT_BROKEN:
        return 2;
    case VT_VERDICT_DAMAGED:
        return 1;
    default:
        return 0;
    }
}

/* The worse of two verdicts for the whole set: an unreadable dump, then a
 * broken limit, then a damaged dump; NO_DATA only while nothing passed. */
static void combine_verdict(struct combined *c, enum vt_verdict v)
{
    if (v == VT_VERDICT_PASS)
        c->passed++;
    if (rank(v) > rank(c->worst))
        c->worst = v;
}

/* A stream in memory, for what is printed after the combined view. */
struct buffer {
    char *data;
    size_t size;
    FILE *f;
};

static FILE *buffer_open(struct buffer *b)
{
    b->data = NULL;
    b->size = 0;
    b->f = open_memstream(&b->data, &b->size);
    if (!b->f) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return b->f;
}

static void buffer_flush_to(struct buffer *b, FILE *out)
{
    fclose(b->f);
    fwrite(b->data, 1, b->size, out);
    free(b->data);
}

/* Reads and renders each dump in turn, as text into C's texts (with TEXT)
 * and into J (either may be off); with limits, each one's verdict on
 * VERDICTS. */
static void report_each(char *const *paths, size_t n, const struct vt_report_options *opts,
                        struct combined *c, bool text, struct vt_json *j, FILE *verdicts)
{
    c->texts = vt_xcalloc(n, sizeof *c->texts);
    c->text_sizes = vt_xcalloc(n, sizeof *c->text_sizes);
    for (size_t i = 0; i < n; i++) {
        struct vt_loaded_report l;
        c->processes = vt_xrealloc(c->processes, c->nprocesses + 1, sizeof *c->processes);
        c->processes[c->nprocesses++] = (struct process_info){.path = paths[i]};
        if (vt_report_load(paths[i], opts, &l) != 0) {
            combine_verdict(c, VT_VERDICT_UNREADABLE);
            c->nprocesses--;
            continue;
        }
        record(c, &l);
        vt_job_add(&c->job, &l);
        if (j) {
            vt_json_begin_object(j);
            vt_render_json_fields(&l.report, j);
            vt_json_end_object(j);
        }
        if (text) {
            struct buffer b;
            vt_render_text(&l.report, buffer_open(&b));
            fclose(b.f);
            c->texts[c->nprocesses - 1] = b.data;
            c->text_sizes[c->nprocesses - 1] = b.size;
        }
        if (opts->limits) {
            enum vt_verdict v = vt_report_verdict(&l.report, opts->limits, verdicts);
            c->processes[c->nprocesses - 1].verdict = v;
            combine_verdict(c, v);
        }
        vt_report_unload(&l);
    }
}

/* Ranks alike are represented by the lowest of them: what they share is
 * said once, in the job's lines. Its index, or SIZE_MAX: none is alike. */
static size_t representative_rank(const struct combined *c)
{
    for (size_t r = 0; r < c->job.nranks; r++)
        if (!vt_job_rank(&c->job, r)->called_out)
            return c->job.ranks[r];
    return SIZE_MAX;
}

/* Whether process I's own report is printed: in a job, not for a rank like
 * the representative (the others are named). */
static bool report_printed(const struct combined *c, bool job, size_t i, size_t representative)
{
    const struct vt_job_process *p = &c->job.processes[i];
    return !job || !p->is_rank || p->called_out || i == representative;
}

static void print_left_out(const struct combined *c, size_t representative, FILE *out)
{
    size_t left[2] = {0}, n = 0; /* the first and the last left out */
    for (size_t r = 0; r < c->job.nranks; r++)
        if (!vt_job_rank(&c->job, r)->called_out && c->job.ranks[r] != representative)
            left[n++ ? 1 : 0] = r;
    if (!n)
        return;
    fputs(n == 1 ? "\nvramtrace: the report of rank " : "\nvramtrace: the reports of ranks ", out);
    for (size_t r = left[0]; r <= left[n > 1]; r++)
        if (!vt_job_rank(&c->job, r)->called_out && c->job.ranks[r] != representative)
            fprintf(out, "%s%s", r > left[0] ? ", " : "", vt_job_rank(&c->job, r)->rank);
    fprintf(out,
            " %s not printed: like rank %s's, nothing in %s is called out in the job's lines "
            "(vramtrace report FILE prints one)\n",
            n == 1 ? "is" : "are", c->job.processes[representative].rank, n == 1 ? "it" : "them");
}

/* "== DUMP: pid 4242, rank 2 on node7, python3 ==" (the host where the
 * dumps come from several). */
static void print_process_header(const struct process_info *p, bool hosts, FILE *out)
{
    fprintf(out, "\n== %s: pid %" PRIu64, p->path, p->pid);
    if (p->rank)
        fprintf(out, ", rank %s", p->rank);
    if (hosts)
        fprintf(out, " on %s", p->host);
    fprintf(out, ", %s ==\n", p->exe);
}

/* Each process's report, in the order read. */
static void print_reports(const struct combined *c, bool job, FILE *out)
{
    size_t representative = job ? representative_rank(c) : SIZE_MAX;
    for (size_t i = 0; i < c->nprocesses; i++)
        if (report_printed(c, job, i, representative)) {
            print_process_header(&c->processes[i], several_hosts(c), out);
            fwrite(c->texts[i], 1, c->text_sizes[i], out);
        }
    if (job && representative != SIZE_MAX)
        print_left_out(c, representative, out);
}

static void free_combined(struct combined *c)
{
    for (size_t i = 0; i < c->nprocesses; i++) {
        free(c->processes[i].rank);
        free(c->processes[i].host);
        free(c->processes[i].exe);
    }
    for (size_t i = 0; i < c->nuses; i++)
        free(c->uses[i].host);
    for (size_t i = 0; c->texts && i < c->nprocesses; i++)
        free(c->texts[i]);
    free(c->texts);
    free(c->text_sizes);
    vt_job_free(&c->job);
    free(c->processes);
    free(c->uses);
}

/* The job and the combined verdict first, then each process's report
 * (kept in memory meanwhile), then each process's verdict lines. */
static enum vt_verdict report_all(char *const *dumps, size_t n,
                                  const struct vt_report_options *many_opts)
{
    struct combined c = {.worst = VT_VERDICT_NO_DATA, .total.peak_device = -1};
    struct vt_report_options opts = *many_opts;
    FILE *json = opts.json ? opts.out : opts.json_out;
    struct buffer verdicts;
    bool text = !opts.json;
    struct vt_json j;
    opts.part_of_many = true;
    if (json) {
        vt_json_init(&j, json);
        vt_json_begin_object(&j);
        vt_json_key(&j, "vramtrace_version");
        vt_json_string(&j, vt_version);
        vt_json_key(&j, "processes");
        vt_json_begin_array(&j);
    }
    report_each(dumps, n, &opts, &c, text, json ? &j : NULL, buffer_open(&verdicts));
    bool job = vt_job_finish(&c.job);
    if (c.nuses)
        order_by_gpu(&c);
    if (opts.html && vt_job_write_html(&c.job, job, opts.html, opts.force) < 0)
        c.worst = VT_VERDICT_UNREADABLE;
    if (json) {
        vt_json_end_array(&j);
        vt_job_render_json(job ? &c.job : NULL, &j);
        write_combined(&c, &j);
        vt_render_json_summary(&j, &c.total);
        vt_render_json_unused_suppressions(&j, opts.suppressions);
        vt_json_end_object(&j);
        fflush(json);
    }
    if (text) {
        fprintf(opts.out, "vramtrace: %zu %s\n", n, n == 1 ? "dump" : "dumps");
        if (job)
            vt_job_render_text(&c.job, opts.out);
        print_combined(&c, job, opts.out);
        print_reports(&c, job, opts.out);
        vt_render_unused_suppressions(opts.suppressions, opts.out);
        fflush(opts.out);
    }
    buffer_flush_to(&verdicts, stderr);
    enum vt_verdict verdict = c.worst == VT_VERDICT_NO_DATA && c.passed ? VT_VERDICT_PASS : c.worst;
    free_combined(&c);
    return verdict;
}

struct file_id {
    dev_t dev;
    ino_t ino;
    bool known;
};

/* Of the first N kept, the one that is the same file as ID, or N. */
static size_t same_file(const struct file_id *kept, size_t n, const struct file_id *id)
{
    for (size_t k = 0; id->known && k < n; k++)
        if (kept[k].known && kept[k].dev == id->dev && kept[k].ino == id->ino)
            return k;
    return n;
}

/* A dump named twice (a file and its directory, a link, a typo) is one
 * process: counted once, and said so. */
static void drop_repeated(char **list, size_t *n)
{
    struct file_id *ids = vt_xcalloc(*n ? *n : 1, sizeof *ids);
    size_t kept = 0;
    for (size_t i = 0; i < *n; i++) {
        struct stat st;
        struct file_id id = {0};
        if (stat(list[i], &st) == 0)
            id = (struct file_id){st.st_dev, st.st_ino, true};
        size_t first = same_file(ids, kept, &id);
        if (first < kept) {
            fprintf(stderr, "vramtrace: %s is the same dump as %s: counted once\n", list[i],
                    list[first]);
            free(list[i]);
            continue;
        }
        ids[kept] = id;
        list[kept++] = list[i];
    }
    free(ids);
    *n = kept;
}

int vt_expand_dump_paths(char *const *paths, size_t npaths, char ***out, size_t *nout)
{
    return vt_find_dump_paths(paths, npaths, false, out, nout);
}

int vt_find_dump_paths(char *const *paths, size_t npaths, bool quiet, char ***out, size_t *nout)
{
    int status = 0;
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < npaths; i++) {
        struct stat st;
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode)) {
            if (add_directory(out, nout, paths[i], quiet) < 0)
                status = -1;
        } else {
            add_path(out, nout, paths[i]);
        }
    }
    drop_repeated(*out, nout);
    return status;
}

enum vt_verdict vt_report_many(char *const *paths, size_t npaths,
                               const struct vt_report_options *opts)
{
    char **dumps;
    size_t n;
    enum vt_verdict verdict = VT_VERDICT_NO_DATA;
    bool listed = vt_expand_dump_paths(paths, npaths, &dumps, &n) == 0;
    if (n || opts->json || opts->json_out) /* JSON readers get an object, empty or not */
        verdict = report_all(dumps, n, opts);
    if (!n)
        verdict = VT_VERDICT_NO_DATA;
    for (size_t i = 0; i < n; i++) /* N paths are listed in DUMPS */
        free(dumps[i]);            /* NOLINT(clang-analyzer-core.NullDereference) */
    free(dumps);
    if (!listed)
        return VT_VERDICT_UNREADABLE;
    if (n && !opts->limits && verdict != VT_VERDICT_UNREADABLE)
        return VT_VERDICT_PASS;
    return verdict; /* NO_DATA without a dump to read */
}
