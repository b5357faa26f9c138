/* SPDX-License-Identifier: MIT */
#include "manifest.h"

#include "warn.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void vt_manifest_add(const char *path)
{
    const char *manifest = getenv("VRAMTRACE_MANIFEST");
    char entry[2 * PATH_MAX + 2];
    size_t len = 0;
    int saved = errno;
    if (!manifest || !*manifest)
        return;
    /* A working directory too long to name (past PATH_MAX): the name as it
     * is, which run reads from its own directory, where the process started. */
    if (path[0] != '/' && getcwd(entry, PATH_MAX)) {
        len = strlen(entry);
        entry[len++] = '/';
    } else if (path[0] != '/' && errno != ERANGE && errno != ENAMETOOLONG) {
        vt_warn("cannot name the dump %s for vramtrace run: %s", path, strerror(errno));
        errno = saved;
        return;
    }
    size_t n = strnlen(path, PATH_MAX);
    memcpy(entry + len, path, n);
    len += n;
    entry[len++] = '\0';
    /* No O_CREAT: only the file run made; never through a symlink. */
    int fd = open(manifest, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0 || write(fd, entry, len) != (ssize_t)len)
        vt_warn("cannot add the dump %s to vramtrace run's list %s: %s", entry, manifest,
                strerror(errno));
    if (fd >= 0)
        close(fd);
    errno = saved;
}
