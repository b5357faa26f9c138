/* SPDX-License-Identifier: MIT */
/* Programs driven line by line (tests/test_attach.py): says SAID on stdout
 * and waits for a line on stdin (exit status 3 when stdin ends). */
#ifndef VT_TEST_WAIT_LINE_H
#define VT_TEST_WAIT_LINE_H

#include <stdio.h>
#include <stdlib.h>

static inline void wait_for(const char *said)
{
    char line[64];
    printf("%s\n", said);
    fflush(stdout);
    if (!fgets(line, sizeof line, stdin))
        exit(3);
}

#endif
