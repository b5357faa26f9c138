/* SPDX-License-Identifier: MIT */
/* vramtrace lib: the path of the libvramtrace.so that run preloads, for
 * those who preload it themselves (LD_PRELOAD=$(vramtrace lib) CMD) and
 * cannot guess where an install put it (a wheel's folder in site-packages). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"

static const char about[] =
    "Print the path of libvramtrace.so, the library run preloads (next to the\n"
    "vramtrace executable, else in its installed library folder):\n"
    "LD_PRELOAD=$(vramtrace lib) CMD traces CMD without run.\n";

int vt_cmd_lib(int argc, char **argv)
{
    static const struct option options[] = {
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (c == 'h') {
            vt_cli_help("lib", about, stdout);
            return VT_EXIT_OK;
        }
        return vt_usage_error("lib", "unknown option '%s'", argv[optind - 1]);
    }
    if (optind != argc)
        return vt_usage_error("lib", "unexpected argument '%s'", argv[optind]);
    char *library = vt_find_library();
    if (!library) {
        fputs("vramtrace lib: cannot find libvramtrace.so next to the vramtrace executable nor "
              "in its installed library folder\n",
              stderr);
        return VT_EXIT_ERROR;
    }
    puts(library);
    free(library);
    return VT_EXIT_OK;
}
