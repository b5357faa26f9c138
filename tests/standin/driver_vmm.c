/* Virtual memory management: cuMemCreate handles that live until released
 * and unmapped, address reservations, mappings and their access. */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

struct sreserve {
    uintptr_t base;
    size_t size;
    UT_hash_handle hh;
};

struct shandle { /* a cuMemCreate allocation */
    uintptr_t key;
    size_t bytes;
    int device;
    int released;
    int refs; /* cuMemCreate's and each cuMemRetainAllocationHandle's */
    int maps;
    UT_hash_handle hh;
};

struct smap {
    uintptr_t va;
    size_t size;
    struct shandle *h;
    UT_hash_handle hh;
};

static struct shandle *g_handles;
static struct sreserve *g_reserves;
static struct smap *g_maps;

/* The device whose memory PROP asks for, -1 for host memory, -2 when the
 * properties are invalid. */
static int prop_device(const CUmemAllocationProp *prop)
{
    if (!prop || prop->type != CU_MEM_ALLOCATION_TYPE_PINNED)
        return -2;
    int type = (int)prop->location.type, device = location_device(&prop->location);
    return type == CU_MEM_LOCATION_TYPE_DEVICE || device != -1 ? device : -1;
}

static int valid_prop(const CUmemAllocationProp *prop)
{
    return prop_device(prop) != -2;
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
    int device = prop_device(prop); /* -1: host memory, none of a GPU's */
    pthread_mutex_lock(&g_lock);
    CUresult r = device >= 0 ? reserve_capacity_locked(device, size) : CUDA_SUCCESS;
    if (r == CUDA_SUCCESS) {
        h->key = (uintptr_t)h;
        h->bytes = size;
        h->device = device;
        h->refs = 1;
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
    if (h->device >= 0)
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
    if (--h->refs > 0) { /* retained: another release lets it go */
        pthread_mutex_unlock(&g_lock);
        return CUDA_SUCCESS;
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

/* The mapping that holds ADDRESS, lock held. */
static struct smap *mapping_locked(uintptr_t address)
{
    struct smap *m, *mt;
    HASH_ITER(hh, g_maps, m, mt) {
        if (address >= m->va && address - m->va < m->size)
            return m;
    }
    return NULL;
}

/* The device of the mapping that holds ADDRESS: -1 for host memory, -2
 * when no mapping holds it. */
int vmm_mapped_device(uintptr_t address)
{
    pthread_mutex_lock(&g_lock);
    struct smap *m = mapping_locked(address);
    int device = m ? m->h->device : -2;
    pthread_mutex_unlock(&g_lock);
    return device;
}

/* The handle mapped at ADDR, with a reference the caller releases. */
EXPORT CUresult cuMemRetainAllocationHandle(CUmemGenericAllocationHandle *handle, void *addr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct smap *m = mapping_locked((uintptr_t)addr);
    if (m && m->h->released) { /* released but still mapped: handed out again */
        m->h->released = 0;
        HASH_ADD(hh, g_handles, key, sizeof m->h->key, m->h);
    }
    if (m) {
        m->h->refs++;
        *handle = (CUmemGenericAllocationHandle)m->h->key;
    }
    pthread_mutex_unlock(&g_lock);
    return m ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuMemGetAllocationPropertiesFromHandle(CUmemAllocationProp *prop,
                                                       CUmemGenericAllocationHandle handle)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t key = (uintptr_t)handle;
    struct shandle *h;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_handles, &key, sizeof key, h);
    if (h && prop) {
        memset(prop, 0, sizeof *prop);
        prop->type = CU_MEM_ALLOCATION_TYPE_PINNED;
        prop->location.type = h->device >= 0 ? CU_MEM_LOCATION_TYPE_DEVICE : CU_MEM_LOCATION_TYPE_HOST;
        prop->location.id = h->device >= 0 ? h->device : 0;
        prop->requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    }
    pthread_mutex_unlock(&g_lock);
    return h && prop ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* A POSIX file descriptor for HANDLE: a memory file naming the handle and
 * the process that exported it. The stand-in GPUs' memory is each process's
 * own, so only the exporting process can import it (others: not
 * supported). */
struct shareable {
    uint64_t key;
    int pid;
};

EXPORT CUresult cuMemExportToShareableHandle(void *shareableHandle,
                                             CUmemGenericAllocationHandle handle,
                                             CUmemAllocationHandleType handleType,
                                             unsigned long long flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!shareableHandle || flags)
        return CUDA_ERROR_INVALID_VALUE;
    if (handleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    uintptr_t key = (uintptr_t)handle;
    struct shandle *h;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_handles, &key, sizeof key, h);
    pthread_mutex_unlock(&g_lock);
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    struct shareable sh = {key, getpid()};
    int fd = memfd_create("standin-cuda-handle", MFD_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (write(fd, &sh, sizeof sh) != (ssize_t)sizeof sh) {
        close(fd);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    *(int *)shareableHandle = fd;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuMemImportFromShareableHandle(CUmemGenericAllocationHandle *handle, void *osHandle,
                                               CUmemAllocationHandleType shHandleType)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!handle)
        return CUDA_ERROR_INVALID_VALUE;
    if (shHandleType != CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR)
        return CUDA_ERROR_NOT_SUPPORTED;
    struct shareable sh;
    if (pread((int)(intptr_t)osHandle, &sh, sizeof sh, 0) != (ssize_t)sizeof sh)
        return CUDA_ERROR_INVALID_VALUE;
    if (sh.pid != getpid())
        return CUDA_ERROR_NOT_SUPPORTED;
    uintptr_t key = (uintptr_t)sh.key;
    struct shandle *h;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_handles, &key, sizeof key, h);
    if (h)
        h->refs++;
    pthread_mutex_unlock(&g_lock);
    if (!h)
        return CUDA_ERROR_INVALID_VALUE;
    *handle = (CUmemGenericAllocationHandle)key;
    return CUDA_SUCCESS;
}

/* Multicast objects: the stand-in GPUs have no NVLink switch
 * (CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED is 0). */
EXPORT CUresult cuMulticastCreate(CUmemGenericAllocationHandle *mcHandle, const void *prop)
{
    (void)mcHandle, (void)prop;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuMemAddressReserve", 10020, cuMemAddressReserve)
PROC("cuMemAddressFree", 10020, cuMemAddressFree)
PROC("cuMemCreate", 10020, cuMemCreate)
PROC("cuMemRelease", 10020, cuMemRelease)
PROC("cuMemMap", 10020, cuMemMap)
PROC("cuMemUnmap", 10020, cuMemUnmap)
PROC("cuMemSetAccess", 10020, cuMemSetAccess)
PROC("cuMemGetAllocationGranularity", 10020, cuMemGetAllocationGranularity)
PROC("cuMemRetainAllocationHandle", 11000, cuMemRetainAllocationHandle)
PROC("cuMemGetAllocationPropertiesFromHandle", 10020, cuMemGetAllocationPropertiesFromHandle)
PROC("cuMemExportToShareableHandle", 10020, cuMemExportToShareableHandle)
PROC("cuMemImportFromShareableHandle", 10020, cuMemImportFromShareableHandle)
PROC("cuMulticastCreate", 12010, cuMulticastCreate)
/* SPDX-License-Identifier: MIT */
