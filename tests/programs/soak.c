/* SPDX-License-Identifier: MIT */
/* Soak: a long run with everything at once. argv[1]: seconds in all (two
 * phases of half each). The CUDA work is in libsoak_work.so, loaded with
 * dlopen (it links the runtime).
 *   phase 1: THREADS threads allocate and free in bursts of BURST pairs with
 *            idle gaps of up to 20 ms; the main thread raises SIGUSR2 (a
 *            marker) every 50 ms
 *   a fork:  the child leaks CHILD_BYTES and exits
 *   the work library and the runtime are unloaded (dlclose) and loaded again,
 *            at other addresses (what was kept of them must not be used)
 *   phase 2: the same; then each thread leaves THREAD_LEAK_BYTES allocated
 * Then it prints what it did ("allocations N", "frees N", "marks N",
 * "runtime unloaded 1", "runtime moved 1") and ends by SIGTERM. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define THREADS 8
#define BURST 16
#define CHILD_BYTES 7000003
#define THREAD_LEAK_BYTES 1000003
#define STANDIN_FAILURE 99

typedef int (*work_fn)(size_t);

static work_fn pair, leak;
static void *work;
static volatile int stop;
static long allocations, frees;

static void fail(const char *what)
{
    fprintf(stderr, "soak: %s\n", what);
    exit(STANDIN_FAILURE);
}

static void load_work(void)
{
    work = dlopen("libsoak_work.so", RTLD_NOW | RTLD_LOCAL);
    pair = work ? (work_fn)dlsym(work, "soak_pair") : NULL;
    leak = work ? (work_fn)dlsym(work, "soak_leak") : NULL;
    if (!pair || !leak)
        fail(dlerror());
}

static void sleep_ms(long ms)
{
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000};
    nanosleep(&t, NULL);
}

static void *worker(void *arg)
{
    unsigned seed = (unsigned)(size_t)arg;
    long n = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) {
        for (int i = 0; i < BURST; i++, n++)
            if (pair(4096 + (size_t)(rand_r(&seed) % 97) * 256) != 0)
                fail("a pair failed");
        sleep_ms(rand_r(&seed) % 21);
    }
    __atomic_add_fetch(&allocations, n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&frees, n, __ATOMIC_RELAXED);
    return NULL;
}

/* THREADS workers for SECONDS, a marker every 50 ms meanwhile. */
static long phase(double seconds)
{
    pthread_t threads[THREADS];
    long marks = 0;
    stop = 0;
    for (size_t t = 0; t < THREADS; t++)
        if (pthread_create(&threads[t], NULL, worker, (void *)(t + 1)) != 0)
            fail("pthread_create");
    for (long ms = 0; ms < (long)(seconds * 1000); ms += 50, marks++) {
        sleep_ms(50);
        raise(SIGUSR2);
    }
    __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
    for (int t = 0; t < THREADS; t++)
        pthread_join(threads[t], NULL);
    return marks;
}

/* Where the runtime started: taken once it is unloaded, so that it loads
 * elsewhere the next time, while the work library may come back where it
 * was (a caller at the same addresses as before, calling another runtime). */
static void *runtime_base;

static void take_place_of(void *fn)
{
    Dl_info info;
    if (!dladdr(fn, &info) || !(runtime_base = info.dli_fbase))
        fail("dladdr");
}

static void place_holder(void)
{
    if (mmap(runtime_base, 4096, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE,
             -1, 0) != runtime_base)
        fail("mmap where the runtime was");
}

static void fork_child(void)
{
    int status;
    pid_t child = fork();
    if (child == 0)
        exit(leak(CHILD_BYTES) == 0 ? 0 : STANDIN_FAILURE);
    if (child < 0 || waitpid(child, &status, 0) != child || !WIFEXITED(status) ||
        WEXITSTATUS(status) != 0)
        fail("the child failed");
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 120;
    long marks;
    int unloaded, moved;
    void *runtime_before;
    load_work();
    if (pair(4096) != 0) /* CUDA in use before the first marker */
        fail("the first pair failed");
    allocations = frees = 1;
    marks = phase(seconds / 2);
    fork_child();
    runtime_before = dlsym(work, "cudaMalloc");
    take_place_of(runtime_before);
    dlclose(work);
    unloaded = dlopen("libcudart.so.13", RTLD_NOW | RTLD_NOLOAD) == NULL;
    place_holder();
    load_work();
    moved = dlsym(work, "cudaMalloc") != runtime_before;
    marks += phase(seconds / 2);
    for (int t = 0; t < THREADS; t++)
        if (leak(THREAD_LEAK_BYTES) != 0)
            fail("a leak failed");
    allocations += THREADS;
    if (pair(4096) != 0) /* an event after the last marker */
        fail("the last pair failed");
    allocations++, frees++;
    printf("allocations %ld\nfrees %ld\nmarks %ld\nruntime unloaded %d\nruntime moved %d\n",
           allocations, frees, marks, unloaded, moved);
    fflush(stdout);
    raise(SIGTERM);
    return 1;
}
