// SPDX-License-Identifier: MIT
// In the shapes of NVIDIA's simpleZeroCopy and simpleP2P samples: mapped
// page-locked memory (cudaSetDeviceFlags(cudaDeviceMapHost),
// cudaHostAlloc(cudaHostAllocMapped), and malloc'd memory registered with
// cudaHostRegister), used by a kernel through cudaHostGetDevicePointer; then
// peer access between two devices, a buffer on each, copied from one to the
// other with cudaMemcpyPeer and checked, peer access disabled. Ground truth
// (tests/test_samples.py): the mapped buffer (MAPPED_BYTES, cudaHostAlloc,
// host) and device 1's buffer (PEER_BYTES, cudaMalloc, device 1) are never
// freed; the registered memory is unregistered, everything else freed.
#include "sample.h"

#include <cstring>

#define MAPPED_BYTES (48 << 10)
#define REGISTERED_BYTES (64 << 10)
#define PEER_BYTES (1 << 20)

__global__ void add(float *out, const float *a, const float *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = a[i] + b[i];
}

static NOINLINE float *mapped_buffer(void)
{
    void *h = nullptr;
    CHECK(cudaHostAlloc(&h, MAPPED_BYTES, cudaHostAllocMapped)); // LEAK:mapped
    return static_cast<float *>(h);
}

static NOINLINE void *peer_buffer(void)
{
    void *p = nullptr;
    CHECK(cudaMalloc(&p, PEER_BYTES)); // LEAK:peer
    return p;
}

static void zero_copy(void)
{
    CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
    unsigned flags = 0;
    CHECK(cudaGetDeviceFlags(&flags));
    REQUIRE(flags & cudaDeviceMapHost);
    float *a = mapped_buffer();
    float *b = static_cast<float *>(aligned_alloc(4096, REGISTERED_BYTES));
    REQUIRE(b != nullptr);
    CHECK(cudaHostRegister(b, REGISTERED_BYTES, cudaHostRegisterMapped));
    float *da = nullptr, *db = nullptr;
    CHECK(cudaHostGetDevicePointer((void **)&da, a, 0));
    CHECK(cudaHostGetDevicePointer((void **)&db, b, 0));
    size_t n = MAPPED_BYTES / sizeof(float);
    add<<<(unsigned)((n + 255) / 256), 256>>>(da, da, db, n);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaHostUnregister(b));
    free(b);
}

static void peer_to_peer(void)
{
    int count = 0, can = 0;
    CHECK(cudaGetDeviceCount(&count));
    REQUIRE(count >= 2);
    CHECK(cudaDeviceCanAccessPeer(&can, 0, 1));
    REQUIRE(can);
    static unsigned char host[PEER_BYTES], back[PEER_BYTES];
    for (size_t i = 0; i < PEER_BYTES; i++)
        host[i] = (unsigned char)(i * 7);
    void *on0 = nullptr;
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceEnablePeerAccess(1, 0));
    CHECK(cudaMalloc(&on0, PEER_BYTES));
    CHECK(cudaMemcpy(on0, host, PEER_BYTES, cudaMemcpyHostToDevice));
    CHECK(cudaSetDevice(1));
    CHECK(cudaDeviceEnablePeerAccess(0, 0));
    void *on1 = peer_buffer();
    CHECK(cudaMemcpyPeer(on1, 1, on0, 0, PEER_BYTES));
    CHECK(cudaMemcpy(back, on1, PEER_BYTES, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(host, back, PEER_BYTES) == 0);
    CHECK(cudaDeviceDisablePeerAccess(0));
    CHECK(cudaSetDevice(0));
    CHECK(cudaDeviceDisablePeerAccess(1));
    CHECK(cudaFree(on0));
}

int main()
{
    zero_copy();
    peer_to_peer();
    printf("zero copy and peers done\n");
    return 0;
}
