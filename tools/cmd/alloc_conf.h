/* SPDX-License-Identifier: MIT */
/* run --pytorch-tensors: PyTorch's allocator settings with the
 * cudaMallocAsync backend, so that every tensor is one cudaMallocAsync /
 * cudaFreeAsync the tracer sees (the driver's pool still caches memory). */
#ifndef VT_ALLOC_CONF_H
#define VT_ALLOC_CONF_H

/* CONF (PYTORCH_CUDA_ALLOC_CONF's value, or NULL) with its backend set to
 * cudaMallocAsync and every other setting kept, in order; malloc'd.
 * *REPLACED is set to the backend it overrode ("native"), or NULL. */
char *vt_alloc_conf_async(const char *conf, char **replaced);

/* In the child before exec: sets the variables PyTorch reads
 * (PYTORCH_CUDA_ALLOC_CONF, and PYTORCH_ALLOC_CONF where set), saying on
 * stderr when a backend the user chose is replaced. */
void vt_alloc_conf_apply(void);

#endif
