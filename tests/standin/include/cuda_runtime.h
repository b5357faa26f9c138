/* Stand-in cuda_runtime.h: the C part of the real one is the runtime API. */
#ifndef STANDIN_CUDA_RUNTIME_H
#define STANDIN_CUDA_RUNTIME_H
#include "cuda_runtime_api.h"
#endif
/* SPDX-License-Identifier: MIT */
