/* The stand-in machine's GPUs, shared by the stand-in driver (libcuda.so.1)
 * and the stand-in NVML (libnvidia-ml.so.1), as the real ones share the
 * kernel driver's view:
 *  - physical GPUs: STANDIN_CUDA_DEVICES of them (default 2), each with a
 *    fixed UUID, PCI bus id, name and STANDIN_CUDA_MEMORY bytes (default
 *    1 GiB; suffixes K, M, G);
 *  - MIG: STANDIN_CUDA_MIG=N (1 to 7) puts GPU 0 in MIG mode with N MIG
 *    devices (one GPU instance with one compute instance each), each with
 *    an Nth of its memory, its own UUID (MIG-...), a name after its
 *    profile and the GPU's PCI bus id; CUDA sees the MIG devices in place
 *    of the GPU, NVML the GPU with its MIG devices under it;
 *  - which of them a process sees, in which order: CUDA_VISIBLE_DEVICES,
 *    read as the real driver reads it (MIG-<uuid> names one MIG device);
 *  - who uses how much of each: a registry file shared by every process on
 *    the machine (STANDIN_GPU_REGISTRY, default /dev/shm or $TMPDIR
 *    vramtrace-standin-gpus.<uid>), one slot per process with its bytes
 *    and contexts per GPU; what a GPU has in use is the sum of the slots.
 *    A process's memory counts until it has exited (gone, or a zombie
 *    whose threads have all ended), as the kernel driver frees it when the
 *    last thread closes the device, however it ended (SIGKILL too): its
 *    slot names it by pid and start time, and one in another pid namespace
 *    by the record lock it holds on its slot. Counters are atomics in the
 *    shared mapping (no system call per allocation); slots are claimed and
 *    reclaimed under an flock of the file, dead ones whenever a process
 *    claims one or an allocation does not fit. */
#ifndef STANDIN_GPUS_H
#define STANDIN_GPUS_H

#include <stddef.h>
#include <stdint.h>

#define SG_MAX_GPUS 16
#define SG_UUID_TEXT 41        /* "GPU-" or "MIG-" + 36 + NUL */
#define SG_MIG_MAX 7           /* MIG devices a GPU can hold, as NVML says of an A100 */

/* A unit of the machine: a GPU, or a MIG device of a GPU in MIG mode.
 * Units 0 .. sg_gpu_count()-1 are the GPUs, the MIG devices follow. */
struct sg_gpu {
    unsigned char uuid[16];
    char pci_bus_id[16];       /* "0000:01:00.0", as cuDeviceGetPCIBusId gives it */
    char name[96];
    size_t capacity;
    int parent;                /* a MIG device: its GPU; -1: a GPU */
    int first_mig, migs;       /* a GPU in MIG mode: its MIG devices' units */
    unsigned gpu_instance;     /* a MIG device: its GPU instance id */
};

size_t sg_parse_size(const char *s, size_t dflt);

/* The machine's GPUs (STANDIN_CUDA_DEVICES, at most SG_MAX_GPUS), and
 * its units: the GPUs and the MIG devices (at most SG_MAX_GPUS in all). */
int sg_gpu_count(void);
int sg_unit_count(void);
const struct sg_gpu *sg_gpu(int unit);
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (a MIG device: "MIG-..."), as
 * nvidia-smi prints it. */
void sg_uuid_text(const struct sg_gpu *gpu, char out[SG_UUID_TEXT]);

/* The units CUDA_VISIBLE_DEVICES leaves to this process, in its order: the
 * unit of each CUDA ordinal (a GPU in MIG mode stands for its MIG
 * devices). Unset: all. Entries are indices or UUIDs (a unique prefix,
 * "GPU-" or "MIG-" included); the list ends at the first entry that names
 * nothing or one already listed. Returns the count. */
int sg_visible_gpus(int units[SG_MAX_GPUS]);

/* This process's use of GPU PHYSICAL. sg_charge returns 0, or -1 when the
 * GPU (all processes together) has not BYTES free: the first time other
 * processes hold part of it, one line on stderr names the registry and how
 * to reset it. sg_uncharge never goes below zero: a forked child frees
 * nothing its parent holds. */
int sg_charge(int physical, size_t bytes);
void sg_uncharge(int physical, size_t bytes);
void sg_context_opened(int physical);
void sg_context_closed(int physical);

/* Bytes used on GPU PHYSICAL by every process still running (a GPU in MIG
 * mode: on its MIG devices). */
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
