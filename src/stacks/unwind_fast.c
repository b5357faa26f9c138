/* SPDX-License-Identifier: MIT */
/* The walk libunwind's fast trace (tdep_trace, behind unw_backtrace) makes,
 * with a smaller cache and nothing else per frame: the rule of each return
 * address (eh_frame.h) found in this thread's table, the CFA from rsp or rbp,
 * the return address at CFA - 8, rbp at its saved place (on aarch64: sp or
 * x29, x30 and x29 at their places in the frame; each return address
 * recorded less one, as libunwind's aarch64 fast trace records it, and
 * stripped of its pointer authentication code where the frame's CFI says
 * it is signed: libunwind 1.6 ends the stack there instead). Like
 * libunwind it looks the rule up at the return address - 1 (inside the
 * call), stops
 * after a frame whose rule says the stack ends, and before a return address
 * under 0x4000; where its rules and ours could differ (a frame without
 * CFI, a signal frame, an expression), the caller asks libunwind instead.
 * It reads nothing but the thread's own stack, above the walk's start.
 * Each thread has its table (no lock; a walk inside a walk, from a signal
 * handler, is refused); a forked child keeps its thread's, which holds for
 * the same objects at the same addresses. An object unloaded empties every
 * table before its next walk: another may be loaded at its addresses.
 * Each slot also names the slot of the return address that followed its
 * own last time: a walk tries that one first and hashes only where the
 * caller changed. Then the next frame's rule is known before its return
 * address is read, and the reads of a walk no longer wait one on another
 * (a hash of each address read, then its slot, did). A slot is 16 bytes,
 * four to a cache line: the rule, with the caller's place beside `how`.
 * Slots are laid out in the order walks first met their addresses, and
 * found by a separate index of addresses: the slots of one stack lie
 * together, in a few runs of cache lines, not one line a frame (between
 * two captures the program's own work evicts them).
 * A walk reads nothing but the stack, at places that its rules (fixed
 * while the objects stay loaded) and the values it read before decide. So
 * a walk from the same registers (rbp only where the walk used the value
 * it began with) whose every read finds what the last such walk read
 * makes the same frames: a few walks are remembered with their reads (an
 * rbp read only where a frame's CFA came from it: a frame without a frame
 * pointer saves whatever rbp held), and checking those values again, a
 * load and a compare a read, replaces the walk. */
#include "unwind_fast.h"

#include "eh_frame.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define SLOT_BITS 12
#define SLOTS (1u << SLOT_BITS)    /* 64 KiB a thread */
#define INDEX_BITS (SLOT_BITS + 1) /* at most half full: 16 KiB a thread */
#define PROBES 8
#define LOWEST_RETURN 0x4000 /* libunwind's "somewhere bogus" */

/* A rule (eh_frame.h) and where the walk went next last time: in
 * how_caller, `how` in the low 4 bits, the caller's slot's byte offset in
 * the table (a multiple of 16) in the rest. Slot 0 when never set: any slot
 * is checked against the return address before its rule is used. */
struct slot {
    uintptr_t ip;
#if defined(__aarch64__)
    int16_t cfa_off, ra_off, rbp_off; /* in 8 bytes (eh_frame.c: they fit) */
#else
    int32_t cfa_off;
    int16_t rbp_off;
#endif
    uint16_t how_caller;
};

/* A slot's offsets in bytes; the return address at CFA + RA_OFF, where
 * the walk records it as RECORDED: libunwind's fast trace on aarch64 gives
 * each return address less one (the call's last byte), on x86_64 itself. */
#if defined(__aarch64__)
#define CFA_OFF(slot) ((intptr_t)(slot)->cfa_off * 8)
#define RBP_OFF(slot) ((intptr_t)(slot)->rbp_off * 8)
#define RA_OFF(slot) ((intptr_t)(slot)->ra_off * 8) /* x30's place in the frame */
#define RECORDED(ip) ((ip)-1)
#define RETURN_ADDRESS(slot, read) \
    ((slot)->how_caller & SIGNED_BIT ? vt_stripped_return(read) : (read))
#else
#define CFA_OFF(slot) ((intptr_t)(slot)->cfa_off)
#define RBP_OFF(slot) ((intptr_t)(slot)->rbp_off)
#define RA_OFF(slot) ((intptr_t)-8) /* the return address the call pushed */
#define RECORDED(ip) (ip)
#define RETURN_ADDRESS(slot, read) (read)
#endif

#if defined(__aarch64__)
#define HOW_BITS 0x7u
#define SIGNED_BIT 0x8u /* the return address saved signed */
#else
#define HOW_BITS 0xFu
#endif
#define CALLER_BITS 0xFFF0u
_Static_assert(VT_UNWIND_CANNOT <= HOW_BITS, "a rule's how fits");
_Static_assert(sizeof(struct slot) == 16 && SLOTS * 16 - 1 <= 0xFFFF, "a slot's place fits");

#define MEMOS 8 /* walks remembered a thread: 26 KiB */
#define MEMO_FRAMES 80
#define MEMO_READS (2 * MEMO_FRAMES + 2) /* a return address and rbp a frame, the last read */

/* A value a walk read, at its offset above the walk's first sp. */
struct memo_read {
    uint32_t at;
    uintptr_t value;
};

/* A walk from IP, SP (and BP where bp_used) that gave FRAMES frames after
 * the FROM its caller had put in, and KEY; NEXT: the memo the thread's
 * walk after this one's last took (-1: none). */
struct memo {
    uintptr_t ip, sp, bp;
    int limit, from, frames, reads, bp_used, valid, next;
    uint64_t stamp; /* from recordings: which recording it holds */
    struct vt_frame_key key;
    uintptr_t frame[MEMO_FRAMES];
    struct memo_read read[MEMO_READS];
};

struct walk_cache {
    struct slot slots[SLOTS];         /* in the order walks first met them */
    uint16_t index[1u << INDEX_BITS]; /* at an address's hash: its slot's number + 1, 0 none */
    unsigned used;                    /* slots taken; when all are, a new rule takes an old one's */
    uint16_t first;                   /* the byte offset of vt_unwind_fast's own frame's slot */
    uint16_t start_first;             /* and of the slot of the last walk's start */
    uintptr_t stack_lo, stack_hi;     /* the thread's stack: no read outside it */
    unsigned generation;              /* of vt_unwind_forget: the rules hold until it moves */
    struct memo memos[MEMOS];         /* one place may have several: each caller's */
    int last_memo;                    /* the memo the last walk took (-1: none) */
    unsigned next_victim;             /* the memo a walk not remembered takes */
};

/* The thread's cache; GONE once its destructor ran (the thread ends). */
#define GONE ((struct walk_cache *)1)
static __thread struct walk_cache *cache __attribute__((tls_model("initial-exec")));
static __thread int walking __attribute__((tls_model("initial-exec")));
/* The thread's walks remembered so far: each memo's stamp. Outside the
 * cache, which is made again after vt_unwind_forget: a stamp is never
 * given twice on a thread, so equal stamps are equal frames. */
static __thread uint64_t recordings __attribute__((tls_model("initial-exec")));
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
static __attribute__((cold)) struct walk_cache *make_cache(void)
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
    made->last_memo = -1;
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
        memset(c->index, 0, sizeof c->index);
        memset(c->memos, 0, sizeof c->memos);
        c->last_memo = -1;
        c->used = 0;
        c->first = c->start_first = 0;
        c->generation = now;
    }
    return c;
}

/* IP's home in the index: a multiplicative hash's top bits. */
static inline unsigned home_of(uintptr_t ip)
{
    return (unsigned)(((uint64_t)ip * 0x9E3779B97F4A7C15u) >> (64 - INDEX_BITS));
}

/* The slot at byte OFFSET of the table. */
static inline struct slot *slot_at(struct walk_cache *c, unsigned offset)
{
    return (struct slot *)((char *)c->slots + (offset & CALLER_BITS));
}

/* IP's rule read from its object's CFI into S. */
static void fill(struct slot *s, uintptr_t ip)
{
    struct vt_unwind_rule rule;
    vt_eh_frame_rule(ip - 1, &rule);
    s->ip = ip;
#if defined(__aarch64__)
    s->cfa_off = (int16_t)(rule.cfa_off / 8);
    s->rbp_off = (int16_t)(rule.rbp_off / 8);
    s->ra_off = (int16_t)(rule.ra_off / 8);
    s->how_caller = (uint16_t)(rule.how | (rule.ra_signed ? SIGNED_BIT : 0)); /* caller: slot 0 */
#else
    s->cfa_off = rule.cfa_off;
    s->rbp_off = (int16_t)rule.rbp_off;
    s->how_caller = rule.how; /* caller: slot 0 */
#endif
}

/* IP's rule read from its object's CFI into the next free slot (or, with
 * none free, an old one), indexed at AT. */
static __attribute__((cold, noinline)) struct slot *rule_missed(struct walk_cache *c, uintptr_t ip,
                                                                unsigned at)
{
    unsigned number = c->used < SLOTS ? c->used++ : at & (SLOTS - 1);
    c->index[at] = (uint16_t)(number + 1);
    fill(&c->slots[number], ip);
    return &c->slots[number];
}

/* IP's slot where the walk did not guess it: found through the index, and
 * the guess in *LINK (how_caller, or the table's first) corrected for the
 * next walk. */
static __attribute__((noinline)) struct slot *slot_hashed(struct walk_cache *c, uintptr_t ip,
                                                          uint16_t *link)
{
    unsigned at = home_of(ip), number;
    struct slot *s = NULL;
    for (unsigned i = 0; i < PROBES; i++, at = (at + 1) & ((1u << INDEX_BITS) - 1)) {
        if (!(number = c->index[at]))
            break;
        if (c->slots[number - 1].ip == ip) {
            s = &c->slots[number - 1];
            break;
        }
    }
    if (!s) /* at the free place its probes met, or over its home */
        s = rule_missed(c, ip, number ? home_of(ip) : at);
    unsigned offset = (unsigned)((char *)s - (char *)c->slots);
    *link = (uint16_t)((*link & ~CALLER_BITS) | offset);
    return s;
}

/* What a walk being remembered has read so far. rbp's value is recorded
 * only once a frame's CFA is taken from it: a frame without a frame
 * pointer saves whatever rbp held, different from one call to the next. */
struct recording {
    struct memo *memo;
    uintptr_t sp;
    uintptr_t bp_at; /* where the rbp not yet used was read (0: the walk's own) */
    int reads, bp_used, overflow;
};

/* VALUE read at AT (above the walk's first sp). */
static inline void record_read(struct recording *rec, uintptr_t at, uintptr_t value)
{
    if (rec->reads >= MEMO_READS || at - rec->sp > UINT32_MAX) {
        rec->overflow = 1;
        return;
    }
    rec->memo->read[rec->reads].at = (uint32_t)(at - rec->sp);
    rec->memo->read[rec->reads++].value = value;
}

/* One frame with a CFA from rbp (or the end, or one libunwind must walk):
 * its CFA into *CFA, rbp into *BP where it was saved; 1, 0 at the end of
 * the stack, -1 where libunwind has to walk it. */
static inline __attribute__((always_inline)) int step_rbp(const struct slot *r, unsigned how,
                                                          uintptr_t sp, uintptr_t *bp, uintptr_t hi,
                                                          uintptr_t *cfa, struct recording *rec)
{
    if (how != VT_UNWIND_RBP)
        return how == VT_UNWIND_END ? 0 : -1;
    if (rec && rec->bp_at) /* the walk's outcome depends on the rbp read there */
        record_read(rec, rec->bp_at, *bp);
    else if (rec)
        rec->bp_used = 1; /* on the rbp it began with */
    *cfa = *bp + CFA_OFF(r);
    uintptr_t saved = *cfa + RBP_OFF(r);
    /* Above the last frame, and so its slots. */
    if (*cfa < sp - RA_OFF(r) || *cfa > hi || saved < sp)
        return -1;
    if (r->rbp_off) {
        *bp = *(const uintptr_t *)saved;
        if (rec)
            rec->bp_at = saved;
    }
    return 1;
}

/* The walk from the registers IP, SP, BP: see unwind_fast.h. Every read
 * lies above SP (which only rises) and under the stack's top. FRAMES holds
 * IP already where it is a frame of the stack (a walk's start), and the key
 * in *KEY is taken from there on. With REC, each value read is recorded.
 * Inline: a copy that records and one that does not. */
static inline __attribute__((always_inline)) int
walk_body(struct walk_cache *c, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t *frames,
          uintptr_t *out, int limit, const struct vt_tracer_text *tracer, struct vt_frame_key *key,
          struct recording *rec)
{
    uintptr_t *end = frames + limit, hi = c->stack_hi, cfa;
    uint64_t hash = key->hash;
    uint16_t *link = out == frames ? &c->first : &c->start_first;
    const struct vt_tracer_text ours = *tracer; /* in registers: the stores below may alias */
    uintptr_t *first = frames + key->first;
    if (sp < c->stack_lo || sp >= hi)
        return -1;
    while (out < end) {
        struct slot *r = slot_at(c, *link);
        if (__builtin_expect(r->ip != ip, 0))
            r = slot_hashed(c, ip, link);
        link = &r->how_caller;
        unsigned how = r->how_caller & HOW_BITS;
        if (__builtin_expect(how <= VT_UNWIND_RSP_SAVED_RBP, 1)) {
            /* Without frame pointers: cfa_off >= 8, rbp's slot inside the
             * frame (eh_frame.h). */
            cfa = sp + CFA_OFF(r);
            if (__builtin_expect(cfa > hi, 0))
                return -1;
            if (how == VT_UNWIND_RSP_SAVED_RBP) {
                bp = *(const uintptr_t *)(cfa + RBP_OFF(r));
                if (rec)
                    rec->bp_at = cfa + RBP_OFF(r);
            }
        } else {
            int step = step_rbp(r, how, sp, &bp, hi, &cfa, rec);
            if (step <= 0) {
                if (step < 0)
                    return -1;
                break;
            }
        }
        ip = *(const uintptr_t *)(cfa + RA_OFF(r));
        if (rec)
            record_read(rec, cfa + RA_OFF(r), ip); /* as read: signed or not */
        ip = RETURN_ADDRESS(r, ip);
        sp = cfa;
        if (__builtin_expect(ip < LOWEST_RETURN, 0))
            break;
        *out++ = RECORDED(ip);
        if (__builtin_expect(vt_is_tracer_frame(&ours, RECORDED(ip)), 0)) {
            hash = VT_FRAME_HASH_SEED;
            first = out;
        } else {
            hash = vt_frame_hash_step(hash, RECORDED(ip));
        }
    }
    key->first = (int)(first - frames);
    key->hash = hash;
    return (int)(out - frames);
}

/* The value M's read I finds now, less the one it found (0: the same).
 * Not instrumented by AddressSanitizer, nor is walk_remembered: reads go on
 * past the first change, where the place may now be another frame's
 * padding (poisoned under ASan, plain stack memory otherwise); what they
 * find there is compared, never used. */
__attribute__((no_sanitize_address)) static inline uintptr_t read_changed(const struct memo *m,
                                                                          const char *base, int i)
{
    return *(const uintptr_t *)(base + m->read[i].at) ^ m->read[i].value;
}

/* M's walk again, where every value it read is still there: its frames
 * after FRAMES' first M->from and its key; -1 where one differs. Four
 * reads a test: some 5 instructions a read instead of 7 (every place lies
 * in the thread's stack above the same sp: reading past a change is safe). */
__attribute__((no_sanitize_address)) static int
walk_remembered(const struct memo *m, uintptr_t *frames, struct vt_frame_key *key)
{
    const char *base = (const char *)m->sp;
    int i = 0;
    for (; i + 4 <= m->reads; i += 4)
        if (read_changed(m, base, i) | read_changed(m, base, i + 1) | read_changed(m, base, i + 2) |
            read_changed(m, base, i + 3))
            return -1;
    for (; i < m->reads; i++)
        if (read_changed(m, base, i))
            return -1;
    memcpy(frames + m->from, m->frame, (size_t)m->frames * sizeof *frames);
    *key = m->key;
    key->walk = m->stamp;
    return m->from + m->frames;
}

/* A walk not remembered (or whose reads changed), remembered in M where
 * it ends well and fits. */
static __attribute__((noinline)) int walk_recorded(struct walk_cache *c, struct memo *m,
                                                   uintptr_t ip, uintptr_t sp, uintptr_t bp,
                                                   uintptr_t *frames, uintptr_t *out, int limit,
                                                   const struct vt_tracer_text *tracer,
                                                   struct vt_frame_key *key)
{
    struct recording rec = {.memo = m, .sp = sp};
    int from = (int)(out - frames);
    m->valid = 0;
    int n = walk_body(c, ip, sp, bp, frames, out, limit, tracer, key, &rec);
    if (n < 0 || rec.overflow || n - from > MEMO_FRAMES)
        return n;
    m->ip = ip;
    m->sp = sp;
    m->bp = bp;
    m->limit = limit;
    m->from = from;
    m->frames = n - from;
    m->reads = rec.reads; /* recorded in place */
    m->bp_used = rec.bp_used;
    m->next = -1;
    m->key = *key;
    memcpy(m->frame, out, (size_t)(n - from) * sizeof *frames);
    m->stamp = ++recordings;
    m->valid = 1;
    key->walk = m->stamp;
    return n;
}

/* M remembers a walk from IP, SP, BP of LIMIT frames after FROM. */
static inline int memo_fits(const struct memo *m, uintptr_t ip, uintptr_t sp, uintptr_t bp,
                            int limit, int from)
{
    return m->valid && m->ip == ip && m->sp == sp && (!m->bp_used || m->bp == bp) &&
           m->limit == limit && m->from == from;
}

/* The memo numbered AT was taken: the one taken before it learns so. */
static inline void memo_taken(struct walk_cache *c, int at)
{
    if (c->last_memo >= 0)
        c->memos[c->last_memo].next = at;
    c->last_memo = at;
}

/* The walk from IP, SP, BP: remembered (first the memo that followed the
 * last one taken, as a loop's allocations follow one another; then any
 * from the same place), or walked and remembered. */
static int walk(struct walk_cache *c, uintptr_t ip, uintptr_t sp, uintptr_t bp, uintptr_t *frames,
                uintptr_t *out, int limit, const struct vt_tracer_text *tracer,
                struct vt_frame_key *key)
{
    int from = (int)(out - frames), guess = c->last_memo >= 0 ? c->memos[c->last_memo].next : -1;
    int n;
    if (guess >= 0 && memo_fits(&c->memos[guess], ip, sp, bp, limit, from) &&
        (n = walk_remembered(&c->memos[guess], frames, key)) >= 0) {
        c->last_memo = guess;
        return n;
    }
    for (int i = 0; i < MEMOS; i++)
        if (i != guess && memo_fits(&c->memos[i], ip, sp, bp, limit, from) &&
            (n = walk_remembered(&c->memos[i], frames, key)) >= 0) {
            memo_taken(c, i);
            return n;
        }
    int victim = (int)(c->next_victim++ % MEMOS);
    n = walk_recorded(c, &c->memos[victim], ip, sp, bp, frames, out, limit, tracer, key);
    if (c->memos[victim].valid)
        memo_taken(c, victim);
    else if (c->last_memo == victim)
        c->last_memo = -1;
    return n;
}

/* The walk from START's frame: its return address is the first frame. */
static int walk_from(struct walk_cache *c, const struct vt_walk_start *start, uintptr_t *frames,
                     int limit, const struct vt_tracer_text *tracer, struct vt_frame_key *key)
{
    if (start->ip < LOWEST_RETURN || limit < 1)
        return -1;
    frames[0] = RECORDED(start->ip);
    if (vt_is_tracer_frame(tracer, frames[0])) {
        key->first = 1;
    } else {
        key->first = 0;
        key->hash = vt_frame_hash_step(key->hash, frames[0]);
    }
    return walk(c, start->ip, start->cfa, start->bp, frames, frames + 1, limit, tracer, key);
}

__attribute__((noinline)) int vt_unwind_fast(uintptr_t *frames, int limit,
                                             const struct vt_tracer_text *tracer,
                                             const struct vt_walk_start *start,
                                             struct vt_frame_key *key)
{
    uintptr_t ip, sp, bp;
    /* This function's own frame, read where its CFI describes it: the
     * address after the lea (adr) is looked up less one, inside this asm.
     * rbp (x29) first: an output may be rbp itself. */
#if defined(__aarch64__)
    /* x30 clobbered: the prologue saves it before the asm, never after
     * (shrink-wrapped), so the frame holds the return address. */
    __asm__ volatile("mov %2, x29\n\tmov %1, sp\n\tadr %0, .+4"
                     : "=&r"(ip), "=&r"(sp), "=&r"(bp)
                     :
                     : "x30");
#else
    __asm__ volatile("mov %%rbp, %2\n\tmov %%rsp, %1\n\tlea 0(%%rip), %0"
                     : "=&r"(ip), "=&r"(sp), "=&r"(bp));
#endif
    struct walk_cache *c;
    int n;
    if (walking || !(c = thread_cache()))
        return -1;
    walking = 1;
    key->first = 0;
    key->hash = VT_FRAME_HASH_SEED;
    key->walk = 0;
    /* Above this frame: no read of the stack below the start. */
    if (start && start->cfa > sp)
        n = walk_from(c, start, frames, limit, tracer, key);
    else
        n = walk(c, ip, sp, bp, frames, frames, limit, tracer, key);
    walking = 0;
    return n;
}

#if defined(__aarch64__)
int vt_unwind_first_signed(const uintptr_t *frames, int n)
{
    struct walk_cache *c;
    int at = -1;
    if (walking || !(c = thread_cache()))
        return -1;
    walking = 1;
    for (int i = 0; i < n && at < 0; i++) {
        uint16_t link = 0; /* no walk to guess for */
        if (frames[i] >= LOWEST_RETURN &&
            slot_hashed(c, frames[i] + 1, &link)->how_caller & SIGNED_BIT)
            at = i;
    }
    walking = 0;
    return at;
}
#endif

void vt_unwind_forget(void)
{
    __atomic_add_fetch(&generation, 1, __ATOMIC_RELEASE);
}
