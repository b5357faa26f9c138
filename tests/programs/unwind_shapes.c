/* SPDX-License-Identifier: MIT */
/* Stacks of the shapes the fast walk must walk as libunwind does, for
 * tests/test_unwind.py: C with frame pointers (-O2), allocating at
 *   recurse N      depths 1, 3, 17 and N (N over the frame limit: the walk cut)
 *   threads T      T threads, thread i at depth 5 + i, 20 allocations each
 *   signal         once at depth 2, once in a signal handler raised there
 *   expression     once under a frame whose CFA is a DWARF expression (as
 *                  stack realignment writes them: left to libunwind), once
 *                  at depth 2
 *   remembered     once from a call after an early return's epilogue, whose
 *                  rules remember_state / restore_state put back (the CFA's
 *                  offset with them), once at depth 2
 *   fork           in the parent, in the child (depth 4), in the parent again
 *   sites          from 5,000 call sites (more return addresses than a
 *                  thread's table of rules holds), twice
 *   same_place     at one stack address with the same registers under two
 *                  callers (a walk remembered there must not be taken for
 *                  the other's): under A, B, A, B
 *   shifted        at one stack address under one and then two frames of
 *                  the same recursion (one call site), an alloca above it
 *                  making up the difference: the stack above reads the same
 *                  at every place the first walk read, but the frame with
 *                  the alloca has another rbp, so the walk differs
 *   signed         (aarch64) once under a frame whose return address pointer
 *                  authentication signs (paciasp: DW_CFA_AARCH64_negate_ra_state,
 *                  which the walk strips), once at depth 2
 *   pac_chain      (aarch64) under four frames that each sign their return
 *                  address (pac_1 calls pac_2 ... pac_4), 4099 bytes kept;
 *                  prints "signed S of 4": how many of the four saved return
 *                  addresses pointer authentication changed (0 on a CPU
 *                  without it)
 *   pac_expression (aarch64) under two such frames (pac_x2 calls pac_x1) and
 *                  via_expression's frame (left to libunwind): 8195 bytes kept
 *   pac_exit       (aarch64) 16387 bytes kept on device 0's primary context,
 *                  released inside exit() under two such frames
 *   dlclose A B    hop() of library A calls back to allocate 4097 bytes
 *                  (kept); A is closed, B opened (prints "same place" when B
 *                  lies where A was), its hop() calls back for 8193 bytes
 *                  (kept). */
#include <cuda.h>
#include <cuda_runtime_api.h>
#include <alloca.h>
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static __attribute__((noinline)) int allocate(size_t bytes)
{
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess)
        return 1;
    return cudaFree(p) != cudaSuccess;
}

/* DEPTH frames of down() above allocate(); never a tail call (the work after). */
static __attribute__((noinline)) int down(int depth, size_t bytes)
{
    int r = depth <= 1 ? allocate(bytes) : down(depth - 1, bytes);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int recurse(int n)
{
    return down(1, 256) | down(3, 256) | down(17, 256) | down(n, 256);
}

static void *thread_main(void *arg)
{
    int depth = 5 + (int)(intptr_t)arg, failed = 0;
    for (int i = 0; i < 20; i++)
        failed |= down(depth, 512);
    return (void *)(intptr_t)failed;
}

static int threads(int n)
{
    pthread_t t[64];
    int failed = 0;
    if (n < 1 || n > 64)
        return 1;
    for (int i = 0; i < n; i++)
        if (pthread_create(&t[i], NULL, thread_main, (void *)(intptr_t)i) != 0)
            return 1;
    for (int i = 0; i < n; i++) {
        void *r;
        pthread_join(t[i], &r);
        failed |= (int)(intptr_t)r;
    }
    return failed;
}

static volatile sig_atomic_t handler_failed = 1;

static void on_signal(int sig)
{
    (void)sig;
    handler_failed = allocate(1024);
}

static __attribute__((noinline)) int raise_here(void)
{
    int r = raise(SIGUSR1);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int in_signal(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    if (sigaction(SIGUSR1, &sa, NULL) != 0 || down(2, 64) != 0)
        return 1;
    return raise_here() != 0 || handler_failed;
}

/* via_expression(fn) calls FN from a frame whose CFA is given by a DWARF
 * expression (DW_CFA_def_cfa_expression: DW_OP_breg7 (rsp) + 16, on
 * aarch64 DW_OP_breg31 (sp) + 16), as stack realignment describes its
 * frames. */
#if defined(__aarch64__)
__asm__(".text\n"
        ".type via_expression, %function\n"
        "via_expression:\n"
        ".cfi_startproc\n"
        "stp x29, x30, [sp, -16]!\n"
        ".cfi_escape 0x0f, 0x02, 0x8f, 0x10\n"
        ".cfi_offset x29, -16\n"
        ".cfi_offset x30, -8\n"
        "blr x0\n"
        "ldp x29, x30, [sp], 16\n"
        ".cfi_def_cfa sp, 0\n"
        ".cfi_restore x30\n"
        ".cfi_restore x29\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size via_expression, .-via_expression\n");
#else
__asm__(".text\n"
        ".type via_expression, @function\n"
        "via_expression:\n"
        ".cfi_startproc\n"
        "sub $8, %rsp\n"
        ".cfi_escape 0x0f, 0x02, 0x77, 0x10\n"
        "call *%rdi\n"
        "add $8, %rsp\n"
        ".cfi_def_cfa %rsp, 8\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size via_expression, .-via_expression\n");
#endif
void via_expression(void (*fn)(void));

static int expression_failed = 1;

static void allocate_there(void)
{
    expression_failed = allocate(32);
}

static int expression(void)
{
    via_expression(allocate_there);
    return expression_failed | down(2, 32);
}

/* via_remembered(fn) calls FN after an early return's epilogue (taken
 * when FN is NULL): its CFI remembers the row before the epilogue and
 * restores it after, CFA = rsp + 16 with rbx saved (on aarch64 x29 and
 * x30). */
#if defined(__aarch64__)
__asm__(".text\n"
        ".type via_remembered, %function\n"
        "via_remembered:\n"
        ".cfi_startproc\n"
        "stp x29, x30, [sp, -16]!\n"
        ".cfi_def_cfa_offset 16\n"
        ".cfi_offset x29, -16\n"
        ".cfi_offset x30, -8\n"
        "cbnz x0, 1f\n"
        ".cfi_remember_state\n"
        "ldp x29, x30, [sp], 16\n"
        ".cfi_restore x30\n"
        ".cfi_restore x29\n"
        ".cfi_def_cfa_offset 0\n"
        "ret\n"
        ".cfi_restore_state\n"
        "1:\n"
        "blr x0\n"
        "ldp x29, x30, [sp], 16\n"
        ".cfi_restore x30\n"
        ".cfi_restore x29\n"
        ".cfi_def_cfa_offset 0\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size via_remembered, .-via_remembered\n");
#else
__asm__(".text\n"
        ".type via_remembered, @function\n"
        "via_remembered:\n"
        ".cfi_startproc\n"
        "push %rbx\n"
        ".cfi_adjust_cfa_offset 8\n"
        ".cfi_offset %rbx, -16\n"
        "mov %rdi, %rbx\n"
        "test %rdi, %rdi\n"
        "jne 1f\n"
        ".cfi_remember_state\n"
        "pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "ret\n"
        ".cfi_restore_state\n"
        "1:\n"
        "call *%rbx\n"
        "pop %rbx\n"
        ".cfi_adjust_cfa_offset -8\n"
        ".cfi_restore %rbx\n"
        "ret\n"
        ".cfi_endproc\n"
        ".size via_remembered, .-via_remembered\n");
#endif
void via_remembered(void (*fn)(void));

static int remembered_failed = 1;

static void allocate_after_epilogue(void)
{
    remembered_failed = allocate(48);
}

static int remembered(void)
{
    via_remembered(NULL);
    via_remembered(allocate_after_epilogue);
    return remembered_failed | down(2, 48);
}

#if defined(__aarch64__)
static __attribute__((noinline, target("branch-protection=pac-ret"))) int signing(void)
{
    int r = allocate(96);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int signed_return(void)
{
    return signing() | down(2, 96);
}

#define SIGNING __attribute__((noinline, target("branch-protection=pac-ret")))
#define CHAIN 4 /* pac_1 to pac_4 */

/* IP without its pointer authentication code (xpaclri: hint #7, a NOP on a
 * CPU without pointer authentication). */
static uintptr_t strip_pac(uintptr_t ip)
{
    register uintptr_t x30 __asm__("x30") = ip;
    __asm__("hint #7" : "+r"(x30));
    return x30;
}

/* The chain's innermost: how many of the chain's frame records (x29's
 * chain: the caller's x29, then x30 as the prologue saved it) hold a
 * return address that stripping changes, then 4099 bytes kept. */
static SIGNING int pac_4(void)
{
    const uintptr_t *record = __builtin_frame_address(0);
    int signed_frames = 0;
    void *p = NULL;
    for (int i = 0; i < CHAIN; i++, record = (const uintptr_t *)record[0])
        signed_frames += strip_pac(record[1]) != record[1];
    printf("signed %d of %d\n", signed_frames, CHAIN);
    fflush(stdout);
    int r = cudaMalloc(&p, 4099) != cudaSuccess; /* LEAK:pac_4 */
    __asm__ volatile("" ::: "memory");
    return r;
}

/* NAME, which signs its return address, calls NEXT (never a tail call):
 * the call's line is the one the macro is used on. */
#define SIGNED_LINK(name, next)            \
    static SIGNING int name(void)          \
    {                                      \
        int r = next();                    \
        __asm__ volatile("" ::: "memory"); \
        return r;                          \
    }

SIGNED_LINK(pac_3, pac_4) /* LEAK:pac_3 */
SIGNED_LINK(pac_2, pac_3) /* LEAK:pac_2 */
SIGNED_LINK(pac_1, pac_2) /* LEAK:pac_1 */

/* pac_expression: pac_x2 and pac_x1 sign their return addresses, pac_x1
 * calls via_expression (a frame the fast walk leaves to libunwind), which
 * calls keep_there: 8195 bytes kept. */
static void keep_there(void)
{
    void *p = NULL;
    expression_failed = cudaMalloc(&p, 8195) != cudaSuccess; /* LEAK:keep_there */
}

static SIGNING int pac_x1(void)
{
    via_expression(keep_there); /* LEAK:pac_x1 */
    __asm__ volatile("" ::: "memory");
    return expression_failed;
}

SIGNED_LINK(pac_x2, pac_x1) /* LEAK:pac_x2 */

static int pac_expression(void)
{
    int r = pac_x2(); /* LEAK:pac_expression */
    __asm__ volatile("" ::: "memory");
    return r;
}

/* pac_exit: 16387 bytes kept on device 0's primary context, which only
 * this program retained; exit() runs released_at_exit, and under it
 * release_primary releases that context (both sign their return
 * addresses): it is destroyed inside exit, its memory never given back. */
static CUdevice exit_device;

static SIGNING void release_primary(void)
{
    cuDevicePrimaryCtxRelease(exit_device);
    __asm__ volatile("" ::: "memory");
}

static SIGNING void released_at_exit(void)
{
    release_primary();
    __asm__ volatile("" ::: "memory");
}

static int pac_exit(void)
{
    CUcontext ctx;
    CUdeviceptr d;
    return cuInit(0) != CUDA_SUCCESS || cuDeviceGet(&exit_device, 0) != CUDA_SUCCESS ||
           cuDevicePrimaryCtxRetain(&ctx, exit_device) != CUDA_SUCCESS ||
           cuCtxPushCurrent(ctx) != CUDA_SUCCESS || cuMemAlloc(&d, 16387) != CUDA_SUCCESS ||
           atexit(released_at_exit) != 0;
}

static int pac_chain(void)
{
    int r = pac_1(); /* LEAK:pac_chain */
    __asm__ volatile("" ::: "memory");
    return r;
}
#endif

static int forked(void)
{
    int status;
    if (down(3, 128) != 0)
        return 1;
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        exit(down(4, 128));
    if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        return 1;
    return down(5, 128);
}

static size_t hop_bytes;

static void kept_allocation(void)
{
    void *p = NULL;
    if (cudaMalloc(&p, hop_bytes) != cudaSuccess)
        hop_bytes = 0;
}

/* Opens PATH, calls its hop(kept_allocation) for BYTES; its address in *AT. */
static int hop_through(const char *path, size_t bytes, void **at, int close)
{
    void *lib = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    void (*hop)(void (*)(void)) = lib ? (void (*)(void (*)(void)))dlsym(lib, "hop") : NULL;
    if (!hop)
        return 1;
    *at = (void *)hop;
    hop_bytes = bytes;
    hop(kept_allocation);
    if (close && dlclose(lib) != 0)
        return 1;
    return hop_bytes == 0;
}

static int reopened(const char *a, const char *b)
{
    void *at_a, *at_b;
    if (hop_through(a, 4097, &at_a, 1) || hop_through(b, 8193, &at_b, 0))
        return 1;
    puts(at_a == at_b ? "same place" : "moved");
    return 0;
}

/* Callers alike but for their return addresses: allocate() runs at the same
 * place under each. */
static __attribute__((noinline)) int under_a(void)
{
    int r = allocate(64);
    __asm__ volatile("" ::: "memory");
    return r;
}

static __attribute__((noinline)) int under_b(void)
{
    int r = allocate(64);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int same_place(void)
{
    return under_a() | under_b() | under_a() | under_b();
}

/* shifted: step() recurses K times through one call site (a function
 * pointer), then calls padded(), whose alloca of PAD bytes (a frame
 * pointer: its CFA comes from rbp) puts allocate() where the caller asked.
 * With probe set, padded() only notes its frame's address. */
typedef int step_fn(int k, size_t pad);
static step_fn step, padded;
static char *probed;
static int probe;

static __attribute__((noinline)) int padded(int k, size_t pad)
{
    char *p = alloca(pad);
    (void)k;
    __asm__ volatile("" : : "r"(p) : "memory");
    if (probe) {
        probed = __builtin_frame_address(0);
        return 0;
    }
    int r = allocate(64);
    __asm__ volatile("" ::: "memory");
    return r;
}

static __attribute__((noinline)) int step(int k, size_t pad)
{
    step_fn *volatile next = k ? step : padded;
    int r = next(k - 1, pad);
    __asm__ volatile("" ::: "memory");
    return r;
}

static int shifted(void)
{
    char *at[2];
    int failed = 0;
    probe = 1;
    for (int k = 0; k < 2; k++) {
        step(k, 16);
        at[k] = probed;
    }
    probe = 0;
    size_t frame = (size_t)(at[0] - at[1]); /* step()'s frame */
    volatile int calls = 2;                 /* not unrolled: one call site, one return address */
    for (int k = 0; k < calls; k++)
        failed |= step(k, k ? 16 : 16 + frame);
    return failed;
}

/* 5,000 calls of allocate(): a return address each. */
#define TIMES10(x) x x x x x x x x x x
#define TIMES5000(x) TIMES10(TIMES10(TIMES10(x x x x x)))

static __attribute__((noinline)) int each_site(void)
{
    int failed = 0;
    TIMES5000(failed |= allocate(128);)
    return failed;
}

static int sites(void)
{
    return each_site() | each_site();
}

/* The shapes that take no argument. */
static const struct {
    const char *name;
    int (*run)(void);
} without_arguments[] = {
    {"signal", in_signal},     {"expression", expression}, {"remembered", remembered},
    {"fork", forked},          {"sites", sites},           {"same_place", same_place},
    {"shifted", shifted},
#if defined(__aarch64__)
    {"signed", signed_return}, {"pac_chain", pac_chain},   {"pac_expression", pac_expression},
    {"pac_exit", pac_exit},
#endif
};

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "recurse") && argc == 3)
        return recurse(atoi(argv[2]));
    if (!strcmp(mode, "threads") && argc == 3)
        return threads(atoi(argv[2]));
    for (size_t i = 0; i < sizeof without_arguments / sizeof *without_arguments; i++)
        if (!strcmp(mode, without_arguments[i].name))
            return without_arguments[i].run(); /* LEAK:main */
    if (!strcmp(mode, "dlclose") && argc == 4)
        return reopened(argv[2], argv[3]);
    fprintf(stderr, "usage: unwind_shapes recurse N|threads "
                    "T|signal|expression|remembered|fork|sites|same_place|shifted|signed|pac_chain|"
                    "pac_expression|pac_exit|dlclose A B\n");
    return 2;
}
