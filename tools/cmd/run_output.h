/* SPDX-License-Identifier: MIT */
/* Where `vramtrace run` has its process tree write dumps: the -o pattern
 * (or VRAMTRACE_OUTPUT), checked before the program starts and made
 * absolute, so that processes that change directory still write there; by
 * default <working dir>/vramtrace.%e.%p.vtr. */
#ifndef VT_RUN_OUTPUT_H
#define VT_RUN_OUTPUT_H

#include <stdbool.h>

/* The pattern to hand to the library for PATTERN (NULL: the default), or
 * NULL after one line on stderr naming what is wrong (a missing or
 * unwritable directory, a directory, a symlink, an unknown %-sequence).
 * FROM names where PATTERN came from ("-o", "VRAMTRACE_OUTPUT"). With
 * REPLACE, an existing regular file at a pattern without %-sequences is
 * removed (run -o replaces its file). Free the result. */
char *vt_run_output_pattern(const char *pattern, const char *from, bool replace);

#endif
