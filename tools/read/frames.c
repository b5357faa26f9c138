/* SPDX-License-Identifier: MIT */
/* Frame trimming. The tracer drops its own frames, but a CUDA runtime
 * between the program and the driver hook (libcudart.so, or the static
 * runtime linked into the executable) leaves its insides on top. */
#include "frames.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "xalloc.h"

static bool is_cuda_library(const char *module)
{
    static const char *const prefixes[] = {
        "libcudart", "libcuda.so",  "libcublas",   "libcudnn", "libnccl",      "libcufft",
        "libcurand", "libcusparse", "libcusolver", "libnvrtc", "libnvJitLink",
    };
    if (!module)
        return false;
    const char *base = strrchr(module, '/');
    base = base ? base + 1 : module;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (!strncmp(base, prefixes[i], strlen(prefixes[i])))
            return true;
    return false;
}

/* ^cu[A-Z], ^cuda[A-Z], or the static runtime's __cudart* internals. */
static bool looks_like_cuda_api(const char *name)
{
    if (!name)
        return false;
    if (!strncmp(name, "__cudart", 8))
        return true;
    if (!strncmp(name, "cuda", 4) && name[4] >= 'A' && name[4] <= 'Z')
        return true;
    return !strncmp(name, "cu", 2) && name[2] >= 'A' && name[2] <= 'Z';
}

static bool same_module(const struct vt_frame *a, const struct vt_frame *b)
{
    return a->module && b->module && !strcmp(a->module, b->module);
}

/* The outermost CUDA API frame that only CUDA libraries, its own module or
 * other API frames (another library's wrapper of the same API, in a chain of
 * interposers) sit above; -1 when there is none. */
static long outermost_api_frame(const struct vt_frame *const *f, size_t n)
{
    long found = -1;
    for (size_t i = 0; i < n; i++) {
        if (!looks_like_cuda_api(f[i]->function))
            continue;
        bool only_runtime_above = true;
        for (size_t j = 0; j < i && only_runtime_above; j++)
            only_runtime_above = is_cuda_library(f[j]->module) || same_module(f[j], f[i]) ||
                                 looks_like_cuda_api(f[j]->function);
        if (only_runtime_above)
            found = (long)i;
    }
    return found;
}

/* A runtime API that allocates (cudaMalloc, cudaMallocMipmappedArray...), by name. */
static unsigned runtime_alloc_api(const char *name)
{
    for (unsigned api = VT_API_RUNTIME_FIRST; name && api < VT_API_RUNTIME2_LIMIT; api++)
        if (vt_api_is_runtime(api) && vt_api_allocates(api) && vt_api_name(api) &&
            !strcmp(vt_api_name(api), name))
            return api;
    return VT_API_unknown;
}

static void collect_frames(struct vt_symbolizer *sym, const struct vt_dump_stack_record *stack,
                           struct vt_site *site)
{
    size_t cap = 0;
    site->dropped = stack->dropped;
    for (size_t i = 0; i < stack->nframes; i++) {
        const struct vt_frame *f;
        if (i == stack->cut_at)
            site->cut_at = site->nframes;
        size_t n = vt_symbolize(sym, stack->frames[i], stack->module_epoch, &f);
        if (site->nframes + n > cap) {
            cap = 2 * (site->nframes + n);
            site->frames = realloc(site->frames, cap * sizeof *site->frames);
            if (!site->frames) {
                fputs("vramtrace: out of memory\n", stderr);
                exit(1);
            }
        }
        for (size_t k = 0; k < n; k++)
            site->frames[site->nframes++] = &f[k];
    }
}

static bool show_interpreter_frames;

void vt_frames_show_interpreter(bool show)
{
    show_interpreter_frames = show;
}

/* Whether FUNCTION is NAME, or a part the compiler split off it or a copy
 * it made (NAME.cold, NAME.part.0, NAME.constprop.0, NAME.lto_priv.0). */
static bool is_function(const char *function, const char *name)
{
    size_t n = strlen(name);
    return function && !strncmp(function, name, n) && (function[n] == '\0' || function[n] == '.');
}

/* The interpreter's evaluation loop: where Python frames stand. One call
 * of _PyEval_EvalFrameDefault per interpreter entry (an optimized build,
 * Debian's 3.14 and 3.15, runs it from its .cold part); the other names are
 * only looked for when it was not found (older dumps, other builds). */
static bool is_eval_loop(const struct vt_frame *f)
{
    return is_function(f->function, "_PyEval_EvalFrameDefault");
}

static bool is_eval_frame(const struct vt_frame *f)
{
    static const char *const names[] = {"_PyEval_EvalFrameDefault", "PyEval_EvalFrameEx",
                                        "_PyEval_EvalFrame", "_PyEval_Vector"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (is_function(f->function, names[i]))
            return true;
    return false;
}

static bool has_prefix(const char *path, const char *prefix)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !strncmp(base, prefix, strlen(prefix));
}

static bool is_process_start(const char *function)
{
    return function && (!strncmp(function, "__libc_start_", 13) || !strcmp(function, "_start"));
}

/* The interpreter's own native frames, ctypes' call machinery (libffi,
 * _ctypes) between Python code and the C it calls, and the C library's
 * start-up code below the interpreter's main. */
static bool is_interpreter_internal(const struct vt_frame *f, const char *interpreter)
{
    if (f->python || !f->module)
        return false;
    return (interpreter && !strcmp(f->module, interpreter)) || has_prefix(f->module, "libffi") ||
           has_prefix(f->module, "_ctypes.") || is_process_start(f->function);
}

/* Where each interpreter entry's Python frames go: before the native frame
 * AT[k] (nframes: at the end). Entries go to the evaluation loop's frames
 * in order, innermost first; in a cut stack those past the cut are matched
 * from the outermost end (when the Python stack was not cut too), and
 * entries left over stand at the cut. Without a cut, entries left over join
 * the last one placed; without evaluation frames, all go to the end.
 * Returns the module of the evaluation loop, or NULL. */
static const char *entry_places(const struct vt_site *site, bool cut, size_t nentries,
                                bool python_truncated, size_t *at)
{
    size_t *evals = malloc((site->nframes + 1) * sizeof *evals), nevals = 0, inner = 0, k = 0;
    if (!evals) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    for (size_t i = 0; i < site->nframes; i++)
        if (is_eval_loop(site->frames[i]))
            evals[nevals++] = i;
    if (!nevals) /* no loop found by its name: the innermost of its relatives takes all */
        for (size_t i = 0; i < site->nframes && !nevals; i++)
            if (is_eval_frame(site->frames[i]))
                evals[nevals++] = i, nentries = nentries ? nentries : 1;
    const char *interpreter = nevals ? site->frames[evals[0]]->module : NULL;
    while (inner < nevals && (!cut || evals[inner] < site->cut_at))
        inner++;
    for (; k < nentries && k < inner; k++)
        at[k] = evals[k];
    size_t last = nentries;
    if (cut && !python_truncated)
        for (size_t j = nevals; j > inner && last > k; j--)
            at[--last] = evals[j - 1];
    for (; k < last; k++)
        at[k] = cut ? site->cut_at : k ? at[k - 1] : site->nframes;
    free(evals);
    return interpreter;
}

/* Puts each interpreter entry's Python frames where its evaluation frame
 * stands in the native stack and, unless asked otherwise, hides the
 * interpreter's own native frames (those in the module that holds the
 * evaluation loop) on either side of them. */
static void merge_python(struct vt_symbolizer *sym, const struct vt_dump *dump,
                         const struct vt_dump_stack_record *stack, struct vt_site *site)
{
    /* An older dump does not say where its entries end: all in one. */
    size_t one = stack->npython, nentries = stack->nentries ? stack->nentries : 1;
    const size_t *entry_frames = stack->nentries ? stack->entry_frames : &one;
    bool is_cut = site->dropped && site->cut_at < site->nframes;
    size_t *at = malloc(nentries * sizeof *at);
    const struct vt_frame **merged = malloc((site->nframes + stack->npython + 1) * sizeof *merged);
    if (!at || !merged) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    const char *interpreter = entry_places(site, is_cut, nentries, stack->python_truncated, at);
    size_t n = 0, cut = SIZE_MAX, e = 0, py = 0;
    for (size_t i = 0; i <= site->nframes; i++) {
        if (is_cut && i == site->cut_at) /* before the entries left over at the cut */
            cut = n;
        for (; e < nentries && at[e] == i; e++)
            for (size_t f = 0; f < entry_frames[e]; f++)
                merged[n++] = vt_symbolize_python(sym, vt_dump_pyframe(dump, stack->python[py++]));
        if (i < site->nframes)
            merged[n++] = site->frames[i];
    }
    if (cut == SIZE_MAX)
        cut = site->cut_at >= site->nframes ? n : site->cut_at;
    if (!show_interpreter_frames) {
        size_t kept = 0, cut_kept = 0;
        for (size_t i = 0; i < n; i++) {
            if (i == cut)
                cut_kept = kept;
            if (!is_interpreter_internal(merged[i], interpreter))
                merged[kept++] = merged[i];
        }
        cut = cut >= n ? kept : cut_kept;
        n = kept;
    }
    free(at);
    site->cut_at = cut;
    free(site->frames);
    site->frames = merged;
    site->nframes = n;
    site->python_truncated = stack->python_truncated;
    for (size_t i = 0; i < n; i++)
        if (merged[i]->python)
            site->python_end = i + 1;
}

static void drop_leading(struct vt_site *site, size_t count)
{
    memmove(site->frames, site->frames + count, (site->nframes - count) * sizeof *site->frames);
    site->nframes -= count;
    site->cut_at = site->cut_at > count ? site->cut_at - count : 0;
}

/* The Python frames of the thread STACK's thread allocated for. */
static struct vt_site *behalf_site(struct vt_symbolizer *sym, const struct vt_dump *dump,
                                   const struct vt_dump_stack_record *stack)
{
    struct vt_site *site = vt_xcalloc(1, sizeof *site);
    site->frames = vt_xcalloc(stack->nbehalf, sizeof *site->frames);
    for (size_t i = 0; i < stack->nbehalf; i++)
        site->frames[site->nframes++] =
            vt_symbolize_python(sym, vt_dump_pyframe(dump, stack->behalf[i]));
    site->python_end = site->nframes;
    site->python_truncated = stack->behalf_truncated;
    return site;
}

void vt_site_frames(struct vt_symbolizer *sym, const struct vt_dump *dump, uint64_t stack_id,
                    unsigned recorded_api, struct vt_site *site)
{
    const struct vt_dump_stack_record *stack = stack_id ? vt_dump_stack(dump, stack_id) : NULL;
    memset(site, 0, sizeof *site);
    site->api = recorded_api;
    if (!stack)
        return;
    if (stack->nbehalf)
        site->behalf = behalf_site(sym, dump, stack);
    collect_frames(sym, stack, site);
    size_t drop = (size_t)(outermost_api_frame(site->frames, site->nframes) + 1);
    while (drop < site->nframes && is_cuda_library(site->frames[drop]->module))
        drop++;
    if (drop == site->nframes) { /* nothing of the program's own: show it all */
        if (stack->npython)
            merge_python(sym, dump, stack, site);
        return;
    }
    for (size_t i = drop; i-- > 0 && !vt_api_is_runtime(recorded_api);) {
        unsigned api = runtime_alloc_api(site->frames[i]->function);
        if (api != VT_API_unknown) {
            site->api = api;
            break;
        }
    }
    drop_leading(site, drop);
    if (stack->npython)
        merge_python(sym, dump, stack, site);
}

void vt_site_all_frames(struct vt_symbolizer *sym, const struct vt_dump *dump, uint64_t stack_id,
                        struct vt_site *site)
{
    const struct vt_dump_stack_record *stack = stack_id ? vt_dump_stack(dump, stack_id) : NULL;
    memset(site, 0, sizeof *site);
    if (stack)
        collect_frames(sym, stack, site);
}

static bool path_has(const char *path, const char *part)
{
    return path && strstr(path, part);
}

static bool base_is(const char *path, const char *name)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path;
    return base && !strcmp(base, name);
}

static bool is_name(const char *function, const char *const *names, size_t n)
{
    for (size_t i = 0; function && i < n; i++)
        if (!strcmp(function, names[i]))
            return true;
    return false;
}

/* The interpreter's and the test runners' own Python code. */
static bool is_runtime_python(const struct vt_frame *f)
{
    static const char *const parts[] = {
        "/_pytest/", "/pluggy/",    "/unittest/", "/pytest/__main__.py",  "/xdist/",
        "/execnet/", "/importlib/", "/asyncio/",  "/concurrent/futures/", "/multiprocessing/",
    };
    static const char *const bootstrap[] = {
        "_bootstrap",        "_bootstrap_inner",        "run",
        "Thread._bootstrap", "Thread._bootstrap_inner", "Thread.run"};
    const char *file = f->file;
    if (!file)
        return false;
    if (!strncmp(file, "<frozen ", 8) || base_is(file, "runpy.py") || base_is(file, "pytest") ||
        base_is(file, "pytest-3") || base_is(file, "py.test") ||
        base_is(file, "pytest_vramtrace.py")) /* our plugin, folded as pytest is */
        return true;
    if (base_is(file, "threading.py"))
        return is_name(f->function, bootstrap, sizeof bootstrap / sizeof bootstrap[0]);
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (path_has(file, parts[i]))
            return true;
    return false;
}

/* The C library's process and thread start-up, the dynamic loader, and
 * NVTX's own functions that hand a program's call of its memory API to the
 * tracer (compiled into the program from nvtx3's headers). */
static bool is_runtime_native(const struct vt_frame *f)
{
    static const char *const thread_start[] = {"start_thread", "__clone3", "clone3", "__clone",
                                               "clone"};
    static const char *const nvtx_mem[] = {"nvtxMemRegionsRegister", "nvtxMemRegionsResize",
                                           "nvtxMemRegionsUnregister"};
    if (is_process_start(f->function) ||
        is_name(f->function, nvtx_mem, sizeof nvtx_mem / sizeof nvtx_mem[0]))
        return true;
    if (f->module && (has_prefix(f->module, "ld-linux") || has_prefix(f->module, "ld.so") ||
                      has_prefix(f->module, "ld64.so")))
        return true;
    /* the C and C++ libraries name their exported functions: one they do not
     * name is their start-up code (__libc_start_call_main, start_thread,
     * clone3, std::thread's execute_native_thread_routine) */
    if (f->module && has_prefix(f->module, "libstdc++.so"))
        return !f->function || !strcmp(f->function, "execute_native_thread_routine");
    return f->module && has_prefix(f->module, "libc.so") &&
           (!f->function ||
            is_name(f->function, thread_start, sizeof thread_start / sizeof thread_start[0]));
}

bool vt_frame_is_runtime(const struct vt_frame *f)
{
    return f->python ? is_runtime_python(f) : is_runtime_native(f);
}

static bool show_all_frames;
static size_t max_own_frames;

void vt_frames_set_display(bool all_frames, size_t max_frames)
{
    show_all_frames = all_frames;
    max_own_frames = max_frames;
}

bool vt_frames_all(void)
{
    return show_all_frames;
}

size_t vt_frames_max(void)
{
    return max_own_frames;
}

size_t vt_site_first_own_frame(const struct vt_site *site)
{
    for (size_t i = 0; i < site->nframes; i++)
        if (!vt_frame_is_runtime(site->frames[i]))
            return i;
    return 0;
}

bool vt_frame_is_users(const struct vt_frame *f)
{
    return !vt_frame_is_runtime(f) && !vt_frame_framework(f);
}

static bool framework_folded(const struct vt_frames_view *view, const struct vt_frame *f)
{
    return view->frameworks && vt_frame_framework(f);
}

static bool folded(const struct vt_frames_view *view, const struct vt_frame *f)
{
    return (view->runtime && vt_frame_is_runtime(f)) || framework_folded(view, f);
}

/* Folding only where something of the program's own stays in view: runtime
 * frames where any other frame is, a framework's where one of the
 * program's own is. */
static bool has_users_frame(const struct vt_site *site)
{
    for (size_t i = 0; i < site->nframes; i++)
        if (vt_frame_is_users(site->frames[i]))
            return true;
    return false;
}

void vt_frames_view(const struct vt_site *site, struct vt_frames_view *view)
{
    size_t own = 0;
    memset(view, 0, sizeof *view);
    view->fold_at = view->cut_at = site->nframes;
    view->max_frames = max_own_frames;
    for (size_t i = 0; !show_all_frames && i < site->nframes; i++) {
        if (vt_frame_is_runtime(site->frames[i])) {
            if (!view->runtime++)
                view->fold_at = i;
        } else if (!vt_frame_framework(site->frames[i])) {
            view->frameworks = true;
        }
    }
    if (view->runtime == site->nframes) {
        view->runtime = 0;
        view->fold_at = site->nframes;
    }
    /* The program's frames may be those of the thread it allocated for. */
    if (!show_all_frames && site->behalf && has_users_frame(site->behalf))
        view->frameworks = true;
    for (size_t i = 0; i < site->nframes; i++) {
        if (folded(view, site->frames[i]))
            continue;
        if (max_own_frames && own == max_own_frames && view->cut_at == site->nframes)
            view->cut_at = i;
        if (view->cut_at < site->nframes)
            view->cut_hidden++;
        own++;
    }
}

bool vt_frames_view_shows(const struct vt_site *site, const struct vt_frames_view *view, size_t i)
{
    return i < view->cut_at && !folded(view, site->frames[i]);
}

size_t vt_frames_view_run(const struct vt_site *site, const struct vt_frames_view *view, size_t i,
                          enum vt_framework *fw)
{
    *fw = framework_folded(view, site->frames[i]) ? vt_frame_framework(site->frames[i])
                                                  : VT_FRAMEWORK_NONE;
    if (!*fw || (i > 0 && vt_frame_framework(site->frames[i - 1]) == *fw))
        return 0;
    size_t n = 1;
    while (i + n < site->nframes && vt_frame_framework(site->frames[i + n]) == *fw)
        n++;
    return n;
}

void vt_site_free(struct vt_site *site)
{
    if (site->behalf) {
        vt_site_free(site->behalf);
        free(site->behalf);
    }
    free(site->frames);
    memset(site, 0, sizeof *site);
}
