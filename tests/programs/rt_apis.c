/* Ground truth for the runtime API (linked to libcudart.so.13).
 * First balanced loops (LOOP pairs per API, never leaked), then one leak
 * per API from its own function, then one leak on device 1.  Every leak
 * comes after the loops, so peak device+managed bytes = the leaked
 * device+managed bytes exactly. */
#include <cuda_runtime.h> /* make_cudaExtent lives here in the real toolkit */
#include "check.h"

#define LOOP 100

#define RT_MALLOC_BYTES 1000003
#define RT_PITCH_WIDTH 1000      /* pitch 1024 */
#define RT_PITCH_HEIGHT 17       /* 17408 bytes */
#define RT_3D_WIDTH 700          /* pitch 1024 */
#define RT_3D_HEIGHT 11
#define RT_3D_DEPTH 3            /* 1024 * 33 = 33792 bytes */
#define RT_MANAGED_BYTES 2000017
#define RT_ASYNC_BYTES 300007
#define RT_ASYNC_PTSZ_BYTES 300011
#define RT_POOL_BYTES 400009
#define RT_HOST_BYTES 50021
#define RT_HOSTALLOC_BYTES 60013
#define RT_ARRAY_WIDTH 300       /* float1: 300 * 7 * 4 = 8400 bytes */
#define RT_ARRAY_HEIGHT 7
#define RT_3DARRAY_WIDTH 40      /* uchar4: 40 * 6 * 5 * 4 = 4800 bytes */
#define RT_3DARRAY_HEIGHT 6
#define RT_3DARRAY_DEPTH 5
#define RT_MIPMAP_WIDTH 64       /* uchar4, 3 levels: (64*32 + 32*16 + 16*8) * 4 = 10752 bytes */
#define RT_MIPMAP_HEIGHT 32
#define RT_MIPMAP_LEVELS 3
#define RT_DEVICE1_BYTES 700001
#define RT_HOST_REGISTER_BYTES (64 << 20) /* as NVIDIA's simpleStreams sample registers */

static char registered_in_loop[8192];

static cudaStream_t stream;
static cudaMemPool_t pool;

NOINLINE void balanced_loops(void)
{
    struct cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    for (int i = 0; i < LOOP; i++) {
        void *p;
        size_t pitch;
        struct cudaPitchedPtr pp;
        cudaArray_t a;
        cudaMipmappedArray_t m;
        CHECK(cudaMalloc(&p, 1000 + i));
        CHECK(cudaFree(p));
        CHECK(cudaMallocPitch(&p, &pitch, 100 + i, 3));
        CHECK(cudaFree(p));
        CHECK(cudaMalloc3D(&pp, make_cudaExtent(64 + i, 2, 2)));
        CHECK(cudaFree(pp.ptr));
        CHECK(cudaMallocManaged(&p, 2000 + i, cudaMemAttachGlobal));
        CHECK(cudaFree(p));
        CHECK(cudaMallocAsync(&p, 3000 + i, stream));
        CHECK(cudaFreeAsync(p, stream));
        CHECK(cudaMallocAsync_ptsz(&p, 3500 + i, 0));
        CHECK(cudaFreeAsync_ptsz(p, 0));
        CHECK(cudaMallocFromPoolAsync(&p, 4000 + i, pool, stream));
        CHECK(cudaFreeAsync(p, stream));
        CHECK(cudaMallocHost(&p, 5000 + i));
        CHECK(cudaFreeHost(p));
        CHECK(cudaHostAlloc(&p, 6000 + i, cudaHostAllocPortable));
        CHECK(cudaFreeHost(p));
        CHECK(cudaMallocArray(&a, &fd, 16 + i, 4, 0));
        CHECK(cudaFreeArray(a));
        CHECK(cudaMalloc3DArray(&a, &fd, make_cudaExtent(8 + i, 2, 2), 0));
        CHECK(cudaFreeArray(a));
        CHECK(cudaMallocMipmappedArray(&m, &fd, make_cudaExtent(16 + i, 8, 0), 2, 0));
        CHECK(cudaFreeMipmappedArray(m));
        CHECK(cudaHostRegister(registered_in_loop, 4096 + (size_t)i, cudaHostRegisterDefault));
        CHECK(cudaHostUnregister(registered_in_loop));
    }
}

NOINLINE void leak_cudaMalloc(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, RT_MALLOC_BYTES)); /* LEAK:cudaMalloc */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocPitch(void)
{
    void *p = NULL;
    size_t pitch = 0;
    CHECK(cudaMallocPitch(&p, &pitch, RT_PITCH_WIDTH, RT_PITCH_HEIGHT)); /* LEAK:cudaMallocPitch */
    REQUIRE(pitch == 1024);
    vt_sink = p;
}

NOINLINE void leak_cudaMalloc3D(void)
{
    struct cudaPitchedPtr pp;
    CHECK(cudaMalloc3D(&pp, make_cudaExtent(RT_3D_WIDTH, RT_3D_HEIGHT, RT_3D_DEPTH))); /* LEAK:cudaMalloc3D */
    REQUIRE(pp.pitch == 1024 && pp.xsize == RT_3D_WIDTH && pp.ysize == RT_3D_HEIGHT);
    vt_sink = pp.ptr;
}

NOINLINE void leak_cudaMallocManaged(void)
{
    void *p = NULL;
    CHECK(cudaMallocManaged(&p, RT_MANAGED_BYTES, cudaMemAttachGlobal)); /* LEAK:cudaMallocManaged */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocAsync(void)
{
    void *p = NULL;
    CHECK(cudaMallocAsync(&p, RT_ASYNC_BYTES, stream)); /* LEAK:cudaMallocAsync */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocAsync_ptsz(void)
{
    void *p = NULL;
    CHECK(cudaMallocAsync_ptsz(&p, RT_ASYNC_PTSZ_BYTES, 0)); /* LEAK:cudaMallocAsync_ptsz */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocFromPoolAsync(void)
{
    void *p = NULL;
    CHECK(cudaMallocFromPoolAsync(&p, RT_POOL_BYTES, pool, stream)); /* LEAK:cudaMallocFromPoolAsync */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocHost(void)
{
    void *p = NULL;
    CHECK(cudaMallocHost(&p, RT_HOST_BYTES)); /* LEAK:cudaMallocHost */
    vt_sink = p;
}

NOINLINE void leak_cudaHostAlloc(void)
{
    void *p = NULL;
    CHECK(cudaHostAlloc(&p, RT_HOSTALLOC_BYTES, cudaHostAllocDefault)); /* LEAK:cudaHostAlloc */
    vt_sink = p;
}

NOINLINE void leak_cudaMallocArray(void)
{
    struct cudaChannelFormatDesc fd = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    cudaArray_t a = NULL;
    CHECK(cudaMallocArray(&a, &fd, RT_ARRAY_WIDTH, RT_ARRAY_HEIGHT, 0)); /* LEAK:cudaMallocArray */
    vt_sink = a;
}

NOINLINE void leak_cudaMalloc3DArray(void)
{
    struct cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    struct cudaExtent extent = make_cudaExtent(RT_3DARRAY_WIDTH, RT_3DARRAY_HEIGHT, RT_3DARRAY_DEPTH);
    cudaArray_t a = NULL;
    CHECK(cudaMalloc3DArray(&a, &u8x4, extent, 0)); /* LEAK:cudaMalloc3DArray */
    vt_sink = a;
}

NOINLINE void leak_cudaMallocMipmappedArray(void)
{
    struct cudaChannelFormatDesc u8x4 = cudaCreateChannelDesc(8, 8, 8, 8, cudaChannelFormatKindUnsigned);
    struct cudaExtent extent = make_cudaExtent(RT_MIPMAP_WIDTH, RT_MIPMAP_HEIGHT, 0);
    cudaMipmappedArray_t m = NULL;
    CHECK(cudaMallocMipmappedArray(&m, &u8x4, extent, RT_MIPMAP_LEVELS, 0)); /* LEAK:cudaMallocMipmappedArray */
    vt_sink = m;
}

NOINLINE void leak_cudaHostRegister(void)
{
    void *p = malloc(RT_HOST_REGISTER_BYTES);
    REQUIRE(p != NULL);
    CHECK(cudaHostRegister(p, RT_HOST_REGISTER_BYTES, cudaHostRegisterPortable)); /* LEAK:cudaHostRegister */
    vt_sink = p;
}

NOINLINE void leak_on_device1(void)
{
    void *p = NULL;
    CHECK(cudaSetDevice(1));
    CHECK(cudaMalloc(&p, RT_DEVICE1_BYTES)); /* LEAK:device1 */
    vt_sink = p;
    CHECK(cudaSetDevice(0));
}

int main(void)
{
    int n = 0;
    CHECK(cudaGetDeviceCount(&n));
    REQUIRE(n >= 2);
    CHECK(cudaSetDevice(0));
    CHECK(cudaStreamCreate(&stream));
    CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));

    size_t free0, total;
    CHECK(cudaMemGetInfo(&free0, &total));
    balanced_loops();
    size_t free1;
    CHECK(cudaMemGetInfo(&free1, &total));
    REQUIRE(free1 == free0); /* the loops gave everything back */

    leak_cudaMalloc();
    leak_cudaMallocPitch();
    leak_cudaMalloc3D();
    leak_cudaMallocManaged();
    leak_cudaMallocAsync();
    leak_cudaMallocAsync_ptsz();
    leak_cudaMallocFromPoolAsync();
    leak_cudaMallocHost();
    leak_cudaHostAlloc();
    leak_cudaMallocArray();
    leak_cudaMalloc3DArray();
    leak_cudaMallocMipmappedArray();
    leak_cudaHostRegister();
    leak_on_device1();

    /* device 0 holds the device+managed leaks made on it */
    CHECK(cudaMemGetInfo(&free1, &total));
    REQUIRE(free0 - free1 == (size_t)RT_MALLOC_BYTES + 17408 + 33792 + RT_MANAGED_BYTES +
                                 RT_ASYNC_BYTES + RT_ASYNC_PTSZ_BYTES + RT_POOL_BYTES + 8400 +
                                 4800 + 10752);
    CHECK(cudaDeviceSynchronize());
    return 0;
}
/* SPDX-License-Identifier: MIT */
