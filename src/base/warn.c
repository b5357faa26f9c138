/* SPDX-License-Identifier: MIT */
#include "warn.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* The file the process started with as descriptor 2 (device and inode). */
static struct {
    int state; /* 0: not looked at yet; 1: open; 2: closed at start */
    dev_t dev;
    ino_t ino;
} start_stderr;

void vt_stderr_start(void)
{
    struct stat st;
    int saved = errno;
    if (fstat(STDERR_FILENO, &st) == 0) {
        start_stderr.dev = st.st_dev;
        start_stderr.ino = st.st_ino;
        start_stderr.state = 1;
    } else {
        start_stderr.state = 2;
    }
    errno = saved;
}

/* Descriptor 2 is still the process's stderr: the file it started with (a
 * terminal, a pipe, a socket, the file a shell redirected it to), not a
 * file the program opened after closing stderr (it takes the lowest free
 * number) nor one it moved there. */
static int stderr_is_the_starting_one(void)
{
    struct stat st;
    if (!start_stderr.state)
        vt_stderr_start();
    return start_stderr.state == 1 && fstat(STDERR_FILENO, &st) == 0 &&
           st.st_dev == start_stderr.dev && st.st_ino == start_stderr.ino;
}

void vt_stderr_write(const char *text, size_t len)
{
    sigset_t pipe_only, before, pending;
    struct timespec now = {0, 0};
    int saved = errno, was_pending;
    if (!stderr_is_the_starting_one())
        return;
    /* SIGPIPE blocked: a reader that has gone (`| head -1`) costs the line,
     * never the process. A SIGPIPE this write raised is taken back; one
     * already pending (the program's) stays. */
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &before);
    was_pending = sigpending(&pending) == 0 && sigismember(&pending, SIGPIPE);
    if (write(STDERR_FILENO, text, len) < 0 && errno == EPIPE && !was_pending)
        while (sigtimedwait(&pipe_only, NULL, &now) < 0 && errno == EINTR) {
        }
    pthread_sigmask(SIG_SETMASK, &before, NULL);
    errno = saved;
}

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
    vt_stderr_write(line, len);
    errno = saved;
}
