/* SPDX-License-Identifier: MIT */
#include "run_manifest.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "xalloc.h"

int vt_manifest_create(char *path)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(path, PATH_MAX, "%s/vramtrace-run.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    int fd = mkstemp(path);
    if (fd < 0) {
        fprintf(stderr, "vramtrace run: cannot create the list of dumps %s: %s\n", path,
                strerror(errno));
        return -1;
    }
    close(fd);
    return 0;
}

static bool listed(char **dumps, size_t n, const char *path)
{
    for (size_t i = 0; i < n; i++)
        if (!strcmp(dumps[i], path))
            return true;
    return false;
}

void vt_manifest_take(const char *path, char ***dumps, size_t *n)
{
    FILE *f = fopen(path, "re");
    char *entry = NULL;
    size_t cap = 0;
    ssize_t len;
    *dumps = NULL;
    *n = 0;
    while (f && (len = getdelim(&entry, &cap, '\0', f)) > 0) {
        if (entry[len - 1] != '\0' || len == 1 || listed(*dumps, *n, entry))
            continue; /* a torn last entry, or one seen already */
        *dumps = vt_xrealloc(*dumps, *n + 1, sizeof **dumps);
        (*dumps)[(*n)++] = strdup(entry);
    }
    free(entry);
    if (f)
        fclose(f);
    unlink(path);
}
