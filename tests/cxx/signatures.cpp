// SPDX-License-Identifier: MIT
// Long C++ signatures (built by tests/test_golden.py): standard containers
// whose default template arguments the demangled names spell out, and a
// member function template, whose name carries its return type. Text
// reports shorten them; JSON keeps them whole.
#include "cuda_malloc.h"
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

namespace shapes {

__attribute__((noinline)) void *pad_batch(const std::vector<int> &dims,
                                          const std::vector<int> &strides,
                                          const std::map<std::string, int> &names)
{
    void *p = nullptr;
    unsigned long bytes = 1000003 + dims.size() + strides.size() + names.size();
    if (cudaMalloc(&p, bytes) != 0) // LEAK:pad
        std::exit(99);
    return p;
}

template <typename T> struct Grid {
    template <typename I> static __attribute__((noinline)) T *cells(const std::vector<I> &shape)
    {
        void *p = nullptr;
        if (cudaMalloc(&p, 2000003 + shape.size()) != 0) // LEAK:cells
            std::exit(99);
        return static_cast<T *>(p);
    }
};

} // namespace shapes

static void *volatile kept;

int main()
{
    std::vector<int> dims{1, 2}, strides{3, 4};
    std::map<std::string, int> names{{"batch", 0}};
    kept = shapes::pad_batch(dims, strides, names);
    kept = shapes::Grid<float>::cells(dims);
    return 0;
}
