/* SPDX-License-Identifier: MIT */
/* A run without markers whose steps are a small part of its time (issue
 * 38): a model loaded first (MODEL_PARTS allocations at one line, kept),
 * a slow start (SLOW_START_NS of sleep, as `import torch` takes), then
 * STEPS fast steps, each making two temporaries (an activation and a
 * gradient) and freeing them. Modes (argv[1]):
 *   keep   each step also keeps KEEP_BYTES at keep_step (the leak, grown
 *          one step at a time); all of it is freed at the end, as an
 *          interpreter's shutdown frees what a script held: no leak at exit
 *   clean  nothing kept: the same steps, no growth
 * Everything is freed before exit. */
#include <cuda_runtime_api.h>
#include <string.h>
#include <time.h>

#include "check.h"

#define MODEL_PARTS 20
#define MODEL_PART_BYTES (256 << 10)
#define SLOW_START_NS 1000000000L
#define STEPS 30
#define ACTIVATION_BYTES (3 << 20)
#define GRADIENT_BYTES (2 << 20)
#define KEEP_BYTES (1 << 20)

static void *model[MODEL_PARTS], *kept[STEPS];

static NOINLINE void *load_part(void)
{
    void *p;
    CHECK(cudaMalloc(&p, MODEL_PART_BYTES)); /* LEAK:model */
    return p;
}

static NOINLINE void *activation(void)
{
    void *p;
    CHECK(cudaMalloc(&p, ACTIVATION_BYTES)); /* LEAK:activation */
    return p;
}

static NOINLINE void *gradient(void)
{
    void *p;
    CHECK(cudaMalloc(&p, GRADIENT_BYTES)); /* LEAK:gradient */
    return p;
}

static NOINLINE void *keep_step(void)
{
    void *p;
    CHECK(cudaMalloc(&p, KEEP_BYTES)); /* LEAK:keep */
    return p;
}

static void step(int i, int keep)
{
    void *act = activation();
    if (keep)
        kept[i] = keep_step();
    void *grad = gradient();
    CHECK(cudaFree(act));
    CHECK(cudaFree(grad));
}

int main(int argc, char **argv)
{
    int keep = argc > 1 && !strcmp(argv[1], "keep");
    for (int i = 0; i < MODEL_PARTS; i++)
        model[i] = load_part();
    struct timespec slow = {SLOW_START_NS / 1000000000L, SLOW_START_NS % 1000000000L};
    nanosleep(&slow, NULL);
    for (int i = 0; i < STEPS; i++)
        step(i, keep);
    for (int i = 0; i < STEPS; i++)
        if (kept[i])
            CHECK(cudaFree(kept[i]));
    for (int i = 0; i < MODEL_PARTS; i++)
        CHECK(cudaFree(model[i]));
    return 0;
}
