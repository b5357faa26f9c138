/* SPDX-License-Identifier: MIT */
/* Texture objects, through the driver's cuTexObjectCreate and
 * cuTexObjectDestroy: the runtime's descriptors in the driver's terms. */
#include "cudart_internal.h"

#include <string.h>

static CUresult (*tex_create)(CUtexObject *, const CUDA_RESOURCE_DESC *, const CUDA_TEXTURE_DESC *,
                              const CUDA_RESOURCE_VIEW_DESC *);
static CUresult (*tex_destroy)(CUtexObject);
RT_DRIVER_FN(tex_create, "cuTexObjectCreate", 5000)
RT_DRIVER_FN(tex_destroy, "cuTexObjectDestroy", 5000)

static int resource_of(const struct cudaResourceDesc *in, CUDA_RESOURCE_DESC *out)
{
    memset(out, 0, sizeof *out);
    out->resType = (CUresourcetype)in->resType;
    out->flags = in->flags;
    switch (in->resType) {
    case cudaResourceTypeArray:
        out->res.array.hArray = (CUarray)in->res.array.array;
        return 0;
    case cudaResourceTypeMipmappedArray:
        out->res.mipmap.hMipmappedArray = (CUmipmappedArray)in->res.mipmap.mipmap;
        return 0;
    case cudaResourceTypeLinear:
        out->res.linear.devPtr = (CUdeviceptr)(uintptr_t)in->res.linear.devPtr;
        out->res.linear.sizeInBytes = in->res.linear.sizeInBytes;
        return rt_channel_format(&in->res.linear.desc, &out->res.linear.format,
                                 &out->res.linear.numChannels);
    case cudaResourceTypePitch2D:
        out->res.pitch2D.devPtr = (CUdeviceptr)(uintptr_t)in->res.pitch2D.devPtr;
        out->res.pitch2D.width = in->res.pitch2D.width;
        out->res.pitch2D.height = in->res.pitch2D.height;
        out->res.pitch2D.pitchInBytes = in->res.pitch2D.pitchInBytes;
        return rt_channel_format(&in->res.pitch2D.desc, &out->res.pitch2D.format,
                                 &out->res.pitch2D.numChannels);
    }
    return -1;
}

static void texture_of(const struct cudaTextureDesc *in, CUDA_TEXTURE_DESC *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < 3; i++)
        out->addressMode[i] = (CUaddress_mode)in->addressMode[i];
    out->filterMode = (CUfilter_mode)in->filterMode;
    out->flags = (in->readMode == cudaReadModeElementType ? CU_TRSF_READ_AS_INTEGER : 0) |
                 (in->normalizedCoords ? CU_TRSF_NORMALIZED_COORDINATES : 0) |
                 (in->sRGB ? CU_TRSF_SRGB : 0);
    out->maxAnisotropy = in->maxAnisotropy;
    out->mipmapFilterMode = (CUfilter_mode)in->mipmapFilterMode;
    out->mipmapLevelBias = in->mipmapLevelBias;
    out->minMipmapLevelClamp = in->minMipmapLevelClamp;
    out->maxMipmapLevelClamp = in->maxMipmapLevelClamp;
    memcpy(out->borderColor, in->borderColor, sizeof out->borderColor);
}

EXPORT cudaError_t cudaCreateTextureObject(cudaTextureObject_t *pTexObject,
                                           const struct cudaResourceDesc *pResDesc,
                                           const struct cudaTextureDesc *pTexDesc,
                                           const struct cudaResourceViewDesc *pResViewDesc)
{
    CUDA_RESOURCE_DESC res;
    CUDA_TEXTURE_DESC tex;
    if (!pTexObject || !pResDesc || !pTexDesc || resource_of(pResDesc, &res) < 0)
        return rt_error(cudaErrorInvalidValue);
    texture_of(pTexDesc, &tex);
    CTX_OR_RETURN();
    if (!tex_create)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUtexObject t;
    CUresult r = tex_create(&t, &res, &tex, (const CUDA_RESOURCE_VIEW_DESC *)pResViewDesc);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *pTexObject = t;
    return cudaSuccess;
}

EXPORT cudaError_t cudaDestroyTextureObject(cudaTextureObject_t texObject)
{
    CTX_OR_RETURN();
    if (!tex_destroy)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    return rt_error(rt_map_error(tex_destroy(texObject)));
}
