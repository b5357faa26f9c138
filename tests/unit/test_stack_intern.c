/* Stack interning in the tracer (src/stacks/stacks.c): each distinct stack
 * gets the next id and is written once; a stack with a frame in an unloaded
 * module is written anew; Python locations are written once per dump; a new
 * dump (reset) starts the ids again. The dump's record writers and the
 * module list are replaced by recorders of what stacks.c asks them. */
#include <stdarg.h>
#include <string.h>

#include "modules.h"
#include "records.h"
#include "stacks.h"
#include "tracing.h"
#include "warn.h"
#include "unit_check.h"

/* ---- what stacks.c wrote ---- */
static struct {
    uint32_t id;
    uintptr_t frames[8];
    unsigned n, py_count;
    uintptr_t pyframes[8];
} written[32];
static unsigned nwritten, npyframes, syncs;
static uint32_t pyframe_ids[8];

int vt_rec_stack(uint32_t id, const uintptr_t *frames, unsigned n, const struct vt_stack_cut *cut)
{
    (void)cut;
    written[nwritten].id = id;
    written[nwritten].n = n;
    memcpy(written[nwritten].frames, frames, n * sizeof *frames);
    written[nwritten++].py_count = 0;
    return 0;
}

int vt_rec_pystack(uint32_t id, const uintptr_t *frames, unsigned n,
                   const struct vt_python_part *python, const struct vt_python_part *behalf,
                   const struct vt_stack_cut *cut)
{
    (void)behalf;
    vt_rec_stack(id, frames, n, cut);
    written[nwritten - 1].py_count = python->count;
    memcpy(written[nwritten - 1].pyframes, python->ids, python->count * sizeof *python->ids);
    return 0;
}

int vt_rec_pyframe(uint32_t id, const char *function, const char *file, int line)
{
    (void)function, (void)file, (void)line;
    pyframe_ids[npyframes++] = id;
    return 0;
}

int vt_modules_sync(vt_forget_range_fn *forget)
{
    (void)forget;
    syncs++;
    return 0;
}

int vt_modules_unload_pending(void)
{
    return 0;
}

void vt_pystack_capture(struct vt_pystack *stack)
{
    stack->count = 0;
}

void vt_pybehalf_capture(struct vt_pystack *stack)
{
    stack->count = 0;
}

void vt_warn(const char *fmt, ...)
{
    (void)fmt;
}

/* No runtime call tagged: every walk from vt_stack_capture's own frame. */
__thread struct vt_thread vt_thread_state;

/* ---- stacks as vt_stack_capture leaves them ---- */
static struct vt_stack stack;

static const struct vt_stack *native(int n, const uintptr_t *frames)
{
    memset(&stack, 0, sizeof stack);
    memcpy(stack.key, frames, (size_t)n * sizeof *frames);
    stack.count = stack.key_len = n;
    for (int i = 0; i < n; i++) /* any hash of the key does */
        stack.hash = stack.hash * 31 + (unsigned)frames[i];
    return &stack;
}

static const struct vt_stack *with_python(int n, const uintptr_t *frames, int py,
                                          struct vt_pyloc **locs)
{
    native(n, frames);
    stack.key[stack.key_len++] = 1; /* the separator */
    for (int i = 0; i < py; i++) {
        stack.python.frames[i] = locs[i];
        stack.key[stack.key_len++] = (uintptr_t)locs[i];
        stack.hash = stack.hash * 31 + (unsigned)(uintptr_t)locs[i];
    }
    stack.python.count = py;
    return &stack;
}

static const uintptr_t A[] = {0x1000, 0x2000, 0x3000}, B[] = {0x1000, 0x2000, 0x3100};

static void distinct_stacks_once(void)
{
    CHECK_EQ("first stack's id", vt_stack_intern(native(3, A)), 1);
    CHECK_EQ("written", nwritten, 1);
    CHECK_EQ("written with its id", written[0].id, 1);
    CHECK_EQ("written with its frames", written[0].n, 3);
    CHECK_EQ("innermost frame", written[0].frames[0], 0x1000);
    CHECK_EQ("outermost frame", written[0].frames[2], 0x3000);
    CHECK_EQ("modules written before the stack", syncs, 1);
    CHECK_EQ("the same stack again", vt_stack_intern(native(3, A)), 1);
    CHECK_EQ("not written again", nwritten, 1);
    CHECK_EQ("another outermost frame", vt_stack_intern(native(3, B)), 2);
    CHECK_EQ("a prefix is another stack", vt_stack_intern(native(2, A)), 3);
    CHECK_EQ("three stacks written", nwritten, 3);
    CHECK_EQ("an empty stack has no id", vt_stack_intern(native(0, A)), 0);
    CHECK_EQ("and is not written", nwritten, 3);

    uintptr_t out[8];
    CHECK_EQ("frames of stack 2", vt_stack_frames(2, out, 8), 3);
    CHECK_EQ("its outermost frame", out[2], 0x3100);
    CHECK_EQ("at most MAX frames", vt_stack_frames(1, out, 2), 2);
    CHECK_EQ("an unknown id", vt_stack_frames(99, out, 8), 0);
}

/* A module unloaded from [0x3000, 0x3100): stack 1 had a frame there. */
static void unloaded_module(void)
{
    vt_stacks_forget_range(0x3000, 0x3100);
    CHECK_EQ("a forgotten stack is interned anew", vt_stack_intern(native(3, A)), 4);
    CHECK_EQ("and written again", nwritten, 4);
    CHECK_EQ("written with its new id", written[3].id, 4);
    CHECK_EQ("a stack outside the range keeps its id", vt_stack_intern(native(3, B)), 2);
    CHECK_EQ("so does its prefix", vt_stack_intern(native(2, A)), 3);
    CHECK_EQ("nothing more written", nwritten, 4);
}

static struct vt_pyloc train = {.function = "train", .file = "train.py", .line = 10},
                       step = {.function = "step", .file = "train.py", .line = 20},
                       forward = {.function = "forward", .file = "model.py", .line = 30};

static void python_locations_once(void)
{
    struct vt_pyloc *outer[] = {&step, &train}, *inner[] = {&forward, &step};
    CHECK_EQ("a Python stack", vt_stack_intern(with_python(1, A, 2, outer)), 5);
    CHECK_EQ("two locations written", npyframes, 2);
    CHECK_EQ("step's location id", pyframe_ids[0], 1);
    CHECK_EQ("train's location id", pyframe_ids[1], 2);
    CHECK_EQ("written with its native frames", written[4].n, 1);
    CHECK_EQ("and two Python frames", written[4].py_count, 2);
    CHECK_EQ("innermost Python frame", written[4].pyframes[0], 1);
    CHECK_EQ("another Python stack", vt_stack_intern(with_python(1, A, 2, inner)), 6);
    CHECK_EQ("only the new location written", npyframes, 3);
    CHECK_EQ("forward's location id", pyframe_ids[2], 3);
    CHECK_EQ("step keeps its id", written[5].pyframes[1], 1);
    CHECK_EQ("native frames alone are another stack", vt_stack_intern(native(1, A)), 7);
}

/* A new dump: ids start again and everything is written again. */
static void new_dump(void)
{
    vt_stacks_reset();
    unsigned before = nwritten, locations = npyframes;
    CHECK_EQ("first stack of the new dump", vt_stack_intern(native(3, B)), 1);
    CHECK_EQ("written", nwritten, before + 1);
    struct vt_pyloc *outer[] = {&step, &train};
    CHECK_EQ("a Python stack of the new dump", vt_stack_intern(with_python(1, A, 2, outer)), 2);
    CHECK_EQ("its locations written again", npyframes, locations + 2);
    CHECK_EQ("with ids from 1", pyframe_ids[locations], 1);
}

int main(void)
{
    distinct_stacks_once();
    unloaded_module();
    python_locations_once();
    new_dump();
    return unit_result("stack_intern");
}
/* SPDX-License-Identifier: MIT */
