/* SPDX-License-Identifier: MIT */
/* Writing metrics in the text exposition format Prometheus scrapes and
 * node_exporter's textfile collector reads (what `promtool check metrics`
 * checks), ended by OpenMetrics' "# EOF": each family's HELP and TYPE, then
 * its samples, label values escaped and made valid UTF-8. */
#ifndef VT_OPENMETRICS_H
#define VT_OPENMETRICS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct vt_om_label {
    const char *name;  /* [a-zA-Z_][a-zA-Z0-9_]*, written as is */
    const char *value; /* any bytes; NULL is written as "" */
};

/* "# HELP NAME HELP" and "# TYPE NAME TYPE" (gauge, counter); a counter's
 * NAME ends in _total. HELP is written as is (no backslash, no newline). */
void vt_om_family(FILE *out, const char *name, const char *type, const char *help);

/* One sample of the family just begun: NAME{LABELS} VALUE. */
void vt_om_sample_uint(FILE *out, const char *name, const struct vt_om_label *labels, size_t n,
                       uint64_t value);
void vt_om_sample_double(FILE *out, const char *name, const struct vt_om_label *labels, size_t n,
                         double value);

/* The exposition's last line. */
void vt_om_end(FILE *out);

/* Content-Type of an exposition served over HTTP. */
#define VT_OM_CONTENT_TYPE "text/plain; version=0.0.4; charset=utf-8"

#endif
