/* SPDX-License-Identifier: MIT */
/* Every file the CLI writes (output_file.c): written beside its path under a
 * temporary name and renamed into place only when all of it was written, so
 * a failure never leaves half a file nor removes one that was there; a path
 * that holds a vramtrace dump is refused unless forced. */
#ifndef VT_OUTPUT_FILE_H
#define VT_OUTPUT_FILE_H

#include <stdbool.h>
#include <stdio.h>

struct vt_output_file {
    FILE *f;          /* write here */
    const char *path; /* where it goes */
    char *temporary;  /* or NULL: not a regular file (a pipe, a terminal), written in place */
};

/* Opens PATH for writing; WHO prefixes the error line ("vramtrace export").
 * Refuses a path holding a dump unless FORCE. 0, or -1 with one line said. */
int vt_output_file_open(struct vt_output_file *o, const char *path, bool force, const char *who);
/* The same, a new file made 0600: for outputs that hold the traced program's
 * paths as its dump does (a replaced file keeps its own mode). */
int vt_output_file_open_private(struct vt_output_file *o, const char *path, bool force,
                                const char *who);
/* Closes it: renamed into place when OK and every write succeeded, else the
 * temporary file is removed and the path left as it was. 0 when in place. */
int vt_output_file_close(struct vt_output_file *o, bool ok);

#endif
