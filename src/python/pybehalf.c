/* SPDX-License-Identifier: MIT */
#include "pybehalf.h"

#include "pycopy.h"
#include "pyinterp.h"
#include "pypeek.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#define AUTOGRAD_THREAD "pt_autograd_" /* PyTorch's names of its device threads */
#define MAX_STATES 128                 /* thread states looked at (more: nothing is read) */
#define MAX_STEPS (8 * VT_PY_MAX)      /* frames walked, skipped ones included */
#define MAX_LINKS 192                  /* frames of a caller's chain remembered */
#define VERDICTS 64                    /* innermost code objects judged, remembered */
#define PIECES (4 * MAX_STATES + 1)    /* copies of one batch: a scan's, a chain's */
_Static_assert(PIECES >= 2 * MAX_LINKS + 3, "a chain and the caller's state fit a batch");

enum { THREAD_UNKNOWN, THREAD_AUTOGRAD, THREAD_OTHER };
static __thread int thread_kind __attribute__((tls_model("initial-exec")));

/* Whether this thread is one of PyTorch's autograd device threads, which
 * name themselves when they start (the name is read once per thread). */
static int autograd_thread(void)
{
    if (thread_kind == THREAD_UNKNOWN) {
        char name[17] = "";
        int named = prctl(PR_GET_NAME, name) == 0 &&
                    strncmp(name, AUTOGRAD_THREAD, sizeof AUTOGRAD_THREAD - 1) == 0;
        thread_kind = named ? THREAD_AUTOGRAD : THREAD_OTHER;
    }
    return thread_kind == THREAD_AUTOGRAD;
}

/* Whether CODE is torch's entry into the autograd engine: where the thread
 * that called backward() or grad() waits while the engine runs
 * (_engine_run_backward since torch 2.3, backward and grad before). */
static int is_backward_entry(const struct vt_pycopy *code)
{
    const struct vt_pylayout *L = &vt_py.layout;
    char name[VT_PY_TEXT_BYTES];
    long n = vt_pycopy_short_text(vt_pycopy_ptr(code, L->code_name), name);
    const char *file = vt_pycopy_ptr(code, L->code_filename);
    if (n == 20 && memcmp(name, "_engine_run_backward", 20) == 0)
        return vt_pycopy_ends_with(file, "/torch/autograd/graph.py");
    if ((n == 8 && memcmp(name, "backward", 8) == 0) || (n == 4 && memcmp(name, "grad", 4) == 0))
        return vt_pycopy_ends_with(file, "/torch/autograd/__init__.py");
    return 0;
}

/* ---- what an autograd thread remembers between its allocations ---- */

/* Whether a code object is torch's backward entry, judged by its name and
 * file (the strings' addresses tell the same objects again). */
struct verdict {
    const char *code, *name, *file;
    int entry;
};

/* One frame of the caller's chain as it was read: what tells it again. */
struct link {
    const char *frame, *code; /* code NULL: a frame running no code object */
    const char *name, *file, *table;
    int firstlineno, python;
    long offset;
    struct vt_pyloc *loc; /* NULL: not recorded */
};

struct memo {
    int nstates; /* the interpreter's thread states, in list order, as last read */
    const char *state_at[MAX_STATES];
    struct vt_pycopy state[MAX_STATES];
    const char *cframe[MAX_STATES];           /* 3.11, 3.12: each one's _PyCFrame */
    struct vt_pyframe_copy inner[MAX_STATES]; /* each one's innermost frame */
    bool scanned; /* the last scan was whole: where each frame and code object was */
    const char *seen_frame[MAX_STATES], *seen_code[MAX_STATES];
    struct verdict verdicts[VERDICTS];
    const char *caller; /* the thread state whose chain LINKS hold */
    int nlinks, truncated;
    const char *chain_end; /* the back link of the last frame read */
    struct link links[MAX_LINKS];
    struct vt_pyframe_copy again[MAX_LINKS]; /* the chain read anew */
    struct vt_peek_piece pieces[PIECES];
    int owner[PIECES]; /* which frame or state each piece is for */
    bool failed[PIECES];
};

static __thread struct memo *memo __attribute__((tls_model("initial-exec")));
static pthread_key_t free_at_exit;
static pthread_once_t key_once = PTHREAD_ONCE_INIT;
static int key_ok;

static void drop_memo(void *m)
{
    memo = NULL;
    free(m);
}

static void make_key(void)
{
    key_ok = pthread_key_create(&free_at_exit, drop_memo) == 0;
}

/* This thread's memo, made on first use and freed when the thread ends. */
static struct memo *own_memo(void)
{
    if (memo)
        return memo;
    pthread_once(&key_once, make_key);
    if (!key_ok)
        return NULL;
    struct memo *made = calloc(1, sizeof *made);
    if (made && pthread_setspecific(free_at_exit, made) != 0) {
        free(made);
        made = NULL;
    }
    return memo = made;
}

/* Copies M's N pieces, each on its own where a batch stops at one that
 * cannot be read (that one marked failed). */
static void peek_pieces(struct memo *m, size_t n)
{
    size_t done = 0;
    memset(m->failed, 0, n * sizeof *m->failed);
    while (done < n) {
        done += vt_peek_many(m->pieces + done, n - done);
        if (done < n)
            m->failed[done++] = true;
    }
}

/* ---- the thread that called backward() ---- */

static bool states_linked(const struct memo *m, const char *interp)
{
    const struct vt_pylayout *L = &vt_py.layout;
    for (int i = 0; i < m->nstates; i++) {
        const char *next = i + 1 < m->nstates ? m->state_at[i + 1] : NULL;
        if (vt_pycopy_ptr(&m->state[i], L->ts_interp) != interp ||
            vt_pycopy_ptr(&m->state[i], L->ts_next) != next)
            return false;
    }
    return true;
}

/* The interpreter's thread states into M: one system call when the list is
 * the one read last time, else one per state. -1 when it cannot be read
 * whole (states freed under us, more than MAX_STATES). */
static int read_states(struct memo *m, const char *interp)
{
    const struct vt_pylayout *L = &vt_py.layout;
    long size = vt_pycopy_thread_bytes(L);
    const char *head = NULL;
    size_t n = 0;
    if (m->nstates > 0) {
        m->pieces[n++] =
            (struct vt_peek_piece){interp + L->interp_threads_head, &head, sizeof head};
        for (int i = 0; i < m->nstates; i++)
            m->pieces[n++] =
                (struct vt_peek_piece){m->state_at[i], m->state[i].bytes, (size_t)size};
        if (vt_peek_many(m->pieces, n) == n && head == m->state_at[0] && states_linked(m, interp))
            return 0;
    }
    m->nstates = 0;
    for (const char *ts = vt_pycopy_peek_ptr(interp + L->interp_threads_head); ts;
         ts = vt_pycopy_ptr(&m->state[m->nstates - 1], L->ts_next)) {
        if (m->nstates == MAX_STATES || vt_pycopy_take(ts, size, &m->state[m->nstates]) < 0 ||
            vt_pycopy_ptr(&m->state[m->nstates], L->ts_interp) != interp) {
            m->nstates = 0;
            return -1;
        }
        m->state_at[m->nstates++] = ts;
    }
    return 0;
}

/* Into AT: where each other thread's innermost frame lies (NULL: this
 * thread's state, no frame, or one that could not be read); 3.11 and 3.12
 * through the thread's _PyCFrame, one system call for all threads. */
static void innermost_frames(struct memo *m, const char **at)
{
    const struct vt_pylayout *L = &vt_py.layout;
    unsigned long self = (unsigned long)pthread_self();
    size_t n = 0;
    for (int i = 0; i < m->nstates; i++) {
        bool mine = (unsigned long)vt_pycopy_long(&m->state[i], L->ts_thread_id) == self;
        m->cframe[i] = at[i] = mine ? NULL : vt_pycopy_ptr(&m->state[i], L->ts_frame);
    }
    if (L->cframe_current < 0)
        return;
    for (int i = 0; i < m->nstates; i++)
        if (at[i]) {
            m->pieces[n] = (struct vt_peek_piece){at[i] + L->cframe_current, &at[i], sizeof at[i]};
            m->owner[n++] = i;
        }
    peek_pieces(m, n);
    for (size_t k = 0; k < n; k++)
        if (m->failed[k])
            at[m->owner[k]] = NULL;
}

/* The frames at AT into M->inner (self.at NULL where none was copied), one
 * system call for all. */
static void copy_frames(struct memo *m, const char *const *at)
{
    size_t n = 0;
    for (int i = 0; i < m->nstates; i++) {
        m->inner[i].self.at = NULL;
        m->inner[i].python = 0;
        if (!at[i])
            continue;
        m->pieces[n] = (struct vt_peek_piece){at[i], m->inner[i].self.bytes,
                                              (size_t)vt_pycopy_frame_bytes(&vt_py.layout)};
        m->owner[n++] = i;
    }
    peek_pieces(m, n);
    for (size_t k = 0; k < n; k++)
        m->inner[m->owner[k]].self.at = m->failed[k] ? NULL : at[m->owner[k]];
}

/* The code objects of the frames in M->inner, one system call for all;
 * each frame then judged. */
static void copy_codes(struct memo *m)
{
    size_t n = 0;
    for (int i = 0; i < m->nstates; i++) {
        const char *code = m->inner[i].self.at ? vt_pyframe_code_address(&m->inner[i]) : NULL;
        if (!code)
            continue;
        m->inner[i].code.at = code;
        m->pieces[n] = (struct vt_peek_piece){code, m->inner[i].code.bytes,
                                              (size_t)vt_pycopy_code_bytes(&vt_py.layout)};
        m->owner[n++] = i;
    }
    peek_pieces(m, n);
    for (size_t k = 0; k < n; k++) {
        if (m->failed[k])
            m->inner[m->owner[k]].code.at = NULL;
        else
            vt_pyframe_judge(&m->inner[m->owner[k]]);
    }
}

/* The scan made level by level: where each thread's frame and code object
 * stood, for the next scan. */
static int scan(struct memo *m, const char *interp)
{
    const char *at[MAX_STATES];
    m->scanned = false;
    if (read_states(m, interp) < 0)
        return -1;
    innermost_frames(m, at);
    copy_frames(m, at);
    copy_codes(m);
    for (int i = 0; i < m->nstates; i++) {
        m->seen_frame[i] = m->inner[i].self.at;
        m->seen_code[i] = m->inner[i].self.at ? m->inner[i].code.at : NULL;
    }
    m->scanned = true;
    return 0;
}

/* Whether thread I, read again in M (its state, CURRENT: 3.11 and 3.12's
 * frame through its _PyCFrame, its frame and code object), stands where
 * the last scan saw it; its frame judged again. */
static bool stands_still(struct memo *m, int i, const char *current)
{
    const struct vt_pylayout *L = &vt_py.layout;
    unsigned long self = (unsigned long)pthread_self();
    bool mine = (unsigned long)vt_pycopy_long(&m->state[i], L->ts_thread_id) == self;
    const char *frame = mine ? NULL : vt_pycopy_ptr(&m->state[i], L->ts_frame);
    if (frame != m->cframe[i])
        return false;
    if (frame && L->cframe_current >= 0)
        frame = current;
    if (frame != m->seen_frame[i])
        return false;
    m->inner[i].python = 0;
    if (!frame)
        return true;
    m->inner[i].self.at = frame;
    if (vt_pyframe_code_address(&m->inner[i]) != m->seen_code[i])
        return false;
    m->inner[i].code.at = m->seen_code[i];
    if (m->seen_code[i])
        vt_pyframe_judge(&m->inner[i]);
    return true;
}

/* The scan in one system call where the list of states is the last scan's
 * and every thread stands where it stood then (a thread waiting in C does):
 * states, 3.11 and 3.12's _PyCFrames, frames and code objects read again
 * at once. -1 when anything moved. */
static int scan_again(struct memo *m, const char *interp)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *head = NULL, *current[MAX_STATES] = {0};
    size_t n = 0, fb = (size_t)vt_pycopy_frame_bytes(L), cb = (size_t)vt_pycopy_code_bytes(L);
    if (!m->scanned || m->nstates == 0)
        return -1;
    m->pieces[n++] = (struct vt_peek_piece){interp + L->interp_threads_head, &head, sizeof head};
    for (int i = 0; i < m->nstates; i++) {
        m->pieces[n++] = (struct vt_peek_piece){m->state_at[i], m->state[i].bytes,
                                                (size_t)vt_pycopy_thread_bytes(L)};
        if (m->cframe[i] && L->cframe_current >= 0)
            m->pieces[n++] = (struct vt_peek_piece){m->cframe[i] + L->cframe_current, &current[i],
                                                    sizeof current[i]};
        if (m->seen_frame[i])
            m->pieces[n++] = (struct vt_peek_piece){m->seen_frame[i], m->inner[i].self.bytes, fb};
        if (m->seen_code[i])
            m->pieces[n++] = (struct vt_peek_piece){m->seen_code[i], m->inner[i].code.bytes, cb};
    }
    if (vt_peek_many(m->pieces, n) != n || head != m->state_at[0] || !states_linked(m, interp))
        return -1;
    for (int i = 0; i < m->nstates; i++)
        if (!stands_still(m, i, current[i]))
            return -1;
    return 0;
}

/* Whether the code copied in CODE is torch's backward entry, remembered by
 * the code object's address and its name's and file's. */
static int entry_verdict(struct memo *m, const struct vt_pycopy *code)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const char *name = vt_pycopy_ptr(code, L->code_name),
               *file = vt_pycopy_ptr(code, L->code_filename);
    uint64_t slot = ((uint64_t)(uintptr_t)code->at * 0x9E3779B97F4A7C15u) >> 32;
    struct verdict *v = &m->verdicts[slot % VERDICTS];
    if (v->code != code->at || v->name != name || v->file != file)
        *v = (struct verdict){code->at, name, file, is_backward_entry(code)};
    return v->entry;
}

struct caller {
    const char *tstate;
    const char *cframe;           /* 3.11, 3.12: its _PyCFrame; else its innermost frame */
    struct vt_pyframe_copy entry; /* its innermost frame, as first read */
};

/* The one thread other than this one whose innermost frame is torch's
 * backward entry; -1 when there is none, or several, or the list of thread
 * states could not be read whole. */
static int find_caller(struct memo *m, struct caller *out)
{
    const char *interp = vt_py.main_interpreter();
    int found = -1;
    if (!interp || (scan_again(m, interp) < 0 && scan(m, interp) < 0))
        return -1;
    for (int i = 0; i < m->nstates; i++) {
        if (!m->inner[i].python || !entry_verdict(m, &m->inner[i].code))
            continue;
        if (found >= 0)
            return -1;
        found = i;
    }
    if (found < 0)
        return -1;
    out->tstate = m->state_at[found];
    out->cframe = m->cframe[found];
    out->entry = m->inner[found];
    return 0;
}

static struct link link_of(const struct vt_pyframe_copy *f, struct vt_pyloc *loc)
{
    const struct vt_pylayout *L = &vt_py.layout;
    struct link k = {.frame = f->self.at, .code = f->code.at, .python = f->python, .loc = loc};
    if (f->python) {
        k.name = vt_pycopy_ptr(&f->code, L->code_qualname >= 0 ? L->code_qualname : L->code_name);
        k.file = vt_pycopy_ptr(&f->code, L->code_filename);
        k.table = vt_pycopy_ptr(&f->code, L->code_linetable);
        k.firstlineno = vt_pycopy_int(&f->code, L->code_firstlineno);
        k.offset = f->offset;
    }
    return k;
}

/* The caller's frames, innermost first, read one by one and remembered in
 * M for the next time; count 0 when a frame could not be read. */
static void walk_caller(struct memo *m, const struct caller *c, struct vt_pystack *stack)
{
    const char *at = c->entry.self.at;
    struct vt_pyframe_copy f;
    bool remember = true;
    m->caller = NULL;
    m->nlinks = 0;
    for (int steps = 0; at && steps < MAX_STEPS; steps++, at = f.back) {
        struct vt_pyloc *loc = NULL;
        if (vt_pyframe_read(at, &f) < 0) {
            stack->count = 0;
            return;
        }
        if (f.python && stack->count == VT_PY_MAX) {
            stack->truncated = 1;
            break;
        }
        if (f.python && (loc = vt_pyframe_location(&f)))
            stack->frames[stack->count++] = loc;
        if (m->nlinks < MAX_LINKS)
            m->links[m->nlinks++] = link_of(&f, loc);
        else
            remember = false;
    }
    m->chain_end = at;
    m->truncated = stack->truncated;
    if (remember)
        m->caller = c->tstate;
}

/* Whether the frame read anew in F is the one K remembers. */
static bool same_frame(struct vt_pyframe_copy *f, const struct link *k, const char *next)
{
    const struct vt_pylayout *L = &vt_py.layout;
    if (vt_pyframe_code_address(f) != k->code || f->back != next)
        return false;
    if (k->code)
        vt_pyframe_judge(f);
    if (f->python != k->python)
        return false;
    return !k->python ||
           (f->offset == k->offset &&
            vt_pycopy_ptr(&f->code, L->code_qualname >= 0 ? L->code_qualname : L->code_name) ==
                k->name &&
            vt_pycopy_ptr(&f->code, L->code_filename) == k->file &&
            vt_pycopy_ptr(&f->code, L->code_linetable) == k->table &&
            vt_pycopy_int(&f->code, L->code_firstlineno) == k->firstlineno);
}

/* Whether the caller, read again (its state into STATE, 3.11 and 3.12's
 * frame through its _PyCFrame into CURRENT, its entry frame into AGAIN),
 * still waits where it was found: the same innermost frame, unchanged. */
static bool waits(const struct caller *c, const struct vt_pycopy *state, const char *current,
                  const struct vt_pycopy *again)
{
    const struct vt_pylayout *L = &vt_py.layout;
    if (vt_pycopy_ptr(state, L->ts_frame) != c->cframe)
        return false;
    const char *frame = L->cframe_current >= 0 ? current : c->cframe;
    return frame == c->entry.self.at &&
           memcmp(again->bytes, c->entry.self.bytes, (size_t)vt_pycopy_frame_bytes(L)) == 0;
}

/* The pieces that read the caller's state (and 3.11 and 3.12's frame
 * through its _PyCFrame) again, after the N already in M; the new count. */
static size_t read_caller_state(struct memo *m, size_t n, const struct caller *c,
                                struct vt_pycopy *state, const char **current)
{
    const struct vt_pylayout *L = &vt_py.layout;
    m->pieces[n++] =
        (struct vt_peek_piece){c->tstate, state->bytes, (size_t)vt_pycopy_thread_bytes(L)};
    if (L->cframe_current >= 0)
        m->pieces[n++] =
            (struct vt_peek_piece){c->cframe + L->cframe_current, current, sizeof *current};
    return n;
}

/* Whether the caller still waits where it was found, its frames not pushed
 * or popped meanwhile. One system call. */
static bool still_waiting(struct memo *m, const struct caller *c)
{
    struct vt_pycopy state, again;
    const char *current = NULL;
    m->pieces[0] = (struct vt_peek_piece){c->entry.self.at, again.bytes,
                                          (size_t)vt_pycopy_frame_bytes(&vt_py.layout)};
    size_t n = read_caller_state(m, 1, c, &state, &current);
    return vt_peek_many(m->pieces, n) == n && waits(c, &state, current, &again);
}

/* The caller's frames from what M remembers: one system call reads the
 * chain and the caller's state again; every frame must be as it was (its
 * place in the chain, code object, instruction, the code's name, file,
 * line table and first line) and the caller still waiting. -1 when not (or
 * nothing is remembered of this caller). */
static int walk_remembered(struct memo *m, const struct caller *c, struct vt_pystack *stack)
{
    const struct vt_pylayout *L = &vt_py.layout;
    struct vt_pycopy state;
    const char *current = NULL;
    size_t n = 0;
    if (m->caller != c->tstate || m->nlinks == 0 || m->links[0].frame != c->entry.self.at)
        return -1;
    for (int i = 0; i < m->nlinks; i++) {
        m->again[i].self.at = m->links[i].frame;
        m->pieces[n++] = (struct vt_peek_piece){m->links[i].frame, m->again[i].self.bytes,
                                                (size_t)vt_pycopy_frame_bytes(L)};
        if (!m->links[i].code)
            continue;
        m->again[i].code.at = m->links[i].code;
        m->pieces[n++] = (struct vt_peek_piece){m->links[i].code, m->again[i].code.bytes,
                                                (size_t)vt_pycopy_code_bytes(L)};
    }
    n = read_caller_state(m, n, c, &state, &current);
    if (vt_peek_many(m->pieces, n) != n || !waits(c, &state, current, &m->again[0].self))
        return -1;
    for (int i = 0; i < m->nlinks; i++)
        if (!same_frame(&m->again[i], &m->links[i],
                        i + 1 < m->nlinks ? m->links[i + 1].frame : m->chain_end))
            return -1;
    for (int i = 0; i < m->nlinks; i++)
        if (m->links[i].loc)
            stack->frames[stack->count++] = m->links[i].loc;
    stack->truncated = m->truncated;
    return 0;
}

void vt_pybehalf_capture(struct vt_pystack *stack)
{
    const struct vt_pylayout *L = &vt_py.layout;
    stack->count = 0;
    stack->truncated = 0;
    stack->entries = 0;
    if (!autograd_thread() || !vt_python_ready())
        return;
    /* Free-threaded builds run copies of the bytecode per thread: not read. */
    if (L->interp_threads_head < 0 || L->free_threaded ||
        vt_pycopy_thread_bytes(L) > VT_PYCOPY_BYTES || vt_pycopy_frame_bytes(L) > VT_PYCOPY_BYTES ||
        vt_pycopy_code_bytes(L) > VT_PYCOPY_BYTES || !vt_py.is_initialized() ||
        vt_py.is_finalizing())
        return;
    struct memo *m = own_memo();
    struct caller c;
    if (!m || find_caller(m, &c) < 0)
        return;
    if (walk_remembered(m, &c, stack) == 0)
        return;
    stack->count = 0;
    walk_caller(m, &c, stack);
    if (!still_waiting(m, &c)) {
        stack->count = 0;
        stack->truncated = 0;
        m->caller = NULL;
    }
}
