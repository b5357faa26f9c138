/* SPDX-License-Identifier: MIT */
/* The stand-in cuBLAS and cuBLASLt's answers to what XLA asks before a
 * matrix product, as cublas_api.h and cublasLt.h document them: statuses'
 * names and descriptions, cuBLASLt handles of their own, and descriptors
 * that keep each attribute at its size, as set or at its default. Exit
 * status 0, or 99 with the first answer that differs (check.h). */
#include <stdint.h>
#include <string.h>

#include "check.h"

/* From cublas_api.h and cublasLt.h (the stand-ins ship no cuBLAS header). */
typedef int cublasStatus_t;
typedef void *cublasLtHandle_t;
const char *cublasGetStatusName(cublasStatus_t status);
const char *cublasGetStatusString(cublasStatus_t status);
const char *cublasLtGetStatusName(cublasStatus_t status);
const char *cublasLtGetStatusString(cublasStatus_t status);
cublasStatus_t cublasLtCreate(cublasLtHandle_t *lightHandle);
cublasStatus_t cublasLtDestroy(cublasLtHandle_t lightHandle);
cublasStatus_t cublasLtMatrixLayoutCreate(void **matLayout, int type, uint64_t rows, uint64_t cols,
                                          int64_t ld);
cublasStatus_t cublasLtMatrixLayoutDestroy(void *matLayout);
cublasStatus_t cublasLtMatrixLayoutSetAttribute(void *matLayout, int attr, const void *buf,
                                                size_t sizeInBytes);
cublasStatus_t cublasLtMatrixLayoutGetAttribute(const void *matLayout, int attr, void *buf,
                                                size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatmulDescCreate(void **matmulDesc, int computeType, int scaleType);
cublasStatus_t cublasLtMatmulDescDestroy(void *matmulDesc);
cublasStatus_t cublasLtMatmulDescSetAttribute(void *matmulDesc, int attr, const void *buf,
                                              size_t sizeInBytes);
cublasStatus_t cublasLtMatmulDescGetAttribute(const void *matmulDesc, int attr, void *buf,
                                              size_t sizeInBytes, size_t *sizeWritten);
cublasStatus_t cublasLtMatmulPreferenceCreate(void **pref);
cublasStatus_t cublasLtMatmulPreferenceDestroy(void *pref);
cublasStatus_t cublasLtMatmulPreferenceSetAttribute(void *pref, int attr, const void *buf,
                                                    size_t sizeInBytes);
cublasStatus_t cublasLtMatmulPreferenceGetAttribute(const void *pref, int attr, void *buf,
                                                    size_t sizeInBytes, size_t *sizeWritten);

#define INVALID_VALUE 7 /* CUBLAS_STATUS_INVALID_VALUE */
#define CUDA_R_32F 0
#define COMPUTE_32F 68 /* CUBLAS_COMPUTE_32F */

static void statuses(void)
{
    REQUIRE(strcmp(cublasGetStatusName(0), "CUBLAS_STATUS_SUCCESS") == 0);
    REQUIRE(strcmp(cublasLtGetStatusName(INVALID_VALUE), "CUBLAS_STATUS_INVALID_VALUE") == 0);
    REQUIRE(strcmp(cublasGetStatusString(3), "the resource allocation failed") == 0);
    REQUIRE(strcmp(cublasLtGetStatusString(14), "an internal operation failed") == 0);
    REQUIRE(cublasLtGetStatusName(12345) && cublasGetStatusString(12345));
}

/* A 1024 x 512 float matrix: what it was made with, the documented
 * defaults, its attributes at their sizes only. */
static void layout(void)
{
    void *l;
    uint64_t rows = 0, cols = 0;
    int64_t ld = 0;
    int32_t batches = 0, order = -1;
    uint32_t type = 99;
    size_t written = 0;
    CHECK(cublasLtMatrixLayoutCreate(&l, CUDA_R_32F, 1024, 512, 1024));
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 2, &rows, sizeof rows, &written));
    REQUIRE(rows == 1024 && written == 8);
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 3, &cols, sizeof cols, NULL));
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 4, &ld, sizeof ld, NULL));
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 0, &type, sizeof type, NULL));
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 1, &order, sizeof order, NULL));
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 5, &batches, sizeof batches, NULL));
    REQUIRE(cols == 512 && ld == 1024 && type == CUDA_R_32F && order == 0 && batches == 1);
    written = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 6, NULL, 0, &written)); /* the size it takes */
    REQUIRE(written == 8);
    batches = 4;
    CHECK(cublasLtMatrixLayoutSetAttribute(l, 5, &batches, sizeof batches));
    batches = 0;
    CHECK(cublasLtMatrixLayoutGetAttribute(l, 5, &batches, sizeof batches, NULL));
    REQUIRE(batches == 4);
    EXPECT(cublasLtMatrixLayoutGetAttribute(l, 2, &batches, sizeof batches, NULL), INVALID_VALUE);
    EXPECT(cublasLtMatrixLayoutSetAttribute(l, 5, &rows, sizeof rows), INVALID_VALUE);
    EXPECT(cublasLtMatrixLayoutSetAttribute(l, 30, &batches, sizeof batches), INVALID_VALUE);
    EXPECT(cublasLtMatrixLayoutGetAttribute(l, 5, NULL, 0, NULL), INVALID_VALUE);
    CHECK(cublasLtMatrixLayoutDestroy(l));
}

static void operation(void)
{
    void *op;
    int32_t compute = 0, scale = -5, transa = 1, got = -1, fill = 0, bias_type = 0;
    uint32_t epilogue = 0;
    int8_t fast = 1;
    CHECK(cublasLtMatmulDescCreate(&op, COMPUTE_32F, CUDA_R_32F));
    CHECK(cublasLtMatmulDescGetAttribute(op, 0, &compute, sizeof compute, NULL));
    CHECK(cublasLtMatmulDescGetAttribute(op, 1, &scale, sizeof scale, NULL));
    CHECK(cublasLtMatmulDescGetAttribute(op, 6, &fill, sizeof fill, NULL));
    CHECK(cublasLtMatmulDescGetAttribute(op, 7, &epilogue, sizeof epilogue, NULL));
    CHECK(cublasLtMatmulDescGetAttribute(op, 26, &bias_type, sizeof bias_type, NULL));
    CHECK(cublasLtMatmulDescGetAttribute(op, 25, &fast, sizeof fast, NULL));
    /* FULL fill mode, the DEFAULT epilogue, no bias type, no fast accumulation */
    REQUIRE(compute == COMPUTE_32F && scale == CUDA_R_32F && fill == 2 && epilogue == 1 &&
            bias_type == -1 && fast == 0);
    CHECK(cublasLtMatmulDescSetAttribute(op, 3, &transa, sizeof transa));
    CHECK(cublasLtMatmulDescGetAttribute(op, 3, &got, sizeof got, NULL));
    REQUIRE(got == 1);
    CHECK(cublasLtMatmulDescDestroy(op));
}

static void preference(void)
{
    void *p;
    uint64_t workspace = 1, impl = 0;
    uint32_t alignment = 0;
    CHECK(cublasLtMatmulPreferenceCreate(&p));
    CHECK(cublasLtMatmulPreferenceGetAttribute(p, 1, &workspace, sizeof workspace, NULL));
    CHECK(cublasLtMatmulPreferenceGetAttribute(p, 5, &alignment, sizeof alignment, NULL));
    CHECK(cublasLtMatmulPreferenceGetAttribute(p, 12, &impl, sizeof impl, NULL));
    REQUIRE(workspace == 0 && alignment == 256 && impl == UINT64_MAX);
    workspace = 4 << 20;
    CHECK(cublasLtMatmulPreferenceSetAttribute(p, 1, &workspace, sizeof workspace));
    workspace = 0;
    CHECK(cublasLtMatmulPreferenceGetAttribute(p, 1, &workspace, sizeof workspace, NULL));
    REQUIRE(workspace == 4 << 20);
    CHECK(cublasLtMatmulPreferenceDestroy(p));
}

int main(void)
{
    cublasLtHandle_t h = NULL;
    statuses();
    CHECK(cublasLtCreate(&h));
    REQUIRE(h != NULL);
    layout();
    operation();
    preference();
    CHECK(cublasLtDestroy(h));
    EXPECT(cublasLtCreate(NULL), INVALID_VALUE);
    return 0;
}
