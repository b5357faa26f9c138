/* SPDX-License-Identifier: MIT */
/* The dump writer: records appended into a MAP_SHARED mapping of the file
 * (a window of it that slides along),
 * so they are in the page cache the moment they are written and survive the
 * process being killed. All calls with the tracer lock held. */
#ifndef VRAMTRACE_WRITER_H
#define VRAMTRACE_WRITER_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* Creates the dump (never following a symlink nor clobbering a file: picks a
 * fresh name instead, and says so), mode 0600, writes the header with FLAGS
 * (format.h) and adds the dump to the run's manifest (manifest.h).
 * 0 or -1 (warned). */
int vt_writer_open(uint32_t flags);

int vt_writer_is_open(void);

/* 1 when the dump is open and this process opened it (a vfork child shares
 * its parent's memory, and must not touch its dump). Async-signal-safe. */
int vt_writer_owned_here(void);

/* Where the next record goes, and erasing every record written since that
 * mark (an exec that failed after its END was written). */
size_t vt_writer_mark(void);
void vt_writer_rewind(size_t mark);

/* A field of a record already written whose value comes later (a WIDE
 * field: FREE's call_ns, known once the real free returned), filled in by
 * the thread that wrote the record without the lock: its window stays
 * mapped until then. AT NULL: not held (the field keeps its 0). */
struct vt_held_field {
    uint8_t *at;
    unsigned *holds;
};
/* Lock held: holds the field at file offset AT of the last record. */
void vt_writer_hold(size_t at, struct vt_held_field *field);
/* Without the lock: writes N BYTES into the held field (BYTES NULL: leaves
 * it as it is) and lets it go. */
static inline void vt_writer_fill(struct vt_held_field *field, const uint8_t *bytes, size_t n)
{
    if (!field->at)
        return;
    if (bytes)
        memcpy(field->at, bytes, n);
    __atomic_sub_fetch(field->holds, 1, __ATOMIC_RELEASE);
    field->at = NULL;
}

/* Appends one record; -1 when the file cannot grow (said once, on stderr;
 * tracing then stops). */
int vt_writer_record(uint8_t type, const uint8_t *payload, size_t len);
/* The same for a record of at most VT_SMALL_PAYLOAD_MAX payload bytes,
 * encoded in place: begin says where its payload goes (NULL: the file
 * cannot grow), end publishes it with its LEN. */
#define VT_SMALL_PAYLOAD_MAX 127 /* its length is one byte */
uint8_t *vt_writer_small_begin(void);
void vt_writer_small_end(uint8_t type, uint8_t *payload, size_t len);

/* Why the dump stopped growing (enum vt_stop_cause), or 0: said in its
 * END record (VT_END_STOPPED), which may still use the room kept for it. */
unsigned vt_writer_stop_cause(void);

/* The header says format VERSION from now on, where it said an older one
 * (a record an older reader would misread is about to be written): 0, or
 * -1 when the header could not be written. Lock held. */
int vt_writer_raise_version(uint32_t version);

/* How many times the program took the dump's descriptor and the dump was
 * found again by its path (said in its END record). */
unsigned vt_writer_reopened(void);

/* Cuts the file to what was written and closes it. Each use of the
 * descriptor (grow, map, rewind, trim, close) first checks that it is still
 * the dump (device and inode): one the program took over is left alone, and
 * the dump is opened again by its path (or tracing stops). */
void vt_writer_close(void);

/* In a forked child: forget the parent's file without touching it. */
void vt_writer_forget(void);

const char *vt_writer_path(void);

#endif
