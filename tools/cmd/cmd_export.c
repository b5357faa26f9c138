/* SPDX-License-Identifier: MIT */
/* vramtrace export --format FORMAT [-o FILE] [--what WHAT] [--diff BASE] DUMP... */
#include <errno.h>
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "export.h"
#include "output_file.h"
#include "symbolize.h"
#include "xalloc.h"

static const char about[] =
    "Write a dump's call sites or usage over time for other tools:\n"
    "  folded   folded stacks for flamegraph.pl, inferno, speedscope: one line\n"
    "           per stack, root first, the API called as the leaf, a space and\n"
    "           the bytes (device and managed memory)\n"
    "  pprof    gzip-compressed profile.proto for `pprof`: inuse_space/objects\n"
    "           (still allocated at exit), alloc_space/objects (whole run),\n"
    "           labels device, kind and api\n"
    "  chrome   Chrome trace event JSON for ui.perfetto.dev: live bytes per\n"
    "           device, markers, peaks, out-of-memory errors, and each\n"
    "           allocation's lifetime as a slice on a track per device and call\n"
    "           site (per call site in aggregate mode); what is still held at the\n"
    "           end is a slice that never ends; several dumps become one process each\n"
    "  json     the report as JSON (as `vramtrace report --json`)\n"
    "  torch-snapshot\n"
    "           the pickle torch.cuda.memory._dump_snapshot() writes, for\n"
    "           https://pytorch.org/memory_viz (Active Memory Timeline, Allocator\n"
    "           State History): every allocation and free per device, with its\n"
    "           frames (native and Python), and what is held at the end\n"
    "  html     one self-contained HTML page (as `vramtrace report --html`)\n";

enum format {
    FORMAT_NONE,
    FORMAT_FOLDED,
    FORMAT_PPROF,
    FORMAT_CHROME,
    FORMAT_JSON,
    FORMAT_HTML,
    FORMAT_TORCH
};

struct export_args {
    enum format format;
    const char *output, *diff, *what_name;
    bool force; /* -o may overwrite a dump */
    enum vt_export_what what;
    char **dumps;
    size_t ndumps;
};

static enum format parse_format(const char *s)
{
    static const char *const names[] = {"",     "folded", "pprof",         "chrome",
                                        "json", "html",   "torch-snapshot"};
    for (size_t i = 1; i < sizeof names / sizeof names[0]; i++)
        if (!strcmp(s, names[i]))
            return (enum format)i;
    return FORMAT_NONE;
}

static int parse_what(const char *s, enum vt_export_what *what)
{
    if (!strcmp(s, "leaked"))
        *what = VT_WHAT_LEAKED;
    else if (!strcmp(s, "peak"))
        *what = VT_WHAT_PEAK;
    else if (!strcmp(s, "allocated"))
        *what = VT_WHAT_ALLOCATED;
    else
        return -1;
    return 0;
}

/* Returns -1 when the command line is fine, else the exit status. */
static int parse_args(int argc, char **argv, struct export_args *a)
{
    enum { OPT_FORMAT = 256, OPT_WHAT, OPT_DIFF, OPT_FORCE };
    static const struct option options[] = {
        {"format", required_argument, NULL, OPT_FORMAT},
        {"output", required_argument, NULL, 'o'},
        {"what", required_argument, NULL, OPT_WHAT},
        {"diff", required_argument, NULL, OPT_DIFF},
        {"force", no_argument, NULL, OPT_FORCE},
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+ho:", options, NULL)) != -1) {
        switch (c) {
        case OPT_FORMAT:
            if ((a->format = parse_format(optarg)) == FORMAT_NONE)
                return vt_usage_error("export",
                                      "unknown format '%s' (folded, pprof, chrome, json, "
                                      "torch-snapshot or html)",
                                      optarg);
            break;
        case 'o':
            a->output = optarg;
            break;
        case OPT_WHAT:
            a->what_name = optarg;
            if (parse_what(optarg, &a->what) != 0)
                return vt_usage_error("export", "--what is leaked, peak or allocated, not '%s'",
                                      optarg);
            break;
        case OPT_DIFF:
            a->diff = optarg;
            break;
        case OPT_FORCE:
            a->force = true;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("export", about, stdout);
            return VT_EXIT_OK;
        case '?':
            if (optopt)
                return vt_usage_error("export", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("export", "unknown option '%s'", argv[optind - 1]);
        }
    }
    a->dumps = argv + optind;
    a->ndumps = (size_t)(argc - optind);
    if (a->format == FORMAT_NONE)
        return vt_usage_error("export", "%s", "--format is required");
    if ((a->what_name || a->diff) && a->format != FORMAT_FOLDED)
        return vt_usage_error("export", "%s only applies to --format folded",
                              a->diff ? "--diff" : "--what");
    if (a->ndumps == 0)
        return vt_usage_error("export", "%s", "no dump file given");
    if (a->ndumps > 1 && a->format != FORMAT_CHROME)
        return vt_usage_error("export", "%s",
                              "more than one dump given (only chrome takes several)");
    return -1;
}

static int write_one(const struct export_args *a, FILE *out)
{
    struct vt_export e, base;
    int status = 0;
    /* parse_args set dumps (ndumps >= 1) before it returned -1, "go on" */
    if (vt_export_load(a->dumps[0], &e) != 0) /* NOLINT(clang-analyzer-core.NullDereference) */
        return -1;
    if (a->diff && vt_export_load(a->diff, &base) != 0) {
        vt_export_unload(&e);
        return -1;
    }
    switch (a->format) {
    case FORMAT_FOLDED:
        vt_export_folded(&e, a->diff ? &base : NULL, a->what, out);
        break;
    case FORMAT_PPROF:
        status = vt_export_pprof(&e, out);
        break;
    case FORMAT_JSON:
        vt_render_json(&e.loaded.report, out);
        break;
    default:
        vt_render_html(&e.loaded.report, out);
        break;
    }
    if (a->diff)
        vt_export_unload(&base);
    vt_export_unload(&e);
    return status;
}

static int write_chrome(const struct export_args *a, FILE *out)
{
    struct vt_export *all = vt_xcalloc(a->ndumps, sizeof *all);
    const struct vt_export **list = vt_xcalloc(a->ndumps, sizeof *list);
    size_t loaded = 0;
    int status = 0;
    for (; loaded < a->ndumps && status == 0; loaded++) {
        status = vt_export_load(a->dumps[loaded], &all[loaded]);
        list[loaded] = &all[loaded];
    }
    if (status == 0)
        status = vt_export_chrome(list, a->ndumps, out);
    else
        loaded--; /* the one that failed is unloaded already */
    for (size_t i = 0; i < loaded; i++)
        vt_export_unload(&all[i]);
    free(list);
    free(all);
    return status;
}

/* A torch snapshot holds the program's paths and stacks as its dump does,
 * and is written 0600 as the dump is. */
static int open_output(const struct export_args *a, struct vt_output_file *file)
{
    if (a->format == FORMAT_TORCH)
        return vt_output_file_open_private(file, a->output, a->force, "vramtrace");
    return vt_output_file_open(file, a->output, a->force, "vramtrace");
}

int vt_cmd_export(int argc, char **argv)
{
    struct export_args a = {0};
    int status = parse_args(argc, argv, &a);
    if (status >= 0)
        return status;
    if (!a.output && (a.format == FORMAT_PPROF || a.format == FORMAT_TORCH) &&
        isatty(STDOUT_FILENO))
        return vt_usage_error("export", "%s output is binary: give -o FILE",
                              a.format == FORMAT_PPROF ? "pprof" : "torch-snapshot");
    struct vt_output_file file = {.f = stdout};
    if (a.output && open_output(&a, &file) != 0)
        return VT_EXIT_ERROR;
    FILE *out = file.f;
    if (a.format == FORMAT_CHROME)
        status = write_chrome(&a, out);
    else if (a.format == FORMAT_TORCH)
        /* parse_args set dumps (ndumps >= 1) before it returned -1, "go on" */
        /* NOLINTNEXTLINE(clang-analyzer-core.NullDereference) */
        status = vt_export_torch_snapshot(a.dumps[0], out);
    else
        status = write_one(&a, out);
    if (a.output)
        /* in place only when whole: a failure leaves what was there */
        return vt_output_file_close(&file, status == 0) == 0 ? VT_EXIT_OK : VT_EXIT_ERROR;
    if (fflush(out) != 0 || ferror(out)) {
        fprintf(stderr, "vramtrace: standard output: %s\n", strerror(errno));
        status = -1;
    }
    return status == 0 ? VT_EXIT_OK : VT_EXIT_ERROR;
}
