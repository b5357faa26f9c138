/* SPDX-License-Identifier: MIT */
/* Modules and launches: any image (cubin, fatbin, PTX) loads, from memory
 * (JIT options checked, not applied) or from a file (an unreadable one not
 * found, an empty one no image), its functions are found by name, occupancy is that of
 * a GPU of 2048 threads, 32 blocks and 228 KiB of shared memory per
 * multiprocessor (1 KiB of it reserved per block), and a launch runs nothing (the stand-in GPU has no
 * processors), after the checks the real driver makes; on a capturing stream
 * a launch is a kernel node of the capture's graph. cuGetExportTable is
 * exported, as programs look it up, and supports no table. */
#include "driver_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MODULE_MAGIC 0x4d4f4455u
#define FUNCTION_MAGIC 0x46554e43u

struct smodule {
    unsigned magic;
};

struct sfunction {
    unsigned magic;
    int max_dynamic_shared;
};

EXPORT CUresult cuModuleLoadData(CUmodule *module, const void *image)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!module || !image)
        return CUDA_ERROR_INVALID_VALUE;
    if (!live_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    struct smodule *m = calloc(1, sizeof *m);
    if (!m)
        return CUDA_ERROR_OUT_OF_MEMORY;
    m->magic = MODULE_MAGIC;
    *module = (CUmodule)m;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuModuleLoadDataEx(CUmodule *module, const void *image, unsigned int numOptions,
                                   CUjit_option *options, void **optionValues)
{
    if (numOptions && (!options || !optionValues))
        return CUDA_ERROR_INVALID_VALUE;
    return cuModuleLoadData(module, image);
}

/* A file that cannot be read is CUDA_ERROR_FILE_NOT_FOUND; an empty one
 * no image. */
EXPORT CUresult cuModuleLoad(CUmodule *module, const char *fname)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!module || !fname)
        return CUDA_ERROR_INVALID_VALUE;
    FILE *f = fopen(fname, "rb");
    if (!f)
        return CUDA_ERROR_FILE_NOT_FOUND;
    char first[16];
    size_t n = fread(first, 1, sizeof first, f);
    fclose(f);
    return n ? cuModuleLoadData(module, first) : CUDA_ERROR_INVALID_IMAGE;
}

EXPORT CUresult cuModuleUnload(CUmodule hmod)
{
    struct smodule *m = (struct smodule *)hmod;
    if (!m || m->magic != MODULE_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    m->magic = 0;
    free(m);
    return CUDA_SUCCESS;
}

/* A function handle lives as long as the process (modules are few). */
EXPORT CUresult cuModuleGetFunction(CUfunction *hfunc, CUmodule hmod, const char *name)
{
    struct smodule *m = (struct smodule *)hmod;
    if (!hfunc || !name)
        return CUDA_ERROR_INVALID_VALUE;
    if (!m || m->magic != MODULE_MAGIC)
        return CUDA_ERROR_INVALID_HANDLE;
    struct sfunction *f = calloc(1, sizeof *f);
    if (!f)
        return CUDA_ERROR_OUT_OF_MEMORY;
    f->magic = FUNCTION_MAGIC;
    f->max_dynamic_shared = 48 << 10;
    *hfunc = (CUfunction)f;
    return CUDA_SUCCESS;
}

static struct sfunction *function_of(CUfunction f)
{
    struct sfunction *fn = (struct sfunction *)f;
    return fn && fn->magic == FUNCTION_MAGIC ? fn : NULL;
}

EXPORT CUresult cuFuncGetAttribute(int *pi, int attrib, CUfunction hfunc)
{
    struct sfunction *f = function_of(hfunc);
    if (!pi)
        return CUDA_ERROR_INVALID_VALUE;
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    switch (attrib) {
    case 0: *pi = 1024; break; /* MAX_THREADS_PER_BLOCK */
    case 4: *pi = 32; break;   /* NUM_REGS */
    case 5: *pi = 90; break;   /* PTX_VERSION */
    case 6: *pi = 90; break;   /* BINARY_VERSION */
    case 8: *pi = f->max_dynamic_shared; break; /* MAX_DYNAMIC_SHARED_SIZE_BYTES */
    default: *pi = 0; break;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncSetAttribute(CUfunction hfunc, int attrib, int value)
{
    struct sfunction *f = function_of(hfunc);
    if (!f)
        return CUDA_ERROR_INVALID_HANDLE;
    if (attrib == 8) { /* MAX_DYNAMIC_SHARED_SIZE_BYTES: up to the opt-in limit */
        if (value < 0 || value > 232448)
            return CUDA_ERROR_INVALID_VALUE;
        f->max_dynamic_shared = value;
    }
    return CUDA_SUCCESS;
}

EXPORT CUresult cuFuncSetCacheConfig(CUfunction hfunc, int config)
{
    (void)config;
    return function_of(hfunc) ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

EXPORT CUresult cuLaunchKernel(CUfunction f, unsigned int gridDimX, unsigned int gridDimY,
                               unsigned int gridDimZ, unsigned int blockDimX,
                               unsigned int blockDimY, unsigned int blockDimZ,
                               unsigned int sharedMemBytes, CUstream hStream,
                               void **kernelParams, void **extra)
{
    struct sfunction *fn = function_of(f);
    struct sctx *c;
    (void)kernelParams, (void)extra;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!fn)
        return CUDA_ERROR_INVALID_HANDLE;
    if (!gridDimX || !gridDimY || !gridDimZ || !blockDimX || !blockDimY || !blockDimZ ||
        (uint64_t)blockDimX * blockDimY * blockDimZ > 1024 ||
        sharedMemBytes > (unsigned)fn->max_dynamic_shared)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = stream_ctx(hStream, &c);
    struct sgraph *g = r == CUDA_SUCCESS ? capture_graph(hStream) : NULL;
    CUgraphNode node;
    return g ? graph_add_kernel(g, &node) : r;
}

/* Blocks of BLOCK threads and DYNAMIC bytes of shared memory that fit on
 * one multiprocessor together. */
static int blocks_per_sm(int block, size_t dynamic)
{
    int by_threads = block > 1024 ? 0 : 2048 / block;
    size_t by_shared = (size_t)233472 / (dynamic + 1024);
    int n = by_threads < (int)by_shared ? by_threads : (int)by_shared;
    return n < 32 ? n : 32;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(int *numBlocks,
                                                                     CUfunction func,
                                                                     int blockSize,
                                                                     size_t dynamicSMemSize,
                                                                     unsigned int flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!numBlocks || blockSize <= 0 || flags > 1) /* CU_OCCUPANCY_DISABLE_CACHING_OVERRIDE */
        return CUDA_ERROR_INVALID_VALUE;
    if (!function_of(func))
        return CUDA_ERROR_INVALID_HANDLE;
    *numBlocks = blocks_per_sm(blockSize, dynamicSMemSize);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks, CUfunction func,
                                                            int blockSize, size_t dynamicSMemSize)
{
    return cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags(numBlocks, func, blockSize,
                                                                dynamicSMemSize, 0);
}

/* The block size (a multiple of 32, up to BLOCK_LIMIT or 1024) that keeps
 * the most threads on a multiprocessor, the larger on a tie; the grid
 * that fills every multiprocessor with it. */
EXPORT CUresult cuOccupancyMaxPotentialBlockSizeWithFlags(
    int *minGridSize, int *blockSize, CUfunction func,
    CUoccupancyB2DSize blockSizeToDynamicSMemSize, size_t dynamicSMemSize, int blockSizeLimit,
    unsigned int flags)
{
    CUdevice device;
    int sms = 0, best = 0, best_blocks = 0;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!minGridSize || !blockSize || blockSizeLimit < 0 || flags > 1)
        return CUDA_ERROR_INVALID_VALUE;
    if (!function_of(func))
        return CUDA_ERROR_INVALID_HANDLE;
    CUresult r = cuCtxGetDevice(&device);
    if (r == CUDA_SUCCESS)
        r = cuDeviceGetAttribute(&sms, 16, device); /* MULTIPROCESSOR_COUNT */
    if (r != CUDA_SUCCESS)
        return r;
    int limit = blockSizeLimit && blockSizeLimit < 1024 ? blockSizeLimit : 1024;
    for (int block = limit / 32 * 32; block > 0; block -= 32) {
        size_t dynamic =
            blockSizeToDynamicSMemSize ? blockSizeToDynamicSMemSize(block) : dynamicSMemSize;
        int blocks = blocks_per_sm(block, dynamic);
        if (blocks * block > best_blocks * best) {
            best = block;
            best_blocks = blocks;
        }
    }
    *blockSize = best;
    *minGridSize = best_blocks * sms;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuOccupancyMaxPotentialBlockSize(int *minGridSize, int *blockSize,
                                                 CUfunction func,
                                                 CUoccupancyB2DSize blockSizeToDynamicSMemSize,
                                                 size_t dynamicSMemSize, int blockSizeLimit)
{
    return cuOccupancyMaxPotentialBlockSizeWithFlags(minGridSize, blockSize, func,
                                                     blockSizeToDynamicSMemSize, dynamicSMemSize,
                                                     blockSizeLimit, 0);
}

/* CUlaunchConfig's fields before its attributes (which are not read). */
struct launch_config {
    unsigned int gridDimX, gridDimY, gridDimZ;
    unsigned int blockDimX, blockDimY, blockDimZ;
    unsigned int sharedMemBytes;
    CUstream hStream;
};

EXPORT CUresult cuLaunchKernelEx(const struct launch_config *config, CUfunction f,
                                 void **kernelParams, void **extra)
{
    if (!config)
        return CUDA_ERROR_INVALID_VALUE;
    return cuLaunchKernel(f, config->gridDimX, config->gridDimY, config->gridDimZ,
                          config->blockDimX, config->blockDimY, config->blockDimZ,
                          config->sharedMemBytes, config->hStream, kernelParams, extra);
}

EXPORT CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (ppExportTable)
        *ppExportTable = NULL;
    (void)pExportTableId;
    return CUDA_ERROR_NOT_SUPPORTED;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuModuleLoadData", 2000, cuModuleLoadData)
PROC("cuModuleUnload", 2000, cuModuleUnload)
PROC("cuModuleGetFunction", 2000, cuModuleGetFunction)
PROC("cuFuncGetAttribute", 2020, cuFuncGetAttribute)
PROC("cuFuncSetAttribute", 9000, cuFuncSetAttribute)
PROC("cuFuncSetCacheConfig", 3000, cuFuncSetCacheConfig)
PROC("cuLaunchKernel", 4000, cuLaunchKernel)
PROC("cuLaunchKernelEx", 11060, cuLaunchKernelEx)
PROC("cuGetExportTable", 3000, cuGetExportTable)
PROC("cuModuleLoad", 2000, cuModuleLoad)
PROC("cuModuleLoadDataEx", 2010, cuModuleLoadDataEx)
PROC("cuOccupancyMaxActiveBlocksPerMultiprocessor", 6050,
     cuOccupancyMaxActiveBlocksPerMultiprocessor)
PROC("cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags", 7000,
     cuOccupancyMaxActiveBlocksPerMultiprocessorWithFlags)
PROC("cuOccupancyMaxPotentialBlockSize", 6050, cuOccupancyMaxPotentialBlockSize)
PROC("cuOccupancyMaxPotentialBlockSizeWithFlags", 7000,
     cuOccupancyMaxPotentialBlockSizeWithFlags)
