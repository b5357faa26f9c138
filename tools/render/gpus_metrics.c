/* SPDX-License-Identifier: MIT */
/* `vramtrace gpus --openmetrics`: each GPU's memory as NVML says, split into
 * what the traced processes hold by their traced calls (live bytes of their
 * dumps on that GPU, matched by UUID), what they hold outside them (the
 * rest of their NVML use: contexts, library workspaces) and what the other
 * processes hold. */
#include <stdlib.h>
#include <string.h>

#include "gpus_render.h"
#include "openmetrics.h"
#include "report.h"
#include "xalloc.h"

/* The live bytes the dump at PATH says its process holds on the GPU of
 * UUID; false when the dump cannot be read or names no device so. */
static bool traced_live(const char *path, const char *uuid, uint64_t *bytes)
{
    struct vt_report_options opts = {.top = 1, .top_given = true};
    struct vt_loaded_report l;
    char text[VT_UUID_TEXT];
    bool found = false;
    if (vt_report_load(path, &opts, &l) != 0)
        return false;
    for (size_t i = 0; i < l.dump.ndevices && !found; i++) {
        const struct vt_device_info *d = &l.dump.devices[i];
        const char *u = vt_device_uuid_text(d, text);
        const struct vt_usage_device *usage = vt_usage_device(&l.analysis.usage, d->device);
        if (u && !strcmp(u, uuid)) {
            *bytes = usage ? usage->live_bytes : 0;
            found = true;
        }
    }
    vt_report_unload(&l);
    return found;
}

struct gpu_split {
    uint64_t traced, untraced, others;
};

/* A GPU in MIG mode: the sum over its MIG devices, where its processes are. */
static struct gpu_split split(const struct vt_gpu *gpu)
{
    struct gpu_split s = {0};
    for (size_t k = 0; k < gpu->nmigs; k++) {
        struct gpu_split mig = split(&gpu->migs[k]);
        s.traced += mig.traced;
        s.untraced += mig.untraced;
        s.others += mig.others;
    }
    for (size_t i = 0; i < gpu->nprocesses; i++) {
        const struct vt_gpu_process *p = &gpu->processes[i];
        uint64_t live;
        if (!p->has_used)
            continue;
        if (!p->dump || !traced_live(p->dump, gpu->uuid, &live)) {
            s.others += p->used;
            continue;
        }
        s.traced += live;
        s.untraced += p->used > live ? p->used - live : 0;
    }
    return s;
}

enum { TOTAL, USED, TRACED, UNTRACED, OTHERS, FAMILIES };

static const struct {
    const char *name, *help;
} families[FAMILIES] = {
    {"vramtrace_gpu_total_bytes", "The GPU's memory (NVML)"},
    {"vramtrace_gpu_used_bytes", "The GPU's memory in use (NVML)"},
    {"vramtrace_gpu_traced_bytes",
     "Held by traced processes through their traced calls (live bytes of their dumps)"},
    {"vramtrace_gpu_untraced_bytes", "Held by traced processes outside their traced calls "
                                     "(contexts, library workspaces; NVML's use less the traced)"},
    {"vramtrace_gpu_other_processes_bytes", "Held by processes not traced (NVML)"},
};

/* One GPU's values, in the order of families, and its index as a label. */
struct gpu_values {
    uint64_t v[FAMILIES];
    char index[16];
};

void vt_gpus_render_openmetrics(const struct vt_gpus *g, FILE *out)
{
    struct gpu_values *all = vt_xcalloc(g->n, sizeof *all);
    for (size_t i = 0; i < g->n; i++) {
        const struct vt_gpu *gpu = &g->gpus[i];
        struct gpu_split s = split(gpu);
        all[i] = (struct gpu_values){.v = {gpu->total, gpu->used, s.traced, s.untraced, s.others}};
        snprintf(all[i].index, sizeof all[i].index, "%u", gpu->index);
    }
    for (size_t f = 0; f < FAMILIES; f++) {
        vt_om_family(out, families[f].name, "gauge", families[f].help);
        for (size_t i = 0; i < g->n; i++) {
            const struct vt_gpu *gpu = &g->gpus[i];
            const struct vt_om_label l[] = {
                {"host", g->host}, {"gpu", all[i].index}, {"gpu_uuid", gpu->uuid}};
            if (gpu->has_memory)
                vt_om_sample_uint(out, families[f].name, l, 3, all[i].v[f]);
        }
    }
    vt_om_end(out);
    free(all);
}
