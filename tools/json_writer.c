#include "json_writer.h"

#include <inttypes.h>
#include <string.h>

void vt_json_init(struct vt_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

static void indent(struct vt_json *j)
{
    fputc('\n', j->out);
    for (int i = 0; i < j->depth; i++)
        fputs("  ", j->out);
}

/* Separates a new value from the previous one at this level. */
static void begin_value(struct vt_json *j)
{
    if (j->after_key) {
        j->after_key = false;
        return;
    }
    if (j->depth == 0)
        return;
    if (j->has_items[j->depth])
        fputc(',', j->out);
    j->has_items[j->depth] = true;
    indent(j);
}

static void open_level(struct vt_json *j, char c)
{
    begin_value(j);
    fputc(c, j->out);
    if (j->depth + 1 < VT_JSON_MAX_DEPTH)
        j->depth++;
    j->has_items[j->depth] = false;
}

static void close_level(struct vt_json *j, char c)
{
    bool had_items = j->has_items[j->depth];
    j->depth--;
    if (had_items)
        indent(j);
    fputc(c, j->out);
    if (j->depth == 0)
        fputc('\n', j->out);
}

void vt_json_begin_object(struct vt_json *j) { open_level(j, '{'); }
void vt_json_end_object(struct vt_json *j) { close_level(j, '}'); }
void vt_json_begin_array(struct vt_json *j) { open_level(j, '['); }
void vt_json_end_array(struct vt_json *j) { close_level(j, ']'); }

/* Length of the valid UTF-8 sequence at S, or 0 if it is not one. */
static size_t utf8_sequence_length(const unsigned char *s)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80)   /* also stops at the NUL */
            return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    bool overlong = (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000);
    bool surrogate = cp >= 0xd800 && cp <= 0xdfff;
    return overlong || surrogate || cp > 0x10ffff ? 0 : len;
}

static void write_escaped(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', out);
    while (*s) {
        size_t len = utf8_sequence_length(s);
        if (len == 0) {
            fputs("\\ufffd", out);
            s++;
        } else if (*s == '"' || *s == '\\') {
            fputc('\\', out);
            fputc(*s++, out);
        } else if (*s == '\n') {
            fputs("\\n", out);
            s++;
        } else if (*s == '\t') {
            fputs("\\t", out);
            s++;
        } else if (*s < 0x20 || *s == 0x7f) {
            fprintf(out, "\\u%04x", *s++);
        } else {
            fwrite(s, 1, len, out);
            s += len;
        }
    }
    fputc('"', out);
}

void vt_json_key(struct vt_json *j, const char *key)
{
    begin_value(j);
    write_escaped(j->out, key);
    fputs(": ", j->out);
    j->after_key = true;
}

void vt_json_string(struct vt_json *j, const char *s)
{
    if (!s) {
        vt_json_null(j);
        return;
    }
    begin_value(j);
    write_escaped(j->out, s);
}

void vt_json_uint(struct vt_json *j, uint64_t v)
{
    begin_value(j);
    fprintf(j->out, "%" PRIu64, v);
}

void vt_json_ns_as_us(struct vt_json *j, uint64_t ns)
{
    begin_value(j);
    fprintf(j->out, "%" PRIu64 ".%03u", ns / 1000, (unsigned)(ns % 1000));
}

void vt_json_int(struct vt_json *j, int64_t v)
{
    begin_value(j);
    fprintf(j->out, "%" PRId64, v);
}

void vt_json_bool(struct vt_json *j, bool v)
{
    begin_value(j);
    fputs(v ? "true" : "false", j->out);
}

void vt_json_null(struct vt_json *j)
{
    begin_value(j);
    fputs("null", j->out);
}
