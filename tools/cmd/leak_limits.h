/* SPDX-License-Identifier: MIT */
/* What `check` and `run --fail-on-leak` hold a dump to: leak limits and
 * the suppressions applied first. One option parser for both commands. */
#ifndef VT_LIMITS_H
#define VT_LIMITS_H

#include <getopt.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "known_memory.h"
#include "suppressions.h"

struct vt_limits {
    bool has_leaked, has_per_site, has_growth, has_invalid, has_held;
    uint64_t max_leaked, max_per_site, max_growth, max_invalid, max_held; /* inclusive */
    /* the growth limit is the default one: held to growth judged on the
     * program's steps only, markers or allocation ticks (time ticks mix
     * steps; the leaked limit covers the rest) */
    bool growth_implied;
};

/* The exit status for a broken limit, unless --error-exitcode says another. */
#define VT_DEFAULT_LEAK_STATUS 23

struct vt_check_options {
    struct vt_limits limits;
    bool limits_given;  /* a leak limit (not --max-invalid-frees) */
    int error_exitcode; /* 0: VT_DEFAULT_LEAK_STATUS */
    size_t skip;        /* warm-up markers left out of growth */
    bool no_default_suppressions;
    const char **suppression_files;
    size_t nfiles;
    struct vt_suppressions suppressions; /* built by vt_check_options_load */
    bool no_default_known;
    const char **known_files;
    size_t nknown_files;
    struct vt_suppressions known; /* known framework memory: the same */
};

enum {
    VT_OPT_MAX_LEAKED = 512,
    VT_OPT_MAX_PER_SITE,
    VT_OPT_MAX_GROWTH,
    VT_OPT_SUPPRESSIONS,
    VT_OPT_NO_DEFAULT_SUPPRESSIONS,
    VT_OPT_MAX_INVALID_FREES,
    VT_OPT_ERROR_EXITCODE,
    VT_OPT_SKIP,
    VT_OPT_KNOWN,
    VT_OPT_NO_DEFAULT_KNOWN,
    VT_OPT_MAX_HELD,
};

#define VT_SUPPRESSION_LONG_OPTIONS                                                     \
    {"suppressions", required_argument, NULL, VT_OPT_SUPPRESSIONS},                     \
        {"no-default-suppressions", no_argument, NULL, VT_OPT_NO_DEFAULT_SUPPRESSIONS}, \
        {"known", required_argument, NULL, VT_OPT_KNOWN},                               \
    {                                                                                   \
        "no-default-known", no_argument, NULL, VT_OPT_NO_DEFAULT_KNOWN                  \
    }
#define VT_LIMIT_LONG_OPTIONS                                                     \
    {"max-leaked", required_argument, NULL, VT_OPT_MAX_LEAKED},                   \
        {"max-leaked-per-site", required_argument, NULL, VT_OPT_MAX_PER_SITE},    \
        {"max-growth", required_argument, NULL, VT_OPT_MAX_GROWTH},               \
        {"max-held", required_argument, NULL, VT_OPT_MAX_HELD},                   \
        {"max-invalid-frees", required_argument, NULL, VT_OPT_MAX_INVALID_FREES}, \
        {"error-exitcode", required_argument, NULL, VT_OPT_ERROR_EXITCODE},       \
        {"skip", required_argument, NULL, VT_OPT_SKIP}, VT_SUPPRESSION_LONG_OPTIONS

/* Handles option C of command CMD: 0 taken, -1 not one of these,
 * VT_EXIT_USAGE after printing why ARG is wrong. */
int vt_check_option(struct vt_check_options *o, int c, const char *arg, const char *cmd);
/* Builds the suppressions: the default list, $VRAMTRACE_SUPPRESSIONS, the
 * --suppressions files; and the known framework memory the same way
 * ($VRAMTRACE_KNOWN, --known). 0, or VT_EXIT_ERROR after one line on stderr. */
int vt_check_options_load(struct vt_check_options *o);
/* The limits in force: those given, else --max-leaked 0 and --max-growth 0
 * (on markers). */
struct vt_limits vt_check_effective_limits(const struct vt_check_options *o);
void vt_check_options_free(struct vt_check_options *o);

struct vt_report;
/* Prints one line per broken leak limit to OUT; returns how many broke. */
size_t vt_limits_apply(const struct vt_report *r, const struct vt_limits *limits, FILE *out);
/* The same for --max-invalid-frees (0 or 1). */
size_t vt_limits_apply_invalid_frees(const struct vt_report *r, const struct vt_limits *limits,
                                     FILE *out);
/* The exit status of a broken limit. */
int vt_check_leak_status(const struct vt_check_options *o);

#endif
