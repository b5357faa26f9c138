/* SPDX-License-Identifier: MIT */
#include "size_arg.h"

#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

static const struct {
    const char *name;
    unsigned shift;
} units[] = {
    {"", 0},     {"b", 0},  {"k", 10},  {"kb", 10},  {"kib", 10}, {"m", 20},  {"mb", 20},
    {"mib", 20}, {"g", 30}, {"gb", 30}, {"gib", 30}, {"t", 40},   {"tb", 40}, {"tib", 40},
};

static int unit_shift(const char *unit)
{
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++)
        if (!strcasecmp(unit, units[i].name))
            return (int)units[i].shift;
    return -1;
}

static const char *skip_spaces(const char *s)
{
    while (*s == ' ')
        s++;
    return s;
}

/* Whole numbers stay exact; only fractions go through a double. */
int vt_parse_size(const char *s, uint64_t *bytes)
{
    char *end;
    int shift;
    if (!isdigit((unsigned char)*s) && *s != '.')
        return -1; /* no sign, no space, no "inf" */
    errno = 0;
    uint64_t whole = strtoull(s, &end, 10);
    if (*end != '.' && *end != 'e' && *end != 'E') {
        shift = unit_shift(skip_spaces(end));
        if (end == s || errno || shift < 0 || (shift && whole > UINT64_MAX >> shift))
            return -1;
        *bytes = whole << shift;
        return 0;
    }
    double v = strtod(s, &end);
    shift = unit_shift(skip_spaces(end));
    if (end == s || shift < 0)
        return -1;
    v *= (double)(UINT64_C(1) << shift);
    if (!(v >= 0) || v >= 18446744073709551616.0)
        return -1;
    *bytes = (uint64_t)v; /* rounds down */
    return 0;
}
