/* SPDX-License-Identifier: MIT */
/* The functions behind include/vramtrace.h, exported under the same names so
 * the header's shim and ctypes find them with dlsym(RTLD_DEFAULT, ...). */
#include "format.h"
#include "marker.h"
#include "tracer.h"
#include "peaks.h"
#include "track.h"

#include <dlfcn.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SITES_SHOWN 5
#define FRAMES_SHOWN 4

VT_EXPORT int vramtrace_active(void)
{
    return vt_tracing();
}

VT_EXPORT uint64_t vramtrace_live_bytes(void)
{
    return vt_tracing() ? vt_track_live_bytes() : 0;
}

/* The checkpoint's peak is followed from now on (vramtrace_peak_since),
 * unless called from a signal handler that interrupted the tracer on this
 * thread: the lock cannot be taken there. */
VT_EXPORT uint64_t vramtrace_checkpoint(void)
{
    uint64_t seq;
    if (!vt_tracing())
        return 0;
    if (!vt_enter())
        return vt_track_checkpoint();
    seq = vt_track_checkpoint_followed();
    vt_leave();
    return seq;
}

VT_EXPORT uint64_t vramtrace_peak_since(uint64_t checkpoint)
{
    uint64_t peak = 0;
    bool followed;
    if (!vt_enter())
        return vt_tracing_started() ? VT_PEAK_UNKNOWN : 0;
    followed = vt_track_peak_since(checkpoint, &peak);
    vt_leave();
    return followed ? peak : VT_PEAK_UNKNOWN;
}

/* Walks the table under the lock: not from a signal handler that
 * interrupted a traced call on this thread (that would deadlock), which
 * gets 0. */
VT_EXPORT uint64_t vramtrace_leaked_since(uint64_t checkpoint)
{
    uint64_t bytes;
    if (!vt_enter())
        return 0;
    bytes = vt_track_bytes_since(checkpoint);
    vt_leave();
    return bytes;
}

VT_EXPORT void vramtrace_mark(const char *label)
{
    vt_marker_write(label);
}

/* Appends to BUF as snprintf would, counting what did not fit. */
struct text {
    char *buf;
    size_t len, used;
};

__attribute__((format(printf, 2, 3))) static void append(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = t->used < t->len ? t->len - t->used : 0;
    int n = vsnprintf(room ? t->buf + t->used : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        t->used += (size_t)n;
}

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The CUDA runtime and driver between the program and the tracer. */
static int in_cuda_runtime(uintptr_t address)
{
    Dl_info info;
    if (!dladdr((void *)(address - 1), &info) || !info.dli_fname)
        return 0;
    const char *base = basename_of(info.dli_fname);
    return !strncmp(base, "libcudart", 9) || !strncmp(base, "libcuda.so", 10);
}

/* "plugin_leak (libleakplugin.so+0x1139)"; addresses are return addresses. */
static void append_frame(struct text *t, uintptr_t address)
{
    Dl_info info;
    if (!dladdr((void *)(address - 1), &info) || !info.dli_fname) {
        append(t, "0x%lx", (unsigned long)address);
        return;
    }
    if (info.dli_sname)
        append(t, "%s (", info.dli_sname);
    append(t, "%s+0x%lx%s", basename_of(info.dli_fname),
           (unsigned long)(address - (uintptr_t)info.dli_fbase), info.dli_sname ? ")" : "");
}

static void append_site(struct text *t, const struct vt_site_total *site)
{
    int first = 0, shown = 0;
    while (first < site->nframes - 1 && in_cuda_runtime(site->frames[first]))
        first++;
    append(t, "%llu bytes in %llu allocation%s at ", (unsigned long long)site->bytes,
           (unsigned long long)site->allocations, site->allocations == 1 ? "" : "s");
    for (int i = first; i < site->nframes && shown < FRAMES_SHOWN; i++, shown++) {
        if (shown)
            append(t, " <- ");
        append_frame(t, site->frames[i]);
    }
    append(t, "%s\n", shown ? "" : "(no stack recorded)");
}

/* The largest live allocations since CHECKPOINT, one line per call site,
 * innermost frames first, into BUF (NUL-terminated, cut to LEN). Returns
 * the length the whole text needs, as snprintf does. The symbols come from
 * dladdr, outside the lock: dladdr takes the loader's lock, which a thread
 * in dlopen may hold while it calls into CUDA and waits for ours. */
VT_EXPORT size_t vramtrace_leak_sites_since(uint64_t checkpoint, char *buf, size_t len)
{
    struct vt_site_total sites[SITES_SHOWN];
    struct text t = {buf, len, 0};
    size_t n = vt_tracing() ? vt_track_sites_since(checkpoint, sites, SITES_SHOWN) : 0;
    if (len)
        buf[0] = '\0';
    for (size_t i = 0; i < n; i++)
        append_site(&t, &sites[i]);
    return t.used;
}
