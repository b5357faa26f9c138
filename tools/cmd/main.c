/* SPDX-License-Identifier: MIT */
/* vramtrace: subcommand dispatch, --help, --version. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "report.h"

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        vt_cli_main_help(stderr);
        return VT_EXIT_USAGE;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        vt_cli_main_help(stdout);
        return VT_EXIT_OK;
    }
    if (!strcmp(cmd, "-V") || !strcmp(cmd, "--version")) {
        printf("vramtrace %s\n", vt_version);
        return VT_EXIT_OK;
    }
    if (!strcmp(cmd, "run"))
        return vt_cmd_run(argc - 1, argv + 1);
    if (!strcmp(cmd, "report"))
        return vt_cmd_report(argc - 1, argv + 1);
    if (!strcmp(cmd, "check"))
        return vt_cmd_check(argc - 1, argv + 1);
    if (!strcmp(cmd, "timeline"))
        return vt_cmd_timeline(argc - 1, argv + 1);
    if (!strcmp(cmd, "export"))
        return vt_cmd_export(argc - 1, argv + 1);
    if (!strcmp(cmd, "gpus"))
        return vt_cmd_gpus(argc - 1, argv + 1);
    if (!strcmp(cmd, "watch"))
        return vt_cmd_watch(argc - 1, argv + 1);
    if (!strcmp(cmd, "lib"))
        return vt_cmd_lib(argc - 1, argv + 1);
    if (!strcmp(cmd, "attach"))
        return vt_cmd_attach(argc - 1, argv + 1);
    if (!strcmp(cmd, "detach"))
        return vt_cmd_detach(argc - 1, argv + 1);
    if (cmd[0] == '-')
        return vt_usage_error(NULL, "unknown option '%s'", cmd);
    const char *near = vt_cli_nearest_command(cmd);
    if (near) {
        fprintf(stderr,
                "vramtrace: unknown command '%s'; did you mean '%s'? (see vramtrace --help)\n", cmd,
                near);
        return VT_EXIT_USAGE;
    }
    return vt_usage_error(NULL, "unknown command '%s'", cmd);
}
