/* SPDX-License-Identifier: MIT */
/* Texture objects: a view of an array, a mipmapped array, or linear or
 * pitched memory that is live when the texture is made. A texture holds
 * no memory of its own: it is a number that names its resource. */
#include "driver_internal.h"

#include <stdlib.h>

struct stex {
    CUtexObject id;
    CUDA_RESOURCE_DESC resource;
    UT_hash_handle hh;
};

static struct stex *g_textures;
static CUtexObject g_next_texture = 1;

/* The live allocation of one of KINDS that holds [address, address + bytes). */
static int holds_locked(uintptr_t address, size_t bytes, int kinds)
{
    struct salloc *a = containing_locked(address);
    return a && (a->kind & kinds) && address - a->key + bytes <= a->bytes;
}

static int resource_live_locked(const CUDA_RESOURCE_DESC *r)
{
    const int memory = K_DEVICE | K_MANAGED | K_HOST;
    switch (r->resType) {
    case CU_RESOURCE_TYPE_ARRAY:
        return holds_locked((uintptr_t)r->res.array.hArray, 1, K_ARRAY); /* by handle only */
    case CU_RESOURCE_TYPE_MIPMAPPED_ARRAY:
        return holds_locked((uintptr_t)r->res.mipmap.hMipmappedArray, 1, K_MIPMAP);
    case CU_RESOURCE_TYPE_LINEAR:
        return r->res.linear.sizeInBytes &&
               holds_locked(r->res.linear.devPtr, r->res.linear.sizeInBytes, memory);
    case CU_RESOURCE_TYPE_PITCH2D: {
        size_t row = r->res.pitch2D.width * r->res.pitch2D.numChannels *
                     array_format_bytes(r->res.pitch2D.format);
        return row && r->res.pitch2D.height && row <= r->res.pitch2D.pitchInBytes &&
               holds_locked(r->res.pitch2D.devPtr,
                            (r->res.pitch2D.height - 1) * r->res.pitch2D.pitchInBytes + row,
                            memory);
    }
    }
    return 0;
}

EXPORT CUresult cuTexObjectCreate(CUtexObject *pTexObject, const CUDA_RESOURCE_DESC *pResDesc,
                                  const CUDA_TEXTURE_DESC *pTexDesc,
                                  const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
    (void)pResViewDesc; /* a view reinterprets the resource: nothing to check here */
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!live_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!pTexObject || !pResDesc || !pTexDesc || pResDesc->flags)
        return CUDA_ERROR_INVALID_VALUE;
    struct stex *t = calloc(1, sizeof *t);
    if (!t)
        return CUDA_ERROR_OUT_OF_MEMORY;
    t->resource = *pResDesc;
    pthread_mutex_lock(&g_lock);
    int live = resource_live_locked(pResDesc);
    if (live) {
        t->id = g_next_texture++;
        HASH_ADD(hh, g_textures, id, sizeof t->id, t);
        *pTexObject = t->id;
    }
    pthread_mutex_unlock(&g_lock);
    if (!live)
        free(t);
    return live ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuTexObjectDestroy(CUtexObject texObject)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    struct stex *t;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_textures, &texObject, sizeof texObject, t);
    if (t)
        HASH_DEL(g_textures, t);
    pthread_mutex_unlock(&g_lock);
    free(t);
    return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

EXPORT CUresult cuTexObjectGetResourceDesc(CUDA_RESOURCE_DESC *pResDesc, CUtexObject texObject)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pResDesc)
        return CUDA_ERROR_INVALID_VALUE;
    struct stex *t;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_textures, &texObject, sizeof texObject, t);
    if (t)
        *pResDesc = t->resource;
    pthread_mutex_unlock(&g_lock);
    return t ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuTexObjectCreate", 5000, cuTexObjectCreate)
PROC("cuTexObjectDestroy", 5000, cuTexObjectDestroy)
PROC("cuTexObjectGetResourceDesc", 5000, cuTexObjectGetResourceDesc)
