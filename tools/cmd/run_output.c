/* SPDX-License-Identifier: MIT */
#include "run_output.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "output_path.h"
#include "xalloc.h"

/* PATTERN with %% as % and the per-process sequences kept (src/output_path.h,
 * as the library expands it), into OUT; *PER_PROCESS when it has any. */
static bool checked_pattern(const char *pattern, const char *from, char *out, size_t size,
                            int *per_process)
{
    static const struct vt_output_path_values kept = {NULL, NULL, NULL};
    const char *bad;
    if (vt_output_path_expand(out, size, pattern, &kept, &bad, per_process) >= 0)
        return true;
    if (bad)
        fprintf(stderr, "vramtrace run: %s %s: unknown '%%%.1s' (known: %s)\n", from, pattern,
                bad + 1, VT_OUTPUT_PATH_SEQUENCES);
    else
        fprintf(stderr, "vramtrace run: %s %s: too long\n", from, pattern);
    return false;
}

/* The directory part of PATH (PATTERN expanded: %% as %) must exist and
 * take new files. */
static bool directory_usable(const char *path, int per_process, const char *from,
                             const char *pattern)
{
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    struct stat st;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == path)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (per_process && strchr(dir, '%'))
        return true; /* expanded per process: the library says what fails */
    if (stat(dir, &st) != 0) {
        fprintf(stderr, "vramtrace run: %s %s: directory %s: %s\n", from, pattern, dir,
                strerror(errno));
        return false;
    }
    if (!S_ISDIR(st.st_mode)) {
        fprintf(stderr, "vramtrace run: %s %s: %s is not a directory\n", from, pattern, dir);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        fprintf(stderr, "vramtrace run: %s %s: cannot create files in %s: %s\n", from, pattern, dir,
                strerror(errno));
        return false;
    }
    return true;
}

/* A fixed path: what is there now. */
static bool file_usable(const char *path, const char *from, bool replace)
{
    struct stat st;
    size_t len = strlen(path);
    if (len && path[len - 1] == '/') {
        fprintf(stderr,
                "vramtrace run: %s %s is a directory; give a file name, such as "
                "%strace.vtr\n",
                from, path, path);
        return false;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return true;
        fprintf(stderr, "vramtrace run: %s %s: %s\n", from, path, strerror(errno));
        return false;
    }
    if (S_ISLNK(st.st_mode)) {
        fprintf(stderr,
                "vramtrace run: %s %s is a symlink; dumps are never written through "
                "one: give the real path\n",
                from, path);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr,
                "vramtrace run: %s %s is a directory; give a file name, such as "
                "%s/trace.vtr\n",
                from, path, path);
        return false;
    }
    if (!S_ISREG(st.st_mode)) {
        fprintf(stderr, "vramtrace run: %s %s is not a regular file\n", from, path);
        return false;
    }
    if (replace && unlink(path) != 0) {
        fprintf(stderr, "vramtrace run: %s %s: cannot replace it: %s\n", from, path,
                strerror(errno));
        return false;
    }
    return true;
}

/* PATTERN under the working directory, whose '%' are escaped. */
static char *absolute(const char *pattern)
{
    char cwd[PATH_MAX];
    if (pattern[0] == '/' || !getcwd(cwd, sizeof cwd))
        return strdup(pattern);
    char *out = vt_xcalloc(2 * strlen(cwd) + strlen(pattern) + 2, 1), *o = out;
    for (const char *c = cwd; *c; c++) {
        if (*c == '%')
            *o++ = '%';
        *o++ = *c;
    }
    *o++ = '/';
    strcpy(o, pattern);
    return out;
}

char *vt_run_output_pattern(const char *pattern, const char *from, bool replace)
{
    if (!pattern)
        return absolute("vramtrace.%e.%p.vtr");
    if (!*pattern) {
        fprintf(stderr, "vramtrace run: %s is empty\n", from);
        return NULL;
    }
    char path[PATH_MAX];
    int per_process;
    if (!checked_pattern(pattern, from, path, sizeof path, &per_process) ||
        !directory_usable(path, per_process, from, pattern))
        return NULL;
    if (!per_process && !file_usable(path, from, replace))
        return NULL;
    return absolute(pattern);
}
