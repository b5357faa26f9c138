/* SPDX-License-Identifier: MIT */
/* The human report: a summary line, then call sites largest first, in the
 * sanitizers' greppable style. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cuda_errors.h"
#include "cxx_names.h"
#include "device_report.h"
#include "format.h"
#include "report.h"
#include "site_label.h"
#include "xalloc.h"
#include "verdicts.h"

static const char *plural(uint64_t n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* "1 byte", "2 bytes" */
#define BYTES(n) plural((n), "byte", "bytes")

static const char *basename_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? slash + 1 : path;
}

/* The frame lines are most of a large report's text: written piece by
 * piece without printf and without the stream's lock. */
static void put_number(uint64_t v, unsigned base, FILE *out)
{
    char digits[24], *p = digits + sizeof digits;
    do {
        *--p = "0123456789abcdef"[v % base];
        v /= base;
    } while (v);
    fwrite_unlocked(p, 1, (size_t)(digits + sizeof digits - p), out);
}

static void put_text(const char *s, FILE *out)
{
    fputs_unlocked(s, out);
}

static void print_location(const struct vt_frame *f, FILE *out)
{
    if (f->file) {
        put_text(f->python ? " (" : " ", out);
        put_text(vt_display_path(f->file), out);
        fputc_unlocked(':', out);
        put_number(f->line, 10, out);
        if (f->python)
            fputc_unlocked(')', out);
    } else if (f->module) {
        put_text(f->function ? " (" : " ", out);
        put_text(basename_of(f->module), out);
        put_text("+0x", out);
        put_number(f->offset, 16, out);
        if (f->function)
            fputc_unlocked(')', out);
    } else if (!f->function) {
        put_text(" 0x", out);
        put_number(f->address, 16, out);
    }
}

/* Where a stack deeper than the tracer's limit was cut. */
static void print_dropped(const struct vt_site *site, size_t i, FILE *out)
{
    if (site->dropped && i == site->cut_at)
        fprintf(out, "    ... %" PRIu64 " frames dropped (VRAMTRACE_MAX_FRAMES) ...\n",
                site->dropped);
}

static void print_folded(const struct vt_frames_view *v, FILE *out)
{
    fprintf(out, "    \u2026 %zu runtime %s (--all-frames shows them)\n", v->runtime,
            plural(v->runtime, "frame", "frames"));
}

/* "… 20 PyTorch frames in torch::autograd::THPVariable_relu(...)" (the
 * outermost of them) before the first frame of the run folded. */
static void print_framework_run(const struct vt_site *site, const struct vt_frames_view *v,
                                size_t i, FILE *out)
{
    enum vt_framework fw;
    size_t n = vt_frames_view_run(site, v, i, &fw);
    char call[1024];
    if (!n)
        return;
    vt_frame_call_name(site->frames[i + n - 1], call, sizeof call);
    fprintf(out, "    \u2026 %zu %s %s in %s\n", n, vt_framework_name(fw),
            plural(n, "frame", "frames"), call);
}

static void print_cut(const struct vt_frames_view *v, FILE *out)
{
    fprintf(out, "    \u2026 %zu more %s (--max-frames %zu)\n", v->cut_hidden,
            plural(v->cut_hidden, "frame", "frames"), v->max_frames);
}

static void print_frames(const struct vt_site *site, FILE *out);

/* The Python frames of the thread that SITE's thread allocated for. */
static void print_behalf(const struct vt_site *site, FILE *out)
{
    if (!site->behalf)
        return;
    put_text("    on behalf of the thread that called backward() and waited for it:\n", out);
    print_frames(site->behalf, out);
}

/* Frames keep their numbers when some are folded, as --all-frames shows them. */
static void print_frames(const struct vt_site *site, FILE *out)
{
    struct vt_frames_view view;
    vt_frames_view(site, &view);
    if (site->nframes == 0)
        fputs("    (no stack recorded)\n", out);
    for (size_t i = 0; i < site->nframes; i++) {
        const struct vt_frame *f = site->frames[i];
        print_dropped(site, i, out);
        if (i == view.cut_at) {
            print_cut(&view, out);
            if (view.runtime && view.fold_at >= view.cut_at)
                print_folded(&view, out);
            print_behalf(site, out);
            return;
        }
        if (view.runtime && i == view.fold_at)
            print_folded(&view, out);
        print_framework_run(site, &view, i, out);
        if (!vt_frames_view_shows(site, &view, i))
            continue;
        put_text("    #", out);
        put_number(i, 10, out);
        if (f->function) {
            char name[VT_SHORT_NAME_MAX];
            fputc_unlocked(' ', out);
            put_text(vt_short_name(f->function, false, name, sizeof name), out);
        }
        print_location(f, out);
        put_text(f->inlined ? " (inlined)\n" : "\n", out);
        if (site->python_truncated && i + 1 == site->python_end)
            put_text("    ... outer Python frames not recorded (a deeper stack than the tracer "
                     "keeps)\n",
                     out);
    }
    print_dropped(site, site->nframes, out);
    print_behalf(site, out);
}

/* The threads that made a leak's allocations, when one is not the main
 * thread (whose tid is the pid): "threads: pt_autograd_0 (tid 4243, 2 allocations)". */
static void print_threads(const struct vt_report *r, const struct vt_leak *leak, FILE *out)
{
    bool other = false;
    for (size_t i = 0; i < leak->nthreads; i++)
        other |= leak->threads[i].tid != r->dump->process.pid;
    if (!other)
        return;
    fputs(leak->nthreads > 1 ? "    threads:" : "    thread:", out);
    for (size_t i = 0; i < leak->nthreads; i++) {
        const char *name = vt_dump_thread_name(r->dump, leak->threads[i].tid);
        fprintf(out, "%s %s (tid %" PRIu64 ", %" PRIu64 " %s)", i ? "," : "", name ? name : "?",
                leak->threads[i].tid, leak->threads[i].allocations,
                plural(leak->threads[i].allocations, "allocation", "allocations"));
    }
    if (leak->other_threads)
        fprintf(out, ", and %" PRIu64 " from other threads", leak->other_threads);
    fputc('\n', out);
}

static void print_device(int64_t device, FILE *out)
{
    if (device < 0)
        fputs(" on an unknown device", out);
    else
        fprintf(out, " on device %" PRId64, device);
}

/* "1.0 MiB (1048576 bytes)" */
static void print_bytes(uint64_t bytes, FILE *out)
{
    char size[32];
    fprintf(out, "%s (%" PRIu64 " %s)", vt_human_size(bytes, size), bytes, BYTES(bytes));
}

/* "at the crash", "when killed", "so far": when a live_not_leaked report's
 * allocations were live. */
static const char *live_when(const struct vt_report *r)
{
    switch (r->ending.reason) {
    case VT_ENDING_SIGNAL:
        return vt_signal_is_termination(r->ending.signal) ? "when killed" : "at the crash";
    case VT_ENDING_RUNNING:
        return "so far";
    default:
        return "at the end of the dump";
    }
}

/* A leak, or (leak->held) what was held when the script ended and freed by
 * the interpreter's shutdown: still reachable, listed, not a leak. */
static void print_leak(const struct vt_report *r, const struct vt_leak *leak,
                       const struct vt_site *site, FILE *out)
{
    char size[32], head[64];
    bool host = !vt_kind_counts_as_vram(leak->kind);
    if (leak->held)
        snprintf(head, sizeof head, "Held at the end%s:", host ? " (host memory)" : "");
    else if (r->live_not_leaked)
        snprintf(head, sizeof head, "%s %s:", host ? "Host memory live" : "Live", live_when(r));
    else
        snprintf(head, sizeof head, "%s of", host ? "Host leak" : "Leak");
    fprintf(out, "\n%s %" PRIu64 " %s (%s) in %" PRIu64 " %s via %s", head, leak->bytes,
            BYTES(leak->bytes), vt_human_size(leak->bytes, size), leak->allocations,
            plural(leak->allocations, "allocation", "allocations"), vt_api_label(site->api));
    if (!host)
        print_device(leak->device, out);
    fprintf(out, " [%s]\n", vt_kind_name(leak->kind));
    if (leak->held)
        fputs("    still referenced when the script ended: not leaked\n", out);
    print_frames(site, out);
    print_threads(r, leak, out);
}

/* Where a known pattern came from: "built in", or "FILE:LINE". */
static void print_known_origin(const struct vt_suppression *k, FILE *out)
{
    if (k->line)
        fprintf(out, "known:%s, %s:%zu", k->pattern, k->origin, k->line);
    else
        fprintf(out, "known:%s, %s", k->pattern, k->origin);
}

/* Known framework memory held at the end: labelled, not a leak. */
static void print_known_entry(const struct vt_report *r, const struct vt_leak *leak,
                              const struct vt_site *site, FILE *out)
{
    char size[32];
    fprintf(out, "\nKnown framework memory, %s: %" PRIu64 " %s (%s) in %" PRIu64 " %s via %s",
            leak->known->label, leak->bytes, BYTES(leak->bytes), vt_human_size(leak->bytes, size),
            leak->allocations, plural(leak->allocations, "allocation", "allocations"),
            vt_api_label(site->api));
    if (vt_kind_counts_as_vram(leak->kind))
        print_device(leak->device, out);
    fprintf(out, " [%s]\n    not counted as leaked: %s [", vt_kind_name(leak->kind),
            leak->known->note ? leak->known->note : "a pattern of known memory");
    print_known_origin(leak->known, out);
    fputs("]\n", out);
    print_frames(site, out);
    print_threads(r, leak, out);
}

/* "32.0 MiB by PyTorch's cuBLAS workspace, 22.0 MiB by PyTorch's cache":
 * the known memory held at the end, per label, the most first; device (and
 * managed) memory, or page-locked host memory, never the two summed. */
static void print_known_list(const struct vt_report *r, bool device, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    const char **labels = vt_xcalloc(a->nknown ? a->nknown : 1, sizeof *labels);
    uint64_t *bytes = vt_xcalloc(a->nknown ? a->nknown : 1, sizeof *bytes);
    size_t n = 0;
    for (size_t i = 0; i < a->nknown; i++) {
        size_t k = 0;
        if (vt_kind_counts_as_vram(a->known_leaks[i].kind) != device)
            continue;
        while (k < n && strcmp(labels[k], a->known_leaks[i].known->label) != 0)
            k++;
        if (k == n)
            labels[n++] = a->known_leaks[i].known->label;
        bytes[k] += a->known_leaks[i].bytes;
    }
    for (size_t done = 0; done < n; done++) {
        size_t most = 0;
        for (size_t k = 1; k < n; k++)
            if (labels[k] && (!labels[most] || bytes[k] > bytes[most]))
                most = k;
        char size[32];
        fprintf(out, "%s%s by %s", done ? ", " : "", vt_human_size(bytes[most], size),
                labels[most]);
        labels[most] = NULL;
    }
    free(bytes);
    free(labels);
}

/* "peak 6.0 MiB on device 0": one device's own peak, never a sum */
static void print_peak(const struct vt_summary *s, FILE *out)
{
    char peak[32];
    fprintf(out, "peak %s", vt_human_size(s->peak_bytes, peak));
    if (s->peak_device >= 0)
        fprintf(out, " on device %" PRId64, s->peak_device);
    if (s->peak_devices > 1)
        fprintf(out, ", the highest of %zu devices", s->peak_devices);
}

/* "(peak 6.0 MiB on device 0, 3 allocations, ...)"; without the device
 * peak where only page-locked host memory was allocated */
static void print_totals(const struct vt_summary *s, bool device_peak, FILE *out)
{
    fputs(" (", out);
    if (device_peak) {
        print_peak(s, out);
        fputs(", ", out);
    }
    fprintf(out, "%" PRIu64 " %s, %" PRIu64 " %s, %" PRIu64 " failed, %" PRIu64 " invalid %s)",
            s->allocations, plural(s->allocations, "allocation", "allocations"), s->frees,
            plural(s->frees, "free", "frees"), s->failed_allocations, s->invalid_frees,
            plural(s->invalid_frees, "free", "frees"));
}

/* Page-locked host memory the leaks list: its bytes and allocations. */
static uint64_t host_left(const struct vt_report *r, uint64_t *count)
{
    uint64_t bytes = 0;
    *count = 0;
    for (size_t i = 0; i < r->analysis->nleaks; i++)
        if (!vt_kind_counts_as_vram(r->analysis->leaks[i].kind)) {
            bytes += r->analysis->leaks[i].bytes;
            *count += r->analysis->leaks[i].allocations;
        }
    return bytes;
}

static void print_host_summary(const struct vt_report *r, FILE *out)
{
    char size[32];
    uint64_t count, bytes = host_left(r, &count);
    fprintf(out, "vramtrace: %s (%" PRIu64 " %s) of page-locked host memory %s in %" PRIu64 " %s\n",
            vt_human_size(bytes, size), bytes, BYTES(bytes),
            r->live_not_leaked ? "still allocated" : "leaked", count,
            plural(count, "allocation", "allocations"));
}

static bool has_host_leaks(const struct vt_report *r)
{
    for (size_t i = 0; i < r->analysis->nleaks; i++)
        if (!vt_kind_counts_as_vram(r->analysis->leaks[i].kind))
            return true;
    return false;
}

/* "N of device memory leaked in N allocations at N call sites". */
static void print_leak_headline(const struct vt_report *r, uint64_t bytes, uint64_t count,
                                size_t sites, FILE *out)
{
    char size[32];
    fprintf(out,
            "vramtrace: %s (%" PRIu64 " %s) of device memory %s in %" PRIu64 " %s at %zu call %s",
            vt_human_size(bytes, size), bytes, BYTES(bytes),
            r->live_not_leaked ? "still allocated" : "leaked", count,
            plural(count, "allocation", "allocations"), sites, plural(sites, "site", "sites"));
}

/* "vramtrace: held at the end (still referenced when the script ended; not
 * leaked): 24.0 MiB in 12 allocations at 2 call sites" */
static void print_held_headline(const struct vt_report *r, FILE *out)
{
    const struct vt_summary *s = &r->analysis->summary;
    char size[32];
    size_t sites = 0;
    for (size_t i = 0; i < r->analysis->nheld; i++)
        sites += vt_kind_counts_as_vram(r->analysis->held[i].kind);
    if (!s->held_bytes)
        return;
    fprintf(out,
            "vramtrace: held at the end (still referenced when the script ended; not leaked): "
            "%s (%" PRIu64 " %s) in %" PRIu64 " %s at %zu call %s\n",
            vt_human_size(s->held_bytes, size), s->held_bytes, BYTES(s->held_bytes),
            s->held_allocations, plural(s->held_allocations, "allocation", "allocations"), sites,
            plural(sites, "site", "sites"));
}

/* "; page-locked host memory: peak 12.0 MiB, 4.0 MiB (4194304 bytes) leaked":
 * pinned memory counts towards no device, but the summary names it. */
static void print_host_totals(const struct vt_report *r, FILE *out)
{
    char size[32];
    uint64_t count, bytes = host_left(r, &count);
    uint64_t known = r->analysis->summary.host_known_bytes;
    fprintf(out, "; page-locked host memory: peak %s",
            vt_human_size(r->analysis->summary.host_peak_bytes, size));
    if (!bytes && !known)
        fputs(", all freed", out);
    if (bytes)
        fprintf(out, ", %s (%" PRIu64 " %s) %s in %" PRIu64 " %s", vt_human_size(bytes, size),
                bytes, BYTES(bytes), r->live_not_leaked ? "still allocated" : "leaked", count,
                plural(count, "allocation", "allocations"));
    if (known) {
        fputs(", known framework memory held at the end: ", out);
        print_known_list(r, false, out);
    }
}

/* Growing sites named on the first line, at most. */
#define HEADLINE_GROWING 3

/* SEP "during forward": the NVTX range site INDEX made most of its bytes
 * in ("and others" when it allocated in other ranges too); nothing without. */
static void print_phase(const struct vt_report *r, size_t index, const char *sep, FILE *out)
{
    bool several;
    const char *name = vt_dump_phase_name(
        r->dump, vt_usage_site_phase(&r->analysis->usage.sites[index], &several));
    if (!name)
        return;
    fprintf(out, "%sduring ", sep);
    put_text(name, out);
    fputs(several ? " and others" : "", out);
}

/* What grows leads the report, at the program's own lines: "vramtrace:
 * growing: 4.0 MiB per marker interval at step (train.py:18), 4 B per
 * marker interval at step (train.py:19)". */
static void print_growing_headline(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    size_t growing = vt_usage_growing_sites(u), n = 0;
    const struct vt_site *list[HEADLINE_GROWING];
    size_t index[HEADLINE_GROWING], depths[HEADLINE_GROWING];
    for (size_t i = 0; i < r->sites_shown && n < HEADLINE_GROWING; i++)
        if (u->sites[r->site_order[i]].growing) {
            index[n] = r->site_order[i];
            list[n++] = &r->usage_sites[r->site_order[i]];
        }
    if (!n)
        return;
    vt_label_depths(list, n, depths);
    fputs("vramtrace: growing:", out);
    for (size_t i = 0; i < n; i++) {
        char size[32], label[1024];
        vt_site_label(list[i], depths[i], label, sizeof label);
        fprintf(out, "%s %s per %s at %s", i ? "," : "",
                vt_human_size((uint64_t)u->sites[index[i]].bytes_per_interval, size),
                u->by_marks ? "marker interval" : "tick", label);
        print_phase(r, index[i], " ", out);
    }
    if (growing > n)
        fprintf(out, ", and %zu more call %s", growing - n, plural(growing - n, "site", "sites"));
    fputc('\n', out);
}

/* A framework's allocator whose tensors were not traced: first, since
 * what follows sees its segments only. */
static void print_frameworks(const struct vt_report *r, FILE *out)
{
    for (size_t i = 0; i < r->dump->nframeworks; i++) {
        const struct vt_framework_seen *f = &r->dump->frameworks[i];
        if (f->state == VT_FRAMEWORK_NOT_VERIFIED)
            fprintf(out,
                    "vramtrace: %s %s not verified: segments only (the tensors in its cache are "
                    "not traced; vramtrace run --pytorch-tensors traces each one)\n",
                    f->name, f->version ? f->version : "of an unknown release");
    }
}

/* Where tracing began, when it began by attaching: what was held then is
 * nobody's line; what attaching could not reach is said, never missed. */
static void print_attach(const struct vt_report *r, FILE *out)
{
    const struct vt_attach_info *a = r->dump->attach;
    char size[32];
    bool by_nvml;
    if (!a)
        return;
    fputs("vramtrace: attached to the running process: what it allocated before is not traced; "
          "growth and leaks are judged on what it allocated since",
          out);
    for (size_t i = 0; i < a->ndevices; i++) {
        uint64_t held = vt_attach_held_bytes(&a->devices[i], &by_nvml);
        fprintf(out, "%s %s (%" PRIu64 " bytes) held on device %d before attach (%s)",
                i ? ";" : ":", vt_human_size(held, size), held, a->devices[i].device,
                by_nvml ? "NVML: this process" : "the driver: used on the device");
    }
    fputc('\n', out);
    for (size_t i = 0; i < a->nroutes; i++)
        fprintf(out, "vramtrace: allocations through %s are not seen after attach\n", a->routes[i]);
}

static void print_summary(const struct vt_report *r, FILE *out)
{
    const struct vt_summary *s = &r->analysis->summary;
    char suppressed[32];
    size_t device_sites = 0;
    uint64_t bytes = r->live_not_leaked ? s->live_at_end_bytes : s->leaked_bytes;
    uint64_t count = r->live_not_leaked ? s->live_at_end_allocations : s->leaked_allocations;
    for (size_t i = 0; i < r->analysis->nleaks; i++)
        device_sites += vt_kind_counts_as_vram(r->analysis->leaks[i].kind);
    bool host_only = s->peak_bytes == 0 && s->host_peak_bytes && !count;
    bool growing = vt_usage_growing_sites(&r->analysis->usage) > 0; /* "no leaks" would mislead */
    print_growing_headline(r, out);
    if (s->allocations == 0)
        fprintf(out,
                "vramtrace: nothing to judge: no CUDA allocation succeeded in this process "
                "(%" PRIu64 " failed)",
                s->failed_allocations);
    else if (count)
        print_leak_headline(r, bytes, count, device_sites, out);
    else if (s->held_bytes && !s->known_bytes)
        fputs(growing ? "vramtrace: nothing leaked at exit" : "vramtrace: no leaks", out);
    else if (s->known_bytes) {
        fprintf(out, "vramtrace: %s; known framework memory held at the end: ",
                growing ? "nothing leaked at exit" : "no leaks");
        print_known_list(r, true, out);
    } else if (host_only)
        fputs("vramtrace: no device memory was allocated, only page-locked host memory", out);
    else if (s->suppressed_bytes) /* suppressed is not freed */
        fprintf(out, "vramtrace: no unsuppressed leaks (%s suppressed in %" PRIu64 " %s)",
                vt_human_size(s->suppressed_bytes, suppressed), s->suppressed_allocations,
                plural(s->suppressed_allocations, "allocation", "allocations"));
    else
        fprintf(out, "vramtrace: %s: all device memory was freed%s",
                growing ? "nothing leaked at exit" : "no leaks",
                r->live_not_leaked ? " (so far)" : "");
    print_totals(s, !host_only, out);
    if (s->host_peak_bytes)
        print_host_totals(r, out);
    fputc('\n', out);
    if (count && s->known_bytes) {
        fputs("vramtrace: also held at the end, known framework memory (not counted as leaked): ",
              out);
        print_known_list(r, true, out);
        fputc('\n', out);
    }
    print_held_headline(r, out);
}

/* Whether a leak's site is growing: it is listed once, among the growing. */
static bool leak_is_growing(const struct vt_report *r, const struct vt_leak *leak)
{
    const struct vt_usage_site *s = vt_usage_find_site(&r->analysis->usage, leak->stack_id,
                                                       leak->api, leak->kind, leak->device);
    return s && s->growing;
}

/* How many of the N symbolized of TOTAL sites a short list prints: all
 * where one more would be left out (a line saying so takes its room). */
static size_t short_list(const struct vt_report *r, size_t n, size_t total)
{
    return !r->text_short || total <= r->text_short + 1 || n <= r->text_short ? n : r->text_short;
}

/* "    … and 3 more call sites (--top N shows N, --top 0 all)" */
static void print_more(size_t more, FILE *out)
{
    if (more)
        fprintf(out, "    \u2026 and %zu more call %s (--top N shows N, --top 0 all)\n", more,
                plural(more, "site", "sites"));
}

/* Held at the end (TOP of them) with their stacks, those of growing sites
 * listed there. Returns how many were left out. */
static size_t print_held_entries(const struct vt_report *r, FILE *out)
{
    size_t printed = 0, listed = 0;
    for (size_t i = 0; i < r->analysis->nheld; i++) {
        const struct vt_leak *held = &r->analysis->held[i];
        if (leak_is_growing(r, held))
            continue;
        listed++;
        if (i < r->held_shown && (!r->text_top || printed < r->text_top)) {
            print_leak(r, held, &r->held_sites[i], out);
            printed++;
        }
    }
    return listed - printed;
}

/* Held at the end, a line per call site: still referenced, not leaked, so
 * no stack before the peak on the first screen (--top N lists the stacks);
 * it says itself how many more there are. */
static void print_held_lines(const struct vt_report *r, FILE *out)
{
    size_t n = 0;
    const struct vt_site **list = vt_xcalloc(r->held_shown ? r->held_shown : 1, sizeof *list);
    const struct vt_leak **held = vt_xcalloc(r->held_shown ? r->held_shown : 1, sizeof *held);
    size_t listed = 0;
    for (size_t i = 0; i < r->analysis->nheld; i++)
        listed += !leak_is_growing(r, &r->analysis->held[i]);
    size_t room = short_list(r, listed, listed);
    for (size_t i = 0; i < r->held_shown && n < room; i++)
        if (!leak_is_growing(r, &r->analysis->held[i])) {
            held[n] = &r->analysis->held[i];
            list[n++] = &r->held_sites[i];
        }
    if (n)
        fputs("\nHeld at the end (still referenced when the script ended; not leaked):\n", out);
    char **labels = vt_site_labels(list, n);
    for (size_t i = 0; i < n; i++) {
        char size[32], count[48];
        snprintf(count, sizeof count, "in %" PRIu64 " %s", held[i]->allocations,
                 plural(held[i]->allocations, "allocation", "allocations"));
        fprintf(out, "    %10s  %-18s  %s  %s\n", vt_human_size(held[i]->bytes, size), count,
                vt_api_label(list[i]->api), labels[i]);
    }
    vt_site_labels_free(labels, n);
    free(held);
    free(list);
    print_more(listed - n, out);
}

/* Whether a leak's site is a framework's segments whose tensors are traced. */
static bool leak_holds_tensors(const struct vt_report *r, const struct vt_leak *leak)
{
    const struct vt_usage_site *s = vt_usage_find_site(&r->analysis->usage, leak->stack_id,
                                                       leak->api, leak->kind, leak->device);
    return s && s->holds_tensors;
}

/* A cache whose tensors (or a heap whose regions) are traced, on one
 * device, in one paragraph: what it reserved, what of it live tensors use
 * (listed at their lines), what is free for reuse; its segments' stacks say
 * nothing of the tensors in them. */
static void print_cache(const struct vt_report *r, int64_t device, FILE *out)
{
    const struct vt_leak *first = NULL;
    uint64_t segments = 0;
    for (size_t i = 0; i < r->analysis->nknown; i++) {
        const struct vt_leak *k = &r->analysis->known_leaks[i];
        if (k->device == device && leak_holds_tensors(r, k)) {
            first = first ? first : k;
            segments += k->allocations;
        }
    }
    if (!first)
        return;
    const struct vt_usage *u = &r->analysis->usage;
    struct vt_usage_cache c = vt_usage_cache(u, device, VT_USAGE_AT_SCRIPT_END);
    char in_tensors[32], room[32];
    fprintf(out, "\n%s", vt_report_cache_name(&c));
    print_device(device, out);
    fputs(u->script_ended ? " when the script ended: " : " at the end: ", out);
    print_bytes(c.reserved, out);
    fprintf(out,
            " reserved in %" PRIu64 " %s: %s in live %s (listed at their lines), %s free "
            "for reuse; not counted as leaked [",
            segments, plural(segments, "segment", "segments"),
            vt_human_size(c.in_tensors, in_tensors), vt_report_cache_parts(&c),
            vt_human_size(c.free, room));
    print_known_origin(first->known, out);
    fputs("]\n", out);
}

/* Known framework memory at the end, those of growing sites listed there;
 * a cache whose tensors are traced, described as one. */
static void print_known_entries(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    for (size_t i = 0; i < r->analysis->nknown; i++) {
        const struct vt_leak *k = &r->analysis->known_leaks[i];
        if (!leak_is_growing(r, k) && !leak_holds_tensors(r, k))
            print_known_entry(r, k, &r->known_sites[i], out);
    }
    for (size_t d = 0; d < u->ndevices; d++)
        print_cache(r, u->devices[d].device, out);
}

/* What the text lists: the first text_top (0: all) of those symbolized. */
static bool room_for(const struct vt_report *r, size_t printed)
{
    return !r->text_top || printed < r->text_top;
}

/* Shown sites of one list: device/managed (HOST false) or host; the growing
 * ones are listed with the growing sites. Returns how many were left out. */
static size_t print_leaks(const struct vt_report *r, bool host, FILE *out)
{
    size_t printed = 0, listed = 0;
    for (size_t i = 0; i < r->analysis->nleaks; i++) {
        const struct vt_leak *leak = &r->analysis->leaks[i];
        /* growing leaks are listed with the growing sites; what a crashed
         * or killed process held is listed as live all the same */
        if (vt_kind_counts_as_vram(leak->kind) == host ||
            (!r->live_not_leaked && leak_is_growing(r, leak)))
            continue;
        listed++;
        if (i < r->leaks_shown && room_for(r, printed)) {
            print_leak(r, leak, &r->leak_sites[i], out);
            printed++;
        }
    }
    return listed - printed;
}

/* "    4.0 MiB  cudaMalloc  fn file:line <- caller file:line", one line per
 * holder, each labelled so that no two read alike, and its phase. */
static void print_holders(const struct vt_report *r, const size_t *sites, const uint64_t *bytes,
                          size_t n, FILE *out)
{
    const struct vt_site **list = vt_xcalloc(n ? n : 1, sizeof *list);
    size_t *depths = vt_xcalloc(n ? n : 1, sizeof *depths);
    for (size_t i = 0; i < n; i++)
        list[i] = &r->usage_sites[sites[i]];
    vt_label_depths(list, n, depths);
    for (size_t i = 0; i < n; i++) {
        char size[32], label[1024];
        vt_site_label(list[i], depths[i], label, sizeof label);
        fprintf(out, "    %10s  %s  %s", vt_human_size(bytes[i], size), vt_api_label(list[i]->api),
                label);
        print_phase(r, sites[i], "  ", out);
        fputc('\n', out);
    }
    free(depths);
    free(list);
}

static void print_growth_start(const struct vt_usage *u, const struct vt_usage_site *s, FILE *out)
{
    if (u->by_marks)
        fprintf(out, " since marker %zu \"%s\" (", s->growth_start,
                u->marks[s->growth_start].label);
    else
        fputs(" since ", out);
    vt_print_time(s->growth_start_ns, out);
    fputs(u->by_marks ? ")" : "", out);
}

/* What growth was judged on, always: "not growing" and "not judged" read
 * differently. */
static void print_growth_verdict(const struct vt_report *r, FILE *out)
{
    char verdict[512];
    vt_growth_verdict(r, verdict, sizeof verdict);
    fprintf(out, "vramtrace: %s\n", verdict);
}

/* A growing site's leak, in the same entry: "leaked at exit: N bytes (...) in
 * K allocations", or its live bytes when the process did not end on its own. */
/* The entry of LIST (N long) for site S, or NULL. */
static const struct vt_leak *entry_of(const struct vt_leak *list, size_t n,
                                      const struct vt_usage_site *s)
{
    for (size_t i = 0; i < n; i++)
        if (list[i].stack_id == s->stack_id && list[i].api == s->api && list[i].kind == s->kind &&
            list[i].device == s->device)
            return &list[i];
    return NULL;
}

static void print_growing_leak(const struct vt_report *r, const struct vt_usage_site *s, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    char size[32];
    const struct vt_leak *parts[3] = {entry_of(a->leaks, a->nleaks, s),
                                      entry_of(a->held, a->nheld, s),
                                      entry_of(a->known_leaks, a->nknown, s)};
    bool any = false;
    for (size_t k = 0; !r->live_not_leaked && k < 3; k++) {
        const struct vt_leak *l = parts[k];
        if (!l)
            continue;
        if (k == 0)
            fputs("; leaked at exit: ", out);
        else if (k == 1)
            fputs("; held at the end: ", out);
        else
            fprintf(out, "; held at exit by %s (known): ", l->known->label);
        fprintf(out, "%" PRIu64 " %s (%s) in %" PRIu64 " %s", l->bytes, BYTES(l->bytes),
                vt_human_size(l->bytes, size), l->allocations,
                plural(l->allocations, "allocation", "allocations"));
        any = true;
    }
    if (!any)
        fprintf(out, ", %s live %s", vt_human_size(s->live_bytes, size),
                r->live_not_leaked ? live_when(r) : "at the end");
}

/* The thread that made what site S held at the end (a leak or known
 * memory), when that is one thread and not the main one. */
static const char *site_thread(const struct vt_report *r, const struct vt_usage_site *s)
{
    const struct vt_analysis *a = r->analysis;
    for (size_t i = 0; i < a->nleaks + a->nknown; i++) {
        const struct vt_leak *l = i < a->nleaks ? &a->leaks[i] : &a->known_leaks[i - a->nleaks];
        if (l->stack_id == s->stack_id && l->api == s->api && l->kind == s->kind &&
            l->device == s->device && l->nthreads == 1 && l->threads[0].tid != r->dump->process.pid)
            return vt_dump_thread_name(r->dump, l->threads[0].tid);
    }
    return NULL;
}

static bool has_python_frame(const struct vt_site *site)
{
    for (size_t i = 0; i < site->nframes; i++)
        if (site->frames[i]->python)
            return true;
    return false;
}

/* What a growing site is, where its stack says: "PyTorch's cache grew
 * during backward (on thread pt_autograd_0, which runs no Python)" for
 * known framework memory, "allocated during backward (...)" else; with
 * the frames of the thread it allocated for, ", on behalf of
 * step train.py:22" (that thread's first own frame). */
static void print_growing_what(const struct vt_report *r, size_t index, FILE *out)
{
    const struct vt_site_known *k = &r->site_known[index];
    const struct vt_site *site = &r->usage_sites[index];
    if (!k->known && !k->during)
        return;
    const char *thread = site_thread(r, &r->analysis->usage.sites[index]);
    if (k->known)
        fprintf(out, "    %s grew", k->known->label);
    else
        fputs("    allocated", out);
    if (k->during)
        fprintf(out, " %s", k->during);
    if (thread && !has_python_frame(site) && !site->behalf)
        fprintf(out, " (on thread %s, which runs no Python)", thread);
    else if (thread)
        fprintf(out, " (on thread %s)", thread);
    if (site->behalf) {
        char label[1024];
        vt_site_label(site->behalf, 1, label, sizeof label);
        fprintf(out, ", on behalf of %s", label);
    }
    if (k->known) {
        fputs(" [", out);
        print_known_origin(k->known, out);
        fputc(']', out);
    }
    fputc('\n', out);
}

/* "(the last; 1.0 MiB/s)", or "(2.0 MiB over the last 2)" when the rise
 * came every other interval. */
static void print_rate_window(const struct vt_usage_site *s, FILE *out)
{
    char size[32];
    if (s->rate_intervals > 1)
        fprintf(out, " (%s over the last %zu",
                vt_human_size((uint64_t)s->bytes_per_interval * s->rate_intervals, size),
                s->rate_intervals);
    else
        fputs(" (the last", out);
    if (vt_usage_rate_shown(s)) /* a rate over a few milliseconds means nothing */
        fprintf(out, "; %s/s", vt_human_size((uint64_t)s->bytes_per_second, size));
    fputc(')', out);
}

/* Returns how many growing sites were left out. */
static size_t print_growing(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    char size[32];
    if (r->analysis->summary.allocations)
        print_growth_verdict(r, out);
    size_t printed = 0;
    for (size_t i = 0; i < r->sites_shown && room_for(r, printed); i++, printed++) {
        size_t index = r->site_order[i];
        const struct vt_usage_site *s = &u->sites[index];
        if (!s->growing)
            break;
        fprintf(out, "\nGrowing by %s per %s", vt_human_size((uint64_t)s->bytes_per_interval, size),
                u->by_marks ? "marker interval" : "tick");
        print_rate_window(s, out);
        print_growth_start(u, s, out);
        print_growing_leak(r, s, out);
        fprintf(out, ", via %s", vt_api_label(r->usage_sites[index].api));
        print_device(s->device, out);
        fprintf(out, " [%s]", vt_kind_name(s->kind));
        print_phase(r, index, "  ", out);
        fputc('\n', out);
        print_growing_what(r, index, out);
        print_frames(&r->usage_sites[index], out);
    }
    return vt_usage_growing_sites(u) - printed;
}

/* "    26.0 MiB  free in PyTorch's cache": what the segments of a cache
 * whose tensors are listed as holders kept that no tensor used. */
static void print_cache_room(const struct vt_usage_cache *c, FILE *out)
{
    char size[32], reserved[32];
    if (c->reserved)
        fprintf(out, "    %10s  free in %s (of %s reserved; its %s are listed)\n",
                vt_human_size(c->free, size), vt_report_cache_name(c),
                vt_human_size(c->reserved, reserved), vt_report_cache_parts(c));
}

/* Each device's peak and its holders (the list says how many more). */
static void print_peaks(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    for (size_t d = 0; d < u->ndevices; d++) {
        const struct vt_usage_device *dev = &u->devices[d];
        size_t *holders, n = vt_report_peak_holders(r, dev->device, &holders);
        fputs("\nPeak", out);
        print_device(dev->device, out);
        fputs(": ", out);
        print_bytes(dev->peak_bytes, out);
        fputs(" at ", out);
        vt_print_time(dev->peak_time_ns, out);
        if (dev->holders_approx && n) {
            fputs("; the sample with the most (", out);
            print_bytes(dev->holders_bytes, out);
            fputs(" at ", out);
            vt_print_time(dev->holders_time_ns, out);
            fputs(")", out);
        }
        fputs(n ? ", held by:\n" : "\n", out);
        size_t listed = short_list(r, n, vt_report_holders_at_peak(u, dev->device));
        uint64_t *held = vt_xcalloc(n ? n : 1, sizeof *held);
        for (size_t i = 0; i < n; i++)
            held[i] = u->sites[holders[i]].bytes_at_device_peak;
        print_holders(r, holders, held, listed, out);
        print_more(vt_report_holders_at_peak(u, dev->device) - listed, out);
        struct vt_usage_cache cache = vt_usage_cache(u, dev->device, VT_USAGE_AT_PEAK);
        print_cache_room(&cache, out);
        free(held);
        free(holders);
    }
}

/* Churn: allocate/free pairs per site and the time inside their calls,
 * with a hint where it is large. */
static void print_churn(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    uint64_t pairs, call_ns;
    size_t nsites, *order, n = vt_report_churn_sites(r, &order);
    char time[32], hint[160];
    vt_report_churn_totals(r, &pairs, &call_ns, &nsites);
    if (pairs) {
        fprintf(out,
                "\nChurn: %" PRIu64 " allocate/free %s at %zu call %s, %s inside those calls:\n",
                pairs, plural(pairs, "pair", "pairs"), nsites, plural(nsites, "site", "sites"),
                vt_format_time(call_ns, time));
        const struct vt_site **list = vt_xcalloc(n, sizeof *list);
        for (size_t i = 0; i < n; i++)
            list[i] = &r->usage_sites[order[i]];
        char **labels = vt_site_labels(list, n);
        size_t large = n, listed = short_list(r, n, nsites);
        for (size_t i = 0; i < n; i++) {
            const struct vt_usage_site *s = &u->sites[order[i]];
            if (i < listed)
                fprintf(out, "    %8" PRIu64 " %-5s  %10s  %s  %s\n", s->pairs,
                        plural(s->pairs, "pair", "pairs"), vt_format_time(s->call_ns, time),
                        vt_api_label(list[i]->api), labels[i]);
            if (large == n && vt_usage_churn_large(u, s))
                large = i;
        }
        print_more(nsites - listed, out);
        if (large < n)
            fprintf(out, "vramtrace: %s allocates and frees again and again; %s\n", labels[large],
                    vt_churn_hint(list[large]->api, hint, sizeof hint));
        vt_site_labels_free(labels, n);
        free(list);
    }
    free(order);
}

static void print_oom(const struct vt_report *r, const struct vt_failure *f, FILE *out)
{
    fputs("    out of memory: requested ", out);
    print_bytes(f->size, out);
    fputs(" with ", out);
    print_bytes(f->device_live_bytes, out);
    fputs(" traced live on the device at ", out);
    vt_print_time(f->time_ns, out);
    if (f->has_meminfo) {
        fputs("; the driver reported ", out);
        print_bytes(f->mem_free, out);
        fputs(" free of ", out);
        print_bytes(f->mem_total, out);
    }
    fputs(f->nholders ? "; largest holders:\n" : "\n", out);
    size_t sites[VT_OOM_HOLDERS];
    uint64_t held[VT_OOM_HOLDERS];
    for (size_t i = 0; i < f->nholders; i++) {
        sites[i] = f->holders[i].site;
        held[i] = f->holders[i].bytes;
    }
    print_holders(r, sites, held, f->nholders, out);
    print_cache_room(&f->cache, out);
    vt_render_text_gpu_processes(f, out);
}

static void print_failures(const struct vt_report *r, FILE *out)
{
    char size[32], error[VT_CUDA_ERROR_LABEL];
    for (size_t i = 0; i < r->failures_shown; i++) {
        const struct vt_failure *f = &r->analysis->failures[i];
        fprintf(out, "\nFailed allocation of %" PRIu64 " %s (%s) via %s", f->size, BYTES(f->size),
                vt_human_size(f->size, size), vt_api_label(r->failure_sites[i].api));
        print_device(f->device, out);
        fprintf(out, " [%s]: %s, %" PRIu64 " %s\n", vt_kind_name(f->kind),
                vt_cuda_error_label(f->error, f->api, error), f->count,
                plural(f->count, "time", "times"));
        print_frames(&r->failure_sites[i], out);
        if (f->oom)
            print_oom(r, f, out);
    }
}

/* What the bounded sections left out, per section. */
struct omitted {
    size_t leaks, held, growing;
};

/* "vramtrace: not shown: 30 more leaking call sites, 30 more growing call
 * sites, 2 more peak holders (--top N shows N per section, --top 0 all)" */
static void print_omitted(const struct vt_report *r, const struct omitted *o, FILE *out)
{
    const char *sep = "";
    fputs("vramtrace: not shown:", out);
    if (o->leaks) {
        fprintf(out, " %zu more leaking call %s", o->leaks, plural(o->leaks, "site", "sites"));
        sep = ",";
    }
    if (o->held) {
        fprintf(out, "%s %zu more held call %s", sep, o->held, plural(o->held, "site", "sites"));
        sep = ",";
    }
    if (o->growing)
        fprintf(out, "%s %zu more growing call %s", sep, o->growing,
                plural(o->growing, "site", "sites"));
    fprintf(out, " (%zu per section; vramtrace report --top N shows N, --top 0 all)\n",
            r->text_top);
}

static void print_notes(const struct vt_report *r, const struct omitted *o, FILE *out)
{
    const struct vt_summary *s = &r->analysis->summary;
    char size[32];
    bool any_omitted = o->leaks || o->held || o->growing;
    size_t failures_omitted = r->analysis->nfailures - r->failures_shown;
    if (any_omitted || failures_omitted || s->teardown_freed_allocations || s->untraced_frees)
        fputc('\n', out);
    if (any_omitted)
        print_omitted(r, o, out);
    if (failures_omitted)
        fprintf(out, "vramtrace: %zu more failing call %s not shown (--top %zu)\n",
                failures_omitted, plural(failures_omitted, "site", "sites"), r->top);
    if (s->teardown_freed_allocations)
        fprintf(out,
                "vramtrace: note: %" PRIu64 " %s (%s) in %" PRIu64 " %s freed by context "
                "teardown without a free call (not counted as leaked)\n",
                s->teardown_freed_bytes, BYTES(s->teardown_freed_bytes),
                vt_human_size(s->teardown_freed_bytes, size), s->teardown_freed_allocations,
                plural(s->teardown_freed_allocations, "allocation was", "allocations were"));
    if (s->untraced_frees && r->dump->attach)
        fprintf(out, "vramtrace: note: %" PRIu64 " %s of memory allocated before attach\n",
                s->untraced_frees, plural(s->untraced_frees, "free", "frees"));
    else if (s->untraced_frees)
        fprintf(out, "vramtrace: note: %" PRIu64 " %s of memory the tracer never saw allocated\n",
                s->untraced_frees, plural(s->untraced_frees, "free", "frees"));
}

/* LeakSanitizer's closing table, for the suppressions that matched. */
static void print_suppressions(const struct vt_suppressions *s, FILE *out)
{
    bool any = false;
    for (size_t i = 0; s && i < s->n; i++) {
        if (!s->list[i].count)
            continue;
        if (!any)
            fputs("\nSuppressions used:\n  count           bytes  pattern\n", out);
        any = true;
        fprintf(out, "%7" PRIu64 " %15" PRIu64 "  %s\n", s->list[i].count, s->list[i].bytes,
                s->list[i].pattern);
    }
}

/* What an aggregate-mode dump cannot say, and where its numbers come from. */
static void print_aggregate_note(const struct vt_report *r, FILE *out)
{
    const struct vt_aggregate *g = &r->analysis->agg;
    fprintf(out,
            "vramtrace: aggregate-mode dump (%zu %s): leaks per call site and the peak of "
            "each device are exact; the holders at a peak are those of the sample with the "
            "most live bytes, and usage over time is as fine as the samples\n",
            g->samples, plural(g->samples, "sample", "samples"));
    if (g->footer)
        return;
    fputs("vramtrace: no exit totals in the dump: leaks and counts are those of the last sample (",
          out);
    vt_print_time(g->last_sample_ns, out);
    fputs(g->totals ? ")\n" : "), the peak is the highest sample\n", out);
}

/* A refused free of a graph's allocation that no launch held then: the
 * node, and where it was made. */
static void print_graph_node(const struct vt_bad_free_event *e, const struct vt_site *node,
                             FILE *out)
{
    char size[32];
    fprintf(out,
            "  Address 0x%" PRIx64 " is a CUDA graph's allocation of %" PRIu64 " %s (%s) via %s",
            e->address, e->alloc_size, BYTES(e->alloc_size), vt_human_size(e->alloc_size, size),
            vt_api_label(node->api));
    print_device(e->alloc_device, out);
    fputs(", not allocated at this free (a graph's allocation exists from the launch that runs "
          "its node until its free); the node was made at:\n",
          out);
    print_frames(node, out);
}

/* Memcheck's layout: the refused free's stack, then what the address was
 * (the allocation's stack) and, for a double free, where it was freed first. */
static void print_invalid_free(const struct vt_report *r, size_t i, FILE *out)
{
    const struct vt_invalid_free *f = &r->analysis->bad_frees.list[i];
    const struct vt_bad_free_event *e = &f->first;
    const struct vt_site *sites = &r->invalid_sites[3 * i];
    char size[32];
    bool dbl = e->flags & VT_BAD_FREE_DOUBLE, known = e->flags & VT_BAD_FREE_ALLOC_KNOWN;
    char error[VT_CUDA_ERROR_LABEL];
    fprintf(out, "\nInvalid free%s of 0x%" PRIx64 " via %s: %s, %" PRIu64 " %s\n",
            dbl ? " (double free)" : "", e->address, vt_api_label(sites[0].api),
            vt_cuda_error_label(e->error, e->api, error), f->count,
            plural(f->count, "time", "times"));
    print_frames(&sites[0], out);
    if (e->flags & VT_BAD_FREE_GRAPH_NODE) {
        print_graph_node(e, &sites[1], out);
        return;
    }
    if (!known) {
        fputs("  Address 0x", out);
        fprintf(out, "%" PRIx64 " is no allocation the tracer saw, nor one freed lately\n",
                e->address);
        return;
    }
    fprintf(out, "  Address 0x%" PRIx64 " is %" PRIu64 " %s (%s) %s via %s", e->address,
            e->alloc_size, BYTES(e->alloc_size), vt_human_size(e->alloc_size, size),
            dbl ? "allocated" : "still allocated (the driver refused this free)",
            vt_api_label(sites[1].api));
    print_device(e->alloc_device, out);
    fprintf(out, " [%s] at:\n", vt_kind_name(e->alloc_kind));
    print_frames(&sites[1], out);
    if (!dbl)
        return;
    fputs("  and freed first at ", out);
    vt_print_time(e->first_free_ns, out);
    fprintf(out, " on thread %" PRIu64 " via %s", e->first_free_tid, vt_api_label(sites[2].api));
    if (!e->first_free_stack_id) {
        fputs(" (its stack is recorded with VRAMTRACE_FREE_STACKS=1)\n", out);
        return;
    }
    fputs(":\n", out);
    print_frames(&sites[2], out);
}

static void print_invalid_frees(const struct vt_report *r, FILE *out)
{
    const struct vt_invalid_frees *f = &r->analysis->bad_frees;
    for (size_t i = 0; i < r->invalid_shown; i++)
        print_invalid_free(r, i, out);
    if (f->n > r->invalid_shown)
        fprintf(out, "\nvramtrace: %zu more invalid-free call %s not shown (--top %zu)\n",
                f->n - r->invalid_shown, plural(f->n - r->invalid_shown, "site", "sites"), r->top);
    if (r->analysis->summary.invalid_frees && !f->n)
        fprintf(out,
                "\nvramtrace: %" PRIu64 " invalid %s: this dump does not record where "
                "(written by an older vramtrace)\n",
                r->analysis->summary.invalid_frees,
                plural(r->analysis->summary.invalid_frees, "free", "frees"));
}

/* The patterns of suppression files that matched nothing (in every dump
 * read so far): a typo, or a leak that is gone. */
void vt_render_unused_suppressions(const struct vt_suppressions *s, FILE *out)
{
    bool any = false;
    for (size_t i = 0; s && i < s->n; i++) {
        if (!vt_suppression_unused(&s->list[i]))
            continue;
        if (!any)
            fputs("\nSuppressions not used (they matched no leak):\n", out);
        any = true;
        fprintf(out, "  leak:%s  (%s:%zu)\n", s->list[i].pattern, s->list[i].origin,
                s->list[i].line);
    }
}

/* How the process ended, when that is not a plain exit. */
static void print_ending(const struct vt_report *r, FILE *out)
{
    char sentence[320];
    if (vt_ending_sentence(&r->ending, sentence, sizeof sentence))
        fprintf(out, "vramtrace: %s\n", sentence);
    if (vt_ending_reopened_sentence(&r->ending, sentence, sizeof sentence))
        fprintf(out, "vramtrace: %s\n", sentence);
    /* a cut-off dump (not just one without a footer) says where */
    if (!r->dump->complete && strcmp(r->dump->end, "no footer") != 0)
        fprintf(out, "vramtrace: partial dump: %s; the report covers what was read\n",
                r->dump->end);
    if (r->dump->disbelieved)
        fprintf(out,
                "vramtrace: damaged dump: %" PRIu64
                " record%s disbelieved (dropped or clamped: the warnings say which); the report "
                "is built from the rest\n",
                r->dump->disbelieved, r->dump->disbelieved == 1 ? "" : "s");
}

void vt_render_text(const struct vt_report *r, FILE *out)
{
    print_frameworks(r, out);
    print_attach(r, out);
    print_summary(r, out);
    print_ending(r, out);
    if (r->dump->aggregated)
        print_aggregate_note(r, out);
    struct omitted omitted = {0};
    omitted.growing = print_growing(r, out);
    omitted.leaks = print_leaks(r, false, out);
    if (r->held_stacks)
        omitted.held = print_held_entries(r, out);
    else
        print_held_lines(r, out);
    print_known_entries(r, out);
    if (has_host_leaks(r)) {
        fputc('\n', out);
        print_host_summary(r, out);
        omitted.leaks += print_leaks(r, true, out);
    }
    print_peaks(r, out);
    vt_render_text_devices(r, out);
    print_churn(r, out);
    print_failures(r, out);
    print_invalid_frees(r, out);
    print_notes(r, &omitted, out);
    print_suppressions(r->suppressions, out);
    if (r->unused_suppressions)
        vt_render_unused_suppressions(r->suppressions, out);
}
