/* SPDX-License-Identifier: MIT */
#include "watch_find.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ending.h"
#include "format.h"
#include "xalloc.h"

/* A PROCESS record fits in here (it comes first). */
#define HEAD_BYTES (64u << 10)

static void ignore_alloc(void *ctx, const struct vt_dump_alloc *ev)
{
    (void)ctx, (void)ev;
}
static void ignore_free(void *ctx, const struct vt_free_event *ev)
{
    (void)ctx, (void)ev;
}
static void ignore_failed(void *ctx, const struct vt_failed_event *ev)
{
    (void)ctx, (void)ev;
}
static const struct vt_event_sink ignore_events = {
    .alloc = ignore_alloc, .free = ignore_free, .failed = ignore_failed};

/* Reads the PROCESS record of the dump at PATH; false when it has none
 * (yet) or is not a dump (a corrupt one is named on stderr). */
static bool read_process(const char *path, struct vt_dump *dump)
{
    static uint8_t head[HEAD_BYTES];
    struct vt_dump_position pos = {0};
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    ssize_t n = fd >= 0 ? pread(fd, head, sizeof head, 0) : -1;
    memset(dump, 0, sizeof *dump);
    if (fd >= 0)
        close(fd);
    if (n < VT_HEADER_LEN || memcmp(head, VT_MAGIC, VT_MAGIC_LEN) != 0)
        return false;
    int got = vt_dump_read_appended(path, head, 0, (size_t)n, &pos, &ignore_events, NULL, dump);
    return got >= 0 && dump->process.present;
}

static bool writer_alive(const char *path, pid_t pid, struct vt_dump *dump)
{
    if (!read_process(path, dump))
        return false;
    return (pid == 0 || dump->process.pid == (uint64_t)pid) &&
           vt_writer_state(&dump->process) == VT_WRITER_ALIVE;
}

static bool is_dump_name(const char *name)
{
    size_t n = strlen(name);
    return n > 4 && !strcmp(name + n - 4, ".vtr");
}

/* The directories searched: "." and VRAMTRACE_OUTPUT's. */
static size_t search_dirs(char dirs[2][PATH_MAX])
{
    const char *out = getenv("VRAMTRACE_OUTPUT");
    size_t n = 0;
    snprintf(dirs[n++], PATH_MAX, ".");
    if (out && *out) {
        const char *slash = strrchr(out, '/');
        if (slash)
            snprintf(dirs[n], PATH_MAX, "%.*s", (int)(slash == out ? 1 : slash - out), out);
        else
            snprintf(dirs[n], PATH_MAX, ".");
        char a[PATH_MAX], b[PATH_MAX];
        if (!realpath(dirs[0], a) || !realpath(dirs[n], b) || strcmp(a, b))
            n++;
    }
    return n;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(vt_xcalloc(n, 1), s, n);
}

/* "., /tmp/out" for the messages. */
static char *dirs_text(char dirs[2][PATH_MAX], size_t n)
{
    size_t len = 0;
    for (size_t i = 0; i < n; i++)
        len += strlen(dirs[i]) + 2;
    char *text = vt_xcalloc(len + 1, 1);
    for (size_t i = 0; i < n; i++) {
        if (i)
            strcat(text, ", ");
        strcat(text, dirs[i]);
    }
    return text;
}

/* Calls FOUND for each dump in the search directories whose writer runs
 * (PID: that process only; 0: any). Returns how many. */
static size_t each_live_dump(pid_t pid,
                             void (*found)(void *ctx, const char *path, const struct vt_dump *dump),
                             void *ctx)
{
    char dirs[2][PATH_MAX], path[PATH_MAX * 2];
    size_t ndirs = search_dirs(dirs), count = 0;
    for (size_t d = 0; d < ndirs; d++) {
        struct dirent **names;
        int n = scandir(dirs[d], &names, NULL, alphasort);
        for (int i = 0; i < n; i++) {
            struct vt_dump dump;
            snprintf(path, sizeof path, "%s/%s", dirs[d], names[i]->d_name);
            if (is_dump_name(names[i]->d_name) && writer_alive(path, pid, &dump)) {
                found(ctx, path, &dump);
                count++;
            }
            if (is_dump_name(names[i]->d_name))
                vt_dump_free(&dump);
            free(names[i]);
        }
        if (n >= 0)
            free(names);
    }
    return count;
}

static void keep_first(void *ctx, const char *path, const struct vt_dump *dump)
{
    char **out = ctx;
    (void)dump;
    if (!*out)
        *out = xstrdup(path);
}

/* The .vtr file among PID's open files whose writer is PID. */
static char *open_dump_of(pid_t pid)
{
    char dir[64], link[PATH_MAX * 2], target[PATH_MAX];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *fds = opendir(dir);
    struct dirent *e;
    char *found = NULL;
    while (fds && !found && (e = readdir(fds))) {
        struct vt_dump dump;
        snprintf(link, sizeof link, "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = 0;
        if (!is_dump_name(target))
            continue;
        if (writer_alive(target, pid, &dump))
            found = xstrdup(target);
        vt_dump_free(&dump);
    }
    if (fds)
        closedir(fds);
    return found;
}

int vt_watch_find_pid(pid_t pid, char **path)
{
    char proc[64], dirs[2][PATH_MAX];
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    *path = NULL;
    if (access(proc, F_OK) != 0) {
        fprintf(stderr, "vramtrace watch: no process %d is running\n", (int)pid);
        return -1;
    }
    *path = open_dump_of(pid);
    if (!*path)
        each_live_dump(pid, keep_first, path);
    if (*path)
        return 0;
    char *where = dirs_text(dirs, search_dirs(dirs));
    fprintf(stderr,
            "vramtrace watch: process %d writes no dump that can be found (not among "
            "its open files, nor in %s): is it traced, and has it made a CUDA call yet?\n",
            (int)pid, where);
    free(where);
    return -1;
}

struct listing {
    FILE *out;
    size_t shown;
};

static void print_live(void *ctx, const char *path, const struct vt_dump *dump)
{
    struct listing *l = ctx;
    const struct vt_process *p = &dump->process;
    struct stat st;
    char size[32] = "?";
    if (!l->shown++)
        fprintf(l->out, "%-8s %-12s %s %s\n", "PID", "DUMP BYTES", "DUMP", "COMMAND");
    if (stat(path, &st) == 0)
        snprintf(size, sizeof size, "%lld", (long long)st.st_size);
    fprintf(l->out, "%-8" PRIu64 " %-12s %s ", p->pid, size, path);
    for (size_t i = 0; i < p->argc; i++)
        fprintf(l->out, "%s%s", i ? " " : "", p->argv[i]);
    if (!p->argc && p->exe)
        fputs(p->exe, l->out);
    fputc('\n', l->out);
}

size_t vt_watch_list(FILE *out)
{
    char dirs[2][PATH_MAX];
    struct listing l = {out, 0};
    if (each_live_dump(0, print_live, &l) == 0) {
        char *where = dirs_text(dirs, search_dirs(dirs));
        fprintf(stderr, "vramtrace watch: no running traced process has a dump in %s\n", where);
        free(where);
    }
    return l.shown;
}
