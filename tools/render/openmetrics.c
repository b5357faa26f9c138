/* SPDX-License-Identifier: MIT */
#include "openmetrics.h"

#include <inttypes.h>
#include <math.h>

#include "utf8.h"

void vt_om_family(FILE *out, const char *name, const char *type, const char *help)
{
    fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value: backslash, double quote and newline escaped as the format
 * says; bytes that are not UTF-8 (a path, a command line) become U+FFFD, as
 * a scraper rejects the whole exposition otherwise. */
static void label_value(FILE *out, const char *v)
{
    const unsigned char *s = (const unsigned char *)(v ? v : "");
    while (*s) {
        size_t len = vt_utf8_sequence_length(s);
        if (*s == '\\' || *s == '"')
            fprintf(out, "\\%c", *s);
        else if (*s == '\n')
            fputs("\\n", out);
        else if (!len)
            fputs("\xef\xbf\xbd", out);
        else
            fwrite(s, 1, len, out);
        s += len ? len : 1;
    }
}

static void series(FILE *out, const char *name, const struct vt_om_label *labels, size_t n)
{
    fputs(name, out);
    for (size_t i = 0; i < n; i++) {
        fprintf(out, "%c%s=\"", i ? ',' : '{', labels[i].name);
        label_value(out, labels[i].value);
        fputc('"', out);
    }
    fputs(n ? "} " : " ", out);
}

void vt_om_sample_uint(FILE *out, const char *name, const struct vt_om_label *labels, size_t n,
                       uint64_t value)
{
    series(out, name, labels, n);
    fprintf(out, "%" PRIu64 "\n", value);
}

void vt_om_sample_double(FILE *out, const char *name, const struct vt_om_label *labels, size_t n,
                         double value)
{
    series(out, name, labels, n);
    if (isnan(value))
        fputs("NaN\n", out);
    else if (isinf(value))
        fputs(value > 0 ? "+Inf\n" : "-Inf\n", out);
    else
        fprintf(out, "%.17g\n", value);
}

void vt_om_end(FILE *out)
{
    fputs("# EOF\n", out);
}
