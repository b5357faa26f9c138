/* SPDX-License-Identifier: MIT */
/* Preloaded by tests/test_unwind.py in place of the tracer: every cudaMalloc
 * of the program is answered here (host memory), after three walks of the
 * stack at that point are compared frame by frame: the tracer's fast walk
 * (src/stacks/unwind_fast.c), libunwind's unw_backtrace (what the tracer
 * called before it, and still calls where the fast walk cannot say) and
 * libunwind's unw_step walk without caches (no fast-trace cache, no rule
 * cache: each frame's CFI read anew). dlclose forgets the fast walk's rules,
 * as the tracer's hook does. The fast walk's key (frame_hash.h: where it
 * begins and its hash, with this library's code as the tracer's) is
 * compared with the one taken over unw_step's frames as the tracer takes
 * it over unw_backtrace's. A fourth walk starts where the program called
 * cudaMalloc, as the tracer's walks inside a runtime call do: it must give
 * the frames and key of the first from the key's start on. On aarch64 a
 * stack where both of libunwind's walks stop at the first return address
 * that pointer authentication signed (libunwind 1.6 does not strip it: its
 * walks end there, one bogus frame at most after it), and the fast walk
 * went on, is counted apart (past_signed), with the frames of each walk,
 * its key checked against the fast walk's own frames. At exit, one line on
 * stderr:
 *   unwind_check: stacks N fast F fallback B differ_backtrace D differ_steps S
 *                 differ_key K depth MIN-MAX started T differ_start E
 *                 past_signed P frames_fast PF frames_libunwind PL
 * (depth: the fast walk's frames; PF, PL: the fast walk's and unw_backtrace's
 * frames over the past_signed stacks; UNWIND_CHECK_LIMIT: the most frames a
 * walk takes, 512 as the tracer's default; UNWIND_CHECK_VERBOSE=1 prints
 * the walks of each stack that differs). */
#define UNW_LOCAL_ONLY
#include "eh_frame.h"
#include "unwind_fast.h"

#include <dlfcn.h>
#include <libunwind.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIMIT 1024

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct {
    unsigned long stacks, fast, fallback, differ_backtrace, differ_steps, differ_key, started,
        differ_start, past_signed, frames_fast, frames_libunwind;
    int min_depth, max_depth;
} seen = {.min_depth = MAX_LIMIT};

static int walk_limit(void)
{
    const char *text = getenv("UNWIND_CHECK_LIMIT");
    int limit = text ? atoi(text) : 512;
    return limit > 0 && limit <= MAX_LIMIT ? limit : 512;
}

/* This library's code: the frames that restart a key (as the tracer's). */
static struct vt_tracer_text own_text(void)
{
    static struct vt_tracer_text text;
    Dl_info info;
    struct link_map *map;
    if (text.span || !dladdr1((void *)own_text, &info, (void **)&map, RTLD_DL_LINKMAP))
        return text;
    const ElfW(Ehdr) *ehdr = info.dli_fbase;
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)ehdr + ehdr->e_phoff);
    uintptr_t lo = UINTPTR_MAX, hi = 0;
    for (int i = 0; i < ehdr->e_phnum; i++)
        if (ph[i].p_type == PT_LOAD) {
            uintptr_t a = map->l_addr + ph[i].p_vaddr;
            lo = a < lo ? a : lo;
            hi = a + ph[i].p_memsz > hi ? a + ph[i].p_memsz : hi;
        }
    text.start = lo;
    text.span = hi - lo;
    return text;
}

/* The key over frames another walk gave, as stacks.c takes it. */
static struct vt_frame_key key_of(const uintptr_t *frames, int n, const struct vt_tracer_text *text)
{
    struct vt_frame_key key = {n, VT_FRAME_HASH_SEED, 0};
    while (key.first > 0 && !vt_is_tracer_frame(text, frames[key.first - 1]))
        key.first--;
    for (int i = key.first; i < n; i++)
        key.hash = vt_frame_hash_step(key.hash, frames[i]);
    return key;
}

/* An address unw_step gives as unw_backtrace gives it: on aarch64 its fast
 * trace records each return address less one (the call's last byte). */
#if defined(__aarch64__)
#define AS_BACKTRACE(ip) ((ip)-1)
#else
#define AS_BACKTRACE(ip) (ip)
#endif

/* libunwind's walk frame by frame, as unw_backtrace's slow path makes it. */
static __attribute__((noinline)) int step_walk(uintptr_t *out, int limit)
{
    unw_context_t context;
    unw_cursor_t cursor;
    unw_word_t ip;
    int n = 0;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return -1;
    while (unw_step(&cursor) > 0 && n < limit) {
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0)
            break;
        out[n++] = AS_BACKTRACE(ip);
    }
    return n;
}

/* The same frames from the caller of compare() outward: the first return
 * address of each walk is into compare() itself, from its own call. */
static int same_walk(const uintptr_t *a, int na, const uintptr_t *b, int nb)
{
    return na == nb && na > 0 && memcmp(a + 1, b + 1, (size_t)(na - 1) * sizeof *a) == 0;
}

/* The first of FAST's frames (NF, past compare()'s) whose function saved
 * its return address signed (its CFI's row there says so); 0: none. */
static int first_signed(const uintptr_t *fast, int nf)
{
#if defined(__aarch64__)
    for (int i = 1; i < nf; i++) {
        struct vt_unwind_rule rule;
        vt_eh_frame_rule(fast[i], &rule); /* recorded less one: inside the call */
        if (rule.ra_signed)
            return i;
    }
#else
    (void)fast;
    (void)nf;
#endif
    return 0;
}

/* Walk B (NB frames) ends at the fast walk's frame SIGNED, whose return
 * address is signed: the same frames up to it, at most one after it (the
 * signed address, or libunwind's guess from x30), and not the fast walk's. */
static int stops_at_signed(const uintptr_t *fast, int nf, const uintptr_t *b, int nb, int signed_at)
{
    return signed_at && nb > signed_at && nb <= signed_at + 2 && nb < nf &&
           same_walk(fast, signed_at + 1, b, signed_at + 1) &&
           (nb == signed_at + 1 || b[signed_at + 1] != fast[signed_at + 1]);
}

static void print_walk(const char *name, const uintptr_t *frames, int n)
{
    fprintf(stderr, "unwind_check: %s (%d):", name, n);
    for (int i = 0; i < n; i++) {
        Dl_info info;
        const char *obj = dladdr((void *)(frames[i] - 1), &info) ? info.dli_fname : "?";
        const char *slash = strrchr(obj, '/');
        fprintf(stderr, " %#lx(%s)", (unsigned long)frames[i], slash ? slash + 1 : obj);
    }
    fputc('\n', stderr);
}

/* The walk from START (NS frames, key SKEY) against the whole walk (NF
 * frames, key KEY): the same frames from the key's start, as many where
 * the whole walk was not cut at LIMIT, the same key then; both or neither
 * left to libunwind. */
static int start_differs(const uintptr_t *started, int ns, struct vt_frame_key skey,
                         const uintptr_t *fast, int nf, struct vt_frame_key key, int limit)
{
    if (nf < 0 || ns < 0)
        return (nf < 0) != (ns < 0);
    int whole = nf - key.first;
    if (ns < whole || memcmp(started, fast + key.first, (size_t)whole * sizeof *fast) != 0)
        return 1;
    return nf < limit && (ns != whole || skey.first != 0 || skey.hash != key.hash);
}

static __attribute__((noinline)) void compare(const struct vt_walk_start *start)
{
    uintptr_t fast[MAX_LIMIT], backtrace[MAX_LIMIT], steps[MAX_LIMIT], started[MAX_LIMIT];
    int limit = walk_limit();
    struct vt_tracer_text text = own_text();
    struct vt_frame_key key, expected, skey;
    int nf = vt_unwind_fast(fast, limit, &text, NULL, &key);
    int ns2 = start->cfa ? vt_unwind_fast(started, limit, &text, start, &skey) : -1;
    int nb = unw_backtrace((void **)backtrace, limit);
    int ns = step_walk(steps, limit);
    expected = key_of(steps, ns, &text);
    int differs = nf >= 0 && (!same_walk(fast, nf, backtrace, nb) || !same_walk(fast, nf, steps, ns));
    int signed_at = nf > 0 ? first_signed(fast, nf) : 0;
    int past_signed = stops_at_signed(fast, nf, backtrace, nb, signed_at) &&
                      stops_at_signed(fast, nf, steps, ns, signed_at);
    pthread_mutex_lock(&lock);
    seen.stacks++;
    if (nf < 0) {
        seen.fallback++;
    } else {
        seen.fast++;
        seen.min_depth = nf < seen.min_depth ? nf : seen.min_depth;
        seen.max_depth = nf > seen.max_depth ? nf : seen.max_depth;
    }
    if (past_signed) { /* nf > 0 */
        expected = key_of(fast, nf, &text);
        seen.past_signed++;
        seen.frames_fast += (unsigned long)nf;
        seen.frames_libunwind += (unsigned long)nb;
    } else if (nf >= 0) {
        seen.differ_backtrace += !same_walk(fast, nf, backtrace, nb);
        seen.differ_steps += !same_walk(fast, nf, steps, ns);
    }
    /* the first frame (into compare) is this library's in both */
    seen.differ_key += nf >= 0 && (key.first != expected.first || key.hash != expected.hash);
    seen.started += start->cfa != 0;
    seen.differ_start += start->cfa && start_differs(started, ns2, skey, fast, nf, key, limit);
    if (differs && getenv("UNWIND_CHECK_VERBOSE")) {
        print_walk("fast", fast, nf);
        print_walk("unw_backtrace", backtrace, nb);
        print_walk("unw_step", steps, ns);
    }
    pthread_mutex_unlock(&lock);
}

__attribute__((visibility("default"))) int cudaMalloc(void **p, size_t size)
{
    struct vt_walk_start start;
    vt_walk_start_of_caller(&start);
    compare(&start);
    *p = malloc(size ? size : 1);
    return *p ? 0 : 2; /* cudaErrorMemoryAllocation */
}

__attribute__((visibility("default"))) int cudaFree(void *p)
{
    free(p);
    return 0;
}

__attribute__((visibility("default"))) int dlclose(void *handle)
{
    int (*real)(void *) = (int (*)(void *))dlsym(RTLD_NEXT, "dlclose");
    int r = real ? real(handle) : -1;
    vt_unwind_forget();
    return r;
}

__attribute__((constructor)) static void no_rule_cache(void)
{
    unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
}

__attribute__((destructor)) static void print_seen(void)
{
    fprintf(stderr,
            "unwind_check: stacks %lu fast %lu fallback %lu differ_backtrace %lu "
            "differ_steps %lu differ_key %lu depth %d-%d started %lu differ_start %lu "
            "past_signed %lu frames_fast %lu frames_libunwind %lu\n",
            seen.stacks, seen.fast, seen.fallback, seen.differ_backtrace, seen.differ_steps,
            seen.differ_key, seen.fast ? seen.min_depth : 0, seen.max_depth, seen.started,
            seen.differ_start, seen.past_signed, seen.frames_fast, seen.frames_libunwind);
}
