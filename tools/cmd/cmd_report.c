/* SPDX-License-Identifier: MIT */
/* vramtrace report [--json] [--top N] [--skip N] [--python-internals] [--all-frames]
 *                  [--max-frames N] [--html FILE]
 *                  [--gen-suppressions] [--suppressions FILE] [--no-default-suppressions]
 *                  [--known FILE] [--no-default-known] DUMP...|DIR
 * vramtrace report --show-known [--known FILE] [--no-default-known] */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "frames.h"
#include "leak_limits.h"
#include "report.h"
#include "report_dump.h"
#include "symbolize.h"

static const char about[] =
    "Report the call sites whose device memory grows through the run (per\n"
    "marker interval, or per time tick without markers), the memory still\n"
    "allocated when the traced process ended, grouped by call site (largest\n"
    "first), the peak per device and who held it, failed allocations (with what\n"
    "held the device at an out-of-memory error) and invalid frees. Leaks matching\n"
    "a suppression are left out and tallied at the end; known framework memory\n"
    "(PyTorch's cache and cuBLAS workspace, CuPy's pool, XLA's allocator: see\n"
    "--show-known) is labelled and not counted as leaked. Per device: which GPU it\n"
    "was and what it had in use at the end, traced and not (context, library\n"
    "workspaces, other processes: from the driver and NVML).\n"
    "With several dumps, or a directory (its *.vtr files): the job first where two\n"
    "processes or more carry a rank (RANK, OMPI_COMM_WORLD_RANK, PMI_RANK,\n"
    "SLURM_PROCID, LOCAL_RANK) and made CUDA allocations: one line per rank, what\n"
    "all ranks grow said once, what one rank grows or holds more than the median\n"
    "of the others called out, which rank ran out of memory first; then the\n"
    "combined totals and which process used which GPU (by host and UUID, with a\n"
    "warning where several processes shared one), then one report per process\n"
    "(of ranks that nothing calls out, only the lowest's).\n";

static int gen_suppressions(char *const *paths, size_t npaths, const struct vt_report_options *opts)
{
    char **dumps;
    size_t n;
    int status = vt_expand_dump_paths(paths, npaths, &dumps, &n);
    if (vt_gen_suppressions(dumps, n, opts) != 0 || n == 0)
        status = -1;
    for (size_t i = 0; i < n; i++)
        free(dumps[i]);
    free(dumps);
    return status == 0 ? VT_EXIT_OK : VT_EXIT_ERROR;
}

/* --show-known: the patterns of known framework memory in force. */
static int show_known(struct vt_check_options *check)
{
    int status = vt_check_options_load(check);
    const struct vt_suppressions *k = &check->known;
    if (status == 0) {
        fputs("Known framework memory: a leak with a frame (function, file or module) that a\n"
              "pattern matches is labelled and not counted as leaked; the first pattern wins.\n",
              stdout);
        for (size_t i = 0; i < k->n; i++) {
            printf("  known:%-40s %s", k->list[i].pattern, k->list[i].label);
            if (k->list[i].line)
                printf("  (%s:%zu)\n", k->list[i].origin, k->list[i].line);
            else
                printf("  (%s)\n", k->list[i].origin);
        }
    }
    vt_check_options_free(check);
    return status;
}

/* One dump, or several (or a directory) with per-process and combined views. */
static int report(char *const *paths, size_t npaths, struct vt_report_options *opts,
                  struct vt_check_options *check, bool gen)
{
    struct stat st;
    int status = vt_check_options_load(check);
    bool one_file = npaths == 1 && !(stat(paths[0], &st) == 0 && S_ISDIR(st.st_mode));
    opts->suppressions = &check->suppressions;
    opts->known = &check->known;
    if (status == 0 && gen)
        status = gen_suppressions(paths, npaths, opts);
    else if (status == 0 && one_file)
        status =
            vt_report_dump(paths[0], opts) != VT_VERDICT_UNREADABLE ? VT_EXIT_OK : VT_EXIT_ERROR;
    else if (status == 0)
        status =
            vt_report_many(paths, npaths, opts) == VT_VERDICT_PASS ? VT_EXIT_OK : VT_EXIT_ERROR;
    vt_check_options_free(check);
    return status;
}

int vt_cmd_report(int argc, char **argv)
{
    enum {
        OPT_JSON = 256,
        OPT_SKIP,
        OPT_PYTHON_INTERNALS,
        OPT_HTML,
        OPT_GEN,
        OPT_ALL_FRAMES,
        OPT_MAX_FRAMES,
        OPT_FORCE,
        OPT_SHOW_KNOWN
    };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"top", required_argument, NULL, VT_OPT_TOP},
        {"skip", required_argument, NULL, OPT_SKIP},
        {"python-internals", no_argument, NULL, OPT_PYTHON_INTERNALS},
        {"all-frames", no_argument, NULL, OPT_ALL_FRAMES},
        {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
        VT_SUPPRESSION_LONG_OPTIONS,
        {"html", required_argument, NULL, OPT_HTML},
        {"force", no_argument, NULL, OPT_FORCE},
        {"gen-suppressions", no_argument, NULL, OPT_GEN},
        {"show-known", no_argument, NULL, OPT_SHOW_KNOWN},
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct vt_report_options opts = {.out = stdout};
    struct vt_check_options check = {0};
    bool gen = false, all_frames = false, known = false;
    long max_frames = 0;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        if (vt_check_option(&check, c, optarg, "report") == 0)
            continue;
        switch (c) {
        case OPT_JSON:
            opts.json = true;
            break;
        case VT_OPT_TOP:
            if (vt_top_option("report", optarg, &opts.top, &opts.top_given))
                return VT_EXIT_USAGE;
            break;
        case OPT_SKIP: {
            long skip = vt_parse_count(optarg);
            if (skip < 0)
                return vt_usage_error("report", "--skip needs a number, not '%s'", optarg);
            opts.skip = (size_t)skip;
            break;
        }
        case OPT_PYTHON_INTERNALS:
            vt_frames_show_interpreter(true);
            break;
        case OPT_ALL_FRAMES:
            all_frames = true;
            break;
        case OPT_MAX_FRAMES:
            max_frames = vt_parse_count(optarg);
            if (max_frames <= 0)
                return vt_usage_error("report", "--max-frames needs a number above 0, not '%s'",
                                      optarg);
            break;
        case OPT_HTML:
            opts.html = optarg;
            break;
        case OPT_GEN:
            gen = true;
            break;
        case OPT_SHOW_KNOWN:
            known = true;
            break;
        case OPT_FORCE:
            opts.force = true;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("report", about, stdout);
            return VT_EXIT_OK;
        case '?':
            vt_check_options_free(&check);
            if (optopt)
                return vt_usage_error("report", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("report", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (known && optind == argc)
        return show_known(&check);
    if (known) {
        vt_check_options_free(&check);
        return vt_usage_error("report", "%s", "--show-known reads no dump");
    }
    if (optind == argc) {
        vt_check_options_free(&check);
        return vt_usage_error("report", "%s", "no dump file given");
    }
    if (gen && (opts.json || opts.html)) {
        vt_check_options_free(&check);
        return vt_usage_error("report", "%s",
                              "--gen-suppressions prints no report (no --json, "
                              "no --html)");
    }
    vt_frames_set_display(all_frames, (size_t)max_frames);
    return report(argv + optind, (size_t)(argc - optind), &opts, &check, gen);
}
