/* SPDX-License-Identifier: MIT */
/* Test-only: time passes without waiting. Preloaded ahead of the tracer, it
 * answers clock_nanosleep by moving every clock of this process forward by
 * the time asked for, at once, and clock_gettime with the clocks so moved:
 * an idle tail of hours costs the test nothing. */
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <time.h>

#define EXPORT __attribute__((visibility("default")))
#define NS 1000000000ll

typedef int (*clock_gettime_fn)(clockid_t, struct timespec *);

static int64_t skipped_ns; /* how far every clock was moved */

EXPORT int clock_nanosleep(clockid_t clock, int flags, const struct timespec *request,
                           struct timespec *remain)
{
    (void)clock;
    (void)remain;
    if (!request || request->tv_nsec < 0 || request->tv_nsec >= NS || flags)
        return EINVAL;
    __atomic_add_fetch(&skipped_ns, request->tv_sec * NS + request->tv_nsec, __ATOMIC_RELAXED);
    return 0;
}

EXPORT int clock_gettime(clockid_t clock, struct timespec *now)
{
    static clock_gettime_fn real;
    int64_t ns;
    if (!real)
        real = (clock_gettime_fn)dlsym(RTLD_NEXT, "clock_gettime");
    if (!real || real(clock, now) != 0)
        return -1;
    ns = now->tv_nsec + __atomic_load_n(&skipped_ns, __ATOMIC_RELAXED);
    now->tv_sec += ns / NS;
    now->tv_nsec = ns % NS;
    return 0;
}
