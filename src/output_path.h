/* SPDX-License-Identifier: MIT */
/* VRAMTRACE_OUTPUT, the dump path pattern: the one definition of its
 * %-sequences, shared by the library (src/base/config.c expands it per
 * process) and `vramtrace run` (tools/cmd/run_output.c checks it before the
 * program starts). Unknown or dangling %-sequences are refused by both,
 * rather than guessed at. */
#ifndef VRAMTRACE_OUTPUT_PATH_H
#define VRAMTRACE_OUTPUT_PATH_H

#include <stddef.h>
#include <string.h>

#define VT_OUTPUT_PATH_SEQUENCES "%p the pid, %r the rank, %e the program's name, %% a percent sign"

/* What the per-process sequences stand for (NULL: keep the sequence as it
 * is written, to check a pattern without a process). */
struct vt_output_path_values {
    const char *pid, *rank, *exe;
};

/* The value of sequence %C, "%" for %%, or NULL for an unknown one. */
static inline const char *vt_output_path_value(char c, const struct vt_output_path_values *v,
                                               char kept[3])
{
    const char *value = c == 'p' ? v->pid : c == 'r' ? v->rank : c == 'e' ? v->exe : NULL;
    if (c == '%')
        return "%";
    if (c != 'p' && c != 'r' && c != 'e')
        return NULL;
    if (value)
        return value;
    kept[0] = '%';
    kept[1] = c;
    kept[2] = '\0';
    return kept;
}

/* Expands PATTERN into OUT (SIZE bytes, NUL-terminated). Returns its
 * length; -1 with *BAD at the offending '%' for an unknown or dangling
 * sequence (*BAD NULL: it does not fit). PER_PROCESS (may be NULL): set to
 * 1 when a sequence other than %% was found. */
static inline long vt_output_path_expand(char *out, size_t size, const char *pattern,
                                         const struct vt_output_path_values *v, const char **bad,
                                         int *per_process)
{
    size_t len = 0;
    *bad = NULL;
    if (per_process)
        *per_process = 0;
    for (const char *p = pattern; *p; p++) {
        char one[2] = {*p, '\0'}, kept[3];
        const char *piece = one;
        if (*p == '%') {
            piece = vt_output_path_value(p[1], v, kept);
            if (!piece) {
                *bad = p;
                return -1;
            }
            if (per_process && p[1] != '%')
                *per_process = 1;
            p++;
        }
        size_t n = strlen(piece);
        if (len + n >= size)
            return -1;
        memcpy(out + len, piece, n + 1);
        len += n;
    }
    if (size)
        out[len] = '\0';
    return (long)len;
}

#endif
