/* SPDX-License-Identifier: MIT */
/* One dump reported, and judged against the limits (report_dump.c). */
#ifndef VT_REPORT_DUMP_H
#define VT_REPORT_DUMP_H

#include <stdio.h>

#include "report.h"

/* Holds the report to LIMITS, printing on OUT one line per limit broken
 * and, when there is nothing to judge, one line saying why. Invalid frees
 * are judged on any dump; leaks only when the process ended on its own
 * and made at least one successful allocation. A dump with records the
 * reader disbelieved is no pass (VT_VERDICT_DAMAGED, said on OUT), though
 * a limit broken by what it holds still is (VT_VERDICT_BROKEN). */
enum vt_verdict vt_report_verdict(const struct vt_report *r, const struct vt_limits *limits,
                                  FILE *out);

/* Reports PATH (suppressed leaks left out and tallied), then, with limits,
 * the verdict (lines on stderr). */
enum vt_verdict vt_report_dump(const char *path, const struct vt_report_options *opts);

#endif
