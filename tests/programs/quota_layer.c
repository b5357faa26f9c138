/* SPDX-License-Identifier: MIT */
/* A GPU-sharing layer as HAMi-core's libvgpu.so is one: it exports its own
 * dlsym, which hands out its own cuGetProcAddress (and that its own
 * cuMemAlloc_v2, cuMemFree_v2, cuMemGetInfo_v2) and forwards every other
 * name to the dlsym after it; it reaches the driver through that dlsym too.
 * It holds the process to QUOTA_BYTES of device memory: an allocation past
 * it fails with CUDA_ERROR_OUT_OF_MEMORY, and cuMemGetInfo reports the quota
 * as the device's total. Preloaded before or after the tracer
 * (tests/test_hazards.py): the quota must hold either way. */
#include <cuda.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define EXPORT __attribute__((visibility("default")))
#define MAX_LIVE 256

typedef void *(*dlsym_fn)(void *, const char *);
typedef CUresult (*get_proc_fn)(const char *, void **, int, cuuint64_t,
                                CUdriverProcAddressQueryResult *);
typedef CUresult (*alloc_fn)(CUdeviceptr *, size_t);
typedef CUresult (*free_fn)(CUdeviceptr);
typedef CUresult (*info_fn)(size_t *, size_t *);

static struct {
    dlsym_fn dlsym;
    get_proc_fn get_proc;
    alloc_fn alloc;
    free_fn free;
    info_fn info;
} next;
static pthread_once_t dlsym_once = PTHREAD_ONCE_INIT, driver_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static size_t used;
static struct {
    CUdeviceptr ptr;
    size_t size;
} live[MAX_LIVE];

/* As HAMi-core: the dlsym after this one (a preloaded sanitizer runtime
 * calls dlsym while it starts, before dlopen works: only dlvsym here)... */
static void find_next_dlsym(void)
{
    next.dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.34");
    if (!next.dlsym)
        next.dlsym = (dlsym_fn)dlvsym(RTLD_NEXT, "dlsym", "GLIBC_2.2.5");
    if (!next.dlsym)
        abort();
}

/* ...then, at the first CUDA call, the driver through it. */
static void find_driver(void)
{
    void *driver;
    pthread_once(&dlsym_once, find_next_dlsym);
    driver = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!driver)
        abort();
    next.get_proc = (get_proc_fn)next.dlsym(driver, "cuGetProcAddress_v2");
    next.alloc = (alloc_fn)next.dlsym(driver, "cuMemAlloc_v2");
    next.free = (free_fn)next.dlsym(driver, "cuMemFree_v2");
    next.info = (info_fn)next.dlsym(driver, "cuMemGetInfo_v2");
    if (!next.get_proc || !next.alloc || !next.free || !next.info)
        abort();
}

static size_t quota(void)
{
    const char *q = getenv("QUOTA_BYTES");
    return q ? strtoull(q, NULL, 0) : (size_t)-1;
}

EXPORT CUresult cuMemAlloc_v2(CUdeviceptr *ptr, size_t size)
{
    CUresult r = CUDA_ERROR_OUT_OF_MEMORY;
    pthread_once(&driver_once, find_driver);
    pthread_mutex_lock(&lock);
    for (int i = 0; i < MAX_LIVE && used + size <= quota(); i++)
        if (!live[i].ptr) {
            r = next.alloc(ptr, size);
            if (r == CUDA_SUCCESS) {
                live[i].ptr = *ptr;
                live[i].size = size;
                used += size;
            }
            break;
        }
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT CUresult cuMemFree_v2(CUdeviceptr ptr)
{
    CUresult r;
    pthread_once(&driver_once, find_driver);
    r = next.free(ptr);
    pthread_mutex_lock(&lock);
    for (int i = 0; r == CUDA_SUCCESS && ptr && i < MAX_LIVE; i++)
        if (live[i].ptr == ptr) {
            used -= live[i].size;
            live[i].ptr = 0;
            break;
        }
    pthread_mutex_unlock(&lock);
    return r;
}

EXPORT CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total)
{
    pthread_once(&driver_once, find_driver);
    pthread_mutex_lock(&lock);
    *total = quota();
    *free_bytes = *total - used;
    pthread_mutex_unlock(&lock);
    return CUDA_SUCCESS;
}

/* strcmp(a, b) == 0 calling nothing: a sanitizer runtime starting up calls
 * dlsym before its own strcmp interceptor can. */
static int same(const char *a, const char *b)
{
    while (*a && *a == *b)
        a++, b++;
    return *a == *b;
}

/* This layer's own functions for the names it holds to the quota. */
static void *own(const char *name)
{
    static const struct {
        const char *name;
        void *fn;
    } held[] = {{"cuMemAlloc", (void *)cuMemAlloc_v2},     {"cuMemAlloc_v2", (void *)cuMemAlloc_v2},
                {"cuMemFree", (void *)cuMemFree_v2},       {"cuMemFree_v2", (void *)cuMemFree_v2},
                {"cuMemGetInfo", (void *)cuMemGetInfo_v2}, {"cuMemGetInfo_v2", (void *)cuMemGetInfo_v2}};
    for (size_t i = 0; i < sizeof held / sizeof held[0]; i++)
        if (same(held[i].name, name))
            return held[i].fn;
    return NULL;
}

EXPORT CUresult cuGetProcAddress_v2(const char *symbol, void **pfn, int version, cuuint64_t flags,
                                    CUdriverProcAddressQueryResult *status)
{
    CUresult r;
    pthread_once(&driver_once, find_driver);
    r = next.get_proc(symbol, pfn, version, flags, status);
    if (r == CUDA_SUCCESS && pfn && *pfn && own(symbol))
        *pfn = own(symbol);
    if (r == CUDA_SUCCESS && pfn && *pfn && !strcmp(symbol, "cuGetProcAddress") && version >= 12000)
        *pfn = (void *)cuGetProcAddress_v2;
    return r;
}

EXPORT void *dlsym(void *handle, const char *name)
{
    pthread_once(&dlsym_once, find_next_dlsym);
    if (same(name, "cuGetProcAddress_v2"))
        return (void *)cuGetProcAddress_v2;
    if (own(name))
        return own(name);
    return next.dlsym(handle, name);
}
