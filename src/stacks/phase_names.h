/* SPDX-License-Identifier: MIT */
/* The names of NVTX ranges, interned: each distinct name gets an id (1,
 * 2, ...) once, and is written once per dump (a PHASE record), before the
 * first ALLOC made inside such a range. Lookups take no lock and allocate
 * nothing: the names live in a fixed table and arena. */
#ifndef VRAMTRACE_PHASE_NAMES_H
#define VRAMTRACE_PHASE_NAMES_H

#include <stddef.h>
#include <stdint.h>

/* At most this many names (later new ones get 0: no phase), each cut at
 * VT_PHASE_NAME_MAX bytes. */
#define VT_PHASES_MAX 1024
#define VT_PHASE_NAME_MAX 255

/* The id of NAME (LEN bytes), interned on first sight; 0 when the table
 * is full. Any thread, any time, no lock held. */
uint32_t vt_phase_intern(const char *name, size_t len);
/* The same for the NUL-terminated NAME. */
uint32_t vt_phase_intern_string(const char *name);

/* The name of ID (interned: valid for the process's life), "" for 0. */
const char *vt_phase_name(uint32_t id);

/* Lock held, dump open: writes ID's PHASE record if this dump has none
 * yet (0: nothing to write). 0, or -1 when the dump could not be written. */
int vt_phase_note(uint32_t id);

/* A new dump starts (forked child): every name is written again. */
void vt_phase_names_reset(void);

#endif
