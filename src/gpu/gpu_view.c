/* SPDX-License-Identifier: MIT */
#include "gpu_view.h"

#include "format.h"
#include "nvml_loader.h"
#include "proc_status.h"
#include "resolve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

enum { NVML_UNTRIED, NVML_OPENING, NVML_OPEN, NVML_UNAVAILABLE };

static struct vt_nvml nvml;
static int nvml_state;

static void *real_lookup(void *library, const char *name)
{
    vt_dlsym_fn lookup = vt_real_dlsym(); /* ours would hand out our own wrappers */
    return lookup ? lookup(library, name) : NULL;
}

/* NVML, opened by the first thread that needs it; NULL while another opens
 * it, or when it is not there. */
static const struct vt_nvml *nvml_library(void)
{
    int state = __atomic_load_n(&nvml_state, __ATOMIC_ACQUIRE);
    char why[256];
    const char *off = getenv("VRAMTRACE_NVML");
    if (state == NVML_OPEN)
        return &nvml;
    if (state != NVML_UNTRIED || !__atomic_compare_exchange_n(&nvml_state, &state, NVML_OPENING, 0,
                                                              __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        return NULL;
    if ((off && !strcmp(off, "0")) || vt_nvml_open(&nvml, real_lookup, why, sizeof why) != 0) {
        __atomic_store_n(&nvml_state, NVML_UNAVAILABLE, __ATOMIC_RELEASE);
        return NULL;
    }
    __atomic_store_n(&nvml_state, NVML_OPEN, __ATOMIC_RELEASE);
    return &nvml;
}

static void uuid_text(const unsigned char u[16], char out[41])
{
    snprintf(out, 41, "GPU-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
}

/* NVML's handle of the GPU ID names: by UUID, else by PCI bus id (NVML
 * numbers GPUs its own way, whatever CUDA_VISIBLE_DEVICES says). */
static int nvml_device(const struct vt_nvml *n, const struct vt_device_identity *id,
                       nvmlDevice_t *device)
{
    char uuid[41];
    if (id->has_uuid) {
        uuid_text(id->uuid, uuid);
        if (VT_NVML_CALL(n, nvmlDeviceGetHandleByUUID, uuid, device) == NVML_SUCCESS)
            return 0;
    }
    if (id->pci_bus_id[0] &&
        VT_NVML_CALL(n, nvmlDeviceGetHandleByPciBusId_v2, id->pci_bus_id, device) == NVML_SUCCESS)
        return 0;
    return -1;
}

/* The processes NVML lists on the GPU, and which of them is this one. */
struct listing {
    nvmlProcessInfo_t *infos;
    unsigned count;
    int own; /* index of this process, -1: not listed */
};

static int list_processes(const struct vt_device_identity *id, struct listing *l)
{
    const struct vt_nvml *n = nvml_library();
    nvmlDevice_t device;
    l->infos = NULL;
    l->own = -1;
    if (!n || nvml_device(n, id, &device) != 0 ||
        vt_nvml_processes(n, device, &l->infos, &l->count) != NVML_SUCCESS)
        return -1;
    for (unsigned i = 0; i < l->count; i++)
        if (l->infos[i].pid == (unsigned)getpid())
            l->own = (int)i;
    /* not listed: NVML's pids are another namespace's, none can be told apart */
    if (l->own < 0) {
        free(l->infos);
        return -1;
    }
    return 0;
}

static uint64_t plus1(unsigned long long used)
{
    return used == VT_NVML_VALUE_NOT_AVAILABLE ? 0 : (uint64_t)used + 1;
}

void vt_gpu_view_usage(const struct vt_device_identity *id, struct vt_usage_sample *s)
{
    struct listing l;
    uint64_t others = 1;
    if (list_processes(id, &l) != 0)
        return;
    s->own_plus1 = plus1(l.infos[l.own].usedGpuMemory);
    for (unsigned i = 0; i < l.count; i++) {
        if ((int)i == l.own)
            continue;
        s->others++;
        if (others && plus1(l.infos[i].usedGpuMemory))
            others += l.infos[i].usedGpuMemory;
        else
            others = 0; /* one unknown: the sum is unknown */
    }
    s->others_plus1 = others;
    free(l.infos);
}

static int by_used_desc(const void *pa, const void *pb)
{
    const struct vt_other_process *a = pa, *b = pb;
    return a->used_plus1 != b->used_plus1 ? (a->used_plus1 > b->used_plus1 ? -1 : 1)
                                          : (a->pid > b->pid) - (a->pid < b->pid);
}

static void describe(struct vt_other_process *p, const nvmlProcessInfo_t *info)
{
    struct vt_proc_status st;
    p->pid = info->pid;
    p->used_plus1 = plus1(info->usedGpuMemory);
    if (vt_proc_status_read((int)info->pid, &st) != 0)
        return; /* not in our /proc: another container */
    p->state = st.state;
    p->flags = vt_proc_orphaned(&st) ? VT_PROCESS_ORPHANED : 0;
    snprintf(p->comm, sizeof p->comm, "%.15s", st.comm); /* the kernel keeps 15 */
}

void vt_gpu_view_processes(const struct vt_device_identity *id, struct vt_meminfo *mem)
{
    struct listing l;
    struct vt_other_process all[64];
    unsigned n = 0;
    if (list_processes(id, &l) != 0)
        return;
    mem->own_plus1 = plus1(l.infos[l.own].usedGpuMemory);
    for (unsigned i = 0; i < l.count && n < sizeof all / sizeof all[0]; i++)
        if ((int)i != l.own) {
            memset(&all[n], 0, sizeof all[n]);
            describe(&all[n++], &l.infos[i]);
        }
    qsort(all, n, sizeof *all, by_used_desc);
    mem->nothers = n < VT_OOM_OTHERS ? n : VT_OOM_OTHERS;
    memcpy(mem->others, all, mem->nothers * sizeof *all);
    free(l.infos);
}

void vt_gpu_view_reset(void)
{
    /* the child may load NVML for itself; the parent's open library stays mapped */
    if (__atomic_load_n(&nvml_state, __ATOMIC_ACQUIRE) == NVML_OPEN)
        __atomic_store_n(&nvml_state, NVML_UNTRIED, __ATOMIC_RELEASE);
}
