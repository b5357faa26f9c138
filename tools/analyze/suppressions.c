/* SPDX-License-Identifier: MIT */
#include "suppressions.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#define MEMO_PATTERNS 64 /* patterns a memo entry's mask can hold */

struct vt_suppression_memo {
    const struct vt_frame *frame;
    uint64_t matched; /* bit i: pattern i matches the frame */
    UT_hash_handle hh;
};

/* Allocations known not to be leaks: module registration in the runtime,
 * once per module and kept until the runtime goes. (CUDA's libraries'
 * handles and NCCL's communicators are named, not left out: a handle made
 * each step and never destroyed grows; known_memory.c.) */
static const char *const default_patterns[] = {
    "__cudaRegisterFatBinary",
    "__cudaRegisterLinkedBinary",
};

static void *xrealloc(void *p, size_t size)
{
    p = realloc(p, size);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static char *copy_of(const char *text, size_t len)
{
    char *copy = xrealloc(NULL, len + 1);
    memcpy(copy, text, len);
    copy[len] = '\0';
    return copy;
}

void vt_suppressions_add(struct vt_suppressions *s, const char *pattern, size_t len,
                         const char *label, const char *origin, size_t line)
{
    s->list = xrealloc(s->list, (s->n + 1) * sizeof *s->list);
    s->list[s->n++] = (struct vt_suppression){.pattern = copy_of(pattern, len),
                                              .label = label ? copy_of(label, strlen(label)) : NULL,
                                              .origin = origin,
                                              .line = line};
}

void vt_suppressions_add_defaults(struct vt_suppressions *s)
{
    for (size_t i = 0; i < sizeof default_patterns / sizeof default_patterns[0]; i++)
        vt_suppressions_add(s, default_patterns[i], strlen(default_patterns[i]), NULL, "default",
                            0);
}

/* Patterns hold no '#'. */
static char *pattern_line_text(char *line)
{
    line[strcspn(line, "#\r\n")] = '\0';
    while (*line == ' ' || *line == '\t')
        line++;
    size_t len = strlen(line);
    while (len && (line[len - 1] == ' ' || line[len - 1] == '\t'))
        line[--len] = '\0';
    return line;
}

int vt_pattern_file_load(struct vt_suppressions *s, const struct vt_pattern_file *kind,
                         const char *path)
{
    FILE *f = fopen(path, "r");
    char *line = NULL;
    size_t cap = 0, lineno = 0, prefix = strlen(kind->prefix);
    int result = 0;
    if (!f) {
        fprintf(stderr, "vramtrace: %s: cannot read %s: %s\n", path, kind->what, strerror(errno));
        return -1;
    }
    while (getline(&line, &cap, f) > 0) {
        char *text = pattern_line_text(line);
        lineno++;
        if (!*text)
            continue;
        if (strncmp(text, kind->prefix, prefix) || !text[prefix] || text[prefix] == ' ' ||
            text[prefix] == '\t') {
            fprintf(stderr, "vramtrace: %s:%zu: expected '%s', got '%s'\n", path, lineno,
                    kind->expected, text);
            result = -1;
            break;
        }
        kind->add(s, text + prefix, path, lineno);
    }
    free(line);
    fclose(f);
    return result;
}

static void add_suppression(struct vt_suppressions *s, char *text, const char *path, size_t line)
{
    vt_suppressions_add(s, text, strlen(text), NULL, path, line);
}

int vt_suppressions_load(struct vt_suppressions *s, const char *path)
{
    static const struct vt_pattern_file suppressions = {"suppressions", "leak:", "leak:PATTERN",
                                                        add_suppression};
    return vt_pattern_file_load(s, &suppressions, path);
}

/* Does [p, pend), with '*' globs, match the text from T on: all of it up
 * to TEND when TO_END, else any prefix of it? */
static bool glob_here(const char *p, const char *pend, const char *t, const char *tend, bool to_end)
{
    for (; p < pend; p++, t++) {
        if (*p == '*') {
            for (const char *rest = t; rest <= tend; rest++)
                if (glob_here(p + 1, pend, rest, tend, to_end))
                    return true;
            return false;
        }
        if (t == tend || *p != *t)
            return false;
    }
    return !to_end || t == tend;
}

/* LeakSanitizer's template match: a substring unless anchored. */
static bool pattern_matches(const char *pattern, const char *text)
{
    const char *pend = pattern + strlen(pattern), *tend = text + strlen(text);
    bool at_start = *pattern == '^', at_end = pend > pattern + at_start && pend[-1] == '$';
    const char *p = pattern + at_start;
    pend -= at_end;
    if (!at_start && !at_end && !memchr(p, '*', (size_t)(pend - p)))
        return strstr(text, p) != NULL; /* the common case: a plain substring */
    for (const char *start = text; start <= tend; start++) {
        if (glob_here(p, pend, start, tend, at_end))
            return true;
        if (at_start)
            break;
    }
    return false;
}

static bool frame_matches(const char *pattern, const struct vt_frame *f)
{
    return (f->function && pattern_matches(pattern, f->function)) ||
           (f->file && pattern_matches(pattern, f->file)) ||
           (f->module && pattern_matches(pattern, f->module));
}

/* Which of the first MEMO_PATTERNS patterns match F, worked out once per frame. */
static uint64_t frame_mask(struct vt_suppressions *s, const struct vt_frame *f)
{
    struct vt_suppression_memo *e;
    HASH_FIND_PTR(s->memo, &f, e);
    if (!e) {
        e = xrealloc(NULL, sizeof *e);
        e->frame = f;
        e->matched = 0;
        for (size_t i = 0; i < s->n && i < MEMO_PATTERNS; i++)
            if (frame_matches(s->list[i].pattern, f))
                e->matched |= (uint64_t)1 << i;
        HASH_ADD_PTR(s->memo, frame, e);
    }
    return e->matched;
}

struct vt_suppression *vt_suppressions_match(struct vt_suppressions *s,
                                             const struct vt_frame *const *frames, size_t n)
{
    uint64_t matched = 0;
    for (size_t k = 0; k < n; k++)
        matched |= frame_mask(s, frames[k]);
    if (matched)
        return &s->list[__builtin_ctzll(matched)];
    for (size_t i = MEMO_PATTERNS; i < s->n; i++)
        for (size_t k = 0; k < n; k++)
            if (frame_matches(s->list[i].pattern, frames[k]))
                return &s->list[i];
    return NULL;
}

static void forget_memo(struct vt_suppressions *s)
{
    struct vt_suppression_memo *e, *tmp;
    HASH_ITER(hh, s->memo, e, tmp) {
        HASH_DEL(s->memo, e);
        free(e);
    }
}

void vt_suppressions_reset_counts(struct vt_suppressions *s)
{
    forget_memo(s);
    for (size_t i = 0; i < s->n; i++)
        s->list[i].count = s->list[i].bytes = 0;
}

void vt_suppressions_free(struct vt_suppressions *s)
{
    forget_memo(s);
    for (size_t i = 0; i < s->n; i++) {
        free(s->list[i].pattern);
        free(s->list[i].label);
    }
    free(s->list);
    s->list = NULL;
    s->n = 0;
}
