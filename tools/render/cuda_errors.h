/* SPDX-License-Identifier: MIT */
/* The names of CUDA errors: a driver call's (CUresult) or a runtime
 * call's (cudaError_t), by the API that failed (format.h's ids). */
#ifndef VT_CUDA_ERRORS_H
#define VT_CUDA_ERRORS_H

#include <stdint.h>

#define VT_CUDA_ERROR_LABEL 64

/* "CUDA_ERROR_OUT_OF_MEMORY" for a driver API, "cudaErrorMemoryAllocation"
 * for a runtime one, or NULL for a code the headers do not name. */
const char *vt_cuda_error_name(uint64_t code, unsigned api);
/* "CUDA_ERROR_OUT_OF_MEMORY (2)", "cudaErrorMemoryAllocation (2)", or
 * "CUDA error 12345"; BUF holds VT_CUDA_ERROR_LABEL bytes. */
const char *vt_cuda_error_label(uint64_t code, unsigned api, char *buf);

#endif
