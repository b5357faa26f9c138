/* SPDX-License-Identifier: MIT */
/* Leak suppressions in LeakSanitizer's format: one "leak:PATTERN" per line;
 * '#' starts a comment anywhere on a line. PATTERN is a substring of a
 * frame's function, source file or module; '^' and '$' anchor it, '*'
 * matches any run of characters. */
#ifndef VT_SUPPRESSIONS_H
#define VT_SUPPRESSIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symbolize.h"

#define VT_SUPPRESSIONS_ENV "VRAMTRACE_SUPPRESSIONS"

struct vt_suppression {
    char *pattern;
    /* known framework memory (known_memory.h): what it is, and a sentence
     * on it or NULL; NULL for a suppression */
    char *label;
    const char *note;
    const char *origin;    /* the file it came from, or "default" */
    size_t line;           /* its line in that file (0: built in) */
    uint64_t count, bytes; /* allocations it suppressed, in the current dump */
    uint64_t total_count;  /* ... in every dump read so far */
};

struct vt_suppression_memo;

struct vt_suppressions {
    struct vt_suppression *list;
    size_t n;
    /* Which patterns each frame matched, by frame (they are shared by the
     * symbolizer's cache): a report of many call sites matches each
     * distinct frame once. Valid for one dump (reset_counts clears it). */
    struct vt_suppression_memo *memo;
};

/* The built-in list: the runtime's module registration. */
void vt_suppressions_add_defaults(struct vt_suppressions *s);
/* Adds PATTERN (LEN bytes), from ORIGIN's LINE, labelled LABEL (copied; or NULL). */
void vt_suppressions_add(struct vt_suppressions *s, const char *pattern, size_t len,
                         const char *label, const char *origin, size_t line);
/* A kind of pattern file: lines "PREFIX..." (a '#' starts a comment),
 * each added to a list by ADD with the text after PREFIX. */
struct vt_pattern_file {
    const char *what;     /* "suppressions": for the error line */
    const char *prefix;   /* "leak:" */
    const char *expected; /* "leak:PATTERN": what a line must look like */
    void (*add)(struct vt_suppressions *s, char *text, const char *path, size_t line);
};
/* Adds every line of PATH, a file of KIND. Returns 0, or -1 after one line
 * on stderr naming the file (and the line, for a line not of KIND). */
int vt_pattern_file_load(struct vt_suppressions *s, const struct vt_pattern_file *kind,
                         const char *path);
/* Adds every pattern of PATH. Returns 0, or -1 after one line on stderr
 * naming the file (and the line, for a line that is not "leak:PATTERN"). */
int vt_suppressions_load(struct vt_suppressions *s, const char *path);
/* The first suppression matching any of FRAMES, or NULL. */
struct vt_suppression *vt_suppressions_match(struct vt_suppressions *s,
                                             const struct vt_frame *const *frames, size_t n);
/* Before each dump: counts to 0, and what frames matched forgotten. */
void vt_suppressions_reset_counts(struct vt_suppressions *s);
/* A pattern from a file that has matched nothing in any dump so far. */
static inline bool vt_suppression_unused(const struct vt_suppression *s)
{
    return s->line && !s->total_count;
}
void vt_suppressions_free(struct vt_suppressions *s);

#endif
