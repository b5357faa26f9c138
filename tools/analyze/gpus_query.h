/* SPDX-License-Identifier: MIT */
/* What `vramtrace gpus` shows: the machine's GPUs now, from NVML, and each
 * process using one with what /proc says about it (state, parent, whether
 * it is orphaned, how long it has run, its command line) and whether a dump
 * of it is at hand (it is being traced). */
#ifndef VT_GPUS_QUERY_H
#define VT_GPUS_QUERY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "nvml_loader.h"
#include "proc_status.h"

struct vt_gpu_process {
    unsigned pid;
    bool has_used;
    uint64_t used;
    bool visible;                 /* in this /proc (else: another container or namespace) */
    struct vt_proc_status status; /* when visible */
    bool orphaned;
    double run_seconds; /* -1: unknown */
    char user[64];
    char *command;    /* the command line, spaces between the arguments */
    const char *dump; /* the dump of this process at hand, or NULL */
};

#define VT_GPU_MIG_MAX 8 /* MIG devices of one GPU (an A100 or H100 holds 7) */

/* A GPU, or a MIG device of a GPU in MIG mode (its processes are listed
 * under its MIG devices, each answering for its own memory). */
struct vt_gpu {
    unsigned index; /* NVML's (a MIG device: its index under its GPU) */
    char uuid[NVML_DEVICE_UUID_V2_BUFFER_SIZE];
    char name[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
    char pci_bus_id[NVML_DEVICE_PCI_BUS_ID_BUFFER_SIZE];
    char error[128]; /* the GPU could not be queried at all: why */
    bool has_memory, has_utilization;
    uint64_t total, used, free;
    unsigned utilization, memory_utilization;
    char processes_error[128]; /* NVML did not list the processes: why */
    struct vt_gpu_process *processes;
    size_t nprocesses;
    size_t vanished; /* listed, then gone before /proc was read */
    bool mig_mode;   /* a GPU in MIG mode: its MIG devices follow */
    struct vt_gpu *migs;
    size_t nmigs;
};

/* A traced process: the PROCESS record of a dump. */
struct vt_traced {
    char *path, *host;
    uint64_t pid, start_real_ns;
};

struct vt_gpus {
    char driver_version[NVML_SYSTEM_DRIVER_VERSION_BUFFER_SIZE];
    char host[256];
    struct vt_gpu *gpus;
    size_t n;
    struct vt_traced *traced;
    size_t ntraced;
};

/* The dumps PATHS name (files, directories of *.vtr; none: the working
 * directory's), as the traced processes of G. Unreadable ones are skipped,
 * said on stderr when named. */
void vt_gpus_find_traced(struct vt_gpus *g, char *const *paths, size_t npaths);

/* Every GPU NVML knows, or only ONLY (its index; -1: all), with its
 * processes. -1 with WHY when NVML cannot even count them. */
int vt_gpus_query(const struct vt_nvml *n, struct vt_gpus *g, int only, char *why, size_t size);

void vt_gpus_free(struct vt_gpus *g);

#endif
