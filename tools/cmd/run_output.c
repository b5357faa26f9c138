#include "run_output.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "xalloc.h"

/* Only the library's own %-sequences (src/core/config.c). */
static bool known_sequences(const char *pattern, const char *from)
{
    for (const char *p = strchr(pattern, '%'); p; p = strchr(p + 2, '%')) {
        if (p[1] != 'p' && p[1] != 'r' && p[1] != 'e' && p[1] != '%') {
            fprintf(stderr, "vramtrace run: %s %s: unknown '%%%.1s' (known: %%p the pid, %%r the "
                    "rank, %%e the program's name, %%%% a percent sign)\n", from, pattern,
                    p[1] ? p + 1 : "");
            return false;
        }
    }
    return true;
}

/* The directory part of PATTERN must exist and take new files. */
static bool directory_usable(const char *pattern, const char *from)
{
    const char *slash = strrchr(pattern, '/');
    char dir[PATH_MAX];
    struct stat st;
    if (!slash)
        snprintf(dir, sizeof dir, ".");
    else if (slash == pattern)
        snprintf(dir, sizeof dir, "/");
    else
        snprintf(dir, sizeof dir, "%.*s", (int)(slash - pattern), pattern);
    if (strchr(dir, '%'))
        return true;   /* expanded per process: the library says what fails */
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
        fprintf(stderr, "vramtrace run: %s %s: cannot create files in %s: %s\n", from, pattern,
                dir, strerror(errno));
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
        fprintf(stderr, "vramtrace run: %s %s is a directory; give a file name, such as "
                "%strace.vtr\n", from, path, path);
        return false;
    }
    if (lstat(path, &st) != 0) {
        if (errno == ENOENT)
            return true;
        fprintf(stderr, "vramtrace run: %s %s: %s\n", from, path, strerror(errno));
        return false;
    }
    if (S_ISLNK(st.st_mode)) {
        fprintf(stderr, "vramtrace run: %s %s is a symlink; dumps are never written through "
                "one: give the real path\n", from, path);
        return false;
    }
    if (S_ISDIR(st.st_mode)) {
        fprintf(stderr, "vramtrace run: %s %s is a directory; give a file name, such as "
                "%s/trace.vtr\n", from, path, path);
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
    if (!known_sequences(pattern, from) || !directory_usable(pattern, from))
        return NULL;
    if (!strchr(pattern, '%') && !file_usable(pattern, from, replace))
        return NULL;
    return absolute(pattern);
}
