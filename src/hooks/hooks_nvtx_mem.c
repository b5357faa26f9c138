/* SPDX-License-Identifier: MIT */
/* NVTX's memory API (nvToolsExtMem.h): pool allocators (KV caches, RMM,
 * the program's own) describe what they hand out inside a pool. A heap
 * (nvtxMemHeapRegister, process virtual memory) whose memory is a traced
 * device allocation of its own (a cudaMalloc'd block) becomes a segment,
 * as a framework's cache's are: its regions (nvtxMemRegionsRegister) are
 * traced inside it as allocations (api nvtxMemRegionsRegister) at the line
 * that registered them, and freed by nvtxMemRegionsUnregister,
 * nvtxMemHeapReset and nvtxMemHeapUnregister; nvtxMemRegionsResize frees
 * and registers again, at its own line. Heaps of other memory (the host's,
 * a part of an allocation, the process-wide heap) are left alone: their
 * regions are nothing the tracer counts.
 *
 * The memory extension is loaded from the same injection library as the
 * core (NVTX_INJECTION64_PATH), through InitializeInjectionNvtxExtension.
 * The program sees what the interface documents of a tool: a heap's handle
 * is its address, a region's its address. */
#include "entry.h"
#include "event.h"
#include "nvtx_abi.h"
#include "nvtx_hooks.h"
#include "tracer.h"

#include <pthread.h>
#include <stdint.h>

/* The heaps whose regions are traced, by address: device and kind of
 * their allocation. More than HEAPS at once: the others' are not traced. */
#define HEAPS 256
struct heap {
    uint64_t va, size;
    void *ctx;
    int32_t device;
    uint8_t kind;
};
static struct heap heaps[HEAPS];
static size_t nheaps;
static pthread_mutex_t heaps_lock = PTHREAD_MUTEX_INITIALIZER;

/* The heap at VA (CONTAINS: the one holding VA) into *OUT; 0 when none. */
static int heap_find(uint64_t va, int contains, struct heap *out)
{
    int found = 0;
    pthread_mutex_lock(&heaps_lock);
    for (size_t i = 0; i < nheaps && !found; i++)
        if (heaps[i].va == va || (contains && va - heaps[i].va < heaps[i].size)) {
            *out = heaps[i];
            found = 1;
        }
    pthread_mutex_unlock(&heaps_lock);
    return found;
}

/* A forked child traces its own allocations only: none of its parent's
 * heaps (and a lock a parent's thread held is free here). */
static void heaps_after_fork_child(void)
{
    pthread_mutex_init(&heaps_lock, NULL);
    nheaps = 0;
}

static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;

static void fork_handler_install(void)
{
    pthread_atfork(NULL, NULL, heaps_after_fork_child);
}

static void heap_keep(const struct heap *h)
{
    pthread_once(&fork_handler_once, fork_handler_install);
    pthread_mutex_lock(&heaps_lock);
    size_t i = 0;
    while (i < nheaps && heaps[i].va != h->va)
        i++;
    if (i < HEAPS) {
        heaps[i] = *h;
        nheaps += i == nheaps;
    }
    pthread_mutex_unlock(&heaps_lock);
}

static void heap_forget(uint64_t va)
{
    pthread_mutex_lock(&heaps_lock);
    for (size_t i = 0; i < nheaps; i++)
        if (heaps[i].va == va) {
            heaps[i] = heaps[--nheaps];
            break;
        }
    pthread_mutex_unlock(&heaps_lock);
}

static nvtxMemHeapHandle_t heap_register(nvtxDomainHandle_t domain, nvtxMemHeapDesc_t const *desc)
{
    const nvtxMemVirtualRangeDesc_t *range;
    struct vt_alloc_info info;
    (void)domain;
    if (!desc || desc->type != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || !desc->typeSpecificDesc ||
        desc->typeSpecificDescSize < sizeof *range)
        return NULL; /* as without a tool: nothing we know how to name */
    range = desc->typeSpecificDesc;
    uint64_t va = (uint64_t)(uintptr_t)range->ptr;
    if (vt_enter() && vt_on_nvtx_heap(va, range->size, &info))
        heap_keep(&(struct heap){va, range->size, info.ctx, info.device, info.kind});
    return (nvtxMemHeapHandle_t)(uintptr_t)range->ptr; /* the documented handle: its address */
}

/* The regions of HEAP are gone (a reset, an unregistering). */
static void heap_emptied(nvtxMemHeapHandle_t heap, int forget)
{
    struct heap h = {0}; /* filled by heap_find (gcc for aarch64 cannot tell) */
    uint64_t va = (uint64_t)(uintptr_t)heap;
    if (!heap || !heap_find(va, 0, &h))
        return;
    if (vt_enter())
        vt_on_regions_freed(h.va, h.va + h.size);
    if (forget)
        heap_forget(va);
}

static void heap_unregister(nvtxDomainHandle_t domain, nvtxMemHeapHandle_t heap)
{
    (void)domain;
    heap_emptied(heap, 1);
}

static void heap_reset(nvtxDomainHandle_t domain, nvtxMemHeapHandle_t heap)
{
    (void)domain;
    heap_emptied(heap, 0);
}

/* The I-th element of an array of ELEMENT_SIZE-byte elements. */
static const void *element(const void *array, size_t element_size, size_t i)
{
    return (const char *)array + i * element_size;
}

/* The I-th of a batch's region descriptions, or NULL where they are not
 * ranges of process virtual memory we can read. */
static const nvtxMemVirtualRangeDesc_t *range_at(uint32_t type, const void *array,
                                                 size_t element_size, size_t i)
{
    if (type != NVTX_MEM_TYPE_VIRTUAL_ADDRESS || !array ||
        element_size < sizeof(nvtxMemVirtualRangeDesc_t))
        return NULL;
    return element(array, element_size, i);
}

static void region_traced(const struct heap *h, const nvtxMemVirtualRangeDesc_t *r)
{
    if (!vt_event_begin())
        return;
    vt_on_tensor_alloc((struct vt_alloc_info){
        .key = (uint64_t)(uintptr_t)r->ptr,
        .size = r->size,
        .ctx = h->ctx,
        .device = h->device,
        .api = VT_API_nvtxMemRegionsRegister,
        .kind = h->kind,
        .space = VT_SPACE_TENSOR,
    });
}

static void regions_register(nvtxDomainHandle_t domain, nvtxMemRegionsRegisterBatch_t const *desc)
{
    struct heap h = {0}; /* filled by heap_find (gcc for aarch64 cannot tell) */
    const nvtxMemVirtualRangeDesc_t *r;
    (void)domain;
    if (!desc)
        return;
    int traced = desc->heap && heap_find((uint64_t)(uintptr_t)desc->heap, 0, &h);
    for (size_t i = 0; i < desc->regionCount; i++) {
        if (!(r = range_at(desc->regionType, desc->regionDescElements, desc->regionDescElementSize,
                           i)))
            return;
        if (desc->regionHandleElementsOut) /* a region's handle is its address */
            desc->regionHandleElementsOut[i] = (nvtxMemRegionHandle_t)(uintptr_t)r->ptr;
        if (traced && (uint64_t)(uintptr_t)r->ptr - h.va < h.size)
            region_traced(&h, r);
    }
}

static void region_unregistered(uint64_t va)
{
    if (vt_event_begin())
        vt_on_region_free(va);
}

static void regions_unregister(nvtxDomainHandle_t domain,
                               nvtxMemRegionsUnregisterBatch_t const *desc)
{
    (void)domain;
    if (!desc || !desc->refElements || desc->refElementSize < sizeof(nvtxMemRegionRef_t) ||
        (desc->refType != NVTX_MEM_REGION_REF_TYPE_POINTER &&
         desc->refType != NVTX_MEM_REGION_REF_TYPE_HANDLE))
        return;
    for (size_t i = 0; i < desc->refCount; i++) {
        const nvtxMemRegionRef_t *ref = element(desc->refElements, desc->refElementSize, i);
        region_unregistered(desc->refType == NVTX_MEM_REGION_REF_TYPE_POINTER
                                ? (uint64_t)(uintptr_t)ref->pointer
                                : (uint64_t)(uintptr_t)ref->handle);
    }
}

/* A region resized: freed, and registered again at its new size here. */
static void regions_resize(nvtxDomainHandle_t domain, nvtxMemRegionsResizeBatch_t const *desc)
{
    struct heap h = {0}; /* filled by heap_find (gcc for aarch64 cannot tell) */
    const nvtxMemVirtualRangeDesc_t *r;
    (void)domain;
    for (size_t i = 0; desc && i < desc->regionDescCount; i++) {
        if (!(r = range_at(desc->regionType, desc->regionDescElements, desc->regionDescElementSize,
                           i)))
            return;
        uint64_t va = (uint64_t)(uintptr_t)r->ptr;
        if (!heap_find(va, 1, &h))
            continue;
        region_unregistered(va);
        region_traced(&h, r);
    }
}

VT_EXPORT int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *module);

#define MEM_SLOT(id, fn)     \
    {                        \
        (id), (intptr_t)(fn) \
    }
static const struct {
    unsigned id;
    intptr_t fn;
} mem_slots[] = {
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemHeapRegister, heap_register),
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemHeapUnregister, heap_unregister),
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemHeapReset, heap_reset),
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemRegionsRegister, regions_register),
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemRegionsResize, regions_resize),
    MEM_SLOT(NVTX3EXT_CBID_nvtxMemRegionsUnregister, regions_unregister),
};

/* Each NVTX copy calls this once per extension it uses. The memory
 * extension's one segment (id 1) gets our slots; any other extension, 0:
 * NVTX keeps its no-ops. */
VT_EXPORT int InitializeInjectionNvtxExtension(nvtxExtModuleInfo_t *module)
{
    if (!module || module->structSize < sizeof *module ||
        module->moduleId != NVTX_EXT_MODULEID_MEM || module->compatId != NVTX_EXT_COMPATID_MEM ||
        module->segmentsCount < 1 || !module->segments || !vt_nvtx_installing())
        return 0;
    nvtxExtModuleSegment_t *segment = &module->segments[0];
    if (segment->segmentId != 1 || !segment->functionSlots)
        return 0;
    for (size_t i = 0; i < sizeof mem_slots / sizeof mem_slots[0]; i++)
        if (mem_slots[i].id < segment->slotCount)
            segment->functionSlots[mem_slots[i].id] = mem_slots[i].fn;
    return 1;
}
