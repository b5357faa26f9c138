/* SPDX-License-Identifier: MIT */
/* Stand-in libcublas.so.13: handles, their stream, math and pointer modes,
 * and their workspace, which cuBLAS allocates with cudaMalloc (32 MiB, its
 * default on a Hopper GPU) at the first product on a handle the caller gave
 * none, and frees at cublasDestroy; the matrix products PyTorch's matmul
 * path calls check their arguments and compute nothing (the stand-in GPU
 * has no processors). */
#include "cublas_internal.h"

#include <stdlib.h>

#define DEFAULT_WORKSPACE ((size_t)32 << 20)

EXPORT cublasStatus_t cublasCreate_v2(cublasHandle_t *handle)
{
    if (!handle)
        return CUBLAS_STATUS_INVALID_VALUE;
    int device;
    if (cudaGetDevice(&device) != cudaSuccess)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    struct cublasContext *c = calloc(1, sizeof *c);
    if (!c)
        return CUBLAS_STATUS_ALLOC_FAILED;
    c->magic = HANDLE_MAGIC;
    *handle = c;
    return CUBLAS_STATUS_SUCCESS;
}

static void drop_default_workspace(struct cublasContext *c)
{
    if (c->default_workspace)
        cudaFree(c->workspace);
    c->default_workspace = 0;
    c->workspace = NULL;
    c->workspace_bytes = 0;
}

EXPORT cublasStatus_t cublasDestroy_v2(cublasHandle_t handle)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    drop_default_workspace(c);
    c->magic = 0;
    free(c);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT const char *cublasGetStatusName(cublasStatus_t status)
{
    return cublas_status_name(status);
}

EXPORT const char *cublasGetStatusString(cublasStatus_t status)
{
    return cublas_status_string(status);
}

/* 13.0.0, as CUBLAS_VERSION counts (major * 10000 + minor * 100 + patch). */
EXPORT cublasStatus_t cublasGetVersion_v2(cublasHandle_t handle, int *version)
{
    (void)handle; /* may be NULL, as with the real library */
    if (!version)
        return CUBLAS_STATUS_INVALID_VALUE;
    *version = 130000;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetStream_v2(cublasHandle_t handle, cudaStream_t streamId)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    c->stream = streamId;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetStream_v2(cublasHandle_t handle, cudaStream_t *streamId)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!streamId)
        return CUBLAS_STATUS_INVALID_VALUE;
    *streamId = c->stream;
    return CUBLAS_STATUS_SUCCESS;
}

/* The caller's workspace replaces cuBLAS's own, which is freed. */
EXPORT cublasStatus_t cublasSetWorkspace_v2(cublasHandle_t handle, void *workspace,
                                            size_t workspaceSizeInBytes)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (workspaceSizeInBytes && (!workspace || (uintptr_t)workspace % 256))
        return CUBLAS_STATUS_INVALID_VALUE;
    drop_default_workspace(c);
    c->workspace = workspace;
    c->workspace_bytes = workspaceSizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetMathMode(cublasHandle_t handle, int mode)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    c->math_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetMathMode(cublasHandle_t handle, int *mode)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = c->math_mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetPointerMode_v2(cublasHandle_t handle, int mode)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (mode != 0 && mode != 1) /* CUBLAS_POINTER_MODE_HOST, _DEVICE */
        return CUBLAS_STATUS_INVALID_VALUE;
    c->pointer_mode = mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasGetPointerMode_v2(cublasHandle_t handle, int *mode)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!mode)
        return CUBLAS_STATUS_INVALID_VALUE;
    *mode = c->pointer_mode;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSetSmCountTarget(cublasHandle_t handle, int smCountTarget)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (smCountTarget < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    c->sm_count_target = smCountTarget;
    return CUBLAS_STATUS_SUCCESS;
}

/* What every product does before it would compute: the handle, the sizes,
 * and a workspace, cuBLAS's own if the caller gave none. */
static cublasStatus_t product(cublasHandle_t handle, int m, int n, int k, int batch)
{
    struct cublasContext *c = cublas_handle(handle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (m < 0 || n < 0 || k < 0 || batch < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    if (!c->workspace_bytes) {
        if (cudaMalloc(&c->workspace, DEFAULT_WORKSPACE) != cudaSuccess)
            return CUBLAS_STATUS_ALLOC_FAILED;
        c->workspace_bytes = DEFAULT_WORKSPACE;
        c->default_workspace = 1;
    }
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasSgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n,
                                     int k, const float *alpha, const float *A, int lda,
                                     const float *B, int ldb, const float *beta, float *C, int ldc)
{
    (void)transa, (void)transb, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta;
    (void)C, (void)ldc;
    return product(handle, m, n, k, 1);
}

EXPORT cublasStatus_t cublasDgemm_v2(cublasHandle_t handle, int transa, int transb, int m, int n,
                                     int k, const double *alpha, const double *A, int lda,
                                     const double *B, int ldb, const double *beta, double *C,
                                     int ldc)
{
    (void)transa, (void)transb, (void)alpha, (void)A, (void)lda, (void)B, (void)ldb, (void)beta;
    (void)C, (void)ldc;
    return product(handle, m, n, k, 1);
}

EXPORT cublasStatus_t cublasGemmEx(cublasHandle_t handle, int transa, int transb, int m, int n,
                                   int k, const void *alpha, const void *A, int Atype, int lda,
                                   const void *B, int Btype, int ldb, const void *beta, void *C,
                                   int Ctype, int ldc, int computeType, int algo)
{
    (void)transa, (void)transb, (void)alpha, (void)A, (void)Atype, (void)lda, (void)B, (void)Btype;
    (void)ldb, (void)beta, (void)C, (void)Ctype, (void)ldc, (void)computeType, (void)algo;
    return product(handle, m, n, k, 1);
}

EXPORT cublasStatus_t cublasGemmStridedBatchedEx(
    cublasHandle_t handle, int transa, int transb, int m, int n, int k, const void *alpha,
    const void *A, int Atype, int lda, long long strideA, const void *B, int Btype, int ldb,
    long long strideB, const void *beta, void *C, int Ctype, int ldc, long long strideC,
    int batchCount, int computeType, int algo)
{
    (void)transa, (void)transb, (void)alpha, (void)A, (void)Atype, (void)lda, (void)strideA;
    (void)B, (void)Btype, (void)ldb, (void)strideB, (void)beta, (void)C, (void)Ctype, (void)ldc;
    (void)strideC, (void)computeType, (void)algo;
    return product(handle, m, n, k, batchCount);
}

EXPORT cublasStatus_t cublasSgemmStridedBatched(cublasHandle_t handle, int transa, int transb,
                                                int m, int n, int k, const float *alpha,
                                                const float *A, int lda, long long strideA,
                                                const float *B, int ldb, long long strideB,
                                                const float *beta, float *C, int ldc,
                                                long long strideC, int batchCount)
{
    (void)transa, (void)transb, (void)alpha, (void)A, (void)lda, (void)strideA, (void)B, (void)ldb;
    (void)strideB, (void)beta, (void)C, (void)ldc, (void)strideC;
    return product(handle, m, n, k, batchCount);
}

EXPORT cublasStatus_t cublasSgemv_v2(cublasHandle_t handle, int trans, int m, int n,
                                     const float *alpha, const float *A, int lda, const float *x,
                                     int incx, const float *beta, float *y, int incy)
{
    (void)trans, (void)alpha, (void)A, (void)lda, (void)x, (void)incx, (void)beta, (void)y;
    (void)incy;
    return product(handle, m, n, 1, 1);
}

EXPORT cublasStatus_t cublasSdot_v2(cublasHandle_t handle, int n, const float *x, int incx,
                                    const float *y, int incy, float *result)
{
    (void)x, (void)incx, (void)y, (void)incy;
    if (!result)
        return CUBLAS_STATUS_INVALID_VALUE;
    return product(handle, n, 1, 1, 1);
}

/* The legacy API's device memory for the caller's vectors and matrices
 * (cublas.h): the program's own, freed by cublasFree. */
EXPORT cublasStatus_t cublasAlloc(int n, int elemSize, void **devicePtr)
{
    if (n <= 0 || elemSize <= 0 || !devicePtr)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMalloc(devicePtr, (size_t)n * (size_t)elemSize) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_ALLOC_FAILED;
}

EXPORT cublasStatus_t cublasFree(void *devicePtr)
{
    return cudaFree(devicePtr) == cudaSuccess ? CUBLAS_STATUS_SUCCESS
                                              : CUBLAS_STATUS_INTERNAL_ERROR;
}
