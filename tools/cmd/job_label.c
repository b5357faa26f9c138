/* SPDX-License-Identifier: MIT */
#include "job_label.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xalloc.h"

/* The environment is read whole: it is at most a few hundred KiB. */
static char *read_environ(pid_t pid, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/environ", (int)pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = vt_xrealloc(NULL, cap + 1, 1);
    while ((got = fread(buf + n, 1, cap - n, f)) > 0) {
        n += got;
        if (n == cap)
            buf = vt_xrealloc(buf, (cap *= 2) + 1, 1);
    }
    fclose(f);
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* NAME's value among the LEN bytes of NUL-separated NAME=VALUE strings. */
static const char *lookup(const char *env, size_t len, const char *name)
{
    size_t name_len = strlen(name);
    for (size_t i = 0; i < len; i += strlen(env + i) + 1)
        if (!strncmp(env + i, name, name_len) && env[i + name_len] == '=')
            return env + i + name_len + 1;
    return NULL;
}

char *vt_job_label(pid_t pid)
{
    size_t len;
    char *env = read_environ(pid, &len);
    if (!env)
        return NULL;
    const char *job = lookup(env, len, "SLURM_JOB_ID");
    if (!job || !*job)
        job = lookup(env, len, "POD_NAME");
    const char *kubernetes = lookup(env, len, "KUBERNETES_SERVICE_HOST");
    if ((!job || !*job) && kubernetes && *kubernetes)
        job = lookup(env, len, "HOSTNAME");
    char *out = job && *job ? strcpy(vt_xcalloc(strlen(job) + 1, 1), job) : NULL;
    free(env);
    return out;
}
