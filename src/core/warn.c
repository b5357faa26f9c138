/* SPDX-License-Identifier: MIT */
#include "warn.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

void vt_warn(const char *fmt, ...)
{
    char line[1024] = "vramtrace: ";
    size_t prefix = strlen(line), len;
    va_list ap;
    int saved = errno;
    va_start(ap, fmt);
    vsnprintf(line + prefix, sizeof line - prefix - 1, fmt, ap);
    va_end(ap);
    len = strlen(line);
    line[len++] = '\n';
    if (write(STDERR_FILENO, line, len) < 0) {
        /* nowhere else to say it */
    }
    errno = saved;
}
