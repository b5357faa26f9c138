/* Ground truth for the driver API (linked to libcuda.so.1 directly):
 * balanced loops first (LOOP pairs per API), then one leak per API, each
 * from its own function.  Peak device+managed bytes = the leaked
 * device+managed bytes. */
#include <cuda.h>
#include "check.h"

#define LOOP 100

#define DRV_ALLOC_BYTES 1100003
#define DRV_PITCH_WIDTH 900          /* pitch 1024 */
#define DRV_PITCH_HEIGHT 13          /* 13312 bytes */
#define DRV_MANAGED_BYTES 2100001
#define DRV_ASYNC_BYTES 310003
#define DRV_ASYNC_PTSZ_BYTES 310009
#define DRV_POOL_BYTES 410009
#define DRV_POOL_PTSZ_BYTES 410011
#define DRV_HOST_BYTES 51001
#define DRV_HOSTALLOC_BYTES 61001
#define DRV_HOST_REGISTER_BYTES 1048583
#define DRV_BC7_WIDTH 256  /* BC7: 16 bytes per 4x4 block: 64 * 16 * 16 = 16384 bytes */
#define DRV_BC7_HEIGHT 64
#define DRV_NV12_WIDTH 640 /* NV12: luma plane + half-height chroma: 640 * 480 * 3 / 2 = 460800 bytes */
#define DRV_NV12_HEIGHT 480
#define DRV_ARRAY_WIDTH 200          /* float, 2 channels: 200 * 9 * 2 * 4 = 14400 bytes */
#define DRV_ARRAY_HEIGHT 9
#define DRV_ARRAY3D_WIDTH 64         /* uint16, 1 channel: 64 * 5 * 3 * 2 = 1920 bytes */
#define DRV_ARRAY3D_HEIGHT 5
#define DRV_ARRAY3D_DEPTH 3
#define DRV_MIPMAP_WIDTH 128         /* 1D float, 4 levels: (128 + 64 + 32 + 16) * 4 = 960 bytes */
#define DRV_MIPMAP_LEVELS 4

static CUstream stream;
static char registered_in_loop[8192];
static CUmemoryPool pool;         /* created */
static CUmemoryPool default_pool; /* the device's */

NOINLINE void balanced_loops(void)
{
    for (int i = 0; i < LOOP; i++) {
        CUdeviceptr d;
        size_t pitch;
        void *h;
        CUarray a;
        CUmipmappedArray m;
        CUDA_ARRAY_DESCRIPTOR ad = {16 + i, 4, CU_AD_FORMAT_UNSIGNED_INT8, 1};
        CUDA_ARRAY3D_DESCRIPTOR a3 = {8 + i, 2, 2, CU_AD_FORMAT_FLOAT, 1, 0};
        CHECK(cuMemAlloc(&d, 1100 + i));
        CHECK(cuMemFree(d));
        CHECK(cuMemAllocPitch(&d, &pitch, 100 + i, 3, 4));
        CHECK(cuMemFree(d));
        CHECK(cuMemAllocManaged(&d, 2100 + i, CU_MEM_ATTACH_GLOBAL));
        CHECK(cuMemFree(d));
        CHECK(cuMemAllocAsync(&d, 3100 + i, stream));
        CHECK(cuMemFreeAsync(d, stream));
        CHECK(cuMemAllocAsync_ptsz(&d, 3600 + i, 0));
        CHECK(cuMemFreeAsync_ptsz(d, 0));
        CHECK(cuMemAllocFromPoolAsync(&d, 4100 + i, pool, stream));
        CHECK(cuMemFreeAsync(d, stream));
        CHECK(cuMemAllocFromPoolAsync_ptsz(&d, 4600 + i, default_pool, 0));
        CHECK(cuMemFreeAsync_ptsz(d, 0));
        CHECK(cuMemAllocHost(&h, 5100 + i));
        CHECK(cuMemFreeHost(h));
        CHECK(cuMemHostAlloc(&h, 6100 + i, CU_MEMHOSTALLOC_PORTABLE));
        CHECK(cuMemFreeHost(h));
        CHECK(cuArrayCreate(&a, &ad));
        CHECK(cuArrayDestroy(a));
        CHECK(cuArray3DCreate(&a, &a3));
        CHECK(cuArrayDestroy(a));
        CHECK(cuMipmappedArrayCreate(&m, &a3, 2));
        CHECK(cuMipmappedArrayDestroy(m));
        CHECK(cuMemHostRegister(registered_in_loop, 4096 + (size_t)i, 0));
        CHECK(cuMemHostUnregister(registered_in_loop));
    }
}

NOINLINE void leak_cuMemAlloc(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc(&d, DRV_ALLOC_BYTES)); /* LEAK:cuMemAlloc */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocPitch(void)
{
    CUdeviceptr d = 0;
    size_t pitch = 0;
    CHECK(cuMemAllocPitch(&d, &pitch, DRV_PITCH_WIDTH, DRV_PITCH_HEIGHT, 4)); /* LEAK:cuMemAllocPitch */
    REQUIRE(pitch == 1024);
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocManaged(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocManaged(&d, DRV_MANAGED_BYTES, CU_MEM_ATTACH_GLOBAL)); /* LEAK:cuMemAllocManaged */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocAsync(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocAsync(&d, DRV_ASYNC_BYTES, stream)); /* LEAK:cuMemAllocAsync */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocAsync_ptsz(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocAsync_ptsz(&d, DRV_ASYNC_PTSZ_BYTES, 0)); /* LEAK:cuMemAllocAsync_ptsz */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocFromPoolAsync(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocFromPoolAsync(&d, DRV_POOL_BYTES, pool, stream)); /* LEAK:cuMemAllocFromPoolAsync */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocFromPoolAsync_ptsz(void)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAllocFromPoolAsync_ptsz(&d, DRV_POOL_PTSZ_BYTES, default_pool, 0)); /* LEAK:cuMemAllocFromPoolAsync_ptsz */
    vt_sink = (void *)d;
}

NOINLINE void leak_cuMemAllocHost(void)
{
    void *h = NULL;
    CHECK(cuMemAllocHost(&h, DRV_HOST_BYTES)); /* LEAK:cuMemAllocHost */
    vt_sink = h;
}

NOINLINE void leak_cuMemHostAlloc(void)
{
    void *h = NULL;
    CHECK(cuMemHostAlloc(&h, DRV_HOSTALLOC_BYTES, 0)); /* LEAK:cuMemHostAlloc */
    vt_sink = h;
}

NOINLINE void leak_cuArrayCreate(void)
{
    CUDA_ARRAY_DESCRIPTOR ad = {DRV_ARRAY_WIDTH, DRV_ARRAY_HEIGHT, CU_AD_FORMAT_FLOAT, 2};
    CUarray a = NULL;
    CHECK(cuArrayCreate(&a, &ad)); /* LEAK:cuArrayCreate */
    vt_sink = a;
}

NOINLINE void leak_cuArray3DCreate(void)
{
    CUDA_ARRAY3D_DESCRIPTOR ad = {DRV_ARRAY3D_WIDTH, DRV_ARRAY3D_HEIGHT, DRV_ARRAY3D_DEPTH,
                                  CU_AD_FORMAT_UNSIGNED_INT16, 1, 0};
    CUarray a = NULL;
    CHECK(cuArray3DCreate(&a, &ad)); /* LEAK:cuArray3DCreate */
    vt_sink = a;
}

NOINLINE void leak_cuMipmappedArrayCreate(void)
{
    CUDA_ARRAY3D_DESCRIPTOR ad = {DRV_MIPMAP_WIDTH, 0, 0, CU_AD_FORMAT_FLOAT, 1, 0};
    CUmipmappedArray m = NULL;
    CHECK(cuMipmappedArrayCreate(&m, &ad, DRV_MIPMAP_LEVELS)); /* LEAK:cuMipmappedArrayCreate */
    vt_sink = m;
}

NOINLINE void leak_cuArray3DCreate_bc7(void)
{
    CUDA_ARRAY3D_DESCRIPTOR ad = {DRV_BC7_WIDTH, DRV_BC7_HEIGHT, 0, CU_AD_FORMAT_BC7_UNORM, 4, 0};
    CUarray a = NULL;
    CHECK(cuArray3DCreate(&a, &ad)); /* LEAK:cuArray3DCreate_bc7 */
    vt_sink = a;
}

NOINLINE void leak_cuArrayCreate_nv12(void)
{
    CUDA_ARRAY_DESCRIPTOR ad = {DRV_NV12_WIDTH, DRV_NV12_HEIGHT, CU_AD_FORMAT_NV12, 3};
    CUarray a = NULL;
    CHECK(cuArrayCreate(&a, &ad)); /* LEAK:cuArrayCreate_nv12 */
    vt_sink = a;
}

NOINLINE void leak_cuMemHostRegister(void)
{
    void *h = malloc(DRV_HOST_REGISTER_BYTES);
    REQUIRE(h != NULL);
    CHECK(cuMemHostRegister(h, DRV_HOST_REGISTER_BYTES, CU_MEMHOSTREGISTER_PORTABLE)); /* LEAK:cuMemHostRegister */
    vt_sink = h;
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    CHECK(cuStreamCreate(&stream, CU_STREAM_DEFAULT));
    CHECK(cuDeviceGetDefaultMemPool(&default_pool, dev));
    CUmemPoolProps props = {0};
    props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
    props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    props.location.id = dev;
    CHECK(cuMemPoolCreate(&pool, &props));

    size_t free0, free1, total;
    CHECK(cuMemGetInfo(&free0, &total));
    balanced_loops();
    CHECK(cuMemGetInfo(&free1, &total));
    REQUIRE(free1 == free0);

    leak_cuMemAlloc();
    leak_cuMemAllocPitch();
    leak_cuMemAllocManaged();
    leak_cuMemAllocAsync();
    leak_cuMemAllocAsync_ptsz();
    leak_cuMemAllocFromPoolAsync();
    leak_cuMemAllocFromPoolAsync_ptsz();
    leak_cuMemAllocHost();
    leak_cuMemHostAlloc();
    leak_cuArrayCreate();
    leak_cuArray3DCreate();
    leak_cuMipmappedArrayCreate();
    leak_cuMemHostRegister();
    leak_cuArray3DCreate_bc7();
    leak_cuArrayCreate_nv12();

    CHECK(cuMemGetInfo(&free1, &total));
    REQUIRE(free0 - free1 == (size_t)DRV_ALLOC_BYTES + 13312 + DRV_MANAGED_BYTES + DRV_ASYNC_BYTES +
                                 DRV_ASYNC_PTSZ_BYTES + DRV_POOL_BYTES + DRV_POOL_PTSZ_BYTES +
                                 14400 + 1920 + 960 + 16384 + 460800);
    CHECK(cuCtxSynchronize());
    return 0;
}
/* SPDX-License-Identifier: MIT */
