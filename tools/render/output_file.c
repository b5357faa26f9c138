/* SPDX-License-Identifier: MIT */
/* Outputs that never destroy a file: see output_file.h. */
#include "output_file.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "format.h"
#include "xalloc.h"

/* Whether the regular file at PATH begins as a dump does. */
static bool holds_dump(const char *path)
{
    char magic[VT_MAGIC_LEN];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return false;
    bool dump = read(fd, magic, sizeof magic) == (ssize_t)sizeof magic &&
                memcmp(magic, VT_MAGIC, VT_MAGIC_LEN) == 0;
    close(fd);
    return dump;
}

/* DIR/.NAME.XXXXXX beside PATH: a rename within one file system. */
static char *temporary_name(const char *path)
{
    const char *slash = strrchr(path, '/');
    size_t dir = slash ? (size_t)(slash - path) + 1 : 0;
    char *name = vt_xcalloc(strlen(path) + sizeof ".tmp.XXXXXX", 1);
    memcpy(name, path, dir);
    strcat(name, ".");
    strcat(name, path + dir);
    strcat(name, ".XXXXXX");
    return name;
}

/* The old file's own mode; for a new one, 0600 when PRIVATE (it holds the
 * traced program's paths, as a dump does), else the mode fopen would give. */
static mode_t file_mode(const struct stat *old, bool existed, bool private_file)
{
    if (existed)
        return old->st_mode & 07777;
    if (private_file)
        return 0600;
    mode_t mask = umask(0);
    umask(mask);
    return 0666 & ~mask;
}

static int fail(const char *who, const char *path, const char *why)
{
    fprintf(stderr, "%s: %s: %s\n", who, path, why);
    return -1;
}

static int open_file(struct vt_output_file *o, const char *path, bool force, const char *who,
                     bool private_file)
{
    struct stat st;
    bool existed = stat(path, &st) == 0;
    *o = (struct vt_output_file){.path = path};
    if (existed && S_ISDIR(st.st_mode))
        return fail(who, path, "is a directory; give a file name");
    if (existed && !S_ISREG(st.st_mode)) { /* /dev/null, a pipe: nothing to keep */
        o->f = fopen(path, "we");
        return o->f ? 0 : fail(who, path, strerror(errno));
    }
    if (existed && !force && holds_dump(path))
        return fail(who, path,
                    "holds a vramtrace dump; not overwritten (give another file name, or "
                    "--force)");
    o->temporary = temporary_name(path);
    int fd = mkostemp(o->temporary, O_CLOEXEC);
    if (fd < 0 || fchmod(fd, file_mode(&st, existed, private_file)) != 0 ||
        !(o->f = fdopen(fd, "w"))) {
        int err = errno;
        if (fd >= 0) {
            close(fd);
            unlink(o->temporary);
        }
        free(o->temporary);
        o->temporary = NULL;
        return fail(who, path, strerror(err));
    }
    return 0;
}

int vt_output_file_open(struct vt_output_file *o, const char *path, bool force, const char *who)
{
    return open_file(o, path, force, who, false);
}

int vt_output_file_open_private(struct vt_output_file *o, const char *path, bool force,
                                const char *who)
{
    return open_file(o, path, force, who, true);
}

int vt_output_file_close(struct vt_output_file *o, bool ok)
{
    bool written = fflush(o->f) == 0 && !ferror(o->f);
    int err = errno;
    if (fclose(o->f) != 0 && written) {
        written = false;
        err = errno;
    }
    if (ok && !written)
        fprintf(stderr, "vramtrace: %s: %s\n", o->path, strerror(err));
    int status = ok && written ? 0 : -1;
    if (o->temporary) {
        if (status == 0 && rename(o->temporary, o->path) != 0) {
            fprintf(stderr, "vramtrace: %s: %s\n", o->path, strerror(errno));
            status = -1;
        }
        if (status != 0)
            unlink(o->temporary);
        free(o->temporary);
    }
    *o = (struct vt_output_file){0};
    return status;
}
