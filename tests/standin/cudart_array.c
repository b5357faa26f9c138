/* CUDA arrays and mipmapped arrays, through the driver's cuArrayCreate,
 * cuArray3DCreate and cuMipmappedArrayCreate. */
#include "cudart_internal.h"

#include <string.h>

EXPORT struct cudaChannelFormatDesc cudaCreateChannelDesc(int x, int y, int z, int w,
                                                          enum cudaChannelFormatKind f)
{
    struct cudaChannelFormatDesc d;
    d.x = x;
    d.y = y;
    d.z = z;
    d.w = w;
    d.f = f;
    return d;
}

int rt_channel_format(const struct cudaChannelFormatDesc *desc, CUarray_format *fmt,
                          unsigned *channels)
{
    int bits = desc->x;
    *channels = (desc->x > 0) + (desc->y > 0) + (desc->z > 0) + (desc->w > 0);
    if (desc->f == cudaChannelFormatKindFloat && bits == 32)
        *fmt = CU_AD_FORMAT_FLOAT;
    else if (desc->f == cudaChannelFormatKindFloat && bits == 16)
        *fmt = CU_AD_FORMAT_HALF;
    else if (desc->f == cudaChannelFormatKindSigned && (bits == 8 || bits == 16 || bits == 32))
        *fmt = bits == 8 ? CU_AD_FORMAT_SIGNED_INT8
               : bits == 16 ? CU_AD_FORMAT_SIGNED_INT16 : CU_AD_FORMAT_SIGNED_INT32;
    else if (desc->f == cudaChannelFormatKindUnsigned && (bits == 8 || bits == 16 || bits == 32))
        *fmt = bits == 8 ? CU_AD_FORMAT_UNSIGNED_INT8
               : bits == 16 ? CU_AD_FORMAT_UNSIGNED_INT16 : CU_AD_FORMAT_UNSIGNED_INT32;
    else
        return -1;
    return 0;
}

static CUresult (*array_3d_get_descriptor)(CUDA_ARRAY3D_DESCRIPTOR *, CUarray);
RT_DRIVER_FN(array_3d_get_descriptor, "cuArray3DGetDescriptor", 3020)

cudaError_t rt_array_descriptor(cudaArray_const_t array, CUDA_ARRAY3D_DESCRIPTOR *d)
{
    RT_CALL_DRIVER(array_3d_get_descriptor, d, (CUarray)(uintptr_t)array);
}

/* The driver's descriptor of a 3D (or mipmapped) array of DESC texels; -1
 * for a format the driver has no array format for. */
static int array3d_descriptor(const struct cudaChannelFormatDesc *desc, struct cudaExtent extent,
                              CUDA_ARRAY3D_DESCRIPTOR *ad)
{
    memset(ad, 0, sizeof *ad);
    ad->Width = extent.width;
    ad->Height = extent.height;
    ad->Depth = extent.depth;
    return rt_channel_format(desc, &ad->Format, &ad->NumChannels);
}

EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                   size_t width, size_t height, unsigned int flags)
{
    CUarray_format fmt;
    unsigned channels;
    if (!array || !desc || width == 0 || flags != 0 || rt_channel_format(desc, &fmt, &channels) < 0)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(arrayCreate);
    CUDA_ARRAY_DESCRIPTOR ad;
    memset(&ad, 0, sizeof ad);
    ad.Width = width;
    ad.Height = height;
    ad.Format = fmt;
    ad.NumChannels = channels;
    CUarray a;
    CUresult r = rt_drv.arrayCreate(&a, &ad);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *array = (cudaArray_t)a;
    return cudaSuccess;
}

/* Through cuArray3DCreate, as the real runtime does; a 0 height or depth
 * is a 1D or 2D array. */
EXPORT cudaError_t cudaMalloc3DArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                     struct cudaExtent extent, unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    if (!array || !desc || extent.width == 0 || flags != 0 ||
        array3d_descriptor(desc, extent, &ad) < 0)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(array3DCreate);
    CUarray a;
    CUresult r = rt_drv.array3DCreate(&a, &ad);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *array = (cudaArray_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    CTX_OR_RETURN();
    if (!array)
        return cudaSuccess;
    NEED(arrayDestroy);
    return rt_error(rt_map_error(rt_drv.arrayDestroy((CUarray)array)));
}

EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
                                            const struct cudaChannelFormatDesc *desc,
                                            struct cudaExtent extent, unsigned int levels,
                                            unsigned int flags)
{
    CUDA_ARRAY3D_DESCRIPTOR ad;
    if (!array || !desc || extent.width == 0 || levels == 0 || flags != 0 ||
        array3d_descriptor(desc, extent, &ad) < 0)
        return rt_error(cudaErrorInvalidValue);
    CTX_OR_RETURN();
    NEED(mipmappedArrayCreate);
    CUmipmappedArray a;
    CUresult r = rt_drv.mipmappedArrayCreate(&a, &ad, levels);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *array = (cudaMipmappedArray_t)a;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
    CTX_OR_RETURN();
    NEED(mipmappedArrayDestroy);
    if (!array)
        return cudaSuccess;
    return rt_error(rt_map_error(rt_drv.mipmappedArrayDestroy((CUmipmappedArray)array)));
}
/* SPDX-License-Identifier: MIT */
