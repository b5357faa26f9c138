/* Many threads at once through the stand-in runtime. Modes (argv[1]):
 *   leaks    THREADS threads x PAIRS alloc/free pairs of varied sizes, each
 *            thread keeping up to WINDOW allocations live; then thread i
 *            leaks i+1 allocations of LEAK_BYTES(i) from its own function
 *            leak_t<i>.
 *   handoff  PRODUCERS threads allocate, CONSUMERS other threads free
 *            (HANDOFF_PER_PRODUCER each): with one malloc arena and no
 *            tcache the stand-in hands a just-freed address to another
 *            thread at once, racing the free. Nothing leaks. */
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <semaphore.h>
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>
#include "check.h"

#define THREADS 8
#define PAIRS 20000
#define WINDOW 4
#define LEAK_BASE 1000003
#define LEAK_STEP 10007
#define LEAK_BYTES(i) (LEAK_BASE + (i) * LEAK_STEP)
#define PRODUCERS 4
#define CONSUMERS 4
#define HANDOFF_PER_PRODUCER 20000
#define QUEUE 64

/* One leaking function per thread, so the report tells them apart. */
#define LEAKER(n)                                         \
    NOINLINE static void leak_t##n(size_t bytes)          \
    {                                                     \
        void *p = NULL;                                   \
        CHECK(cudaMalloc(&p, bytes));                     \
        __atomic_store_n((void **)&vt_sink, p, __ATOMIC_RELAXED); \
    }
LEAKER(0) LEAKER(1) LEAKER(2) LEAKER(3) LEAKER(4) LEAKER(5) LEAKER(6) LEAKER(7)

static void (*const leakers[THREADS])(size_t) = {leak_t0, leak_t1, leak_t2, leak_t3,
                                                  leak_t4, leak_t5, leak_t6, leak_t7};

static size_t varied_size(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return 256 + (*seed >> 8) % 65536;
}

static sem_t done;

static void *finish(void)
{
    REQUIRE(sem_post(&done) == 0);
    for (;;)
        pause();
    return NULL;
}

static void *churn_and_leak(void *arg)
{
    int id = (int)(intptr_t)arg;
    uint32_t seed = 17u + (uint32_t)id;
    void *live[WINDOW] = {0};
    for (int i = 0; i < PAIRS; i++) {
        void **slot = &live[i % WINDOW];
        if (*slot)
            CHECK(cudaFree(*slot));
        CHECK(cudaMalloc(slot, varied_size(&seed)));
    }
    for (int i = 0; i < WINDOW; i++)
        CHECK(cudaFree(live[i]));
    for (int i = 0; i <= id; i++)
        leakers[id](LEAK_BYTES(id));
    return finish();
}

static struct {
    pthread_mutex_t lock;
    pthread_cond_t changed;
    void *items[QUEUE];
    unsigned head, tail;  /* tail - head items queued */
} queue = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, {0}, 0, 0};

static void push(void *p)
{
    pthread_mutex_lock(&queue.lock);
    while (queue.tail - queue.head == QUEUE)
        pthread_cond_wait(&queue.changed, &queue.lock);
    queue.items[queue.tail++ % QUEUE] = p;
    pthread_cond_broadcast(&queue.changed);
    pthread_mutex_unlock(&queue.lock);
}

static void *pop(void)
{
    pthread_mutex_lock(&queue.lock);
    while (queue.tail == queue.head)
        pthread_cond_wait(&queue.changed, &queue.lock);
    void *p = queue.items[queue.head++ % QUEUE];
    pthread_cond_broadcast(&queue.changed);
    pthread_mutex_unlock(&queue.lock);
    return p;
}

static void *produce(void *arg)
{
    uint32_t seed = 101u + (uint32_t)(intptr_t)arg;
    for (int i = 0; i < HANDOFF_PER_PRODUCER; i++) {
        void *p = NULL;
        CHECK(cudaMalloc(&p, varied_size(&seed)));
        push(p);
    }
    return finish();
}

static void *consume(void *arg)
{
    (void)arg;
    for (int i = 0; i < PRODUCERS * HANDOFF_PER_PRODUCER / CONSUMERS; i++)
        CHECK(cudaFree(pop()));
    return finish();
}

static void run_all(int n, void *(*fn)(void *), pthread_t *threads, int first)
{
    for (int i = 0; i < n; i++)
        REQUIRE(pthread_create(&threads[first + i], NULL, fn, (void *)(intptr_t)i) == 0);
}

int main(int argc, char **argv)
{
    pthread_t threads[THREADS > PRODUCERS + CONSUMERS ? THREADS : PRODUCERS + CONSUMERS];
    int n;
    REQUIRE(sem_init(&done, 0, 0) == 0);
    CHECK(cudaFree(0)); /* initialise the runtime before the threads race */
    if (argc > 1 && strcmp(argv[1], "handoff") == 0) {
        run_all(PRODUCERS, produce, threads, 0);
        run_all(CONSUMERS, consume, threads, PRODUCERS);
        n = PRODUCERS + CONSUMERS;
    } else {
        run_all(THREADS, churn_and_leak, threads, 0);
        n = THREADS;
    }
    for (int i = 0; i < n; i++)
        while (sem_wait(&done) != 0)
            REQUIRE(errno == EINTR);
    return 0;
}
/* SPDX-License-Identifier: MIT */
