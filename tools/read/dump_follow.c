/* SPDX-License-Identifier: MIT */
#include "dump_follow.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <stdint.h>
#include <unistd.h>

#define FOLLOW_WINDOW (1u << 20)

int vt_dump_follow_open(struct vt_dump_follow *f, const char *path)
{
    struct stat st;
    memset(f, 0, sizeof *f);
    f->path = path;
    f->window = FOLLOW_WINDOW;
    f->warnings = stderr;
    f->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (f->fd < 0 || fstat(f->fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = f->fd < 0 ? errno : S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        fprintf(stderr, "vramtrace: %s: %s\n", path, strerror(err));
        if (f->fd >= 0)
            close(f->fd);
        f->fd = -1;
        return -1;
    }
    return 0;
}

/* One window from the next record on. Returns what vt_dump_read_appended
 * does, and sets *END to the file offset after the window. */
static int read_window(struct vt_dump_follow *f, size_t size, const struct vt_event_sink *sink,
                       void *ctx, size_t *end)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t start = f->pos.offset / page * page;
    size_t len = size - start < f->window ? size - start : f->window;
    void *m = mmap(NULL, len, PROT_READ, MAP_SHARED, f->fd, (off_t)start);
    if (m == MAP_FAILED) {
        fprintf(stderr, "vramtrace: %s: %s\n", f->path, strerror(errno));
        return -1;
    }
    /* only these pages are read, once: no need to keep them */
    int got =
        vt_dump_read_appended(f->path, m, start, len, &f->pos, sink, ctx, &f->dump, f->warnings);
    munmap(m, len);
    *end = start + len;
    return got;
}

long long vt_dump_follow_poll(struct vt_dump_follow *f, const struct vt_event_sink *sink, void *ctx)
{
    struct stat st;
    size_t before = f->pos.offset;
    if (fstat(f->fd, &st) != 0) {
        fprintf(stderr, "vramtrace: %s: %s\n", f->path, strerror(errno));
        return -1;
    }
    f->file_size = (size_t)st.st_size;
    f->cut = false;
    while (f->pos.offset < f->file_size || (f->pos.offset == 0 && f->file_size)) {
        size_t from = f->pos.offset, end;
        int got = read_window(f, f->file_size, sink, ctx, &end);
        if (got < 0)
            return -1;
        f->cut = got == 1;
        if (end >= f->file_size || (got == 0 && f->pos.offset < end))
            break; /* the file's end, or the padding: nothing more written */
        if (f->pos.offset == from)
            f->window *= 2; /* one record larger than the window */
    }
    return (long long)(f->pos.offset - before);
}

/* Whether [FROM, TO) of the file holds a non-zero byte, a window at a time. */
static bool nonzero_between(const struct vt_dump_follow *f, size_t from, size_t to)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    for (size_t start = from / page * page; start < to; start += f->window) {
        size_t len = to - start < f->window ? to - start : f->window;
        const uint8_t *m = mmap(NULL, len, PROT_READ, MAP_SHARED, f->fd, (off_t)start);
        if (m == MAP_FAILED)
            return false;
        bool found = false;
        for (size_t i = start < from ? from - start : 0; i < len && !found; i++)
            found = m[i] != 0;
        munmap((void *)m, len);
        if (found)
            return true;
    }
    return false;
}

void vt_dump_follow_settle(struct vt_dump_follow *f)
{
    struct vt_dump *d = &f->dump;
    if (d->complete || f->cut || f->pos.offset == 0 || f->pos.offset >= f->file_size)
        return;
    if (nonzero_between(f, f->pos.offset, f->file_size))
        snprintf(d->end, sizeof d->end, "written data ends at offset %zu but non-zero bytes follow",
                 f->pos.offset);
}

void vt_dump_follow_close(struct vt_dump_follow *f)
{
    if (f->fd >= 0)
        close(f->fd);
    f->fd = -1;
    vt_dump_free(&f->dump);
}
