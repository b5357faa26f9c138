/* SPDX-License-Identifier: MIT */
/* The walk libunwind's fast trace (tdep_trace, behind unw_backtrace) makes,
 * with a smaller cache and nothing else per frame: the rule of each return
 * address (eh_frame.h) found in this thread's table, the CFA from rsp or rbp,
 * the return address at CFA - 8, rbp at its saved place. Like libunwind it
 * looks the rule up at the return address - 1 (inside the call), stops
 * after a frame whose rule says the stack ends, and before a return address
 * under 0x4000; where its rules and ours could differ (a frame without
 * CFI, a signal frame, an expression), the caller asks libunwind instead.
 * It reads nothing but the thread's own stack, above the walk's start.
 * Each thread has its table (no lock; a walk inside a walk, from a signal
 * handler, is refused); a forked child keeps its thread's, which holds for
 * the same objects at the same addresses. An object unloaded empties every
 * table before its next walk: another may be loaded at its addresses. */
#include "unwind_fast.h"

#include "eh_frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BITS 12
#define SLOTS (1u << SLOT_BITS) /* 64 KiB a thread */
#define PROBES 8
#define LOWEST_RETURN 0x4000 /* libunwind's "somewhere bogus" */

struct walk_cache {
    struct vt_unwind_rule slots[SLOTS];
    uintptr_t stack_lo, stack_hi; /* the thread's stack: no read outside it */
    unsigned generation;          /* of vt_unwind_forget: the rules hold until it moves */
};

/* The thread's cache; GONE once its destructor ran (the thread ends). */
#define GONE ((struct walk_cache *)1)
static __thread struct walk_cache *cache __attribute__((tls_model("initial-exec")));
static __thread int walking __attribute__((tls_model("initial-exec")));
static unsigned generation;
static pthread_key_t free_at_exit;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

static void drop_cache(void *table)
{
    cache = GONE;
    free(table);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&free_at_exit, drop_cache) == 0;
}

/* The calling thread's stack, [*LO, *HI); both 0 when unknown. */
static void stack_bounds(uintptr_t *lo, uintptr_t *hi)
{
    pthread_attr_t attr;
    void *addr;
    size_t size;
    *lo = *hi = 0;
    if (pthread_getattr_np(pthread_self(), &attr) != 0)
        return;
    if (pthread_attr_getstack(&attr, &addr, &size) == 0) {
        *lo = (uintptr_t)addr;
        *hi = (uintptr_t)addr + size;
    }
    pthread_attr_destroy(&attr);
}

/* Made on the thread's first walk (as libunwind makes its own), freed at
 * its end. NULL when there is none. */
static struct walk_cache *make_cache(void)
{
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    struct walk_cache *made = calloc(1, sizeof *made);
    if (!made)
        return NULL;
    if (pthread_setspecific(free_at_exit, made) != 0) {
        free(made);
        return NULL;
    }
    stack_bounds(&made->stack_lo, &made->stack_hi);
    return cache = made;
}

static struct walk_cache *thread_cache(void)
{
    struct walk_cache *c = cache;
    if (__builtin_expect(c == NULL, 0))
        c = make_cache();
    if (!c || c == GONE)
        return NULL;
    unsigned now = __atomic_load_n(&generation, __ATOMIC_ACQUIRE);
    if (__builtin_expect(c->generation != now, 0)) {
        memset(c->slots, 0, sizeof c->slots);
        c->generation = now;
    }
    return c;
}

/* IP's home slot: a multiplicative hash's top bits. */
static inline struct vt_unwind_rule *home_of(struct walk_cache *c, uintptr_t ip)
{
    return &c->slots[((uint64_t)ip * 0x9E3779B97F4A7C15u) >> (64 - SLOT_BITS)];
}

/* IP not in its home slot: in one of the next, or read from its object's
 * CFI into a free one (or, with none free near, over its home). */
static __attribute__((noinline)) const struct vt_unwind_rule *rule_missed(struct walk_cache *c,
                                                                          uintptr_t ip)
{
    struct vt_unwind_rule *home = home_of(c, ip), *s = home;
    for (unsigned i = 1; i < PROBES && s->ip; i++) {
        s = &c->slots[(unsigned)(home - c->slots + i) & (SLOTS - 1)];
        if (s->ip == ip)
            return s;
    }
    if (s->ip)
        s = home;
    vt_eh_frame_rule(ip - 1, s);
    s->ip = ip;
    return s;
}

static inline const struct vt_unwind_rule *rule_of(struct walk_cache *c, uintptr_t ip)
{
    const struct vt_unwind_rule *s = home_of(c, ip);
    if (__builtin_expect(s->ip == ip, 1))
        return s;
    return rule_missed(c, ip);
}

/* One frame with a CFA from rbp (or the end, or one libunwind must walk):
 * its CFA into *CFA, rbp into *BP where it was saved; 1, 0 at the end of
 * the stack, -1 where libunwind has to walk it. */
static inline int step_rbp(const struct vt_unwind_rule *r, uintptr_t sp, uintptr_t *bp,
                           uintptr_t hi, uintptr_t *cfa)
{
    if (r->how != VT_UNWIND_RBP)
        return r->how == VT_UNWIND_END ? 0 : -1;
    *cfa = *bp + (intptr_t)r->cfa_off;
    uintptr_t saved = *cfa + (intptr_t)r->rbp_off;
    /* Above the last frame, and so its slots. */
    if (*cfa < sp + 8 || *cfa > hi || saved < sp)
        return -1;
    if (r->rbp_off)
        *bp = *(const uintptr_t *)saved;
    return 1;
}

/* The walk from the registers IP, SP, BP: see unwind_fast.h. Every read
 * lies above SP (which only rises) and under the stack's top. */
static int walk(struct walk_cache *c, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t *frames,
                int limit)
{
    uintptr_t *out = frames, *end = frames + limit, hi = c->stack_hi, cfa;
    if (sp < c->stack_lo || sp >= hi)
        return -1;
    while (out < end) {
        const struct vt_unwind_rule *r = rule_of(c, ip);
        if (__builtin_expect(r->how <= VT_UNWIND_RSP_SAVED_RBP, 1)) {
            /* Without frame pointers: cfa_off >= 8, rbp's slot inside the
             * frame (eh_frame.h). */
            cfa = sp + (intptr_t)r->cfa_off;
            if (__builtin_expect(cfa > hi, 0))
                return -1;
            if (r->how == VT_UNWIND_RSP_SAVED_RBP)
                bp = *(const uintptr_t *)(cfa + (intptr_t)r->rbp_off);
        } else {
            int step = step_rbp(r, sp, &bp, hi, &cfa);
            if (step <= 0) {
                if (step < 0)
                    return -1;
                break;
            }
        }
        ip = *(const uintptr_t *)(cfa - 8);
        sp = cfa;
        if (__builtin_expect(ip < LOWEST_RETURN, 0))
            break;
        *out++ = ip;
    }
    return (int)(out - frames);
}

__attribute__((noinline)) int vt_unwind_fast(uintptr_t *frames, int limit)
{
    uintptr_t ip, sp, bp;
    /* This function's own frame, read where its CFI describes it: the
     * address after the lea is looked up less one, inside this asm. rbp
     * first: an output may be rbp itself. */
    __asm__ volatile("mov %%rbp, %2\n\tmov %%rsp, %1\n\tlea 0(%%rip), %0"
                     : "=&r"(ip), "=&r"(sp), "=&r"(bp));
    struct walk_cache *c;
    int n;
    if (walking || !(c = thread_cache()))
        return -1;
    walking = 1;
    n = walk(c, ip, sp, bp, frames, limit);
    walking = 0;
    return n;
}

void vt_unwind_forget(void)
{
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
}
