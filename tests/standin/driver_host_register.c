/* SPDX-License-Identifier: MIT */
/* Page-locking memory the program allocated itself (cuMemHostRegister):
 * ranges registered until unregistered, by their start; a range that
 * overlaps one registered already is refused, as is the unregistration of
 * an address that starts none. Registered memory takes none of the GPU's. */
#include "driver_internal.h"

#include <stdlib.h>

#define HOST_REGISTER_FLAGS 0x0fu /* PORTABLE, DEVICEMAP, IOMEMORY, READ_ONLY */

struct sregistered {
    uintptr_t start;
    size_t bytes;
    UT_hash_handle hh;
};

static struct sregistered *g_registered; /* by start */

/* Lock held. */
static int overlaps_locked(uintptr_t start, size_t bytes)
{
    struct sregistered *r, *tmp;
    HASH_ITER(hh, g_registered, r, tmp) {
        if (start < r->start + r->bytes && r->start < start + bytes)
            return 1;
    }
    return 0;
}

EXPORT CUresult cuMemHostRegister_v2(void *p, size_t bytesize, unsigned int Flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!p || bytesize == 0 || (Flags & ~HOST_REGISTER_FLAGS))
        return CUDA_ERROR_INVALID_VALUE;
    if (!live_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct sregistered *r = calloc(1, sizeof *r);
    if (!r)
        return CUDA_ERROR_OUT_OF_MEMORY;
    r->start = (uintptr_t)p;
    r->bytes = bytesize;
    pthread_mutex_lock(&g_lock);
    int taken = overlaps_locked(r->start, r->bytes);
    if (!taken)
        HASH_ADD(hh, g_registered, start, sizeof r->start, r);
    pthread_mutex_unlock(&g_lock);
    if (taken) {
        free(r);
        return CUDA_ERROR_HOST_MEMORY_ALREADY_REGISTERED;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemHostUnregister(void *p)
{
    uintptr_t start = (uintptr_t)p;
    struct sregistered *r;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_registered, &start, sizeof start, r);
    if (r)
        HASH_DEL(g_registered, r);
    pthread_mutex_unlock(&g_lock);
    if (!r)
        return CUDA_ERROR_HOST_MEMORY_NOT_REGISTERED;
    free(r);
    return CUDA_SUCCESS;
}

/* Page-locked memory (allocated or registered) has one address for host
 * and device (unified addressing); other memory has none on the device. */
EXPORT CUresult cuMemHostGetDevicePointer_v2(CUdeviceptr *pdptr, void *p, unsigned int Flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pdptr || !p || Flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)p);
    int locked = (a && a->kind == K_HOST) || overlaps_locked((uintptr_t)p, 1);
    pthread_mutex_unlock(&g_lock);
    if (!locked)
        return CUDA_ERROR_INVALID_VALUE;
    *pdptr = (CUdeviceptr)(uintptr_t)p;
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemHostRegister", 6050, cuMemHostRegister_v2)
PROC("cuMemHostUnregister", 4000, cuMemHostUnregister)
PROC("cuMemHostGetDevicePointer", 3020, cuMemHostGetDevicePointer_v2)
