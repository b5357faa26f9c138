/* SPDX-License-Identifier: MIT */
/* What every subcommand's option parsing shares (cli_usage.c). */
#ifndef VT_CLI_USAGE_H
#define VT_CLI_USAGE_H

#include <stdbool.h>
#include <stddef.h>

/* Parses a --top value; returns -1 if it is not a non-negative number. */
long vt_parse_count(const char *s);

/* "vramtrace CMD: unknown option '-x' (see vramtrace CMD --help)", exit status 2. */
int vt_usage_error(const char *cmd, const char *fmt, const char *arg);

/* --debuginfod, of every command that names call sites: the symbol servers
 * DEBUGINFOD_URLS names are asked only then (symbolize.h). */
#define VT_OPT_DEBUGINFOD 1024
#define VT_DEBUGINFOD_LONG_OPTION                          \
    {                                                      \
        "debuginfod", no_argument, NULL, VT_OPT_DEBUGINFOD \
    }

/* --top N of report, check and run: the call sites listed per section (0: all). */
#define VT_OPT_TOP 1025
/* --top's value into *TOP, *GIVEN set; returns 0, or the usage error's exit status. */
int vt_top_option(const char *cmd, const char *arg, size_t *top, bool *given);

#endif
