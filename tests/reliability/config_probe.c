/* Prints "result 42" and exits 5 after allocating: PROBE_PAIRS alloc/free
 * pairs and one PROBE_LEAK_BYTES leak; with argv[1] "many", BIG_PAIRS pairs
 * (dump records well past the writer's first 1 MiB chunk). */
#include <cuda_runtime_api.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define PROBE_PAIRS 10
#define BIG_PAIRS 200000
#define PROBE_LEAK_BYTES 8100007

int main(int argc, char **argv)
{
    int pairs = argc > 1 && strcmp(argv[1], "many") == 0 ? BIG_PAIRS : PROBE_PAIRS;
    void *p = NULL;
    for (int i = 0; i < pairs; i++) {
        CHECK(cudaMalloc(&p, 4096 + (size_t)(i % 7)));
        CHECK(cudaFree(p));
    }
    CHECK(cudaMalloc(&p, PROBE_LEAK_BYTES));
    vt_sink = p;
    printf("result 42\n");
    return 5;
}
