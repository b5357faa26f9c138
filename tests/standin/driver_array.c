/* CUDA arrays and mipmapped arrays: their bytes from format, channels and
 * extent (every mipmap level halves each dimension); block-compressed
 * formats by blocks of 4x4 texels, NV12 as its two planes. */
#include "driver_internal.h"

/* Block-compressed formats: bytes per block of 4x4 texels (0: not one). */
static size_t block_size(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_BC1_UNORM: case CU_AD_FORMAT_BC1_UNORM_SRGB:
    case CU_AD_FORMAT_BC4_UNORM: case CU_AD_FORMAT_BC4_SNORM:
        return 8;
    case CU_AD_FORMAT_BC2_UNORM: case CU_AD_FORMAT_BC2_UNORM_SRGB: case CU_AD_FORMAT_BC3_UNORM:
    case CU_AD_FORMAT_BC3_UNORM_SRGB: case CU_AD_FORMAT_BC5_UNORM: case CU_AD_FORMAT_BC5_SNORM:
    case CU_AD_FORMAT_BC6H_UF16: case CU_AD_FORMAT_BC6H_SF16: case CU_AD_FORMAT_BC7_UNORM:
    case CU_AD_FORMAT_BC7_UNORM_SRGB:
        return 16;
    default: return 0;
    }
}

/* The bytes of an array of W x H x D texels of format F (0: a format or
 * channel count this driver refuses). */
static size_t array_bytes(size_t w, size_t h, size_t d, CUarray_format f, unsigned channels)
{
    h = h ? h : 1;
    d = d ? d : 1;
    if (block_size(f))
        return channels >= 1 && channels <= 4 ? ((w + 3) / 4) * ((h + 3) / 4) * d * block_size(f)
                                              : 0;
    if (f == CU_AD_FORMAT_NV12) /* two planes: luma, then chroma at half height */
        return channels == 3 && h % 2 == 0 ? w * h * d * 3 / 2 : 0;
    if (channels != 1 && channels != 2 && channels != 4)
        return 0;
    return w * h * d * channels * array_format_bytes(f);
}

/* Creates an array of DESC (a 1D or 2D one: Height or Depth 0). */
static CUresult array_create(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    size_t bytes = desc->Width ? array_bytes(desc->Width, desc->Height, desc->Depth, desc->Format,
                                             desc->NumChannels)
                               : 0;
    if (!pHandle || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    uintptr_t p;
    CUresult r = ctx_alloc(&p, bytes, K_ARRAY);
    if (r != CUDA_SUCCESS)
        return r;
    /* for copies into and out of it (driver_copy2d.c) and its descriptor */
    pthread_mutex_lock(&g_lock);
    containing_locked(p)->array = *desc;
    pthread_mutex_unlock(&g_lock);
    *pHandle = (CUarray)p;
    return r;
}

size_t array_row_bytes(const struct salloc *a)
{
    return a->array.Width * a->array.NumChannels * array_format_bytes(a->array.Format);
}

size_t array_rows(const struct salloc *a)
{
    return a->array.Height ? a->array.Height : 1;
}

EXPORT CUresult cuArrayCreate_v2(CUarray *pHandle, const CUDA_ARRAY_DESCRIPTOR *desc)
{
    if (!desc)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    CUDA_ARRAY3D_DESCRIPTOR d = {desc->Width, desc->Height, 0, desc->Format, desc->NumChannels, 0};
    return array_create(pHandle, &d);
}

EXPORT CUresult cuArray3DCreate_v2(CUarray *pHandle, const CUDA_ARRAY3D_DESCRIPTOR *desc)
{
    if (!desc)
        return initialized() ? CUDA_ERROR_INVALID_VALUE : CUDA_ERROR_NOT_INITIALIZED;
    return array_create(pHandle, desc);
}

/* The descriptor the array was created with (a 2D one's Depth 0). */
EXPORT CUresult cuArray3DGetDescriptor_v2(CUDA_ARRAY3D_DESCRIPTOR *pArrayDescriptor,
                                          CUarray hArray)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pArrayDescriptor)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)hArray);
    int found = a && a->kind == K_ARRAY && a->key == (uintptr_t)hArray;
    if (found)
        *pArrayDescriptor = a->array;
    pthread_mutex_unlock(&g_lock);
    return found ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
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
    size_t es = desc ? array_format_bytes(desc->Format) : 0;
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

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuArrayCreate", 3020, cuArrayCreate_v2)
PROC("cuArray3DCreate", 3020, cuArray3DCreate_v2)
PROC("cuArray3DGetDescriptor", 3020, cuArray3DGetDescriptor_v2)
PROC("cuArrayDestroy", 2000, cuArrayDestroy)
PROC("cuMipmappedArrayCreate", 5000, cuMipmappedArrayCreate)
PROC("cuMipmappedArrayDestroy", 5000, cuMipmappedArrayDestroy)
/* SPDX-License-Identifier: MIT */
