// A C++ program built with -g (by tests/test_cxx.py): its leaks are made in
// a class template's member function, inside namespaces, and through a
// stripped C++ library (libscratch.so) that has no debug information.
#include "cuda_malloc.h"
#include <cstdlib>

#include "scratch.h"

namespace trainer {

template <typename T> struct Buffer {
    static __attribute__((noinline)) T *make(unsigned long n)
    {
        void *p = nullptr;
        if (cudaMalloc(&p, n * sizeof(T)) != 0) // LEAK:make
            std::exit(99);
        return static_cast<T *>(p);
    }
};

namespace {
__attribute__((noinline)) float *warm_up(unsigned long n)
{
    return Buffer<float>::make(n); // CALL:warm_up
}
} // namespace

} // namespace trainer

int main()
{
    const unsigned long floats = 3800003; // MAKE_FLOATS
    scratch::Pool pool;
    trainer::warm_up(floats); // CALL:main
    pool.grab(3800011);       // GRAB_BYTES
    return 0;
}
/* SPDX-License-Identifier: MIT */
