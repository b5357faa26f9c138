/* SPDX-License-Identifier: MIT */
/* NVTX ranges as phases and step markers: libvramtrace.so is also an NVTX
 * injection library (NVTX v3's documented interface: the NVTX copy inside a
 * program dlopens NVTX_INJECTION64_PATH at its first call and hands
 * InitializeInjectionNvtx2 its export table, whose slots we fill).
 *
 * Phases: the innermost range pushed and not yet popped on a thread (push
 * and pop, any domain) is the phase of what that thread allocates; its
 * name's id is kept in the thread's state for the ALLOC record. Ranges
 * started and ended (nvtxRangeStart/End) are not phases: they may end on
 * another thread and overlap, so "the innermost" means nothing for them.
 * With VRAMTRACE_NVTX_MARK=NAME, each end of a range named NAME, pushed and
 * popped or started and ended, in any domain, also writes the marker
 * vramtrace_mark(NAME) writes.
 *
 * The program sees what it sees without a tool: pushes and pops return
 * NVTX_NO_PUSH_POP_TRACKING, ranges other than NAME the id 0. A pushed
 * range costs its name's lookup in the interned names and one entry of this
 * thread's stack; nothing is allocated. */
#include "config.h"
#include "marker.h"
#include "nvtx_hooks.h"
#include "nvtx_abi.h"
#include "phase_names.h"
#include "resolve.h"
#include "tracing.h"
#include "warn.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

/* The id of NAME's interned name: its ends are markers (0: no marker). */
static uint32_t mark_id;

/* Ids of started ranges named NAME carry this tag; other ranges get 0 (as
 * without a tool), so an end is ours by its id alone, on any thread. */
#define RANGE_TAG 0x5654000000000000ull /* "VT" */
#define RANGE_TAG_MASK 0xffff000000000000ull
static uint64_t ranges_started;

/* Domain handles: distinct numbers, never dereferenced by NVTX or by us. */
static uintptr_t domains_created;

/* This thread's pushed ranges are in its state (tracing.h): a domain's
 * number (its handle >> 4: 0 the default domain) << 32 | the name's id.
 * Pushes deeper than VT_NVTX_DEPTH are counted only (their pops mark
 * nothing, and the phase stays the deepest one kept). */
#define DOMAIN_OF(handle) ((uint64_t)(uintptr_t)(handle) >> 4 << 32)
#define ID_OF(entry) ((uint32_t)(entry))

/* A wide message in UTF-8 (cut at VT_PHASE_NAME_MAX bytes): its length. */
static size_t wide_to_utf8(const wchar_t *s, char *out)
{
    size_t n = 0;
    for (; *s; s++) {
        uint32_t c = (uint32_t)*s;
        unsigned more = c < 0x80 ? 0 : c < 0x800 ? 1 : c < 0x10000 ? 2 : 3;
        if (n + more + 1 > VT_PHASE_NAME_MAX)
            break;
        if (!more) {
            out[n++] = (char)c;
            continue;
        }
        out[n++] = (char)((0xf00u >> more) | (c >> (6 * more)));
        while (more--)
            out[n++] = (char)(0x80u | ((c >> (6 * more)) & 0x3fu));
    }
    return n;
}

static uint32_t ascii_id(const char *message)
{
    return message ? vt_phase_intern_string(message) : 0;
}

static uint32_t wide_id(const wchar_t *message)
{
    char utf8[VT_PHASE_NAME_MAX];
    return message ? vt_phase_intern(utf8, wide_to_utf8(message, utf8)) : 0;
}

/* A registered string's handle is its name's id. */
static uint32_t registered_id(nvtxStringHandle_t handle)
{
    uintptr_t id = (uintptr_t)(void *)handle;
    return id <= VT_PHASES_MAX ? (uint32_t)id : 0;
}

/* The id of an event attribute's message, as far as the caller's struct
 * has one; 0 none. */
static uint32_t attributes_id(const nvtxEventAttributes_t *attr)
{
    if (!attr || attr->size < offsetof(nvtxEventAttributes_t, message) + sizeof attr->message)
        return 0;
    switch (attr->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return ascii_id(attr->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return wide_id(attr->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return registered_id(attr->message.registered);
    default:
        return 0;
    }
}

/* ---- push and pop ---- */

static int push(nvtxDomainHandle_t domain, uint32_t id)
{
    struct vt_thread *t = &vt_thread_state;
    if (t->nvtx_depth < VT_NVTX_DEPTH) {
        t->nvtx_pushed[t->nvtx_depth] = DOMAIN_OF(domain) | id;
        t->phase = id;
    }
    t->nvtx_depth++;
    return NVTX_NO_PUSH_POP_TRACKING;
}

/* The entry of DOMAIN's innermost push below TOP, taken out of the stack
 * (pops of several domains interleaved); 0 when DOMAIN has none there. */
static uint64_t take_below(struct vt_thread *t, unsigned top, uint64_t domain)
{
    for (unsigned i = top; i-- > 0;)
        if ((t->nvtx_pushed[i] & ~(uint64_t)UINT32_MAX) == domain) {
            uint64_t found = t->nvtx_pushed[i];
            memmove(&t->nvtx_pushed[i], &t->nvtx_pushed[i + 1],
                    (top - i) * sizeof t->nvtx_pushed[0]);
            return found;
        }
    t->nvtx_depth++; /* nothing of DOMAIN was pushed: an unbalanced pop, no change */
    return 0;
}

static int pop(nvtxDomainHandle_t domain)
{
    struct vt_thread *t = &vt_thread_state;
    uint64_t entry;
    if (!t->nvtx_depth)
        return NVTX_NO_PUSH_POP_TRACKING;
    if (--t->nvtx_depth >= VT_NVTX_DEPTH)
        return NVTX_NO_PUSH_POP_TRACKING;
    entry = t->nvtx_pushed[t->nvtx_depth];
    if ((entry & ~(uint64_t)UINT32_MAX) != DOMAIN_OF(domain))
        entry = take_below(t, t->nvtx_depth, DOMAIN_OF(domain));
    t->phase = t->nvtx_depth ? ID_OF(t->nvtx_pushed[t->nvtx_depth - 1]) : 0;
    if (ID_OF(entry) == mark_id && mark_id)
        vt_marker_write(vt_phase_name(mark_id));
    return NVTX_NO_PUSH_POP_TRACKING;
}

static int push_a(const char *message)
{
    return push(NULL, ascii_id(message));
}

static int push_w(const wchar_t *message)
{
    return push(NULL, wide_id(message));
}

static int push_ex(const nvtxEventAttributes_t *attr)
{
    return push(NULL, attributes_id(attr));
}

static int pop_default(void)
{
    return pop(NULL);
}

static int domain_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    return push(domain, attributes_id(attr));
}

/* ---- start and end: markers only ---- */

static nvtxRangeId_t start(uint32_t id)
{
    if (id != mark_id || !id)
        return 0;
    return RANGE_TAG | (__atomic_add_fetch(&ranges_started, 1, __ATOMIC_RELAXED) & ~RANGE_TAG_MASK);
}

static void end(nvtxRangeId_t id)
{
    if ((id & RANGE_TAG_MASK) == RANGE_TAG)
        vt_marker_write(vt_phase_name(mark_id));
}

/* Without a marker's name no started range is looked up. */
static nvtxRangeId_t start_a(const char *message)
{
    return mark_id ? start(ascii_id(message)) : 0;
}

static nvtxRangeId_t start_w(const wchar_t *message)
{
    return mark_id ? start(wide_id(message)) : 0;
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *attr)
{
    return mark_id ? start(attributes_id(attr)) : 0;
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    (void)domain;
    return start_ex(attr);
}

static void domain_end(nvtxDomainHandle_t domain, nvtxRangeId_t id)
{
    (void)domain;
    end(id);
}

/* ---- domains and registered strings ---- */

static nvtxDomainHandle_t new_domain(void)
{
    uintptr_t n = __atomic_add_fetch(&domains_created, 1, __ATOMIC_RELAXED);
    return (nvtxDomainHandle_t)(void *)(n << 4);
}

static nvtxDomainHandle_t domain_create_a(const char *name)
{
    (void)name;
    return new_domain();
}

static nvtxDomainHandle_t domain_create_w(const wchar_t *name)
{
    (void)name;
    return new_domain();
}

/* The handle is the name's id (NULL, as without a tool, when the table of
 * names is full). */
static nvtxStringHandle_t register_string_a(nvtxDomainHandle_t domain, const char *string)
{
    (void)domain;
    return (nvtxStringHandle_t)(void *)(uintptr_t)ascii_id(string);
}

static nvtxStringHandle_t register_string_w(nvtxDomainHandle_t domain, const wchar_t *string)
{
    (void)domain;
    return (nvtxStringHandle_t)(void *)(uintptr_t)wide_id(string);
}

/* ---- the injection ---- */

VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table);

struct slot {
    unsigned id;
    NvtxFunctionPointer fn;
};

#define SLOT(id, fn)                    \
    {                                   \
        (id), (NvtxFunctionPointer)(fn) \
    }

static const struct slot core_slots[] = {
    SLOT(NVTX_CBID_CORE_RangeStartEx, start_ex), SLOT(NVTX_CBID_CORE_RangeStartA, start_a),
    SLOT(NVTX_CBID_CORE_RangeStartW, start_w),   SLOT(NVTX_CBID_CORE_RangeEnd, end),
    SLOT(NVTX_CBID_CORE_RangePushEx, push_ex),   SLOT(NVTX_CBID_CORE_RangePushA, push_a),
    SLOT(NVTX_CBID_CORE_RangePushW, push_w),     SLOT(NVTX_CBID_CORE_RangePop, pop_default),
};

static const struct slot core2_slots[] = {
    SLOT(NVTX_CBID_CORE2_DomainRangeStartEx, domain_start_ex),
    SLOT(NVTX_CBID_CORE2_DomainRangeEnd, domain_end),
    SLOT(NVTX_CBID_CORE2_DomainRangePushEx, domain_push_ex),
    SLOT(NVTX_CBID_CORE2_DomainRangePop, pop),
    SLOT(NVTX_CBID_CORE2_DomainRegisterStringA, register_string_a),
    SLOT(NVTX_CBID_CORE2_DomainRegisterStringW, register_string_w),
    SLOT(NVTX_CBID_CORE2_DomainCreateA, domain_create_a),
    SLOT(NVTX_CBID_CORE2_DomainCreateW, domain_create_w),
};

/* Fills MODULE's slots; 0 when that NVTX copy has no such table. */
static int install(const NvtxExportTableCallbacks *callbacks, NvtxCallbackModule module,
                   const struct slot *slots, size_t count)
{
    NvtxFunctionTable table = NULL;
    unsigned size = 0;
    if (!callbacks->GetModuleFunctionTable(module, &table, &size) || !table)
        return 0;
    for (size_t i = 0; i < count; i++)
        if (slots[i].id < size && table[slots[i].id])
            *table[slots[i].id] = slots[i].fn;
    return 1;
}

/* 1 when this library is in the process's global scope (preloaded, or
 * linked): its hooks see the program's CUDA calls. Loaded only by NVTX's
 * dlopen, it would write markers beside no allocation at all. The main
 * program's handle looks in the global scope only (RTLD_DEFAULT from here
 * would look in our own scope too, and find us). */
static int preloaded(void)
{
    vt_dlsym_fn real_dlsym = vt_real_dlsym();
    void *global = dlopen(NULL, RTLD_LAZY | RTLD_NOLOAD);
    void *p = real_dlsym && global ? real_dlsym(global, "InitializeInjectionNvtx2") : NULL;
    NvtxInitializeInjectionNvtxFunc_t found;
    memcpy(&found, &p, sizeof found);
    return found == InitializeInjectionNvtx2;
}

/* Whether to fill the slots, and NAME from the environment (once:
 * several NVTX copies may ask at once, and why not is said once). */
static int installing;
static pthread_once_t configure_once = PTHREAD_ONCE_INIT;

static void configure(void)
{
    const char *name = vt_config_nvtx_mark();
    if (!preloaded()) { /* said where markers were asked for (a launcher may drop LD_PRELOAD) */
        if (name)
            vt_warn("NVTX_INJECTION64_PATH names libvramtrace.so, which is not preloaded "
                    "(LD_PRELOAD): no CUDA call is traced, so NVTX ranges are neither phases nor "
                    "markers");
        return;
    }
    if (name && strlen(name) > VT_PHASE_NAME_MAX)
        vt_warn("VRAMTRACE_NVTX_MARK is longer than %d bytes: NVTX ranges are not markers",
                VT_PHASE_NAME_MAX);
    else if (name)
        mark_id = vt_phase_intern(name, strlen(name));
    installing = 1;
}

int vt_nvtx_installing(void)
{
    return pthread_once(&configure_once, configure) == 0 && installing;
}

/* Each NVTX copy in the process (the program's, libtorch_python's, ...)
 * calls this once with its own export table. Returning 0 makes that copy
 * unload us (a no-op: -z nodelete) and keep its no-ops. */
VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks *callbacks;
    if (!get_export_table || !vt_nvtx_installing())
        return 0;
    callbacks = (const NvtxExportTableCallbacks *)get_export_table(NVTX_ETID_CALLBACKS);
    if (!callbacks || callbacks->struct_size < sizeof *callbacks ||
        !callbacks->GetModuleFunctionTable)
        return 0;
    if (!install(callbacks, NVTX_CB_MODULE_CORE, core_slots,
                 sizeof core_slots / sizeof core_slots[0]))
        return 0;
    install(callbacks, NVTX_CB_MODULE_CORE2, core2_slots,
            sizeof core2_slots / sizeof core2_slots[0]);
    return 1;
}
