/* Ground truth for the teardown of handle-keyed memory (test_teardown.py):
 *   A. device 0's primary context (runtime): cudaMallocArray,
 *      cudaMallocMipmappedArray, and through the driver cuArrayCreate,
 *      cuArray3DCreate, cuMipmappedArrayCreate; cudaDeviceReset frees all.
 *   B. cuCtxCreate (device 1) -> cuArrayCreate -> cuCtxDestroy frees it.
 *   C. a cuMemCreate handle made before the reset outlives it (the driver
 *      keeps VMM memory until released) and is released afterwards.
 *   D. cuCtxCreate (device 1) -> cuArrayCreate: leaked (context alive);
 *      left out with the argument "clean" (then nothing leaks).
 *   E. a mipmapped array of each API freed again (before the reset).
 * allocations 10, frees 3 (the VMM handle, E), teardown-freed 6, leaked 1;
 * peak: the VMM handle and part A together. */
#include "check.h"
#include "cuda.h"
#include "cuda_runtime_api.h"

#include <string.h>

#define TA_RT_ARRAY_W 509          /* float, 509 x 7: 14252 bytes */
#define TA_RT_ARRAY_H 7
#define TA_RT_ARRAY_BYTES (TA_RT_ARRAY_W * TA_RT_ARRAY_H * 4)
#define TA_RT_MIP_W 64             /* uchar4, 64 x 32, 3 levels: (2048 + 512 + 128) * 4 */
#define TA_RT_MIP_H 32
#define TA_RT_MIP_LEVELS 3
#define TA_RT_MIP_BYTES ((64 * 32 + 32 * 16 + 16 * 8) * 4)
#define TA_DRV_ARRAY_BYTES (1021 * 3 * 2)      /* CU_AD_FORMAT_HALF, 1 channel */
#define TA_DRV_3D_BYTES (37 * 5 * 3 * 4 * 2)    /* CU_AD_FORMAT_UNSIGNED_INT16, 4 channels */
#define TA_DRV_MIP_BYTES ((128 + 64 + 32 + 16) * 4) /* float, 1D, 4 levels */
#define TA_CTX_ARRAY_BYTES (2003 * 4)          /* CU_AD_FORMAT_FLOAT, 1D */
#define TA_LIVE_ARRAY_BYTES (3001 * 4)         /* CU_AD_FORMAT_SIGNED_INT32, 1D */
#define TA_VMM_BYTES ((size_t)2 << 20)
#define TA_RESET_BYTES (TA_RT_ARRAY_BYTES + TA_RT_MIP_BYTES + TA_DRV_ARRAY_BYTES + \
                        TA_DRV_3D_BYTES + TA_DRV_MIP_BYTES)

static size_t used(void)
{
    size_t free_bytes, total;
    CHECK(cudaMemGetInfo(&free_bytes, &total));
    return total - free_bytes;
}

static NOINLINE CUmemGenericAllocationHandle vmm_handle(void)
{
    CUmemAllocationProp prop = {0};
    CUmemGenericAllocationHandle h;
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = 0;
    CHECK(cuMemCreate(&h, TA_VMM_BYTES, &prop, 0));
    return h;
}

static NOINLINE void mipmapped_pairs(void)
{
    cudaMipmappedArray_t m;
    CUmipmappedArray dm;
    struct cudaChannelFormatDesc f32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    CUDA_ARRAY3D_DESCRIPTOR desc = {16, 16, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(16, 16, 0), 2, 0));
    CHECK(cudaFreeMipmappedArray(m));
    CHECK(cuMipmappedArrayCreate(&dm, &desc, 2));
    CHECK(cuMipmappedArrayDestroy(dm));
}

static NOINLINE void arrays_then_reset(void)
{
    cudaArray_t a;
    cudaMipmappedArray_t m;
    CUarray d2, d3;
    CUmipmappedArray dm;
    struct cudaChannelFormatDesc f32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    struct cudaChannelFormatDesc u8x4 =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    CUDA_ARRAY_DESCRIPTOR desc2 = {1021, 3, CU_AD_FORMAT_HALF, 1};
    CUDA_ARRAY3D_DESCRIPTOR desc3 = {37, 5, 3, CU_AD_FORMAT_UNSIGNED_INT16, 4, 0};
    CUDA_ARRAY3D_DESCRIPTOR descm = {128, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CHECK(cudaSetDevice(0));
    size_t before = used();
    CHECK(cudaMallocArray(&a, &f32, TA_RT_ARRAY_W, TA_RT_ARRAY_H, 0));
    CHECK(cudaMallocMipmappedArray(&m, &u8x4, make_cudaExtent(TA_RT_MIP_W, TA_RT_MIP_H, 0),
                                   TA_RT_MIP_LEVELS, 0));
    CHECK(cuArrayCreate(&d2, &desc2));
    CHECK(cuArray3DCreate(&d3, &desc3));
    CHECK(cuMipmappedArrayCreate(&dm, &descm, 4));
    REQUIRE(used() - before == TA_RESET_BYTES);
    CHECK(cudaDeviceReset());
    REQUIRE(used() == before);
}

static NOINLINE void array_in_destroyed_context(void)
{
    CUcontext ctx;
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR desc = {2003, 0, CU_AD_FORMAT_FLOAT, 1};
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, 1));
    CHECK(cuArrayCreate(&a, &desc));
    CHECK(cuCtxDestroy(ctx));
}

static NOINLINE void leak_array_on_live_context(void)
{
    CUcontext ctx;
    CUarray a;
    CUDA_ARRAY_DESCRIPTOR desc = {3001, 0, CU_AD_FORMAT_SIGNED_INT32, 1};
    CHECK(cuCtxCreate_v2(&ctx, CU_CTX_SCHED_AUTO, 1));
    CHECK(cuArrayCreate(&a, &desc)); /* LEAK:live_array */
    vt_sink = a;
}

int main(int argc, char **argv)
{
    CHECK(cudaFree(0));
    CUmemGenericAllocationHandle h = vmm_handle();
    mipmapped_pairs();
    arrays_then_reset();
    CHECK(cuMemRelease(h)); /* the reset did not take it */
    array_in_destroyed_context();
    if (argc < 2 || strcmp(argv[1], "clean") != 0)
        leak_array_on_live_context();
    return 0;
}
/* SPDX-License-Identifier: MIT */
