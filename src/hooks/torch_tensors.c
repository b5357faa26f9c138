/* SPDX-License-Identifier: MIT */
/* PyTorch's caching allocator calls every trace tracker attached to it
 * (c10/cuda/CUDACachingAllocator.h: CUDAAllocator's virtual
 * attachAllocatorTraceTracker, a std::function<void(const TraceEntry &)>)
 * synchronously, on the allocating thread with its lock held, for each
 * tensor it hands out (ALLOC) and takes back (FREE_REQUESTED): how its own
 * memory history sees tensors; and for each segment it gets (SEGMENT_ALLOC,
 * SEGMENT_MAP), marked as its cache's (track.c: what a test left counts the
 * tensors, not the segments). The tracer is C: it builds that std::function
 * as libstdc++ lays it out and calls the method by its vtable slot; the
 * slots and TraceEntry's fields come from each release line's own headers
 * (tests/torch_probe.cpp prints them, test_torch_tensors.py compares them
 * with this table, for each wheel it verifies). On a release not in the
 * table the segments alone are traced, and the dump says so (FRAMEWORK,
 * in the report's first lines). Trackers
 * must not take the GIL: the Python frames are read without it.
 * Only attach calls into this file (torch_tensors.h): at load it observes
 * the traced device allocations (event.h) and attaches the tracker after
 * the first one that finds the caching allocator loaded, of a verified
 * release and initialised (cheap until objects are loaded). */
#include "elf_symbol.h"
#include "event.h"
#include "entry.h"
#include "modules.h"
#include "torch_tensors.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

struct release {
    const char *version;                                        /* torch's major.minor */
    unsigned initialized_slot, attach_slot;                     /* CUDAAllocator's vtable indices */
    unsigned action_at, device_at, addr_at, stream_at, size_at; /* TraceEntry's offsets */
};

static const struct release releases[] = {
    {"2.14", 6, 50, 0, 4, 8, 32, 40},
    {"2.15", 6, 50, 0, 4, 8, 32, 40},
};

/* TraceEntry::Action (the probe checks them too) */
enum {
    ACTION_ALLOC = 0,
    ACTION_FREE_REQUESTED = 1,
    ACTION_SEGMENT_ALLOC = 3,
    ACTION_SEGMENT_MAP = 5
};

#define ALLOCATOR_SYMBOL "_ZN3c104cuda20CUDACachingAllocator9allocatorE"
#define NATIVE_CLASS "N3c104cuda20CUDACachingAllocator6Native22NativeCachingAllocatorE"

/* libstdc++'s std::function: the functor's storage, its manager (clone,
 * destroy, ...) and the invoker std::function's operator() calls. */
struct cxx_function {
    void *functor[2];
    _Bool (*manager)(void *dest, const void *source, int op);
    void (*invoker)(const void *functor, const void *entry);
};
enum { GET_TYPE_INFO = 0, GET_FUNCTOR_PTR = 1, CLONE_FUNCTOR = 2 }; /* _Manager_operation */

enum { LOOKING, FOUND, DONE };
static int state, busy;
static unsigned generation_seen;
static void **allocator; /* std::atomic<CUDAAllocator *> */
static const struct release *release;

/* The functor is empty: cloning copies nothing that needs owning. */
static _Bool manage(void *dest, const void *source, int op)
{
    if (op == GET_TYPE_INFO)
        *(void **)dest = NULL; /* no type_info: target_type() reads typeid(void) */
    else if (op == GET_FUNCTOR_PTR)
        *(const void **)dest = source;
    else if (op == CLONE_FUNCTOR)
        memcpy(dest, source, 2 * sizeof(void *));
    return 0;
}

static void on_entry(const void *functor, const void *entry)
{
    const char *e = entry;
    const struct release *r = release;
    int action;
    uint64_t addr, stream, size;
    (void)functor;
    memcpy(&action, e + r->action_at, sizeof action);
    memcpy(&addr, e + r->addr_at, sizeof addr);
    memcpy(&size, e + r->size_at, sizeof size);
    if (action == ACTION_SEGMENT_ALLOC || action == ACTION_SEGMENT_MAP) {
        if (vt_enter())
            vt_on_cache_segment(addr, size); /* its CUDA calls are traced: marked */
        return;
    }
    if (action != ACTION_ALLOC && action != ACTION_FREE_REQUESTED)
        return; /* the segments' frees and unmaps: their CUDA calls are traced */
    memcpy(&stream, e + r->stream_at, sizeof stream);
    if (!vt_event_begin())
        return;
    if (action == ACTION_FREE_REQUESTED) {
        vt_on_tensor_free(addr, stream);
        return;
    }
    struct vt_alloc_info info = {
        .key = addr,
        .stream = stream,
        .device = (int8_t)e[r->device_at],
        .api = VT_API_torchTensorAlloc,
        .kind = VT_KIND_DEVICE,
        .space = VT_SPACE_TENSOR,
        .size = size,
    };
    vt_on_tensor_alloc(info);
}

/* torch's version (major.minor) from torch/version.py beside the folder
 * (torch/lib) of the object that holds SYMBOL, into VERSION; 0 when read. */
static int version_of(const void *symbol, char *version, size_t cap)
{
    Dl_info where;
    char path[4096], text[4096];
    const char *slash, *v, *key = "__version__ = '";
    if (!dladdr(symbol, &where) || !where.dli_fname || !(slash = strrchr(where.dli_fname, '/')))
        return -1;
    snprintf(path, sizeof path, "%.*s/../version.py", (int)(slash - where.dli_fname),
             where.dli_fname);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    text[n > 0 ? n : 0] = 0;
    if (!(v = strstr(text, key)))
        return -1;
    v += strlen(key);
    size_t len = strspn(v, "0123456789");
    if (v[len] == '.')
        len += 1 + strspn(v + len + 1, "0123456789");
    if (len >= cap)
        return -1;
    memcpy(version, v, len);
    version[len] = 0;
    return 0;
}

/* libc10_cuda is loaded: its release, in the table or said unverified. */
static char version[24]; /* of the torch found, for its FRAMEWORK record */

static void look(void)
{
    void **symbol = vt_elf_lookup("libc10_cuda.so", ALLOCATOR_SYMBOL);
    if (!symbol) { /* not loaded, or unloaded since it was found */
        __atomic_store_n(&state, LOOKING, __ATOMIC_RELEASE);
        return;
    }
    __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
    if (version_of(symbol, version, sizeof version) < 0)
        version[0] = 0;
    for (size_t i = 0; i < sizeof releases / sizeof releases[0]; i++)
        if (!strcmp(releases[i].version, version)) {
            release = &releases[i];
            allocator = symbol;
            __atomic_store_n(&state, FOUND, __ATOMIC_RELEASE);
            return;
        }
    vt_track_framework("PyTorch", version, VT_FRAMEWORK_NOT_VERIFIED);
}

/* The caching allocator, once initialised (its devices' allocators, which
 * keep the trackers, exist): attached; another backend (cudaMallocAsync,
 * a pluggable allocator) refuses trackers, and its tensors are its own
 * CUDA calls: left alone. 0: not yet. */
static int attach(void)
{
    void *self = __atomic_load_n(allocator, __ATOMIC_ACQUIRE);
    if (!self)
        return 0;
    void *const *vtable = *(void *const *const *)self;
    const char *const *type = vtable[-1]; /* its type_info: vtable, name */
    const char *name = type ? type[1] : NULL;
    if (!name || strcmp(name + (*name == '*'), NATIVE_CLASS))
        return 1; /* another class, or a build without RTTI: never guessed */
    _Bool (*initialized)(void *) = (_Bool(*)(void *))vtable[release->initialized_slot];
    if (!initialized(self))
        return 0;
    /* passed by value: the caller's copy, by address; the method moves it
     * into each device's list (clone), and nothing is left to destroy */
    struct cxx_function tracker = {{NULL, NULL}, manage, on_entry};
    void (*attach_tracker)(void *, struct cxx_function *) =
        (void (*)(void *, struct cxx_function *))vtable[release->attach_slot];
    attach_tracker(self, &tracker);
    vt_track_framework("PyTorch", release->version, VT_FRAMEWORK_TENSORS);
    return 1;
}

/* Until attached, each change of the loaded objects is looked at again:
 * the allocator found (a pointer into libc10_cuda) may have been unloaded
 * before it was initialised. */
static void notice(void)
{
    int now = __atomic_load_n(&state, __ATOMIC_ACQUIRE);
    if (now == DONE)
        return;
    unsigned generation = vt_modules_generation();
    if (now == LOOKING && generation == __atomic_load_n(&generation_seen, __ATOMIC_RELAXED))
        return;
    if (__atomic_exchange_n(&busy, 1, __ATOMIC_ACQUIRE))
        return; /* another thread looks: never wait for it (it may wait for our lock) */
    if (generation != generation_seen) {
        __atomic_store_n(&generation_seen, generation, __ATOMIC_RELAXED);
        look();
    }
    if (state == FOUND && attach())
        __atomic_store_n(&state, DONE, __ATOMIC_RELEASE);
    __atomic_store_n(&busy, 0, __ATOMIC_RELEASE);
}

void vt_torch_tensors_look_now(void)
{
    notice();
}

/* At load, before anything allocates: only a pointer is stored (event.c
 * calls it once tracing runs). */
__attribute__((constructor)) static void observe(void)
{
    vt_event_observe_device_allocs(notice);
}
