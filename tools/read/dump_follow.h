/* SPDX-License-Identifier: MIT */
/* Following a dump that its process is still writing (vramtrace watch):
 * each poll reads only the records appended since the previous one, through
 * a bounded window of the file, so memory stays the replay's own however
 * long the dump grows. */
#ifndef VT_DUMP_FOLLOW_H
#define VT_DUMP_FOLLOW_H

#include <stddef.h>
#include <stdio.h>

#include "dump_reader.h"

struct vt_dump_follow {
    const char *path;
    int fd;
    struct vt_dump_position pos;
    struct vt_dump dump; /* what was read so far */
    size_t window;       /* bytes mapped at a time */
    size_t file_size;    /* at the last poll */
    bool cut;            /* the last poll stopped at an unfinished record */
    FILE *warnings;      /* the records disbelieved, named (stderr; NULL: only counted) */
};

/* Opens PATH; -1 after one line on stderr. */
int vt_dump_follow_open(struct vt_dump_follow *f, const char *path);
/* Feeds SINK the records appended since the last poll. Returns the number
 * of bytes of records read (0: nothing new), or -1 after one line on stderr
 * (a corrupt record). */
long long vt_dump_follow_poll(struct vt_dump_follow *f, const struct vt_event_sink *sink,
                              void *ctx);
/* For a last snapshot: where the data stopped at zero padding with
 * non-zero bytes after it (the writer was in the middle of a record, or the
 * file is damaged), dump.end says so as vt_dump_read would. It reads the
 * rest of the file. */
void vt_dump_follow_settle(struct vt_dump_follow *f);
void vt_dump_follow_close(struct vt_dump_follow *f);

#endif
