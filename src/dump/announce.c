/* SPDX-License-Identifier: MIT */
#include "announce.h"

#include "warn.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char line[3 * PATH_MAX + 96];
static size_t line_len;
static pid_t line_pid; /* the process whose dump it names (not a forked child) */

static int silenced;

void vt_announce_silence(void)
{
    silenced = 1;
    line_len = 0;
}

static int quiet(void)
{
    if (silenced)
        return 1;
    const char *quiet = getenv("VRAMTRACE_QUIET"), *manifest = getenv("VRAMTRACE_MANIFEST");
    return (quiet && *quiet && strcmp(quiet, "0") != 0) || (manifest && *manifest);
}

void vt_announce_opened(const char *path)
{
    char absolute[2 * PATH_MAX];
    int saved = errno;
    line_len = 0;
    if (quiet())
        return;
    if (path[0] == '/' || !getcwd(absolute, PATH_MAX))
        snprintf(absolute, sizeof absolute, "%s", path);
    else
        snprintf(absolute + strlen(absolute), sizeof absolute - strlen(absolute), "/%s", path);
    int n = snprintf(line, sizeof line,
                     "vramtrace: dump written to %s; read it with: vramtrace "
                     "report %s\n",
                     absolute, absolute);
    if (n > 0 && (size_t)n < sizeof line) {
        line_len = (size_t)n;
        line_pid = getpid();
    }
    errno = saved;
}

void vt_announce_ending(void)
{
    int saved = errno;
    if (line_len && getpid() == line_pid)
        vt_stderr_write(line, line_len);
    line_len = 0;
    errno = saved;
}
