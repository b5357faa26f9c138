/* SPDX-License-Identifier: MIT */
/* A small pickle encoder (protocol 2 opcodes only, the set that both
 * Python's pickle and memory_viz's own JavaScript unpickler read): dicts,
 * lists, a pair of ints, str, int, bool, None, and the memo to write a
 * repeated object once. Streams to a FILE: containers are opened, filled,
 * and closed in order. */
#ifndef VT_PICKLE_H
#define VT_PICKLE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

struct vt_pickle {
    FILE *out;
    uint32_t next_memo;
};

/* PROTO 2 ... STOP around the one object written in between. */
void vt_pickle_begin(struct vt_pickle *p, FILE *out);
void vt_pickle_end(struct vt_pickle *p);
/* A dict's items are key, value, key, value ... between begin and end. */
void vt_pickle_dict_begin(struct vt_pickle *p);
void vt_pickle_dict_end(struct vt_pickle *p);
void vt_pickle_list_begin(struct vt_pickle *p);
void vt_pickle_list_end(struct vt_pickle *p);
/* A str: bytes that are not valid UTF-8 become U+FFFD. */
void vt_pickle_str(struct vt_pickle *p, const char *s);
void vt_pickle_int(struct vt_pickle *p, int64_t v);
void vt_pickle_uint(struct vt_pickle *p, uint64_t v);
void vt_pickle_bool(struct vt_pickle *p, bool v);
void vt_pickle_none(struct vt_pickle *p);
/* The tuple (A, B). */
void vt_pickle_int_pair(struct vt_pickle *p, int64_t a, int64_t b);
/* Remembers the object just written; returns its memo id. */
uint32_t vt_pickle_memo_put(struct vt_pickle *p);
/* Writes the remembered object ID again (the same object when read). */
void vt_pickle_memo_get(struct vt_pickle *p, uint32_t id);
/* A str written once and then fetched from the memo: *ID is 0 before the
 * first use (ids handed out are 1 + memo id). */
void vt_pickle_interned(struct vt_pickle *p, uint32_t *id, const char *s);

#endif
