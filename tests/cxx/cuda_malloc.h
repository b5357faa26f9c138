// The one CUDA runtime function these programs call, as cuda_runtime_api.h
// declares it (the stand-in's headers are C only).
#include <cstddef>
extern "C" int cudaMalloc(void **devPtr, std::size_t size);
extern "C" int cudaHostAlloc(void **pHost, std::size_t size, unsigned int flags);
/* SPDX-License-Identifier: MIT */
