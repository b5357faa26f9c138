/* SPDX-License-Identifier: MIT */
/* What a .vtr dump is read into: the model kept for the whole read
 * (process facts, modules, stacks, Python frames, threads, devices: all
 * small, so a dump of any length reads in O(modules + stacks) memory), the
 * events handed to a sink in file order and not kept, and the model's
 * look-ups. Reading: dump_reader.h. */
#ifndef VT_DUMP_MODEL_H
#define VT_DUMP_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <uthash.h>

struct vt_process {
    bool present;
    uint64_t pid, ppid;
    uint64_t start_real_ns; /* since the epoch */
    uint64_t start_mono_ns;
    char *exe, *hostname;
    size_t argc;
    char **argv;
    char *rank; /* NULL: not recorded or not set */
    /* who wrote it, to tell whether it still runs (ending.h); 0 / NULL in
     * dumps written before they were recorded */
    uint64_t start_ticks; /* /proc/PID/stat field 22 */
    char *boot_id;
};

/* A module is loaded from its MODULE record on, until a MODULE_UNLOAD
 * record: stacks read in between (module epochs loaded..unloaded-1) are
 * symbolized with it. */
struct vt_module {
    uint64_t id, bias, start, end;
    char *path;
    uint8_t *build_id;
    size_t build_id_len;
    uint64_t loaded_epoch, unloaded_epoch; /* UINT64_MAX: never unloaded */
};

struct vt_dump_stack_record {
    uint64_t id;
    uint64_t module_epoch; /* module unloads before this stack's record */
    size_t nframes;
    uint64_t *frames; /* return addresses, innermost first */
    size_t npython;
    uint64_t *python;      /* PYFRAME ids, innermost first (threads running Python) */
    bool python_truncated; /* the Python stack went on beyond these */
    /* how many of the Python frames each interpreter entry holds, innermost
     * first (0 entries: not recorded, an older dump) */
    size_t nentries;
    size_t *entry_frames;
    /* A thread without Python frames of its own (PyTorch's autograd engine):
     * the PYFRAME ids of the thread it worked for, innermost first (none:
     * not recorded) */
    size_t nbehalf;
    uint64_t *behalf;
    bool behalf_truncated; /* that thread's stack went on beyond these */
    uint64_t dropped;      /* native frames the tracer left out (a deeper stack) */
    size_t cut_at;         /* ... right before frames[cut_at] */
    UT_hash_handle hh;
};

/* A Python source location (PYFRAME). */
struct vt_dump_pyframe {
    uint64_t id;
    char *function, *file;
    uint64_t line; /* 0 = unknown */
    UT_hash_handle hh;
};

/* A thread's name (THREAD); also an NVTX range's name (PHASE: tid is
 * the phase id). */
struct vt_thread_name {
    uint64_t tid;
    char *name;
    UT_hash_handle hh;
};

/* Tracing began by attaching to the running process (ATTACH): the memory
 * each device held then (the driver's free and total, NVML's bytes of this
 * process + 1), and the routes to the driver attaching could not reach. */
struct vt_attach_device {
    int device;
    uint64_t free_bytes, total_bytes, own_plus1;
};
struct vt_attach_info {
    uint64_t time_ns;
    struct vt_attach_device *devices;
    size_t ndevices;
    char **routes;
    size_t nroutes;
};

/* A framework's allocator the tracer looked into (FRAMEWORK). */
struct vt_framework_seen {
    char *name, *version; /* version: NULL when unknown */
    unsigned state;       /* enum vt_framework_state */
};

/* Times are nanoseconds since the process started (PROCESS.start_mono). */
struct vt_dump_alloc {
    uint64_t time_ns, address, size, stack_id, tid, stream;
    uint64_t call_ns;          /* time inside the real call (0: not measured, older dumps) */
    unsigned api, kind, flags; /* flags: VT_ALLOC_RESTORED, VT_ADDR_HANDLE */
    int64_t device;
    uint64_t phase; /* the NVTX range it was made in (PHASE id), 0 none */
};

struct vt_free_event {
    uint64_t time_ns, address, tid, stream;
    uint64_t call_ns;            /* time inside the real call (0: not measured, older dumps) */
    unsigned api, status, flags; /* flags: VT_ADDR_HANDLE */
};

/* Another process on a GPU, as the tracer saw it at an out-of-memory error. */
#define VT_GPU_PROCESSES_MAX 8
struct vt_gpu_process_info {
    uint64_t pid;
    bool has_used;
    uint64_t used;
    char state; /* /proc state letter; 0: not visible to the tracer */
    bool orphaned;
    char comm[17];
};

struct vt_failed_event {
    uint64_t time_ns, size, stack_id, tid, error;
    unsigned api, kind;
    int64_t device;
    /* the driver's cuMemGetInfo at an out-of-memory failure, when recorded */
    bool has_meminfo;
    uint64_t mem_free, mem_total;
    /* NVML's view then, when recorded: this process, the largest others */
    bool has_own;
    uint64_t own_bytes;
    size_t nothers; /* at most VT_GPU_PROCESSES_MAX kept */
    struct vt_gpu_process_info others[VT_GPU_PROCESSES_MAX];
};

/* DEVICE_USAGE: the driver's and NVML's view of a device (time since start). */
struct vt_device_usage_event {
    uint64_t time_ns;
    unsigned reason; /* enum vt_usage_reason */
    int64_t device;
    uint64_t free_bytes, total_bytes;
    bool has_own, has_others; /* NVML said */
    uint64_t own_bytes, others_bytes, others_count;
    bool has_traced; /* aggregate mode: the tracer's own live bytes on it */
    uint64_t traced_bytes;
};

struct vt_mark_event {
    uint64_t time_ns, tid;
    const char *label; /* valid during the call */
};

/* PY_FINALIZING: the script ended; the interpreter shuts down from here. */
struct vt_py_finalizing_event {
    uint64_t time_ns, tid;
};

/* CACHE_SEGMENT: the live allocation at ADDRESS (a handle with
 * VT_ADDR_HANDLE in FLAGS) is a segment of a framework's cache. */
struct vt_cache_segment_event {
    uint64_t address;
    unsigned flags;
};

/* A free the driver refused (BAD_FREE): where, and what it tried to free. */
struct vt_bad_free_event {
    uint64_t time_ns, address, tid, error, stack_id;
    unsigned api, flags; /* VT_ADDR_HANDLE, VT_BAD_FREE_* */
    uint64_t alloc_stack_id, alloc_size;
    unsigned alloc_api, alloc_kind;
    int64_t alloc_device;
    uint64_t first_free_ns, first_free_tid, first_free_stack_id;
    unsigned first_free_api;
};

/* Aggregate mode: one call site in a SAMPLE (live only) or SITES record. */
struct vt_site_state {
    uint64_t stack_id;
    unsigned api, kind;
    int64_t device;
    uint64_t live_bytes, live_count;
    uint64_t allocations, bytes_allocated, frees; /* SITES only */
};

/* A device's live bytes (SAMPLE) or peak and its time (TOTALS). */
struct vt_device_bytes {
    int64_t device;
    uint64_t bytes, time_ns;
};

/* The arrays are valid during the call. */
struct vt_sample_event {
    uint64_t time_ns, allocations, frees;
    const struct vt_device_bytes *devices;
    size_t ndevices;
    const struct vt_site_state *sites; /* the sites that changed */
    size_t nsites;
};

struct vt_sites_event {
    uint64_t time_ns;
    const struct vt_site_state *sites;
    size_t nsites;
};

struct vt_totals_event {
    uint64_t time_ns, invalid_frees, untraced_frees, teardown_allocations, teardown_bytes;
    uint64_t peak_bytes, peak_time_ns;     /* all devices together */
    const struct vt_device_bytes *devices; /* peaks */
    size_t ndevices;
};

/* What a replay calls per event; a NULL callback is skipped. */
struct vt_event_sink {
    void (*alloc)(void *ctx, const struct vt_dump_alloc *ev);
    void (*free)(void *ctx, const struct vt_free_event *ev);
    void (*failed)(void *ctx, const struct vt_failed_event *ev);
    void (*mark)(void *ctx, const struct vt_mark_event *ev); /* may be NULL */
    /* aggregate mode; each may be NULL */
    void (*sample)(void *ctx, const struct vt_sample_event *ev);
    void (*sites)(void *ctx, const struct vt_sites_event *ev);
    void (*totals)(void *ctx, const struct vt_totals_event *ev);
    /* may be NULL */
    void (*device_usage)(void *ctx, const struct vt_device_usage_event *ev);
    void (*bad_free)(void *ctx, const struct vt_bad_free_event *ev); /* may be NULL */
    /* may be NULL */
    void (*py_finalizing)(void *ctx, const struct vt_py_finalizing_event *ev);
    /* may be NULL */
    void (*cache_segment)(void *ctx, const struct vt_cache_segment_event *ev);
};

/* DEVICE: which GPU a device of the process is (a MIG device: which
 * slice of which GPU). */
struct vt_device_info {
    int64_t device;
    bool has_uuid;
    uint8_t uuid[16];
    char *pci_bus_id, *name; /* NULL: unknown */
    uint64_t total_bytes;    /* 0: unknown */
    bool mig;                /* a MIG device: uuid is its MIG UUID */
    bool has_parent_uuid;    /* a MIG device's GPU */
    uint8_t parent_uuid[16];
    char *parent_name; /* NULL: unknown */
};
/* "GPU-xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" (a MIG device: "MIG-...") as
 * nvidia-smi prints it; BUF holds VT_UUID_TEXT bytes. NULL without a UUID. */
#define VT_UUID_TEXT 41
const char *vt_device_uuid_text(const struct vt_device_info *d, char *buf);
/* A MIG device's GPU: "GPU-...", or NULL when unknown or not a MIG device. */
const char *vt_device_parent_uuid_text(const struct vt_device_info *d, char *buf);

struct vt_dump {
    const char *path;
    uint32_t version;
    bool aggregated; /* written in aggregate mode (header flag) */
    struct vt_process process;
    struct vt_module *modules;
    size_t nmodules;
    uint64_t module_epoch;               /* MODULE_UNLOAD records read so far */
    struct vt_dump_stack_record *stacks; /* uthash, by id */
    struct vt_dump_stack_record *
        *stack_index; /* by id too, for the ids 1, 2, ... the tracer gives */
    size_t stack_index_len;
    struct vt_dump_pyframe *pyframes; /* uthash, by id */
    struct vt_device_info *devices;   /* DEVICE records, in order (one per device) */
    size_t ndevices;
    struct vt_thread_name *threads;       /* uthash, by tid */
    struct vt_thread_name *phases;        /* NVTX range names (PHASE), uthash by id */
    struct vt_framework_seen *frameworks; /* FRAMEWORK records, in order */
    size_t nframeworks;
    struct vt_attach_info *attach; /* ATTACH: NULL in a dump traced from the start */
    bool complete;                 /* END record read and nothing cut off */
    bool has_footer;               /* an END record was read */
    bool no_records;               /* not one after the header (or none: an empty file) */
    unsigned end_reason;           /* its reason (enum vt_end_reason) */
    char end[192];                 /* how the data ended, for the report */
    int end_signal;                /* the fatal signal when end is "signal", else 0 */
    int end_status;                /* _exit's argument when end is "_exit" */
    unsigned end_reopened;         /* times the tracer found the dump again by its path */
    uint64_t last_time_ns;         /* of the last timed record */
    /* A dump is evidence: records the reader disbelieved were dropped or
     * had a value clamped (one warning each on stderr), the rest read. */
    uint64_t disbelieved;
    size_t unreadable_at; /* 0, or the offset of a record length that is no
                             varint: nothing after it could be found */
};

void vt_dump_free(struct vt_dump *dump);
void vt_attach_info_free(struct vt_attach_info *a);
/* The memory DEVICE held before attach: NVML's bytes of this process where
 * it said them (*BY_NVML), else the driver's total - free of the device. */
uint64_t vt_attach_held_bytes(const struct vt_attach_device *device, bool *by_nvml);
/* Free what they hold (PROC and D cleared; S itself freed, NULL is fine). */
void vt_process_free(struct vt_process *proc);
void vt_device_info_free(struct vt_device_info *d);
void vt_dump_stack_free(struct vt_dump_stack_record *s);

const struct vt_dump_stack_record *vt_dump_stack(const struct vt_dump *dump, uint64_t id);
const struct vt_dump_pyframe *vt_dump_pyframe(const struct vt_dump *dump, uint64_t id);
/* The name thread TID had, or NULL when none was recorded. */
const char *vt_dump_thread_name(const struct vt_dump *dump, uint64_t tid);
/* The name of phase ID (an NVTX range), or NULL for 0 or one not recorded. */
const char *vt_dump_phase_name(const struct vt_dump *dump, uint64_t id);
/* The module whose address range holds ADDR in module epoch EPOCH (a
 * stack's module_epoch): loaded then; of several, the latest recorded. */
const struct vt_module *vt_dump_module_at(const struct vt_dump *dump, uint64_t addr,
                                          uint64_t epoch);
/* The DEVICE record of DEVICE, or NULL (older dumps have none). */
const struct vt_device_info *vt_dump_device(const struct vt_dump *dump, int64_t device);

#endif
