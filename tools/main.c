/* vramtrace: subcommand dispatch, --help, --version. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report.h"

static const char usage[] =
    "Usage: vramtrace COMMAND [OPTION...] [ARG...]\n"
    "Trace CUDA device-memory allocations of a process and report leaks.\n"
    "\n"
    "Commands:\n"
    "  run [-o PATH] [--aggregate] [--fail-on-leak [LIMIT...]] [--json] -- CMD [ARG...]\n"
    "                    run CMD with libvramtrace.so preloaded, then report\n"
    "                    (--aggregate: a bounded dump for long runs, per-site\n"
    "                    totals and samples instead of every allocation)\n"
    "  report [--json] [--top N] [--skip N] [--html FILE] DUMP...|DIR\n"
    "                    report leaks, peak and failures recorded in a .vtr dump\n"
    "  check [--max-leaked SIZE] [--max-leaked-per-site SIZE] [--max-growth SIZE]\n"
    "        [--suppressions FILE] [--no-default-suppressions] DUMP...\n"
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
    "Exit status: 0 success, 1 error, 2 bad command line, 23 a leak over the\n"
    "limits (check, run --fail-on-leak), 3 less free GPU memory than\n"
    "gpus --min-free; see each command's\n"
    "--help for more.\n";

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
    if (cmd[0] == '-')
        return vt_usage_error(NULL, "unknown option '%s'", cmd);
    return vt_usage_error(NULL, "unknown command '%s'", cmd);
}
