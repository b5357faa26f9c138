/* Phases from NVTX ranges (the toolkit's header-only nvtx3): each of 10
 * steps (a range "step") keeps 1 MiB inside a range "forward" and makes and
 * frees scratch inside a domain's range with a registered name,
 * "optimizer.step"; an 8 MiB buffer made at the start inside a wide range
 * L"load" and freed at the end is the device's largest peak holder.
 * A range started and ended ("io") is no phase: what is kept inside it is
 * still "forward"'s. With "oom", 1 TiB asked for at the end is refused:
 * its holders say their phases too. */
#include <cuda_runtime_api.h>
#include <nvToolsExt.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define STEPS 10
#define KEPT (1 << 20)
#define LOADED (8 << 20)

/* What a step keeps (forward) and what it makes and frees (optimizer). */
static NOINLINE void *forward(void)
{
    void *p;
    CHECK(cudaMalloc(&p, KEPT)); /* LEAK:forward */
    return p;
}

static NOINLINE void optimizer_step(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:scratch */
    CHECK(cudaFree(p));
}

static NOINLINE void *load(void)
{
    void *p;
    CHECK(cudaMalloc(&p, LOADED)); /* LEAK:load */
    return p;
}

static void *step(nvtxDomainHandle_t domain, nvtxStringHandle_t optimizer)
{
    nvtxEventAttributes_t attr = {.version = NVTX_VERSION,
                                  .size = NVTX_EVENT_ATTRIB_STRUCT_SIZE,
                                  .messageType = NVTX_MESSAGE_TYPE_REGISTERED,
                                  .message.registered = optimizer};
    EXPECT(nvtxRangePushA("step"), NVTX_NO_PUSH_POP_TRACKING);
    EXPECT(nvtxRangePushA("forward"), NVTX_NO_PUSH_POP_TRACKING);
    nvtxRangeId_t io = nvtxRangeStartA("io"); /* not a phase */
    void *kept = forward();
    nvtxRangeEnd(io);
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
    EXPECT(nvtxDomainRangePushEx(domain, &attr), NVTX_NO_PUSH_POP_TRACKING);
    optimizer_step(4096);
    EXPECT(nvtxDomainRangePop(domain), NVTX_NO_PUSH_POP_TRACKING);
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
    return kept;
}

/* "oom": 1 TiB asked for inside a range "evaluate" at the end: refused. */
static NOINLINE void evaluate(void)
{
    void *p;
    EXPECT(nvtxRangePushA("evaluate"), NVTX_NO_PUSH_POP_TRACKING);
    REQUIRE(cudaMalloc(&p, (size_t)1 << 40) == cudaErrorMemoryAllocation);
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
}

int main(int argc, char **argv)
{
    nvtxDomainHandle_t domain = nvtxDomainCreateA("vramtrace.test");
    nvtxStringHandle_t optimizer = nvtxDomainRegisterStringA(domain, "optimizer.step");
    EXPECT(nvtxRangePushW(L"load"), NVTX_NO_PUSH_POP_TRACKING);
    void *loaded = load();
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
    void *kept[STEPS];
    for (int i = 0; i < STEPS; i++)
        kept[i] = step(domain, optimizer);
    if (argc > 1 && !strcmp(argv[1], "oom"))
        evaluate();
    CHECK(cudaFree(loaded));
    (void)kept; /* leaked */
    printf("done phases\n");
    return 0;
}
/* SPDX-License-Identifier: MIT */
