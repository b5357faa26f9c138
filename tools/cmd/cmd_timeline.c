/* SPDX-License-Identifier: MIT */
/* vramtrace timeline [--json] DUMP */
#include <getopt.h>
#include <stdio.h>

#include "analysis.h"
#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "symbolize.h"
#include "timeline.h"

static const char about[] =
    "Chart the live device memory (device + managed) of each device over the\n"
    "run, in 80 columns: '^' marks the peak, '|' each marker (vramtrace_mark or\n"
    "the marker signal).\n";

int vt_cmd_timeline(int argc, char **argv)
{
    enum { OPT_JSON = 256 };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    bool json = false;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            json = true;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("timeline", about, stdout);
            return VT_EXIT_OK;
        case '?':
            return vt_usage_error("timeline", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind != argc - 1)
        return vt_usage_error("timeline", "%s",
                              optind == argc ? "no dump file given"
                                             : "more than one dump file given");
    struct vt_dump dump;
    struct vt_analysis analysis = {0};
    int status = VT_EXIT_ERROR;
    if (vt_dump_read(argv[optind], &vt_analysis_sink, &analysis, &dump) == 0) {
        vt_analysis_finish(&analysis);
        if (json)
            vt_timeline_json(&dump, &analysis.usage, stdout);
        else
            vt_timeline_chart(&dump, &analysis.usage, stdout);
        status = VT_EXIT_OK;
    }
    vt_analysis_free(&analysis);
    vt_dump_free(&dump);
    return status;
}
