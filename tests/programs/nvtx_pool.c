/* SPDX-License-Identifier: MIT */
/* A pool allocator that describes its pools with NVTX's memory API (the
 * toolkit's header-only nvtx3): regions are traced inside their heap, at
 * the line that registered them, and freed when unregistered (by pointer
 * or by handle), resized, or when their heap is reset or unregistered.
 *   pool: a 64 MiB heap (cudaMalloc'd, never freed: the pool's, not a
 *         leak) with regions of 1 MiB (unregistered by pointer), 2 MiB
 *         and 4 KiB (one batch; the 4 KiB unregistered by its handle),
 *         256 KiB resized to 512 KiB and unregistered, and 3 MiB left
 *         registered at exit (a leak);
 *   an 8 MiB heap with 4 regions of 1 MiB, reset, then unregistered and
 *   freed; a heap of host memory (malloc) whose region is nothing traced. */
#include <cuda_runtime_api.h>
#include <nvToolsExtMem.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"

#define MiB (1u << 20)

static nvtxDomainHandle_t domain;

static nvtxMemHeapHandle_t heap_of(void *base, size_t size)
{
    nvtxMemVirtualRangeDesc_t range = {size, base};
    nvtxMemHeapDesc_t desc = {.extCompatID = NVTX_EXT_COMPATID_MEM,
                              .structSize = sizeof desc,
                              .usage = NVTX_MEM_HEAP_USAGE_TYPE_SUB_ALLOCATOR,
                              .type = NVTX_MEM_TYPE_VIRTUAL_ADDRESS,
                              .typeSpecificDescSize = sizeof range,
                              .typeSpecificDesc = &range};
    nvtxMemHeapHandle_t heap = nvtxMemHeapRegister(domain, &desc);
    REQUIRE(heap == (nvtxMemHeapHandle_t)base); /* a tool names a heap by its address */
    return heap;
}

static nvtxMemRegionsRegisterBatch_t batch(nvtxMemHeapHandle_t heap, const nvtxMemVirtualRangeDesc_t *r,
                                           size_t n, nvtxMemRegionHandle_t *out)
{
    nvtxMemRegionsRegisterBatch_t b = {.extCompatID = NVTX_EXT_COMPATID_MEM,
                                       .structSize = sizeof b,
                                       .regionType = NVTX_MEM_TYPE_VIRTUAL_ADDRESS,
                                       .heap = heap,
                                       .regionCount = n,
                                       .regionDescElementSize = sizeof *r,
                                       .regionDescElements = r,
                                       .regionHandleElementsOut = out};
    return b;
}

static void unregister(uint32_t type, nvtxMemRegionRef_t ref)
{
    nvtxMemRegionsUnregisterBatch_t b = {.extCompatID = NVTX_EXT_COMPATID_MEM,
                                         .structSize = sizeof b,
                                         .refType = type,
                                         .refCount = 1,
                                         .refElementSize = sizeof ref,
                                         .refElements = &ref};
    nvtxMemRegionsUnregister(domain, &b);
}

static NOINLINE void pool(void)
{
    char *base;
    CHECK(cudaMalloc((void **)&base, 64 * MiB)); /* LEAK:heap */
    nvtxMemHeapHandle_t heap = heap_of(base, 64 * MiB);

    nvtxMemVirtualRangeDesc_t one = {MiB, base};
    nvtxMemRegionsRegisterBatch_t b = batch(heap, &one, 1, NULL);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:one */

    nvtxMemVirtualRangeDesc_t two[2] = {{2 * MiB, base + MiB}, {4096, base + 3 * MiB}};
    nvtxMemRegionHandle_t handles[2] = {NULL, NULL};
    b = batch(heap, two, 2, handles);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:two */

    nvtxMemVirtualRangeDesc_t grown = {256 * 1024, base + 4 * MiB};
    b = batch(heap, &grown, 1, NULL);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:small */
    grown.size = 512 * 1024;
    nvtxMemRegionsResizeBatch_t resize = {NVTX_EXT_COMPATID_MEM, sizeof resize,
                                          NVTX_MEM_TYPE_VIRTUAL_ADDRESS, 1, sizeof grown, &grown};
    nvtxMemRegionsResize(domain, &resize); /* LEAK:resized */

    nvtxMemVirtualRangeDesc_t left = {3 * MiB, base + 8 * MiB};
    b = batch(heap, &left, 1, NULL);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:left */

    unregister(NVTX_MEM_REGION_REF_TYPE_POINTER, (nvtxMemRegionRef_t){.pointer = base});
    unregister(NVTX_MEM_REGION_REF_TYPE_HANDLE, (nvtxMemRegionRef_t){.handle = handles[1]});
    unregister(NVTX_MEM_REGION_REF_TYPE_POINTER, (nvtxMemRegionRef_t){.pointer = base + MiB});
    unregister(NVTX_MEM_REGION_REF_TYPE_POINTER, (nvtxMemRegionRef_t){.pointer = base + 4 * MiB});
}

static NOINLINE void reset_heap(void)
{
    char *base;
    CHECK(cudaMalloc((void **)&base, 8 * MiB));
    nvtxMemHeapHandle_t heap = heap_of(base, 8 * MiB);
    nvtxMemVirtualRangeDesc_t four[4] = {
        {MiB, base}, {MiB, base + MiB}, {MiB, base + 2 * MiB}, {MiB, base + 3 * MiB}};
    nvtxMemRegionsRegisterBatch_t b = batch(heap, four, 4, NULL);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:reset */
    nvtxMemHeapReset(domain, heap);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:unregistered */
    nvtxMemHeapUnregister(domain, heap);
    CHECK(cudaFree(base));
}

static NOINLINE void host_heap(void)
{
    char *base = malloc(MiB);
    REQUIRE(base);
    nvtxMemHeapHandle_t heap = heap_of(base, MiB);
    nvtxMemVirtualRangeDesc_t r = {4096, base};
    nvtxMemRegionsRegisterBatch_t b = batch(heap, &r, 1, NULL);
    nvtxMemRegionsRegister(domain, &b); /* LEAK:host */
    unregister(NVTX_MEM_REGION_REF_TYPE_POINTER, (nvtxMemRegionRef_t){.pointer = base});
    nvtxMemHeapUnregister(domain, heap);
    free(base);
}

int main(void)
{
    domain = nvtxDomainCreateA("vramtrace.pool");
    pool();
    reset_heap();
    host_heap();
    printf("done pool\n");
    return 0;
}
