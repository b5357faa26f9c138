/* mkdump: writes synthetic .vtr dumps with known contents (src/format.h),
 * so the CLI's reader, analysis, symbolizer and trimming can be checked
 * exactly, without the tracer or a GPU.
 *
 *   mkdump [--atomic] SCENARIO OUT [N]
 *
 * Real return addresses from this very program serve as frames, and the
 * module list points at this executable, so they symbolize. Next to OUT it
 * writes OUT.expect.json: the functions and lines those frames must
 * resolve to. %p in OUT becomes the pid (like VRAMTRACE_OUTPUT). With
 * --atomic the dump is written to a temporary file and renamed over OUT at
 * the end (so a preloaded tracer writing the same path cannot mix in).
 * Under `vramtrace run` (VRAMTRACE_MANIFEST set) it lists OUT in the run's
 * manifest as the library does (absolute path, NUL-terminated), so run
 * reports it. */
#include <elf.h>
#include <link.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "format.h"

/* No clone of a capturing function may stand in for it (gcc; clang makes
 * none). */
#if defined(__has_attribute) && __has_attribute(noclone)
#define NOINLINE __attribute__((noinline, noclone))
#else
#define NOINLINE __attribute__((noinline))
#endif

#define MiB (1024ull * 1024)
#define GiB (1024ull * MiB)

/* ---- frames with known symbolization ---- */

struct site {
    const char *function;
    unsigned line;
    uintptr_t address;
};

static struct site site_main, site_a, site_b, site_inline_helper, site_inlining,
    site_fake_internal, site_fake_cudamalloc, site_user_alloc;

NOINLINE static uintptr_t return_address(void)
{
    return (uintptr_t)__builtin_return_address(0);
}

/* The empty asm after each call keeps it out of tail position: the return
 * address must stay inside the function that made the call. */
#define CAPTURE(site, name) \
    do { (site).address = return_address(); (site).line = __LINE__; (site).function = name; \
         __asm__ volatile("" ::: "memory"); } while (0)

NOINLINE static void leak_site_a(void)
{
    CAPTURE(site_a, "leak_site_a");
}

NOINLINE static void leak_site_b(void)
{
    CAPTURE(site_b, "leak_site_b");
}

static inline __attribute__((always_inline)) void inlined_helper(void)
{
    CAPTURE(site_inline_helper, "inlined_helper");
}

NOINLINE static void inlining_site(void)
{
    inlined_helper(); site_inlining.line = __LINE__; site_inlining.function = "inlining_site";
    __asm__ volatile("" ::: "memory");
}

/* A static CUDA runtime linked into the program: cudaMalloc calls runtime
 * internals, which call the driver (where the tracer sees it). */
NOINLINE static void __cudart_fake_internal(void)
{
    CAPTURE(site_fake_internal, "__cudart_fake_internal");
}

NOINLINE static void cudaMalloc(void)
{
    __cudart_fake_internal();
    CAPTURE(site_fake_cudamalloc, "cudaMalloc");
}

NOINLINE static void user_alloc_site(void)
{
    cudaMalloc();
    CAPTURE(site_user_alloc, "user_alloc_site");
}

static void capture_sites(void)
{
    leak_site_a();
    leak_site_b();
    inlining_site();
    user_alloc_site();
    /* inlined_helper's return address lies in inlining_site */
    site_inlining.address = site_inline_helper.address;
}

/* ---- the writer ---- */

struct buf {
    uint8_t *data;
    size_t len, cap;
};

static void put(struct buf *b, const void *p, size_t n)
{
    if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2 + 64;
        b->data = realloc(b->data, b->cap);
        if (!b->data) {
            perror("mkdump");
            exit(1);
        }
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

static void put_u8(struct buf *b, unsigned v)
{
    uint8_t c = (uint8_t)v;
    put(b, &c, 1);
}

static void put_varint(struct buf *b, uint64_t v)
{
    uint8_t tmp[VT_VARINT_MAX];
    put(b, tmp, vt_put_varint(tmp, v));
}

static void put_svarint(struct buf *b, int64_t v) { put_varint(b, vt_zigzag(v)); }

static void put_str(struct buf *b, const char *s)
{
    put_varint(b, strlen(s));
    put(b, s, strlen(s));
}

struct writer {
    struct buf out;
    uint64_t prev_address;
    uint64_t time_ns;      /* of the last timed record: each one comes 10 ns later */
};

static void header(struct writer *w, uint32_t version, const char *magic)
{
    uint8_t v[8] = {version, version >> 8, version >> 16, version >> 24, 0, 0, 0, 0};
    put(&w->out, magic, VT_MAGIC_LEN);
    put(&w->out, v, sizeof v);
}

static void record(struct writer *w, unsigned type, struct buf *payload)
{
    put_u8(&w->out, type);
    put_varint(&w->out, payload->len);
    put(&w->out, payload->data, payload->len);
    free(payload->data);
    *payload = (struct buf){0};
}

static void put_address(struct writer *w, struct buf *p, uint64_t address)
{
    put_svarint(p, (int64_t)(address - w->prev_address));
    w->prev_address = address;
}

/* The field kinds of format.h's record layouts: its generated encoders
 * write these records, as the library does. */
struct field_out {
    struct writer *w;
    struct buf *p;
};

static void vt_put_VARINT(struct field_out *o, uint64_t v) { put_varint(o->p, v); }
static void vt_put_SVARINT(struct field_out *o, int64_t v) { put_svarint(o->p, v); }
static void vt_put_U8(struct field_out *o, unsigned v) { put_u8(o->p, v); }
static void vt_put_STR(struct field_out *o, const char *s) { put_str(o->p, s); }
static void vt_put_COUNT(struct field_out *o, uint64_t count) { put_varint(o->p, count); }
static void vt_put_WIDE(struct field_out *o, uint64_t v)
{
    uint8_t wide[VT_WIDE_BYTES];
    vt_put_wide(wide, v);
    put(o->p, wide, sizeof wide);
}

static void vt_put_BYTES(struct field_out *o, struct vt_bytes bytes)
{
    put_varint(o->p, bytes.len);
    put(o->p, bytes.data, bytes.len);
}
static void vt_put_ADDR(struct field_out *o, uint64_t address) { put_address(o->w, o->p, address); }

static void vt_put_DT(struct field_out *o, uint64_t time_ns)
{
    put_varint(o->p, time_ns - o->w->time_ns);
    o->w->time_ns = time_ns;
}

#define DEFINE_ENCODER(TYPE) VT_DEFINE_ENCODER(TYPE, struct field_out)
VT_RECORD_LAYOUTS(DEFINE_ENCODER)
#undef DEFINE_ENCODER

/* Without the appended rank, start ticks and boot id: as older dumps. */
static void process_record(struct writer *w, const char *exe, int argc, const char *const *argv)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    struct vt_rec_PROCESS head = {
        .pid = 4242, .ppid = 1, .start_real_ns = 1700000000000000000ull, .start_mono_ns = 1000,
        .exe = exe, .hostname = "testhost", .argc = (uint64_t)argc,
    };
    vt_encode_PROCESS(&o, &head, 1);
    for (int i = 0; i < argc; i++)
        vt_encode_PROCESS_ARG(&o, &(struct vt_rec_PROCESS_ARG){.arg = argv[i]}, 1);
    record(w, VT_REC_PROCESS, &p);
}

static void module_record(struct writer *w, uint64_t id, uint64_t bias, uint64_t start,
                          uint64_t end, const char *path, const uint8_t *build_id, size_t id_len)
{
    struct buf p = {0};
    struct vt_rec_MODULE rec = {
        .id = id, .bias = bias, .start = start, .end = end, .path = path,
        .build_id = {build_id, id_len},
    };
    vt_encode_MODULE(&(struct field_out){w, &p}, &rec, 1);
    record(w, VT_REC_MODULE, &p);
}

static void stack_record(struct writer *w, uint64_t id, size_t n, const uintptr_t *frames)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    uint64_t prev = 0;
    vt_encode_STACK(&o, &(struct vt_rec_STACK){.id = id, .frames = n}, 1);
    for (size_t i = 0; i < n; i++) {
        vt_encode_STACK_FRAME(&o, &(struct vt_rec_STACK_FRAME){.delta = (int64_t)(frames[i] - prev)},
                              1);
        prev = frames[i];
    }
    record(w, VT_REC_STACK, &p);
}

static void pyframe_record(struct writer *w, uint64_t id, const char *function, const char *file,
                           uint64_t line)
{
    struct buf p = {0};
    struct vt_rec_PYFRAME rec = {.id = id, .function = function, .file = file, .line = line};
    vt_encode_PYFRAME(&(struct field_out){w, &p}, &rec, 1);
    record(w, VT_REC_PYFRAME, &p);
}

/* A stack of a thread without Python frames of its own, with the N Python
 * frames (PYFRAME ids) of the thread it allocated for, DECLARED of them. */
static void behalf_stack_record(struct writer *w, uint64_t id, size_t nframes,
                                const uintptr_t *frames, size_t n, size_t declared,
                                const uint64_t *ids)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    uint64_t prev = 0;
    vt_encode_STACK(&o, &(struct vt_rec_STACK){.id = id, .frames = nframes}, 1);
    for (size_t i = 0; i < nframes; i++) {
        vt_encode_STACK_FRAME(&o, &(struct vt_rec_STACK_FRAME){.delta = (int64_t)(frames[i] - prev)},
                              1);
        prev = frames[i];
    }
    vt_encode_PYSTACK_PYTHON(&o, &(struct vt_rec_PYSTACK_PYTHON){.count = 0}, 1);
    vt_encode_PYSTACK_TAIL(&o, &(struct vt_rec_PYSTACK_TAIL){.flags = 0}, 1);
    vt_encode_STACK_CUT(&o, &(struct vt_rec_STACK_CUT){0}, 1);
    vt_encode_PYSTACK_ENTRIES(&o, &(struct vt_rec_PYSTACK_ENTRIES){.entries = 0}, 1);
    vt_encode_PYSTACK_BEHALF(&o, &(struct vt_rec_PYSTACK_BEHALF){.flags = 0, .behalf = declared},
                             1);
    for (size_t i = 0; i < n; i++)
        vt_encode_PYSTACK_BEHALF_FRAME(&o, &(struct vt_rec_PYSTACK_BEHALF_FRAME){.id = ids[i]}, 1);
    record(w, VT_REC_PYSTACK, &p);
}

/* The time of the next timed record. */
static uint64_t next_time(const struct writer *w)
{
    return w->time_ns + 10;
}

static void alloc_record(struct writer *w, uint64_t address, uint64_t size, uint64_t stack,
                         unsigned api, unsigned kind_flags, int64_t device)
{
    struct buf p = {0};
    struct vt_rec_ALLOC rec = {
        .time_ns = next_time(w), .address = address, .size = size, .stack = stack,
        .api = api, .kind_flags = kind_flags, .device = device, .tid = 77, .stream = 0,
    };
    vt_encode_ALLOC(&(struct field_out){w, &p}, &rec, 1);
    record(w, VT_REC_ALLOC, &p);
}

static void free_record(struct writer *w, uint64_t address, unsigned api, unsigned status_flags)
{
    struct buf p = {0};
    struct vt_rec_FREE rec = {
        .time_ns = next_time(w), .address = address, .api = api,
        .status_flags = status_flags, .tid = 77, .stream = 0,
    };
    vt_encode_FREE(&(struct field_out){w, &p}, &rec, 1);
    record(w, VT_REC_FREE, &p);
}

static struct vt_rec_FAILED failed_head(struct writer *w, uint64_t size, uint64_t stack,
                                         unsigned api, int64_t device, uint64_t error)
{
    struct vt_rec_FAILED rec = {
        .time_ns = next_time(w), .size = size, .stack = stack, .api = api,
        .kind = VT_KIND_DEVICE, .device = device, .tid = 77, .error = error,
    };
    return rec;
}

/* Without the out-of-memory tail. */
static void failed_record(struct writer *w, uint64_t size, uint64_t stack, unsigned api,
                          int64_t device, uint64_t error)
{
    struct buf p = {0};
    struct vt_rec_FAILED rec = failed_head(w, size, stack, api, device, error);
    vt_encode_FAILED(&(struct field_out){w, &p}, &rec, 0);
    record(w, VT_REC_FAILED, &p);
}

static void mark_record(struct writer *w, const char *label)
{
    struct buf p = {0};
    struct vt_rec_MARK rec = {.time_ns = next_time(w), .tid = 77, .label = label};
    vt_encode_MARK(&(struct field_out){w, &p}, &rec, 1);
    record(w, VT_REC_MARK, &p);
}

/* Without the appended signal and status: as older dumps end. */
static void end_record_at(struct writer *w, uint64_t live, uint64_t time_ns)
{
    struct buf p = {0};
    struct vt_rec_END rec = {.time_ns = time_ns, .reason = VT_END_EXIT, .live = live};
    vt_encode_END(&(struct field_out){w, &p}, &rec, 0);
    record(w, VT_REC_END, &p);
}

static void end_record(struct writer *w, uint64_t live)
{
    end_record_at(w, live, next_time(w));
}

/* ---- this executable as a module ---- */

struct self_module {
    uint64_t bias, start, end;
    uint8_t build_id[64];
    size_t build_id_len;
    char path[4096];
};

static void read_build_id(struct self_module *m, const ElfW(Phdr) *ph, uint64_t bias)
{
    const uint8_t *p = (const uint8_t *)(bias + ph->p_vaddr), *end = p + ph->p_memsz;
    while (p + sizeof(ElfW(Nhdr)) <= end) {
        const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
        const uint8_t *name = p + sizeof *n;
        const uint8_t *desc = name + ((n->n_namesz + 3) & ~3u);
        if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(name, "GNU", 4) &&
            n->n_descsz <= sizeof m->build_id) {
            memcpy(m->build_id, desc, n->n_descsz);
            m->build_id_len = n->n_descsz;
        }
        p = desc + ((n->n_descsz + 3) & ~3u);
    }
}

static int find_main_program(struct dl_phdr_info *info, size_t size, void *data)
{
    struct self_module *m = data;
    (void)size;
    m->bias = info->dlpi_addr;
    m->start = UINT64_MAX;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD) {
            if (info->dlpi_addr + ph->p_vaddr < m->start)
                m->start = info->dlpi_addr + ph->p_vaddr;
            if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > m->end)
                m->end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
        } else if (ph->p_type == PT_NOTE) {
            read_build_id(m, ph, info->dlpi_addr);
        }
    }
    return 1;   /* the first object is the program itself */
}

static struct self_module self;

static void self_module_record(struct writer *w, uint64_t id, bool wrong_build_id)
{
    uint8_t wrong[20];
    memset(wrong, 0xaa, sizeof wrong);
    if (wrong_build_id)
        module_record(w, id, self.bias, self.start, self.end, self.path, wrong, sizeof wrong);
    else
        module_record(w, id, self.bias, self.start, self.end, self.path, self.build_id,
                      self.build_id_len);
}

/* A libcudart.so.13 that is not on this machine. */
#define FAKE_CUDART_PATH "/nonexistent/cuda/lib64/libcudart.so.13"
#define FAKE_CUDART_BASE 0x7f0000000000ull
#define FAKE_LIB_PATH "/nonexistent/libfoo.so"
#define FAKE_LIB_BASE 0x7e0000000000ull

/* ---- scenarios ---- */

static void standard_start(struct writer *w)
{
    static const char *const argv[] = {"fake", "--flag"};
    header(w, VT_VERSION_EVENTS, VT_MAGIC);
    process_record(w, "/usr/bin/fake", 2, argv);
    self_module_record(w, 1, false);
}

/* Every event kind with known totals (see check_cli.py: BASIC_SUMMARY). */
static void scenario_basic(struct writer *w, bool with_end, bool unknown_records)
{
    standard_start(w);
    uintptr_t s1[] = {site_a.address, site_main.address};
    uintptr_t s2[] = {site_inline_helper.address, site_main.address};
    uintptr_t s3[] = {site_b.address, site_main.address};
    stack_record(w, 1, 2, s1);
    stack_record(w, 2, 2, s2);
    if (unknown_records) {
        struct buf p = {0};
        put_str(&p, "a record type from the future");
        record(w, 99, &p);
    }
    stack_record(w, 3, 2, s3);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x200000, 4 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x800000, 8 * MiB, 2, VT_API_cuMemAlloc, VT_KIND_DEVICE, 1);
    free_record(w, 0x800000, VT_API_cuMemFree, VT_FREE_OK);
    alloc_record(w, 0x800000, 8 * MiB, 2, VT_API_cuMemAlloc, VT_KIND_DEVICE | VT_ALLOC_RESTORED, 1);
    alloc_record(w, 0x2000000, 16 * MiB, 2, VT_API_cudaMallocManaged, VT_KIND_MANAGED, 0);
    free_record(w, 0x2000000, VT_API_cudaFree, VT_FREE_OK);   /* peak was 29 MiB, at 60 ns */
    alloc_record(w, 0x4000000, 2 * MiB, 3, VT_API_cudaMallocHost, VT_KIND_HOST, -1);
    alloc_record(w, 0x5, 2 * MiB, 0, VT_API_cuMemCreate, VT_KIND_DEVICE | VT_ADDR_HANDLE, 0);
    alloc_record(w, 0x5, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    free_record(w, 0x5, VT_API_cudaFree, VT_FREE_OK);   /* the address, not the handle */
    if (unknown_records) {
        struct buf p = {0};
        put_varint(&p, 12345);
        record(w, 200, &p);
    }
    free_record(w, 0xdead, VT_API_cudaFree, VT_FREE_INVALID);
    free_record(w, 0xbeef, VT_API_cudaFree, VT_FREE_UNTRACED);
    free_record(w, 0x123456, VT_API_cudaFree, VT_FREE_OK);   /* never allocated: untraced */
    failed_record(w, 64 * GiB, 1, VT_API_cudaMalloc, 0, 2);
    failed_record(w, 64 * GiB, 1, VT_API_cudaMalloc, 0, 2);
    failed_record(w, 1 * GiB, 2, VT_API_cuMemAlloc, 1, 2);
    alloc_record(w, 0x9000000, 3 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    free_record(w, 0x9000000, VT_API_cudaDeviceReset, VT_FREE_TEARDOWN);
    mark_record(w, "phase \"two\"");
    if (with_end)
        end_record(w, 5);
}

/* Autograd's device thread allocating for the thread that called
 * backward(): stack 1 with that thread's frames (train_step train.py:22,
 * <module> train.py:30), 1 MiB leaked; stack 2, the same native frames
 * without them, 2 MiB. VARIANT "undefined": stack 1 names Python frame 9,
 * never defined; "short": its list says 3 frames and holds 2. */
static void scenario_behalf(struct writer *w, const char *variant)
{
    standard_start(w);
    uintptr_t native[] = {site_a.address, site_main.address};
    uint64_t ids[] = {1, strcmp(variant, "undefined") ? 2 : 9};
    pyframe_record(w, 1, "train_step", "train.py", 22);
    pyframe_record(w, 2, "<module>", "train.py", 30);
    behalf_stack_record(w, 1, 2, native, 2, strcmp(variant, "short") ? 2 : 3, ids);
    stack_record(w, 2, 2, native);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x200000, 2 * MiB, 2, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    end_record(w, 2);
}

/* Begun by vramtrace attach: device 0 held 3 MiB before (the driver's
 * view), one route not reached; 1 MiB allocated since and held at detach,
 * one free of memory allocated before. VARIANT "short": the device list
 * says 2 and holds 1 (the record is dropped). */
static void scenario_attached(struct writer *w, const char *variant)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    uintptr_t s1[] = {site_a.address, site_main.address};
    int short_list = !strcmp(variant, "short");
    standard_start(w);
    vt_encode_ATTACH(&o, &(struct vt_rec_ATTACH){.time_ns = next_time(w), .tid = 77,
                                                 .devices = short_list ? 2 : 1},
                     1);
    vt_encode_ATTACH_DEVICE(&o,
                            &(struct vt_rec_ATTACH_DEVICE){.device = 0,
                                                           .free_bytes = 1024 * MiB - 3 * MiB,
                                                           .total_bytes = 1024 * MiB},
                            1);
    if (!short_list) {
        vt_encode_ATTACH_ROUTES(&o, &(struct vt_rec_ATTACH_ROUTES){.routes = 1}, 1);
        vt_encode_ATTACH_ROUTE(
            &o, &(struct vt_rec_ATTACH_ROUTE){.what = "the driver functions libcudart.so.13 fetched"},
            1);
    }
    record(w, VT_REC_ATTACH, &p);
    stack_record(w, 1, 2, s1);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    free_record(w, 0x900000, VT_API_cudaFree, VT_FREE_UNTRACED);
    struct buf e = {0};
    vt_encode_END(&(struct field_out){w, &e},
                  &(struct vt_rec_END){.time_ns = next_time(w), .reason = VT_END_DETACHED, .live = 1},
                  0);
    record(w, VT_REC_END, &e);
}

/* PHASE: an NVTX range's name. */
static void phase_record(struct writer *w, uint64_t id, const char *name)
{
    struct buf p = {0};
    vt_encode_PHASE(&(struct field_out){w, &p}, &(struct vt_rec_PHASE){.id = id, .name = name}, 1);
    record(w, VT_REC_PHASE, &p);
}

/* Ten steps keeping 1 MiB each (stack 1) inside NVTX range 1 "forward",
 * a marker after each, and 4 MiB made once outside any range (stack 2).
 * VARIANT "undefined": the first kept allocation names phase 2, never defined;
 * "zero": a PHASE record of id 0 before them. */
static void scenario_phases(struct writer *w, const char *variant)
{
    uintptr_t stacks[2][2] = {{site_a.address, site_main.address},
                              {site_b.address, site_main.address}};
    standard_start(w);
    for (uint64_t id = 1; id <= 2; id++)
        stack_record(w, id, 2, stacks[id - 1]);
    if (!strcmp(variant, "zero"))
        phase_record(w, 0, "nothing");
    phase_record(w, 1, "forward");
    alloc_record(w, 0x20000000, 4 * MiB, 2, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    for (uint64_t step = 0; step < 10; step++) {
        struct buf p = {0};
        struct vt_rec_ALLOC rec = {
            .time_ns = next_time(w), .address = 0x10000000 + step * MiB, .size = MiB, .stack = 1,
            .api = VT_API_cudaMalloc, .kind_flags = VT_KIND_DEVICE, .tid = 77,
            .phase = strcmp(variant, "undefined") || step ? 1 : 2,
        };
        vt_encode_ALLOC(&(struct field_out){w, &p}, &rec, 1);
        record(w, VT_REC_ALLOC, &p);
        mark_record(w, "step");
    }
    end_record(w, 11);
}

/* CACHE_SEGMENT: the allocation at ADDRESS is a segment of the cache. */
static void cache_segment_record(struct writer *w, uint64_t address)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    vt_encode_CACHE_SEGMENT(&o, &(struct vt_rec_CACHE_SEGMENT){.address = address, .flags = 0},
                            1);
    record(w, VT_REC_CACHE_SEGMENT, &p);
}

/* Ten steps, a marker after each: a 2 MiB segment of the cache (stack 1)
 * and a 1 MiB tensor kept in it (stack 2) every step, each segment named
 * by a CACHE_SEGMENT record unless VARIANT is "unnamed". */
static void scenario_cache_grows(struct writer *w, const char *variant)
{
    standard_start(w);
    uintptr_t s1[] = {site_a.address, site_main.address};
    uintptr_t s2[] = {site_b.address, site_main.address};
    stack_record(w, 1, 2, s1);
    stack_record(w, 2, 2, s2);
    for (uint64_t step = 0; step < 10; step++) {
        uint64_t segment = 0x10000000 + step * 2 * MiB;
        alloc_record(w, segment, 2 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
        if (strcmp(variant, "unnamed") != 0)
            cache_segment_record(w, segment);
        alloc_record(w, segment, 1 * MiB, 2, VT_API_torchTensorAlloc, VT_KIND_DEVICE, 0);
        mark_record(w, "step");
    }
    end_record(w, 20);
}

/* PyTorch's cache with its tensors traced: a 20 MiB segment (stack 1),
 * two 4 MiB tensors in it (stack 2; the first at the segment's own
 * address), the first freed; a FRAMEWORK record of STATE (VARIANT
 * "unverified": 1, release 9.9; "badstate": 7). Device peak: 20 MiB. */
static void scenario_tensors(struct writer *w, const char *variant)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    standard_start(w);
    uintptr_t s1[] = {site_a.address, site_main.address};
    uintptr_t s2[] = {site_b.address, site_main.address};
    unsigned state = !strcmp(variant, "unverified") ? VT_FRAMEWORK_NOT_VERIFIED
                     : !strcmp(variant, "badstate") ? 7
                                                    : VT_FRAMEWORK_TENSORS;
    vt_encode_FRAMEWORK(&o,
                        &(struct vt_rec_FRAMEWORK){.name = "PyTorch",
                                                   .version = state == VT_FRAMEWORK_TENSORS
                                                                  ? "2.15"
                                                                  : "9.9",
                                                   .state = state},
                        1);
    record(w, VT_REC_FRAMEWORK, &p);
    stack_record(w, 1, 2, s1);
    stack_record(w, 2, 2, s2);
    alloc_record(w, 0x10000000, 20 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x10000000, 4 * MiB, 2, VT_API_torchTensorAlloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x10400000, 4 * MiB, 2, VT_API_torchTensorAlloc, VT_KIND_DEVICE, 0);
    free_record(w, 0x10000000, VT_API_torchTensorFree, VT_FREE_OK);
    end_record(w, 2);
}

static void scenario_noleak(struct writer *w)
{
    standard_start(w);
    uintptr_t s1[] = {site_a.address, site_main.address};
    stack_record(w, 1, 2, s1);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x2000, 2 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    free_record(w, 0x1000, VT_API_cudaFree, VT_FREE_OK);
    free_record(w, 0x2000, VT_API_cudaFree, VT_FREE_OK);
    end_record(w, 0);
}

/* Runtime frames on top of the program's: a static runtime inside this
 * executable (stack 1, recorded as the driver call) and libcudart.so
 * (stack 2). Both must start at user_alloc_site, both as cudaMalloc. */
static void scenario_trim(struct writer *w)
{
    static const uint8_t no_id[1];
    standard_start(w);
    module_record(w, 2, FAKE_CUDART_BASE, FAKE_CUDART_BASE, FAKE_CUDART_BASE + 0x100000,
                  FAKE_CUDART_PATH, no_id, 0);
    uintptr_t s1[] = {site_fake_internal.address, site_fake_cudamalloc.address,
                      site_user_alloc.address, site_main.address};
    uintptr_t s2[] = {FAKE_CUDART_BASE + 0x1234, FAKE_CUDART_BASE + 0x5678,
                      site_user_alloc.address, site_main.address};
    stack_record(w, 1, 4, s1);
    stack_record(w, 2, 4, s2);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cuMemAlloc, VT_KIND_DEVICE, 0);
    alloc_record(w, 0x2000000, 2 * MiB, 2, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    end_record(w, 2);
}

/* Frames that cannot be symbolized: this executable recorded with another
 * build id, and a library that is not on this machine. */
static void scenario_badmodules(struct writer *w)
{
    static const uint8_t some_id[4] = {1, 2, 3, 4};
    static const char *const argv[] = {"fake"};
    header(w, VT_VERSION_EVENTS, VT_MAGIC);
    process_record(w, "/usr/bin/fake", 1, argv);
    self_module_record(w, 1, true);
    module_record(w, 2, FAKE_LIB_BASE, FAKE_LIB_BASE, FAKE_LIB_BASE + 0x10000, FAKE_LIB_PATH,
                  some_id, sizeof some_id);
    uintptr_t s1[] = {site_a.address, FAKE_LIB_BASE + 0x1000, FAKE_LIB_BASE + 0x2000, 0x10};
    stack_record(w, 1, 4, s1);
    alloc_record(w, 0x1000, 1 * MiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    end_record(w, 1);
}

/* Strings no JSON writer should pass through raw. */
static void scenario_strings(struct writer *w)
{
    static const char *const argv[] = {"q\"uote\\back", "ctl\x01\x1f\x7f\ttab\nnl",
                                       "bad\xff\xfeutf8\xc3", "ok-\xc3\xa9\xe2\x82\xac"};
    header(w, VT_VERSION_EVENTS, VT_MAGIC);
    process_record(w, "/tmp/\xff\x80weird exe", 4, argv);
    self_module_record(w, 1, false);
    end_record(w, 0);
}

/* N allocations, a tenth of them never freed. */
static void scenario_big(struct writer *w, uint64_t n)
{
    standard_start(w);
    uintptr_t s1[] = {site_a.address, site_main.address};
    uintptr_t s2[] = {site_b.address, site_main.address};
    stack_record(w, 1, 2, s1);
    stack_record(w, 2, 2, s2);
    for (uint64_t i = 0; i < n; i++) {
        uint64_t address = 0x700000000000ull + (i % 1000) * 0x100000 + (i / 1000) * 0x10;
        bool leak = i % 10 == 0;
        alloc_record(w, address, 4096, leak ? 2 : 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
        if (!leak)
            free_record(w, address, VT_API_cudaFree, VT_FREE_OK);
    }
    end_record(w, n / 10);
}

/* N call sites, each its own frame in a library that is not on this
 * machine (symbolized "?? libfoo.so+0xOFFSET"): site i (1..N) leaves one
 * allocation of 4096 x i bytes, so the top sites by live bytes are N, N-1, ... */
static void scenario_sites(struct writer *w, uint64_t n)
{
    static const uint8_t no_id[1];
    standard_start(w);
    module_record(w, 2, FAKE_LIB_BASE, FAKE_LIB_BASE, FAKE_LIB_BASE + 0x10 * (n + 1), FAKE_LIB_PATH,
                  no_id, 0);
    uint64_t allocations = 0;
    for (uint64_t i = 1; i <= n; i++) {
        uintptr_t frames[] = {FAKE_LIB_BASE + 0x10 * i, site_main.address};
        stack_record(w, i, 2, frames);
        alloc_record(w, 0x700000000000ull + i * 0x100000, 4096 * i, i, VT_API_cudaMalloc,
                     VT_KIND_DEVICE, 0);
        allocations++;
    }
    end_record(w, allocations);
}

/* Fields that claim far more than the record holds. */
static void scenario_lying(struct writer *w, const char *what)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    header(w, VT_VERSION_EVENTS, VT_MAGIC);
    if (!strcmp(what, "frames")) {
        vt_encode_STACK(&o, &(struct vt_rec_STACK){.id = 1, .frames = 1ull << 62}, 1);
        vt_encode_STACK_FRAME(&o, &(struct vt_rec_STACK_FRAME){.delta = 1}, 1);
        vt_encode_STACK_FRAME(&o, &(struct vt_rec_STACK_FRAME){.delta = 1}, 1);
        record(w, VT_REC_STACK, &p);
    } else if (!strcmp(what, "string")) {   /* a length no encoder writes */
        for (int i = 0; i < 4; i++)
            put_varint(&p, 1);
        put_varint(&p, 1ull << 40);   /* exe path length */
        put(&p, "abc", 3);
        record(w, VT_REC_PROCESS, &p);
    } else if (!strcmp(what, "argc")) {
        struct vt_rec_PROCESS head = {.pid = 1, .ppid = 1, .start_real_ns = 1, .start_mono_ns = 1,
                                      .exe = "/x", .hostname = "h", .argc = 1ull << 50};
        vt_encode_PROCESS(&o, &head, 1);
        vt_encode_PROCESS_ARG(&o, &(struct vt_rec_PROCESS_ARG){.arg = "a"}, 1);
        record(w, VT_REC_PROCESS, &p);
    } else if (!strcmp(what, "record")) {
        put_u8(&w->out, VT_REC_STACK);
        put_varint(&w->out, 1ull << 60);   /* record length */
        put(&w->out, "\x01\x01\x02", 3);
    } else if (!strcmp(what, "varint")) {
        put_u8(&w->out, VT_REC_STACK);
        put(&w->out, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12);
    } else if (!strcmp(what, "badfree")) {   /* a refused free's stack never defined */
        struct vt_rec_BAD_FREE rec = {
            .time_ns = next_time(w), .address = 0x1000, .api = VT_API_cudaFree, .tid = 1,
            .error = 1, .stack = 7,
        };
        vt_encode_BAD_FREE(&o, &rec, 1);
        record(w, VT_REC_BAD_FREE, &p);
    } else {   /* "stackref": an event naming a stack never defined */
        alloc_record(w, 0x1000, 1, 9, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
        end_record(w, 1);
    }
}

/* ---- devices: identity, the driver's view, NVML's at an OOM error ---- */

/* A GPU as older tracers wrote it (no appended fields), or with
 * PARENT_UUID_LEN a MIG device of a GPU (its UUID 0xf0, 0xe0, ...). */
static void device_record(struct writer *w, int64_t device, size_t uuid_len,
                          size_t parent_uuid_len)
{
    struct buf p = {0};
    uint8_t uuid[17], parent[17];
    for (int i = 0; i < 17; i++) {
        uuid[i] = (uint8_t)(0x10 * i + device);
        parent[i] = (uint8_t)(0xf0 - 0x10 * i);
    }
    struct vt_rec_DEVICE rec = {
        .device = device, .uuid = {uuid, uuid_len}, .pci_bus_id = "0000:65:00.0",
        .name = parent_uuid_len ? "Test GPU 80GB MIG 3g.40gb" : "Test GPU 80GB",
        .total_bytes = (parent_uuid_len ? 40 : 80) * GiB, .flags = VT_DEVICE_MIG,
        .parent_uuid = {parent, parent_uuid_len}, .parent_name = "Test GPU 80GB",
    };
    vt_encode_DEVICE(&(struct field_out){w, &p}, &rec, parent_uuid_len != 0);
    record(w, VT_REC_DEVICE, &p);
}

/* plus1 arguments: the value + 1, 0 for unknown, as the record holds them */
static void device_usage_record(struct writer *w, uint64_t time_ns, unsigned reason,
                                uint64_t free_bytes, uint64_t own_plus1, uint64_t others_plus1,
                                uint64_t others)
{
    struct buf p = {0};
    struct vt_rec_DEVICE_USAGE rec = {
        .time_ns = time_ns, .reason = reason, .device = 0, .free_bytes = free_bytes,
        .total_bytes = 80 * GiB, .own_plus1 = own_plus1, .others_plus1 = others_plus1,
        .others = others,
    };
    vt_encode_DEVICE_USAGE(&(struct field_out){w, &p}, &rec, 0);   /* no traced bytes */
    record(w, VT_REC_DEVICE_USAGE, &p);
}

/* An out-of-memory error with NVML's view: this process, two others. */
static void failed_with_processes(struct writer *w)
{
    struct buf p = {0};
    struct field_out o = {w, &p};
    struct vt_rec_FAILED rec = failed_head(w, 16 * GiB, 1, VT_API_cudaMalloc, 0, 2);
    const struct vt_rec_FAILED_PROCESS others[] = {
        {.pid = 4242, .used_plus1 = 8 * GiB + 1, .state = 'S', .flags = VT_PROCESS_ORPHANED,
         .comm = {(const uint8_t *)"python", 6}},
        {.pid = 77, .used_plus1 = 0 /* NVML did not say */, .state = 0 /* not in our /proc */,
         .flags = 0, .comm = {(const uint8_t *)"", 0}},
    };
    rec.mem_free = 40 * GiB;   /* the driver's free, total */
    rec.mem_total = 80 * GiB;
    rec.own_plus1 = 31 * GiB + 512 * MiB + 1;   /* this process */
    rec.others = 2;
    vt_encode_FAILED(&o, &rec, 1);
    for (size_t i = 0; i < 2; i++)
        vt_encode_FAILED_PROCESS(&o, &others[i], 1);
    record(w, VT_REC_FAILED, &p);
}

/* 31 GiB traced on an 80 GiB GPU with 40 GiB used: + 512 MiB this process
 * outside the traced calls + 8.5 GiB others (8 GiB listed by NVML). The
 * exit's view at 20 ns; "idle": 2 s after the last event, as a process
 * that idles before it exits; "future-usage": an hour after, which its
 * END record (30 ns) says the process's clock never reached. */
static void scenario_devices(struct writer *w, const char *variant)
{
    uintptr_t s1[] = {site_a.address, site_main.address};
    standard_start(w);
    stack_record(w, 1, 2, s1);
    device_record(w, 0, !strcmp(variant, "bad-uuid") ? 17 : 16,
                  !strcmp(variant, "mig") ? 16 : !strcmp(variant, "bad-parent-uuid") ? 15 : 0);
    alloc_record(w, 0x1000, 31 * GiB, 1, VT_API_cudaMalloc, VT_KIND_DEVICE, 0);
    device_usage_record(w, 20, VT_USAGE_START, 48 * GiB, 31 * GiB + 1, 0, 0);
    failed_with_processes(w);
    uint64_t exit_ns = !strcmp(variant, "idle")           ? w->time_ns + 2000000000ull
                       : !strcmp(variant, "future-usage") ? 3600000000000ull
                                                          : 20;
    device_usage_record(w, exit_ns,
                        !strcmp(variant, "bad-reason") ? VT_USAGE_REASON_COUNT : VT_USAGE_EXIT,
                        !strcmp(variant, "free-over-total") ? 81 * GiB : 40 * GiB,
                        31 * GiB + 512 * MiB + 1, 8 * GiB + 1, 2);
    end_record_at(w, 1, !strcmp(variant, "idle") ? exit_ns + 10 : next_time(w));
}

static void write_expectations(const char *path)
{
    const struct site *sites[] = {&site_main, &site_a, &site_b, &site_inline_helper,
                                  &site_inlining, &site_fake_internal, &site_fake_cudamalloc,
                                  &site_user_alloc};
    const char *names[] = {"main", "site_a", "site_b", "inline_helper", "inlining_site",
                           "fake_internal", "fake_cudamalloc", "user_alloc"};
    char name[4200];
    snprintf(name, sizeof name, "%s.expect.json", path);
    FILE *f = fopen(name, "w");
    if (!f) {
        perror(name);
        exit(1);
    }
    fprintf(f, "{\"module\": \"%s\", \"bias\": %llu", self.path, (unsigned long long)self.bias);
    for (size_t i = 0; i < sizeof sites / sizeof sites[0]; i++)
        fprintf(f, ",\n \"%s\": {\"function\": \"%s\", \"line\": %u, \"address\": %llu}", names[i],
                sites[i]->function, sites[i]->line, (unsigned long long)sites[i]->address);
    fputs("}\n", f);
    fclose(f);
}

static bool build(struct writer *w, const char *scenario, uint64_t n)
{
    if (!strcmp(scenario, "basic"))
        scenario_basic(w, true, false);
    else if (!strncmp(scenario, "devices", 7))
        scenario_devices(w, scenario[7] == '-' ? scenario + 8 : "");
    else if (!strcmp(scenario, "noend"))
        scenario_basic(w, false, false);
    else if (!strcmp(scenario, "unknown-records"))
        scenario_basic(w, true, true);
    else if (!strcmp(scenario, "padded")) {
        static const uint8_t zeros[8192];
        scenario_basic(w, true, false);
        put(&w->out, zeros, sizeof zeros);
    } else if (!strcmp(scenario, "noleak"))
        scenario_noleak(w);
    else if (!strncmp(scenario, "behalf", 6))
        scenario_behalf(w, scenario[6] == '-' ? scenario + 7 : "");
    else if (!strncmp(scenario, "phases", 6))
        scenario_phases(w, scenario[6] == '-' ? scenario + 7 : "");
    else if (!strncmp(scenario, "cache-grows", 11))
        scenario_cache_grows(w, scenario[11] == '-' ? scenario + 12 : "");
    else if (!strncmp(scenario, "attached", 8))
        scenario_attached(w, scenario[8] == '-' ? scenario + 9 : "");
    else if (!strncmp(scenario, "tensors", 7))
        scenario_tensors(w, scenario[7] == '-' ? scenario + 8 : "");
    else if (!strcmp(scenario, "trim"))
        scenario_trim(w);
    else if (!strcmp(scenario, "badmodules"))
        scenario_badmodules(w);
    else if (!strcmp(scenario, "strings"))
        scenario_strings(w);
    else if (!strcmp(scenario, "big"))
        scenario_big(w, n);
    else if (!strcmp(scenario, "sites"))
        scenario_sites(w, n);
    else if (!strcmp(scenario, "future"))
        header(w, VT_VERSION + 1, VT_MAGIC);
    else if (!strcmp(scenario, "badmagic"))
        header(w, VT_VERSION_EVENTS, "VRAMTRX");
    else if (!strcmp(scenario, "header-only"))
        header(w, VT_VERSION_EVENTS, VT_MAGIC);
    else if (!strncmp(scenario, "lying-", 6))
        scenario_lying(w, scenario + 6);
    else
        return false;
    return true;
}

static char *expand_pid(const char *template)
{
    char *out = malloc(strlen(template) + 32), *o = out;
    for (const char *p = template; *p;) {
        if (p[0] == '%' && p[1] == 'p') {
            o += sprintf(o, "%d", (int)getpid());
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

static void write_file(const char *path, const struct buf *b, bool atomic)
{
    char tmp[4200];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    FILE *f = fopen(atomic ? tmp : path, "wb");
    if (!f || fwrite(b->data, 1, b->len, f) != b->len || fclose(f) != 0) {
        perror(path);
        exit(1);
    }
    if (atomic && rename(tmp, path) != 0) {
        perror(path);
        exit(1);
    }
}

/* As src/dump/manifest.c does for the dumps the library creates. */
static void add_to_manifest(const char *path)
{
    const char *manifest = getenv("VRAMTRACE_MANIFEST");
    char entry[8300], cwd[4096];
    if (!manifest || !*manifest)
        return;
    int n = path[0] == '/' ? snprintf(entry, sizeof entry, "%s", path)
                           : snprintf(entry, sizeof entry, "%s/%s",
                                      getcwd(cwd, sizeof cwd) ? cwd : ".", path);
    FILE *f = fopen(manifest, "ab");
    if (!f || fwrite(entry, 1, (size_t)n + 1, f) != (size_t)n + 1 || fclose(f) != 0) {
        perror(manifest);
        exit(1);
    }
}

int main(int argc, char **argv)
{
    CAPTURE(site_main, "main");
    bool atomic = argc > 1 && !strcmp(argv[1], "--atomic");
    argc -= atomic;
    argv += atomic;
    if (argc < 3) {
        fputs("usage: mkdump [--atomic] SCENARIO OUT [N]\n", stderr);
        return 2;
    }
    capture_sites();
    dl_iterate_phdr(find_main_program, &self);
    ssize_t len = readlink("/proc/self/exe", self.path, sizeof self.path - 1);
    if (len <= 0) {
        perror("/proc/self/exe");
        return 1;
    }
    self.path[len] = '\0';
    struct writer w = {0};
    if (!build(&w, argv[1], argc > 3 ? strtoull(argv[3], NULL, 10) : 1000)) {
        fprintf(stderr, "mkdump: unknown scenario %s\n", argv[1]);
        return 2;
    }
    char *out = expand_pid(argv[2]);
    write_file(out, &w.out, atomic);
    add_to_manifest(out);
    write_expectations(out);
    free(out);
    free(w.out.data);
    return 0;
}
/* SPDX-License-Identifier: MIT */
