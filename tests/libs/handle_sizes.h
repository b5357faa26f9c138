/* SPDX-License-Identifier: MIT */
/* The device memory a handle of each stand-in library of handles holds
 * (handle_library.c): the stand-ins' own sizes, which the real libraries
 * do not document. */
#define CUDNN_HANDLE_BYTES ((size_t)3 << 20)
#define CUSPARSE_HANDLE_BYTES ((size_t)1 << 20)
#define CUSOLVER_HANDLE_BYTES ((size_t)2 << 20)
