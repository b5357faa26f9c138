/* SPDX-License-Identifier: MIT */
/* One dump reported, and judged against the limits. */
#include "report_dump.h"

#include <inttypes.h>
#include <sys/wait.h>

#include "leak_limits.h"

/* Why a dump's leaks cannot be judged, or NULL when they can. */
static const char *nothing_to_judge(const struct vt_report *r, char *buf, size_t size)
{
    const struct vt_summary *s = &r->analysis->summary;
    char name[16];
    if (r->ending.reason == VT_ENDING_EMPTY)
        return "the process ended before its first record";
    if (s->allocations == 0) {
        int n = snprintf(buf, size, "no CUDA allocation succeeded (%" PRIu64 " failed%s)",
                         s->failed_allocations,
                         s->failed_allocations ? ": is the driver, libcuda.so.1, loadable?" : "");
        if (!r->dump->complete && n > 0 && (size_t)n < size)
            snprintf(buf + n, size - (size_t)n, "; the dump ends early: %s", r->dump->end);
        return buf;
    }
    switch (r->ending.reason) {
    case VT_ENDING_SIGNAL:
        snprintf(buf, size, "the process was killed by %s", vt_signal_name(r->ending.signal, name));
        return buf;
    case VT_ENDING_RUNNING:
        return "the process is still running";
    case VT_ENDING_UNKNOWN:
        if (r->ending.waited && WIFSIGNALED(r->ending.wait_status))
            snprintf(buf, size, "the process was killed by %s (no footer)",
                     vt_signal_name(WTERMSIG(r->ending.wait_status), name));
        else if (r->ending.waited)
            snprintf(buf, size, "the process exited with status %d without the tracer's footer",
                     WEXITSTATUS(r->ending.wait_status));
        else
            return "the process ended without a footer (killed by SIGKILL, or a loader's error)";
        return buf;
    case VT_ENDING_STOPPED:
        return "tracing stopped while the process ran on";
    case VT_ENDING_DETACHED:
        return "tracing was detached while the process ran on";
    default:
        return NULL;
    }
}

enum vt_verdict vt_report_verdict(const struct vt_report *r, const struct vt_limits *limits,
                                  FILE *out)
{
    char why[256];
    const char *unjudged = nothing_to_judge(r, why, sizeof why);
    size_t broken = vt_limits_apply_invalid_frees(r, limits, out);
    uint64_t disbelieved = r->dump->disbelieved;
    if (!unjudged)
        broken += vt_limits_apply(r, limits, out);
    else
        fprintf(out, "vramtrace: %s: nothing to judge for leaks: %s\n", r->path, unjudged);
    /* what was read is evidence (a broken limit stands); a pass is not */
    if (disbelieved)
        fprintf(out,
                "vramtrace: %s: the verdict rests on a damaged dump: %" PRIu64
                " record%s disbelieved (the warnings say which)%s\n",
                r->path, disbelieved, disbelieved == 1 ? "" : "s", broken ? "" : ": not a pass");
    return broken        ? VT_VERDICT_BROKEN
           : disbelieved ? VT_VERDICT_DAMAGED
           : unjudged    ? VT_VERDICT_NO_DATA
                         : VT_VERDICT_PASS;
}

enum vt_verdict vt_report_dump(const char *path, const struct vt_report_options *opts)
{
    struct vt_loaded_report l;
    if (vt_report_load(path, opts, &l) != 0)
        return VT_VERDICT_UNREADABLE;
    int status = opts->html ? vt_write_html(&l.report, opts->html, opts->force) : 0;
    if (opts->json)
        vt_render_json(&l.report, opts->out);
    else
        vt_render_text(&l.report, opts->out);
    fflush(opts->out);
    if (opts->json_out) {
        vt_render_json(&l.report, opts->json_out);
        fflush(opts->json_out);
    }
    enum vt_verdict verdict =
        opts->limits ? vt_report_verdict(&l.report, opts->limits, stderr) : VT_VERDICT_PASS;
    vt_report_unload(&l);
    return status < 0 ? VT_VERDICT_UNREADABLE : verdict;
}
