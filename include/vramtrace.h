/* SPDX-License-Identifier: MIT */
/* vramtrace: the C API for programs and tests (C, C++, and ctypes).
 *
 * Every function answers safely when the tracer is not loaded: 0, or a
 * no-op. Nothing to link: the inline functions below find the tracer at run
 * time with dlsym(RTLD_DEFAULT, ...), so a program built with this header runs
 * unchanged with and without LD_PRELOAD=libvramtrace.so. From ctypes, call
 * the same names on ctypes.CDLL(None) when the tracer is loaded.
 *
 * Link with -ldl on glibc older than 2.34 (dlsym moved into libc there);
 * `pkg-config --libs vramtrace` says so where it is needed.
 */
#ifndef VRAMTRACE_H
#define VRAMTRACE_H

#include <dlfcn.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static inline void *vramtrace__lookup(const char *name)
{
    return dlsym(RTLD_DEFAULT, name);
}

/* 1 when allocations are being traced in this process, else 0. */
static inline int vramtrace_active(void)
{
    int (*f)(void) = (int (*)(void))vramtrace__lookup("vramtrace_active");
    return f ? f() : 0;
}

/* Live traced device + managed bytes now. */
static inline uint64_t vramtrace_live_bytes(void)
{
    uint64_t (*f)(void) = (uint64_t (*)(void))vramtrace__lookup("vramtrace_live_bytes");
    return f ? f() : 0;
}

/* An opaque token for "now", for vramtrace_leaked_since(). */
static inline uint64_t vramtrace_checkpoint(void)
{
    uint64_t (*f)(void) = (uint64_t (*)(void))vramtrace__lookup("vramtrace_checkpoint");
    return f ? f() : 0;
}

/* Device + managed bytes allocated after CHECKPOINT and still live (0 when
 * called from a signal handler that interrupted the tracer on this thread).
 * Inside PyTorch's caching allocator, where its tensors are traced, the
 * tensors kept, not the segments of its cache that hold them. */
static inline uint64_t vramtrace_leaked_since(uint64_t checkpoint)
{
    uint64_t (*f)(uint64_t) = (uint64_t (*)(uint64_t))vramtrace__lookup("vramtrace_leaked_since");
    return f ? f(checkpoint) : 0;
}

/* What vramtrace_peak_since() answers for a checkpoint whose peak is not
 * followed: more than VRAMTRACE_PEAK_CHECKPOINTS checkpoints were taken
 * after it, or it was taken in a signal handler that interrupted the tracer. */
#define VRAMTRACE_PEAK_UNKNOWN UINT64_MAX
#define VRAMTRACE_PEAK_CHECKPOINTS 16

/* The highest value vramtrace_leaked_since(CHECKPOINT) reached since the
 * checkpoint was taken: the peak of the device + managed bytes allocated
 * after it, live at once (as pytest-memray's limit_memory, for device
 * memory); inside PyTorch's cache, its tensors, not its segments. The
 * VRAMTRACE_PEAK_CHECKPOINTS most recent checkpoints are followed; an older
 * one reads VRAMTRACE_PEAK_UNKNOWN. 0 without the tracer
 * (and 0 from a tracer older than this function). */
static inline uint64_t vramtrace_peak_since(uint64_t checkpoint)
{
    uint64_t (*f)(uint64_t) = (uint64_t (*)(uint64_t))vramtrace__lookup("vramtrace_peak_since");
    return f ? f(checkpoint) : 0;
}

/* Records a named point in the dump (e.g. once per training step). */
static inline void vramtrace_mark(const char *label)
{
    void (*f)(const char *) = (void (*)(const char *))vramtrace__lookup("vramtrace_mark");
    if (f)
        f(label);
}

/* The five largest call sites of what vramtrace_leaked_since(CHECKPOINT)
 * counts, one line each, innermost frames first as dladdr names them
 * ("N bytes in K allocations at f (lib.so+0x12) <- g (app+0x34) <- ..."),
 * into BUF, NUL-terminated and cut to LEN. Returns the length the whole
 * text needs (as snprintf does); 0 and "" without the tracer. */
static inline size_t vramtrace_leak_sites_since(uint64_t checkpoint, char *buf, size_t len)
{
    size_t (*f)(uint64_t, char *, size_t) =
        (size_t (*)(uint64_t, char *, size_t))vramtrace__lookup("vramtrace_leak_sites_since");
    if (f)
        return f(checkpoint, buf, len);
    if (len)
        buf[0] = '\0';
    return 0;
}

#ifdef __cplusplus
}
#endif

#endif
