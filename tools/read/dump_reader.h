/* SPDX-License-Identifier: MIT */
/* Reading a .vtr dump: every byte is checked against src/format.h, and the
 * events are handed, in file order, to a sink; what is kept is the model
 * (dump_model.h). */
#ifndef VT_DUMP_READER_H
#define VT_DUMP_READER_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "dump_model.h"

/* Reads PATH, feeding SINK. Returns 0, or -1 after printing one line on
 * stderr, "vramtrace: PATH: <what> [at offset N]", when no record can be
 * found in it (no such file, no header, a format version this vramtrace
 * does not read). Whatever else is wrong costs only the records concerned:
 * dump->complete says whether the data was whole, dump->disbelieved how
 * many records were dropped or clamped (a warning each on stderr, the
 * first VT_WARNINGS_SHOWN of them). */
int vt_dump_read(const char *path, const struct vt_event_sink *sink, void *ctx,
                 struct vt_dump *dump);
/* The same for a dump read once already: the warnings are not said again. */
int vt_dump_reread(const char *path, const struct vt_event_sink *sink, void *ctx,
                   struct vt_dump *dump);
/* The same for SIZE bytes at DATA, read as the file PATH (for messages);
 * _quietly: without the warnings (dump->disbelieved still counts them). */
int vt_dump_read_memory(const char *path, const uint8_t *data, size_t size,
                        const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump);
int vt_dump_read_memory_quietly(const char *path, const uint8_t *data, size_t size,
                                const struct vt_event_sink *sink, void *ctx, struct vt_dump *dump);

/* Where an incremental read (vramtrace watch) stands between calls. */
struct vt_dump_position {
    size_t offset;                  /* file offset of the next record; 0: header not read */
    uint64_t time_ns, prev_address; /* the decoding state there */
};
/* Reads the whole records in DATA, the file bytes [START, START + SIZE),
 * from POS->offset on, and moves POS past them; DUMP (zeroed before the
 * first call) keeps what was read. Stops quietly at the zero padding, at a
 * record the writer has not finished, and before a header that is not
 * written yet; a record length that is no varint ends the reading for
 * good (dump->unreadable_at). Returns 1 when it stopped at a record cut off
 * by the end of DATA, 0 otherwise, -1 after printing the error line as
 * vt_dump_read (no header). The warnings and that line go to WARNINGS
 * (NULL: nowhere; dump->disbelieved still counts the records). */
int vt_dump_read_appended(const char *path, const uint8_t *data, size_t start, size_t size,
                          struct vt_dump_position *pos, const struct vt_event_sink *sink, void *ctx,
                          struct vt_dump *dump, FILE *warnings);

#endif
