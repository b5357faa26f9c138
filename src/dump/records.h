/* SPDX-License-Identifier: MIT */
/* Encoding of each dump record (see format.h). All calls with the tracer lock
 * held, after vt_output_ready(). Each returns 0, or -1 when the dump could
 * not be written. A time read before the lock may be older than the last
 * record's: it is written as that record's time (times never go back). */
#ifndef VRAMTRACE_RECORDS_H
#define VRAMTRACE_RECORDS_H

#include "format.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct vt_module_info {
    uint32_t id;
    uint64_t bias, start, end;
    const char *path;
    const uint8_t *build_id;
    size_t build_id_len;
};

uint64_t vt_now_ns(void);
/* The time of the last timed record written (vt_now_ns's clock). */
uint64_t vt_rec_last_time(void);
/* Records after LAST_TIME were erased (vt_writer_rewind): deltas go on from it. */
void vt_rec_rewind_time(uint64_t last_time);

/* Writes PROCESS and restarts the time and address deltas. */
int vt_rec_process(void);
int vt_rec_module(const struct vt_module_info *m);
int vt_rec_module_unload(uint32_t id);
/* A stack cut to its innermost and outermost frames: how many it dropped,
 * and where (the index of the first outermost frame kept); 0: not cut. */
struct vt_stack_cut {
    unsigned dropped, at;
};
int vt_rec_stack(uint32_t id, const uintptr_t *frames, unsigned n, const struct vt_stack_cut *cut);
int vt_rec_pyframe(uint32_t id, const char *function, const char *file, int line);
/* A stack's Python frames: PYFRAME ids, innermost first, whether more lay
 * beyond them, and how many of them each interpreter entry holds. */
struct vt_python_part {
    const uintptr_t *ids;
    unsigned count;
    int truncated;
    const unsigned short *entry_frames;
    unsigned entries;
};
/* BEHALF (NULL or none: not written): the Python frames of the thread this
 * one worked for (its entries are not written). */
int vt_rec_pystack(uint32_t id, const uintptr_t *frames, unsigned n,
                   const struct vt_python_part *python, const struct vt_python_part *behalf,
                   const struct vt_stack_cut *cut);
int vt_rec_thread(pid_t tid, const char *name);
/* NAME and VERSION: at most 30 bytes each (the tracer's own strings). */
int vt_rec_framework(const char *name, const char *version, unsigned state);
/* The live allocation KEY (FLAGS: VT_ADDR_HANDLE for a handle) is a segment
 * of a framework's cache whose tensors are traced. */
int vt_rec_cache_segment(uint64_t key, unsigned flags);
/* The name of NVTX range ID (a phase of later ALLOC records). */
int vt_rec_phase(uint32_t id, const char *name);
/* E->time_ns: vt_now_ns(), read before the lock; E->tid is set here. */
int vt_rec_alloc(struct vt_rec_ALLOC *e);
/* TIME_NS: vt_now_ns(), read before the lock; CALL_NS: the time the real
 * free took (0: not a call of this thread's). */
int vt_rec_free(uint64_t time_ns, uint64_t address, unsigned api, unsigned status_flags,
                uint64_t stream, uint64_t call_ns);
/* Another process on the GPU, as NVML lists it (and /proc shows it). */
#define VT_OOM_OTHERS 8
struct vt_other_process {
    uint32_t pid;
    uint64_t used_plus1; /* used bytes + 1; 0: NVML did not say */
    char state;          /* /proc state letter; 0: not in our /proc */
    uint8_t flags;       /* VT_PROCESS_* */
    char comm[16];
};
/* The driver's cuMemGetInfo, taken right after an out-of-memory failure,
 * and NVML's view of the GPU then. */
struct vt_meminfo {
    uint64_t free_bytes, total_bytes;
    uint64_t own_plus1; /* this process's used bytes + 1; 0: NVML did not say */
    unsigned nothers;   /* the largest users, at most VT_OOM_OTHERS */
    struct vt_other_process others[VT_OOM_OTHERS];
};
/* MEM (may be NULL): the driver's free/total memory, appended. */
int vt_rec_failed(uint64_t size, uint32_t stack, unsigned api, unsigned kind, int device, int error,
                  const struct vt_meminfo *mem);
int vt_rec_mark(const char *label);
int vt_rec_py_finalizing(void);
/* Which GPU a device is (format.h, VT_REC_DEVICE). */
struct vt_device_identity {
    int device;
    int has_uuid;
    unsigned char uuid[16];
    char pci_bus_id[32];
    char name[128];
    uint64_t total_bytes; /* 0: unknown */
    unsigned flags;       /* VT_DEVICE_MIG */
    int has_parent_uuid;  /* a MIG device: its GPU's UUID and name */
    unsigned char parent_uuid[16];
    char parent_name[96];
};
int vt_rec_device(const struct vt_device_identity *d);
/* The driver's and NVML's view of a device (VT_REC_DEVICE_USAGE). */
struct vt_usage_sample {
    uint64_t time_ns; /* vt_now_ns() when the driver was asked */
    unsigned reason;  /* enum vt_usage_reason */
    int device;
    uint64_t free_bytes, total_bytes;
    uint64_t own_plus1, others_plus1; /* NVML: used bytes + 1; 0: unknown */
    unsigned others;                  /* other processes NVML lists */
    uint64_t traced_plus1;            /* aggregate mode: live bytes on it + 1; 0: not written */
};
int vt_rec_device_usage(const struct vt_usage_sample *s);
/* Tracing began by attaching (VT_REC_ATTACH): NDEVICES samples of the
 * memory held then (reason unused), NROUTES sentences of what was not
 * reached. */
#define VT_ATTACH_ROUTES 16
int vt_rec_attach(const struct vt_usage_sample *devices, unsigned ndevices,
                  const char *const *routes, unsigned nroutes);
/* Aggregate mode (src/output/aggregate.c): one call site's counts, and one device. */
struct vt_agg_site {
    struct vt_site_key key;
    uint8_t dirty; /* changed since the last SAMPLE */
    uint64_t allocations, bytes_allocated, frees, live_count, live_bytes;
};
struct vt_agg_device {
    int device;
    uint64_t live_bytes, peak_bytes, peak_ns;
};
struct vt_agg_counts {
    uint64_t allocations, frees, invalid_frees, untraced_frees;
    uint64_t teardown_count, teardown_bytes;
    uint64_t live_bytes, peak_bytes, peak_ns; /* all devices together */
};
/* Encoded into BUF (CAP bytes, VT_AGG_RECORD_MAX(sites) at least). SAMPLE
 * lists the N sites at the indices WHICH; SITES lists all N. Times (peak_ns)
 * are CLOCK_MONOTONIC ns, as vt_now_ns. Async-signal-safe. */
#define VT_AGG_DEVICES_MAX 64
#define VT_AGG_RECORD_MAX(nsites) (16 * 10 + (nsites)*64 + VT_AGG_DEVICES_MAX * 32)
int vt_rec_sample(uint8_t *buf, size_t cap, const struct vt_agg_counts *c,
                  const struct vt_agg_device *devices, size_t ndevices,
                  const struct vt_agg_site *sites, const uint32_t *which, size_t n);
int vt_rec_sites(uint8_t *buf, size_t cap, const struct vt_agg_site *sites, size_t n);
int vt_rec_totals(uint8_t *buf, size_t cap, const struct vt_agg_counts *c,
                  const struct vt_agg_device *devices, size_t ndevices);
/* SIGNAL: the fatal signal for VT_END_SIGNAL, else 0; STATUS: _exit's
 * argument for VT_END_UNDERSCORE_EXIT, else 0. Async-signal-safe. */
int vt_rec_end(unsigned reason, uint64_t live_allocations, int signal, int status);

/* A free the driver refused (format.h, BAD_FREE). Times: vt_now_ns's clock. */
struct vt_bad_free {
    uint64_t time_ns, address;
    unsigned api, flags; /* VT_ADDR_HANDLE, VT_BAD_FREE_* */
    int error;
    uint32_t stack;       /* of the refused free */
    uint32_t alloc_stack; /* VT_BAD_FREE_ALLOC_KNOWN */
    unsigned alloc_api, alloc_kind;
    int alloc_device;
    uint64_t alloc_size;
    uint64_t first_free_ns; /* VT_BAD_FREE_DOUBLE */
    unsigned first_free_api;
    pid_t first_free_tid;
    uint32_t first_free_stack; /* 0: not recorded */
};
int vt_rec_bad_free(const struct vt_bad_free *f);

#endif
