/* SPDX-License-Identifier: MIT */
#include "gpu_view.h"

#include "format.h"
#include "nvml_loader.h"
#include "proc_status.h"
#include "resolve.h"

#include <ctype.h>
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

#define UUID_TEXT 41 /* "GPU-" or "MIG-" + 36 + NUL */
#define MIG_MAX 8    /* MIG devices of one GPU (an A100 or H100 holds 7) */

static void uuid_text(const char *prefix, const unsigned char u[16], char out[UUID_TEXT])
{
    snprintf(out, UUID_TEXT,
             "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix,
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
}

/* The MIG device of GPU whose UUID is UUID, among those NVML lists by index. */
static int mig_by_index(const struct vt_nvml *n, nvmlDevice_t gpu, const char *uuid,
                        nvmlDevice_t *device)
{
    nvmlDevice_t migs[MIG_MAX];
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    unsigned count = vt_nvml_mig_devices(n, gpu, migs, NULL, MIG_MAX);
    for (unsigned i = 0; i < count; i++)
        if (VT_NVML_CALL(n, nvmlDeviceGetUUID, migs[i], text, sizeof text) == NVML_SUCCESS &&
            !strcmp(text, uuid)) {
            *device = migs[i];
            return 0;
        }
    return -1;
}

/* NVML's handle of the device ID names, and with a MIG device its GPU's in
 * *GPU (else NULL). On a MIG slice the driver's UUID is the MIG device's,
 * which NVML writes MIG-...: by UUID, as a GPU's or a MIG device's, else
 * by PCI bus id (NVML numbers GPUs its own way, whatever
 * CUDA_VISIBLE_DEVICES says), where a GPU in MIG mode runs CUDA only on
 * its MIG devices: one of them, never the GPU's own figures. */
static int nvml_device(const struct vt_nvml *n, const struct vt_device_identity *id,
                       nvmlDevice_t *device, nvmlDevice_t *gpu)
{
    char as_gpu[UUID_TEXT], as_mig[UUID_TEXT];
    nvmlDevice_t first_mig;
    *gpu = NULL;
    if (id->has_uuid) {
        uuid_text("GPU", id->uuid, as_gpu);
        uuid_text("MIG", id->uuid, as_mig);
        if (VT_NVML_CALL(n, nvmlDeviceGetHandleByUUID, as_gpu, device) == NVML_SUCCESS)
            return 0;
        if (VT_NVML_CALL(n, nvmlDeviceGetHandleByUUID, as_mig, device) == NVML_SUCCESS) {
            if (VT_NVML_CALL(n, nvmlDeviceGetDeviceHandleFromMigDeviceHandle, *device, gpu) !=
                    NVML_SUCCESS &&
                (!id->pci_bus_id[0] || VT_NVML_CALL(n, nvmlDeviceGetHandleByPciBusId_v2,
                                                    id->pci_bus_id, gpu) != NVML_SUCCESS))
                *gpu = NULL;
            return 0;
        }
    }
    if (!id->pci_bus_id[0] ||
        VT_NVML_CALL(n, nvmlDeviceGetHandleByPciBusId_v2, id->pci_bus_id, device) != NVML_SUCCESS)
        return -1;
    if (!vt_nvml_mig_devices(n, *device, &first_mig, NULL, 1)) /* not in MIG mode: the GPU itself */
        return 0;
    *gpu = *device;
    return id->has_uuid ? mig_by_index(n, *gpu, as_mig, device) : -1;
}

/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" into 16 bytes. */
static int parse_uuid(const char *text, unsigned char out[16])
{
    size_t k = 0;
    if (strncmp(text, "GPU-", 4) != 0)
        return -1;
    for (const char *p = text + 4; *p && k < 32; p++) {
        int digit = isdigit((unsigned char)*p)    ? *p - '0'
                    : isxdigit((unsigned char)*p) ? (tolower((unsigned char)*p) - 'a' + 10)
                                                  : -1;
        if (*p == '-')
            continue;
        if (digit < 0)
            return -1;
        out[k / 2] = (unsigned char)(k % 2 ? (out[k / 2] | digit) : digit << 4);
        k++;
    }
    return k == 32 ? 0 : -1;
}

void vt_gpu_view_identify(struct vt_device_identity *id)
{
    const struct vt_nvml *n = nvml_library();
    nvmlDevice_t device, gpu;
    char text[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    if (!n || nvml_device(n, id, &device, &gpu) != 0 || !gpu)
        return;
    id->flags |= VT_DEVICE_MIG;
    if (VT_NVML_CALL(n, nvmlDeviceGetUUID, gpu, text, sizeof text) == NVML_SUCCESS &&
        parse_uuid(text, id->parent_uuid) == 0)
        id->has_parent_uuid = 1;
    if (VT_NVML_CALL(n, nvmlDeviceGetName, gpu, id->parent_name, sizeof id->parent_name) !=
        NVML_SUCCESS)
        id->parent_name[0] = '\0';
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
    nvmlDevice_t device, gpu;
    l->infos = NULL;
    l->own = -1;
    if (!n || nvml_device(n, id, &device, &gpu) != 0 ||
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
