/* A leak at the bottom of a recursion DEPTH calls deep (argv[1], default
 * 200): leaf_alloc <- descend x DEPTH <- main. The program's own frames:
 * DEPTH + 5 (leaf_alloc, the descends, main, and the C library's
 * __libc_start_call_main, __libc_start_main_impl, _start). */
#include "check.h"
#include "cuda_runtime_api.h"

#define DEEP_LEAK_BYTES 1234567
#define DEEP_DEFAULT_DEPTH 200

static NOINLINE void leaf_alloc(void)
{
    void *p = NULL;
    CHECK(cudaMalloc(&p, DEEP_LEAK_BYTES)); /* LEAK:deep */
    vt_sink = p;
}

/* Not a tail call (-fno-optimize-sibling-calls): one frame per level. */
static NOINLINE void descend(int depth)
{
    if (depth > 1)
        descend(depth - 1);
    else
        leaf_alloc();
}

int main(int argc, char **argv)
{
    descend(argc > 1 ? atoi(argv[1]) : DEEP_DEFAULT_DEPTH);
    return 0;
}
/* SPDX-License-Identifier: MIT */
