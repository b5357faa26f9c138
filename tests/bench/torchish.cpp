// SPDX-License-Identifier: MIT
// A library shaped like libtorch for tests/bench/deep.sh: C++ built -O2
// without frame pointers and stripped of debug information, so the unwinder
// walks DWARF call frame information (.eh_frame) through a deep chain of
// template instantiations (a dispatcher's layers) down to each
// cudaMalloc/cudaFree pair. torchish_pairs returns ns per pair, timed here so
// that C and Python callers measure the same loop.
#include <cuda_runtime_api.h>
#include <stddef.h>
#include <time.h>

namespace c10 {
struct Allocator {
    size_t bytes;
    long calls;
};
} // namespace c10

namespace at {
namespace native {

template <typename Scalar> struct Tensor {
    c10::Allocator *allocator;
};

// One layer of the dispatcher per N: never inlined, never a tail call (the
// work after the call), as libtorch's dispatch, autograd and allocator
// layers are not (the empty asm after the call).
template <int N, typename Scalar, typename Alloc> struct Dispatch {
    __attribute__((noinline)) static long call(Tensor<Scalar> &t)
    {
        long r = Dispatch<N - 1, Scalar, Alloc>::call(t);
        __asm__ volatile("" ::: "memory");
        return r;
    }
};

template <typename Scalar, typename Alloc> struct Dispatch<0, Scalar, Alloc> {
    __attribute__((noinline)) static long call(Tensor<Scalar> &t)
    {
        void *p = nullptr;
        if (cudaMalloc(&p, t.allocator->bytes) != cudaSuccess)
            return 0;
        cudaFree(p);
        t.allocator->calls++;
        return 1;
    }
};

} // namespace native
} // namespace at

// 55 layers + the entry + the loop: 57 frames of this library on the stack.
enum { LAYERS = 55 };

__attribute__((noinline)) static long pairs_loop(long pairs, c10::Allocator &alloc)
{
    at::native::Tensor<float> t{&alloc};
    long done = 0;
    for (long i = 0; i < pairs; i++)
        done += at::native::Dispatch<LAYERS - 1, float, c10::Allocator>::call(t);
    return done;
}

extern "C" __attribute__((visibility("default"))) double torchish_pairs(long pairs)
{
    c10::Allocator alloc{4096, 0};
    timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    long done = pairs_loop(pairs, alloc);
    clock_gettime(CLOCK_MONOTONIC, &b);
    if (done != pairs)
        return -1;
    return ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / (double)pairs;
}
