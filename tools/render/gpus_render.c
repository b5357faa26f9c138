/* SPDX-License-Identifier: MIT */
/* `vramtrace gpus` output: per GPU its memory and processes, then one line
 * per process that holds GPU memory while it runs nothing (stopped, a
 * zombie whose threads hold on, an orphaned worker) with the command that
 * ends it. Nothing is killed here. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "gpus_render.h"
#include "json_writer.h"
#include "report.h"

static const char *state_of(const struct vt_gpu_process *p)
{
    return p->visible ? vt_proc_state_name(p->status.state) : "not visible";
}

static bool is_zombie(const struct vt_gpu_process *p)
{
    return p->visible && (p->status.state == 'Z' || p->status.state == 'X');
}

static bool is_stopped(const struct vt_gpu_process *p)
{
    return p->visible && (p->status.state == 'T' || p->status.state == 't');
}

/* Memory held (or NVML cannot say how much) by a process running nothing. */
static bool idle_holder(const struct vt_gpu_process *p)
{
    bool holds = !p->has_used || p->used > 0;
    return holds && (is_stopped(p) || (is_zombie(p) && p->status.threads > 1) ||
                     (p->visible && p->orphaned));
}

/* What is the matter with P, and what to do, or NULL. BUF holds 512. */
static const char *advice(const struct vt_gpu_process *p, char *buf)
{
    char size[32];
    const char *held = p->has_used ? vt_human_size(p->used, size) : "memory";
    if (!p->visible)
        return "in another container or namespace: NVML lists it, this system's /proc does "
               "not show it";
    if (is_zombie(p) && p->status.threads > 1)
        snprintf(buf, 512,
                 "a zombie: its main thread has exited, %d %s still %s %s; "
                 "end %s with: kill -KILL %u",
                 p->status.threads - 1, p->status.threads == 2 ? "thread" : "threads",
                 p->status.threads == 2 ? "holds" : "hold", held,
                 p->status.threads == 2 ? "it" : "them", p->pid);
    else if (is_zombie(p))
        snprintf(buf, 512,
                 "has exited and holds no GPU memory; its parent (PID %d) has not "
                 "reaped it yet",
                 p->status.ppid);
    else if (is_stopped(p))
        snprintf(buf, 512,
                 "stopped%s: holds %s and runs nothing; resume it with: kill -CONT %u; "
                 "or end it with: kill -TERM %u; kill -CONT %u",
                 p->orphaned ? " and orphaned" : "", held, p->pid, p->pid, p->pid);
    else if (p->orphaned)
        snprintf(buf, 512,
                 "orphaned (its parent has exited: a finished job's leftover worker?), "
                 "holds %s; end it with: kill %u",
                 held, p->pid);
    else if (p->status.state == 'D')
        snprintf(buf, 512,
                 "in uninterruptible sleep (in the kernel or the driver): no signal "
                 "reaches it until that call returns");
    else
        return NULL;
    return buf;
}

/* "1:02:03", "2-03:04:05"; "?" when unknown */
static const char *run_time(double seconds, char *buf)
{
    if (seconds < 0)
        return "?";
    uint64_t s = (uint64_t)seconds, days = s / 86400;
    if (days)
        snprintf(buf, 32, "%" PRIu64 "-%02" PRIu64 ":%02" PRIu64 ":%02" PRIu64, days, s / 3600 % 24,
                 s / 60 % 60, s % 60);
    else
        snprintf(buf, 32, "%" PRIu64 ":%02" PRIu64 ":%02" PRIu64, s / 3600, s / 60 % 60, s % 60);
    return buf;
}

static void print_memory(const struct vt_gpu *gpu, FILE *out)
{
    char total[32], used[32], free_[32];
    if (gpu->has_memory)
        fprintf(out, "    memory: %s total, %s used, %s free", vt_human_size(gpu->total, total),
                vt_human_size(gpu->used, used), vt_human_size(gpu->free, free_));
    else
        fputs("    memory: unknown (NVML did not say)", out);
    if (gpu->has_utilization)
        fprintf(out, "; utilization %u %%, memory %u %%\n", gpu->utilization,
                gpu->memory_utilization);
    else
        fputs("; utilization unknown\n", out);
}

static void print_process(const struct vt_gpu_process *p, FILE *out)
{
    char used[32], time[32];
    fprintf(out, "    %8u  %-10.10s %-16s %10s  %10s  ", p->pid, p->visible ? p->user : "?",
            state_of(p), run_time(p->run_seconds, time),
            p->has_used ? vt_human_size(p->used, used) : "?");
    fputs(p->visible ? p->command : "(in another container or namespace)", out);
    if (p->visible && p->orphaned)
        fputs("  [orphaned]", out);
    if (p->dump)
        fprintf(out, "  [traced: %s]", p->dump);
    fputc('\n', out);
}

static void print_processes(const struct vt_gpu *gpu, FILE *out)
{
    if (gpu->processes_error[0]) {
        fprintf(out, "    processes: NVML cannot list them: %s\n", gpu->processes_error);
        return;
    }
    if (!gpu->nprocesses)
        fputs("    no processes\n", out);
    else
        fputs("         PID  USER       STATE              RUN TIME        USED  COMMAND\n", out);
    for (size_t i = 0; i < gpu->nprocesses; i++)
        print_process(&gpu->processes[i], out);
    if (gpu->vanished)
        fprintf(out, "    (%zu more ended while being listed)\n", gpu->vanished);
}

/* As nvidia-smi -L names them: "MIG 1g.10gb Device 0" under their GPU. */
static void print_migs(const struct vt_gpu *gpu, FILE *out)
{
    fprintf(out, "    MIG mode: %zu MIG device%s\n", gpu->nmigs, gpu->nmigs == 1 ? "" : "s");
    for (size_t i = 0; i < gpu->nmigs; i++) {
        const struct vt_gpu *mig = &gpu->migs[i];
        fprintf(out, "  MIG device %u of GPU %u  %s  %s\n", mig->index, gpu->index,
                mig->name[0] ? mig->name : "(unnamed)", mig->uuid[0] ? mig->uuid : "(no UUID)");
        print_memory(mig, out);
        print_processes(mig, out);
    }
}

static void print_gpu(const struct vt_gpu *gpu, FILE *out)
{
    fprintf(out, "\nGPU %u", gpu->index);
    if (gpu->error[0]) {
        fprintf(out, ": cannot be queried: %s\n", gpu->error);
        return;
    }
    fprintf(out, "  %s  %s  %s\n", gpu->name[0] ? gpu->name : "(unnamed)",
            gpu->uuid[0] ? gpu->uuid : "(no UUID)", gpu->pci_bus_id);
    print_memory(gpu, out);
    if (gpu->mig_mode)
        print_migs(gpu, out);
    else
        print_processes(gpu, out);
}

/* The advice for each process of GPU (WHERE names it) that runs nothing. */
static void print_idle_holders(const struct vt_gpu *gpu, const char *where, FILE *out)
{
    char buf[512];
    for (size_t k = 0; k < gpu->nprocesses; k++) {
        const struct vt_gpu_process *p = &gpu->processes[k];
        if (idle_holder(p))
            fprintf(out, "vramtrace: %s: PID %u (%s) %s\n", where, p->pid, p->status.comm,
                    advice(p, buf));
    }
}

void vt_gpus_render_text(const struct vt_gpus *g, FILE *out)
{
    char where[64];
    fprintf(out, "vramtrace gpus: %zu GPU%s on %s", g->n, g->n == 1 ? "" : "s", g->host);
    if (g->driver_version[0])
        fprintf(out, " (driver %s)", g->driver_version);
    fputc('\n', out);
    for (size_t i = 0; i < g->n; i++)
        print_gpu(&g->gpus[i], out);
    for (size_t i = 0; i < g->n; i++) {
        const struct vt_gpu *gpu = &g->gpus[i];
        snprintf(where, sizeof where, "GPU %u", gpu->index);
        print_idle_holders(gpu, where, out);
        for (size_t k = 0; k < gpu->nmigs; k++) {
            snprintf(where, sizeof where, "GPU %u MIG device %u", gpu->index, gpu->migs[k].index);
            print_idle_holders(&gpu->migs[k], where, out);
        }
    }
}

/* ---- JSON ---- */

static void json_nullable_uint(struct vt_json *j, const char *key, bool known, uint64_t v)
{
    vt_json_key(j, key);
    known ? vt_json_uint(j, v) : vt_json_null(j);
}

static void json_text(struct vt_json *j, const char *key, const char *s)
{
    vt_json_key(j, key);
    vt_json_string(j, s && s[0] ? s : NULL);
}

static void write_process(struct vt_json *j, const struct vt_gpu_process *p)
{
    char buf[512];
    vt_json_begin_object(j);
    json_nullable_uint(j, "pid", true, p->pid);
    json_nullable_uint(j, "used_bytes", p->has_used, p->used);
    json_text(j, "state", state_of(p));
    vt_json_key(j, "orphaned");
    vt_json_bool(j, p->visible && p->orphaned);
    vt_json_key(j, "traced");
    vt_json_bool(j, p->dump != NULL);
    json_text(j, "dump", p->dump);
    json_text(j, "command", p->visible ? p->command : NULL);
    json_nullable_uint(j, "ppid", p->visible, (uint64_t)p->status.ppid);
    json_text(j, "user", p->visible ? p->user : NULL);
    vt_json_key(j, "run_time_s");
    p->run_seconds >= 0 ? vt_json_uint(j, (uint64_t)p->run_seconds) : vt_json_null(j);
    vt_json_key(j, "idle_holder");
    vt_json_bool(j, idle_holder(p));
    json_text(j, "advice", advice(p, buf));
    vt_json_end_object(j);
}

static void write_gpu(struct vt_json *j, const struct vt_gpu *gpu)
{
    vt_json_begin_object(j);
    json_nullable_uint(j, "index", true, gpu->index);
    json_text(j, "uuid", gpu->uuid);
    json_text(j, "name", gpu->name);
    json_text(j, "pci_bus_id", gpu->pci_bus_id);
    json_nullable_uint(j, "total_bytes", gpu->has_memory, gpu->total);
    json_nullable_uint(j, "used_bytes", gpu->has_memory, gpu->used);
    json_nullable_uint(j, "free_bytes", gpu->has_memory, gpu->free);
    json_nullable_uint(j, "utilization_percent", gpu->has_utilization, gpu->utilization);
    json_nullable_uint(j, "memory_utilization_percent", gpu->has_utilization,
                       gpu->memory_utilization);
    json_text(j, "error", gpu->error);
    json_text(j, "processes_error", gpu->processes_error);
    vt_json_key(j, "processes");
    vt_json_begin_array(j);
    for (size_t i = 0; i < gpu->nprocesses; i++)
        write_process(j, &gpu->processes[i]);
    vt_json_end_array(j);
    json_nullable_uint(j, "processes_vanished", true, gpu->vanished);
    vt_json_key(j, "mig_mode");
    vt_json_bool(j, gpu->mig_mode);
    vt_json_key(j, "mig_devices");
    vt_json_begin_array(j);
    for (size_t i = 0; i < gpu->nmigs; i++)
        write_gpu(j, &gpu->migs[i]);
    vt_json_end_array(j);
    vt_json_end_object(j);
}

void vt_gpus_render_json(const struct vt_gpus *g, FILE *out)
{
    struct vt_json j;
    vt_json_init(&j, out);
    vt_json_begin_object(&j);
    json_text(&j, "vramtrace_version", vt_version);
    json_text(&j, "host", g->host);
    json_text(&j, "driver_version", g->driver_version);
    vt_json_key(&j, "gpus");
    vt_json_begin_array(&j);
    for (size_t i = 0; i < g->n; i++)
        write_gpu(&j, &g->gpus[i]);
    vt_json_end_array(&j);
    vt_json_end_object(&j);
}
