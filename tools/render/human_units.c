/* SPDX-License-Identifier: MIT */
/* Sizes and times as people read them, for every renderer. */
#include "human_units.h"

#include <inttypes.h>

const char *vt_human_size(uint64_t bytes, char *buf)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    size_t u = 0;
    if (bytes < 1024) {
        snprintf(buf, 32, "%" PRIu64 " B", bytes);
        return buf;
    }
    for (v /= 1024; v >= 1024 && u + 1 < sizeof units / sizeof units[0]; u++)
        v /= 1024;
    snprintf(buf, 32, "%.1f %s", v, units[u]);
    return buf;
}

const char *vt_format_time(uint64_t ns, char *buf)
{
    if (ns < 1000000000u)
        snprintf(buf, 32, "%.3f ms", (double)ns / 1e6);
    else
        snprintf(buf, 32, "%.3f s", (double)ns / 1e9);
    return buf;
}

void vt_print_time(uint64_t ns, FILE *out)
{
    char buf[32];
    fputs(vt_format_time(ns, buf), out);
}
