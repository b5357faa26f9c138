/* SPDX-License-Identifier: MIT */
/* The names of CUDA driver errors (CUresult). */
#ifndef VT_CUDA_ERRORS_H
#define VT_CUDA_ERRORS_H

#include <stdint.h>

#define VT_CUDA_ERROR_LABEL 64

/* "CUDA_ERROR_OUT_OF_MEMORY", or NULL for a code cuda.h does not name. */
const char *vt_cuda_error_name(uint64_t code);
/* "CUDA_ERROR_OUT_OF_MEMORY (2)", or "CUDA error 12345"; BUF holds
 * VT_CUDA_ERROR_LABEL bytes. */
const char *vt_cuda_error_label(uint64_t code, char *buf);

#endif
