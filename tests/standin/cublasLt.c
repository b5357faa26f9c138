/* SPDX-License-Identifier: MIT */
/* Stand-in libcublasLt.so.13: handles, one heuristic answer asking for no
 * workspace, and a matmul that checks its arguments and computes nothing
 * (the descriptors it reads: cublasLt_desc.c). The workspace is the
 * caller's, passed to each matmul, as with the real library. */
#include "cublasLt_internal.h"

#include <stdlib.h>
#include <string.h>

/* 13.0.0, as CUBLAS_VERSION counts (major * 10000 + minor * 100 + patch). */
EXPORT size_t cublasLtGetVersion(void)
{
    return 130000;
}

/* The CUDA runtime it was built with (CUDART_VERSION). */
EXPORT size_t cublasLtGetCudartVersion(void)
{
    return CUDART_VERSION;
}

/* A handle of its own: a host object, no device memory (the workspace is
 * the caller's, passed to each matmul). */
EXPORT cublasStatus_t cublasLtCreate(cublasHandle_t *lightHandle)
{
    if (!lightHandle)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct cublasContext *c = calloc(1, sizeof *c);
    if (!c)
        return CUBLAS_STATUS_ALLOC_FAILED;
    c->magic = HANDLE_MAGIC;
    *lightHandle = c;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtDestroy(cublasHandle_t lightHandle)
{
    struct cublasContext *c = cublas_handle(lightHandle);
    if (!c)
        return CUBLAS_STATUS_NOT_INITIALIZED;
    c->magic = 0;
    free(c);
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT const char *cublasLtGetStatusName(cublasStatus_t status)
{
    return cublas_status_name(status);
}

EXPORT const char *cublasLtGetStatusString(cublasStatus_t status)
{
    return cublas_status_string(status);
}

/* cublasLtMatmulAlgo_t and cublasLtMatmulHeuristicResult_t, as cublasLt.h
 * lays them out. */
typedef struct {
    uint64_t data[8];
} lt_algo;
typedef struct {
    lt_algo algo;
    size_t workspaceSize;
    cublasStatus_t state;
    float wavesCount;
    int reserved[4];
} lt_heuristic;

static int layouts_ok(const void *A, const void *B, const void *C, const void *D)
{
    return lt_desc_ok(A, LT_LAYOUT) && lt_desc_ok(B, LT_LAYOUT) && lt_desc_ok(C, LT_LAYOUT) &&
           lt_desc_ok(D, LT_LAYOUT);
}

EXPORT cublasStatus_t cublasLtMatmulAlgoGetHeuristic(void *lightHandle, void *operationDesc,
                                                     void *Adesc, void *Bdesc, void *Cdesc,
                                                     void *Ddesc, void *preference,
                                                     int requestedAlgoCount,
                                                     lt_heuristic heuristicResultsArray[],
                                                     int *returnAlgoCount)
{
    if (!cublas_handle(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!lt_desc_ok(operationDesc, LT_OPERATION) || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) ||
        !lt_desc_ok(preference, LT_PREFERENCE) || requestedAlgoCount <= 0 || !heuristicResultsArray ||
        !returnAlgoCount)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(&heuristicResultsArray[0], 0, sizeof heuristicResultsArray[0]);
    heuristicResultsArray[0].state = CUBLAS_STATUS_SUCCESS;
    heuristicResultsArray[0].wavesCount = 1.0f;
    *returnAlgoCount = 1;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulAlgoInit(void *lightHandle, int computeType, int scaleType,
                                             int Atype, int Btype, int Ctype, int Dtype,
                                             int algoId, lt_algo *algo)
{
    (void)computeType, (void)scaleType, (void)Atype, (void)Btype, (void)Ctype, (void)Dtype;
    if (!cublas_handle(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!algo)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(algo, 0, sizeof *algo);
    algo->data[0] = (uint64_t)algoId;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulAlgoCheck(void *lightHandle, void *operationDesc, void *Adesc,
                                              void *Bdesc, void *Cdesc, void *Ddesc,
                                              const lt_algo *algo, lt_heuristic *result)
{
    if (!cublas_handle(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!lt_desc_ok(operationDesc, LT_OPERATION) || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) || !algo ||
        !result)
        return CUBLAS_STATUS_INVALID_VALUE;
    memset(result, 0, sizeof *result);
    result->algo = *algo;
    result->wavesCount = 1.0f;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmulAlgoConfigSetAttribute(lt_algo *algo, int attr,
                                                           const void *buf, size_t sizeInBytes)
{
    (void)attr;
    return algo && buf && sizeInBytes ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

/* Reads as 0, written in SIZE bytes. */
EXPORT cublasStatus_t cublasLtMatmulAlgoConfigGetAttribute(const lt_algo *algo, int attr,
                                                           void *buf, size_t sizeInBytes,
                                                           size_t *sizeWritten)
{
    (void)attr;
    if (!algo || (!buf && !sizeWritten))
        return CUBLAS_STATUS_INVALID_VALUE;
    if (buf)
        memset(buf, 0, sizeInBytes);
    if (sizeWritten)
        *sizeWritten = sizeInBytes;
    return CUBLAS_STATUS_SUCCESS;
}

EXPORT cublasStatus_t cublasLtMatmul(void *lightHandle, void *computeDesc, const void *alpha,
                                     const void *A, void *Adesc, const void *B, void *Bdesc,
                                     const void *beta, const void *C, void *Cdesc, void *D,
                                     void *Ddesc, const lt_algo *algo, void *workspace,
                                     size_t workspaceSizeInBytes, cudaStream_t stream)
{
    (void)alpha, (void)A, (void)B, (void)beta, (void)C, (void)D, (void)algo, (void)stream;
    if (!cublas_handle(lightHandle))
        return CUBLAS_STATUS_NOT_INITIALIZED;
    if (!lt_desc_ok(computeDesc, LT_OPERATION) || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) ||
        (workspaceSizeInBytes && !workspace))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}
