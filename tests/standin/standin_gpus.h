/* The stand-in machine's GPUs, shared by the stand-in driver (libcuda.so.1)
 * and the stand-in NVML (libnvidia-ml.so.1), as the real ones share the
 * kernel driver's view:
 *  - physical GPUs: STANDIN_CUDA_DEVICES of them (default 2), each with a
 *    fixed UUID, PCI bus id, name and STANDIN_CUDA_MEMORY bytes (default
 *    1 GiB; suffixes K, M, G);
 *  - which of them a process sees, in which order: CUDA_VISIBLE_DEVICES,
 *    read as the real driver reads it;
 *  - who uses how much of each: a registry file shared by every process on
 *    the machine (STANDIN_GPU_REGISTRY, default /dev/shm or $TMPDIR
 *    vramtrace-standin-gpus.<uid>), one slot per process with its bytes
 *    and contexts per GPU. A process's memory counts until it has exited
 *    (gone, or a zombie whose threads have all ended), as the kernel driver
 *    frees it when the last thread closes the device. Counters are atomics
 *    in the shared mapping (no system call per allocation); slots are
 *    claimed and reclaimed under an flock of the file. */
#ifndef STANDIN_GPUS_H
#define STANDIN_GPUS_H

#include <stddef.h>
#include <stdint.h>

#define SG_MAX_GPUS 16
#define SG_UUID_TEXT 41        /* "GPU-" + 36 + NUL */

struct sg_gpu {
    unsigned char uuid[16];
    char pci_bus_id[16];       /* "0000:01:00.0", as cuDeviceGetPCIBusId gives it */
    char name[64];
    size_t capacity;
};

size_t sg_parse_size(const char *s, size_t dflt);

/* The machine's GPUs (STANDIN_CUDA_DEVICES, at most SG_MAX_GPUS). */
int sg_gpu_count(void);
const struct sg_gpu *sg_gpu(int physical);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx", as nvidia-smi prints it. */
void sg_uuid_text(const unsigned char uuid[16], char out[SG_UUID_TEXT]);

/* The GPUs CUDA_VISIBLE_DEVICES leaves to this process, in its order: the
 * physical index of each CUDA ordinal. Unset: all. Entries are indices or
 * UUIDs (a unique prefix, "GPU-" included); the list ends at the first
 * entry that names no GPU or one already listed. Returns the count. */
int sg_visible_gpus(int physical[SG_MAX_GPUS]);

/* This process's use of GPU PHYSICAL. sg_charge returns 0, or -1 when the
 * GPU (all processes together) has not BYTES free. */
int sg_charge(int physical, size_t bytes);
void sg_uncharge(int physical, size_t bytes);
void sg_context_opened(int physical);
void sg_context_closed(int physical);

/* Bytes used on GPU PHYSICAL by every process still running. */
size_t sg_used(int physical);

/* A process NVML lists on a GPU: one with a context there, until its pid
 * is gone; an exited one (an unreaped zombie) holds nothing. */
struct sg_process {
    int pid;
    uint64_t used;
    int exited;
};
/* Up to MAX processes using GPU PHYSICAL; returns how many there are. */
size_t sg_processes(int physical, struct sg_process *out, size_t max);

#endif
/* SPDX-License-Identifier: MIT */
