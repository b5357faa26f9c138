/* vramtrace check [LIMIT...] [--suppressions FILE] DUMP...
 * The report of each dump, then whether it stayed within the limits: the
 * exit status CI acts on. */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>

#include "cli.h"
#include "limits.h"
#include "report.h"

static const char usage[] =
    "Usage: vramtrace check [--max-leaked SIZE] [--max-leaked-per-site SIZE]\n"
    "                       [--max-growth SIZE] [--suppressions FILE]\n"
    "                       [--no-default-suppressions] [--json] DUMP...\n"
    "Report each dump (leaks matching a suppression left out, and tallied at the\n"
    "end), then check it against the limits; print on stderr each limit broken.\n"
    "\n"
    "Options:\n"
    VT_LIMIT_OPTIONS_HELP
    VT_SUPPRESSION_OPTIONS_HELP
    "      --json             print each report as JSON\n"
    "  -h, --help             show this help\n"
    "\n"
    "Exit status: 0 when every dump is within the limits; 23 when a limit is\n"
    "broken (as run --fail-on-leak); 1 when a dump or suppressions file cannot\n"
    "be read; 2 for a bad command line.\n";

static int parse_options(int argc, char **argv, struct vt_check_options *check,
                         struct vt_report_options *report)
{
    enum { OPT_JSON = 256 };
    static const struct option options[] = {
        VT_LIMIT_LONG_OPTIONS,
        {"json", no_argument, NULL, OPT_JSON},
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
        case 'h':
            fputs(usage, stdout);
            return VT_EXIT_OK;
        default:
            if (optopt)
                return vt_usage_error("check", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("check", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return vt_usage_error("check", "%s", "no dump file given");
    return -1;   /* go on */
}

int vt_cmd_check(int argc, char **argv)
{
    struct vt_check_options check = {0};
    struct vt_report_options report = {.out = stdout};
    int status = parse_options(argc, argv, &check, &report);
    bool help = status == VT_EXIT_OK;
    if (status < 0)   /* the options were fine: load the suppressions */
        status = vt_check_options_load(&check);
    if (status != 0 || help) {
        vt_check_options_free(&check);
        return status;
    }
    struct vt_limits limits = vt_check_effective_limits(&check);
    report.suppressions = &check.suppressions;
    report.limits = &limits;
    for (int i = optind; i < argc; i++) {
        int broken = vt_report_dump(argv[i], &report);
        if (broken < 0)
            status = VT_EXIT_ERROR;
        else if (broken > 0 && status == VT_EXIT_OK)
            status = VT_EXIT_LEAK;
    }
    vt_check_options_free(&check);
    return status;
}
