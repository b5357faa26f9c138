/* SPDX-License-Identifier: MIT */
/* vramtrace check [LIMIT...] [--suppressions FILE] DUMP...|DIR
 * The report of each dump, then whether it stayed within the limits: the
 * exit status CI acts on. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "leak_limits.h"
#include "report.h"
#include "report_dump.h"
#include "symbolize.h"

static const char about[] =
    "Report each dump (leaks matching a suppression left out, and tallied at the\n"
    "end), then check it against the limits; print on stderr each limit broken.\n"
    "A directory stands for its *.vtr files (the dumps of a `vramtrace run`).\n"
    "Leaks are judged only in a dump whose process ended on its own (exit,\n"
    "_exit, exec) after at least one successful allocation; what a crashed,\n"
    "killed or still running process holds is live, not leaked. Invalid frees\n"
    "are judged in every dump.\n";

static int parse_options(int argc, char **argv, struct vt_check_options *check,
                         struct vt_report_options *report)
{
    enum { OPT_JSON = 256 };
    static const struct option options[] = {
        VT_LIMIT_LONG_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
        {"top", required_argument, NULL, VT_OPT_TOP},
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        int taken = vt_check_option(check, c, optarg, "check");
        if (taken >= 0) {
            if (taken)
                return taken;
            continue;
        }
        switch (c) {
        case OPT_JSON:
            report->json = true;
            break;
        case VT_OPT_TOP:
            if (vt_top_option("check", optarg, &report->top, &report->top_given))
                return VT_EXIT_USAGE;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("check", about, stdout);
            return VT_EXIT_OK;
        default:
            if (optopt)
                return vt_usage_error("check", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("check", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return vt_usage_error("check", "%s", "no dump file given");
    return -1; /* go on */
}

/* The exit status of a verdict (vt_report_many's worst of all). */
static int status_of(enum vt_verdict v, const struct vt_check_options *check)
{
    switch (v) {
    case VT_VERDICT_PASS:
        return VT_EXIT_OK;
    case VT_VERDICT_BROKEN:
        return vt_check_leak_status(check);
    case VT_VERDICT_NO_DATA:
        return VT_EXIT_NO_DATA;
    default: /* unreadable, or damaged and no limit broken: no pass */
        return VT_EXIT_ERROR;
    }
}

int vt_cmd_check(int argc, char **argv)
{
    struct vt_check_options check = {0};
    struct vt_report_options report = {.out = stdout};
    int status = parse_options(argc, argv, &check, &report);
    bool help = status == VT_EXIT_OK;
    if (status < 0) /* the options were fine: load the suppressions */
        status = vt_check_options_load(&check);
    if (status != 0 || help) {
        vt_check_options_free(&check);
        return status;
    }
    struct vt_limits limits = vt_check_effective_limits(&check);
    report.suppressions = &check.suppressions;
    report.known = &check.known;
    report.limits = &limits;
    report.skip = check.skip;
    char **dumps;
    size_t n;
    int listed = vt_expand_dump_paths(argv + optind, (size_t)(argc - optind), &dumps, &n);
    enum vt_verdict verdict = VT_VERDICT_NO_DATA;
    if (n == 1)
        verdict = vt_report_dump(dumps[0], &report);
    else if (n > 1)
        verdict = vt_report_many(dumps, n, &report);
    status = listed < 0 ? VT_EXIT_ERROR : status_of(verdict, &check);
    if (n == 0 && listed == 0)
        fputs("vramtrace check: nothing to judge: no dump to read\n", stderr);
    for (size_t i = 0; i < n; i++)
        free(dumps[i]);
    free(dumps);
    vt_check_options_free(&check);
    return status;
}
