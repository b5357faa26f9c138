/* SPDX-License-Identifier: MIT */
/* NVTX ranges as step markers: libvramtrace.so is also an NVTX injection
 * library (NVTX v3's documented interface: the NVTX copy inside a program
 * dlopens NVTX_INJECTION64_PATH at its first call and hands
 * InitializeInjectionNvtx2 its export table, whose slots we fill). With
 * VRAMTRACE_NVTX_MARK=NAME, each end of a range named NAME, pushed and
 * popped or started and ended, in any domain, writes the marker
 * vramtrace_mark(NAME) writes. Without it nothing is installed: NVTX keeps
 * its no-ops.
 *
 * The program sees what it sees without a tool: pushes and pops return
 * NVTX_NO_PUSH_POP_TRACKING, ranges other than NAME the id 0, strings other
 * than NAME the handle NULL. A range that is not NAME costs a compare and,
 * pushed, one entry of this thread's stack; nothing is allocated. */
#include "config.h"
#include "marker.h"
#include "nvtx_abi.h"
#include "resolve.h"
#include "tracing.h"
#include "warn.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <wchar.h>

#define NAME_MAX_BYTES 256
static char mark_name[NAME_MAX_BYTES];
static wchar_t mark_wide[NAME_MAX_BYTES]; /* NAME decoded from UTF-8 ("" if not UTF-8) */

/* The handle of NAME registered as a string: only compared, never read. */
static char name_string;

/* Ids of ranges named NAME carry this tag; other ranges get 0 (as without
 * a tool), so an end is ours by its id alone, on any thread. */
#define RANGE_TAG 0x5654000000000000ull /* "VT" */
#define RANGE_TAG_MASK 0xffff000000000000ull
static uint64_t ranges_started;

/* Domain handles: distinct even numbers (bit 0 is free for a push entry's
 * NAME bit), never dereferenced by NVTX or by us. */
static uintptr_t domains_created;

/* This thread's pushed ranges, innermost last: the domain, bit 0 set when
 * named NAME. Pushes deeper than PUSH_DEPTH are counted only (their pops
 * mark nothing). */
#define PUSH_DEPTH 64
struct pushes {
    unsigned depth;
    uintptr_t entry[PUSH_DEPTH];
};
static __thread struct pushes pushes;

static int utf8_to_wide(const char *s, wchar_t *out, size_t room)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t n = 0;
    while (*p && n + 1 < room) {
        unsigned c = *p++, more = c < 0x80 ? 0 : c >= 0xf0 ? 3 : c >= 0xe0 ? 2 : c >= 0xc0 ? 1 : 9;
        if (more == 9)
            return -1;
        c &= more ? 0x3fu >> more : 0x7fu;
        for (; more; more--, p++) {
            if ((*p & 0xc0) != 0x80)
                return -1;
            c = c << 6 | (*p & 0x3fu);
        }
        out[n++] = (wchar_t)c;
    }
    out[n] = 0;
    return *p ? -1 : 0;
}

static int is_name(const char *message)
{
    return message && message[0] == mark_name[0] && strcmp(message, mark_name) == 0;
}

static int is_wide_name(const wchar_t *message)
{
    return message && mark_wide[0] && message[0] == mark_wide[0] && wcscmp(message, mark_wide) == 0;
}

/* An event attribute's message, as far as the caller's struct has one. */
static int attributes_name(const nvtxEventAttributes_t *attr)
{
    if (!attr || attr->size < offsetof(nvtxEventAttributes_t, message) + sizeof attr->message)
        return 0;
    switch (attr->messageType) {
    case NVTX_MESSAGE_TYPE_ASCII:
        return is_name(attr->message.ascii);
    case NVTX_MESSAGE_TYPE_UNICODE:
        return is_wide_name(attr->message.unicode);
    case NVTX_MESSAGE_TYPE_REGISTERED:
        return attr->message.registered == (nvtxStringHandle_t)(void *)&name_string;
    default:
        return 0;
    }
}

/* ---- push and pop ---- */

static int push(nvtxDomainHandle_t domain, int named)
{
    struct pushes *p = &pushes;
    if (p->depth < PUSH_DEPTH)
        p->entry[p->depth] = (uintptr_t)domain | (uintptr_t)(named != 0);
    p->depth++;
    return NVTX_NO_PUSH_POP_TRACKING;
}

/* The entry of DOMAIN's innermost push below TOP, taken out of the stack
 * (pops of several domains interleaved); 0 when DOMAIN has none there. */
static uintptr_t take_below(struct pushes *p, unsigned top, uintptr_t domain)
{
    for (unsigned i = top; i-- > 0;)
        if ((p->entry[i] & ~(uintptr_t)1) == domain) {
            uintptr_t found = p->entry[i];
            memmove(&p->entry[i], &p->entry[i + 1], (top - i) * sizeof p->entry[0]);
            return found;
        }
    p->depth++; /* nothing of DOMAIN was pushed: an unbalanced pop, no change */
    return 0;
}

static int pop(nvtxDomainHandle_t domain)
{
    struct pushes *p = &pushes;
    uintptr_t entry;
    if (!p->depth)
        return NVTX_NO_PUSH_POP_TRACKING;
    if (--p->depth >= PUSH_DEPTH)
        return NVTX_NO_PUSH_POP_TRACKING;
    entry = p->entry[p->depth];
    if ((entry & ~(uintptr_t)1) != (uintptr_t)domain)
        entry = take_below(p, p->depth, (uintptr_t)domain);
    if (entry & 1)
        vt_marker_write(mark_name);
    return NVTX_NO_PUSH_POP_TRACKING;
}

static int push_a(const char *message)
{
    return push(NULL, is_name(message));
}

static int push_w(const wchar_t *message)
{
    return push(NULL, is_wide_name(message));
}

static int push_ex(const nvtxEventAttributes_t *attr)
{
    return push(NULL, attributes_name(attr));
}

static int pop_default(void)
{
    return pop(NULL);
}

static int domain_push_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    return push(domain, attributes_name(attr));
}

/* ---- start and end ---- */

static nvtxRangeId_t start(int named)
{
    if (!named)
        return 0;
    return RANGE_TAG | (__atomic_add_fetch(&ranges_started, 1, __ATOMIC_RELAXED) & ~RANGE_TAG_MASK);
}

static void end(nvtxRangeId_t id)
{
    if ((id & RANGE_TAG_MASK) == RANGE_TAG)
        vt_marker_write(mark_name);
}

static nvtxRangeId_t start_a(const char *message)
{
    return start(is_name(message));
}

static nvtxRangeId_t start_w(const wchar_t *message)
{
    return start(is_wide_name(message));
}

static nvtxRangeId_t start_ex(const nvtxEventAttributes_t *attr)
{
    return start(attributes_name(attr));
}

static nvtxRangeId_t domain_start_ex(nvtxDomainHandle_t domain, const nvtxEventAttributes_t *attr)
{
    (void)domain;
    return start(attributes_name(attr));
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

static nvtxStringHandle_t register_string_a(nvtxDomainHandle_t domain, const char *string)
{
    (void)domain;
    return is_name(string) ? (nvtxStringHandle_t)(void *)&name_string : NULL;
}

static nvtxStringHandle_t register_string_w(nvtxDomainHandle_t domain, const wchar_t *string)
{
    (void)domain;
    return is_wide_name(string) ? (nvtxStringHandle_t)(void *)&name_string : NULL;
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

/* NAME from the environment (once: several NVTX copies may ask at once,
 * and the reason not to mark is said once). */
static int marking;
static pthread_once_t configure_once = PTHREAD_ONCE_INIT;

static void configure(void)
{
    const char *name = vt_config_nvtx_mark();
    if (!name)
        vt_warn("NVTX_INJECTION64_PATH names libvramtrace.so but VRAMTRACE_NVTX_MARK is not set: "
                "NVTX ranges are not markers");
    else if (strlen(name) >= sizeof mark_name)
        vt_warn("VRAMTRACE_NVTX_MARK is longer than %zu bytes: NVTX ranges are not markers",
                sizeof mark_name - 1);
    else if (!preloaded())
        vt_warn("NVTX_INJECTION64_PATH names libvramtrace.so, which is not preloaded "
                "(LD_PRELOAD): no CUDA call is traced, so NVTX ranges are not markers");
    else {
        strcpy(mark_name, name);
        if (utf8_to_wide(name, mark_wide, NAME_MAX_BYTES) < 0)
            mark_wide[0] = 0; /* no wide name can match */
        marking = 1;
    }
}

/* Each NVTX copy in the process (the program's, libtorch_python's, ...)
 * calls this once with its own export table. Returning 0 makes that copy
 * unload us (a no-op: -z nodelete) and keep its no-ops. */
VT_EXPORT int InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get_export_table)
{
    const NvtxExportTableCallbacks *callbacks;
    if (!get_export_table || pthread_once(&configure_once, configure) != 0 || !marking)
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
