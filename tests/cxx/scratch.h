// A C++ library that the test strips of everything but its dynamic symbols.
namespace scratch {
struct Pool {
    void *grab(unsigned long bytes);
};
} // namespace scratch
/* SPDX-License-Identifier: MIT */
