/* SPDX-License-Identifier: MIT */
/* The rest of the BLAS and batched LAPACK routines libtorch links from
 * libcublas.so.13 (tests/test_torch.py lists them from the wheel): each
 * checks its handle and computes nothing, as the stand-in's matrix products
 * do. Each takes the handle first and then integers, enums and pointers
 * only (the v2 API passes scalars by pointer), which the x86-64 calling
 * convention passes in registers or on the caller's stack: a definition
 * naming only the handle serves every one of their signatures, as none of
 * the rest is read. */
#include "cublas_internal.h"

#define NO_MATH(name)                                                                   \
    EXPORT cublasStatus_t name(cublasHandle_t handle)                                  \
    {                                                                                   \
        return cublas_handle(handle) ? CUBLAS_STATUS_SUCCESS : CUBLAS_STATUS_NOT_INITIALIZED; \
    }

NO_MATH(cublasCaxpy_v2)
NO_MATH(cublasCcopy_v2)
NO_MATH(cublasCdotc_v2)
NO_MATH(cublasCdotu_v2)
NO_MATH(cublasCgelsBatched)
NO_MATH(cublasCgemmBatched)
NO_MATH(cublasCgemmStridedBatched)
NO_MATH(cublasCgemm_v2)
NO_MATH(cublasCgemv_v2)
NO_MATH(cublasCgeqrfBatched)
NO_MATH(cublasCgerc_v2)
NO_MATH(cublasCgeru_v2)
NO_MATH(cublasCgetrfBatched)
NO_MATH(cublasCgetrsBatched)
NO_MATH(cublasChemm_v2)
NO_MATH(cublasChemv_v2)
NO_MATH(cublasCher2_v2)
NO_MATH(cublasCher2k_v2)
NO_MATH(cublasCher_v2)
NO_MATH(cublasCherk_v2)
NO_MATH(cublasCrot_v2)
NO_MATH(cublasCrotg_v2)
NO_MATH(cublasCscal_v2)
NO_MATH(cublasCsrot_v2)
NO_MATH(cublasCsscal_v2)
NO_MATH(cublasCswap_v2)
NO_MATH(cublasCsymm_v2)
NO_MATH(cublasCsymv_v2)
NO_MATH(cublasCsyr2_v2)
NO_MATH(cublasCsyr2k_v2)
NO_MATH(cublasCsyr_v2)
NO_MATH(cublasCsyrk_v2)
NO_MATH(cublasCtrmm_v2)
NO_MATH(cublasCtrmv_v2)
NO_MATH(cublasCtrsmBatched)
NO_MATH(cublasCtrsm_v2)
NO_MATH(cublasCtrsv_v2)
NO_MATH(cublasDasum_v2)
NO_MATH(cublasDaxpy_v2)
NO_MATH(cublasDcopy_v2)
NO_MATH(cublasDdot_v2)
NO_MATH(cublasDgelsBatched)
NO_MATH(cublasDgemmBatched)
NO_MATH(cublasDgemmStridedBatched)
NO_MATH(cublasDgemv_v2)
NO_MATH(cublasDgeqrfBatched)
NO_MATH(cublasDger_v2)
NO_MATH(cublasDgetrfBatched)
NO_MATH(cublasDgetrsBatched)
NO_MATH(cublasDnrm2_v2)
NO_MATH(cublasDotEx)
NO_MATH(cublasDrot_v2)
NO_MATH(cublasDrotg_v2)
NO_MATH(cublasDrotm_v2)
NO_MATH(cublasDrotmg_v2)
NO_MATH(cublasDscal_v2)
NO_MATH(cublasDswap_v2)
NO_MATH(cublasDsymm_v2)
NO_MATH(cublasDsymv_v2)
NO_MATH(cublasDsyr2_v2)
NO_MATH(cublasDsyr2k_v2)
NO_MATH(cublasDsyr_v2)
NO_MATH(cublasDsyrk_v2)
NO_MATH(cublasDtrmm_v2)
NO_MATH(cublasDtrmv_v2)
NO_MATH(cublasDtrsmBatched)
NO_MATH(cublasDtrsm_v2)
NO_MATH(cublasDtrsv_v2)
NO_MATH(cublasDzasum_v2)
NO_MATH(cublasDznrm2_v2)
NO_MATH(cublasIcamax_v2)
NO_MATH(cublasIcamin_v2)
NO_MATH(cublasIdamax_v2)
NO_MATH(cublasIdamin_v2)
NO_MATH(cublasIsamax_v2)
NO_MATH(cublasIsamin_v2)
NO_MATH(cublasIzamax_v2)
NO_MATH(cublasIzamin_v2)
NO_MATH(cublasSasum_v2)
NO_MATH(cublasSaxpy_v2)
NO_MATH(cublasScasum_v2)
NO_MATH(cublasScnrm2_v2)
NO_MATH(cublasScopy_v2)
NO_MATH(cublasSgelsBatched)
NO_MATH(cublasSgemmBatched)
NO_MATH(cublasSgemmEx)
NO_MATH(cublasSgeqrfBatched)
NO_MATH(cublasSger_v2)
NO_MATH(cublasSgetrfBatched)
NO_MATH(cublasSgetrsBatched)
NO_MATH(cublasSnrm2_v2)
NO_MATH(cublasSrot_v2)
NO_MATH(cublasSrotg_v2)
NO_MATH(cublasSrotm_v2)
NO_MATH(cublasSrotmg_v2)
NO_MATH(cublasSscal_v2)
NO_MATH(cublasSswap_v2)
NO_MATH(cublasSsymm_v2)
NO_MATH(cublasSsymv_v2)
NO_MATH(cublasSsyr2_v2)
NO_MATH(cublasSsyr2k_v2)
NO_MATH(cublasSsyr_v2)
NO_MATH(cublasSsyrk_v2)
NO_MATH(cublasStrmm_v2)
NO_MATH(cublasStrmv_v2)
NO_MATH(cublasStrsmBatched)
NO_MATH(cublasStrsm_v2)
NO_MATH(cublasStrsv_v2)
NO_MATH(cublasZaxpy_v2)
NO_MATH(cublasZcopy_v2)
NO_MATH(cublasZdotc_v2)
NO_MATH(cublasZdotu_v2)
NO_MATH(cublasZdrot_v2)
NO_MATH(cublasZdscal_v2)
NO_MATH(cublasZgelsBatched)
NO_MATH(cublasZgemmBatched)
NO_MATH(cublasZgemmStridedBatched)
NO_MATH(cublasZgemm_v2)
NO_MATH(cublasZgemv_v2)
NO_MATH(cublasZgeqrfBatched)
NO_MATH(cublasZgerc_v2)
NO_MATH(cublasZgeru_v2)
NO_MATH(cublasZgetrfBatched)
NO_MATH(cublasZgetrsBatched)
NO_MATH(cublasZhemm_v2)
NO_MATH(cublasZhemv_v2)
NO_MATH(cublasZher2_v2)
NO_MATH(cublasZher2k_v2)
NO_MATH(cublasZher_v2)
NO_MATH(cublasZherk_v2)
NO_MATH(cublasZrot_v2)
NO_MATH(cublasZrotg_v2)
NO_MATH(cublasZscal_v2)
NO_MATH(cublasZswap_v2)
NO_MATH(cublasZsymm_v2)
NO_MATH(cublasZsymv_v2)
NO_MATH(cublasZsyr2_v2)
NO_MATH(cublasZsyr2k_v2)
NO_MATH(cublasZsyr_v2)
NO_MATH(cublasZsyrk_v2)
NO_MATH(cublasZtrmm_v2)
NO_MATH(cublasZtrmv_v2)
NO_MATH(cublasZtrsmBatched)
NO_MATH(cublasZtrsm_v2)
NO_MATH(cublasZtrsv_v2)

/* Matrices and vectors between host and device, in stream order: column by
 * column (leading dimensions in elements), element by element with a
 * stride. */
EXPORT cublasStatus_t cublasSetMatrixAsync(int rows, int cols, int elemSize, const void *A,
                                           int lda, void *B, int ldb, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || elemSize <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMemcpy2DAsync(B, (size_t)ldb * elemSize, A, (size_t)lda * elemSize,
                             (size_t)rows * elemSize, (size_t)cols, cudaMemcpyHostToDevice,
                             stream) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_MAPPING_ERROR;
}

EXPORT cublasStatus_t cublasGetMatrixAsync(int rows, int cols, int elemSize, const void *A,
                                           int lda, void *B, int ldb, cudaStream_t stream)
{
    if (rows < 0 || cols < 0 || elemSize <= 0 || lda < rows || ldb < rows)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMemcpy2DAsync(B, (size_t)ldb * elemSize, A, (size_t)lda * elemSize,
                             (size_t)rows * elemSize, (size_t)cols, cudaMemcpyDeviceToHost,
                             stream) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_MAPPING_ERROR;
}

static cublasStatus_t vector_copy(int n, int elemSize, const void *x, int incx, void *y, int incy,
                                  enum cudaMemcpyKind kind, cudaStream_t stream)
{
    if (n < 0 || elemSize <= 0 || incx <= 0 || incy <= 0)
        return CUBLAS_STATUS_INVALID_VALUE;
    return cudaMemcpy2DAsync(y, (size_t)incy * elemSize, x, (size_t)incx * elemSize,
                             (size_t)elemSize, (size_t)n, kind, stream) == cudaSuccess
               ? CUBLAS_STATUS_SUCCESS
               : CUBLAS_STATUS_MAPPING_ERROR;
}

EXPORT cublasStatus_t cublasSetVectorAsync(int n, int elemSize, const void *hostPtr, int incx,
                                           void *devicePtr, int incy, cudaStream_t stream)
{
    return vector_copy(n, elemSize, hostPtr, incx, devicePtr, incy, cudaMemcpyHostToDevice, stream);
}

EXPORT cublasStatus_t cublasGetVectorAsync(int n, int elemSize, const void *devicePtr, int incx,
                                           void *hostPtr, int incy, cudaStream_t stream)
{
    return vector_copy(n, elemSize, devicePtr, incx, hostPtr, incy, cudaMemcpyDeviceToHost, stream);
}
