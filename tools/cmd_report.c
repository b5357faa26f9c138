/* vramtrace report [--json] [--top N] [--python-internals] DUMP */
#include <getopt.h>
#include <stdio.h>

#include "cli.h"
#include "frames.h"
#include "report.h"

static const char usage[] =
    "Usage: vramtrace report [--json] [--top N] [--python-internals] DUMP\n"
    "Report the device memory still allocated when the traced process ended,\n"
    "grouped by call site (largest first), with peak usage, failed allocations\n"
    "and invalid frees.\n"
    "\n"
    "Options:\n"
    "      --json        print one JSON object instead of text\n"
    "      --top N       show at most N call sites per list (0: all)\n"
    "      --python-internals\n"
    "                    show the Python interpreter's own native frames beside\n"
    "                    the Python frames (hidden by default)\n"
    "  -h, --help        show this help\n"
    "\n"
    "Exit status: 0 for any readable dump, leaks or not (a partial dump says so);\n"
    "1 when the dump cannot be read; 2 for a bad command line.\n";

int vt_cmd_report(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_TOP, OPT_PYTHON_INTERNALS };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"top", required_argument, NULL, OPT_TOP},
        {"python-internals", no_argument, NULL, OPT_PYTHON_INTERNALS},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct vt_report_options opts = {.out = stdout};
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            opts.json = true;
            break;
        case OPT_TOP: {
            long top = vt_parse_count(optarg);
            if (top < 0)
                return vt_usage_error("report", "--top needs a number, not '%s'", optarg);
            opts.top = (size_t)top;
            break;
        }
        case OPT_PYTHON_INTERNALS:
            vt_frames_show_interpreter(true);
            break;
        case 'h':
            fputs(usage, stdout);
            return VT_EXIT_OK;
        case '?':
            if (optopt == OPT_TOP)
                return vt_usage_error("report", "%s needs a value", "--top");
            return vt_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return vt_usage_error("report", "%s", optind == argc ? "no dump file given"
                                                             : "more than one dump file given");
    bool device_leak;
    return vt_report_dump(argv[optind], &opts, &device_leak) == 0 ? VT_EXIT_OK : VT_EXIT_ERROR;
}
