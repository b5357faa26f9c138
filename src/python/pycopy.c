/* SPDX-License-Identifier: MIT */
#include "pycopy.h"

#include "pycode_cache.h"
#include "pyinterp.h"
#include "pyline.h"
#include "pypeek.h"

#include <stdint.h>
#include <stdlib.h>

#define TABLE_BYTES_MAX (1L << 20) /* a longer line table is not read */

struct field {
    long offset, width; /* offset -1: absent */
};

/* The bytes a copy needs to hold the N fields. */
static long extent(const struct field *fields, size_t n)
{
    long end = 0;
    for (size_t i = 0; i < n; i++)
        if (fields[i].offset >= 0 && fields[i].offset + fields[i].width > end)
            end = fields[i].offset + fields[i].width;
    return end;
}

long vt_pycopy_thread_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {
        {L->ts_next, 8}, {L->ts_interp, 8}, {L->ts_thread_id, 8}, {L->ts_frame, 8}};
    return extent(f, sizeof f / sizeof f[0]);
}

long vt_pycopy_frame_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {
        {L->frame_code, 8}, {L->frame_back, 8}, {L->frame_instr, 8}, {L->frame_owner, 1}};
    return extent(f, sizeof f / sizeof f[0]);
}

long vt_pycopy_code_bytes(const struct vt_pylayout *L)
{
    const struct field f[] = {{L->ob_type, 8},          {L->var_size, 8},
                              {L->code_filename, 8},    {L->code_name, 8},
                              {L->code_qualname, 8},    {L->code_linetable, 8},
                              {L->code_firstlineno, 4}, {L->code_firsttraceable, 4}};
    return extent(f, sizeof f / sizeof f[0]);
}

int vt_pycopy_take(const char *at, long size, struct vt_pycopy *c)
{
    c->at = at;
    return at && size <= VT_PYCOPY_BYTES && vt_peek(at, c->bytes, (size_t)size) == 0 ? 0 : -1;
}

const char *vt_pycopy_peek_ptr(const char *at)
{
    const char *p;
    return at && vt_peek(at, &p, sizeof p) == 0 ? p : NULL;
}

/* ---- frames ---- */

static long instruction_offset(const struct vt_pyframe_copy *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    switch (L->instr) {
    case VT_PY_LASTI_BYTES:
        return vt_pycopy_int(&f->self, L->frame_instr);
    case VT_PY_LASTI_UNITS:
        return 2L * vt_pycopy_int(&f->self, L->frame_instr);
    case VT_PY_INSTR_POINTER:
        return vt_pycopy_ptr(&f->self, L->frame_instr) - (f->code.at + L->code_bytecode);
    }
    return -1;
}

/* The code object F's copied frame runs, or NULL (a shim frame of the C
 * stack, a tagged integer); F->back set. */
const char *vt_pyframe_code_address(struct vt_pyframe_copy *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    f->python = 0;
    f->back = vt_pycopy_ptr(&f->self, L->frame_back);
    int owner = L->frame_owner >= 0 ? (unsigned char)f->self.bytes[L->frame_owner] : 0;
    if (L->owner_cstack >= 0 && owner >= L->owner_cstack)
        return NULL;
    uintptr_t ref = (uintptr_t)vt_pycopy_ptr(&f->self, L->frame_code);
    if (L->executable_tagged) {
        if ((ref & 3) == 3) /* a tagged integer, not an object */
            return NULL;
        ref &= ~(uintptr_t)3;
    }
    return (const char *)ref;
}

/* With F's code object copied: whether F runs Python code (not one whose
 * code has not started), as pystack.c's walk tells them, and where. */
void vt_pyframe_judge(struct vt_pyframe_copy *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    int owner = L->frame_owner >= 0 ? (unsigned char)f->self.bytes[L->frame_owner] : 0;
    f->python = 0;
    if (vt_pycopy_ptr(&f->code, L->ob_type) != vt_py.code_type)
        return;
    f->offset = instruction_offset(f);
    if (L->code_firsttraceable >= 0) {
        long units = vt_pycopy_long(&f->code, L->var_size);
        if (f->offset < 0 || f->offset > 2 * units)
            return;
        if (owner != L->owner_generator &&
            f->offset < 2L * vt_pycopy_int(&f->code, L->code_firsttraceable))
            return; /* incomplete */
    }
    f->python = 1;
}

/* Copies the frame at AT and its code object; -1 when the frame cannot be
 * read. F->python tells a frame of running Python code. */
int vt_pyframe_read(const char *at, struct vt_pyframe_copy *f)
{
    if (vt_pycopy_take(at, vt_pycopy_frame_bytes(&vt_py.layout), &f->self) < 0)
        return -1;
    const char *code = vt_pyframe_code_address(f);
    if (code && vt_pycopy_take(code, vt_pycopy_code_bytes(&vt_py.layout), &f->code) == 0)
        vt_pyframe_judge(f);
    return 0;
}

/* ---- strings ---- */

/* Copies the header of the str at AT into HEAD; -1 when it is none. */
static int vt_pycopy_take_str(const char *at, struct vt_pycopy *head)
{
    return vt_pycopy_take(at, vt_py.layout.str_ascii_size, head) == 0 &&
                   vt_pycopy_ptr(head, vt_py.layout.ob_type) == vt_py.unicode_type
               ? 0
               : -1;
}

/* CHARS characters of the str copied in HEAD, from character FIRST on, as
 * UTF-8 into OUT (VT_PY_TEXT_BYTES); the length written, or -1. */
static long vt_pycopy_text(const struct vt_pycopy *head, long first, long chars, char *out)
{
    struct vt_pytext_shape shape;
    unsigned char data[4 * VT_PY_TEXT_CHARS];
    if (vt_pytext_shape(head->bytes, &shape) < 0 || first < 0 || chars > VT_PY_TEXT_CHARS)
        return -1;
    shape.length = chars;
    if (vt_peek(head->at + shape.offset + first * (long)shape.kind, data,
                (size_t)chars * shape.kind) < 0)
        return -1;
    return vt_pytext_utf8(&shape, data, out);
}

/* The text of the str at AT when it is at most VT_PYCOPY_NAME_CHARS characters long,
 * into OUT; its length, or -1. */
long vt_pycopy_short_text(const char *at, char *out)
{
    struct vt_pycopy head;
    if (vt_pycopy_take_str(at, &head) < 0)
        return -1;
    long length = vt_pycopy_long(&head, vt_py.layout.str_length);
    return length <= VT_PYCOPY_NAME_CHARS ? vt_pycopy_text(&head, 0, length, out) : -1;
}

/* Whether the str at AT ends with SUFFIX (ASCII). */
int vt_pycopy_ends_with(const char *at, const char *suffix)
{
    struct vt_pycopy head;
    char text[VT_PY_TEXT_BYTES];
    long n = (long)strlen(suffix);
    if (vt_pycopy_take_str(at, &head) < 0)
        return 0;
    long length = vt_pycopy_long(&head, vt_py.layout.str_length);
    return length >= n && vt_pycopy_text(&head, length - n, n, text) == n &&
           memcmp(text, suffix, (size_t)n) == 0;
}

/* The location of F's instruction: remembered on this thread by the code
 * object's address and validated as pystack.c does, decoded on a miss. */
struct vt_pyloc *vt_pyframe_location(const struct vt_pyframe_copy *f)
{
    const struct vt_pylayout *L = &vt_py.layout;
    const struct vt_pycopy *code = &f->code;
    struct vt_pycopy name, file, table;
    if (vt_pycopy_take_str(
            vt_pycopy_ptr(code, L->code_qualname >= 0 ? L->code_qualname : L->code_name), &name) <
            0 ||
        vt_pycopy_take_str(vt_pycopy_ptr(code, L->code_filename), &file) < 0 ||
        vt_pycopy_take(vt_pycopy_ptr(code, L->code_linetable), L->bytes_data, &table) < 0 ||
        vt_pycopy_ptr(&table, L->ob_type) != vt_py.bytes_type)
        return NULL;
    struct vt_pycode_key key = {
        .code = (uintptr_t)code->at,
        .offset = f->offset,
        .name = (uintptr_t)name.at,
        .file = (uintptr_t)file.at,
        .table = (uintptr_t)table.at,
        .name_hash = vt_pycopy_long(&name, L->str_hash),
        .file_hash = vt_pycopy_long(&file, L->str_hash),
        .table_len = vt_pycopy_long(&table, L->bytes_size),
        .firstlineno = vt_pycopy_int(code, L->code_firstlineno),
    };
    struct vt_pyloc *loc = vt_pycode_find(&key);
    if (loc || key.table_len < 0 || key.table_len > TABLE_BYTES_MAX)
        return loc;
    char function[VT_PY_TEXT_BYTES], path[VT_PY_TEXT_BYTES];
    long function_len = vt_pycopy_text(&name, 0, vt_pycopy_long(&name, L->str_length), function);
    long path_len = vt_pycopy_text(&file, 0, vt_pycopy_long(&file, L->str_length), path);
    uint8_t *lines = malloc(key.table_len ? (size_t)key.table_len : 1);
    if (function_len >= 0 && path_len >= 0 && lines &&
        vt_peek(table.at + L->bytes_data, lines, (size_t)key.table_len) == 0) {
        int line = vt_pyline(L->lines, lines, key.table_len, key.firstlineno, key.offset);
        loc = vt_pyloc_intern(function, (size_t)function_len, path, (size_t)path_len, line);
    }
    free(lines);
    if (loc)
        vt_pycode_remember(&key, loc);
    return loc;
}
