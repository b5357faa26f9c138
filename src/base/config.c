/* SPDX-License-Identifier: MIT */
#include "config.h"

#include "output_path.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Program name as the user typed it (argv[0]'s basename), made file-name safe. */
static void exe_name(char *out, size_t size)
{
    const char *name = program_invocation_short_name;
    size_t n = 0;
    if (!name || !*name)
        name = "unknown";
    for (; name[n] && n + 1 < size && n < 64; n++) {
        char c = name[n];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                 c == '.' || c == '_' || c == '-';
        out[n] = ok ? c : '_';
    }
    out[n] = '\0';
}

int vt_config_rank(char *out, size_t size)
{
    /* the job-wide rank first (torchrun's RANK inside an srun step whose
     * SLURM_PROCID numbers the launchers; mpirun's inside an allocation);
     * LOCAL_RANK, which repeats on every node, last */
    static const char *const vars[] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID",
                                       "LOCAL_RANK"};
    for (size_t i = 0; i < sizeof vars / sizeof vars[0]; i++) {
        const char *v = getenv(vars[i]);
        size_t n = 0;
        if (!v || !*v)
            continue;
        for (; v[n] && n + 1 < size && n < 16; n++)
            out[n] = (v[n] >= '0' && v[n] <= '9') || (v[n] >= 'a' && v[n] <= 'z') ||
                             (v[n] >= 'A' && v[n] <= 'Z')
                         ? v[n]
                         : '_';
        out[n] = '\0';
        return 0;
    }
    out[0] = '\0';
    return -1;
}

static int expand_pattern(char *out, size_t size, const char *pattern)
{
    char pid[24], rank[24], exe[72];
    const char *bad;
    exe_name(exe, sizeof exe);
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    if (vt_config_rank(rank, sizeof rank) < 0)
        snprintf(rank, sizeof rank, "norank");
    struct vt_output_path_values values = {pid, rank, exe};
    return vt_output_path_expand(out, size, pattern, &values, &bad, NULL) > 0 ? 0 : -1;
}

/* "x.vtr" -> "x.N.vtr"; other names -> "x.N". From attempt 16 on, N is
 * PID-K: processes sharing one name (150 workers) do not all try the same
 * numbers in turn. */
static int add_attempt(char *path, size_t size, unsigned attempt)
{
    size_t len = strlen(path);
    char suffix[40];
    int ext = len > 4 && strcmp(path + len - 4, ".vtr") == 0;
    if (attempt < 16)
        snprintf(suffix, sizeof suffix, ".%u%s", attempt, ext ? ".vtr" : "");
    else
        snprintf(suffix, sizeof suffix, ".%d-%u%s", (int)getpid(), attempt - 15, ext ? ".vtr" : "");
    if (ext)
        len -= 4;
    if (len + strlen(suffix) >= size)
        return -1;
    strcpy(path + len, suffix);
    return 0;
}

/* Where the process started: a relative dump path is taken from there,
 * not from wherever the program has gone when its first CUDA call comes (a
 * directory it made, and will remove). "": too long to name. */
static char start_dir[PATH_MAX];

void vt_config_remember_start_dir(void)
{
    if (!getcwd(start_dir, sizeof start_dir) || start_dir[0] != '/')
        start_dir[0] = '\0';
}

/* PATH (SIZE bytes) under the start directory, when it is relative. */
static int from_start_dir(char *path, size_t size)
{
    size_t dir = strlen(start_dir), len = strlen(path);
    if (path[0] == '/' || !dir)
        return 0;
    if (dir + 1 + len >= size)
        return -1;
    memmove(path + dir + 1, path, len + 1); /* the terminator moves with it */
    memcpy(path, start_dir, dir); /* NOLINT(bugprone-not-null-terminated-result): see above */
    path[dir] = '/';
    return 0;
}

static char attach_output[PATH_MAX];

void vt_config_set_output(const char *path)
{
    snprintf(attach_output, sizeof attach_output, "%s", path ? path : "");
}

int vt_config_output_path(char *out, size_t size, unsigned attempt)
{
    const char *pattern = getenv("VRAMTRACE_OUTPUT");
    if (attach_output[0]) {
        if ((size_t)snprintf(out, size, "%s", attach_output) >= size)
            return -1;
    } else if (pattern && *pattern) {
        if (expand_pattern(out, size, pattern) < 0)
            return -1;
    } else {
        char name[72];
        exe_name(name, sizeof name);
        if ((size_t)snprintf(out, size, "vramtrace.%s.%d.vtr", name, (int)getpid()) >= size)
            return -1;
    }
    if (from_start_dir(out, size) < 0)
        return -1;
    return attempt ? add_attempt(out, size, attempt) : 0;
}

const char *vt_config_nvtx_mark(void)
{
    const char *name = getenv("VRAMTRACE_NVTX_MARK");
    return name && *name ? name : NULL;
}
