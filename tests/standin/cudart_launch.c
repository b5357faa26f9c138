/* SPDX-License-Identifier: MIT */
/* The stand-in runtime's entry points for the host code nvcc generates:
 * module and kernel registration (called from constructors before main)
 * and kernel launches (<<<>>>, cudaLaunchKernel). Registration keeps a table
 * of registered host stubs; a launch checks that its kernel is registered and
 * that a context can be made, as the real runtime does, and runs nothing:
 * the stand-in device has no processors; on a capturing stream it is a
 * kernel node of the capture's graph. */
#include "cudart_internal.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* dim3 and uint3 as nvcc's host code passes them (by value: 12 bytes). */
struct standin_dim3 {
    unsigned x, y, z;
};

#define MAX_PENDING_LAUNCHES 16
#define FATBIN_MAGIC 0x466174u

struct fatbin_handle;

/* Every registered kernel, however many (libtorch registers some 24,000). */
struct kernel {
    const void *stub;
    int max_dynamic_shared;
    struct fatbin_handle *module; /* registered by the program's module: its image */
    const char *name;             /* and the name the device code has */
    CUfunction *functions;        /* per device, once cudaGetFuncBySymbol asked */
    UT_hash_handle hh;
};
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct kernel *kernels;

static CUresult (*capture_info)(CUstream, CUstreamCaptureStatus *, cuuint64_t *, CUgraph *,
                                const CUgraphNode **, const CUgraphEdgeData **, size_t *);
static CUresult (*add_kernel_node)(CUgraphNode *, CUgraph, const CUgraphNode *, size_t,
                                   const CUDA_KERNEL_NODE_PARAMS *);
RT_DRIVER_FN(capture_info, "cuStreamGetCaptureInfo", 12030)
RT_DRIVER_FN(add_kernel_node, "cuGraphAddKernelNode", 12000)

struct fatbin_handle {
    unsigned magic;
    const void *image;
    CUmodule loaded[MAX_DEVICES]; /* by cudaGetFuncBySymbol, per device */
    int any_loaded;
};

static CUresult (*module_load)(CUmodule *, const void *);
static CUresult (*module_unload)(CUmodule);
static CUresult (*module_get_function)(CUfunction *, CUmodule, const char *);
RT_DRIVER_FN(module_load, "cuModuleLoadData", 2000)
RT_DRIVER_FN(module_unload, "cuModuleUnload", 2000)
RT_DRIVER_FN(module_get_function, "cuModuleGetFunction", 2000)

/* Registers STUB as a kernel (once); its entry. */
static struct kernel *register_kernel(const void *stub)
{
    struct kernel *k;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(kernels, &stub, k);
    if (!k && (k = calloc(1, sizeof *k))) {
        k->stub = stub;
        k->max_dynamic_shared = 48 << 10;
        HASH_ADD_PTR(kernels, stub, k);
    }
    pthread_mutex_unlock(&lock);
    if (!k)
        abort(); /* as the real one: a module that cannot register is fatal */
    return k;
}

void rt_register_kernel(const void *stub)
{
    register_kernel(stub);
}

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

/* The kernels of H forget its modules, which are unloaded. */
static void unload_modules(struct fatbin_handle *h)
{
    struct kernel *k, *next;
    pthread_mutex_lock(&lock);
    HASH_ITER(hh, kernels, k, next)
    {
        if (k->module == h) {
            k->module = NULL;
            free(k->functions);
            k->functions = NULL;
        }
    }
    pthread_mutex_unlock(&lock);
    for (int d = 0; d < MAX_DEVICES; d++)
        if (h->loaded[d])
            module_unload(h->loaded[d]);
}

EXPORT void __cudaUnregisterFatBinary(void **fatCubinHandle)
{
    struct fatbin_handle *h = (struct fatbin_handle *)fatCubinHandle;
    if (h && h->magic == FATBIN_MAGIC) {
        pthread_mutex_lock(&lock);
        int loaded = h->any_loaded; /* else no kernel to walk: torch has thousands of modules */
        pthread_mutex_unlock(&lock);
        if (loaded)
            unload_modules(h);
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
    (void)deviceFun, (void)thread_limit, (void)tid, (void)bid, (void)bDim, (void)gDim;
    (void)wSize;
    struct kernel *k = register_kernel(hostFun);
    pthread_mutex_lock(&lock);
    k->module = (struct fatbin_handle *)fatCubinHandle;
    k->name = deviceName;
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

static struct kernel *kernel_of(const void *hostFun)
{
    struct kernel *k;
    pthread_mutex_lock(&lock);
    HASH_FIND_PTR(kernels, &hostFun, k);
    pthread_mutex_unlock(&lock);
    return k;
}

static int registered(const void *hostFun)
{
    return kernel_of(hostFun) != NULL;
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

/* STREAM is capturing: the launch becomes a kernel node of its graph. */
static cudaError_t capture_launch(const void *kernel, struct standin_dim3 grid,
                                  struct standin_dim3 block, size_t shared, cudaStream_t stream)
{
    CUstreamCaptureStatus status = CU_STREAM_CAPTURE_STATUS_NONE;
    CUgraph graph = NULL;
    if (!capture_info || !add_kernel_node ||
        capture_info((CUstream)stream, &status, NULL, &graph, NULL, NULL, NULL) != CUDA_SUCCESS ||
        status != CU_STREAM_CAPTURE_STATUS_ACTIVE)
        return cudaSuccess;
    CUDA_KERNEL_NODE_PARAMS params;
    memset(&params, 0, sizeof params);
    params.func = (CUfunction)(uintptr_t)kernel;
    params.gridDimX = grid.x, params.gridDimY = grid.y, params.gridDimZ = grid.z;
    params.blockDimX = block.x, params.blockDimY = block.y, params.blockDimZ = block.z;
    params.sharedMemBytes = (unsigned)shared;
    CUgraphNode node;
    return rt_error(rt_map_error(add_kernel_node(&node, graph, NULL, 0, &params)));
}

static cudaError_t launch(const void *kernel, struct standin_dim3 grid, struct standin_dim3 block,
                          size_t shared, cudaStream_t stream)
{
    cudaError_t e;
    struct kernel *k = kernel ? kernel_of(kernel) : NULL;
    if (!k)
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    if (!grid.x || !grid.y || !grid.z || !block.x || !block.y || !block.z ||
        (uint64_t)block.x * block.y * block.z > 1024 || shared > (size_t)k->max_dynamic_shared)
        return rt_error((cudaError_t)cudaErrorInvalidConfiguration);
    e = rt_context();
    if (e != cudaSuccess)
        return rt_error(e);
    return capture_launch(kernel, grid, block, shared, stream);
}

EXPORT cudaError_t __cudaLaunchKernel(const void *kernel, struct standin_dim3 gridDim,
                                              struct standin_dim3 blockDim, void **args,
                                              size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch(kernel, gridDim, blockDim, sharedMem, stream);
}

EXPORT cudaError_t __cudaLaunchKernel_ptsz(const void *kernel,
                                                   struct standin_dim3 gridDim,
                                                   struct standin_dim3 blockDim, void **args,
                                                   size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch(kernel, gridDim, blockDim, sharedMem, stream);
}

EXPORT cudaError_t cudaLaunchKernel(const void *func, struct standin_dim3 gridDim,
                                            struct standin_dim3 blockDim, void **args,
                                            size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch(func, gridDim, blockDim, sharedMem, stream);
}

EXPORT cudaError_t cudaLaunchKernel_ptsz(const void *func, struct standin_dim3 gridDim,
                                                 struct standin_dim3 blockDim, void **args,
                                                 size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch(func, gridDim, blockDim, sharedMem, stream);
}

EXPORT cudaError_t cudaLaunchCooperativeKernel(const void *func, struct standin_dim3 gridDim,
                                               struct standin_dim3 blockDim, void **args,
                                               size_t sharedMem, cudaStream_t stream)
{
    (void)args;
    return launch(func, gridDim, blockDim, sharedMem, stream);
}

EXPORT cudaError_t cudaLaunchKernelExC(const cudaLaunchConfig_t *config, const void *func,
                                       void **args)
{
    (void)args;
    if (!config)
        return rt_error(cudaErrorInvalidValue);
    struct standin_dim3 grid = {config->gridDim.x, config->gridDim.y, config->gridDim.z};
    struct standin_dim3 block = {config->blockDim.x, config->blockDim.y, config->blockDim.z};
    return launch(func, grid, block, config->dynamicSmemBytes, config->stream);
}

/* A kernel's attributes: those of a small kernel on the stand-in GPU
 * (compute capability 9.0), its dynamic shared memory limit as set. */
EXPORT cudaError_t cudaFuncGetAttributes(struct cudaFuncAttributes *attr, const void *func)
{
    struct kernel *k = func ? kernel_of(func) : NULL;
    if (!attr)
        return rt_error(cudaErrorInvalidValue);
    if (!k)
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    memset(attr, 0, sizeof *attr);
    attr->maxThreadsPerBlock = 1024;
    attr->numRegs = 32;
    attr->ptxVersion = 90;
    attr->binaryVersion = 90;
    attr->maxDynamicSharedSizeBytes = k->max_dynamic_shared;
    attr->preferredShmemCarveout = -1;
    return cudaSuccess;
}

EXPORT cudaError_t cudaFuncSetAttribute(const void *func, enum cudaFuncAttribute attr, int value)
{
    struct kernel *k = func ? kernel_of(func) : NULL;
    if (!k)
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    if (attr == cudaFuncAttributeMaxDynamicSharedMemorySize) {
        if (value < 0 || value > 232448) /* the opt-in limit (attribute 97) */
            return rt_error(cudaErrorInvalidValue);
        k->max_dynamic_shared = value;
    }
    return cudaSuccess;
}

EXPORT cudaError_t cudaKernelSetAttributeForDevice(cudaKernel_t kernel, enum cudaFuncAttribute attr,
                                                   int value, int device)
{
    if (device < 0 || device >= rt_ndev)
        return rt_error(cudaErrorInvalidDevice);
    return cudaFuncSetAttribute((const void *)kernel, attr, value);
}

/* Blocks of BLOCK threads that fit on one multiprocessor of the stand-in
 * GPU (2048 threads, 32 blocks, 228 KiB of shared memory each). */
EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(
    int *numBlocks, const void *func, int blockSize, size_t dynamicSMemSize, unsigned int flags)
{
    (void)flags;
    if (!numBlocks || blockSize <= 0)
        return rt_error(cudaErrorInvalidValue);
    if (!func || !registered(func))
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    int by_threads = 2048 / blockSize, by_shared = 32;
    if (dynamicSMemSize)
        by_shared = (int)((size_t)233472 / (dynamicSMemSize + 1024));
    *numBlocks = by_threads < by_shared ? by_threads : by_shared;
    if (*numBlocks > 32)
        *numBlocks = 32;
    return cudaSuccess;
}

EXPORT cudaError_t cudaOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, const void *func,
                                                                 int blockSize,
                                                                 size_t dynamicSMemSize)
{
    return cudaOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                  dynamicSMemSize, 0);
}

/* The module of K's program loaded into the current context's device, and
 * the function of K's name in it, as the driver gives them; lock held. */
static CUresult function_locked(struct kernel *k, CUfunction *out)
{
    CUdevice d;
    CUresult r = rt_drv.ctxGetDevice_v2(&d, NULL);
    if (r != CUDA_SUCCESS || d < 0 || d >= MAX_DEVICES)
        return r != CUDA_SUCCESS ? r : CUDA_ERROR_INVALID_DEVICE;
    struct fatbin_handle *h = k->module;
    if (!h->loaded[d] && (r = module_load(&h->loaded[d], h->image)) != CUDA_SUCCESS)
        return r;
    h->any_loaded = 1;
    if (!k->functions && !(k->functions = calloc(MAX_DEVICES, sizeof *k->functions)))
        return CUDA_ERROR_OUT_OF_MEMORY;
    if (!k->functions[d] &&
        (r = module_get_function(&k->functions[d], h->loaded[d], k->name)) != CUDA_SUCCESS)
        return r;
    *out = k->functions[d];
    return CUDA_SUCCESS;
}

/* The driver's function of a registered kernel, in the current context (its
 * program's module loaded there on the first ask). */
EXPORT cudaError_t cudaGetFuncBySymbol(cudaFunction_t *functionPtr, const void *symbolPtr)
{
    struct kernel *k = symbolPtr ? kernel_of(symbolPtr) : NULL;
    if (!functionPtr)
        return rt_error(cudaErrorInvalidValue);
    if (!k)
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    CTX_OR_RETURN();
    if (!module_load || !module_unload || !module_get_function)
        return rt_error((cudaError_t)cudaErrorCallRequiresNewerDriver);
    CUfunction f = NULL;
    pthread_mutex_lock(&lock);
    int in_module = k->module != NULL; /* not a library's kernel */
    CUresult r = in_module ? function_locked(k, &f) : CUDA_SUCCESS;
    pthread_mutex_unlock(&lock);
    if (!in_module)
        return rt_error((cudaError_t)cudaErrorInvalidDeviceFunction);
    if (r != CUDA_SUCCESS)
        return rt_error(rt_map_error(r));
    *functionPtr = (cudaFunction_t)f;
    return cudaSuccess;
}
