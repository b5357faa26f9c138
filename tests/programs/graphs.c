/* Ground truth for CUDA graph memory, through the runtime as PyTorch and
 * CCCL use it. A graph built explicitly (an allocation node of
 * EXPLICIT_BYTES, a kernel node, a free node) and one captured from a
 * stream (cudaMallocAsync of CAPTURED_BYTES, then cudaFreeAsync) are each
 * launched LAUNCHES times, then the device's graph memory pool is trimmed;
 * a second capture allocates LEAK_BYTES and never frees them (launched
 * once: leaked at exit). After each step the graph memory the stand-in
 * driver reports is checked, and the live bytes the tracer counts are
 * printed ("live <step> <bytes>") when it runs:
 *   launch k (k = 1..LAUNCHES): used 0, reserved max(EXPLICIT, CAPTURED);
 *   trim: reserved 0; leak launch: used = reserved = LEAK_BYTES. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include "check.h"
#include "vramtrace.h"

#define MiB ((size_t)1 << 20)
#define EXPLICIT_BYTES (3 * MiB)
#define CAPTURED_BYTES (5 * MiB)
#define LEAK_BYTES (7 * MiB)
#define LAUNCHES 3

static void kernel(void) {}

static void expect_graph_memory(unsigned long long used, unsigned long long reserved)
{
    unsigned long long u = 0, r = 0;
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrUsedMemCurrent, &u));
    CHECK(cudaDeviceGetGraphMemAttribute(0, cudaGraphMemAttrReservedMemCurrent, &r));
    REQUIRE(u == used && r == reserved);
}

static void print_live(const char *step)
{
    if (vramtrace_active())
        printf("live %s %llu\n", step, (unsigned long long)vramtrace_live_bytes());
}

static NOINLINE cudaGraph_t build_explicit(void)
{
    cudaGraph_t g;
    cudaGraphNode_t alloc, work, release;
    struct cudaMemAllocNodeParams p;
    struct cudaKernelNodeParams k;
    memset(&p, 0, sizeof p);
    memset(&k, 0, sizeof k);
    p.poolProps.allocType = cudaMemAllocationTypePinned;
    p.poolProps.location.type = cudaMemLocationTypeDevice;
    p.poolProps.location.id = 0;
    p.bytesize = EXPLICIT_BYTES;
    k.func = (void *)kernel;
    k.gridDim.x = k.gridDim.y = k.gridDim.z = 1;
    k.blockDim.x = k.blockDim.y = k.blockDim.z = 1;
    CHECK(cudaGraphCreate(&g, 0));
    CHECK(cudaGraphAddMemAllocNode(&alloc, g, NULL, 0, &p)); /* LEAK:explicit */
    CHECK(cudaGraphAddKernelNode(&work, g, &alloc, 1, &k));
    CHECK(cudaGraphAddMemFreeNode(&release, g, &work, 1, p.dptr));
    return g;
}

static NOINLINE void *captured_alloc(cudaStream_t s, size_t bytes)
{
    void *p = NULL;
    CHECK(cudaMallocAsync(&p, bytes, s)); /* LEAK:captured */
    return p;
}

static NOINLINE void *captured_leak(cudaStream_t s)
{
    void *p = NULL;
    CHECK(cudaMallocAsync(&p, LEAK_BYTES, s)); /* LEAK:captured_leak */
    return p;
}

static cudaGraph_t capture(cudaStream_t s, int leak)
{
    cudaGraph_t g;
    enum cudaStreamCaptureStatus status;
    unsigned long long id = 0;
    cudaGraph_t during = NULL;
    CHECK(cudaStreamIsCapturing(s, &status));
    REQUIRE(status == cudaStreamCaptureStatusNone);
    CHECK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
    CHECK(cudaStreamGetCaptureInfo(s, &status, &id, &during, NULL, NULL, NULL));
    REQUIRE(status == cudaStreamCaptureStatusActive && id != 0 && during != NULL);
    if (leak) {
        captured_leak(s);
    } else {
        void *p = captured_alloc(s, CAPTURED_BYTES);
        CHECK(cudaFreeAsync(p, s));
    }
    CHECK(cudaStreamEndCapture(s, &g));
    REQUIRE(g == during);
    CHECK(cudaStreamIsCapturing(s, &status));
    REQUIRE(status == cudaStreamCaptureStatusNone);
    return g;
}

int main(void)
{
    cudaStream_t s;
    cudaGraph_t explicit_graph, captured, leaky;
    cudaGraphExec_t e1, e2, e3;
    char step[32];
    CHECK(cudaStreamCreate(&s));
    explicit_graph = build_explicit();
    captured = capture(s, 0);
    expect_graph_memory(0, 0); /* addresses only, no memory yet */
    print_live("built");
    CHECK(cudaGraphInstantiate(&e1, explicit_graph, 0));
    CHECK(cudaGraphInstantiate(&e2, captured, 0));
    for (int i = 1; i <= LAUNCHES; i++) {
        CHECK(cudaGraphLaunch(e1, s)); /* CALL:launch_explicit */
        CHECK(cudaGraphLaunch(e2, s)); /* CALL:launch_captured */
        CHECK(cudaStreamSynchronize(s));
        expect_graph_memory(0, CAPTURED_BYTES > EXPLICIT_BYTES ? CAPTURED_BYTES : EXPLICIT_BYTES);
        snprintf(step, sizeof step, "launch%d", i);
        print_live(step);
    }
    CHECK(cudaDeviceGraphMemTrim(0));
    expect_graph_memory(0, 0);
    print_live("trim");
    CHECK(cudaGraphExecDestroy(e1));
    CHECK(cudaGraphExecDestroy(e2));
    CHECK(cudaGraphDestroy(explicit_graph));
    CHECK(cudaGraphDestroy(captured));
    leaky = capture(s, 1);
    CHECK(cudaGraphInstantiate(&e3, leaky, 0));
    CHECK(cudaGraphLaunch(e3, s));
    EXPECT(cudaGraphLaunch(e3, s), cudaErrorInvalidValue); /* its allocation is still live */
    CHECK(cudaDeviceGraphMemTrim(0));
    expect_graph_memory(LEAK_BYTES, LEAK_BYTES);
    print_live("leak");
    CHECK(cudaGraphExecDestroy(e3));
    CHECK(cudaGraphDestroy(leaky));
    CHECK(cudaStreamDestroy(s));
    return 0;
}
/* SPDX-License-Identifier: MIT */
