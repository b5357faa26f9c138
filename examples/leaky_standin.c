/* examples/leaky.cu built as plain C, for machines without a GPU: its kernel
 * is behind __CUDACC__, and the stand-in CUDA libraries provide the rest. */
#include "leaky.cu"
/* SPDX-License-Identifier: MIT */
