/* Prints "result 42" and exits 5 after allocating: PROBE_PAIRS alloc/free
 * pairs and one PROBE_LEAK_BYTES leak; with argv[1] "many", BIG_PAIRS pairs
 * (dump records well past the writer's first 1 MiB chunk); with "huge",
 * HUGE_PAIRS pairs, then "dump_resident_kb N" on stderr: how much of the
 * dump (VRAMTRACE_OUTPUT) is mapped and resident in this process. */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check.h"

#define PROBE_PAIRS 10
#define BIG_PAIRS 200000
#define HUGE_PAIRS 1000000
#define PROBE_LEAK_BYTES 8100007

/* The Rss lines of /proc/self/smaps that follow a mapping of PATH. */
static long resident_kb_of(const char *path)
{
    char line[4096];
    long total = 0, kb;
    int in_path = 0;
    FILE *f = fopen("/proc/self/smaps", "r");
    REQUIRE(f != NULL);
    while (fgets(line, sizeof line, f)) {
        size_t len = strlen(line), plen = strlen(path);
        if (strchr(line, '-') && strchr(line, '-') < strchr(line, ' ')) /* a mapping's line */
            in_path = len > plen && !strncmp(line + len - plen - 1, path, plen);
        else if (in_path && sscanf(line, "Rss: %ld kB", &kb) == 1)
            total += kb;
    }
    fclose(f);
    return total;
}

static int pairs_for(const char *mode)
{
    if (!mode)
        return PROBE_PAIRS;
    return !strcmp(mode, "many") ? BIG_PAIRS : !strcmp(mode, "huge") ? HUGE_PAIRS : PROBE_PAIRS;
}

int main(int argc, char **argv)
{
    int pairs = pairs_for(argc > 1 ? argv[1] : NULL);
    void *p = NULL;
    for (int i = 0; i < pairs; i++) {
        CHECK(cudaMalloc(&p, 4096 + (size_t)(i % 7)));
        CHECK(cudaFree(p));
    }
    if (pairs == HUGE_PAIRS)
        fprintf(stderr, "dump_resident_kb %ld\n", resident_kb_of(getenv("VRAMTRACE_OUTPUT")));
    CHECK(cudaMalloc(&p, PROBE_LEAK_BYTES));
    vt_sink = p;
    printf("result 42\n");
    return 5;
}
/* SPDX-License-Identifier: MIT */
