/* SPDX-License-Identifier: MIT */
#include "proc_self.h"

#include <fcntl.h>
#include <string.h>
#include <unistd.h>

/* Reads a small /proc file whole (cmdline holds NUL-separated argv). */
size_t vt_proc_read(const char *path, char *out, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    size_t len = 0;
    if (fd < 0)
        return 0;
    while (len < size) {
        ssize_t n = read(fd, out + len, size - len);
        if (n <= 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    return len;
}

/* Field 22 of /proc/self/stat: when the process started, in clock ticks
 * since boot (after the command name, which may hold spaces and ')'). */
uint64_t vt_proc_start_ticks(void)
{
    char stat[1024];
    size_t len = vt_proc_read("/proc/self/stat", stat, sizeof stat - 1);
    uint64_t ticks = 0;
    stat[len] = '\0';
    char *p = strrchr(stat, ')');
    for (int field = 2; p && field < 22; field++)
        p = strchr(p + 1, ' ');
    for (p = p ? p + 1 : NULL; p && *p >= '0' && *p <= '9'; p++)
        ticks = ticks * 10 + (uint64_t)(*p - '0');
    return ticks;
}
