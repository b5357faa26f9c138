/* The stand-in runtime's entry points for the host code nvcc generates:
 * module and kernel registration (called from constructors before main)
 * and kernel launches (<<<>>>, cudaLaunchKernel). Registration keeps a table
 * of registered host stubs; a launch checks that its kernel is registered and
 * that a context can be made, as the real runtime does, and runs nothing:
 * the stand-in device has no processors. */
#include "cudart_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>

/* dim3 and uint3 as nvcc's host code passes them (by value: 12 bytes). */
struct standin_dim3 {
    unsigned x, y, z;
};

#define MAX_KERNELS 4096
#define MAX_PENDING_LAUNCHES 16
#define FATBIN_MAGIC 0x466174u

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static const void *kernels[MAX_KERNELS];
static unsigned nkernels;

struct fatbin_handle {
    unsigned magic;
    const void *image;
};

EXPORT void **__cudaRegisterFatBinary(void *fatCubin)
{
    struct fatbin_handle *h = calloc(1, sizeof *h);
    if (!h)
        abort(); /* as the real one: a module that cannot register is fatal */
    h->magic = FATBIN_MAGIC;
    h->image = fatCubin;
    return (void **)h;
}

EXPORT void __cudaRegisterFatBinaryEnd(void **fatCubinHandle)
{
    (void)fatCubinHandle;
}

EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct fatbin_handle *h = (struct fatbin_handle *)fatCubinHandle;
    if (h && h->magic == FATBIN_MAGIC) {
        h->magic = 0;
        free(h);
    }
}

EXPORT char __cudaInitModule(void **fatCubinHandle)
{
    return fatCubinHandle != NULL;
}

EXPORT void __cudaRegisterFunction(void **fatCubinHandle, const char *hostFun,
                                           char *deviceFun, const char *deviceName,
                                           int thread_limit, void *tid, void *bid, void *bDim,
                                           void *gDim, int *wSize)
{
    (void)fatCubinHandle, (void)deviceFun, (void)deviceName, (void)thread_limit, (void)tid;
    (void)bid, (void)bDim, (void)gDim, (void)wSize;
    pthread_mutex_lock(&lock);
    if (nkernels < MAX_KERNELS)
        kernels[nkernels++] = hostFun;
    pthread_mutex_unlock(&lock);
}

EXPORT void __cudaRegisterVar(void **fatCubinHandle, char *hostVar, char *deviceAddress,
                                      const char *deviceName, int ext, size_t size,
                                      int constant, int global)
{
    (void)fatCubinHandle, (void)hostVar, (void)deviceAddress, (void)deviceName, (void)ext;
    (void)size, (void)constant, (void)global;
}

EXPORT void __cudaRegisterManagedVar(void **fatCubinHandle, void **hostVarPtrAddress,
                                             char *deviceAddress, const char *deviceName,
                                             int ext, size_t size, int constant, int global)
{
    (void)fatCubinHandle, (void)hostVarPtrAddress, (void)deviceAddress, (void)deviceName;
    (void)ext, (void)size, (void)constant, (void)global;
}

static int registered(const void *hostFun)
{
    int found = 0;
    pthread_mutex_lock(&lock);
    for (unsigned i = 0; i < nkernels && !found; i++)
        found = kernels[i] == hostFun;
    pthread_mutex_unlock(&lock);
    return found;
}

/* <<<grid, block, shared, stream>>> pushes a configuration that the
 * kernel's host stub pops right away, on the same thread. */
static __thread struct {
    struct standin_dim3 grid, block;
    size_t shared;
    void *stream;
} pending[MAX_PENDING_LAUNCHES];
static __thread unsigned npending;

EXPORT unsigned __cudaPushCallConfiguration(struct standin_dim3 gridDim,
                                                    struct standin_dim3 blockDim,
                                                    size_t sharedMem, void *stream)
{
    if (npending == MAX_PENDING_LAUNCHES)
        return 1;
    pending[npending].grid = gridDim;
    pending[npending].block = blockDim;
    pending[npending].shared = sharedMem;
    pending[npending].stream = stream;
    npending++;
    return 0;
}

EXPORT cudaError_t __cudaPopCallConfiguration(struct standin_dim3 *gridDim,
                                                      struct standin_dim3 *blockDim,
                                                      size_t *sharedMem, void *stream)
{
    if (npending == 0)
        return rt_error((cudaError_t)cudaErrorMissingConfiguration);
    npending--;
    *gridDim = pending[npending].grid;
    *blockDim = pending[npending].block;
    *sharedMem = pending[npending].shared;
    *(void **)stream = pending[npending].stream;
    return cudaSuccess;
}

/* A kernel handle is the registered host stub itself. */
EXPORT cudaError_t __cudaGetKernel(void **kernel, const void *hostFun)
{
    if (!kernel || !registered(hostFun))
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    *kernel = (void *)hostFun;
    return cudaSuccess;
}

static cudaError_t launch(const void *kernel, struct standin_dim3 grid, struct standin_dim3 block)
{
    cudaError_t e;
    if (!kernel || !registered(kernel))
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z ||
        (uint64_t)block.x * block.y * block.z > 1024)
        return rt_error((cudaError_t)cudaErrorInvalidConfiguration);
    e = rt_context();
    return e == cudaSuccess ? cudaSuccess : rt_error(e);
}

EXPORT cudaError_t __cudaLaunchKernel(const void *kernel, struct standin_dim3 gridDim,
                                              struct standin_dim3 blockDim, void **args,
                                              size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem, (void)stream;
    return launch(kernel, gridDim, blockDim);
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(const void *kernel,
                                                   struct standin_dim3 gridDim,
                                                   struct standin_dim3 blockDim, void **args,
                                                   size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem, (void)stream;
    return launch(kernel, gridDim, blockDim);
}

EXPORT cudaError_t cudaLaunchKernel(const void *func, struct standin_dim3 gridDim,
                                            struct standin_dim3 blockDim, void **args,
                                            size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem, (void)stream;
    return launch(func, gridDim, blockDim);
}

EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, struct standin_dim3 gridDim,
                                                 struct standin_dim3 blockDim, void **args,
                                                 size_t sharedMem, cudaStream_t stream)
{
    (void)args, (void)sharedMem, (void)stream;
    return launch(func, gridDim, blockDim);
}
/* SPDX-License-Identifier: MIT */
