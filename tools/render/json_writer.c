/* SPDX-License-Identifier: MIT */
#include "json_writer.h"
#include "utf8.h"

#include <inttypes.h>
#include <string.h>

void vt_json_init(struct vt_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

static void indent(struct vt_json *j)
{
    static const char spaces[2 * VT_JSON_MAX_DEPTH + 1] = {[0 ... 2 * VT_JSON_MAX_DEPTH - 1] = ' '};
    fputc_unlocked('\n', j->out);
    fwrite_unlocked(spaces, 1, 2 * (size_t)j->depth, j->out);
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
        fputc_unlocked(',', j->out);
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

void vt_json_begin_object(struct vt_json *j)
{
    open_level(j, '{');
}
void vt_json_end_object(struct vt_json *j)
{
    close_level(j, '}');
}
void vt_json_begin_array(struct vt_json *j)
{
    open_level(j, '[');
}
void vt_json_end_array(struct vt_json *j)
{
    close_level(j, ']');
}

/* Bytes at S that go out as they are: a printable ASCII character other
 * than '"' and '\\', or a whole valid UTF-8 sequence; 0 when S needs escaping. */
static size_t plain_length(const unsigned char *s)
{
    if (*s >= 0x80)
        return vt_utf8_sequence_length(s);
    return *s >= 0x20 && *s != 0x7f && *s != '"' && *s != '\\';
}

static void write_escape(FILE *out, unsigned char c)
{
    if (c >= 0x80) /* not valid UTF-8 */
        fputs_unlocked("\\ufffd", out);
    else if (c == '"' || c == '\\') {
        fputc_unlocked('\\', out);
        fputc_unlocked(c, out);
    } else if (c == '\n')
        fputs_unlocked("\\n", out);
    else if (c == '\t')
        fputs_unlocked("\\t", out);
    else
        fprintf(out, "\\u%04x", c);
}

/* Reports run to gigabytes of JSON: runs of characters that need no
 * escaping go out in one write, and nothing here takes the stream's lock. */
static void write_escaped(FILE *out, const char *str)
{
    const unsigned char *s = (const unsigned char *)str, *run = s;
    fputc_unlocked('"', out);
    while (*s) {
        size_t len = plain_length(s);
        if (len) {
            s += len;
            continue;
        }
        fwrite_unlocked(run, 1, (size_t)(s - run), out);
        write_escape(out, *s);
        run = ++s;
    }
    fwrite_unlocked(run, 1, (size_t)(s - run), out);
    fputc_unlocked('"', out);
}

void vt_json_key(struct vt_json *j, const char *key)
{
    begin_value(j);
    write_escaped(j->out, key);
    fputs_unlocked(": ", j->out);
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
