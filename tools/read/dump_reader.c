/* SPDX-License-Identifier: MIT */
/* Reading a dump: framing finds each record (dump_framing.c), belief
 * decides what of it to accept (dump_belief.c), building puts that into
 * the model or hands it to the sink (dump_building.c). Only a dump in which
 * no record can be found (no header, another format version) is refused. */
#include "dump_reader.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump_belief.h"
#include "dump_building.h"
#include "dump_framing.h"
#include "format.h"
#include "progress.h"

/* A dump that stops early: keep what was read, say why it is partial. */
static void mark_partial(struct vt_dump *dump, const char *fmt, size_t offset)
{
    dump->complete = false;
    snprintf(dump->end, sizeof dump->end, fmt, offset);
}

/* What stopped the framing, other than a record: the end of the data, or
 * the part of the file after it that cannot be read. */
static void framing_stopped(struct vt_belief *b, enum vt_frame_status status, size_t offset)
{
    switch (status) {
    case VT_FRAME_TRAILING:
        mark_partial(b->dump, "written data ends at offset %zu but non-zero bytes follow", offset);
        break;
    case VT_FRAME_CUT:
        mark_partial(b->dump,
                     "truncated: the record at offset %zu is cut off by the end of the file",
                     offset);
        break;
    case VT_FRAME_BAD_LENGTH:
        mark_partial(b->dump, "the record at offset %zu has a corrupt length: the rest is not read",
                     offset);
        b->dump->unreadable_at = offset;
        vt_disbelieve_rest(b, offset, "corrupt record length");
        break;
    default:
        break;
    }
}

/* Frames, believes and builds every record from F's position on; returns
 * how the framing stopped. STOPPED_AT: the offset where it did. */
static enum vt_frame_status read_records(struct vt_belief *b, struct vt_framer *f,
                                         const struct vt_event_sink *sink, void *ctx,
                                         struct vt_progress *progress, size_t *stopped_at)
{
    struct vt_frame frame;
    struct vt_believed rec;
    enum vt_frame_status status;
    b->framer = f;
    while ((status = vt_frame_next(f, &frame)) == VT_FRAME_RECORD) {
        if (progress)
            vt_progress_update(progress, frame.offset);
        if (vt_believe(b, &frame, &rec)) {
            vt_build(b->dump, sink, ctx, &rec);
            vt_believed_free(&rec);
        }
    }
    *stopped_at = frame.offset;
    return status;
}

static void print_header_error(const char *path, const char *error, size_t offset, FILE *out)
{
    if (!out)
        return;
    if (offset)
        fprintf(out, "vramtrace: %s: %s at offset %zu\n", path, error, offset);
    else
        fprintf(out, "vramtrace: %s: %s\n", path, error);
}

/* The header, into DUMP; -1 after saying on ERRORS (NULL: nowhere) why
 * there are no records. */
static int read_header(const char *path, const uint8_t *data, size_t size, struct vt_dump *dump,
                       FILE *errors)
{
    struct vt_header header;
    char error[160];
    size_t offset;
    if (vt_frame_header(data, size, &header, error, sizeof error, &offset) != 0) {
        print_header_error(path, error, offset, errors);
        return -1;
    }
    dump->version = header.version;
    dump->aggregated = header.aggregated;
    return 0;
}

static int read_memory(const char *path, const uint8_t *data, size_t size,
                       const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump,
                       FILE *warnings)
{
    static const uint8_t empty[1];
    struct vt_progress progress;
    size_t stopped_at = 0;
    memset(dump, 0, sizeof *dump);
    dump->path = path;
    data = data ? data : empty;
    if (size == 0) { /* killed before its header: it ended before its first record */
        dump->version = VT_VERSION_EVENTS;
        dump->no_records = true;
        snprintf(dump->end, sizeof dump->end, "no footer");
        return 0;
    }
    if (read_header(path, data, size, dump, stderr) != 0)
        return -1;
    struct vt_framer f = {.base = data, .p = data + VT_HEADER_LEN, .end = data + size};
    struct vt_belief b = {.path = path, .dump = dump, .warnings = warnings};
    vt_progress_start(&progress, path, size);
    enum vt_frame_status status = read_records(&b, &f, sink, ctx, &progress, &stopped_at);
    framing_stopped(&b, status, stopped_at);
    dump->no_records = status == VT_FRAME_END && vt_frame_offset(&f) == VT_HEADER_LEN;
    vt_progress_end(&progress);
    vt_belief_summary(&b);
    if (!dump->complete && !dump->end[0])
        snprintf(dump->end, sizeof dump->end, "no footer");
    return 0;
}

int vt_dump_read_memory(const char *path, const uint8_t *data, size_t size,
                        const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump)
{
    return read_memory(path, data, size, sink, ctx, dump, stderr);
}

int vt_dump_read_memory_quietly(const char *path, const uint8_t *data, size_t size,
                                const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump)
{
    return read_memory(path, data, size, sink, ctx, dump, NULL);
}

static int map_file(const char *path, const uint8_t **data, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        int err = S_ISDIR(st.st_mode) ? EISDIR : EINVAL;
        close(fd);
        errno = err;
        return -1;
    }
    *size = (size_t)st.st_size;
    *data = NULL;
    if (*size) {
        void *m = mmap(NULL, *size, PROT_READ, MAP_PRIVATE, fd, 0);
        if (m == MAP_FAILED) {
            int err = errno;
            close(fd);
            errno = err;
            return -1;
        }
        *data = m;
    }
    close(fd);
    return 0;
}

static int read_file(const char *path, const struct vt_event_sink *sink, void *ctx,
                     struct vt_dump *dump, FILE *warnings)
{
    const uint8_t *data;
    size_t size;
    memset(dump, 0, sizeof *dump);
    dump->path = path;
    if (map_file(path, &data, &size) != 0) {
        fprintf(stderr, "vramtrace: %s: %s\n", path, strerror(errno));
        return -1;
    }
    int result = read_memory(path, data, size, sink, ctx, dump, warnings);
    if (data)
        munmap((void *)data, size);
    return result;
}

int vt_dump_read(const char *path, const struct vt_event_sink *sink, void *ctx,
                 struct vt_dump *dump)
{
    return read_file(path, sink, ctx, dump, stderr);
}

int vt_dump_reread(const char *path, const struct vt_event_sink *sink, void *ctx,
                   struct vt_dump *dump)
{
    return read_file(path, sink, ctx, dump, NULL);
}

/* The header of a file still being created may be zeros yet. */
static bool header_written(const uint8_t *data, size_t size)
{
    return size >= VT_HEADER_LEN && data[0] != 0;
}

int vt_dump_read_appended(const char *path, const uint8_t *data, size_t start, size_t size,
                          struct vt_dump_position *pos, const struct vt_event_sink *sink, void *ctx,
                          struct vt_dump *dump, FILE *warnings)
{
    size_t stopped_at = 0;
    dump->path = path;
    if (pos->offset == 0) {
        if (start != 0 || !header_written(data, size))
            return 0;
        if (read_header(path, data, size, dump, warnings) != 0)
            return -1;
        pos->offset = VT_HEADER_LEN;
    }
    if (pos->offset < start || pos->offset > start + size || dump->unreadable_at)
        return 0;
    if (!dump->has_footer)
        dump->end[0] = 0;
    struct vt_framer f = {.base = data,
                          .p = data + (pos->offset - start),
                          .end = data + size,
                          .base_offset = start,
                          .live = true};
    struct vt_belief b = {.path = path,
                          .dump = dump,
                          .warnings = warnings,
                          .time_ns = pos->time_ns,
                          .prev_address = pos->prev_address};
    enum vt_frame_status status = read_records(&b, &f, sink, ctx, NULL, &stopped_at);
    pos->offset = vt_frame_offset(&f);
    pos->time_ns = b.time_ns;
    pos->prev_address = b.prev_address;
    framing_stopped(&b, status, stopped_at);
    if (!dump->complete && !dump->end[0])
        snprintf(dump->end, sizeof dump->end, "no footer");
    return status == VT_FRAME_CUT ? 1 : 0;
}
