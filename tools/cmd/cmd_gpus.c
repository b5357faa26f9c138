/* SPDX-License-Identifier: MIT */
/* vramtrace gpus [--json|--openmetrics] [--device N] [--min-free SIZE] [DUMP|DIR...] */
#include <dlfcn.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "gpus_render.h"
#include "report.h"
#include "size_arg.h"

static const char about[] =
    "Show the machine's GPUs now, from NVML (libnvidia-ml.so.1, from the NVIDIA\n"
    "driver): per GPU its name, UUID, memory and utilization; per process using\n"
    "it: pid, user, state (running, sleeping, stopped, uninterruptible, zombie;\n"
    "\"not visible\" when it runs in another container or namespace), how long it\n"
    "has run, used memory, command line, whether it is orphaned (its parent is\n"
    "gone) and whether it is traced (a dump of it among DUMP|DIR, by default in\n"
    "the working directory). Processes that hold GPU memory while running\n"
    "nothing (stopped, orphaned, zombies whose threads hold on) are flagged with\n"
    "the command that ends them; nothing is killed.\n";

#define VT_EXIT_LOW_MEMORY 3

struct gpus_options {
    bool json, openmetrics;
    int device; /* -1: all */
    bool min_free_given;
    uint64_t min_free;
};

/* GPUs below --min-free, each said on stderr; unknown free memory fails too. */
static size_t below_min_free(const struct vt_gpus *g, const struct gpus_options *o)
{
    char need[32], free_[32];
    size_t failing = 0;
    for (size_t i = 0; i < g->n; i++) {
        const struct vt_gpu *gpu = &g->gpus[i];
        if (gpu->has_memory && gpu->free >= o->min_free)
            continue;
        failing++;
        if (gpu->has_memory)
            fprintf(stderr, "vramtrace gpus: GPU %u has %s free, less than --min-free %s\n",
                    gpu->index, vt_human_size(gpu->free, free_), vt_human_size(o->min_free, need));
        else
            fprintf(stderr,
                    "vramtrace gpus: GPU %u: its free memory is unknown (NVML did not "
                    "say), so --min-free %s is not met\n",
                    gpu->index, vt_human_size(o->min_free, need));
    }
    return failing;
}

static int show(const struct gpus_options *o, char *const *paths, size_t npaths)
{
    struct vt_nvml nvml;
    struct vt_gpus g = {0};
    char why[512];
    int status = VT_EXIT_OK;
    if (vt_nvml_open(&nvml, dlsym, why, sizeof why) != 0) {
        fprintf(stderr, "vramtrace gpus: %s\n", why);
        return VT_EXIT_USAGE;
    }
    vt_gpus_find_traced(&g, paths, npaths);
    if (vt_gpus_query(&nvml, &g, o->device, why, sizeof why) != 0) {
        fprintf(stderr, "vramtrace gpus: %s\n", why);
        status = VT_EXIT_ERROR;
    } else {
        if (o->json)
            vt_gpus_render_json(&g, stdout);
        else if (o->openmetrics)
            vt_gpus_render_openmetrics(&g, stdout);
        else
            vt_gpus_render_text(&g, stdout);
        fflush(stdout);
        if (o->min_free_given && below_min_free(&g, o))
            status = VT_EXIT_LOW_MEMORY;
    }
    vt_gpus_free(&g);
    vt_nvml_close(&nvml);
    return status;
}

int vt_cmd_gpus(int argc, char **argv)
{
    enum { OPT_JSON = 256, OPT_OPENMETRICS, OPT_DEVICE, OPT_MIN_FREE };
    static const struct option options[] = {
        {"json", no_argument, NULL, OPT_JSON},
        {"openmetrics", no_argument, NULL, OPT_OPENMETRICS},
        {"device", required_argument, NULL, OPT_DEVICE},
        {"min-free", required_argument, NULL, OPT_MIN_FREE},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    struct gpus_options o = {.device = -1};
    long device;
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_JSON:
            o.json = true;
            break;
        case OPT_OPENMETRICS:
            o.openmetrics = true;
            break;
        case OPT_DEVICE:
            device = vt_parse_count(optarg);
            if (device < 0 || device > 1024)
                return vt_usage_error("gpus", "--device needs a GPU index, not '%s'", optarg);
            o.device = (int)device;
            break;
        case OPT_MIN_FREE:
            if (vt_parse_size(optarg, &o.min_free) != 0)
                return vt_usage_error("gpus", "--min-free needs a size such as 20GiB, not '%s'",
                                      optarg);
            o.min_free_given = true;
            break;
        case 'h':
            vt_cli_help("gpus", about, stdout);
            return VT_EXIT_OK;
        case '?':
            if (optopt)
                return vt_usage_error("gpus", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("gpus", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (o.json && o.openmetrics)
        return vt_usage_error("gpus", "--json and %s do not go together", "--openmetrics");
    return show(&o, argv + optind, (size_t)(argc - optind));
}
