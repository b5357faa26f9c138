/* SPDX-License-Identifier: MIT */
/* What every subcommand's option parsing shares. */
#include "cli_usage.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"

long vt_parse_count(const char *s)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (!*s || *end || errno || v < 0)
        return -1;
    return v;
}

int vt_usage_error(const char *cmd, const char *fmt, const char *arg)
{
    fprintf(stderr, "vramtrace%s%s: ", cmd ? " " : "", cmd ? cmd : "");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, " (see vramtrace%s%s --help)\n", cmd ? " " : "", cmd ? cmd : "");
    return VT_EXIT_USAGE;
}

int vt_top_option(const char *cmd, const char *arg, size_t *top, bool *given)
{
    long n = vt_parse_count(arg);
    if (n < 0)
        return vt_usage_error(cmd, "--top needs a number, not '%s'", arg);
    *top = (size_t)n;
    *given = true;
    return 0;
}
