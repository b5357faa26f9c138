// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's graphMemoryNodes sample: a graph captured from a
// stream (cudaMallocAsync, a kernel, a copy out, cudaFreeAsync) and one
// built node by node (an allocation node, a kernel node, a free node), each
// instantiated and launched LAUNCHES times; the graph memory pool trimmed
// at the end. Ground truth (tests/test_samples.py): a third graph
// allocates KEPT_BYTES with an allocation node and no free node; its memory
// outlives the graph and is never freed (a leak at the node's line);
// nothing else leaks.
#include "sample.h"

#include <cstring>

#define CAPTURED_BYTES (6 << 20)
#define BUILT_BYTES (2 << 20)
#define KEPT_BYTES (5 << 20)
#define LAUNCHES 3

__global__ void fill(float *p, size_t n, float v)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        p[i] = v;
}

static NOINLINE cudaGraph_t capture(cudaStream_t s, float *host)
{
    cudaGraph_t g;
    float *p = nullptr;
    size_t n = CAPTURED_BYTES / sizeof(float);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaMallocAsync(&p, CAPTURED_BYTES, s)); // CALL:captured
    fill<<<(unsigned)((n + 255) / 256), 256, 0, s>>>(p, n, 2.0f);
    CHECK(cudaMemcpyAsync(host, p, sizeof(float), cudaMemcpyDeviceToHost, s));
    CHECK(cudaFreeAsync(p, s));
    CHECK(cudaStreamEndCapture(s, &g));
    return g;
}

static cudaMemAllocNodeParams alloc_params(size_t bytes)
{
    cudaMemAllocNodeParams p;
    memset(&p, 0, sizeof p);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = bytes;
    return p;
}

static cudaKernelNodeParams fill_params(void **args, size_t n)
{
    cudaKernelNodeParams k;
    memset(&k, 0, sizeof k);
    k.func = (void *)fill;
    k.gridDim = dim3((unsigned)((n + 255) / 256));
    k.blockDim = dim3(256);
    k.kernelParams = args;
    return k;
}

static NOINLINE cudaGraph_t build(void)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc, work, release;
    cudaMemAllocNodeParams p = alloc_params(BUILT_BYTES);
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p)); // CALL:built
    size_t n = BUILT_BYTES / sizeof(float);
    float v = 3.0f;
    void *args[] = {&p.dptr, &n, &v};
    cudaKernelNodeParams k = fill_params(args, n);
    CHECK(cudaGraphAddKernelNode(&work, g, &alloc, 1, &k));
    CHECK(cudaGraphAddMemFreeNode(&release, g, &work, 1, p.dptr));
    return g;
}

// An allocation node with no free node: its memory is the program's after
// the launch (as a cudaMalloc's would be), until it frees it.
static NOINLINE cudaGraph_t build_kept(void **kept)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc;
    cudaMemAllocNodeParams p = alloc_params(KEPT_BYTES);
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, nullptr, 0, &p)); // LEAK:graph_kept
    *kept = p.dptr;
    return g;
}

static void launch(cudaGraph_t g, cudaStream_t s, int times)
{
    cudaGraphExec_t exec;
    CHECK(cudaGraphInstantiate(&exec, g, 0));
    for (int i = 0; i < times; i++)
        CHECK(cudaGraphLaunch(exec, s));
    CHECK(cudaStreamSynchronize(s));
    CHECK(cudaGraphExecDestroy(exec));
    CHECK(cudaGraphDestroy(g));
}

int main()
{
    cudaStream_t s;
    float *host = nullptr;
    void *kept = nullptr;
    CHECK(cudaMallocHost(&host, sizeof(float)));
    CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
    launch(capture(s, host), s, LAUNCHES);
    launch(build(), s, LAUNCHES);
    launch(build_kept(&kept), s, 1);
    CHECK(cudaDeviceGraphMemTrim(0));
    REQUIRE(kept != nullptr);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFreeHost(host));
    printf("graphs launched %d times\n", LAUNCHES);
    return 0;
}
