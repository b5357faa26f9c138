/* SPDX-License-Identifier: MIT */
/* Shorter C++ names: see cxx_names.h. Demangled names only: the templates'
 * angle brackets balance, except in operator names. */
#include "cxx_names.h"

#include <string.h>

/* Where the bracket opened at S[0] ('<' or '(') closes; N if it does not. */
static size_t closing(const char *s, size_t n)
{
    char open = s[0], close = open == '<' ? '>' : ')';
    size_t depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == open)
            depth++;
        else if (s[i] == close && !--depth)
            return i;
    }
    return n;
}

/* The length of a default template argument at S (", std::allocator<int>"),
 * or 0. */
static size_t default_argument(const char *s, size_t n)
{
    static const char *const defaults[] = {
        ", std::allocator<", ", std::char_traits<", ", std::less<",
        ", std::equal_to<",  ", std::hash<",        ", std::default_delete<",
    };
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        size_t len = strlen(defaults[i]);
        if (len < n && !strncmp(s, defaults[i], len)) {
            size_t end = len - 1 + closing(s + len - 1, n - (len - 1));
            return end < n ? end + 1 : 0;
        }
    }
    return 0;
}

/* "operator<<", "operator()", "operator->": their brackets are no
 * template's nor parameter list's. */
static size_t operator_name(const char *s)
{
    if (strncmp(s, "operator", 8))
        return 0;
    if (!strncmp(s + 8, "()", 2))
        return 10;
    return 8 + strspn(s + 8, "<>=-+*/%&|^!~[]");
}

static size_t append(char *buf, size_t o, const char *s, size_t n)
{
    memcpy(buf + o, s, n);
    return o + n;
}

/* A space outside brackets before the parameter list ends a template
 * function's return type ("void f<int>(int)"), unless it is an operator's
 * ("operator new", "operator unsigned long"). */
static bool ends_return_type(const char *buf, size_t o)
{
    size_t last = 0; /* where the last name of BUF starts, after its "::" */
    for (size_t i = 0; i + 1 < o; i++)
        if (buf[i] == ':' && buf[i + 1] == ':')
            last = i + 2;
    for (size_t i = last; i + 8 <= o; i++)
        if (!strncmp(buf + i, "operator", 8))
            return false;
    return true;
}

const char *vt_short_name(const char *name, bool params, char *buf, size_t len)
{
    size_t n = strlen(name), o = 0, angle = 0;
    bool in_params = false; /* past the (first) parameter list */
    if (n + 5 >= len)       /* "()" becomes "(...)" at most once per pair: room checked below */
        return name;
    for (size_t i = 0; i < n;) {
        size_t skip = angle ? default_argument(name + i, n - i) : 0;
        if (skip) { /* "vector<int, allocator<int> >": no space left before '>' */
            i += skip;
            i += name[i] == ' ' && name[i + 1] == '>' && o && buf[o - 1] != '>';
            continue;
        }
        if ((skip = operator_name(name + i))) {
            o = append(buf, o, name + i, skip);
            i += skip;
            continue;
        }
        if (!strncmp(name + i, "(anonymous namespace)", 21)) {
            o = append(buf, o, name + i, 21);
            i += 21;
            continue;
        }
        if (params && !angle && name[i] == '(') {
            size_t end = i + closing(name + i, n - i);
            in_params = true;
            if (end < n && end > i + 1 && o + 5 < len) {
                o = append(buf, o, "(...)", 5);
                i = end + 1;
                continue;
            }
        }
        if (params && !strncmp(name + i, " [clone ", 8))
            break; /* the compiler's copies of the function read as the function */
        if (params && !angle && !in_params && name[i] == ' ' && ends_return_type(buf, o)) {
            o = 0;
            i++;
            continue;
        }
        angle += name[i] == '<';
        angle -= name[i] == '>' && angle;
        if (o + 1 >= len)
            return name;
        buf[o++] = name[i++];
    }
    buf[o] = '\0';
    return buf;
}
