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

/* Dumps of a directory whose start could not be read whole (damaged, or
 * written by another vramtrace): counted, then named in one line, not a
 * warning each (a directory of old dumps would fill the terminal). */
static size_t damaged;
static char first_damaged[PATH_MAX * 2];

/* Reads the PROCESS record of the dump at PATH; false when it has none
 * (yet) or is not a dump. */
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
    int got =
        vt_dump_read_appended(path, head, 0, (size_t)n, &pos, &ignore_events, NULL, dump, NULL);
    if ((got < 0 || dump->disbelieved || dump->unreadable_at) && !damaged++)
        snprintf(first_damaged, sizeof first_damaged, "%s", path);
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

static void say_damaged(const char *dir)
{
    if (damaged) {
        fprintf(stderr, "vramtrace watch: %zu damaged %s in %s left out or read in part: %s",
                damaged, damaged == 1 ? "dump" : "dumps", dir, first_damaged);
        if (damaged > 1)
            fprintf(stderr, " and %zu more", damaged - 1);
        fputs(" (vramtrace report DUMP says what is wrong)\n", stderr);
    }
    damaged = 0;
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
        damaged = 0; /* counted by the dumps of this directory only */
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
        say_damaged(dirs[d]);
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

/* Each process's parent, as /proc says now. */
struct family {
    struct {
        pid_t pid, ppid;
    } * list;
    size_t n;
};

static pid_t parent_of(long pid)
{
    char path[64], line[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", pid);
    FILE *f = fopen(path, "re");
    bool got = f && fgets(line, sizeof line, f);
    if (f)
        fclose(f);
    const char *after = got ? strrchr(line, ')') : NULL; /* the name may hold spaces */
    int ppid;
    return after && sscanf(after, ") %*c %d", &ppid) == 1 ? (pid_t)ppid : -1;
}

static void read_family(struct family *fam)
{
    DIR *proc = opendir("/proc");
    struct dirent *e;
    fam->list = NULL;
    fam->n = 0;
    while (proc && (e = readdir(proc))) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        pid_t ppid = *end || end == e->d_name ? -1 : parent_of(pid);
        if (ppid <= 0)
            continue;
        fam->list = vt_xgrow(fam->list, fam->n, sizeof *fam->list);
        fam->list[fam->n].pid = (pid_t)pid;
        fam->list[fam->n++].ppid = ppid;
    }
    if (proc)
        closedir(proc);
}

/* The dumps PID's descendants write, nearest first (breadth first), into
 * PATHS (at most MAX); how many. *FIRST: the process of the first. */
static size_t descendant_dumps(pid_t pid, char **paths, size_t max, pid_t *first)
{
    struct family fam;
    read_family(&fam);
    pid_t *queue = vt_xcalloc(fam.n + 1, sizeof *queue);
    size_t head = 0, tail = 0, found = 0;
    queue[tail++] = pid;
    while (head < tail && found < max) {
        pid_t p = queue[head++];
        char *path = p == pid ? NULL : open_dump_of(p);
        if (path && !found)
            *first = p;
        if (path)
            paths[found++] = path;
        for (size_t i = 0; i < fam.n; i++)
            if (fam.list[i].ppid == p && tail <= fam.n)
                queue[tail++] = fam.list[i].pid;
    }
    free(queue);
    free(fam.list);
    return found;
}

#define MAX_FOLLOWED 64

/* PID writes no dump itself: its descendants' (a `vramtrace run` wrapper's
 * children). Returns how many were found. */
static size_t follow_descendants(pid_t pid, bool all, char ***paths)
{
    pid_t first = 0;
    *paths = vt_xcalloc(MAX_FOLLOWED, sizeof **paths);
    size_t n = descendant_dumps(pid, *paths, all ? MAX_FOLLOWED : 1, &first);
    if (n && all)
        fprintf(stderr,
                "vramtrace watch: process %d writes no dump itself: following the dumps of its "
                "%zu traced %s\n",
                (int)pid, n, n == 1 ? "descendant" : "descendants");
    else if (n)
        fprintf(stderr,
                "vramtrace watch: process %d writes no dump itself: following its descendant %d, "
                "the nearest traced one\n",
                (int)pid, (int)first);
    return n;
}

int vt_watch_find_pid(pid_t pid, bool all, char ***paths, size_t *n)
{
    char proc[64], dirs[2][PATH_MAX], *path = NULL;
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    *paths = NULL;
    *n = 0;
    if (access(proc, F_OK) != 0) {
        fprintf(stderr, "vramtrace watch: no process %d is running\n", (int)pid);
        return -1;
    }
    path = open_dump_of(pid);
    if (!path)
        each_live_dump(pid, keep_first, &path);
    if (path) {
        *paths = vt_xcalloc(1, sizeof **paths);
        (*paths)[(*n)++] = path;
        return 0;
    }
    *n = follow_descendants(pid, all, paths);
    if (*n)
        return 0;
    free(*paths);
    *paths = NULL;
    char *where = dirs_text(dirs, search_dirs(dirs));
    fprintf(stderr,
            "vramtrace watch: process %d writes no dump that can be found (not among "
            "its open files or its descendants', nor in %s): is it traced, and has it made a "
            "CUDA call yet?\n",
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
