/* SPDX-License-Identifier: MIT */
/* Sizes and times as people read them (human_units.c). */
#ifndef VT_HUMAN_UNITS_H
#define VT_HUMAN_UNITS_H

#include <stdint.h>
#include <stdio.h>

/* "12.0 MiB"; BUF holds at least 32 bytes. */
const char *vt_human_size(uint64_t bytes, char *buf);
/* A time since the process started: "2.345 ms", "12.500 s"; BUF holds 32. */
const char *vt_format_time(uint64_t ns, char *buf);
void vt_print_time(uint64_t ns, FILE *out);

#endif
