/* SPDX-License-Identifier: MIT */
/* The job as one self-contained HTML page (`report --html FILE DIR`): the
 * job's lines, a table of the ranks, then one chart per rank of the live
 * bytes on its peak's device over its run, every chart on the same byte
 * scale so that a rank that holds more looks it. Without a job (fewer than
 * two ranks), one chart per process read. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "html_page.h"
#include "job.h"
#include "output_file.h"

/* The highest live bytes of each time bin, as a step area. */
static void job_area(const struct vt_job_series *v, const struct vt_html_scale *s, FILE *out)
{
    uint64_t start = 0;
    fprintf(out, "<path class=\"area\" d=\"M%.1f %.1f", vt_html_x(s, 0), vt_html_y(s, 0));
    for (size_t i = 0; i < v->nbins; i++) {
        uint64_t end = i + 1 < v->nbins ? (i + 1) * v->tick_ns : v->end_ns;
        fprintf(out, "L%.1f %.1fL%.1f %.1f", vt_html_x(s, start), vt_html_y(s, v->bins[i]),
                vt_html_x(s, end), vt_html_y(s, v->bins[i]));
        start = end;
    }
    fprintf(out, "L%.1f %.1fZ\"/>\n", vt_html_x(s, start), vt_html_y(s, 0));
}

static void job_chart(const struct vt_job_process *p, uint64_t top, FILE *out)
{
    char peak[32];
    struct vt_html_scale s = {p->series.end_ns, top};
    char time[32];
    fputs("<figure>\n<svg xmlns=\"http://www.w3.org/2000/svg\" ", out);
    fprintf(out,
            "viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" role=\"img\" class=\"chart\" "
            "aria-label=\"live bytes of ",
            CHART_W, CHART_H, CHART_W, CHART_H);
    if (p->is_rank)
        fputs("rank ", out);
    vt_html_text(p->is_rank ? p->rank : p->path, out);
    fputs(" over time\">\n", out);
    vt_html_axes(&s, vt_format_time(s.end_ns, time), out);
    job_area(&p->series, &s, out);
    fputs("</svg>\n<figcaption>", out);
    if (p->is_rank) {
        fputs("Rank ", out);
        vt_html_text(p->rank, out);
        fputs(": ", out);
    }
    fprintf(out, "pid %" PRIu64 " on ", p->pid);
    vt_html_text(p->host[0] ? p->host : "an unknown host", out);
    fprintf(out, ", device %" PRId64 ", peak %s (%" PRIu64 " bytes); dump <code>", p->device,
            vt_human_size(p->peak_bytes, peak), p->peak_bytes);
    vt_html_text(p->path, out);
    fputs("</code>.</figcaption>\n</figure>\n", out);
}

/* The job's lines as the text report says them, one item each. */
static void job_lines(const struct vt_job *job, FILE *out)
{
    char *text = NULL;
    size_t size = 0;
    FILE *f = open_memstream(&text, &size);
    if (!f)
        return;
    vt_job_render_text(job, f);
    fclose(f);
    fputs("<ul>\n", out);
    for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
        if (!strncmp(line, "vramtrace: ", 11)) {
            fputs("<li>", out);
            vt_html_text(line + 11, out);
            fputs("</li>\n", out);
        }
    fputs("</ul>\n", out);
    free(text);
}

static void job_cell(const char *text, bool num, FILE *out)
{
    fputs(num ? "<td class=\"num\">" : "<td>", out);
    vt_html_text(text, out);
    fputs("</td>", out);
}

/* One row per rank, as the text's lines. */
static void job_table(const struct vt_job *job, FILE *out)
{
    fputs("<table>\n<tr><th>rank</th><th class=\"num\">pid</th><th>host</th>"
          "<th class=\"num\">device</th><th class=\"num\">peak</th><th class=\"num\">held</th>"
          "<th class=\"num\">leaked</th><th>grows</th></tr>\n",
          out);
    for (size_t r = 0; r < job->nranks; r++) {
        const struct vt_job_process *p = vt_job_rank(job, r);
        char pid[24], device[24] = "-", size[32], grows[64];
        snprintf(pid, sizeof pid, "%" PRIu64, p->pid);
        if (p->device >= 0)
            snprintf(device, sizeof device, "%" PRId64, p->device);
        fputs("<tr>", out);
        job_cell(p->rank, false, out);
        job_cell(pid, true, out);
        job_cell(p->host, false, out);
        job_cell(device, true, out);
        job_cell(vt_human_size(p->peak_bytes, size), true, out);
        job_cell(vt_human_size(p->held_bytes, size), true, out);
        job_cell(vt_human_size(p->leaked_bytes, size), true, out);
        job_cell(vt_job_grows(p, grows, sizeof grows), false, out);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The processes charted: the ranks of a job, else every process read. */
static size_t charted(const struct vt_job *job, bool is_job, size_t i)
{
    return is_job ? job->ranks[i] : i;
}

static void job_page(const struct vt_job *job, bool is_job, FILE *out)
{
    size_t n = is_job ? job->nranks : job->nprocesses;
    uint64_t top = 1;
    for (size_t i = 0; i < n; i++) {
        uint64_t peak = job->processes[charted(job, is_job, i)].peak_bytes;
        top = peak + peak / 10 > top ? peak + peak / 10 : top;
    }
    fprintf(out,
            "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            "<title>vramtrace: %s</title>\n<meta name=\"generator\" content=\"vramtrace %s\">\n"
            "<style>%s</style>\n</head>\n<body>\n<h1>vramtrace: %zu %s</h1>\n",
            is_job ? "job" : "processes", vt_version, vt_html_style, n,
            is_job   ? "ranks"
            : n == 1 ? "process"
                     : "processes");
    if (is_job) {
        job_lines(job, out);
        job_table(job, out);
    }
    fputs("<h2 id=\"usage\">Usage over time, each on the same scale</h2>\n", out);
    for (size_t i = 0; i < n; i++)
        if (job->processes[charted(job, is_job, i)].series.nbins)
            job_chart(&job->processes[charted(job, is_job, i)], top, out);
    fputs("</body>\n</html>\n", out);
}

int vt_job_write_html(const struct vt_job *job, bool is_job, const char *path, bool force)
{
    struct vt_output_file out;
    if (vt_output_file_open(&out, path, force, "vramtrace") != 0)
        return -1;
    job_page(job, is_job, out.f);
    return vt_output_file_close(&out, true);
}
