/* SPDX-License-Identifier: MIT */
#include "alloc_conf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define BACKEND "backend:cudaMallocAsync"

/* One "key:value" setting of a comma-separated list, without blanks around. */
static int is_backend(const char *item, size_t len, char **value)
{
    while (len && (*item == ' ' || *item == '\t'))
        item++, len--;
    if (len < 8 || strncmp(item, "backend", 7) != 0)
        return 0;
    const char *p = item + 7;
    while (p < item + len && (*p == ' ' || *p == '\t'))
        p++;
    if (p == item + len || *p != ':')
        return 0;
    p++;
    while (p < item + len && (*p == ' ' || *p == '\t'))
        p++;
    size_t n = (size_t)(item + len - p);
    while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
        n--;
    *value = strndup(p, n);
    return 1;
}

char *vt_alloc_conf_async(const char *conf, char **replaced)
{
    size_t cap = (conf ? strlen(conf) : 0) + sizeof BACKEND + 2, len = 0;
    char *out = malloc(cap);
    *replaced = NULL;
    if (!out)
        return NULL;
    len += (size_t)snprintf(out, cap, "%s", BACKEND);
    for (const char *p = conf; p && *p;) {
        size_t n = strcspn(p, ",");
        char *value = NULL;
        if (is_backend(p, n, &value)) {
            if (value && strcmp(value, "cudaMallocAsync") != 0 && !*replaced)
                *replaced = value;
            else
                free(value);
        } else if (strspn(p, " \t") < n) {
            len += (size_t)snprintf(out + len, cap - len, ",%.*s", (int)n, p);
        }
        p += n + (p[n] == ',');
    }
    return out;
}

static void apply(const char *name, int always)
{
    const char *conf = getenv(name);
    char *replaced, *merged;
    if (!conf && !always)
        return;
    merged = vt_alloc_conf_async(conf, &replaced);
    if (!merged)
        return;
    if (replaced)
        fprintf(stderr,
                "vramtrace run: --pytorch-tensors sets backend:cudaMallocAsync in %s "
                "(was backend:%s)\n",
                name, replaced);
    setenv(name, merged, 1);
    free(merged);
    free(replaced);
}

void vt_alloc_conf_apply(void)
{
    apply("PYTORCH_CUDA_ALLOC_CONF", 1);
    apply("PYTORCH_ALLOC_CONF", 0); /* the newer name, where the user set it */
}
