/* SPDX-License-Identifier: MIT */
/* The report as one self-contained HTML page: inline CSS, SVG and a few
 * lines of optional script, nothing fetched. Usage over time per device
 * (the bins of tools/analyze/usage_series.c) with markers and the peak, then the
 * growing sites, the leaks at exit, the peak breakdown and the failed
 * allocations as plain tables, stacks in <details>: readable without
 * JavaScript. */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_errors.h"
#include "format.h"
#include "html_page.h"
#include "output_file.h"
#include "report.h"
#include "site_label.h"
#include "verdicts.h"
#include "timeline.h"
#include "xalloc.h"

const char vt_html_style[] =
    "body{font:14px/1.45 system-ui,sans-serif;margin:24px auto;max-width:1100px;"
    "padding:0 16px;color:#1d232b;background:#fff}"
    "h1{font-size:22px;margin:0 0 4px}h2{font-size:17px;margin:28px 0 8px;"
    "border-bottom:1px solid #d8dde3;padding-bottom:4px}"
    ".meta{color:#59636e;margin:0 0 12px}.warn{color:#9a3b00}"
    ".cards{display:flex;flex-wrap:wrap;gap:10px;margin:12px 0}"
    ".card{border:1px solid #d8dde3;border-radius:6px;padding:8px 12px;min-width:100px}"
    ".card b{display:block;font-size:18px}.card.bad b{color:#b3261e}"
    "table{border-collapse:collapse;width:100%}th,td{text-align:left;padding:5px 8px;"
    "border-bottom:1px solid #e6e9ed;vertical-align:top}th{background:#f4f6f8}"
    "td.num,th.num{text-align:right;white-space:nowrap}"
    "code,ol.stack{font:12.5px ui-monospace,monospace}ol.stack{margin:4px 0;padding-left:30px}"
    "summary{cursor:pointer}.fn{font-weight:600}.loc{color:#59636e}"
    "svg{display:block;max-width:100%;height:auto}"
    ".area{fill:#4c8ed9;fill-opacity:.35;stroke:#1f5fa8;stroke-width:1.2}"
    ".axis{stroke:#8a949e;stroke-width:1}.grid{stroke:#e6e9ed}.label{font-size:11px;fill:#59636e}"
    ".mark{stroke:#7a4fc4;stroke-dasharray:4 3}.mark-label{font-size:11px;fill:#7a4fc4}"
    ".peak{fill:#b3261e}.peak-label{font-size:12px;fill:#b3261e;font-weight:600}"
    ".untraced{fill:#e0932b;fill-opacity:.45}.others{fill:#8a949e;fill-opacity:.4}"
    ".outside{fill:#c9a45c;fill-opacity:.4}"
    ".steps{fill:none;stroke:#1f5fa8;stroke-width:1.6}.step{fill:#1f5fa8}"
    ".key{display:inline-block;width:12px;height:10px;margin:0 4px 0 10px}"
    ".key.untraced{background:rgba(224,147,43,.45)}.key.others{background:rgba(138,148,158,.4)}"
    ".key.outside{background:rgba(201,164,92,.4)}"
    "button{margin:0 0 8px;font:inherit}";

void vt_html_text(const char *s, FILE *out)
{
    for (; s && *s; s++) {
        switch (*s) {
        case '&':
            fputs("&amp;", out);
            break;
        case '<':
            fputs("&lt;", out);
            break;
        case '>':
            fputs("&gt;", out);
            break;
        case '"':
            fputs("&quot;", out);
            break;
        case '\'':
            fputs("&#39;", out);
            break;
        default:
            if ((unsigned char)*s >= 0x20 && *s != 0x7f)
                fputc(*s, out);
        }
    }
}

static void put_text(const char *s, FILE *out)
{
    vt_html_text(s, out);
}

static void put_size(uint64_t bytes, FILE *out)
{
    char size[32];
    fputs(vt_human_size(bytes, size), out);
}

static void put_device(int64_t device, FILE *out)
{
    if (device < 0)
        fputs("unknown", out);
    else
        fprintf(out, "%" PRId64, device);
}

/* ---- the chart ---- */

double vt_html_x(const struct vt_html_scale *s, uint64_t ns)
{
    double w = CHART_W - CHART_LEFT - 10;
    return CHART_LEFT + (s->end_ns ? (double)ns / (double)s->end_ns * w : 0);
}

double vt_html_y(const struct vt_html_scale *s, uint64_t bytes)
{
    double h = CHART_H - CHART_TOP - CHART_BOTTOM;
    return CHART_TOP + h - (s->top_bytes ? (double)bytes / (double)s->top_bytes * h : 0);
}

/* The highest live bytes of each bin as a step area. */
static void chart_area(const struct vt_usage *u, const struct vt_usage_device *d,
                       const struct vt_html_scale *s, FILE *out)
{
    uint64_t start = 0;
    fprintf(out, "<path class=\"area\" d=\"M%.1f %.1f", vt_html_x(s, 0), vt_html_y(s, 0));
    for (size_t i = 0; i <= d->bin_max.n; i++) {
        struct vt_timeline_sample b = vt_timeline_sample(u, d, i);
        fprintf(out, "L%.1f %.1fL%.1f %.1f", vt_html_x(s, start), vt_html_y(s, b.max_bytes),
                vt_html_x(s, b.end_ns), vt_html_y(s, b.max_bytes));
        start = b.end_ns;
    }
    fprintf(out, "L%.1f %.1fZ\"/>\n", vt_html_x(s, start), vt_html_y(s, 0));
}

void vt_html_axes(const struct vt_html_scale *s, const char *x_end, FILE *out)
{
    char buf[32];
    double x0 = vt_html_x(s, 0), x1 = vt_html_x(s, s->end_ns), y0 = vt_html_y(s, 0);
    for (int k = 1; k <= 4; k++) {
        uint64_t v = s->top_bytes / 4 * (uint64_t)k;
        fprintf(out, "<line class=\"grid\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x0,
                x1, vt_html_y(s, v), vt_html_y(s, v));
        fprintf(out, "<text class=\"label\" x=\"%d\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
                CHART_LEFT - 6, vt_html_y(s, v) + 4, vt_human_size(v, buf));
    }
    fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" y2=\"%.1f\"/>", x0, x1,
            y0, y0);
    fprintf(out, "<line class=\"axis\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" y2=\"%.1f\"/>\n", x0, x0,
            CHART_TOP, y0);
    fprintf(out, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\">0</text>", x0, y0 + 16);
    fprintf(out, "<text class=\"label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n", x1,
            y0 + 16, x_end);
}

/* Labels that would run into the previous one are left to the tooltip;
 * near the right edge a label ends at its line instead of starting there. */
static void chart_marks(const struct vt_usage *u, const struct vt_html_scale *s, FILE *out)
{
    char buf[32];
    double label_end = 0;
    for (size_t i = 0; i < u->nmarks; i++) {
        double x = vt_html_x(s, u->marks[i].time_ns);
        double width = 6.5 * (double)strlen(u->marks[i].label);
        bool flip = x + 2 + width > CHART_W;
        double left = flip ? x - 2 - width : x + 2;
        fprintf(out, "<g><title>marker %zu: ", i);
        put_text(u->marks[i].label, out);
        fprintf(out,
                " at %s</title><line class=\"mark\" x1=\"%.1f\" x2=\"%.1f\" y1=\"%d\" "
                "y2=\"%.1f\"/>",
                vt_format_time(u->marks[i].time_ns, buf), x, x, CHART_TOP - 4, vt_html_y(s, 0));
        if (left >= label_end) {
            fprintf(out, "<text class=\"mark-label\" x=\"%.1f\" y=\"%d\">", left, CHART_TOP - 8);
            put_text(u->marks[i].label, out);
            fputs("</text>", out);
            label_end = left + width + 6;
        }
        fputs("</g>\n", out);
    }
}

static void chart_peak(const struct vt_usage_device *d, const struct vt_html_scale *s, FILE *out)
{
    char size[32], time[32];
    double x = vt_html_x(s, d->peak_time_ns), y = vt_html_y(s, d->peak_bytes);
    bool right_half = x > CHART_W / 2;
    fprintf(out,
            "<g><title>peak %s at %s</title><circle class=\"peak\" cx=\"%.1f\" cy=\"%.1f\" "
            "r=\"4.5\"/>",
            vt_human_size(d->peak_bytes, size), vt_format_time(d->peak_time_ns, time), x, y);
    fprintf(out,
            "<text class=\"peak-label\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\">peak %s"
            "</text></g>\n",
            right_half ? x - 8 : x + 8, y + 4, right_half ? "end" : "start", size);
}

/* The sample of DEVICE in effect at NS (the last one taken by then), or NULL. */
static const struct vt_device_sample *sample_at(const struct vt_device_view *v, int64_t device,
                                                uint64_t ns)
{
    const struct vt_device_sample *found = NULL;
    for (size_t i = 0; i < v->n && v->samples[i].time_ns <= ns; i++)
        if (v->samples[i].device == device)
            found = &v->samples[i];
    return found;
}

static void band_rect(const char *class, double x0, double x1, double y_top, double y_bottom,
                      FILE *out)
{
    if (y_bottom > y_top && x1 > x0)
        fprintf(out,
                "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
                "height=\"%.1f\"/>",
                class, x0, y_top, x1 - x0, y_bottom - y_top);
}

/* The driver's view stacked on the traced bytes, bin by bin, from the
 * DEVICE_USAGE sample in effect: this process's untraced memory, then the
 * other processes' (without NVML: the rest of what the device had in use,
 * unsplit), so the band's top is what the device holds. */
static void chart_driver_band(const struct vt_usage *u, const struct vt_device_view *v,
                              const struct vt_usage_device *d, const struct vt_html_scale *s,
                              FILE *out)
{
    char own[32], others[32];
    uint64_t start = 0;
    for (size_t i = 0; i <= d->bin_max.n; i++, start = vt_timeline_sample(u, d, i - 1).end_ns) {
        struct vt_timeline_sample b = vt_timeline_sample(u, d, i);
        const struct vt_device_sample *p = sample_at(v, d->device, b.end_ns);
        if (!p)
            continue;
        uint64_t untraced =
            p->has_split && p->process_untraced > 0 ? (uint64_t)p->process_untraced : 0;
        uint64_t rest = p->has_split ? (p->other_processes > 0 ? (uint64_t)p->other_processes : 0)
                        : p->driver_used > p->traced_live ? p->driver_used - p->traced_live
                                                          : 0;
        double x0 = vt_html_x(s, start), x1 = vt_html_x(s, b.end_ns);
        fprintf(out, "<g><title>%s this process outside the traced calls, %s %s</title>",
                p->has_split ? vt_human_size(untraced, own) : "?", vt_human_size(rest, others),
                p->has_split ? "other processes" : "outside the traced calls, unsplit");
        band_rect("untraced", x0, x1, vt_html_y(s, b.max_bytes + untraced),
                  vt_html_y(s, b.max_bytes), out);
        band_rect(p->has_split ? "others" : "outside", x0, x1,
                  vt_html_y(s, b.max_bytes + untraced + rest), vt_html_y(s, b.max_bytes + untraced),
                  out);
        fputs("</g>\n", out);
    }
}

/* The scale's top: the peak, or the highest band over it. */
static uint64_t highest_driver_used(const struct vt_device_view *v, int64_t device)
{
    uint64_t top = 0;
    for (size_t i = 0; i < v->n; i++) {
        const struct vt_device_sample *p = &v->samples[i];
        uint64_t rest = p->driver_used > p->traced_live ? p->driver_used - p->traced_live : 0;
        if (p->device == device && rest > top)
            top = rest;
    }
    return top;
}

/* The keys of the bands that hold anything on DEVICE (none: no legend). */
static void band_legend(const struct vt_device_view *v, int64_t device, FILE *out)
{
    bool untraced = false, others = false, outside = false;
    for (size_t i = 0; i < v->n; i++) {
        const struct vt_device_sample *p = &v->samples[i];
        if (p->device != device)
            continue;
        untraced |= p->has_split && p->process_untraced > 0;
        others |= p->has_split && p->other_processes > 0;
        outside |= !p->has_split && p->driver_used > p->traced_live;
    }
    if (!untraced && !others && !outside)
        return;
    fputs(" The band on top of it is the driver's view (at each marker, sample and at exit):", out);
    if (untraced)
        fputs(" <span class=\"key untraced\"></span>this process outside the traced calls", out);
    if (others)
        fputs(" <span class=\"key others\"></span>other processes (per NVML)", out);
    if (outside)
        fputs(" <span class=\"key outside\"></span>outside the traced calls, unsplit (no NVML)",
              out);
    fputs("; its top is what the device had in use.", out);
}

/* A figure's SVG opened, "live bytes on device N OVER", with its axes. */
static void open_chart(const struct vt_usage_device *d, const char *over,
                       const struct vt_html_scale *s, const char *x_end, FILE *out)
{
    fprintf(out,
            "<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" "
            "width=\"%d\" height=\"%d\" role=\"img\" aria-label=\"live bytes on device ",
            CHART_W, CHART_H, CHART_W, CHART_H);
    put_device(d->device, out);
    fprintf(out, " %s\" class=\"chart\">\n", over);
    vt_html_axes(s, x_end, out);
}

static void chart(const struct vt_usage *u, const struct vt_usage_device *d,
                  const struct vt_device_view *v, FILE *out)
{
    uint64_t top = d->peak_bytes + highest_driver_used(v, d->device);
    struct vt_html_scale s = {u->end_ns, top + top / 10};
    char size[32], end_size[32], time[32], tick[32];
    if (!s.top_bytes)
        s.top_bytes = 1;
    open_chart(d, "over time", &s, vt_format_time(s.end_ns, time), out);
    chart_driver_band(u, v, d, &s, out);
    chart_area(u, d, &s, out);
    chart_marks(u, &s, out);
    chart_peak(d, &s, out);
    fputs("</svg>\n<figcaption>Device ", out);
    put_device(d->device, out);
    fprintf(out,
            ": peak %s (%" PRIu64 " bytes) at %s, %s live at the end; highest live bytes "
            "per %s.",
            vt_human_size(d->peak_bytes, size), d->peak_bytes,
            vt_format_time(d->peak_time_ns, time), vt_human_size(d->live_bytes, end_size),
            vt_format_time(u->tick_ns, tick));
    band_legend(v, d->device, out);
    fputs("</figcaption>\n</figure>\n", out);
}

/* Live bytes on device D at each marker (what usage_series.c sampled). */
static uint64_t *live_at_marks(const struct vt_usage *u, const struct vt_usage_device *d,
                               uint64_t *top)
{
    uint64_t *live = vt_xcalloc(u->nmarks, sizeof *live);
    *top = 0;
    for (size_t i = 0; i < u->nsites; i++) {
        const struct vt_usage_site *site = &u->sites[i];
        if (site->device != d->device || !vt_kind_counts_as_vram(site->kind))
            continue;
        for (size_t k = 0; k < u->nmarks && k < site->at_marks.n; k++)
            live[k] += site->at_marks.bytes[k];
    }
    for (size_t k = 0; k < u->nmarks; k++)
        *top = live[k] > *top ? live[k] : *top;
    return live;
}

/* The same device per marker, the marker's number on the x axis: steps
 * that follow a long start-up bunch into one line on a time axis, and
 * growth would read as one jump. */
static void chart_by_marker(const struct vt_usage *u, const struct vt_usage_device *d, FILE *out)
{
    char size[32], end[32];
    uint64_t top, *live = live_at_marks(u, d, &top);
    struct vt_html_scale s = {u->nmarks - 1, top + top / 10 + 1};
    snprintf(end, sizeof end, "marker %zu", u->nmarks - 1);
    open_chart(d, "per marker", &s, end, out);
    fputs("<path class=\"steps\" d=\"", out);
    for (size_t k = 0; k < u->nmarks; k++)
        fprintf(out, "%c%.1f %.1f", k ? 'L' : 'M', vt_html_x(&s, k), vt_html_y(&s, live[k]));
    fputs("\"/>\n", out);
    for (size_t k = 0; k < u->nmarks; k++) {
        fprintf(out, "<g><title>marker %zu: ", k);
        put_text(u->marks[k].label, out);
        fprintf(out,
                ", %s live</title><rect class=\"step\" x=\"%.1f\" y=\"%.1f\" "
                "width=\"5\" height=\"5\"/></g>\n",
                vt_human_size(live[k], size), vt_html_x(&s, k) - 2.5, vt_html_y(&s, live[k]) - 2.5);
    }
    fputs("</svg>\n<figcaption>Device ", out);
    put_device(d->device, out);
    fprintf(out,
            ": live bytes right before each of the %zu markers, by the marker's number "
            "(the step): growth reads as a slope.</figcaption>\n</figure>\n",
            u->nmarks);
    free(live);
}

/* ---- tables ---- */

/* file:line, module+offset, or the address */
static void put_location(const struct vt_frame *f, FILE *out)
{
    if (f->file) {
        put_text(f->file, out);
        fprintf(out, ":%u", f->line);
    } else if (f->module) {
        put_text(f->module, out);
        fprintf(out, "+0x%" PRIx64, f->offset);
    } else if (!f->python) {
        fprintf(out, "0x%" PRIx64, f->address);
    }
}

static void put_frame(const struct vt_frame *f, FILE *out)
{
    fputs("<span class=\"fn\">", out);
    put_text(f->function ? f->function : "??", out);
    fputs("</span> <span class=\"loc\">", out);
    put_location(f, out);
    fputs(f->inlined ? " (inlined)</span></li>\n" : "</span></li>\n", out);
}

static void put_folded(const struct vt_frames_view *v, FILE *out)
{
    fprintf(out,
            "<li class=\"dropped\"><span class=\"loc\">&hellip; %zu runtime frame%s "
            "(start-up, loader, test runner, interpreter: folded)</span></li>\n",
            v->runtime, v->runtime == 1 ? "" : "s");
}

static void put_framework_run(const struct vt_site *site, const struct vt_frames_view *v, size_t i,
                              FILE *out)
{
    enum vt_framework fw;
    size_t n = vt_frames_view_run(site, v, i, &fw);
    char call[1024];
    if (!n)
        return;
    vt_frame_call_name(site->frames[i + n - 1], call, sizeof call);
    fprintf(out, "<li class=\"dropped\"><span class=\"loc\">&hellip; %zu %s frame%s in ", n,
            vt_framework_name(fw), n == 1 ? "" : "s");
    put_text(call, out);
    fputs(" (folded)</span></li>\n", out);
}

/* SITE's frames as a list, runtime frames folded as in the text report. */
static void put_frame_list(const struct vt_site *site, FILE *out)
{
    struct vt_frames_view view;
    vt_frames_view(site, &view);
    fputs("<ol class=\"stack\" start=\"0\">\n", out);
    for (size_t i = 0; i <= site->nframes; i++) {
        if (site->dropped && i == site->cut_at)
            fprintf(out,
                    "<li class=\"dropped\"><span class=\"loc\">&hellip; %" PRIu64
                    " frames dropped by the tracer (a deeper stack than it keeps) "
                    "&hellip;</span></li>\n",
                    site->dropped);
        if (i == site->nframes)
            break;
        if (i == view.cut_at) {
            fprintf(out,
                    "<li class=\"dropped\"><span class=\"loc\">&hellip; %zu more frames "
                    "(at most %zu shown)</span></li>\n",
                    view.cut_hidden, view.max_frames);
            break;
        }
        if (view.runtime && i == view.fold_at)
            put_folded(&view, out);
        put_framework_run(site, &view, i, out);
        if (!vt_frames_view_shows(site, &view, i))
            continue;
        fprintf(out, "<li value=\"%zu\">", i);
        put_frame(site->frames[i], out);
        if (site->python_truncated && i + 1 == site->python_end)
            fputs("<li class=\"loc\">&hellip; outer Python frames not recorded</li>\n", out);
    }
    fputs("</ol>", out);
}

/* The NVTX range a usage site made most of its bytes in (NULL: none);
 * several: it allocated in other ranges too. */
struct phase {
    const char *name;
    bool several;
};

static struct phase site_phase(const struct vt_report *r, size_t index)
{
    struct phase p;
    p.name = vt_dump_phase_name(r->dump,
                                vt_usage_site_phase(&r->analysis->usage.sites[index], &p.several));
    return p;
}

/* " during forward" (" and others" when several), as the text report says it. */
static void put_phase(struct phase p, FILE *out)
{
    if (!p.name)
        return;
    fputs(" <span class=\"phase\">during ", out);
    put_text(p.name, out);
    fputs(p.several ? " and others</span>" : "</span>", out);
}

/* The site's label (LABEL, or its first own frame's) as the summary, and
 * whom it allocated for when that was another thread, and its PHASE; the
 * stack when opened, then that thread's Python frames. */
static void put_site(const struct vt_site *site, const char *label, bool open, struct phase phase,
                     FILE *out)
{
    if (site->nframes == 0) {
        fputs("<td>(no stack recorded)", out);
        put_phase(phase, out);
        fputs("</td>", out);
        return;
    }
    char own[1024];
    if (!label)
        vt_site_label(site, 1, own, sizeof own);
    fprintf(out, "<td><details%s><summary><code class=\"site\">", open ? " open" : "");
    put_text(label ? label : own, out);
    fputs("</code>", out);
    if (site->behalf) {
        vt_site_label(site->behalf, 1, own, sizeof own);
        fputs(" <span class=\"loc\">on behalf of</span> <code class=\"site\">", out);
        put_text(own, out);
        fputs("</code>", out);
    }
    put_phase(phase, out);
    fprintf(out, " <span class=\"loc\">(%zu frames)</span></summary>\n", site->nframes);
    put_frame_list(site, out);
    if (site->behalf) {
        fputs("\n<p class=\"loc\">on behalf of the thread that called backward() and waited "
              "for it:</p>\n",
              out);
        put_frame_list(site->behalf, out);
    }
    fputs("</details></td>", out);
}

/* A site the text report names no phase for: leaks, failures, bad frees. */
static void put_stack(const struct vt_site *site, const char *label, bool open, FILE *out)
{
    put_site(site, label, open, (struct phase){NULL, false}, out);
}

/* The threads that made a leak's allocations: name (tid) each. */
static void put_threads(const struct vt_report *r, const struct vt_leak *l, FILE *out)
{
    fputs("<td>", out);
    for (size_t i = 0; i < l->nthreads; i++) {
        const char *name = vt_dump_thread_name(r->dump, l->threads[i].tid);
        fputs(i ? "<br>" : "", out);
        put_text(name ? name : "?", out);
        fprintf(out, " <span class=\"loc\">(tid %" PRIu64 ")</span>", l->threads[i].tid);
    }
    if (l->other_threads)
        fputs("<br>&hellip;", out);
    fputs("</td>", out);
}

static void put_bytes_cell(uint64_t bytes, FILE *out)
{
    fprintf(out, "<td class=\"num\" title=\"%" PRIu64 " bytes\">", bytes);
    put_size(bytes, out);
    fputs("</td>", out);
}

static void put_where(unsigned api, unsigned kind, int64_t device, FILE *out)
{
    fputs("<td>", out);
    put_text(vt_api_label(api), out);
    fputs("</td><td>", out);
    put_text(vt_kind_name(kind), out);
    fputs("</td><td class=\"num\">", out);
    put_device(device, out);
    fputs("</td>", out);
}

static void leaks_table(const struct vt_report *r, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    if (r->live_not_leaked)
        fputs("<h2 id=\"leaks\">Live at the end (not leaks: the process did not end on its "
              "own)</h2>\n",
              out);
    else
        fputs("<h2 id=\"leaks\">Leaks at exit</h2>\n", out);
    if (a->summary.known_bytes) { /* known framework memory is not freed either */
        fputs("<p>Known framework memory held at the end, not counted as leaked: ", out);
        put_size(a->summary.known_bytes, out);
        fputs(" (<code>vramtrace report</code> says what it is).</p>\n", out);
        if (a->nleaks == 0)
            return;
    }
    if (a->nleaks == 0 && a->summary.suppressed_bytes) { /* suppressed is not freed */
        fputs("<p>No unsuppressed leaks (", out);
        put_size(a->summary.suppressed_bytes, out);
        fputs(" suppressed).</p>\n", out);
        return;
    }
    if (a->nleaks == 0) {
        fputs("<p>All memory was freed.</p>\n", out);
        return;
    }
    fputs("<table><thead><tr><th class=\"num\">Bytes</th><th class=\"num\">Allocations</th>"
          "<th>API</th><th>Kind</th><th class=\"num\">Device</th><th>Call site</th>"
          "<th>Threads</th></tr></thead><tbody>\n",
          out);
    const struct vt_site **sites = vt_xcalloc(r->leaks_shown, sizeof *sites);
    for (size_t i = 0; i < r->leaks_shown; i++)
        sites[i] = &r->leak_sites[i];
    char **labels = vt_site_labels(sites, r->leaks_shown);
    for (size_t i = 0; i < r->leaks_shown; i++) {
        const struct vt_leak *l = &a->leaks[i];
        fputs("<tr>", out);
        put_bytes_cell(l->bytes, out);
        fprintf(out, "<td class=\"num\">%" PRIu64 "</td>", l->allocations);
        put_where(r->leak_sites[i].api, l->kind, l->device, out);
        put_stack(&r->leak_sites[i], labels[i], i == 0, out);
        put_threads(r, l, out);
        fputs("</tr>\n", out);
    }
    vt_site_labels_free(labels, r->leaks_shown);
    free(sites);
    fputs("</tbody></table>\n", out);
    if (a->nleaks > r->leaks_shown)
        fprintf(out, "<p>%zu more leaking call sites not shown.</p>\n", a->nleaks - r->leaks_shown);
}

static void growing_table(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    bool any = false;
    char time[32];
    fputs("<h2 id=\"growing\">Growing call sites</h2>\n", out);
    for (size_t i = 0; i < r->sites_shown; i++) {
        size_t index = r->site_order[i];
        const struct vt_usage_site *s = &u->sites[index];
        if (!s->growing)
            break;
        if (!any)
            fprintf(out,
                    "<table><thead><tr><th class=\"num\">Growth per %s</th><th>Since</th>"
                    "<th class=\"num\">Live at exit</th><th>API</th><th>Kind</th>"
                    "<th class=\"num\">Device</th><th>Call site</th></tr></thead><tbody>\n",
                    u->by_marks ? "marker interval" : "tick");
        any = true;
        fputs("<tr>", out);
        put_bytes_cell((uint64_t)s->bytes_per_interval, out);
        fputs("<td>", out);
        if (u->by_marks) {
            fprintf(out, "marker %zu &ldquo;", s->growth_start);
            put_text(u->marks[s->growth_start].label, out);
            fputs("&rdquo; (", out);
        }
        fprintf(out, "%s%s</td>", vt_format_time(s->growth_start_ns, time), u->by_marks ? ")" : "");
        put_bytes_cell(s->live_bytes, out);
        put_where(r->usage_sites[index].api, s->kind, s->device, out);
        put_site(&r->usage_sites[index], NULL, false, site_phase(r, index), out);
        fputs("</tr>\n", out);
    }
    if (any)
        fputs("</tbody></table>\n", out);
    else {
        char verdict[512];
        vt_growth_verdict(r, verdict, sizeof verdict);
        fputs("<p>", out);
        put_text(verdict, out);
        fputs("</p>\n", out);
    }
}

/* Where the holders are a framework's tensors: its segments' room that no
 * tensor used, so that the table sums to the peak. */
static void cache_room_row(struct vt_usage_cache c, FILE *out)
{
    if (!c.reserved)
        return;
    fputs("<tr>", out);
    put_bytes_cell(c.free, out);
    fprintf(out, "<td colspan=\"4\">free in %s (of ", vt_report_cache_name(&c));
    put_size(c.reserved, out);
    fprintf(out, " reserved; its %s are listed)</td></tr>\n", vt_report_cache_parts(&c));
}

static void peak_tables(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    char time[32];
    fputs("<h2 id=\"peak\">Peak breakdown</h2>\n", out);
    if (u->ndevices == 0)
        fputs("<p>No device memory was allocated.</p>\n", out);
    for (size_t d = 0; d < u->ndevices; d++) {
        const struct vt_usage_device *dev = &u->devices[d];
        size_t *holders, n = vt_report_peak_holders(r, dev->device, &holders);
        fputs("<h3>Device ", out);
        put_device(dev->device, out);
        fputs(": ", out);
        put_size(dev->peak_bytes, out);
        fprintf(out, " at %s</h3>\n", vt_format_time(dev->peak_time_ns, time));
        if (dev->holders_approx) { /* aggregate mode */
            fputs("<p>Held at the sample with the most live bytes (", out);
            put_size(dev->holders_bytes, out);
            fprintf(out, " at %s), not at the peak itself.</p>\n",
                    vt_format_time(dev->holders_time_ns, time));
        }
        fputs("<table><thead><tr><th class=\"num\">Held</th><th>API</th><th>Kind</th>"
              "<th class=\"num\">Device</th><th>Call site</th></tr></thead><tbody>\n",
              out);
        const struct vt_site **sites = vt_xcalloc(n, sizeof *sites);
        for (size_t i = 0; i < n; i++)
            sites[i] = &r->usage_sites[holders[i]];
        char **labels = vt_site_labels(sites, n);
        for (size_t i = 0; i < n; i++) {
            const struct vt_usage_site *s = &u->sites[holders[i]];
            fputs("<tr>", out);
            put_bytes_cell(s->bytes_at_device_peak, out);
            put_where(r->usage_sites[holders[i]].api, s->kind, s->device, out);
            put_site(&r->usage_sites[holders[i]], labels[i], false, site_phase(r, holders[i]), out);
            fputs("</tr>\n", out);
        }
        vt_site_labels_free(labels, n);
        free(sites);
        free(holders);
        cache_room_row(vt_usage_cache(u, dev->device, VT_USAGE_AT_PEAK), out);
        fputs("</tbody></table>\n", out);
    }
}

/* Allocate/free pairs per site and the time inside their calls. */
static void churn_table(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    uint64_t pairs, call_ns;
    size_t nsites, *order, n = vt_report_churn_sites(r, &order);
    char time[32];
    vt_report_churn_totals(r, &pairs, &call_ns, &nsites);
    if (pairs) {
        fprintf(out,
                "<h2 id=\"churn\">Churn</h2>\n<p>%" PRIu64 " allocate/free pairs at %zu call "
                "sites, %s inside those calls.</p>\n<table><thead><tr><th class=\"num\">Pairs</th>"
                "<th class=\"num\">Time in calls</th><th>API</th><th>Kind</th>"
                "<th class=\"num\">Device</th><th>Call site</th></tr></thead><tbody>\n",
                pairs, nsites, vt_format_time(call_ns, time));
        const struct vt_site **list = vt_xcalloc(n, sizeof *list);
        for (size_t i = 0; i < n; i++)
            list[i] = &r->usage_sites[order[i]];
        char **labels = vt_site_labels(list, n);
        size_t hint = n; /* the first large one */
        for (size_t i = 0; i < n; i++) {
            const struct vt_usage_site *s = &u->sites[order[i]];
            fprintf(out, "<tr><td class=\"num\">%" PRIu64 "</td><td class=\"num\">%s</td>",
                    s->pairs, vt_format_time(s->call_ns, time));
            put_where(list[i]->api, s->kind, s->device, out);
            put_stack(list[i], labels[i], false, out);
            fputs("</tr>\n", out);
            if (hint == n && vt_usage_churn_large(u, s))
                hint = i;
        }
        fputs("</tbody></table>\n", out);
        char text[160];
        if (hint < n)
            fprintf(out, "<p>%s.</p>\n", vt_churn_hint(list[hint]->api, text, sizeof text));
        vt_site_labels_free(labels, n);
        free(list);
    }
    free(order);
}

static void failures_table(const struct vt_report *r, FILE *out)
{
    const struct vt_analysis *a = r->analysis;
    if (a->nfailures == 0)
        return;
    fputs("<h2 id=\"failed\">Failed allocations</h2>\n<table><thead><tr><th class=\"num\">"
          "Requested</th><th class=\"num\">Times</th><th class=\"num\">Error</th><th>API</th>"
          "<th>Kind</th><th class=\"num\">Device</th><th>Call site</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < r->failures_shown; i++) {
        const struct vt_failure *f = &a->failures[i];
        fputs("<tr>", out);
        put_bytes_cell(f->size, out);
        char error[VT_CUDA_ERROR_LABEL];
        fprintf(out, "<td class=\"num\">%" PRIu64 "</td><td class=\"num\">%s</td>", f->count,
                vt_cuda_error_label(f->error, f->api, error));
        put_where(r->failure_sites[i].api, f->kind, f->device, out);
        put_stack(&r->failure_sites[i], NULL, false, out);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

/* What the address of a refused free was: an allocation (its stack), freed
 * before (where, when), a graph's allocation node, or nothing the tracer
 * knows. */
static void put_bad_free_target(const struct vt_report *r, size_t i, FILE *out)
{
    const struct vt_bad_free_event *e = &r->analysis->bad_frees.list[i].first;
    const struct vt_site *sites = &r->invalid_sites[3 * i];
    char time[32];
    if (e->flags & VT_BAD_FREE_GRAPH_NODE) {
        put_stack(&sites[1], NULL, false, out);
        fputs("<td>a CUDA graph's allocation, not allocated at this free</td>", out);
        return;
    }
    if (!(e->flags & VT_BAD_FREE_ALLOC_KNOWN)) {
        fputs("<td>no allocation the tracer saw, nor one freed lately</td><td></td>", out);
        return;
    }
    put_stack(&sites[1], NULL, false, out);
    if (!(e->flags & VT_BAD_FREE_DOUBLE)) {
        fputs("<td>still allocated: the driver refused this free</td>", out);
        return;
    }
    if (e->first_free_stack_id) {
        put_stack(&sites[2], NULL, false, out);
        return;
    }
    fprintf(out, "<td>at %s on thread %" PRIu64 " via ", vt_format_time(e->first_free_ns, time),
            e->first_free_tid);
    put_text(vt_api_label(sites[2].api), out);
    fputs(" (stack: VRAMTRACE_FREE_STACKS=1)</td>", out);
}

static void invalid_frees_table(const struct vt_report *r, FILE *out)
{
    const struct vt_invalid_frees *f = &r->analysis->bad_frees;
    if (f->n == 0)
        return;
    fputs("<h2 id=\"invalid\">Invalid frees</h2>\n<table><thead><tr><th>Address</th>"
          "<th class=\"num\">Times</th><th>Kind</th><th>API</th><th>Freed at</th>"
          "<th>Allocated at</th><th>First freed at</th></tr></thead><tbody>\n",
          out);
    for (size_t i = 0; i < r->invalid_shown; i++) {
        const struct vt_invalid_free *e = &f->list[i];
        fprintf(out,
                "<tr><td><code>0x%" PRIx64 "</code></td><td class=\"num\">%" PRIu64
                "</td><td>%s</td><td>",
                e->first.address, e->count,
                e->first.flags & VT_BAD_FREE_DOUBLE ? "double free" : "invalid free");
        put_text(vt_api_label(r->invalid_sites[3 * i].api), out);
        fputs("</td>", out);
        put_stack(&r->invalid_sites[3 * i], NULL, i == 0, out);
        put_bad_free_target(r, i, out);
        fputs("</tr>\n", out);
    }
    fputs("</tbody></table>\n", out);
}

/* ---- the page ---- */

static void card(const char *label, uint64_t bytes, bool bad, FILE *out)
{
    fprintf(out, "<div class=\"card%s\"><b>", bad ? " bad" : "");
    put_size(bytes, out);
    fprintf(out, "</b>%s</div>\n", label);
}

static void count_card(const char *label, uint64_t n, bool bad, FILE *out)
{
    fprintf(out, "<div class=\"card%s\"><b>%" PRIu64 "</b>%s</div>\n", bad ? " bad" : "", n, label);
}

static void header(const struct vt_report *r, FILE *out)
{
    const struct vt_process *p = &r->dump->process;
    const struct vt_summary *s = &r->analysis->summary;
    char time[32];
    fputs("<h1>vramtrace report</h1>\n<p class=\"meta\"><code>", out);
    for (size_t i = 0; i < p->argc; i++) {
        put_text(p->argv[i], out);
        fputc(i + 1 < p->argc ? ' ' : '\n', out);
    }
    fputs("</code><br>", out);
    if (p->present)
        fprintf(out, "pid %" PRIu64 " on ", p->pid);
    put_text(p->hostname ? p->hostname : "an unknown host", out);
    fprintf(out, ", %s traced; dump <code>", vt_format_time(r->dump->last_time_ns, time));
    put_text(r->path, out);
    fputs("</code></p>\n", out);
    char sentence[320];
    if (vt_ending_sentence(&r->ending, sentence, sizeof sentence)) {
        fputs("<p class=\"warn\">", out);
        put_text(sentence, out);
        fputs(".</p>\n", out);
    }
    if (vt_ending_reopened_sentence(&r->ending, sentence, sizeof sentence)) {
        fputs("<p>", out);
        put_text(sentence, out);
        fputs(".</p>\n", out);
    }
    if (!r->dump->complete && strcmp(r->dump->end, "no footer") != 0) {
        fputs("<p class=\"warn\">Partial dump: ", out);
        put_text(r->dump->end, out);
        fputs("; the report covers what was read.</p>\n", out);
    }
    fputs("<div class=\"cards\">\n", out);
    /* growth leads: the leak of a long job, what check fails on */
    card("device memory growth at growing call sites", vt_usage_growth_bytes(&r->analysis->usage),
         vt_usage_growing_sites(&r->analysis->usage) > 0, out);
    if (r->live_not_leaked)
        card("device memory live at the end", s->live_at_end_bytes, false, out);
    else
        card("device memory leaked", s->leaked_bytes, s->leaked_bytes > 0, out);
    char peak_label[48] = "peak";
    if (s->peak_device >= 0) /* one device's own peak: no sum over devices */
        snprintf(peak_label, sizeof peak_label, "peak (device %" PRId64 ")", s->peak_device);
    if (s->held_bytes) /* still referenced when the script ended: not a leak */
        card("held at the end (still referenced when the script ended)", s->held_bytes, false, out);
    card(peak_label, s->peak_bytes, false, out);
    count_card("allocations", s->allocations, false, out);
    count_card("frees", s->frees, false, out);
    count_card("failed allocations", s->failed_allocations, s->failed_allocations > 0, out);
    count_card("invalid frees", s->invalid_frees, s->invalid_frees > 0, out);
    if (s->host_leaked_allocations)
        card("pinned host memory leaked", s->host_leaked_bytes, false, out);
    if (s->host_peak_bytes)
        card("pinned host memory peak", s->host_peak_bytes, false, out);
    fputs("</div>\n", out);
}

/* Optional: opens or closes every stack at once. */
static const char script[] =
    "<script>(function(){var b=document.getElementById('toggle');b.hidden=false;"
    "b.onclick=function(){var d=document.querySelectorAll('details'),o=!d[0]||!d[0].open;"
    "for(var i=0;i<d.length;i++)d[i].open=o;};})();</script>\n";

void vt_render_html(const struct vt_report *r, FILE *out)
{
    const struct vt_usage *u = &r->analysis->usage;
    fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<title>vramtrace: ",
          out);
    put_text(r->dump->process.argc ? r->dump->process.argv[0] : r->path, out);
    fprintf(out,
            "</title>\n<meta name=\"generator\" content=\"vramtrace %s\">\n<style>%s</style>"
            "\n</head>\n<body>\n",
            vt_version, vt_html_style);
    header(r, out);
    fputs("<h2 id=\"usage\">Usage over time</h2>\n", out);
    if (u->ndevices == 0)
        fputs("<p>No device memory was allocated.</p>\n", out);
    for (size_t i = 0; i < u->ndevices; i++) {
        chart(u, &u->devices[i], &r->analysis->devices, out);
        if (u->nmarks >= 2)
            chart_by_marker(u, &u->devices[i], out);
    }
    fputs("<button id=\"toggle\" hidden>Open or close all stacks</button>\n", out);
    growing_table(r, out);
    leaks_table(r, out);
    peak_tables(r, out);
    churn_table(r, out);
    failures_table(r, out);
    invalid_frees_table(r, out);
    fputs(script, out);
    fputs("</body>\n</html>\n", out);
}

int vt_write_html(const struct vt_report *r, const char *path, bool force)
{
    struct vt_output_file out;
    if (vt_output_file_open(&out, path, force, "vramtrace") != 0)
        return -1;
    vt_render_html(r, out.f);
    return vt_output_file_close(&out, true);
}
