/* SPDX-License-Identifier: MIT */
/* Stand-in cuBLASLt: what its source files share, not exported. */
#ifndef STANDIN_CUBLASLT_INTERNAL_H
#define STANDIN_CUBLASLT_INTERNAL_H

#include "cublas_internal.h"

/* The kinds of descriptor (cublasLt_desc.c). */
#define LT_OPERATION 'o'
#define LT_LAYOUT 'l'
#define LT_PREFERENCE 'p'

/* P is a live descriptor of KIND. */
int lt_desc_ok(const void *p, char kind);

#endif
