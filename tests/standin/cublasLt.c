/* SPDX-License-Identifier: MIT */
/* Stand-in libcublasLt.so.13: the descriptors cublasLtMatmul reads
 * (operation, matrix layouts, preferences: host objects the library
 * allocates), one heuristic answer asking for no workspace, and a matmul
 * that checks its arguments and computes nothing. The workspace is the
 * caller's, passed to each matmul, as with the real library. */
#include "cublas_internal.h"

#include <stdlib.h>
#include <string.h>

#define DESC_MAGIC 0x4c54444du

/* Every cuBLASLt descriptor: its kind and the attributes set on it. */
struct lt_desc {
    unsigned magic;
    char kind; /* 'o' operation, 'l' layout, 'p' preference */
    uint64_t rows, cols;
};

static cublasStatus_t new_desc(void **out, char kind)
{
    if (!out)
        return CUBLAS_STATUS_INVALID_VALUE;
    struct lt_desc *d = calloc(1, sizeof *d);
    if (!d)
        return CUBLAS_STATUS_ALLOC_FAILED;
    d->magic = DESC_MAGIC;
    d->kind = kind;
    *out = d;
    return CUBLAS_STATUS_SUCCESS;
}

static struct lt_desc *desc_of(const void *p, char kind)
{
    struct lt_desc *d = (struct lt_desc *)p;
    return d && d->magic == DESC_MAGIC && d->kind == kind ? d : NULL;
}

static cublasStatus_t destroy_desc(void *p, char kind)
{
    struct lt_desc *d = desc_of(p, kind);
    if (!d)
        return p ? CUBLAS_STATUS_INVALID_VALUE : CUBLAS_STATUS_SUCCESS;
    d->magic = 0;
    free(d);
    return CUBLAS_STATUS_SUCCESS;
}

static cublasStatus_t set_attribute(void *p, char kind, const void *buf, size_t size)
{
    return desc_of(p, kind) && buf && size ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_INVALID_VALUE;
}

/* 13.0.0, as CUBLAS_VERSION counts (major * 10000 + minor * 100 + patch). */
EXPORT size_t cublasLtGetVersion(void)
{
    return 130000;
}

EXPORT cublasStatus_t cublasLtMatmulDescCreate(void **matmulDesc, int computeType, int scaleType)
{
    (void)computeType, (void)scaleType;
    return new_desc(matmulDesc, 'o');
}

EXPORT cublasStatus_t cublasLtMatmulDescDestroy(void *matmulDesc)
{
    return destroy_desc(matmulDesc, 'o');
}

EXPORT cublasStatus_t cublasLtMatmulDescSetAttribute(void *matmulDesc, int attr, const void *buf,
                                                     size_t sizeInBytes)
{
    (void)attr;
    return set_attribute(matmulDesc, 'o', buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatrixLayoutCreate(void **matLayout, int type, uint64_t rows,
                                                 uint64_t cols, int64_t ld)
{
    (void)type;
    if (ld < 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    cublasStatus_t s = new_desc(matLayout, 'l');
    if (s == CUBLAS_STATUS_SUCCESS) {
        ((struct lt_desc *)*matLayout)->rows = rows;
        ((struct lt_desc *)*matLayout)->cols = cols;
    }
    return s;
}

EXPORT cublasStatus_t cublasLtMatrixLayoutDestroy(void *matLayout)
{
    return destroy_desc(matLayout, 'l');
}

EXPORT cublasStatus_t cublasLtMatrixLayoutSetAttribute(void *matLayout, int attr, const void *buf,
                                                       size_t sizeInBytes)
{
    (void)attr;
    return set_attribute(matLayout, 'l', buf, sizeInBytes);
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceCreate(void **pref)
{
    return new_desc(pref, 'p');
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceDestroy(void *pref)
{
    return destroy_desc(pref, 'p');
}

EXPORT cublasStatus_t cublasLtMatmulPreferenceSetAttribute(void *pref, int attr, const void *buf,
                                                           size_t sizeInBytes)
{
    (void)attr;
    return set_attribute(pref, 'p', buf, sizeInBytes);
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
    return desc_of(A, 'l') && desc_of(B, 'l') && desc_of(C, 'l') && desc_of(D, 'l');
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
    if (!desc_of(operationDesc, 'o') || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) ||
        !desc_of(preference, 'p') || requestedAlgoCount <= 0 || !heuristicResultsArray ||
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
    if (!desc_of(operationDesc, 'o') || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) || !algo ||
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
    if (!desc_of(computeDesc, 'o') || !layouts_ok(Adesc, Bdesc, Cdesc, Ddesc) ||
        (workspaceSizeInBytes && !workspace))
        return CUBLAS_STATUS_INVALID_VALUE;
    return CUBLAS_STATUS_SUCCESS;
}
