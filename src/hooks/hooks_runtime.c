/* Wrappers of the runtime allocation API. They do not count anything: they
 * tag the thread with the API the program called, and the driver hook that
 * the runtime reaches counts the allocation once, under that name. Only when
 * no driver hook saw the call (a runtime that reached the driver some way we
 * do not intercept) does the wrapper account for it itself. */
#include "account.h"
#include "cuda_abi.h"
#include "format.h"
#include "resolve.h"
#include "tracer.h"
#include "track.h"

#include <errno.h>
#include <stdint.h>

#define RUNTIME_REAL(type, name)                                                            \
    static struct vt_caller_cache cache;                                                    \
    type real = (type)vt_real_for_caller(#name, __builtin_return_address(0), &cache);       \
    if (!real)                                                                              \
        return cudaErrorInitializationError

static int tag_begin(unsigned api)
{
    if (vt_thread_state.busy || vt_thread_state.api || !vt_tracing())
        return 0;
    vt_thread_state.api = api;
    vt_thread_state.counted = 0;
    return 1;
}

/* Ends the tag; 1 when the driver hooks did not see the call. */
static int tag_end_unseen(void)
{
    vt_thread_state.api = 0;
    return !vt_thread_state.counted;
}

static cudaError_t finish_alloc(cudaError_t r, unsigned api, const void *ptr, uint64_t size,
                                unsigned kind, cudaStream_t stream)
{
    int saved = errno;
    /* A failure the driver never saw (no driver loaded, a bad argument) is
     * recorded too: a run where every allocation failed has nothing to judge. */
    if (tag_end_unseen() && (r != cudaSuccess || ptr) && vt_enter()) {
        struct vt_alloc_info info = {
            .key = (uint64_t)(uintptr_t)ptr, .size = size, .api = api, .kind = kind,
            .space = VT_SPACE_POINTER, .device = VT_DEVICE_OF_CONTEXT,
            .stream = (uint64_t)(uintptr_t)stream,
        };
        vt_account_alloc((CUresult)r, info);
    }
    errno = saved;
    return r;
}

static cudaError_t finish_free(cudaError_t r, unsigned api, const void *ptr, cudaStream_t stream)
{
    int saved = errno;
    if (tag_end_unseen() && r == cudaSuccess && ptr && vt_enter()) {
        struct vt_pending_free pending;
        struct vt_stack stack_buffer;
        const struct vt_stack *stack = vt_account_free_stack(&stack_buffer);
        uint64_t key = (uint64_t)(uintptr_t)ptr, s = (uint64_t)(uintptr_t)stream;
        vt_track_free_begin(key, VT_SPACE_POINTER, api, s, stack, &pending);
        vt_track_free_end(key, VT_SPACE_POINTER, api, s, stack, &pending, 0);
        vt_leave();
    }
    errno = saved;
    return r;
}

VT_EXPORT cudaError_t cudaMalloc(void **ptr, size_t size)
{
    RUNTIME_REAL(cudaMalloc_fn, cudaMalloc);
    if (!tag_begin(VT_API_cudaMalloc))
        return real(ptr, size);
    cudaError_t r = real(ptr, size);
    return finish_alloc(r, VT_API_cudaMalloc, r ? NULL : *ptr, size, VT_KIND_DEVICE, NULL);
}

VT_EXPORT cudaError_t cudaMallocPitch(void **ptr, size_t *pitch, size_t width, size_t height)
{
    RUNTIME_REAL(cudaMallocPitch_fn, cudaMallocPitch);
    if (!tag_begin(VT_API_cudaMallocPitch))
        return real(ptr, pitch, width, height);
    cudaError_t r = real(ptr, pitch, width, height);
    return finish_alloc(r, VT_API_cudaMallocPitch, r ? NULL : *ptr, r ? 0 : *pitch * height,
                        VT_KIND_DEVICE, NULL);
}

VT_EXPORT cudaError_t cudaMalloc3D(struct cudaPitchedPtr *pitched, struct cudaExtent extent)
{
    RUNTIME_REAL(cudaMalloc3D_fn, cudaMalloc3D);
    if (!tag_begin(VT_API_cudaMalloc3D))
        return real(pitched, extent);
    cudaError_t r = real(pitched, extent);
    return finish_alloc(r, VT_API_cudaMalloc3D, r ? NULL : pitched->ptr,
                        r ? 0 : pitched->pitch * extent.height * extent.depth, VT_KIND_DEVICE,
                        NULL);
}

VT_EXPORT cudaError_t cudaMallocManaged(void **ptr, size_t size, unsigned int flags)
{
    RUNTIME_REAL(cudaMallocManaged_fn, cudaMallocManaged);
    if (!tag_begin(VT_API_cudaMallocManaged))
        return real(ptr, size, flags);
    cudaError_t r = real(ptr, size, flags);
    return finish_alloc(r, VT_API_cudaMallocManaged, r ? NULL : *ptr, size, VT_KIND_MANAGED, NULL);
}

static cudaError_t malloc_async(cudaMallocAsync_fn real, void **ptr, size_t size,
                                cudaStream_t stream)
{
    if (!tag_begin(VT_API_cudaMallocAsync))
        return real(ptr, size, stream);
    cudaError_t r = real(ptr, size, stream);
    return finish_alloc(r, VT_API_cudaMallocAsync, r ? NULL : *ptr, size, VT_KIND_DEVICE, stream);
}

VT_EXPORT cudaError_t cudaMallocAsync(void **ptr, size_t size, cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocAsync_fn, cudaMallocAsync);
    return malloc_async(real, ptr, size, stream);
}

VT_EXPORT cudaError_t cudaMallocAsync_ptsz(void **ptr, size_t size, cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocAsync_fn, cudaMallocAsync_ptsz);
    return malloc_async(real, ptr, size, stream);
}

static cudaError_t malloc_from_pool(cudaMallocFromPoolAsync_fn real, void **ptr, size_t size,
                                   cudaMemPool_t pool, cudaStream_t stream)
{
    if (!tag_begin(VT_API_cudaMallocFromPoolAsync))
        return real(ptr, size, pool, stream);
    cudaError_t r = real(ptr, size, pool, stream);
    return finish_alloc(r, VT_API_cudaMallocFromPoolAsync, r ? NULL : *ptr, size,
                        VT_KIND_DEVICE, stream);
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync(void **ptr, size_t size, cudaMemPool_t pool,
                                              cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocFromPoolAsync_fn, cudaMallocFromPoolAsync);
    return malloc_from_pool(real, ptr, size, pool, stream);
}

VT_EXPORT cudaError_t cudaMallocFromPoolAsync_ptsz(void **ptr, size_t size, cudaMemPool_t pool,
                                                   cudaStream_t stream)
{
    RUNTIME_REAL(cudaMallocFromPoolAsync_fn, cudaMallocFromPoolAsync_ptsz);
    return malloc_from_pool(real, ptr, size, pool, stream);
}

VT_EXPORT cudaError_t cudaMallocHost(void **ptr, size_t size)
{
    RUNTIME_REAL(cudaMallocHost_fn, cudaMallocHost);
    if (!tag_begin(VT_API_cudaMallocHost))
        return real(ptr, size);
    cudaError_t r = real(ptr, size);
    return finish_alloc(r, VT_API_cudaMallocHost, r ? NULL : *ptr, size, VT_KIND_HOST, NULL);
}

VT_EXPORT cudaError_t cudaHostAlloc(void **ptr, size_t size, unsigned int flags)
{
    RUNTIME_REAL(cudaHostAlloc_fn, cudaHostAlloc);
    if (!tag_begin(VT_API_cudaHostAlloc))
        return real(ptr, size, flags);
    cudaError_t r = real(ptr, size, flags);
    return finish_alloc(r, VT_API_cudaHostAlloc, r ? NULL : *ptr, size, VT_KIND_HOST, NULL);
}

VT_EXPORT cudaError_t cudaFree(void *ptr)
{
    RUNTIME_REAL(cudaFree_fn, cudaFree);
    if (!ptr || !tag_begin(VT_API_cudaFree))
        return real(ptr);
    return finish_free(real(ptr), VT_API_cudaFree, ptr, NULL);
}

static cudaError_t free_async(cudaFreeAsync_fn real, void *ptr, cudaStream_t stream)
{
    if (!ptr || !tag_begin(VT_API_cudaFreeAsync))
        return real(ptr, stream);
    return finish_free(real(ptr, stream), VT_API_cudaFreeAsync, ptr, stream);
}

VT_EXPORT cudaError_t cudaFreeAsync(void *ptr, cudaStream_t stream)
{
    RUNTIME_REAL(cudaFreeAsync_fn, cudaFreeAsync);
    return free_async(real, ptr, stream);
}

VT_EXPORT cudaError_t cudaFreeAsync_ptsz(void *ptr, cudaStream_t stream)
{
    RUNTIME_REAL(cudaFreeAsync_fn, cudaFreeAsync_ptsz);
    return free_async(real, ptr, stream);
}

VT_EXPORT cudaError_t cudaFreeHost(void *ptr)
{
    RUNTIME_REAL(cudaFreeHost_fn, cudaFreeHost);
    if (!ptr || !tag_begin(VT_API_cudaFreeHost))
        return real(ptr);
    return finish_free(real(ptr), VT_API_cudaFreeHost, ptr, NULL);
}

/* Arrays (plain and mipmapped) and device reset: tagged only (the driver
 * hook knows the sizes). */
VT_EXPORT cudaError_t cudaMallocArray(cudaArray_t *array, const struct cudaChannelFormatDesc *desc,
                                      size_t width, size_t height, unsigned int flags)
{
    RUNTIME_REAL(cudaMallocArray_fn, cudaMallocArray);
    if (!tag_begin(VT_API_cudaMallocArray))
        return real(array, desc, width, height, flags);
    cudaError_t r = real(array, desc, width, height, flags);
    tag_end_unseen();
    return r;
}

VT_EXPORT cudaError_t cudaFreeArray(cudaArray_t array)
{
    RUNTIME_REAL(cudaFreeArray_fn, cudaFreeArray);
    if (!tag_begin(VT_API_cudaFreeArray))
        return real(array);
    cudaError_t r = real(array);
    tag_end_unseen();
    return r;
}

VT_EXPORT cudaError_t cudaMallocMipmappedArray(cudaMipmappedArray_t *array,
                                               const struct cudaChannelFormatDesc *desc,
                                               struct cudaExtent extent, unsigned int levels,
                                               unsigned int flags)
{
    RUNTIME_REAL(cudaMallocMipmappedArray_fn, cudaMallocMipmappedArray);
    if (!tag_begin(VT_API_cudaMallocMipmappedArray))
        return real(array, desc, extent, levels, flags);
    cudaError_t r = real(array, desc, extent, levels, flags);
    tag_end_unseen();
    return r;
}

VT_EXPORT cudaError_t cudaFreeMipmappedArray(cudaMipmappedArray_t array)
{
    RUNTIME_REAL(cudaFreeMipmappedArray_fn, cudaFreeMipmappedArray);
    if (!tag_begin(VT_API_cudaFreeMipmappedArray))
        return real(array);
    cudaError_t r = real(array);
    tag_end_unseen();
    return r;
}

VT_EXPORT cudaError_t cudaDeviceReset(void)
{
    RUNTIME_REAL(cudaDeviceReset_fn, cudaDeviceReset);
    if (!tag_begin(VT_API_cudaDeviceReset))
        return real();
    cudaError_t r = real();
    tag_end_unseen();
    return r;
}
