/* A process that `vramtrace watch` follows, paused at known points: it reads
 * one command per line on stdin, does it, and answers "ok" (flushed) when
 * done, so a test knows exactly what is live whenever it watches.
 *   a SITE BYTES  allocate BYTES at call site SITE (a, b or c)
 *   f SITE        free SITE's most recent live allocation
 *   m LABEL       vramtrace_mark(LABEL)
 *   burst N BYTES N allocate-and-free pairs at site c
 *   oom           one request the device cannot satisfy (a failed allocation)
 *   q             exit(0), leaving what is live leaked */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "vramtrace.h"

#define SITE_SLOTS 4096
#define OOM_BYTES ((size_t)1 << 40)

static void *live[3][SITE_SLOTS];
static size_t nlive[3];

static NOINLINE void *site_a(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:a */
    return p;
}

static NOINLINE void *site_b(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:b */
    return p;
}

static NOINLINE void *site_c(size_t bytes)
{
    void *p;
    CHECK(cudaMalloc(&p, bytes)); /* LEAK:c */
    return p;
}

static void *(*const sites[3])(size_t) = {site_a, site_b, site_c};

static int site_index(const char *name)
{
    REQUIRE(name[0] >= 'a' && name[0] <= 'c' && !name[1]);
    return name[0] - 'a';
}

static void burst(unsigned long n, size_t bytes)
{
    for (unsigned long i = 0; i < n; i++)
        CHECK(cudaFree(site_c(bytes)));
}

static void run(char *line)
{
    char *cmd = strtok(line, " \n"), *arg1 = strtok(NULL, " \n"), *arg2 = strtok(NULL, " \n");
    REQUIRE(cmd);
    if (!strcmp(cmd, "a")) {
        int s = site_index(arg1);
        REQUIRE(arg2 && nlive[s] < SITE_SLOTS);
        live[s][nlive[s]++] = sites[s](strtoull(arg2, NULL, 10));
    } else if (!strcmp(cmd, "f")) {
        int s = site_index(arg1);
        REQUIRE(nlive[s] > 0);
        CHECK(cudaFree(live[s][--nlive[s]]));
    } else if (!strcmp(cmd, "m")) {
        REQUIRE(arg1);
        vramtrace_mark(arg1);
    } else if (!strcmp(cmd, "burst")) {
        REQUIRE(arg1 && arg2);
        burst(strtoul(arg1, NULL, 10), strtoull(arg2, NULL, 10));
    } else if (!strcmp(cmd, "oom")) {
        void *p;
        REQUIRE(cudaMalloc(&p, OOM_BYTES) != cudaSuccess);
    } else if (!strcmp(cmd, "q")) {
        exit(0);
    } else {
        REQUIRE(!"unknown command");
    }
}

int main(void)
{
    char line[256];
    while (fgets(line, sizeof line, stdin)) {
        run(line);
        fputs("ok\n", stdout);
        fflush(stdout);
    }
    return 0;
}
/* SPDX-License-Identifier: MIT */
