/* SPDX-License-Identifier: MIT */
/* Modules and launches: any image (cubin, fatbin, PTX) loads, its functions
 * are found by name, and a launch runs nothing (the stand-in GPU has no
 * processors), after the checks the real driver makes; on a capturing stream
 * a launch is a kernel node of the capture's graph. cuGetExportTable is
 * exported, as programs look it up, and supports no table. */
#include "driver_internal.h"

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
