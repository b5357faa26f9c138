/* Stand-in libcuda.so.1: the CUDA driver API backed by host memory.
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
 * All internals are static and the library is linked with
 * -Bsymbolic-functions, so nothing in here calls (or takes the address of)
 * an interposable exported entry point: a preloaded tracer sees exactly the
 * calls the program made. */
#define __CUDA_API_VERSION_INTERNAL 1
#include "cuda.h"
#include "driver_log.h"
#include "standin_gpus.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <uthash.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_DEVICES 16
#define CTX_STACK 32
#define VMM_GRANULARITY ((size_t)2 << 20)
#define CTX_MAGIC 0x43545821u
#define POOL_MAGIC 0x504f4f4cu
#define STREAM_MAGIC 0x5354524du

/* ---- state ---- */

struct sctx {
    unsigned magic;
    int device;
    int primary;
    int refcount; /* primary contexts: retain count */
    int alive;    /* created/retained and not destroyed/reset */
    int charged;  /* its STANDIN_CUDA_CONTEXT_BYTES are taken from the GPU */
};

struct spool {
    unsigned magic;
    int device;
};

struct sstream {
    unsigned magic;
    struct sctx *ctx;
};

enum akind { K_DEVICE = 1, K_MANAGED = 2, K_HOST = 4, K_ARRAY = 8, K_V1 = 16, K_MIPMAP = 32 };

struct salloc {
    uintptr_t key; /* the address handed out (CUarray: the handle) */
    size_t bytes;
    int kind;
    int device;
    struct sctx *ctx; /* owner: freed when it is torn down */
    UT_hash_handle hh;
};

struct shandle { /* a cuMemCreate allocation */
    uintptr_t key;
    size_t bytes;
    int device;
    int released;
    int maps;
    UT_hash_handle hh;
};

struct sreserve {
    uintptr_t base;
    size_t size;
    UT_hash_handle hh;
};

struct smap {
    uintptr_t va;
    size_t size;
    struct shandle *h;
    UT_hash_handle hh;
};

struct sdev {
    int physical; /* the stand-in GPU this ordinal is (CUDA_VISIBLE_DEVICES) */
    struct sctx primary;
    struct spool default_pool;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t g_once = PTHREAD_ONCE_INIT;
static int g_ndev;
static int g_reuse_contexts;        /* STANDIN_CUDA_REUSE_CONTEXTS=1 */
static size_t g_context_bytes;      /* STANDIN_CUDA_CONTEXT_BYTES */
static struct sctx *g_destroyed_ctx; /* taken by the next context created */
static int g_initialized;
static struct sdev g_dev[MAX_DEVICES];
static struct salloc *g_allocs;
static struct shandle *g_handles;
static struct sreserve *g_reserves;
static struct smap *g_maps;

static __thread struct sctx *t_stack[CTX_STACK];
static __thread int t_depth;

static void setup(void)
{
    const char *reuse = getenv("STANDIN_CUDA_REUSE_CONTEXTS");
    int physical[SG_MAX_GPUS];
    g_reuse_contexts = reuse && !strcmp(reuse, "1");
    g_context_bytes = sg_parse_size(getenv("STANDIN_CUDA_CONTEXT_BYTES"), 0);
    g_ndev = sg_visible_gpus(physical);
    if (g_ndev > MAX_DEVICES)
        g_ndev = MAX_DEVICES;
    for (int i = 0; i < MAX_DEVICES; i++) {
        g_dev[i].physical = i < g_ndev ? physical[i] : -1;
        g_dev[i].primary.magic = CTX_MAGIC;
        g_dev[i].primary.device = i;
        g_dev[i].primary.primary = 1;
        g_dev[i].default_pool.magic = POOL_MAGIC;
        g_dev[i].default_pool.device = i;
    }
}

static void ensure_setup(void)
{
    pthread_once(&g_once, setup);
}

static int initialized(void)
{
    ensure_setup();
    return __atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE);
}

static struct sctx *cur_ctx(void)
{
    return t_depth > 0 ? t_stack[t_depth - 1] : NULL;
}

/* The current context if it is usable, else NULL. */
static struct sctx *live_ctx(void)
{
    struct sctx *c = cur_ctx();
    if (!c)
        return NULL;
    pthread_mutex_lock(&g_lock);
    int ok = c->magic == CTX_MAGIC && c->alive;
    pthread_mutex_unlock(&g_lock);
    return ok ? c : NULL;
}

static int valid_ctx_locked(struct sctx *c)
{
    if (!c)
        return 0;
    for (int i = 0; i < g_ndev; i++)
        if (c == &g_dev[i].primary)
            return 1;
    return c->magic == CTX_MAGIC;
}

/* ---- allocation table ---- */

/* The GPU's memory is shared with every process using it. */
static CUresult reserve_capacity_locked(int device, size_t bytes)
{
    return sg_charge(g_dev[device].physical, bytes) == 0 ? CUDA_SUCCESS
                                                        : CUDA_ERROR_OUT_OF_MEMORY;
}

static void return_capacity_locked(int device, size_t bytes)
{
    sg_uncharge(g_dev[device].physical, bytes);
}

static int counts_capacity(int kind)
{
    return kind != K_HOST;
}

/* Allocates `bytes` of host memory standing for `kind` memory of `device`,
 * owned by `ctx`, and records it.  *key receives the address. */
static CUresult do_alloc(uintptr_t *key, size_t bytes, int kind, int device, struct sctx *ctx)
{
    if (bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (counts_capacity(kind)) {
        pthread_mutex_lock(&g_lock);
        CUresult r = reserve_capacity_locked(device, bytes);
        pthread_mutex_unlock(&g_lock);
        if (r != CUDA_SUCCESS)
            return r;
    }
    void *mem = NULL;
    if (kind == K_V1) {
#ifdef MAP_32BIT
        mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
                   -1, 0);
        if (mem == MAP_FAILED || (uintptr_t)mem + bytes > 0xffffffffu) {
            if (mem != MAP_FAILED)
                munmap(mem, bytes);
            mem = NULL;
        }
#endif
    } else if (posix_memalign(&mem, 512, bytes) != 0) {
        mem = NULL;
    }
    struct salloc *a = mem ? calloc(1, sizeof *a) : NULL;
    if (!a) {
        if (mem)
            kind == K_V1 ? (void)munmap(mem, bytes) : free(mem);
        if (counts_capacity(kind)) {
            pthread_mutex_lock(&g_lock);
            return_capacity_locked(device, bytes);
            pthread_mutex_unlock(&g_lock);
        }
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->key = (uintptr_t)mem;
    a->bytes = bytes;
    a->kind = kind;
    a->device = device;
    a->ctx = ctx;
    pthread_mutex_lock(&g_lock);
    HASH_ADD(hh, g_allocs, key, sizeof a->key, a);
    pthread_mutex_unlock(&g_lock);
    *key = (uintptr_t)mem; /* not a->key: a teardown on another thread may free it now */
    return CUDA_SUCCESS;
}

static void release_locked(struct salloc *a)
{
    HASH_DEL(g_allocs, a);
    if (counts_capacity(a->kind))
        return_capacity_locked(a->device, a->bytes);
}

static void release_memory(struct salloc *a)
{
    if (a->kind == K_V1)
        munmap((void *)a->key, a->bytes);
    else
        free((void *)a->key);
    free(a);
}

/* Frees the allocation at `key` if it is one of `kinds`. */
static CUresult do_free(uintptr_t key, int kinds)
{
    struct salloc *a;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_allocs, &key, sizeof key, a);
    if (!a || !(a->kind & kinds)) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    release_locked(a);
    pthread_mutex_unlock(&g_lock);
    release_memory(a);
    return CUDA_SUCCESS;
}

/* Everything `c` owns goes; capacity returns. */
static void teardown(struct sctx *c)
{
    struct salloc *a, *tmp, *dead = NULL;
    pthread_mutex_lock(&g_lock);
    HASH_ITER(hh, g_allocs, a, tmp) {
        if (a->ctx == c) {
            release_locked(a);
            a->hh.next = dead;
            dead = a;
        }
    }
    pthread_mutex_unlock(&g_lock);
    while (dead) {
        struct salloc *next = dead->hh.next;
        release_memory(dead);
        dead = next;
    }
}

/* ---- initialization, devices ---- */

EXPORT CUresult cuInit(unsigned int flags)
{
    standin_log("cuInit %u", flags);
    ensure_setup();
    if (flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (g_ndev == 0)
        return CUDA_ERROR_NO_DEVICE;
    __atomic_store_n(&g_initialized, 1, __ATOMIC_RELEASE);
    return CUDA_SUCCESS;
}

/* 13000, or STANDIN_CUDA_DRIVER_VERSION (an older driver). */
EXPORT CUresult cuDriverGetVersion(int *driverVersion)
{
    const char *version = getenv("STANDIN_CUDA_DRIVER_VERSION");
    standin_log("cuDriverGetVersion");
    if (!driverVersion)
        return CUDA_ERROR_INVALID_VALUE;
    *driverVersion = version && *version ? atoi(version) : 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGet(CUdevice *device, int ordinal)
{
    standin_log("cuDeviceGet %d", ordinal);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    if (ordinal < 0 || ordinal >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *device = ordinal;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetCount(int *count)
{
    standin_log("cuDeviceGetCount");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!count)
        return CUDA_ERROR_INVALID_VALUE;
    *count = g_ndev;
    return CUDA_SUCCESS;
}

/* ---- device identity: the stand-in GPU behind each ordinal ---- */

static const struct sg_gpu *gpu_of(CUdevice dev)
{
    return dev >= 0 && dev < g_ndev ? sg_gpu(g_dev[dev].physical) : NULL;
}

/* Checks shared by the identity queries: initialized, OUT set, DEV valid. */
static CUresult identity_query(const void *out, CUdevice dev, const struct sg_gpu **gpu)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    *gpu = gpu_of(dev);
    return *gpu ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

/* Copies S into OUT (LEN bytes), cut to fit, as the driver does. */
static CUresult copy_text(char *out, int len, const char *s)
{
    if (len <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    snprintf(out, (size_t)len, "%s", s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetName(char *name, int len, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceGetName %d", dev);
    CUresult r = identity_query(name, dev, &gpu);
    return r ? r : copy_text(name, len, gpu->name);
}

EXPORT CUresult cuDeviceGetPCIBusId(char *pciBusId, int len, CUdevice dev)
{
    const struct sg_gpu *gpu;
    CUresult r = identity_query(pciBusId, dev, &gpu);
    return r ? r : copy_text(pciBusId, len, gpu->pci_bus_id);
}

EXPORT CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceTotalMem_v2 %d", dev);
    CUresult r = identity_query(bytes, dev, &gpu);
    if (r == CUDA_SUCCESS)
        *bytes = gpu->capacity;
    return r;
}

EXPORT CUresult cuDeviceGetUuid_v2(CUuuid *uuid, CUdevice dev)
{
    const struct sg_gpu *gpu;
    standin_log("cuDeviceGetUuid_v2 %d", dev);
    CUresult r = identity_query(uuid, dev, &gpu);
    if (r == CUDA_SUCCESS)
        memcpy(uuid->bytes, gpu->uuid, sizeof uuid->bytes);
    return r;
}

/* Before CUDA 11.4 (no MIG instances here: the same answer). */
EXPORT CUresult cuDeviceGetUuid(CUuuid *uuid, CUdevice dev)
{
    return cuDeviceGetUuid_v2(uuid, dev);
}

/* A few attributes with plausible values (compute capability 9.0, 132
 * multiprocessors); every other one reads as 0, as an unsupported feature. */
EXPORT CUresult cuDeviceGetAttribute(int *value, int attribute, CUdevice dev)
{
    standin_log("cuDeviceGetAttribute %d %d", attribute, dev);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!value || attribute <= 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    switch (attribute) {
    case 16: *value = 132; break;  /* CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT */
    case 75: *value = 9; break;    /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR */
    case 76: *value = 0; break;    /* CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR */
    default: *value = 0; break;
    }
    return CUDA_SUCCESS;
}

static const struct { int code; const char *name, *text; } errors[] = {
    {CUDA_SUCCESS, "CUDA_SUCCESS", "no error"},
    {CUDA_ERROR_INVALID_VALUE, "CUDA_ERROR_INVALID_VALUE", "invalid argument"},
    {CUDA_ERROR_OUT_OF_MEMORY, "CUDA_ERROR_OUT_OF_MEMORY", "out of memory"},
    {CUDA_ERROR_NOT_INITIALIZED, "CUDA_ERROR_NOT_INITIALIZED", "initialization error"},
    {CUDA_ERROR_DEINITIALIZED, "CUDA_ERROR_DEINITIALIZED", "driver shutting down"},
    {CUDA_ERROR_NO_DEVICE, "CUDA_ERROR_NO_DEVICE", "no CUDA-capable device is detected"},
    {CUDA_ERROR_INVALID_DEVICE, "CUDA_ERROR_INVALID_DEVICE", "invalid device ordinal"},
    {CUDA_ERROR_INVALID_CONTEXT, "CUDA_ERROR_INVALID_CONTEXT", "invalid device context"},
    {CUDA_ERROR_INVALID_HANDLE, "CUDA_ERROR_INVALID_HANDLE", "invalid resource handle"},
    {CUDA_ERROR_NOT_FOUND, "CUDA_ERROR_NOT_FOUND", "named symbol not found"},
    {CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE, "CUDA_ERROR_PRIMARY_CONTEXT_ACTIVE",
     "primary context active"},
    {CUDA_ERROR_CONTEXT_IS_DESTROYED, "CUDA_ERROR_CONTEXT_IS_DESTROYED", "context is destroyed"},
    {CUDA_ERROR_NOT_SUPPORTED, "CUDA_ERROR_NOT_SUPPORTED", "operation not supported"},
    {CUDA_ERROR_UNKNOWN, "CUDA_ERROR_UNKNOWN", "unknown error"},
};

EXPORT CUresult cuGetErrorString(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error) {
            *pStr = errors[i].text;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuGetErrorName(CUresult error, const char **pStr)
{
    if (!pStr)
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == error) {
            *pStr = errors[i].name;
            return CUDA_SUCCESS;
        }
    *pStr = NULL;
    return CUDA_ERROR_INVALID_VALUE;
}

/* ---- contexts ---- */

/* A live context costs STANDIN_CUDA_CONTEXT_BYTES of its GPU, and makes the
 * process one NVML lists there. */
static CUresult charge_context(struct sctx *c)
{
    if (reserve_capacity_locked(c->device, g_context_bytes) != CUDA_SUCCESS)
        return CUDA_ERROR_OUT_OF_MEMORY;
    sg_context_opened(g_dev[c->device].physical);
    c->charged = 1;
    return CUDA_SUCCESS;
}

static void uncharge_context(struct sctx *c)
{
    if (!c->charged)
        return;
    c->charged = 0;
    return_capacity_locked(c->device, g_context_bytes);
    sg_context_closed(g_dev[c->device].physical);
}

static CUresult ctx_create(CUcontext *pctx, CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (t_depth >= CTX_STACK)
        return CUDA_ERROR_UNKNOWN;
    /* Never freed: a stale handle stays recognisably dead, unless reused. */
    pthread_mutex_lock(&g_lock);
    struct sctx *c = g_destroyed_ctx;
    g_destroyed_ctx = NULL;
    pthread_mutex_unlock(&g_lock);
    if (c)
        memset(c, 0, sizeof *c);
    else
        c = calloc(1, sizeof *c);
    if (!c)
        return CUDA_ERROR_OUT_OF_MEMORY;
    c->device = dev;
    if (charge_context(c) != CUDA_SUCCESS) {
        free(c);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->magic = CTX_MAGIC;
    c->alive = 1;
    t_stack[t_depth++] = c;
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxCreate_v2(CUcontext *pctx, unsigned int flags, CUdevice dev)
{
    (void)flags;
    return ctx_create(pctx, dev);
}

EXPORT CUresult cuCtxCreate_v4(CUcontext *pctx, CUctxCreateParams *params, unsigned int flags,
                               CUdevice dev)
{
    (void)flags;
    if (params && (params->numExecAffinityParams || params->cigParams))
        return CUDA_ERROR_NOT_SUPPORTED;
    return ctx_create(pctx, dev);
}

static void pop_everywhere_on_this_thread(struct sctx *c)
{
    int j = 0;
    for (int i = 0; i < t_depth; i++)
        if (t_stack[i] != c)
            t_stack[j++] = t_stack[i];
    t_depth = j;
}

EXPORT CUresult cuCtxDestroy_v2(CUcontext ctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    if (!c)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    int ok = c->magic == CTX_MAGIC && !c->primary && c->alive;
    if (ok)
        c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    if (!ok) /* unknown, already destroyed, or a primary context */
        return CUDA_ERROR_INVALID_CONTEXT;
    teardown(c);
    uncharge_context(c);
    pop_everywhere_on_this_thread(c);
    if (g_reuse_contexts) {
        pthread_mutex_lock(&g_lock);
        g_destroyed_ctx = c;
        pthread_mutex_unlock(&g_lock);
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetCurrent(CUcontext *pctx)
{
    standin_log("cuCtxGetCurrent");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    *pctx = (CUcontext)cur_ctx();
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSetCurrent(CUcontext ctx)
{
    standin_log("cuCtxSetCurrent");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    if (!c) {
        if (t_depth > 0)
            t_depth--;
        return CUDA_SUCCESS;
    }
    pthread_mutex_lock(&g_lock);
    int ok = valid_ctx_locked(c);
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth == 0)
        t_depth = 1;
    t_stack[t_depth - 1] = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPushCurrent_v2(CUcontext ctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c = (struct sctx *)ctx;
    pthread_mutex_lock(&g_lock);
    int ok = valid_ctx_locked(c);
    pthread_mutex_unlock(&g_lock);
    if (!ok)
        return CUDA_ERROR_INVALID_CONTEXT;
    if (t_depth >= CTX_STACK)
        return CUDA_ERROR_UNKNOWN;
    t_stack[t_depth++] = c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxPopCurrent_v2(CUcontext *pctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (t_depth == 0)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sctx *c = t_stack[--t_depth];
    if (pctx)
        *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxGetDevice(CUdevice *device)
{
    standin_log("cuCtxGetDevice");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize(void)
{
    standin_log("cuCtxSynchronize");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return live_ctx() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

/* CUDA 13's cuCtxGetDevice (asked for at version 13000): the device of CTX,
 * or of the current context when CTX is NULL. */
static struct sctx *given_or_current(CUcontext ctx)
{
    struct sctx *c = ctx ? (struct sctx *)ctx : live_ctx();
    int ok;
    if (!c)
        return NULL;
    pthread_mutex_lock(&g_lock);
    ok = valid_ctx_locked(c) && c->alive;
    pthread_mutex_unlock(&g_lock);
    return ok ? c : NULL;
}

EXPORT CUresult cuCtxGetDevice_v2(CUdevice *device, CUcontext ctx)
{
    standin_log("cuCtxGetDevice_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!device)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = given_or_current(ctx);
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *device = c->device;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuCtxSynchronize_v2(CUcontext ctx)
{
    standin_log("cuCtxSynchronize_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return given_or_current(ctx) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuCtxGetApiVersion(CUcontext ctx, unsigned int *version)
{
    standin_log("cuCtxGetApiVersion");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!version)
        return CUDA_ERROR_INVALID_VALUE;
    if (!given_or_current(ctx))
        return CUDA_ERROR_INVALID_CONTEXT;
    *version = 13000;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxRetain %d", dev);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    if (!c->charged && charge_context(c) != CUDA_SUCCESS) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    c->refcount++;
    c->alive = 1;
    pthread_mutex_unlock(&g_lock);
    *pctx = (CUcontext)c;
    return CUDA_SUCCESS;
}

static CUresult primary_release(CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    if (c->refcount <= 0) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_CONTEXT;
    }
    int destroy = --c->refcount == 0;
    if (destroy)
        c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    if (destroy) {
        teardown(c); /* "destroyed regardless of how many threads it is current to" */
        pthread_mutex_lock(&g_lock);
        uncharge_context(c);
        pthread_mutex_unlock(&g_lock);
    }
    return CUDA_SUCCESS;
}

static CUresult primary_reset(CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct sctx *c = &g_dev[dev].primary;
    pthread_mutex_lock(&g_lock);
    c->refcount = 0;
    c->alive = 0;
    pthread_mutex_unlock(&g_lock);
    teardown(c);
    pthread_mutex_lock(&g_lock);
    uncharge_context(c);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDevicePrimaryCtxRelease_v2(CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxRelease_v2 %d", dev);
    return primary_release(dev);
}
EXPORT CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { return primary_release(dev); }
EXPORT CUresult cuDevicePrimaryCtxReset_v2(CUdevice dev)
{
    standin_log("cuDevicePrimaryCtxReset_v2 %d", dev);
    return primary_reset(dev);
}
EXPORT CUresult cuDevicePrimaryCtxReset(CUdevice dev) { return primary_reset(dev); }

EXPORT CUresult cuDevicePrimaryCtxGetState(CUdevice dev, unsigned int *flags, int *active)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!flags || !active)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&g_lock);
    *flags = 0;
    *active = g_dev[dev].primary.alive;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

/* ---- memory ---- */

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    standin_log("cuMemGetInfo_v2");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!free_bytes || !total)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    /* every process's use of the GPU, as the real driver counts it */
    int physical = g_dev[c->device].physical;
    size_t used = sg_used(physical);
    *total = sg_gpu(physical)->capacity;
    *free_bytes = used < *total ? *total - used : 0;
    return CUDA_SUCCESS;
}

/* Common front of the context-bound allocation calls. */
static CUresult ctx_alloc(uintptr_t *out, size_t bytes, int kind)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!out)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    return do_alloc(out, bytes, kind, c->device, c);
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *dptr, size_t bytesize)
{
    standin_log("cuMemAlloc_v2 %zu", bytesize);
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_DEVICE);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

/* The 32-bit ABI of CUDA < 3.2: memory below 4 GiB (x86-64 MAP_32BIT). */
EXPORT CUresult cuMemAlloc(CUdeviceptr_v1 *dptr, unsigned int bytesize)
{
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_V1);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr_v1)p;
    return r;
}

EXPORT CUresult cuMemAllocPitch_v2(CUdeviceptr *dptr, size_t *pPitch, size_t WidthInBytes,
                                   size_t Height, unsigned int ElementSizeBytes)
{
    if (!pPitch || WidthInBytes == 0 || Height == 0 ||
        (ElementSizeBytes != 4 && ElementSizeBytes != 8 && ElementSizeBytes != 16))
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    size_t pitch = (WidthInBytes + 511) & ~(size_t)511;
    if (Height > SIZE_MAX / pitch)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, pitch * Height, K_DEVICE);
    if (r == CUDA_SUCCESS) {
        *dptr = (CUdeviceptr)p;
        *pPitch = pitch;
    }
    return r;
}

EXPORT CUresult cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize, unsigned int flags)
{
    standin_log("cuMemAllocManaged %zu %u", bytesize, flags);
    if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p;
    CUresult r = ctx_alloc(dptr ? &p : NULL, bytesize, K_MANAGED);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

static CUresult free_device(CUdeviceptr dptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (dptr == 0)
        return CUDA_SUCCESS;
    return do_free((uintptr_t)dptr, K_DEVICE | K_MANAGED | K_V1);
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr dptr)
{
    standin_log("cuMemFree_v2");
    return free_device(dptr);
}
EXPORT CUresult cuMemFree(CUdeviceptr_v1 dptr) { return free_device(dptr); }

/* The context a stream belongs to: the stream's own, else the current one. */
static CUresult stream_ctx(CUstream s, struct sctx **out)
{
    struct sctx *c = live_ctx();
    if (s && s != CU_STREAM_LEGACY && s != CU_STREAM_PER_THREAD) {
        struct sstream *st = (struct sstream *)s;
        if (st->magic != STREAM_MAGIC)
            return CUDA_ERROR_INVALID_HANDLE;
        c = st->ctx;
        pthread_mutex_lock(&g_lock);
        int alive = c->alive;
        pthread_mutex_unlock(&g_lock);
        if (!alive)
            return CUDA_ERROR_CONTEXT_IS_DESTROYED;
    }
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    *out = c;
    return CUDA_SUCCESS;
}

static CUresult alloc_async(CUdeviceptr *dptr, size_t bytesize, struct spool *pool, CUstream s)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dptr)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c;
    CUresult r = stream_ctx(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (pool && pool->magic != POOL_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    /* A pool's memory lives on the pool's device and goes with that
     * device's primary context (cuDevicePrimaryCtxReset), not the stream's. */
    r = do_alloc(&p, bytesize, K_DEVICE, pool ? pool->device : c->device,
                 pool ? &g_dev[pool->device].primary : c);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)p;
    return r;
}

EXPORT CUresult cuMemAllocAsync(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    standin_log("cuMemAllocAsync %zu", bytesize);
    return alloc_async(dptr, bytesize, NULL, hStream);
}

EXPORT CUresult cuMemAllocAsync_ptsz(CUdeviceptr *dptr, size_t bytesize, CUstream hStream)
{
    standin_log("cuMemAllocAsync_ptsz %zu", bytesize);
    return alloc_async(dptr, bytesize, NULL, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync(CUdeviceptr *dptr, size_t bytesize, CUmemoryPool pool,
                                        CUstream hStream)
{
    standin_log("cuMemAllocFromPoolAsync %zu", bytesize);
    if (!pool)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return alloc_async(dptr, bytesize, (struct spool *)pool, hStream);
}

EXPORT CUresult cuMemAllocFromPoolAsync_ptsz(CUdeviceptr *dptr, size_t bytesize,
                                             CUmemoryPool pool, CUstream hStream)
{
    standin_log("cuMemAllocFromPoolAsync_ptsz %zu", bytesize);
    if (!pool)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return alloc_async(dptr, bytesize, (struct spool *)pool, hStream);
}

static CUresult free_async(CUdeviceptr dptr, CUstream s)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c;
    CUresult r = stream_ctx(s, &c);
    if (r != CUDA_SUCCESS)
        return r;
    if (dptr == 0)
        return CUDA_ERROR_INVALID_VALUE;
    return do_free((uintptr_t)dptr, K_DEVICE | K_MANAGED);
}

EXPORT CUresult cuMemFreeAsync(CUdeviceptr dptr, CUstream hStream)
{
    standin_log("cuMemFreeAsync");
    return free_async(dptr, hStream);
}
EXPORT CUresult cuMemFreeAsync_ptsz(CUdeviceptr dptr, CUstream hStream)
{
    standin_log("cuMemFreeAsync_ptsz");
    return free_async(dptr, hStream);
}

EXPORT CUresult cuMemAllocHost_v2(void **pp, size_t bytesize)
{
    standin_log("cuMemAllocHost_v2 %zu", bytesize);
    uintptr_t p;
    CUresult r = ctx_alloc(pp ? &p : NULL, bytesize, K_HOST);
    if (r == CUDA_SUCCESS)
        *pp = (void *)p;
    return r;
}

EXPORT CUresult cuMemHostAlloc(void **pp, size_t bytesize, unsigned int Flags)
{
    standin_log("cuMemHostAlloc %zu %u", bytesize, Flags);
    if (Flags & ~(unsigned)(CU_MEMHOSTALLOC_PORTABLE | CU_MEMHOSTALLOC_DEVICEMAP |
                            CU_MEMHOSTALLOC_WRITECOMBINED))
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t p;
    CUresult r = ctx_alloc(pp ? &p : NULL, bytesize, K_HOST);
    if (r == CUDA_SUCCESS)
        *pp = (void *)p;
    return r;
}

EXPORT CUresult cuMemFreeHost(void *p)
{
    standin_log("cuMemFreeHost");
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return do_free((uintptr_t)p, K_HOST);
}

/* Copies and sets: every kind of memory here is host memory. */
EXPORT CUresult cuMemcpy(CUdeviceptr dst, CUdeviceptr src, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dst || !src) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyHtoD_v2(CUdeviceptr dstDevice, const void *srcHost, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstDevice || !srcHost) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove((void *)(uintptr_t)dstDevice, srcHost, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemcpyDtoH_v2(void *dstHost, CUdeviceptr srcDevice, size_t ByteCount)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if ((!dstHost || !srcDevice) && ByteCount)
        return CUDA_ERROR_INVALID_VALUE;
    if (ByteCount)
        memmove(dstHost, (const void *)(uintptr_t)srcDevice, ByteCount);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemsetD8_v2(CUdeviceptr dstDevice, unsigned char uc, size_t N)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!dstDevice && N)
        return CUDA_ERROR_INVALID_VALUE;
    if (N)
        memset((void *)(uintptr_t)dstDevice, uc, N);
    return CUDA_SUCCESS;
}

/* ---- pools and streams (simple) ---- */

EXPORT CUresult cuDeviceGetDefaultMemPool(CUmemoryPool *pool_out, CUdevice dev)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool_out)
        return CUDA_ERROR_INVALID_VALUE;
    if (dev < 0 || dev >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    *pool_out = (CUmemoryPool)&g_dev[dev].default_pool;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolCreate(CUmemoryPool *pool, const CUmemPoolProps *props)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pool || !props || props->allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        props->location.type != CU_MEM_LOCATION_TYPE_DEVICE)
        return CUDA_ERROR_INVALID_VALUE;
    if (props->location.id < 0 || props->location.id >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct spool *p = calloc(1, sizeof *p);
    if (!p)
        return CUDA_ERROR_OUT_OF_MEMORY;
    p->magic = POOL_MAGIC;
    p->device = props->location.id;
    *pool = (CUmemoryPool)p;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemPoolDestroy(CUmemoryPool pool)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct spool *p = (struct spool *)pool;
    if (!p || p->magic != POOL_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    for (int i = 0; i < g_ndev; i++)
        if (p == &g_dev[i].default_pool)
            return CUDA_ERROR_INVALID_VALUE;
    p->magic = 0;
    free(p);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamCreate(CUstream *phStream, unsigned int Flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phStream || Flags > CU_STREAM_NON_BLOCKING)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c = live_ctx();
    if (!c)
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sstream *s = calloc(1, sizeof *s);
    if (!s)
        return CUDA_ERROR_OUT_OF_MEMORY;
    s->magic = STREAM_MAGIC;
    s->ctx = c;
    *phStream = (CUstream)s;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamDestroy_v2(CUstream hStream)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sstream *s = (struct sstream *)hStream;
    if (!s || hStream == CU_STREAM_LEGACY || hStream == CU_STREAM_PER_THREAD ||
        s->magic != STREAM_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    s->magic = 0;
    free(s);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuStreamSynchronize(CUstream hStream)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct sctx *c;
    return stream_ctx(hStream, &c);
}

EXPORT CUresult cuStreamGetCtx(CUstream hStream, CUcontext *pctx)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pctx)
        return CUDA_ERROR_INVALID_VALUE;
    struct sctx *c;
    CUresult r = stream_ctx(hStream, &c);
    if (r == CUDA_SUCCESS)
        *pctx = (CUcontext)c;
    return r;
}

EXPORT CUresult cuMemPoolTrimTo(CUmemoryPool pool, size_t minBytesToKeep)
{
    (void)minBytesToKeep; /* the stand-in keeps no freed memory in its pools */
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct spool *p = (struct spool *)pool;
    return p && p->magic == POOL_MAGIC ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* ---- pointer attributes ---- */

/* The allocation that contains ADDRESS, lock held. */
static struct salloc *containing_locked(uintptr_t address)
{
    struct salloc *a, *tmp;
    HASH_FIND(hh, g_allocs, &address, sizeof address, a);
    if (a)
        return a;
    HASH_ITER(hh, g_allocs, a, tmp) {
        if (address > a->key && address - a->key < a->bytes && !(a->kind & (K_ARRAY | K_MIPMAP)))
            return a;
    }
    return NULL;
}

EXPORT CUresult cuPointerGetAttribute(void *data, int attribute, CUdeviceptr ptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!data)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)ptr);
    CUresult r = a ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
    if (a && attribute == 1)          /* CU_POINTER_ATTRIBUTE_CONTEXT */
        *(CUcontext *)data = (CUcontext)a->ctx;
    else if (a && attribute == 2)     /* CU_POINTER_ATTRIBUTE_MEMORY_TYPE: host 1, device 2 */
        *(unsigned *)data = a->kind == K_HOST ? 1u : 2u;
    else if (a && attribute == 9)     /* CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL */
        *(int *)data = a->device;
    else if (a)
        r = CUDA_ERROR_NOT_SUPPORTED;
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* ---- virtual memory management ---- */

static int valid_prop(const CUmemAllocationProp *prop)
{
    return prop && prop->type == CU_MEM_ALLOCATION_TYPE_PINNED &&
           prop->location.type == CU_MEM_LOCATION_TYPE_DEVICE && prop->location.id >= 0 &&
           prop->location.id < g_ndev;
}

EXPORT CUresult cuMemGetAllocationGranularity(size_t *granularity, const CUmemAllocationProp *prop,
                                              CUmemAllocationGranularity_flags option)
{
    (void)option;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!granularity || !valid_prop(prop))
        return CUDA_ERROR_INVALID_VALUE;
    *granularity = VMM_GRANULARITY;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemCreate(CUmemGenericAllocationHandle *handle, size_t size,
                            const CUmemAllocationProp *prop, unsigned long long flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle || !valid_prop(prop) || flags != 0 || size == 0 || size % VMM_GRANULARITY)
        return CUDA_ERROR_INVALID_VALUE;
    struct shandle *h = calloc(1, sizeof *h);
    if (!h)
        return CUDA_ERROR_OUT_OF_MEMORY;
    pthread_mutex_lock(&g_lock);
    CUresult r = reserve_capacity_locked(prop->location.id, size);
    if (r == CUDA_SUCCESS) {
        h->key = (uintptr_t)h;
        h->bytes = size;
        h->device = prop->location.id;
        HASH_ADD(hh, g_handles, key, sizeof h->key, h);
    }
    pthread_mutex_unlock(&g_lock);
    if (r != CUDA_SUCCESS) {
        free(h);
        return r;
    }
    *handle = (CUmemGenericAllocationHandle)h->key;
    return CUDA_SUCCESS;
}

/* Caller holds g_lock; h is no longer in g_handles. */
static void handle_gone_locked(struct shandle *h)
{
    return_capacity_locked(h->device, h->bytes);
    free(h);
}

EXPORT CUresult cuMemRelease(CUmemGenericAllocationHandle handle)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t key = (uintptr_t)handle;
    struct shandle *h;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_handles, &key, sizeof key, h);
    if (!h) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    HASH_DEL(g_handles, h);
    h->released = 1;
    if (h->maps == 0) /* else it lives until the last unmap, as in the real driver */
        handle_gone_locked(h);
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAddressReserve(CUdeviceptr *ptr, size_t size, size_t alignment,
                                    CUdeviceptr addr, unsigned long long flags)
{
    (void)addr; /* a hint */
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!ptr || size == 0 || size % VMM_GRANULARITY || flags != 0 ||
        (alignment & (alignment - 1)))
        return CUDA_ERROR_INVALID_VALUE;
    if (alignment < VMM_GRANULARITY)
        alignment = VMM_GRANULARITY;
    size_t span = size + alignment;
    void *m = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (m == MAP_FAILED)
        return CUDA_ERROR_OUT_OF_MEMORY;
    uintptr_t base = ((uintptr_t)m + alignment - 1) & ~(uintptr_t)(alignment - 1);
    if (base > (uintptr_t)m)
        munmap(m, base - (uintptr_t)m);
    uintptr_t end = (uintptr_t)m + span;
    if (end > base + size)
        munmap((void *)(base + size), end - (base + size));
    struct sreserve *r = calloc(1, sizeof *r);
    if (!r) {
        munmap((void *)base, size);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    r->base = base;
    r->size = size;
    pthread_mutex_lock(&g_lock);
    HASH_ADD(hh, g_reserves, base, sizeof r->base, r);
    pthread_mutex_unlock(&g_lock);
    *ptr = (CUdeviceptr)base;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemAddressFree(CUdeviceptr ptr, size_t size)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t base = (uintptr_t)ptr;
    struct sreserve *r;
    struct smap *m, *tmp;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_reserves, &base, sizeof base, r);
    if (!r || r->size != size) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    HASH_ITER(hh, g_maps, m, tmp) {
        if (m->va >= base && m->va < base + size) { /* still mapped */
            pthread_mutex_unlock(&g_lock);
            return CUDA_ERROR_INVALID_VALUE;
        }
    }
    HASH_DEL(g_reserves, r);
    pthread_mutex_unlock(&g_lock);
    munmap((void *)base, size);
    free(r);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemMap(CUdeviceptr ptr, size_t size, size_t offset,
                         CUmemGenericAllocationHandle handle, unsigned long long flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t va = (uintptr_t)ptr, key = (uintptr_t)handle;
    if (offset != 0 || flags != 0 || size == 0 || size % VMM_GRANULARITY)
        return CUDA_ERROR_INVALID_VALUE;
    struct shandle *h;
    struct sreserve *r, *rt;
    struct smap *m, *mt;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_handles, &key, sizeof key, h);
    int inside = 0;
    HASH_ITER(hh, g_reserves, r, rt) {
        if (va >= r->base && va + size <= r->base + r->size)
            inside = 1;
    }
    int overlap = 0;
    HASH_ITER(hh, g_maps, m, mt) {
        if (va < m->va + m->size && m->va < va + size)
            overlap = 1;
    }
    struct smap *nm = NULL;
    if (h && inside && !overlap && size <= h->bytes && (nm = calloc(1, sizeof *nm))) {
        nm->va = va;
        nm->size = size;
        nm->h = h;
        h->maps++;
        HASH_ADD(hh, g_maps, va, sizeof nm->va, nm);
    }
    pthread_mutex_unlock(&g_lock);
    if (!nm)
        return h && inside && !overlap && size <= h->bytes ? CUDA_ERROR_OUT_OF_MEMORY
                                                            : CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemSetAccess(CUdeviceptr ptr, size_t size, const CUmemAccessDesc *desc,
                               size_t count)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!desc || count == 0 || size == 0)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t va = (uintptr_t)ptr;
    size_t covered = 0;
    struct smap *m, *mt;
    pthread_mutex_lock(&g_lock);
    HASH_ITER(hh, g_maps, m, mt) {
        if (m->va >= va && m->va + m->size <= va + size)
            covered += m->size;
    }
    pthread_mutex_unlock(&g_lock);
    if (covered != size)
        return CUDA_ERROR_INVALID_VALUE;
    int prot = desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READWRITE ? PROT_READ | PROT_WRITE
               : desc->flags == CU_MEM_ACCESS_FLAGS_PROT_READ  ? PROT_READ
                                                              : PROT_NONE;
    mprotect((void *)va, size, prot);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemUnmap(CUdeviceptr ptr, size_t size)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t va = (uintptr_t)ptr;
    struct smap *m, *mt;
    int found = 0, partial = 0;
    pthread_mutex_lock(&g_lock);
    HASH_ITER(hh, g_maps, m, mt) {
        int inside = m->va >= va && m->va + m->size <= va + size;
        int overlaps = va < m->va + m->size && m->va < va + size;
        if (inside)
            found = 1;
        else if (overlaps)
            partial = 1;
    }
    if (!found || partial) {
        pthread_mutex_unlock(&g_lock);
        return CUDA_ERROR_INVALID_VALUE;
    }
    HASH_ITER(hh, g_maps, m, mt) {
        if (m->va >= va && m->va + m->size <= va + size) {
            HASH_DEL(g_maps, m);
            mprotect((void *)m->va, m->size, PROT_NONE);
            madvise((void *)m->va, m->size, MADV_DONTNEED);
            struct shandle *h = m->h;
            if (--h->maps == 0 && h->released)
                handle_gone_locked(h);
            free(m);
        }
    }
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

/* ---- arrays ---- */

static size_t format_size(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT:
        return 4;
    default: return 0;
    }
}

static CUresult array_create(CUarray *pHandle, size_t w, size_t h, size_t d, CUarray_format f,
                             unsigned channels)
{
    size_t es = format_size(f);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pHandle || w == 0 || es == 0 || (channels != 1 && channels != 2 && channels != 4))
        return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = w * (h ? h : 1) * (d ? d : 1) * channels * es;
    uintptr_t p;
    CUresult r = ctx_alloc(&p, bytes, K_ARRAY);
    if (r == CUDA_SUCCESS)
        *pHandle = (CUarray)p;
    return r;
}

EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    if (!desc)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return array_create(pHandle, desc->Width, desc->Height, 1, desc->Format, desc->NumChannels);
}

EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    if (!desc)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return array_create(pHandle, desc->Width, desc->Height, desc->Depth, desc->Format,
                        desc->NumChannels);
}

EXPORT CUresult cuArrayDestroy(CUarray hArray)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return do_free((uintptr_t)hArray, K_ARRAY);
}

/* Every level halves each dimension (down to 1), as the real driver lays
 * them out; the size is the sum of the levels. */
EXPORT CUresult cuMipmappedArrayCreate(CUmipmappedArray *pHandle,
                                       const CUDA_ARRAY3D_DESCRIPTOR *desc, unsigned int levels)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    size_t es = desc ? format_size(desc->Format) : 0;
    if (!pHandle || !desc || desc->Width == 0 || es == 0 || levels == 0 ||
        (desc->NumChannels != 1 && desc->NumChannels != 2 && desc->NumChannels != 4))
        return CUDA_ERROR_INVALID_VALUE;
    size_t bytes = 0, w = desc->Width, h = desc->Height, d = desc->Depth;
    for (unsigned i = 0; i < levels; i++) {
        bytes += w * (h ? h : 1) * (d ? d : 1) * desc->NumChannels * es;
        w = w > 1 ? w / 2 : 1;
        h = h > 1 ? h / 2 : h;
        d = d > 1 ? d / 2 : d;
    }
    uintptr_t p;
    CUresult r = ctx_alloc(&p, bytes, K_MIPMAP);
    if (r == CUDA_SUCCESS)
        *pHandle = (CUmipmappedArray)p;
    return r;
}

EXPORT CUresult cuMipmappedArrayDestroy(CUmipmappedArray hMipmappedArray)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    return do_free((uintptr_t)hMipmappedArray, K_MIPMAP);
}

/* ---- cuGetProcAddress ---- */

static CUresult get_proc_address(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags, CUdriverProcAddressQueryResult *status);

EXPORT CUresult cuGetProcAddress(const char *symbol, void **pfn, int cudaVersion, cuuint64_t flags)
{
    standin_log("cuGetProcAddress %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    return get_proc_address(symbol, pfn, cudaVersion, flags, NULL);
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int cudaVersion,
                                    cuuint64_t flags, CUdriverProcAddressQueryResult *symbolStatus)
{
    standin_log("cuGetProcAddress_v2 %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}

/* What code built with --default-stream per-thread calls: the default
 * flags mean the per-thread default stream variants. */
EXPORT CUresult cuGetProcAddress_v2_ptsz(const char *symbol, void **pfn, int cudaVersion,
                                         cuuint64_t flags,
                                         CUdriverProcAddressQueryResult *symbolStatus)
{
    standin_log("cuGetProcAddress_v2_ptsz %s %d %llu", symbol ? symbol : "(null)", cudaVersion,
                (unsigned long long)flags);
    if (flags == CU_GET_PROC_ADDRESS_DEFAULT)
        flags = CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM;
    return get_proc_address(symbol, pfn, cudaVersion, flags, symbolStatus);
}

struct proc {
    const char *name;
    int version; /* the lowest cudaVersion that gets this entry */
    void *fn;
    void *fn_ptsz;
};

/* Addresses of the exported functions themselves: with -Bsymbolic-functions
 * these bind inside this library, so dladdr() names exactly these symbols
 * even when a preloaded library exports the same names. */
#define P(name, ver, fn) {name, ver, (void *)fn, NULL}
#define PZ(name, ver, fn) {name, ver, (void *)fn, (void *)fn##_ptsz}
static const struct proc procs[] = {
    P("cuInit", 2000, cuInit),
    P("cuDriverGetVersion", 2020, cuDriverGetVersion),
    P("cuDeviceGet", 2000, cuDeviceGet),
    P("cuDeviceGetCount", 2000, cuDeviceGetCount),
    P("cuDeviceGetName", 2000, cuDeviceGetName),
    P("cuDeviceGetPCIBusId", 4010, cuDeviceGetPCIBusId),
    P("cuDeviceTotalMem", 3020, cuDeviceTotalMem_v2),
    P("cuDeviceGetUuid", 9020, cuDeviceGetUuid),
    P("cuDeviceGetUuid", 11040, cuDeviceGetUuid_v2),
    P("cuGetErrorString", 6000, cuGetErrorString),
    P("cuGetErrorName", 6000, cuGetErrorName),
    P("cuCtxCreate", 3020, cuCtxCreate_v2),
    P("cuCtxCreate", 12050, cuCtxCreate_v4),
    P("cuCtxDestroy", 4000, cuCtxDestroy_v2),
    P("cuCtxGetCurrent", 4000, cuCtxGetCurrent),
    P("cuCtxSetCurrent", 4000, cuCtxSetCurrent),
    P("cuCtxPushCurrent", 4000, cuCtxPushCurrent_v2),
    P("cuCtxPopCurrent", 4000, cuCtxPopCurrent_v2),
    P("cuCtxGetDevice", 2000, cuCtxGetDevice),
    P("cuCtxGetDevice", 13000, cuCtxGetDevice_v2),
    P("cuCtxSynchronize", 2000, cuCtxSynchronize),
    P("cuCtxSynchronize", 13000, cuCtxSynchronize_v2),
    P("cuCtxGetApiVersion", 3020, cuCtxGetApiVersion),
    P("cuDeviceGetAttribute", 2000, cuDeviceGetAttribute),
    P("cuDevicePrimaryCtxRetain", 7000, cuDevicePrimaryCtxRetain),
    P("cuDevicePrimaryCtxRelease", 7000, cuDevicePrimaryCtxRelease),
    P("cuDevicePrimaryCtxRelease", 11000, cuDevicePrimaryCtxRelease_v2),
    P("cuDevicePrimaryCtxReset", 7000, cuDevicePrimaryCtxReset),
    P("cuDevicePrimaryCtxReset", 11000, cuDevicePrimaryCtxReset_v2),
    P("cuDevicePrimaryCtxGetState", 7000, cuDevicePrimaryCtxGetState),
    P("cuMemGetInfo", 3020, cuMemGetInfo_v2),
    P("cuMemAlloc", 2000, cuMemAlloc),
    P("cuMemAlloc", 3020, cuMemAlloc_v2),
    P("cuMemAllocPitch", 3020, cuMemAllocPitch_v2),
    P("cuMemAllocManaged", 6000, cuMemAllocManaged),
    P("cuMemFree", 2000, cuMemFree),
    P("cuMemFree", 3020, cuMemFree_v2),
    PZ("cuMemAllocAsync", 11020, cuMemAllocAsync),
    PZ("cuMemAllocFromPoolAsync", 11020, cuMemAllocFromPoolAsync),
    PZ("cuMemFreeAsync", 11020, cuMemFreeAsync),
    P("cuMemAllocHost", 3020, cuMemAllocHost_v2),
    P("cuMemHostAlloc", 2020, cuMemHostAlloc),
    P("cuMemFreeHost", 2000, cuMemFreeHost),
    P("cuMemcpy", 4000, cuMemcpy),
    P("cuMemcpyHtoD", 3020, cuMemcpyHtoD_v2),
    P("cuMemcpyDtoH", 3020, cuMemcpyDtoH_v2),
    P("cuMemsetD8", 3020, cuMemsetD8_v2),
    P("cuDeviceGetDefaultMemPool", 11020, cuDeviceGetDefaultMemPool),
    P("cuMemPoolCreate", 11020, cuMemPoolCreate),
    P("cuMemPoolDestroy", 11020, cuMemPoolDestroy),
    P("cuMemPoolTrimTo", 11020, cuMemPoolTrimTo),
    P("cuStreamGetCtx", 9020, cuStreamGetCtx),
    P("cuPointerGetAttribute", 4000, cuPointerGetAttribute),
    P("cuStreamCreate", 2000, cuStreamCreate),
    P("cuStreamDestroy", 4000, cuStreamDestroy_v2),
    P("cuStreamSynchronize", 2000, cuStreamSynchronize),
    P("cuMemAddressReserve", 10020, cuMemAddressReserve),
    P("cuMemAddressFree", 10020, cuMemAddressFree),
    P("cuMemCreate", 10020, cuMemCreate),
    P("cuMemRelease", 10020, cuMemRelease),
    P("cuMemMap", 10020, cuMemMap),
    P("cuMemUnmap", 10020, cuMemUnmap),
    P("cuMemSetAccess", 10020, cuMemSetAccess),
    P("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity),
    P("cuArrayCreate", 3020, cuArrayCreate_v2),
    P("cuArray3DCreate", 3020, cuArray3DCreate_v2),
    P("cuArrayDestroy", 2000, cuArrayDestroy),
    P("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate),
    P("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy),
    P("cuGetProcAddress", 11030, cuGetProcAddress),
    P("cuGetProcAddress", 12000, cuGetProcAddress_v2),
};
#undef P
#undef PZ

/* STANDIN_CUDA_HIDE=NAME,NAME...: entry points this driver does not have
 * (an older driver). */
static int hidden(const char *symbol)
{
    const char *list = getenv("STANDIN_CUDA_HIDE");
    size_t n = strlen(symbol);
    for (const char *p = list; p && *p && n;) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len == n && !strncmp(p, symbol, n))
            return 1;
        p = end ? end + 1 : NULL;
    }
    return 0;
}

/* STANDIN_CUDA_HIDDEN_ENTRY_POINTS: an unnamed entry point for FN, made
 * once: "movabs $fn, %rax; jmp *%rax" (x86_64) in an anonymous mapping. */
static void *hidden_entry_point(void *fn)
{
    enum { STUB = 16, STUBS = 4096 / STUB };
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static unsigned char *page;
    static void *targets[STUBS];
    static int used;
    void *entry = NULL;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < used && !entry; i++)
        if (targets[i] == fn)
            entry = page + i * STUB;
    if (!entry && !page) {
        page = mmap(NULL, 4096, PROT_READ | PROT_WRITE | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS,
                    -1, 0);
        if (page == MAP_FAILED)
            page = NULL;
    }
    if (!entry && page && used < STUBS) {
        unsigned char *stub = page + used * STUB;
        stub[0] = 0x48, stub[1] = 0xb8; /* movabs imm64, %rax */
        memcpy(stub + 2, &fn, sizeof fn);
        stub[10] = 0xff, stub[11] = 0xe0; /* jmp *%rax */
        targets[used++] = fn;
        entry = stub;
    }
    pthread_mutex_unlock(&lock);
    return entry ? entry : fn;
}

static int hidden_entry_points(void)
{
    const char *v = getenv("STANDIN_CUDA_HIDDEN_ENTRY_POINTS");
    return v && !strcmp(v, "1");
}

static CUresult get_proc_address(const char *symbol, void **pfn, int cudaVersion,
                                 cuuint64_t flags, CUdriverProcAddressQueryResult *status)
{
    if (!symbol || !pfn)
        return CUDA_ERROR_INVALID_VALUE;
    if (hidden(symbol)) {
        *pfn = NULL;
        if (status)
            *status = CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    const struct proc *best = NULL;
    int named = 0;
    for (size_t i = 0; i < sizeof procs / sizeof procs[0]; i++) {
        if (strcmp(procs[i].name, symbol) != 0)
            continue;
        named = 1;
        if (procs[i].version <= cudaVersion && (!best || procs[i].version > best->version))
            best = &procs[i];
    }
    if (!best) {
        *pfn = NULL;
        if (status)
            *status = named ? CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT
                            : CU_GET_PROC_ADDRESS_SYMBOL_NOT_FOUND;
        return CUDA_ERROR_NOT_FOUND;
    }
    *pfn = (flags & CU_GET_PROC_ADDRESS_PER_THREAD_DEFAULT_STREAM) && best->fn_ptsz
               ? best->fn_ptsz
               : best->fn;
    if (hidden_entry_points())
        *pfn = hidden_entry_point(*pfn);
    if (status)
        *status = CU_GET_PROC_ADDRESS_SUCCESS;
    return CUDA_SUCCESS;
}
/* SPDX-License-Identifier: MIT */
