/* What the stand-in runtime's source files share (not exported). */
#ifndef STANDIN_CUDART_INTERNAL_H
#define STANDIN_CUDART_INTERNAL_H

#include "cuda_runtime_api.h"

#define STANDIN_EXPORT __attribute__((visibility("default")))
#define STANDIN_INTERNAL __attribute__((visibility("hidden")))

/* The calling thread's context, made ready as the runtime's lazy
 * initialization does (cudart.c). */
STANDIN_INTERNAL cudaError_t standin_rt_context(void);

/* Records a failure as cudaGetLastError reports it; returns E. */
STANDIN_INTERNAL cudaError_t standin_rt_error(cudaError_t e);

#endif
/* SPDX-License-Identifier: MIT */
