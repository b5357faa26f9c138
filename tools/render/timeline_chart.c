/* SPDX-License-Identifier: MIT */
/* The terminal chart of `vramtrace timeline`: one per device, 64 columns of
 * data after an 11-column scale, 12 rows; under the axis, '|' marks a
 * marker and '^' the peak. */
#include <inttypes.h>
#include <string.h>

#include "report.h"
#include "timeline.h"

#define CHART_COLUMNS 64
#define CHART_ROWS 12

struct vt_timeline_sample vt_timeline_sample(const struct vt_usage *u,
                                             const struct vt_usage_device *d, size_t i)
{
    if (i < d->bin_max.n)
        return (struct vt_timeline_sample){(uint64_t)(i + 1) * u->tick_ns, d->bin_max.bytes[i],
                                           d->bin_last.bytes[i]};
    return (struct vt_timeline_sample){u->end_ns, d->open_bin_max, d->live_bytes};
}

/* The column that time T falls in, when the chart spans [0, END]. */
static size_t column_of(uint64_t t, uint64_t end, size_t columns)
{
    size_t c = end ? (size_t)((double)t / (double)end * (double)columns) : 0;
    return c < columns ? c : columns - 1;
}

/* Highest live bytes per column: every bin goes to the column its end lies in. */
static size_t fill_columns(const struct vt_usage *u, const struct vt_usage_device *d, uint64_t *col)
{
    size_t nsamples = d->bin_max.n + 1;
    size_t columns = nsamples < CHART_COLUMNS ? nsamples : CHART_COLUMNS;
    memset(col, 0, CHART_COLUMNS * sizeof *col);
    for (size_t i = 0; i < nsamples; i++) {
        struct vt_timeline_sample s = vt_timeline_sample(u, d, i);
        size_t c = column_of(s.end_ns ? s.end_ns - 1 : 0, u->end_ns, columns);
        if (s.max_bytes > col[c])
            col[c] = s.max_bytes;
    }
    return columns;
}

static void print_rows(const uint64_t *col, size_t columns, uint64_t peak, FILE *out)
{
    char size[32];
    for (size_t row = CHART_ROWS; row > 0; row--) {
        if (row == CHART_ROWS)
            fprintf(out, "%10s |", vt_human_size(peak, size));
        else
            fprintf(out, "%10s |", "");
        for (size_t c = 0; c < columns; c++) {
            /* a column reaches row r when it is above (r - 1) / rows of the peak */
            bool filled = peak && col[c] * CHART_ROWS > (uint64_t)(row - 1) * peak;
            fputc(filled ? '#' : ' ', out);
        }
        fputc('\n', out);
    }
    fprintf(out, "%10s +", "0 B");
    for (size_t c = 0; c < columns; c++)
        fputc('-', out);
    fputc('\n', out);
}

static void print_marks(const struct vt_usage *u, const struct vt_usage_device *d, size_t columns,
                        FILE *out)
{
    char line[CHART_COLUMNS + 1];
    if (columns == 0 || columns > CHART_COLUMNS)
        return;
    memset(line, ' ', columns);
    line[columns] = '\0';
    for (size_t i = 0; i < u->nmarks; i++)
        line[column_of(u->marks[i].time_ns, u->end_ns, columns)] = '|';
    line[column_of(d->peak_time_ns, u->end_ns, columns)] = '^';
    while (columns > 0 && line[columns - 1] == ' ')
        line[--columns] = '\0';
    fprintf(out, "%10s  %s\n", "", line);
}

static void print_device(const struct vt_usage *u, const struct vt_usage_device *d, FILE *out)
{
    uint64_t col[CHART_COLUMNS];
    char size[32];
    size_t columns = fill_columns(u, d, col);
    if (d->device < 0)
        fputs("\nunknown device", out);
    else
        fprintf(out, "\ndevice %" PRId64, d->device);
    fprintf(out, ": peak %s (%" PRIu64 " bytes) at ", vt_human_size(d->peak_bytes, size),
            d->peak_bytes);
    vt_print_time(d->peak_time_ns, out);
    fprintf(out, ", %s live at the end\n", vt_human_size(d->live_bytes, size));
    print_rows(col, columns, d->peak_bytes, out);
    print_marks(u, d, columns, out);
    fprintf(out, "%10s  0%*s\n", "", (int)columns - 1, vt_format_time(u->end_ns, size));
}

void vt_timeline_chart(const struct vt_dump *dump, const struct vt_usage *u, FILE *out)
{
    fprintf(out, "vramtrace: timeline of %s\n", dump->path);
    fputs("vramtrace: live device memory over ", out);
    vt_print_time(u->end_ns, out);
    fprintf(out, ", %zu %s; '^' peak, '|' marker\n", u->nmarks,
            u->nmarks == 1 ? "marker" : "markers");
    if (!dump->complete)
        fprintf(out, "vramtrace: partial dump: %s; the chart covers what was read\n", dump->end);
    if (u->ndevices == 0)
        fputs("vramtrace: no device memory was allocated\n", out);
    for (size_t i = 0; i < u->ndevices; i++)
        print_device(u, &u->devices[i], out);
}
