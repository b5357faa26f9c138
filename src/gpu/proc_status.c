/* SPDX-License-Identifier: MIT */
#include "proc_status.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static ssize_t read_file(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;
    if (fd < 0)
        return -1;
    n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -1;
    buf[n] = '\0';
    return n;
}

/* "Uid:" and "Threads:" of /proc/PID/status; left as they are when absent. */
static void read_status(int pid, struct vt_proc_status *s)
{
    char path[64], buf[4096];
    const char *line;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    if (read_file(path, buf, sizeof buf) < 0)
        return;
    if ((line = strstr(buf, "\nUid:")))
        s->uid = (unsigned)strtoul(line + 5, NULL, 10);
    if ((line = strstr(buf, "\nThreads:")))
        s->threads = atoi(line + 9);
}

int vt_proc_status_read(int pid, struct vt_proc_status *s)
{
    char path[64], buf[1024];
    const char *open_paren, *close_paren;
    unsigned long long start = 0;
    int ppid, pgid, sid;
    char state;
    memset(s, 0, sizeof *s);
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    if (pid <= 0 || read_file(path, buf, sizeof buf) <= 0)
        return -1;
    /* "pid (comm) state ppid pgrp session ..."; comm may hold anything */
    open_paren = strchr(buf, '(');
    close_paren = strrchr(buf, ')');
    if (!open_paren || !close_paren || close_paren < open_paren ||
        sscanf(close_paren + 2, "%c %d %d %d", &state, &ppid, &pgid, &sid) != 4)
        return -1;
    const char *p = close_paren + 2;
    for (int field = 3; field < 22 && p; field++)
        p = strchr(p + 1, ' ');
    if (p)
        start = strtoull(p + 1, NULL, 10);
    snprintf(s->comm, sizeof s->comm, "%.*s", (int)(close_paren - open_paren - 1), open_paren + 1);
    s->pid = pid;
    s->state = state;
    s->ppid = ppid;
    s->pgid = pgid;
    s->sid = sid;
    s->start_ticks = start;
    read_status(pid, s);
    return 0;
}

int vt_proc_orphaned(const struct vt_proc_status *s)
{
    struct vt_proc_status leader, parent;
    if (s->pid <= 1 || s->pgid == s->pid)
        return 0; /* a group's leader (a job, a daemon) is nobody's leftover */
    if (s->ppid == 1)
        return 1;
    if (vt_proc_status_read(s->pgid, &leader) == 0)
        return 0;
    return vt_proc_status_read(s->ppid, &parent) == 0 && parent.sid != s->sid;
}

const char *vt_proc_state_name(char state)
{
    switch (state) {
    case 'R':
        return "running";
    case 'S':
    case 'I':
        return "sleeping";
    case 'D':
        return "uninterruptible";
    case 'T':
    case 't':
        return "stopped"; /* by a signal, or by a debugger */
    case 'Z':
    case 'X':
        return "zombie";
    default:
        return "sleeping"; /* W (paging), P (parked), K (wakekill) */
    }
}

double vt_proc_run_seconds(const struct vt_proc_status *s)
{
    char buf[128];
    long ticks = sysconf(_SC_CLK_TCK);
    double uptime;
    if (ticks <= 0 || read_file("/proc/uptime", buf, sizeof buf) <= 0 ||
        sscanf(buf, "%lf", &uptime) != 1)
        return -1;
    double started = (double)s->start_ticks / (double)ticks;
    return uptime > started ? uptime - started : 0;
}
