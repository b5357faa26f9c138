/* SPDX-License-Identifier: MIT */
/* A step marker from the program: vramtrace_mark() and the ends of the NVTX
 * ranges that `--mark-on-nvtx` names write the same one. */
#ifndef VRAMTRACE_MARKER_H
#define VRAMTRACE_MARKER_H

/* Writes a MARK with LABEL now (starting the tracer and opening the dump
 * if nothing has yet) and samples the devices' usage; nothing when this
 * thread is inside the tracer or the process is not traced. */
void vt_marker_write(const char *label);

#endif
