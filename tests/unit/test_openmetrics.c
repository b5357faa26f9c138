/* SPDX-License-Identifier: MIT */
/* The metrics exposition (tools/render/openmetrics.c, metrics_exposition.c):
 * label values escaped as the format says (backslash, double quote,
 * newline) and made valid UTF-8; each family's HELP and TYPE once with the
 * samples of every process under it; exact integers; "# EOF" last. */
#include <stdlib.h>
#include <string.h>

#include "openmetrics.h"
#include "process_metrics.h"
#include "unit_check.h"

/* What WRITE printed, as a new string. */
static char *printed(void (*write)(FILE *out, const void *arg), const void *arg)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    if (!f) {
        perror("open_memstream");
        exit(1);
    }
    write(f, arg);
    if (fclose(f) != 0 || !text) {
        perror("open_memstream");
        exit(1);
    }
    return text;
}

static void one_sample(FILE *out, const void *arg)
{
    const struct vt_om_label l[] = {{"a", arg}, {"b", NULL}};
    vt_om_sample_uint(out, "x_bytes", l, 2, UINT64_MAX);
}

static void check_escaping(void)
{
    static const struct {
        const char *value, *written;
    } cases[] = {
        {"plain", "plain"},
        {"q\"uote\\back", "q\\\"uote\\\\back"},
        {"two\nlines", "two\\nlines"},
        {"tab\tok", "tab\tok"},
        {"ok-\xc3\xa9\xe2\x82\xac", "ok-\xc3\xa9\xe2\x82\xac"},
        {"bad\xff\xfeutf8\xc3", "bad\xef\xbf\xbd\xef\xbf\xbdutf8\xef\xbf\xbd"},
        {"\xed\xa0\x80surrogate", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbdsurrogate"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char want[256];
        snprintf(want, sizeof want, "x_bytes{a=\"%s\",b=\"\"} 18446744073709551615\n",
                 cases[i].written);
        char *got = printed(one_sample, cases[i].value);
        if (strcmp(got, want) != 0)
            fprintf(stderr, "label value %zu: expected <%s>, got <%s>\n", i, want, got);
        CHECK("label value escaped", !strcmp(got, want));
        free(got);
    }
}

static void doubles(FILE *out, const void *arg)
{
    (void)arg;
    vt_om_sample_double(out, "g", NULL, 0, 1048576.0);
    vt_om_sample_double(out, "g", NULL, 0, 0.1);
    vt_om_sample_double(out, "g", NULL, 0, -2.5);
}

static void check_doubles(void)
{
    char *got = printed(doubles, NULL);
    CHECK("doubles exact", !strcmp(got, "g 1048576\ng 0.10000000000000001\ng -2.5\n"));
    free(got);
}

static void two_processes(FILE *out, const void *arg)
{
    vt_metrics_render(arg, 2, out);
}

/* Lines of TEXT starting with PREFIX. */
static size_t lines_starting(const char *text, const char *prefix)
{
    size_t n = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        n += !strncmp(l, prefix, strlen(prefix));
    return n;
}

static void check_families(void)
{
    struct vt_metrics_device dev[] = {
        {.device = "0", .uuid = "GPU-1", .live_bytes = 4096, .peak_bytes = 8192},
        {.device = "1", .uuid = "", .live_bytes = 1, .peak_bytes = 2}};
    struct vt_metrics_site site = {.site = "leak app.c:12",
                                   .api = "cudaMalloc",
                                   .where = {.device = "0", .uuid = "GPU-1"},
                                   .live_bytes = 4096,
                                   .growth_bytes_per_second = 512};
    struct vt_metrics_process p[2] = {
        {.host = "n1",
         .process = "train",
         .rank = "0",
         .job = "42",
         .pid = "10",
         .running = true,
         .counts = {7, 3, 1, 0},
         .devices = dev,
         .ndevices = 2,
         .sites = &site,
         .nsites = 1},
        {.host = "n1",
         .process = "eval",
         .rank = "",
         .job = "",
         .pid = "11",
         .counts = {1, 1, 0, 2}},
    };
    char *got = printed(two_processes, p);
    static const char *const families[] = {"vramtrace_running",
                                           "vramtrace_device_live_bytes",
                                           "vramtrace_device_peak_bytes",
                                           "vramtrace_allocations_total",
                                           "vramtrace_frees_total",
                                           "vramtrace_failed_allocations_total",
                                           "vramtrace_invalid_frees_total",
                                           "vramtrace_site_live_bytes",
                                           "vramtrace_site_growth_bytes_per_second"};
    const size_t samples[] = {2, 2, 2, 2, 2, 2, 2, 1, 1};
    for (size_t i = 0; i < sizeof families / sizeof families[0]; i++) {
        char help[128], type[128], sample[128];
        snprintf(help, sizeof help, "# HELP %s ", families[i]);
        snprintf(type, sizeof type, "# TYPE %s %s\n", families[i],
                 strstr(families[i], "_total") ? "counter" : "gauge");
        snprintf(sample, sizeof sample, "%s{", families[i]);
        CHECK_EQ(families[i], lines_starting(got, help), 1);
        CHECK(families[i], strstr(got, type) != NULL);
        CHECK_EQ(families[i], lines_starting(got, sample), samples[i]);
    }
    CHECK("a process's labels",
          strstr(got, "vramtrace_running{host=\"n1\",job=\"42\",process=\"train\",pid=\"10\","
                      "rank=\"0\"} 1\nvramtrace_running{host=\"n1\",job=\"\",process=\"eval\","
                      "pid=\"11\",rank=\"\"} 0\n"));
    CHECK("a site's labels",
          strstr(got, "vramtrace_site_live_bytes{host=\"n1\",job=\"42\",process=\"train\","
                      "pid=\"10\",rank=\"0\",device=\"0\",gpu_uuid=\"GPU-1\",site=\"leak "
                      "app.c:12\",api=\"cudaMalloc\"} 4096\n"));
    CHECK("counts", strstr(got, "vramtrace_invalid_frees_total{host=\"n1\",job=\"\","
                                "process=\"eval\",pid=\"11\",rank=\"\"} 2\n"));
    size_t len = strlen(got);
    CHECK("ends with # EOF", len > 6 && !strcmp(got + len - 6, "# EOF\n"));
    free(got);
}

int main(void)
{
    check_escaping();
    check_doubles();
    check_families();
    return unit_result("openmetrics");
}
