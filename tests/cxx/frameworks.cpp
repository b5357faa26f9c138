// SPDX-License-Identifier: MIT
// Stand-ins for the frameworks' allocators whose memory vramtrace knows
// (tools/analyze/known_memory.c): functions named as in PyTorch, CuPy and
// XLA, each allocating what its namesake keeps on purpose, beside a leak of
// the program's own and an arena of its own (labelled by a user's pattern
// file in tests/test_known.py). With "known-only", only the frameworks';
// with "xla-host", XLA's device and page-locked host pools alone.
#include <cstring>

#include "cuda_malloc.h"

#define MIB (1024ul * 1024ul)

static void *device(std::size_t size)
{
    void *p = nullptr;
    return cudaMalloc(&p, size) == 0 ? p : nullptr;
}

namespace c10::cuda::CUDACachingAllocator::Native {
struct DeviceCachingAllocator {
    __attribute__((noinline)) void *alloc_block(std::size_t size) { return device(size); }
};
} // namespace c10::cuda::CUDACachingAllocator::Native

namespace at::cuda {
// PyTorch takes its cuBLAS workspace from the caching allocator: both match
__attribute__((noinline)) void *allocateCUDABlasWorkspace()
{
    c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator cache;
    return cache.alloc_block(32 * MIB);
}
} // namespace at::cuda

// CuPy's pool is Cython: its functions have C names
extern "C" __attribute__((noinline)) void *
__pyx_f_4cupy_4cuda_6memory_22SingleDeviceMemoryPool__alloc(std::size_t size)
{
    return device(size);
}

namespace tsl {
struct BFCAllocator {
    bool host; // XLA keeps a BFC allocator of page-locked host memory too
    __attribute__((noinline)) bool Extend(std::size_t size)
    {
        void *p = nullptr;
        return host ? cudaHostAlloc(&p, size, 0) == 0 : device(size) != nullptr;
    }
};
} // namespace tsl

__attribute__((noinline)) static void *my_arena_grow(std::size_t size) { return device(size); }
__attribute__((noinline)) static void *user_leak(std::size_t size) { return device(size); }

int main(int argc, char **argv)
{
    c10::cuda::CUDACachingAllocator::Native::DeviceCachingAllocator cache;
    tsl::BFCAllocator bfc{false}, host_bfc{true};
    if (argc > 1 && std::strcmp(argv[1], "xla-host") == 0) /* JAX's two pools */
        return bfc.Extend(8 * MIB) && host_bfc.Extend(2 * MIB) ? 0 : 99;
    bool known_only = argc > 1 && std::strcmp(argv[1], "known-only") == 0;
    if (!at::cuda::allocateCUDABlasWorkspace() || !cache.alloc_block(20 * MIB) ||
        !__pyx_f_4cupy_4cuda_6memory_22SingleDeviceMemoryPool__alloc(12 * MIB) ||
        !bfc.Extend(8 * MIB))
        return 99;
    if (!known_only && (!my_arena_grow(3 * MIB) || !user_leak(1 * MIB)))
        return 99;
    return 0;
}
