/* SPDX-License-Identifier: MIT */
/* NVML loaded at run time: libnvidia-ml.so.1 comes with the NVIDIA driver,
 * so nothing links it; dlopen finds it where the driver is installed. Used
 * by the tracer (this process's own use of each GPU, the other processes at
 * an out-of-memory error) and by `vramtrace gpus`. */
#ifndef VRAMTRACE_NVML_LOADER_H
#define VRAMTRACE_NVML_LOADER_H

#include <stddef.h>

#include "nvml_abi.h"

#define VT_NVML_LIBRARY "libnvidia-ml.so.1"

#define VT_NVML_FUNCTIONS(X)                   \
    X(nvmlInit_v2)                             \
    X(nvmlShutdown)                            \
    X(nvmlErrorString)                         \
    X(nvmlSystemGetDriverVersion)              \
    X(nvmlDeviceGetCount_v2)                   \
    X(nvmlDeviceGetHandleByIndex_v2)           \
    X(nvmlDeviceGetHandleByUUID)               \
    X(nvmlDeviceGetHandleByPciBusId_v2)        \
    X(nvmlDeviceGetName)                       \
    X(nvmlDeviceGetUUID)                       \
    X(nvmlDeviceGetPciInfo_v3)                 \
    X(nvmlDeviceGetMemoryInfo)                 \
    X(nvmlDeviceGetUtilizationRates)           \
    X(nvmlDeviceGetComputeRunningProcesses_v3) \
    X(nvmlDeviceGetMigMode)                    \
    X(nvmlDeviceGetMaxMigDeviceCount)          \
    X(nvmlDeviceGetMigDeviceHandleByIndex)     \
    X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle)

/* Any function may be missing from an older library: NULL. */
struct vt_nvml {
    void *library;
#define VT_NVML_MEMBER(name) name##_fn name;
    VT_NVML_FUNCTIONS(VT_NVML_MEMBER)
#undef VT_NVML_MEMBER
};

/* Calls FN of N, or answers NVML_ERROR_FUNCTION_NOT_FOUND when it is missing. */
#define VT_NVML_CALL(n, fn, ...) ((n)->fn ? (n)->fn(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

typedef void *(*vt_nvml_lookup_fn)(void *library, const char *name);

/* Loads the library, looks its functions up with LOOKUP (dlsym, or the
 * tracer's real one) and calls nvmlInit_v2. Returns 0, or -1 with one line
 * in WHY saying what is missing or what NVML answered. */
int vt_nvml_open(struct vt_nvml *n, vt_nvml_lookup_fn lookup, char *why, size_t size);
/* nvmlShutdown and dlclose. */
void vt_nvml_close(struct vt_nvml *n);

/* "Not Supported (NVML error 3)"; BUF holds at least 96 bytes. */
const char *vt_nvml_error(const struct vt_nvml *n, nvmlReturn_t r, char *buf);

/* The compute processes on DEVICE, in *OUT (malloc'ed, *COUNT entries;
 * free it), following NVML's protocol: ask for the count, then fill, again
 * while processes appear in between (a few times). */
nvmlReturn_t vt_nvml_processes(const struct vt_nvml *n, nvmlDevice_t device,
                               nvmlProcessInfo_t **out, unsigned *count);

/* The MIG devices of GPU (a GPU in MIG mode), in NVML's index order: up to
 * MAX handles in OUT, and in INDICES (unless NULL) the index of each under
 * GPU; returns how many. None when MIG is not enabled or this NVML cannot
 * say. */
unsigned vt_nvml_mig_devices(const struct vt_nvml *n, nvmlDevice_t gpu, nvmlDevice_t *out,
                             unsigned *indices, unsigned max);

#endif
