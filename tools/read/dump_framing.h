/* SPDX-License-Identifier: MIT */
/* Framing: finding the records of a .vtr dump (src/format.h) without
 * looking inside them: the header, then each record's type, offset and
 * payload. What a record says is belief's business (dump_belief.h). */
#ifndef VT_DUMP_FRAMING_H
#define VT_DUMP_FRAMING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The header: the one part without which no record can be found. */
struct vt_header {
    uint32_t version;
    bool aggregated; /* VT_FLAG_AGGREGATED */
};

/* Checks the header of the SIZE bytes at DATA. 0, or -1 with ERROR (what is
 * wrong) and *ERROR_OFFSET (where; 0 when it is the file itself). */
int vt_frame_header(const uint8_t *data, size_t size, struct vt_header *header, char *error,
                    size_t error_size, size_t *error_offset);

/* The bytes [base, end) are the file bytes from BASE_OFFSET on; P is where
 * the next record starts. LIVE: the file is still being written (vramtrace
 * watch): a record's type byte is read with acquire semantics (the writer
 * stores it last), and what follows the padding is not looked at. */
struct vt_framer {
    const uint8_t *base, *p, *end;
    size_t base_offset;
    bool live;
};

struct vt_frame {
    unsigned type;
    size_t offset; /* of the type byte, in the file */
    const uint8_t *payload, *end;
};

enum vt_frame_status {
    VT_FRAME_RECORD,    /* *FRAME is the next record; the framer is past it */
    VT_FRAME_END,       /* the data ends, or the zero padding after the last record */
    VT_FRAME_TRAILING,  /* the padding is followed by non-zero bytes (not LIVE) */
    VT_FRAME_CUT,       /* the next record is cut off by the end of the data */
    VT_FRAME_BAD_LENGTH /* the next record's length is not a varint: no record after it
                           can be found */
};

/* The next record. On anything but VT_FRAME_RECORD the framer stays where
 * it is, FRAME->offset being where it stopped. */
enum vt_frame_status vt_frame_next(struct vt_framer *f, struct vt_frame *frame);

/* The file offset of the framer's position. */
size_t vt_frame_offset(const struct vt_framer *f);

#endif
