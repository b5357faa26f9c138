/* Checks for the C unit tests: each failed check prints the file, line,
 * what was checked, expected and actual value; a test's main returns
 * unit_result() (exit status 1 when anything failed). */
#ifndef VT_UNIT_CHECK_H
#define VT_UNIT_CHECK_H

#include <inttypes.h>
#include <stdio.h>

static int unit_failures;

#define CHECK_EQ(what, actual, expected)                                                      \
    do {                                                                                      \
        long long actual_ = (long long)(actual), expected_ = (long long)(expected);           \
        if (actual_ != expected_) {                                                           \
            fprintf(stderr, "%s:%d: %s: expected %lld, got %lld\n", __FILE__, __LINE__, what, \
                    expected_, actual_);                                                      \
            unit_failures++;                                                                  \
        }                                                                                     \
    } while (0)

#define CHECK(what, cond)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "%s:%d: %s: not so\n", __FILE__, __LINE__, what); \
            unit_failures++;                                                  \
        }                                                                     \
    } while (0)

static inline int unit_result(const char *name)
{
    if (unit_failures) {
        fprintf(stderr, "FAIL %s: %d check(s) failed\n", name, unit_failures);
        return 1;
    }
    printf("PASS %s\n", name);
    return 0;
}

#endif
/* SPDX-License-Identifier: MIT */
