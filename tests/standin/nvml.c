/* Stand-in libnvidia-ml.so.1: the NVML functions vramtrace uses, with their
 * real signatures (src/reach/nvml_abi.h, checked against nvml.h by
 * tests/nvml_abi_check.c), answering from the stand-in machine's GPUs
 * (standin_gpus.h): every GPU whatever CUDA_VISIBLE_DEVICES says (NVML
 * ignores it), their memory as all processes use it, and the processes with
 * a context on each, from the registry the stand-in driver keeps up to date.
 * A GPU in MIG mode (STANDIN_CUDA_MIG) has MIG device handles under it, as
 * NVML documents them: found by their MIG-<uuid> or by index under the
 * GPU, each answering for its own memory and processes; the GPU's own
 * answers are the aggregate, and utilization is not supported.
 *
 * For tests of what a real NVML may answer:
 *   STANDIN_NVML_FAIL=name:code[,name:code...]  that function returns that
 *       NVML error code (e.g. nvmlInit_v2:9, nvmlDeviceGetUtilizationRates:3)
 *   STANDIN_NVML_VANISHING_PID=pid  GPU 0 also lists this process (1 MiB) in
 *       the first listing it fills, not after: a process that ends while
 *       it is being listed */
#include "nvml_abi.h"
#include "nvml_loader.h"
#include "standin_gpus.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define EXPORT __attribute__((visibility("default")))
#define VANISHING_BYTES (1u << 20)
#define MAX_LISTED 256
#define NO_INSTANCE 0xffffffffu

struct nvmlDevice_st {
    int index;
};

static struct nvmlDevice_st devices[SG_MAX_GPUS];
static int init_count;
static int vanished;

/* The error STANDIN_NVML_FAIL asks FUNCTION to return, else NVML_SUCCESS. */
static nvmlReturn_t injected(const char *function)
{
    const char *spec = getenv("STANDIN_NVML_FAIL");
    size_t len = strlen(function);
    for (const char *p = spec; p && *p; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (!strncmp(p, function, len) && p[len] == ':')
            return atoi(p + len + 1);
    return NVML_SUCCESS;
}

/* The checks every device query starts with. */
static nvmlReturn_t device_query(const char *function, nvmlDevice_t device, const void *out,
                                 const struct sg_gpu **gpu)
{
    nvmlReturn_t r = injected(function);
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    if (!device || !out || device < devices || device >= devices + sg_unit_count())
        return NVML_ERROR_INVALID_ARGUMENT;
    *gpu = sg_gpu(device->index);
    return NVML_SUCCESS;
}

static nvmlReturn_t copy_text(char *out, unsigned int length, const char *s)
{
    if (strlen(s) + 1 > length)
        return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, s, strlen(s) + 1);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit_v2(void)
{
    nvmlReturn_t r = injected("nvmlInit_v2");
    if (r != NVML_SUCCESS)
        return r;
    for (int i = 0; i < SG_MAX_GPUS; i++)
        devices[i].index = i;
    init_count++;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlShutdown(void)
{
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    init_count--;
    return NVML_SUCCESS;
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result)
{
    switch (result) {
    case NVML_SUCCESS: return "Success";
    case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
    case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
    case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
    case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
    case NVML_ERROR_NOT_FOUND: return "Not Found";
    case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
    case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
    case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
    default: return "Unknown Error";
    }
}

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
    nvmlReturn_t r = injected("nvmlSystemGetDriverVersion");
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    return version ? copy_text(version, length, "580.00 (vramtrace stand-in)")
                   : NVML_ERROR_INVALID_ARGUMENT;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount)
{
    nvmlReturn_t r = injected("nvmlDeviceGetCount_v2");
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    if (!deviceCount)
        return NVML_ERROR_INVALID_ARGUMENT;
    *deviceCount = (unsigned)sg_gpu_count();
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
    nvmlReturn_t r = injected("nvmlDeviceGetHandleByIndex_v2");
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    if (!device || index >= (unsigned)sg_gpu_count())
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
    char text[SG_UUID_TEXT];
    nvmlReturn_t r = injected("nvmlDeviceGetHandleByUUID");
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    if (!uuid || !device)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < sg_unit_count(); i++) {
        sg_uuid_text(sg_gpu(i), text);
        if (!strcmp(text, uuid)) {
            *device = &devices[i];
            return NVML_SUCCESS;
        }
    }
    return NVML_ERROR_NOT_FOUND;
}

/* "0000:17:00.0" and "00000000:17:00.0" name the same GPU. */
EXPORT nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
    unsigned domain, bus, dev, fn, gd, gb, gdev, gfn;
    nvmlReturn_t r = injected("nvmlDeviceGetHandleByPciBusId_v2");
    if (r != NVML_SUCCESS)
        return r;
    if (!init_count)
        return NVML_ERROR_UNINITIALIZED;
    if (!pciBusId || !device || sscanf(pciBusId, "%x:%x:%x.%x", &domain, &bus, &dev, &fn) != 4)
        return NVML_ERROR_INVALID_ARGUMENT;
    for (int i = 0; i < sg_gpu_count(); i++)
        if (sscanf(sg_gpu(i)->pci_bus_id, "%x:%x:%x.%x", &gd, &gb, &gdev, &gfn) == 4 &&
            gd == domain && gb == bus && gdev == dev && gfn == fn) {
            *device = &devices[i];
            return NVML_SUCCESS;
        }
    return NVML_ERROR_NOT_FOUND;
}

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = device_query("nvmlDeviceGetName", device, name, &gpu);
    return r ? r : copy_text(name, length, gpu->name);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
    const struct sg_gpu *gpu;
    char text[SG_UUID_TEXT];
    nvmlReturn_t r = device_query("nvmlDeviceGetUUID", device, uuid, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    sg_uuid_text(gpu, text);
    return copy_text(uuid, length, text);
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
    const struct sg_gpu *gpu;
    unsigned domain = 0, bus = 0, dev = 0;
    nvmlReturn_t r = device_query("nvmlDeviceGetPciInfo_v3", device, pci, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    sscanf(gpu->pci_bus_id, "%x:%x:%x", &domain, &bus, &dev);
    memset(pci, 0, sizeof *pci);
    pci->domain = domain;
    pci->bus = bus;
    pci->device = dev;
    pci->pciDeviceId = 0x233010de; /* device id, NVIDIA's vendor id */
    snprintf(pci->busId, sizeof pci->busId, "%08X:%02X:%02X.0", domain, bus, dev);
    snprintf(pci->busIdLegacy, sizeof pci->busIdLegacy, "%04X:%02X:%02X.0", domain, bus, dev);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = device_query("nvmlDeviceGetMemoryInfo", device, memory, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    size_t used = sg_used(device->index);
    memory->total = gpu->capacity;
    memory->used = used;
    memory->free = used < gpu->capacity ? gpu->capacity - used : 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device,
                                                  nvmlUtilization_t *utilization)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = device_query("nvmlDeviceGetUtilizationRates", device, utilization, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    if (gpu->migs || gpu->parent >= 0)
        return NVML_ERROR_NOT_SUPPORTED; /* "not currently supported" on MIG-enabled GPUs */
    utilization->gpu = 0; /* the stand-in GPUs run no kernels */
    utilization->memory = 0;
    return NVML_SUCCESS;
}

/* The processes on UNIT, after the N of OUT listed already (room for MAX). */
static size_t unit_processes(int unit, nvmlProcessInfo_t *out, size_t n, size_t max)
{
    struct sg_process found[MAX_LISTED];
    const struct sg_gpu *gpu = sg_gpu(unit);
    unsigned instance = gpu->parent >= 0 ? gpu->gpu_instance : NO_INSTANCE;
    size_t count = sg_processes(unit, found, MAX_LISTED);
    if (count > MAX_LISTED)
        count = MAX_LISTED;
    for (size_t i = 0; i < count && n < max; i++)
        out[n++] = (nvmlProcessInfo_t){.pid = (unsigned)found[i].pid,
                                       .usedGpuMemory = found[i].used,
                                       .gpuInstanceId = instance,
                                       .computeInstanceId = gpu->parent >= 0 ? 0 : NO_INSTANCE};
    return n;
}

/* The processes on DEVICE now (a GPU in MIG mode: on each of its MIG
 * devices), the vanishing one included until it went. */
static size_t listed_processes(nvmlDevice_t device, nvmlProcessInfo_t *out, size_t max)
{
    const struct sg_gpu *gpu = sg_gpu(device->index);
    const char *vanishing = getenv("STANDIN_NVML_VANISHING_PID");
    size_t listed = 0;
    if (gpu->migs)
        for (int u = gpu->first_mig; u < gpu->first_mig + gpu->migs; u++)
            listed = unit_processes(u, out, listed, max);
    else
        listed = unit_processes(device->index, out, 0, max);
    if (vanishing && *vanishing && device->index == 0 && !vanished && listed < max)
        out[listed++] = (nvmlProcessInfo_t){.pid = (unsigned)atoi(vanishing),
                                            .usedGpuMemory = VANISHING_BYTES,
                                            .gpuInstanceId = NO_INSTANCE,
                                            .computeInstanceId = NO_INSTANCE};
    return listed;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device,
                                                            unsigned int *infoCount,
                                                            nvmlProcessInfo_t *infos)
{
    static nvmlProcessInfo_t now[MAX_LISTED + 1];
    const struct sg_gpu *gpu;
    nvmlReturn_t r = device_query("nvmlDeviceGetComputeRunningProcesses_v3", device, infoCount,
                                  &gpu);
    if (r != NVML_SUCCESS)
        return r;
    size_t n = listed_processes(device, now, MAX_LISTED + 1);
    if (n > *infoCount) {
        *infoCount = (unsigned)n;
        return NVML_ERROR_INSUFFICIENT_SIZE;
    }
    if (n && !infos)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (n)
        memcpy(infos, now, n * sizeof *now);
    *infoCount = (unsigned)n;
    if (device->index == 0 && n)
        vanished = getenv("STANDIN_NVML_VANISHING_PID") != NULL;
    return NVML_SUCCESS;
}

/* ---- MIG ---- */

/* A GPU's handle (not a MIG device's) for a MIG query. */
static nvmlReturn_t gpu_query(const char *function, nvmlDevice_t device, const void *out,
                              const struct sg_gpu **gpu)
{
    nvmlReturn_t r = device_query(function, device, out, gpu);
    return r ? r : (*gpu)->parent >= 0 ? NVML_ERROR_NOT_SUPPORTED : NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode,
                                         unsigned int *pendingMode)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = gpu_query("nvmlDeviceGetMigMode", device, currentMode, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    if (!pendingMode)
        return NVML_ERROR_INVALID_ARGUMENT;
    *currentMode = *pendingMode = gpu->migs ? NVML_DEVICE_MIG_ENABLE : NVML_DEVICE_MIG_DISABLE;
    return NVML_SUCCESS;
}

/* Zero when MIG is not enabled. */
EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = gpu_query("nvmlDeviceGetMaxMigDeviceCount", device, count, &gpu);
    if (r == NVML_SUCCESS)
        *count = gpu->migs ? SG_MIG_MAX : 0;
    return r;
}

/* Indices up to the maximum; NOT_FOUND where no MIG device is. */
EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index,
                                                        nvmlDevice_t *migDevice)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = gpu_query("nvmlDeviceGetMigDeviceHandleByIndex", device, migDevice, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    if (!gpu->migs)
        return NVML_ERROR_NOT_SUPPORTED;
    if (index >= SG_MIG_MAX)
        return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= (unsigned)gpu->migs)
        return NVML_ERROR_NOT_FOUND;
    *migDevice = &devices[gpu->first_mig + (int)index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice,
                                                                 nvmlDevice_t *device)
{
    const struct sg_gpu *gpu;
    nvmlReturn_t r = device_query("nvmlDeviceGetDeviceHandleFromMigDeviceHandle", migDevice,
                                  device, &gpu);
    if (r != NVML_SUCCESS)
        return r;
    if (gpu->parent < 0)
        return NVML_ERROR_INVALID_ARGUMENT;
    *device = &devices[gpu->parent];
    return NVML_SUCCESS;
}

/* Each definition has the signature nvml_abi.h declares (and that, the
 * toolkit's nvml.h: tests/nvml_abi_check.c). */
#define STANDIN_SAME_SIGNATURE(name) \
    _Static_assert(__builtin_types_compatible_p(__typeof__(&name), name##_fn), #name);
VT_NVML_FUNCTIONS(STANDIN_SAME_SIGNATURE)
/* The first ABI of the process list (nvml.h's nvmlProcessInfo_v1_t), under
 * the unversioned name that programs dlsym (PyTorch's out-of-memory
 * message). */
typedef struct {
    unsigned int pid;
    unsigned long long usedGpuMemory;
} process_info_v1;

EXPORT nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device,
                                                         unsigned int *infoCount,
                                                         process_info_v1 *infos)
{
    static nvmlProcessInfo_t now[MAX_LISTED + 1];
    unsigned n = infoCount && *infoCount <= MAX_LISTED ? *infoCount : MAX_LISTED;
    if (!infoCount)
        return NVML_ERROR_INVALID_ARGUMENT;
    nvmlReturn_t r = nvmlDeviceGetComputeRunningProcesses_v3(device, &n, infos ? now : NULL);
    if (r == NVML_SUCCESS && infos)
        for (unsigned i = 0; i < n; i++) {
            infos[i].pid = now[i].pid;
            infos[i].usedGpuMemory = now[i].usedGpuMemory;
        }
    *infoCount = n;
    return r;
}

/* The CUDA version the driver supports, as cuDriverGetVersion gives it. */
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
    if (!cudaDriverVersion)
        return NVML_ERROR_INVALID_ARGUMENT;
    *cudaDriverVersion = 13000;
    return NVML_SUCCESS;
}

/* The stand-in GPUs have no NVLink. */
EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                        int *pNvLinkDeviceType)
{
    (void)device, (void)link, (void)pNvLinkDeviceType;
    return NVML_ERROR_NOT_SUPPORTED;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link,
                                                        nvmlPciInfo_t *pci)
{
    (void)device, (void)link, (void)pci;
    return NVML_ERROR_NOT_SUPPORTED;
}

/* nvmlGpuFabricInfoV_t's first fields (every version has them): the state
 * NVML_GPU_FABRIC_STATE_NOT_SUPPORTED, as for a GPU outside any fabric. */
struct fabric_info_head {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
};

EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t device, void *gpuFabricInfo)
{
    struct fabric_info_head *info = gpuFabricInfo;
    if (!device || !info)
        return NVML_ERROR_INVALID_ARGUMENT;
    memset(info->clusterUuid, 0, sizeof info->clusterUuid);
    info->status = NVML_ERROR_NOT_SUPPORTED;
    info->cliqueId = 0;
    info->state = 0;
    return NVML_SUCCESS;
}
/* SPDX-License-Identifier: MIT */
