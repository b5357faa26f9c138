/* Mipmapped arrays through both APIs: LOOP balanced pairs of each first
 * (cudaMallocMipmappedArray/cudaFreeMipmappedArray,
 * cuMipmappedArrayCreate/cuMipmappedArrayDestroy), then one leak of each
 * from its own function. A mipmapped array's bytes: every level, each
 * halving width and height (a 0 height stays 0). */
#include <cuda.h>
#include <cuda_runtime.h>
#include "check.h"

#define LOOP 50

#define MM_RT_WIDTH 64
#define MM_RT_HEIGHT 32
#define MM_RT_LEVELS 3          /* 4-byte texels: 8192 + 2048 + 512 */
#define MM_RT_BYTES 10752
#define MM_DRV_WIDTH 128
#define MM_DRV_LEVELS 4         /* 1D float: 512 + 256 + 128 + 64 */
#define MM_DRV_BYTES 960

static const CUDA_ARRAY3D_DESCRIPTOR drv_desc = {MM_DRV_WIDTH, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0};

static void balanced_loops(void)
{
    struct cudaChannelFormatDesc f32 = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    for (int i = 0; i < LOOP; i++) {
        cudaMipmappedArray_t m;
        CUmipmappedArray dm;
        CHECK(cudaMallocMipmappedArray(&m, &f32, make_cudaExtent(16 + i, 8, 0), 2, 0));
        CHECK(cudaFreeMipmappedArray(m));
        CHECK(cuMipmappedArrayCreate(&dm, &drv_desc, 2));
        CHECK(cuMipmappedArrayDestroy(dm));
    }
}

NOINLINE void leak_cudaMallocMipmappedArray(void)
{
    struct cudaChannelFormatDesc u8x4 =
        cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    struct cudaExtent extent = make_cudaExtent(MM_RT_WIDTH, MM_RT_HEIGHT, 0);
    cudaMipmappedArray_t m = NULL;
    CHECK(cudaMallocMipmappedArray(&m, &u8x4, extent, MM_RT_LEVELS, 0)); /* LEAK:cudaMallocMipmappedArray */
    vt_sink = m;
}

NOINLINE void leak_cuMipmappedArrayCreate(void)
{
    CUmipmappedArray dm = NULL;
    CHECK(cuMipmappedArrayCreate(&dm, &drv_desc, MM_DRV_LEVELS)); /* LEAK:cuMipmappedArrayCreate */
    vt_sink = dm;
}

int main(void)
{
    size_t free0, free1, total;
    CHECK(cudaSetDevice(0));
    CHECK(cudaMemGetInfo(&free0, &total));
    balanced_loops();
    leak_cudaMallocMipmappedArray();
    leak_cuMipmappedArrayCreate();
    CHECK(cudaMemGetInfo(&free1, &total));
    REQUIRE(free0 - free1 == MM_RT_BYTES + MM_DRV_BYTES);
    return 0;
}
/* SPDX-License-Identifier: MIT */
