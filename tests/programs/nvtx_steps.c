/* Steps marked with NVTX ranges (the toolkit's header-only nvtx3), each
 * keeping 1 MiB: `vramtrace run --mark-on-nvtx step` must find growth per
 * step at the allocation that leaks, without a vramtrace_mark() in the program. A "data"
 * range inside each step must mark nothing. The NVTX calls must return what
 * they return without a tool (checked: exit 99 otherwise).
 *   nvtx_steps push        nvtxRangePushA / nvtxRangePop
 *   nvtx_steps domain      a domain's nvtxDomainRangeStartEx / End, ASCII message
 *   nvtx_steps wide        nvtxRangeStartW / nvtxRangeEnd, nvtxRangePushW inside
 *   nvtx_steps registered  a registered string in a domain's push and pop
 *   nvtx_steps threads     push's steps while 4 threads push and pop, start
 *                          and end "data" ranges all along */
#include <cuda_runtime_api.h>
#include <nvToolsExt.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "check.h"

#define STEPS 10
#define KEPT (1 << 20)

static void *kept[STEPS];

static NOINLINE void keep(int step)
{
    CHECK(cudaMalloc(&kept[step], KEPT)); /* LEAK:step */
}

/* Made and freed inside the "data" range: no growth, no leak. */
static NOINLINE void scratch(void)
{
    void *p;
    CHECK(cudaMalloc(&p, 4096));
    CHECK(cudaFree(p));
}

static void pushed(int step)
{
    EXPECT(nvtxRangePushA("step"), NVTX_NO_PUSH_POP_TRACKING);
    EXPECT(nvtxRangePushA("data"), NVTX_NO_PUSH_POP_TRACKING);
    scratch();
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
    keep(step);
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
}

static nvtxEventAttributes_t message(const char *text)
{
    nvtxEventAttributes_t attr;
    memset(&attr, 0, sizeof attr);
    attr.version = NVTX_VERSION;
    attr.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    attr.messageType = NVTX_MESSAGE_TYPE_ASCII;
    attr.message.ascii = text;
    return attr;
}

static void domain_range(nvtxDomainHandle_t domain, int step)
{
    nvtxEventAttributes_t step_attr = message("step"), data_attr = message("data");
    nvtxRangeId_t id = nvtxDomainRangeStartEx(domain, &step_attr);
    nvtxRangeId_t data = nvtxDomainRangeStartEx(domain, &data_attr);
    REQUIRE(data == 0); /* what it is without a tool */
    scratch();
    nvtxDomainRangeEnd(domain, data);
    keep(step);
    nvtxDomainRangeEnd(domain, id);
}

static void wide(int step)
{
    nvtxRangeId_t id = nvtxRangeStartW(L"step");
    EXPECT(nvtxRangePushW(L"data"), NVTX_NO_PUSH_POP_TRACKING);
    scratch();
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
    keep(step);
    nvtxRangeEnd(id);
}

static void registered(nvtxDomainHandle_t domain, nvtxStringHandle_t name, int step)
{
    nvtxEventAttributes_t attr = message(NULL);
    attr.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    attr.message.registered = name;
    EXPECT(nvtxDomainRangePushEx(domain, &attr), NVTX_NO_PUSH_POP_TRACKING);
    /* a default-domain range opened inside and closed after: the pops of
     * the two domains interleave */
    EXPECT(nvtxRangePushA("data"), NVTX_NO_PUSH_POP_TRACKING);
    scratch();
    keep(step);
    EXPECT(nvtxDomainRangePop(domain), NVTX_NO_PUSH_POP_TRACKING);
    EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
}

#define WORKERS 4
static int stop;

/* Other threads' ranges, nested 3 deep, must not disturb the main thread's. */
static void *worker(void *unused)
{
    (void)unused;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        nvtxRangeId_t id = nvtxRangeStartA("data");
        EXPECT(nvtxRangePushA("data"), NVTX_NO_PUSH_POP_TRACKING);
        EXPECT(nvtxRangePushA("stepping"), NVTX_NO_PUSH_POP_TRACKING);
        EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
        EXPECT(nvtxRangePop(), NVTX_NO_PUSH_POP_TRACKING);
        nvtxRangeEnd(id);
    }
    return NULL;
}

static void threaded(void)
{
    pthread_t threads[WORKERS];
    for (int i = 0; i < WORKERS; i++)
        REQUIRE(pthread_create(&threads[i], NULL, worker, NULL) == 0);
    for (int step = 0; step < STEPS; step++)
        pushed(step);
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < WORKERS; i++)
        REQUIRE(pthread_join(threads[i], NULL) == 0);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "push";
    nvtxDomainHandle_t domain = NULL;
    nvtxStringHandle_t name = NULL;
    if (!strcmp(mode, "domain") || !strcmp(mode, "registered"))
        domain = nvtxDomainCreateA("vramtrace.test");
    if (!strcmp(mode, "registered"))
        name = nvtxDomainRegisterStringA(domain, "step");
    if (!strcmp(mode, "threads")) {
        threaded();
        printf("done %s\n", mode);
        return 0;
    }
    for (int step = 0; step < STEPS; step++) {
        if (!strcmp(mode, "push"))
            pushed(step);
        else if (!strcmp(mode, "domain"))
            domain_range(domain, step);
        else if (!strcmp(mode, "wide"))
            wide(step);
        else if (!strcmp(mode, "registered"))
            registered(domain, name, step);
        else
            REQUIRE(!"a known mode");
    }
    printf("done %s\n", mode);
    return 0;
}
/* SPDX-License-Identifier: MIT */
