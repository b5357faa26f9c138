/* SPDX-License-Identifier: MIT */
/* tests/bench/behalf.sh's allocating thread, built as a shared library:
 * behalf_pairs(PAIRS, NAME) starts a thread named NAME that makes PAIRS
 * cudaMalloc/cudaFree pairs (as PyTorch's autograd thread pt_autograd_0
 * does during backward) and waits for it; ns per pair, or -1. */
#define _GNU_SOURCE /* pthread_setname_np */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>

struct job {
    long pairs;
    const char *name;
    double ns;
};

static double now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e9 + t.tv_nsec;
}

static void *worker(void *arg)
{
    struct job *job = arg;
    void *p;
    pthread_setname_np(pthread_self(), job->name);
    double start = now_ns();
    for (long i = 0; i < job->pairs; i++) {
        if (cudaMalloc(&p, 4096) != cudaSuccess || cudaFree(p) != cudaSuccess) {
            job->ns = -1;
            return NULL;
        }
    }
    job->ns = (now_ns() - start) / (double)job->pairs;
    return NULL;
}

double behalf_pairs(long pairs, const char *name)
{
    struct job job = {pairs, name, -1};
    pthread_t thread;
    if (pthread_create(&thread, NULL, worker, &job) != 0)
        return -1;
    pthread_join(thread, NULL);
    return job.ns;
}
