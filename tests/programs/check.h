/* Shared by the ground-truth programs: every CUDA return code is checked,
 * and a stand-in that misbehaves stops the program with a message and exit
 * status 99, so it is never mistaken for a tracer bug.
 *
 * A call that leaks carries a marker comment LEAK:<tag> on its own line;
 * the tests find the expected line number by that marker. */
#ifndef VT_TEST_CHECK_H
#define VT_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))
#define STANDIN_FAILURE 99

static inline void vt_fail(const char *file, int line, const char *what, long got, long want)
{
    fprintf(stderr, "%s:%d: stand-in misbehaved: %s returned %ld, expected %ld\n", file, line,
            what, got, want);
    exit(STANDIN_FAILURE);
}

/* The call must return `want` (cudaSuccess / CUDA_SUCCESS is 0). */
#define EXPECT(call, want)                                         \
    do {                                                           \
        long got_ = (long)(call);                                  \
        if (got_ != (long)(want))                                  \
            vt_fail(__FILE__, __LINE__, #call, got_, (long)(want)); \
    } while (0)
#define CHECK(call) EXPECT(call, 0)

#define REQUIRE(cond)                                                             \
    do {                                                                          \
        if (!(cond)) {                                                            \
            fprintf(stderr, "%s:%d: stand-in misbehaved: %s\n", __FILE__, __LINE__, #cond); \
            exit(STANDIN_FAILURE);                                                \
        }                                                                         \
    } while (0)

/* PATH (SIZE bytes) becomes NAME in the directory of this executable. */
static inline void path_next_to_exe(char *path, size_t size, const char *name)
{
    ssize_t n = readlink("/proc/self/exe", path, size - 1);
    REQUIRE(n > 0);
    path[n] = 0;
    char *slash = strrchr(path, '/');
    REQUIRE(slash && (size_t)(slash + 1 - path) + strlen(name) < size);
    strcpy(slash + 1, name);
}

/* Keeps leaked pointers reachable so nothing optimizes them away. */
static void *volatile vt_sink __attribute__((unused));

#endif
/* SPDX-License-Identifier: MIT */
