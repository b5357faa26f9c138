/* Preloaded by test_standin.py to prove that the stand-ins bind their own
 * entry points (-Bsymbolic-functions): cuGetProcAddress must hand out
 * libcuda's cuMemAlloc_v2 even when an earlier library exports the name,
 * and the runtime must never call these. */
#include <stdio.h>
#include <stdlib.h>

#define EXPORT __attribute__((visibility("default")))

EXPORT int cuMemAlloc_v2(void *dptr, size_t n);
EXPORT int cuMemAlloc_v2(void *dptr, size_t n)
{
    (void)dptr;
    (void)n;
    fprintf(stderr, "interposer: cuMemAlloc_v2 called by name\n");
    abort();
}

EXPORT int cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st);
EXPORT int cuGetProcAddress_v2(const char *s, void **p, int v, unsigned long long f, int *st)
{
    (void)s, (void)p, (void)v, (void)f, (void)st;
    fprintf(stderr, "interposer: cuGetProcAddress_v2 called by name\n");
    abort();
}
/* SPDX-License-Identifier: MIT */
