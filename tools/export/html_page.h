/* SPDX-License-Identifier: MIT */
/* What the HTML pages share (export_html.c): the style sheet, and text
 * written into a page. */
#ifndef VT_HTML_PAGE_H
#define VT_HTML_PAGE_H

#include <stdint.h>
#include <stdio.h>

/* The charts' size and margins (SVG units). */
#define CHART_W 960
#define CHART_H 220
#define CHART_LEFT 80   /* room for the byte scale */
#define CHART_TOP 24    /* room for marker labels */
#define CHART_BOTTOM 28 /* room for the time scale */

/* A chart's scales: time from 0 to END_NS, bytes from 0 to TOP_BYTES. */
struct vt_html_scale {
    uint64_t end_ns, top_bytes;
};
double vt_html_x(const struct vt_html_scale *s, uint64_t ns);
double vt_html_y(const struct vt_html_scale *s, uint64_t bytes);
/* The byte scale's grid and the axes; X_END: what the x axis's end stands
 * for ("1.5 s", "marker 29"). */
void vt_html_axes(const struct vt_html_scale *s, const char *x_end, FILE *out);

extern const char vt_html_style[];

/* Text and attribute values: markup characters escaped, control
 * characters dropped (the page declares UTF-8). */
void vt_html_text(const char *s, FILE *out);

#endif
