/* SPDX-License-Identifier: MIT */
#include "stacks.h"

#include "frame_hash.h"
#include "modules.h"
#include "pybehalf.h"
#include "records.h"
#include "tracing.h"
#include "unwind_checks.h"
#include "unwind_fast.h"
#include "warn.h"

#define UNW_LOCAL_ONLY
#include <libunwind.h>
#include <link.h>
#include <stdlib.h>
#include <string.h>

/* uthash's default hash goes byte by byte; stack keys are arrays of words,
 * hashed here in four independent lanes so that the multiplies overlap. */
static inline uint64_t mix(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0xBF58476D1CE4E5B9u;
    return h ^ (h >> 31);
}

static inline unsigned stack_hash(const void *key, size_t len)
{
    const unsigned char *p = key;
    uint64_t a = 0x9E3779B97F4A7C15u ^ len, b = 0x94D049BB133111EBu, c = 0xD6E8FEB86659FD93u,
             d = 0xA0761D6478BD642Fu, w[4];
    for (; len >= 32; p += 32, len -= 32) {
        memcpy(w, p, 32);
        a = mix(a, w[0]);
        b = mix(b, w[1]);
        c = mix(c, w[2]);
        d = mix(d, w[3]);
        /* Keeps the lanes in general registers: vectorized, the 64-bit
         * multiplies become several SSE2 multiplies each, slower. */
        __asm__("" : "+r"(a), "+r"(b), "+r"(c), "+r"(d));
    }
    for (; len >= 8; p += 8, len -= 8) {
        memcpy(w, p, 8);
        a = mix(a, w[0]);
    }
    if (len) {
        w[0] = 0;
        memcpy(w, p, len);
        b = mix(b, w[0]);
    }
    uint64_t h = mix(mix(mix(a, b), c), d);
    return (unsigned)(h ^ (h >> 32));
}
#define HASH_FUNCTION(keyptr, keylen, hashv) ((hashv) = stack_hash((keyptr), (keylen)))
#include <uthash.h>

struct known_stack {
    UT_hash_handle hh;
    uint32_t id;
    int native; /* native frames at the start of the key */
    int key_len;
    uintptr_t key[]; /* vt_stack.key */
};

static struct {
    struct known_stack *table;
    uint32_t next_id;
    uint32_t next_pyframe_id;
    unsigned generation; /* of the dump: Python locations' ids belong to one */
    unsigned changes;    /* stacks dropped from the table: a thread's last id may be gone */
} stacks = {.generation = 1};

/* The stack this thread found in the table last, when its native frames
 * were a remembered walk's: the same walk again (the same frames:
 * frame_hash.h) with the same Python part is the same key, found without
 * the table's compare of the whole key (some 150 instructions a stack).
 * KNOWN stays in the table while CHANGES is the table's. */
static __thread struct {
    uint64_t walk; /* 0: none */
    unsigned changes;
    const struct known_stack *known;
} last_found __attribute__((tls_model("initial-exec")));

static struct {
    uintptr_t start, end; /* this library's text and data */
    int ready;
} self;

static int find_self(struct dl_phdr_info *info, size_t size, void *data)
{
    uintptr_t here = (uintptr_t)data, lo = UINTPTR_MAX, hi = 0;
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_LOAD)
            continue;
        uintptr_t a = info->dlpi_addr + ph->p_vaddr;
        if (a < lo)
            lo = a;
        if (a + ph->p_memsz > hi)
            hi = a + ph->p_memsz;
    }
    if (here < lo || here >= hi)
        return 0;
    /* Threads may race to fill these in: they all store the same values. */
    __atomic_store_n(&self.start, lo, __ATOMIC_RELAXED);
    __atomic_store_n(&self.end, hi, __ATOMIC_RELAXED);
    return 1;
}

/* This library's address range, looked up once. */
static void tracer_range(uintptr_t *start, uintptr_t *end)
{
    if (!__atomic_load_n(&self.ready, __ATOMIC_ACQUIRE)) {
        dl_iterate_phdr(find_self, (void *)(uintptr_t)&vt_stack_capture);
        __atomic_store_n(&self.ready, 1, __ATOMIC_RELEASE);
    }
    *start = __atomic_load_n(&self.start, __ATOMIC_RELAXED);
    *end = __atomic_load_n(&self.end, __ATOMIC_RELAXED);
}

/* With Python frames, the key goes on after the native frames with a
 * separator (one value for a whole Python stack, another for a cut one),
 * the locations' addresses (they live as long as the process) and the
 * frames of each interpreter entry; with another thread's (only without
 * frames of its own), after separators of their own, their locations. */
#define PYTHON_FOLLOWS UINTPTR_MAX
#define CUT_PYTHON_FOLLOWS (UINTPTR_MAX - 1)
#define BEHALF_FOLLOWS (UINTPTR_MAX - 2)
#define CUT_BEHALF_FOLLOWS (UINTPTR_MAX - 3)

static unsigned frame_limit;

/* VRAMTRACE_MAX_FRAMES, read once (any thread may race to: same value). */
static unsigned max_frames(void)
{
    unsigned limit = __atomic_load_n(&frame_limit, __ATOMIC_RELAXED);
    const char *text;
    char *end;
    unsigned long v;
    if (limit)
        return limit;
    limit = VT_STACK_DEFAULT;
    text = getenv("VRAMTRACE_MAX_FRAMES");
    if (text && *text) {
        v = strtoul(text, &end, 10);
        if (*end || v < VT_STACK_MIN || v > VT_STACK_MAX)
            vt_warn("VRAMTRACE_MAX_FRAMES=%s: not a number from %d to %d; using %d", text,
                    VT_STACK_MIN, VT_STACK_MAX, VT_STACK_DEFAULT);
        else
            limit = (unsigned)v;
    }
    __atomic_store_n(&frame_limit, limit, __ATOMIC_RELAXED);
    return limit;
}

/* Outermost frames kept of a stack cut at LIMIT frames. */
static unsigned outer_kept(unsigned limit)
{
    return limit / 4 < 16 ? limit / 4 : 16;
}

/* The stack had LIMIT frames or more: walk all of it, keeping the innermost
 * ones and the outermost few, and count what lies between. Rare and slow. */
static __attribute__((cold, noinline)) int capture_deep(struct vt_stack *stack, unsigned limit)
{
    unsigned outer = outer_kept(limit), inner = limit - outer, total = 0;
    uintptr_t ring[16];
    unw_context_t context;
    unw_cursor_t cursor;
    unw_word_t ip;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return (int)limit; /* keep what unw_backtrace found */
    do {
        if (unw_get_reg(&cursor, UNW_REG_IP, &ip) != 0)
            break;
        if (total < inner)
            stack->key[total] = ip;
        else
            ring[(total - inner) % outer] = ip;
        total++;
    } while (unw_step(&cursor) > 0);
    if (total <= limit) { /* nothing to cut after all */
        for (unsigned i = inner; i < total; i++)
            stack->key[i] = ring[(i - inner) % outer];
        return (int)total;
    }
    for (unsigned i = 0; i < outer; i++)
        stack->key[inner + i] = ring[(total - outer + i - inner) % outer];
    stack->dropped = total - limit;
    stack->cut_at = (int)inner;
    return (int)limit;
}

/* This library's code, for frame_hash.h. */
static void tracer_text(struct vt_tracer_text *text)
{
    uintptr_t start, end;
    tracer_range(&start, &end);
    text->start = start;
    text->span = end - start;
}

/* Over N frames libunwind gave: where the key begins (after the outermost
 * tracer frame; a runtime wrapper of ours may sit below the runtime that
 * called our driver wrapper, frames inside it are ours or the runtime's)
 * and the hash of the frames from there, as the fast walk takes it. */
static __attribute__((cold, noinline)) void key_of_frames(const uintptr_t *frames, int n,
                                                          const struct vt_tracer_text *text,
                                                          struct vt_frame_key *key)
{
    int i = n;
    while (i > 0 && !vt_is_tracer_frame(text, frames[i - 1]))
        i--;
    key->first = i;
    key->hash = VT_FRAME_HASH_SEED;
    key->walk = 0;
    for (; i < n; i++)
        key->hash = vt_frame_hash_step(key->hash, frames[i]);
}

/* A stack deeper than the limit (capture_deep cut it at CUT_AT): the
 * tracer's frames are innermost, so only the frames before the cut are
 * looked at. */
static __attribute__((cold, noinline)) uint64_t
hash_cut(const uintptr_t *frames, int n, int cut_at, const struct vt_tracer_text *text, int *first)
{
    *first = 0;
    for (int i = 0; i < cut_at; i++)
        if (vt_is_tracer_frame(text, frames[i]))
            *first = i + 1;
    return stack_hash(frames + *first, (size_t)(n - *first) * sizeof *frames);
}

/* W put at *OUT (then after it), and taken into the running hash *H:
 * one multiply a word, no pass over the words again (xor-multiply leaves
 * the low bits weak: mix() folds the high ones down after). */
static inline void put_hashed(uintptr_t **out, uint64_t *h, uintptr_t w)
{
    *(*out)++ = w;
    *h = (*h ^ w) * 0x9E3779B97F4A7C15u;
}

/* The key's Python part, written at TAIL (after the native frames), and
 * its hash into *H: its length, 0 without Python frames of this thread or
 * the one it works for. */
static int python_key(const struct vt_stack *stack, uintptr_t *tail, uint64_t *h)
{
    const struct vt_pystack *py = &stack->python, *behalf = &stack->behalf;
    uintptr_t *out = tail;
    *h = 0x94D049BB133111EBu;
    if (py->count) {
        put_hashed(&out, h, py->truncated ? CUT_PYTHON_FOLLOWS : PYTHON_FOLLOWS);
        for (int i = 0; i < py->count; i++)
            put_hashed(&out, h, (uintptr_t)py->frames[i]);
        for (int i = 0; i < py->entries; i++) /* small numbers: never an address */
            put_hashed(&out, h, py->entry_frames[i]);
    } else if (behalf->count) {
        put_hashed(&out, h, behalf->truncated ? CUT_BEHALF_FOLLOWS : BEHALF_FOLLOWS);
        for (int i = 0; i < behalf->count; i++)
            put_hashed(&out, h, (uintptr_t)behalf->frames[i]);
    }
    return (int)(out - tail);
}

void vt_stacks_init(void)
{
    void *frame;
    vt_unwind_checks_quiet();
    unw_backtrace(&frame, 1);
}

/* libunwind before 1.7 does not strip a return address that pointer
 * authentication signed: its walk of N FRAMES ends in the first frame whose
 * function saved its own so (a frame guessed from x30 after it at most),
 * which its frames up to there are right about. From that frame on: the
 * fast walk, from the registers libunwind's walk frame by frame had there;
 * where that walk cannot, the frames up to the signed one. */
#if defined(__aarch64__) && UNW_VERSION < UNW_VERSION_CODE(1, 7)
#define WALK_PAST_SIGNED 1
static __attribute__((cold, noinline)) int walk_past_signed(uintptr_t *frames, int n, int limit,
                                                            const struct vt_tracer_text *text)
{
    int last = n > 2 ? n - 2 : 0, at, repeats = 0;
    if (n >= limit || (at = vt_unwind_first_signed(frames + last, n - last)) < 0)
        return n;
    at += last;
    /* The same address earlier on the stack (a recursion): which one it is. */
    for (int i = 0; i < at; i++)
        repeats += frames[i] == frames[at];
    /* The slow path gives whole return addresses (4-aligned), the fast trace less one. */
    uintptr_t whole = frames[at] % 4 ? frames[at] + 1 : frames[at];
    unw_context_t context;
    unw_cursor_t cursor;
    unw_word_t ip, sp, fp;
    if (unw_getcontext(&context) != 0 || unw_init_local(&cursor, &context) != 0)
        return at + 1;
    while (unw_step(&cursor) > 0 && unw_get_reg(&cursor, UNW_REG_IP, &ip) == 0) {
        if (ip != whole || repeats-- > 0)
            continue;
        if (unw_get_reg(&cursor, UNW_REG_SP, &sp) != 0 ||
            unw_get_reg(&cursor, UNW_AARCH64_X29, &fp) != 0)
            break;
        struct vt_walk_start start = {ip, sp, fp};
        struct vt_frame_key key;
        int walked = vt_unwind_fast(frames + at, limit - at, text, &start, &key);
        return walked > 0 ? at + walked : at + 1;
    }
    return at + 1;
}
#endif

/* Up to LIMIT return addresses, the first one into the caller, as
 * unw_backtrace gives them, and their KEY: through the cache of
 * unwind_fast.c where it can walk the stack; with a START, from there (the
 * frames below are not walked). */
static inline __attribute__((always_inline)) int backtrace_frames(uintptr_t *frames, int limit,
                                                                  const struct vt_tracer_text *text,
                                                                  const struct vt_walk_start *start,
                                                                  struct vt_frame_key *key)
{
    int n;
#if defined(__x86_64__) || defined(__aarch64__)
    n = vt_unwind_fast(frames, limit, text, start, key);
    if (n >= 0)
        return n;
#else
    (void)start;
#endif
    n = unw_backtrace((void **)frames, limit);
#ifdef WALK_PAST_SIGNED
    n = walk_past_signed(frames, n, limit, text);
#endif
    key_of_frames(frames, n, text, key);
    return n;
}

/* Inside a runtime call that a wrapper of ours tagged: where the program
 * called it (the frames below are ours and the runtime's, before the key
 * begins). NULL elsewhere. */
static inline const struct vt_walk_start *runtime_caller(void)
{
    return vt_thread_state.api && vt_thread_state.runtime_caller.cfa
               ? &vt_thread_state.runtime_caller
               : NULL;
}

int vt_stack_return_addresses(uintptr_t *frames, int limit)
{
    struct vt_tracer_text text;
    struct vt_frame_key key;
    tracer_text(&text);
    return backtrace_frames(frames, limit, &text, NULL, &key);
}

void vt_stack_capture(struct vt_stack *stack)
{
    uintptr_t *frames = stack->key;
    unsigned limit = max_frames();
    struct vt_tracer_text text;
    struct vt_frame_key key;
    tracer_text(&text);
    int n = backtrace_frames(frames, (int)limit, &text, runtime_caller(), &key), first;
    uint64_t hash;
    stack->dropped = 0;
    stack->cut_at = 0;
    if (n == (int)limit) {
        n = capture_deep(stack, limit);
        if (!stack->dropped) /* libunwind walked it again */
            key_of_frames(frames, n, &text, &key);
    }
    first = key.first;
    stack->walk = stack->dropped || n == (int)limit ? 0 : key.walk;
    if (stack->dropped) {
        hash = hash_cut(frames, n, stack->cut_at, &text, &first);
        stack->cut_at = stack->cut_at > first ? stack->cut_at - first : 0;
    } else {
        hash = mix(key.hash, (uint64_t)(n - first));
    }
    /* The key is where it lies: no copy of the frames. */
    stack->start = first;
    stack->count = n - first;
    stack->key_len = stack->count;
    vt_pystack_capture(&stack->python);
    stack->behalf.count = 0;
    if (!stack->python.count)
        vt_pybehalf_capture(&stack->behalf);
    uint64_t tail_hash;
    int tail = python_key(stack, frames + n, &tail_hash);
    if (tail) {
        hash = mix(hash, mix(tail_hash, (uint64_t)tail));
        stack->key_len += tail;
    }
    stack->hash = (unsigned)(hash ^ (hash >> 32));
}

/* The PYFRAME id of LOC in this dump, writing it the first time. */
static uint32_t pyframe_id(struct vt_pyloc *loc)
{
    if (loc->generation == stacks.generation)
        return loc->id;
    loc->generation = stacks.generation;
    loc->id = ++stacks.next_pyframe_id;
    if (vt_rec_pyframe(loc->id, loc->function, loc->file, loc->line) < 0)
        loc->generation = 0;
    return loc->id;
}

static int write_stack(const struct known_stack *known, const struct vt_stack *stack)
{
    uintptr_t ids[VT_PY_MAX], behalf_ids[VT_PY_MAX];
    struct vt_stack_cut cut = {stack->dropped, (unsigned)stack->cut_at};
    const struct vt_pystack *py = &stack->python, *behalf = &stack->behalf;
    if (py->count == 0 && behalf->count == 0)
        return vt_rec_stack(known->id, known->key, (unsigned)known->native, &cut);
    for (int i = 0; i < py->count; i++)
        ids[i] = pyframe_id(py->frames[i]);
    for (int i = 0; i < behalf->count; i++)
        behalf_ids[i] = pyframe_id(behalf->frames[i]);
    struct vt_python_part part = {ids, (unsigned)py->count, py->truncated, py->entry_frames,
                                  (unsigned)py->entries};
    struct vt_python_part other = {behalf_ids, (unsigned)behalf->count, behalf->truncated, NULL, 0};
    return vt_rec_pystack(known->id, known->key, (unsigned)known->native, &part, &other, &cut);
}

/* The entry of STACK when it is the one this thread found last (lock
 * held): the native frames compared by their walk, the rest (the Python
 * part) by its words; NULL otherwise. */
static const struct known_stack *found_last(const struct vt_stack *stack)
{
    const struct known_stack *known = last_found.known;
    if (!stack->walk || stack->walk != last_found.walk || last_found.changes != stacks.changes ||
        known->native != stack->count || known->key_len != stack->key_len)
        return NULL;
    const uintptr_t *key = stack->key + stack->start;
    size_t tail = (size_t)(stack->key_len - stack->count) * sizeof *key;
    return memcmp(key + stack->count, known->key + stack->count, tail) == 0 ? known : NULL;
}

uint32_t vt_stack_intern(const struct vt_stack *stack)
{
    struct known_stack *known;
    const uintptr_t *key = stack->key + stack->start;
    size_t key_len = (size_t)stack->key_len * sizeof *key;
    if (stack->key_len == 0)
        return 0;
    if (vt_modules_unload_pending())
        vt_stacks_sync_modules(); /* before any cached stack is reused */
    const struct known_stack *last = found_last(stack);
    if (last)
        return last->id;
    HASH_FIND_BYHASHVALUE(hh, stacks.table, key, key_len, stack->hash, known);
    if (known) {
        last_found.walk = stack->walk;
        last_found.changes = stacks.changes;
        last_found.known = known;
        return known->id;
    }
    known = malloc(sizeof *known + key_len);
    if (!known)
        return 0;
    known->id = ++stacks.next_id;
    known->native = stack->count;
    known->key_len = stack->key_len;
    memcpy(known->key, key, key_len);
    HASH_ADD_KEYPTR_BYHASHVALUE(hh, stacks.table, known->key, key_len, stack->hash, known);
    /* Modules first: the reader symbolizes a stack with the modules before it. */
    vt_stacks_sync_modules();
    if (write_stack(known, stack) < 0)
        return 0;
    return known->id;
}

int vt_stack_frames(uint32_t id, uintptr_t *out, int max)
{
    struct known_stack *s, *tmp;
    HASH_ITER(hh, stacks.table, s, tmp) {
        if (s->id != id)
            continue;
        int n = s->native < max ? s->native : max;
        memcpy(out, s->key, (size_t)n * sizeof *out);
        return n;
    }
    return 0;
}

void vt_stacks_forget_range(uint64_t start, uint64_t end)
{
    struct known_stack *s, *tmp;
    HASH_ITER(hh, stacks.table, s, tmp) {
        for (int i = 0; i < s->native; i++)
            if (s->key[i] >= start && s->key[i] < end) {
                HASH_DEL(stacks.table, s);
                free(s);
                stacks.changes++;
                break;
            }
    }
}

int vt_stacks_sync_modules(void)
{
    return vt_modules_sync(vt_stacks_forget_range);
}

void vt_stacks_reset(void)
{
    struct known_stack *s, *tmp;
    HASH_ITER(hh, stacks.table, s, tmp) {
        HASH_DEL(stacks.table, s);
        free(s);
    }
    stacks.next_id = 0;
    stacks.next_pyframe_id = 0;
    stacks.changes++;
    stacks.generation++; /* every Python location is written again */
}
