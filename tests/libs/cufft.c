/* SPDX-License-Identifier: MIT */
/* Stand-in libcufft.so.12 (cufft.h has the calls, types and results): a
 * plan's work area is device memory cuFFT allocates with cudaMalloc when
 * the plan is made (cufftPlan1d, cufftMakePlan1d: its default, automatic
 * allocation) and frees at cufftDestroy. Its size is the stand-in's own
 * rule: one complex element per point of each batch (8 bytes single
 * precision, 16 double). cufftXtMalloc (cufftXt.h, cudalibxt.h) allocates
 * the program's data for a plan, one buffer on its one GPU here, freed by
 * cufftXtFree. Plans are handles into a fixed table (no threads share one). */
#include <stddef.h>
#include <stdlib.h>

#include "cuda_runtime_api.h"

#define EXPORT __attribute__((visibility("default")))
#define MAX_PLANS 256

enum {
    CUFFT_SUCCESS = 0x0,
    CUFFT_INVALID_PLAN = 0x1,
    CUFFT_ALLOC_FAILED = 0x2,
    CUFFT_INVALID_TYPE = 0x3,
    CUFFT_INVALID_VALUE = 0x4,
    CUFFT_INVALID_SIZE = 0x8,
};
typedef int cufftResult;
typedef int cufftHandle;
enum {
    CUFFT_R2C = 0x2a,
    CUFFT_C2R = 0x2c,
    CUFFT_C2C = 0x29,
    CUFFT_D2Z = 0x6a,
    CUFFT_Z2D = 0x6c,
    CUFFT_Z2Z = 0x69
};
typedef int cufftType;
#define MAX_CUDA_DESCRIPTOR_GPUS 64
typedef struct {
    int version;
    int nGPUs;
    int GPUs[MAX_CUDA_DESCRIPTOR_GPUS];
    void *data[MAX_CUDA_DESCRIPTOR_GPUS];
    size_t size[MAX_CUDA_DESCRIPTOR_GPUS];
    void *cudaXtState;
} cudaXtDesc;
typedef struct {
    int version;
    cudaXtDesc *descriptor;
    int library; /* LIB_FORMAT_CUFFT */
    int subFormat;
    void *libDescriptor;
} cudaLibXtDesc;
#define LIB_FORMAT_CUFFT 0

static struct plan {
    int used;
    void *work;        /* cuFFT's own, from cudaMalloc */
    size_t data_bytes; /* of the transforms' data, as the work area's rule */
} plans[MAX_PLANS];

static struct plan *plan_of(cufftHandle h)
{
    return h >= 0 && h < MAX_PLANS && plans[h].used ? &plans[h] : NULL;
}

static void drop_work(struct plan *p)
{
    cudaFree(p->work);
    p->work = NULL;
}

static size_t element_bytes(cufftType type)
{
    switch (type) {
    case CUFFT_R2C:
    case CUFFT_C2R:
    case CUFFT_C2C:
        return 8;
    case CUFFT_D2Z:
    case CUFFT_Z2D:
    case CUFFT_Z2Z:
        return 16;
    default:
        return 0;
    }
}

EXPORT cufftResult cufftCreate(cufftHandle *handle)
{
    if (!handle)
        return CUFFT_INVALID_VALUE;
    for (int i = 0; i < MAX_PLANS; i++)
        if (!plans[i].used) {
            plans[i] = (struct plan){.used = 1};
            *handle = i;
            return CUFFT_SUCCESS;
        }
    return CUFFT_ALLOC_FAILED;
}

EXPORT cufftResult cufftMakePlan1d(cufftHandle plan, int nx, cufftType type, int batch,
                                   size_t *workSize)
{
    struct plan *p = plan_of(plan);
    if (!p)
        return CUFFT_INVALID_PLAN;
    if (!element_bytes(type))
        return CUFFT_INVALID_TYPE;
    if (nx < 2 || batch < 1)
        return CUFFT_INVALID_SIZE;
    size_t bytes = (size_t)nx * (size_t)batch * element_bytes(type);
    drop_work(p);
    if (cudaMalloc(&p->work, bytes) != cudaSuccess)
        return CUFFT_ALLOC_FAILED;
    p->data_bytes = bytes;
    if (workSize)
        *workSize = bytes;
    return CUFFT_SUCCESS;
}

EXPORT cufftResult cufftPlan1d(cufftHandle *plan, int nx, cufftType type, int batch)
{
    cufftResult r = cufftCreate(plan);
    if (r != CUFFT_SUCCESS)
        return r;
    r = cufftMakePlan1d(*plan, nx, type, batch, NULL);
    if (r != CUFFT_SUCCESS)
        plans[*plan].used = 0;
    return r;
}

EXPORT cufftResult cufftDestroy(cufftHandle plan)
{
    struct plan *p = plan_of(plan);
    if (p) {
        drop_work(p);
        p->used = 0;
    }
    return p ? CUFFT_SUCCESS : CUFFT_INVALID_PLAN;
}

EXPORT cufftResult cufftXtMalloc(cufftHandle plan, cudaLibXtDesc **descriptor, int format)
{
    struct plan *p = plan_of(plan);
    if (!p || !p->data_bytes)
        return CUFFT_INVALID_PLAN;
    if (!descriptor)
        return CUFFT_INVALID_VALUE;
    cudaLibXtDesc *d = calloc(1, sizeof *d);
    cudaXtDesc *x = calloc(1, sizeof *x);
    if (!d || !x || cudaGetDevice(&x->GPUs[0]) != cudaSuccess ||
        cudaMalloc(&x->data[0], p->data_bytes) != cudaSuccess) {
        free(d);
        free(x);
        return CUFFT_ALLOC_FAILED;
    }
    x->nGPUs = 1;
    x->size[0] = p->data_bytes;
    *d = (cudaLibXtDesc){.descriptor = x, .library = LIB_FORMAT_CUFFT, .subFormat = format};
    *descriptor = d;
    return CUFFT_SUCCESS;
}

EXPORT cufftResult cufftXtFree(cudaLibXtDesc *descriptor)
{
    if (!descriptor || !descriptor->descriptor)
        return CUFFT_INVALID_VALUE;
    for (int i = 0; i < descriptor->descriptor->nGPUs; i++)
        cudaFree(descriptor->descriptor->data[i]);
    free(descriptor->descriptor);
    free(descriptor);
    return CUFFT_SUCCESS;
}
