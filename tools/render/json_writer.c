/* SPDX-License-Identifier: MIT */
#include "json_writer.h"
#include "utf8.h"

#include <stdlib.h>
#include <string.h>

#include <uthash.h>

#include "xalloc.h"

struct memo_key {
    const void *key;
    int depth;
};

struct vt_json_memo {
    struct memo_key key;
    char *text;
    size_t len;
    UT_hash_handle hh;
};

void vt_json_init(struct vt_json *j, FILE *out)
{
    memset(j, 0, sizeof *j);
    j->out = out;
}

static void flush(struct vt_json *j)
{
    fwrite_unlocked(j->buf, 1, j->len, j->out);
    j->len = 0;
    j->flushes++;
}

/* The document is whole: what was kept for it goes. */
static void forget_memo(struct vt_json *j)
{
    struct vt_json_memo *m, *tmp;
    HASH_ITER(hh, j->memo, m, tmp) {
        HASH_DEL(j->memo, m);
        free(m->text);
        free(m);
    }
    j->recording = NULL;
}

static void put(struct vt_json *j, const void *data, size_t n)
{
    if (n > sizeof j->buf - j->len) {
        flush(j);
        if (n > sizeof j->buf) {
            fwrite_unlocked(data, 1, n, j->out);
            return;
        }
    }
    memcpy(j->buf + j->len, data, n);
    j->len += n;
}

static void put_char(struct vt_json *j, char c)
{
    if (j->len == sizeof j->buf)
        flush(j);
    j->buf[j->len++] = c;
}

static void put_text(struct vt_json *j, const char *s)
{
    put(j, s, strlen(s));
}

static void indent(struct vt_json *j)
{
    static const char spaces[2 * VT_JSON_MAX_DEPTH + 1] = {[0 ... 2 * VT_JSON_MAX_DEPTH - 1] = ' '};
    put_char(j, '\n');
    put(j, spaces, 2 * (size_t)j->depth);
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
        put_char(j, ',');
    j->has_items[j->depth] = true;
    indent(j);
}

static void open_level(struct vt_json *j, char c)
{
    begin_value(j);
    put_char(j, c);
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
    put_char(j, c);
    if (j->depth == 0) {
        put_char(j, '\n');
        flush(j);
        forget_memo(j);
    }
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

/* Printable ASCII other than '"' and '\\': goes out as it is. */
static const bool ascii_plain[256] = {
    [0x20 ... 0x21] = true, [0x23 ... 0x5b] = true, [0x5d ... 0x7e] = true};

static void write_escape(struct vt_json *j, unsigned char c)
{
    static const char hex[] = "0123456789abcdef";
    char u[6] = {'\\', 'u', '0', '0', hex[c >> 4 & 0xf], hex[c & 0xf]};
    if (c >= 0x80) /* not valid UTF-8 */
        put_text(j, "\\ufffd");
    else if (c == '"' || c == '\\') {
        put_char(j, '\\');
        put_char(j, (char)c);
    } else if (c == '\n')
        put_text(j, "\\n");
    else if (c == '\t')
        put_text(j, "\\t");
    else
        put(j, u, sizeof u);
}

/* Reports run to gigabytes of JSON: runs of characters that need no
 * escaping (printable ASCII, whole valid UTF-8 sequences) go out in one
 * piece, ASCII found by a table. */
static void write_escaped(struct vt_json *j, const char *str)
{
    const unsigned char *s = (const unsigned char *)str, *run = s;
    put_char(j, '"');
    while (*s) {
        while (ascii_plain[*s])
            s++;
        size_t len = *s >= 0x80 ? vt_utf8_sequence_length(s) : 0;
        if (len) {
            s += len;
            continue;
        }
        if (!*s)
            break;
        put(j, run, (size_t)(s - run));
        write_escape(j, *s);
        run = ++s;
    }
    put(j, run, (size_t)(s - run));
    put_char(j, '"');
}

/* Decimal digits of V, without printf's parsing of a format. */
static void write_digits(struct vt_json *j, uint64_t v)
{
    char buf[20], *p = buf + sizeof buf;
    do
        *--p = (char)('0' + v % 10);
    while (v /= 10);
    put(j, p, (size_t)(buf + sizeof buf - p));
}

void vt_json_key(struct vt_json *j, const char *key)
{
    begin_value(j);
    write_escaped(j, key);
    put(j, ": ", 2);
    j->after_key = true;
}

void vt_json_string(struct vt_json *j, const char *s)
{
    if (!s) {
        vt_json_null(j);
        return;
    }
    begin_value(j);
    write_escaped(j, s);
}

void vt_json_uint(struct vt_json *j, uint64_t v)
{
    begin_value(j);
    write_digits(j, v);
}

void vt_json_ns_as_us(struct vt_json *j, uint64_t ns)
{
    unsigned us_fraction = (unsigned)(ns % 1000);
    char fraction[4] = {'.', (char)('0' + us_fraction / 100), (char)('0' + us_fraction / 10 % 10),
                        (char)('0' + us_fraction % 10)};
    begin_value(j);
    write_digits(j, ns / 1000);
    put(j, fraction, sizeof fraction);
}

void vt_json_int(struct vt_json *j, int64_t v)
{
    begin_value(j);
    if (v < 0)
        put_char(j, '-');
    write_digits(j, v < 0 ? 0 - (uint64_t)v : (uint64_t)v);
}

void vt_json_bool(struct vt_json *j, bool v)
{
    begin_value(j);
    put_text(j, v ? "true" : "false");
}

void vt_json_null(struct vt_json *j)
{
    begin_value(j);
    put_text(j, "null");
}

bool vt_json_memo_begin(struct vt_json *j, const void *key)
{
    struct memo_key k;
    struct vt_json_memo *m;
    memset(&k, 0, sizeof k); /* its padding is hashed too */
    k.key = key;
    k.depth = j->depth;
    HASH_FIND(hh, j->memo, &k, sizeof k, m);
    begin_value(j);
    if (m) {
        put(j, m->text, m->len);
        return true;
    }
    if (sizeof j->buf - j->len < sizeof j->buf / 4)
        flush(j); /* room for the value: it is kept from the buffer */
    m = vt_xcalloc(1, sizeof *m);
    m->key = k;
    j->recording = m;
    j->recording_from = j->len;
    j->recording_flushes = j->flushes;
    j->after_key = true; /* separated already */
    return false;
}

void vt_json_memo_end(struct vt_json *j)
{
    struct vt_json_memo *m = j->recording;
    j->recording = NULL;
    if (!m)
        return;
    if (j->flushes != j->recording_flushes) { /* too long to keep */
        free(m);
        return;
    }
    m->len = j->len - j->recording_from;
    m->text = vt_xcalloc(m->len, 1);
    memcpy(m->text, j->buf + j->recording_from, m->len);
    HASH_ADD(hh, j->memo, key, sizeof m->key, m);
}
