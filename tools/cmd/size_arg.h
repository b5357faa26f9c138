/* SPDX-License-Identifier: MIT */
/* Size arguments: "1048576", "512 KiB", "1.5GB". */
#ifndef VT_SIZE_ARG_H
#define VT_SIZE_ARG_H

#include <stdint.h>

/* Parses a byte count with an optional unit (B, KiB, MiB, GiB, TiB, or
 * KB, MB, GB, TB meaning the same binary multiples, as pytest-memray reads
 * them; case-insensitive, space allowed before the unit). Fractions round
 * down to whole bytes. Returns 0, or -1 when S is not such a size. */
int vt_parse_size(const char *s, uint64_t *bytes);

#endif
