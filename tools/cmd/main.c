/* SPDX-License-Identifier: MIT */
/* vramtrace: subcommand dispatch, --help, --version. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "cli_usage.h"
#include "report.h"

static const char usage[] =
    "Usage: vramtrace COMMAND [OPTION...] [ARG...]\n"
    "Trace CUDA device-memory allocations of a process and report leaks.\n"
    "\n"
    "Commands:\n"
    "  run [-o PATH] [--no-children] [--aggregate] [--fail-on-leak] [--max-leaked SIZE]\n"
    "      [--json] [--json-output FILE] [--log-file FILE] ... -- CMD [ARG...]\n"
    "                    run CMD and every process it starts with libvramtrace.so\n"
    "                    preloaded, wait for them all, then report each one\n"
    "                    (--aggregate: a bounded dump for long runs, per-site\n"
    "                    totals and samples instead of every allocation)\n"
    "  report [--json] [--top N] [--skip N] [--html FILE] [--gen-suppressions]\n"
    "         DUMP...|DIR\n"
    "                    report leaks, peak, failures and invalid frees recorded\n"
    "                    in .vtr dumps\n"
    "  check [--max-leaked SIZE] [--max-leaked-per-site SIZE] [--max-growth SIZE]\n"
    "        [--max-invalid-frees N] [--skip N] [--error-exitcode N]\n"
    "        [--suppressions FILE] [--no-default-suppressions] DUMP...|DIR\n"
    "                    fail (status 23) when a dump leaked more than allowed\n"
    "  timeline [--json] DUMP\n"
    "                    chart live device memory over time, per device\n"
    "  export --format folded|pprof|chrome|json|html [-o FILE] DUMP...\n"
    "                    write a dump for flamegraphs, pprof, Perfetto, or as HTML\n"
    "  gpus [--json] [--device N] [--min-free SIZE] [DUMP|DIR...]\n"
    "                    the machine's GPUs now (NVML): memory, and who holds it\n"
    "\n"
    "Options:\n"
    "  -h, --help        show this help (also: vramtrace COMMAND --help)\n"
    "  -V, --version     show the version\n"
    "\n"
    "Exit status: 0 success, 1 error, 2 bad command line, 23 a leak or invalid free\n"
    "over the limits (check, run --fail-on-leak), 24 nothing to judge (no dump, no\n"
    "successful allocation, no process that ended on its own), 3 less free GPU\n"
    "memory than gpus --min-free; run: the command's own status, 128+N when signal\n"
    "N killed it; see each command's --help for more.\n";

int main(int argc, char **argv)
{
    const char *cmd = argc > 1 ? argv[1] : NULL;
    if (!cmd) {
        fputs(usage, stderr);
        return VT_EXIT_USAGE;
    }
    if (!strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
        fputs(usage, stdout);
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
    if (cmd[0] == '-')
        return vt_usage_error(NULL, "unknown option '%s'", cmd);
    return vt_usage_error(NULL, "unknown command '%s'", cmd);
}
