/* SPDX-License-Identifier: MIT */
/* Bytes of one channel of a CUDA array's element, by format: the stand-in
 * runtime and driver both size arrays from it (0 for formats counted by
 * blocks, which the driver sizes apart). */
#ifndef STANDIN_ARRAY_FORMAT_H
#define STANDIN_ARRAY_FORMAT_H

#include "cuda.h"

#include <stddef.h>

static inline size_t array_format_bytes(CUarray_format f)
{
    switch (f) {
    case CU_AD_FORMAT_UNSIGNED_INT8: case CU_AD_FORMAT_SIGNED_INT8: return 1;
    case CU_AD_FORMAT_UNSIGNED_INT16: case CU_AD_FORMAT_SIGNED_INT16: case CU_AD_FORMAT_HALF:
        return 2;
    case CU_AD_FORMAT_UNSIGNED_INT32: case CU_AD_FORMAT_SIGNED_INT32: case CU_AD_FORMAT_FLOAT:
        return 4;
    default: return 0;
    }
}

#endif
