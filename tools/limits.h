/* What `check` and `run --fail-on-leak` hold a dump to: leak limits and
 * the suppressions applied first. One option parser for both commands. */
#ifndef VT_LIMITS_H
#define VT_LIMITS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "suppressions.h"

struct vt_limits {
    bool has_leaked, has_per_site, has_growth;
    uint64_t max_leaked, max_per_site, max_growth;   /* inclusive */
};

struct vt_check_options {
    struct vt_limits limits;
    bool limits_given;
    bool no_default_suppressions;
    const char **suppression_files;
    size_t nfiles;
    struct vt_suppressions suppressions;   /* built by vt_check_options_load */
};

enum {
    VT_OPT_MAX_LEAKED = 512, VT_OPT_MAX_PER_SITE, VT_OPT_MAX_GROWTH, VT_OPT_SUPPRESSIONS,
    VT_OPT_NO_DEFAULT_SUPPRESSIONS,
};

#define VT_SUPPRESSION_LONG_OPTIONS \
    {"suppressions", required_argument, NULL, VT_OPT_SUPPRESSIONS}, \
    {"no-default-suppressions", no_argument, NULL, VT_OPT_NO_DEFAULT_SUPPRESSIONS}
#define VT_LIMIT_LONG_OPTIONS \
    {"max-leaked", required_argument, NULL, VT_OPT_MAX_LEAKED}, \
    {"max-leaked-per-site", required_argument, NULL, VT_OPT_MAX_PER_SITE}, \
    {"max-growth", required_argument, NULL, VT_OPT_MAX_GROWTH}, \
    VT_SUPPRESSION_LONG_OPTIONS

#define VT_LIMIT_OPTIONS_HELP \
    "      --max-leaked SIZE  fail when more than SIZE of device and managed\n" \
    "                         memory leaked in total\n" \
    "      --max-leaked-per-site SIZE\n" \
    "                         fail when one call site leaked more than SIZE\n" \
    "      --max-growth SIZE  fail when live memory grew by more than SIZE from\n" \
    "                         the first vramtrace_mark() to the last (one mark: to\n" \
    "                         the end; none: the leaked bytes)\n" \
    "                         Limits are inclusive. SIZE: 123, 512KiB, 1.5 MiB, 2GB\n" \
    "                         (B, KiB, MiB, GiB, TiB; KB, MB, GB, TB are binary too).\n" \
    "                         Without any, --max-leaked 0 applies.\n"
#define VT_SUPPRESSION_OPTIONS_HELP \
    "      --suppressions FILE  skip leaks matching FILE's 'leak:PATTERN' lines\n" \
    "                         (LeakSanitizer's format; also $" VT_SUPPRESSIONS_ENV ")\n" \
    "      --no-default-suppressions\n" \
    "                         do not skip the built-in list of CUDA libraries'\n" \
    "                         context-lifetime allocations\n"

/* Handles option C of command CMD: 0 taken, -1 not one of these,
 * VT_EXIT_USAGE after printing why ARG is wrong. */
int vt_check_option(struct vt_check_options *o, int c, const char *arg, const char *cmd);
/* Builds the suppressions: the default list, $VRAMTRACE_SUPPRESSIONS, the
 * --suppressions files. 0, or VT_EXIT_ERROR after one line on stderr. */
int vt_check_options_load(struct vt_check_options *o);
/* The limits in force: those given, else --max-leaked 0. */
struct vt_limits vt_check_effective_limits(const struct vt_check_options *o);
void vt_check_options_free(struct vt_check_options *o);

struct vt_report;
/* Prints one line per broken limit to OUT; returns how many broke. */
size_t vt_limits_apply(const struct vt_report *r, const struct vt_limits *limits, FILE *out);

#endif
