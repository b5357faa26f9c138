/* Preloaded after libvramtrace.so: the dynamic linker runs this library's
 * constructor before the tracer's (its hooks must work uninitialised) and
 * its destructor after the tracer's destructor (still traced: the footer
 * is written only once every destructor has run). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <unistd.h>
#include "check.h"

#define EARLY_LEAK_BYTES 3200009
#define DESTRUCTOR_LEAK_BYTES 3300011

NOINLINE static void leak_before_constructor(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, EARLY_LEAK_BYTES)); /* LEAK:early */
    vt_sink = p;
}

__attribute__((constructor)) static void early_init(void)
{
    leak_before_constructor();
}

NOINLINE static void leak_in_destructor(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, DESTRUCTOR_LEAK_BYTES)); /* LEAK:destructor */
    vt_sink = p;
}

__attribute__((destructor)) static void late_fini(void)
{
    void *p = NULL;
    static const char done[] = "destructor calls ok\n";
    CHECK(cudaMalloc(&p, DESTRUCTOR_LEAK_BYTES));
    CHECK(cudaFree(p));
    leak_in_destructor();
    if (write(STDOUT_FILENO, done, sizeof done - 1) < 0)
        _exit(98);
}
/* SPDX-License-Identifier: MIT */
