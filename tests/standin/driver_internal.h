/* Stand-in libcuda.so.1: the CUDA driver API backed by host memory; what
 * its source files (driver_*.c) share, not exported.
 *
 * Behaves like the real driver where vramtrace can tell the difference:
 * thread-local context stack, primary contexts with retain counts, a
 * per-device capacity (STANDIN_CUDA_MEMORY bytes, default 1 GiB; suffixes
 * K, M, G accepted) with CUDA_ERROR_OUT_OF_MEMORY, validated frees,
 * context teardown freeing everything the context owned, VMM handles that
 * live until released and unmapped, and cuGetProcAddress(_v2) handing out
 * the exported versioned entry points.  The GPUs are the stand-in machine's
 * (standin_gpus.h): STANDIN_CUDA_DEVICES of them (default 2), with UUIDs and
 * PCI bus ids, selected and ordered by CUDA_VISIBLE_DEVICES, their memory
 * shared with every other process using them (cuMemGetInfo and
 * out-of-memory errors count all of them); each context costs
 * STANDIN_CUDA_CONTEXT_BYTES of its GPU (default 0), as a real context
 * does.  With STANDIN_CUDA_REUSE_CONTEXTS=1 a new
 * context takes the address of the last one destroyed, as the real driver
 * may (by default a destroyed context's address stays dead).  With
 * STANDIN_CUDA_HIDDEN_ENTRY_POINTS=1, cuGetProcAddress hands out entry
 * points that no symbol table names (as a driver may hand out internal
 * ones): small jumps to the exported functions, in memory of their own.
 * STANDIN_CUDA_DRIVER_VERSION makes it an older driver, STANDIN_CUDA_HIDE
 * (comma-separated names) leaves entry points out of cuGetProcAddress, and
 * STANDIN_CUDA_LOG=FILE logs the calls the runtime makes (driver_log.h).
 *
 * Everything but the cu* API has hidden visibility and the library is linked
 * with -Bsymbolic-functions, so nothing in here calls (or takes the address
 * of) an interposable exported entry point: a preloaded tracer sees exactly
 * the calls the program made. */
#ifndef STANDIN_DRIVER_INTERNAL_H
#define STANDIN_DRIVER_INTERNAL_H

#define __CUDA_API_VERSION_INTERNAL 1 /* the old ABIs are defined here too */
#include "array_format.h"
#include "cuda.h"
#include "driver_log.h"
#include "standin_gpus.h"

#include <pthread.h>
#include <stdint.h>
#include <uthash.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 16
#define CTX_STACK 32
#define VMM_GRANULARITY ((size_t)2 << 20)
#define CTX_MAGIC 0x43545821u
#define POOL_MAGIC 0x504f4f4cu
#define STREAM_MAGIC 0x5354524du

struct sctx {
    unsigned magic;
    int device;
    int primary;
    int refcount; /* primary contexts: retain count */
    int alive;    /* created/retained and not destroyed/reset */
    int charged;  /* its STANDIN_CUDA_CONTEXT_BYTES are taken from the GPU */
    int green;    /* a green context's (driver_green_ctx.c) */
};

struct spool {
    unsigned magic;
    int device;
    int host; /* its memory is page-locked host memory (a host location) */
};

struct sstream {
    unsigned magic;
    struct sctx *ctx;
    unsigned flags;
    int priority; /* 0 (lowest) to -5 (highest), as a Hopper GPU's */
};

enum akind { K_DEVICE = 1, K_MANAGED = 2, K_HOST = 4, K_ARRAY = 8, K_V1 = 16, K_MIPMAP = 32 };

struct salloc {
    uintptr_t key; /* the address handed out (CUarray: the handle) */
    size_t bytes;
    int kind;
    int device;
    struct sctx *ctx; /* owner: freed when it is torn down */
    CUDA_ARRAY3D_DESCRIPTOR array; /* an array's, as created */
    unsigned host_flags;           /* page-locked memory's: cuMemHostAlloc's flags */
    int ipc_fd;       /* exported by an IPC handle: its shared memory's descriptor + 1 */
    UT_hash_handle hh;
};

struct sdev {
    int physical; /* the stand-in GPU this ordinal is (CUDA_VISIBLE_DEVICES) */
    struct sctx primary;
    struct spool default_pool;
};

/* ---- state (driver_state.c) ---- */

extern pthread_mutex_t g_lock;
extern int g_ndev;
extern int g_reuse_contexts;         /* STANDIN_CUDA_REUSE_CONTEXTS=1 */
extern size_t g_context_bytes;       /* STANDIN_CUDA_CONTEXT_BYTES */
extern struct sctx *g_destroyed_ctx; /* taken by the next context created */
extern int g_initialized;
extern struct sdev g_dev[MAX_DEVICES];
extern struct salloc *g_allocs;

extern __thread struct sctx *t_stack[CTX_STACK];
extern __thread int t_depth;

void ensure_setup(void);
/* cuInit has succeeded. */
int initialized(void);
struct sctx *cur_ctx(void);
/* The current context if it is usable, else NULL. */
struct sctx *live_ctx(void);
int valid_ctx_locked(struct sctx *c);

/* ---- allocation table (driver_allocs.c) ---- */

/* The GPU's memory is shared with every process using it. */
CUresult reserve_capacity_locked(int device, size_t bytes);
void return_capacity_locked(int device, size_t bytes);
/* Allocates `bytes` of host memory standing for `kind` memory of `device`,
 * owned by `ctx`, and records it.  *key receives the address. */
CUresult do_alloc(uintptr_t *key, size_t bytes, int kind, int device, struct sctx *ctx);
/* Frees the allocation at `key` if it is one of `kinds`. */
CUresult do_free(uintptr_t key, int kinds);
/* Everything `c` owns goes; capacity returns. */
void teardown(struct sctx *c);
/* The allocation that contains ADDRESS, lock held. */
struct salloc *containing_locked(uintptr_t address);

/* Makes the exported memory at ADDRESS (BYTES, whole pages) private again
 * and closes its shared memory FD, before the allocation is freed
 * (driver_ipc.c). */
void ipc_unshare(uintptr_t address, size_t bytes, int fd);

/* The bytes of one row of texels of array A, and its rows per layer (0
 * bytes: a format of blocks or planes, which copies do not address). */
size_t array_row_bytes(const struct salloc *a);
size_t array_rows(const struct salloc *a);

/* The device of the VMM mapping that holds ADDRESS: -1 for host memory,
 * -2 when none holds it (driver_vmm.c). */
int vmm_mapped_device(uintptr_t address);

/* ---- cuGetProcAddress's table (driver_proc.c) ---- */

/* An entry point cuGetProcAddress hands out for NAME from VERSION on (the
 * _ptsz variant for the per-thread default stream where there is one).
 * The addresses are those of the exported functions: with
 * -Bsymbolic-functions they bind inside this library, so dladdr() names
 * exactly these symbols even when a preloaded library exports the same. */
struct proc {
    const char *name;
    int version;
    void *fn;
    void *fn_ptsz;
};
/* Each file lists the entry points it defines, after them, with PROC and
 * PROC_PTSZ; the linker gathers them into the section standin_procs. */
#define PROC_CAT2(a, b) a##b
#define PROC_CAT(a, b) PROC_CAT2(a, b)
#define PROC_ENTRY(name, ver, fn, fn_ptsz)                                            \
    static const struct proc PROC_CAT(proc_, __COUNTER__)                             \
        __attribute__((used, section("standin_procs"), aligned(sizeof(void *)))) = { \
            name, ver, (void *)(fn), (void *)(fn_ptsz)};
#define PROC(name, ver, fn) PROC_ENTRY(name, ver, fn, NULL)
#define PROC_PTSZ(name, ver, fn) PROC_ENTRY(name, ver, fn, fn##_ptsz)

/* FN, or the other name it has under STANDIN_CUDA_ALIASED_ENTRY_POINTS=1
 * (driver_aliases.c). */
void *standin_aliased_entry_point(void *fn);

/* ---- memory locations (driver_location.c) ---- */

/* The device whose memory LOCATION is: its id for a device; -1 for the
 * host (HOST, HOST_NUMA, HOST_NUMA_CURRENT); -2 for a type this driver
 * does not know or an id out of range. STANDIN_CUDA_DEVICE_LOCATION_TYPE=N
 * makes it a newer driver that also knows location type N as a part of a
 * device's memory (as later CUDA 13 drivers know
 * CU_MEM_LOCATION_TYPE_DEVICE_LOCALITY_DOMAIN), the device in the id's
 * first byte. */
int location_device(const CUmemLocation *location);

/* ---- CUDA graphs (driver_graph.c) and stream capture (driver_capture.c) ---- */

struct sgraph;
CUresult graph_new(struct sgraph **out);
void graph_destroy(struct sgraph *g);
/* An allocation node of BYTES on DEVICE in G: its address in *DPTR. */
CUresult graph_add_alloc(struct sgraph *g, size_t bytes, int device, CUdeviceptr *dptr,
                         CUgraphNode *node);
CUresult graph_add_free(struct sgraph *g, CUdeviceptr dptr, CUgraphNode *node);
/* A kernel node in G. */
CUresult graph_add_kernel(struct sgraph *g, CUgraphNode *node);
/* A live graph allocation freed outside a graph; CUDA_ERROR_INVALID_VALUE
 * when ADDRESS is none. */
CUresult graph_free(uintptr_t address);
/* DEVICE's primary context is torn down: its graph memory goes. */
void graph_teardown_locked(int device);
/* The graph STREAM is capturing into, or NULL. */
struct sgraph *capture_graph(CUstream stream);
/* The id of the capture STREAM takes part in, or 0. */
cuuint64_t capture_id(CUstream stream);
/* STREAM waits on an event recorded on RECORDED_ON in capture CAPTURE: it
 * joins that capture (a fork), or RECORDED_ON rejoins it (a join). */
CUresult capture_wait(CUstream stream, cuuint64_t capture, CUstream recorded_on);
/* The capture an event was recorded in (0: none) and on which stream;
 * 0 for no event (driver_event.c). */
int event_capture(CUevent event, cuuint64_t *capture, CUstream *stream);

/* Common front of the context-bound allocation calls (driver_memory.c). */
CUresult ctx_alloc(uintptr_t *out, size_t bytes, int kind);
/* The context a stream belongs to: the stream's own, else the current one
 * (driver_stream.c). */
CUresult stream_ctx(CUstream s, struct sctx **out);

#endif
/* SPDX-License-Identifier: MIT */
