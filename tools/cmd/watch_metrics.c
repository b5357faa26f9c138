/* SPDX-License-Identifier: MIT */
/* Each refresh reads what every followed dump appended; a dump whose
 * process has ended is finished into its metrics once, in this process,
 * and kept; the running ones are finished by a forked copy (as the view
 * is, see cmd_watch.c), which renders the exposition into a pipe. */
#include "watch_metrics.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "dump_follow.h"
#include "job_label.h"
#include "metrics_http.h"
#include "process_metrics.h"
#include "report.h"
#include "symbolize.h"
#include "watch_view.h"
#include "xalloc.h"

struct followed {
    char *path;
    bool named;      /* on the command line: unreadable is an error */
    bool open, done; /* done: ended (metrics kept) or unreadable */
    bool readable;
    bool listed; /* found by the last look */
    /* found in a directory, and damaged: its warnings are left out, and
     * one line names how many such dumps (told: counted in it already) */
    bool damaged, told;
    struct vt_dump_follow follow;
    struct vt_analysis analysis;
    struct vt_symbolizer *sym;
    size_t sym_modules;
    char *job;
    struct vt_metrics_process metrics; /* when ended */
};

struct exporter {
    const struct vt_watch_metrics *o;
    char *const *targets;
    size_t ntargets;
    struct followed *dumps;
    size_t n;
    int listen_fd;
    char *text; /* the last exposition */
    size_t len;
};

static volatile sig_atomic_t stop;

static void on_stop(int sig)
{
    (void)sig;
    stop = 1;
}

static void add_dump(struct exporter *e, const char *path, bool named)
{
    for (size_t i = 0; i < e->n; i++)
        if (!strcmp(e->dumps[i].path, path)) {
            e->dumps[i].listed = true;
            return;
        }
    e->dumps = vt_xgrow(e->dumps, e->n, sizeof *e->dumps);
    e->dumps[e->n++] = (struct followed){
        .path = strcpy(vt_xcalloc(strlen(path) + 1, 1), path), .named = named, .listed = true};
}

static void give_up(struct followed *d)
{
    vt_symbolizer_free(d->sym);
    d->sym = NULL;
    vt_analysis_free(&d->analysis);
    vt_dump_follow_close(&d->follow);
    d->open = false;
    d->done = true;
    d->readable = false; /* nothing of it is exported */
}

static void forget(struct followed *d)
{
    if (!d->done)
        give_up(d);
    vt_metrics_free(&d->metrics);
    free(d->job);
    free(d->path);
}

/* Processes that have ended whose dumps are gone are left out from now on. */
static void forget_removed(struct exporter *e)
{
    size_t kept = 0;
    for (size_t i = 0; i < e->n; i++) {
        if (e->dumps[i].done && !e->dumps[i].listed)
            forget(&e->dumps[i]);
        else
            e->dumps[kept++] = e->dumps[i];
    }
    e->n = kept;
}

/* The dumps named and those in the directories named, now. */
static void find_dumps(struct exporter *e)
{
    char **paths;
    size_t n;
    for (size_t i = 0; i < e->n; i++)
        e->dumps[i].listed = false;
    vt_find_dump_paths(e->targets, e->ntargets, true, &paths, &n);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        bool named = false;
        for (size_t k = 0; k < e->ntargets; k++)
            named |= !strcmp(paths[i], e->targets[k]) &&
                     !(stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode));
        add_dump(e, paths[i], named);
        free(paths[i]);
    }
    free(paths);
    forget_removed(e);
}

static void refresh_symbolizer(struct followed *d)
{
    if (d->sym && d->sym_modules == d->follow.dump.nmodules)
        return;
    vt_symbolizer_free(d->sym);
    d->sym = vt_symbolizer_new(&d->follow.dump);
    d->sym_modules = d->follow.dump.nmodules;
}

static bool still_running(const struct vt_dump *d)
{
    return vt_dump_ending(d).reason == VT_ENDING_RUNNING;
}

/* The report of D's replay so far, into its metrics. D's state is used up:
 * in a forked copy, or last (FINAL: the state is freed). */
static void finish(const struct exporter *e, struct followed *d, bool running, bool final,
                   struct vt_metrics_process *out)
{
    struct vt_report_options opts = {.top = e->o->top, .top_given = true, .skip = e->o->skip};
    struct vt_loaded_report l = {.dump = d->follow.dump, .analysis = d->analysis, .sym = d->sym};
    vt_report_build(d->path, &opts, &l);
    vt_metrics_from_report(&l.report, running, d->job, e->o->top, out);
    if (!final)
        return;
    vt_report_unload(&l);
    memset(&d->follow.dump, 0, sizeof d->follow.dump);
    memset(&d->analysis, 0, sizeof d->analysis);
    d->sym = NULL;
    vt_dump_follow_close(&d->follow);
    d->open = false;
    d->done = true;
}

/* Reads what D appended. -1: D cannot be read (said on stderr). */
static int advance(const struct exporter *e, struct followed *d)
{
    if (!d->open) {
        if (vt_dump_follow_open(&d->follow, d->path) != 0)
            return -1;
        if (!d->named)
            d->follow.warnings = NULL;
        d->open = true;
        d->analysis.skip = e->o->skip;
    }
    if (vt_dump_follow_poll(&d->follow, &vt_analysis_sink, &d->analysis) < 0)
        return -1;
    if (d->follow.pos.offset == 0) {
        /* no header yet: in a directory, a process that is starting (the
         * file may be grown before its header is written); looked at again */
        if (!d->named)
            return 0;
        fprintf(stderr, "vramtrace: %s: %s\n", d->path,
                d->follow.file_size ? "not a vramtrace dump (no header written)" : "empty file");
        return -1;
    }
    if (!d->named && !d->follow.dump.process.pid)
        return 0; /* the header without the process's record yet: not judged ended */
    d->readable = true;
    bool running = still_running(&d->follow.dump);
    if (running && !d->job)
        d->job = vt_job_label((pid_t)d->follow.dump.process.pid);
    if (!running && vt_dump_follow_poll(&d->follow, &vt_analysis_sink, &d->analysis) < 0)
        return -1;
    d->damaged |= !d->named && (d->follow.dump.disbelieved || d->follow.dump.unreadable_at);
    refresh_symbolizer(d);
    if (!running || e->o->once) {
        vt_dump_follow_settle(&d->follow);
        finish(e, d, running, true, &d->metrics);
    } else {
        vt_watch_warm(d->sym, &d->follow.dump, &d->analysis.usage, d->analysis.usage.nsites);
    }
    return 0;
}

/* The exposition of every readable dump, into OUT. */
static void render(const struct exporter *e, FILE *out)
{
    struct vt_metrics_process *all = vt_xcalloc(e->n, sizeof *all);
    size_t n = 0;
    for (size_t i = 0; i < e->n; i++) {
        struct followed *d = &e->dumps[i];
        if (d->done && d->readable)
            all[n++] = d->metrics;
        else if (d->open && d->readable)
            finish(e, d, true, false, &all[n++]);
    }
    vt_metrics_render(all, n, out);
    free(all);
}

/* The exposition rendered by a forked copy, into e->text. */
static int render_forked(struct exporter *e)
{
    int fds[2];
    if (pipe(fds) != 0) {
        fprintf(stderr, "vramtrace watch: cannot make a pipe: %s\n", strerror(errno));
        return -1;
    }
    fflush(NULL);
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "vramtrace watch: cannot fork: %s\n", strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (child == 0) {
        close(fds[0]);
        FILE *out = fdopen(fds[1], "w");
        render(e, out);
        _exit(fclose(out) == 0 ? 0 : 1);
    }
    close(fds[1]);
    FILE *in = fdopen(fds[0], "r");
    char *text = NULL;
    size_t len = 0;
    FILE *buf = open_memstream(&text, &len);
    char chunk[65536];
    for (size_t got; (got = fread(chunk, 1, sizeof chunk, in)) > 0;)
        fwrite(chunk, 1, got, buf);
    fclose(in);
    fclose(buf);
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "vramtrace watch: the refresh died (status %d)\n", status);
        free(text);
        return -1;
    }
    free(e->text);
    e->text = text;
    e->len = len;
    return 0;
}

static int render_here(struct exporter *e)
{
    free(e->text);
    FILE *buf = open_memstream(&e->text, &e->len);
    render(e, buf);
    return fclose(buf);
}

/* FILE replaced whole: written beside it, then renamed over it, so a
 * reader sees the old exposition or the new one (readable by others: the
 * collector runs as its own user). */
static int write_file(const char *path, const char *text, size_t len)
{
    char *tmp = vt_xcalloc(strlen(path) + 16, 1);
    sprintf(tmp, "%s.XXXXXX", path);
    int fd = mkstemp(tmp);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    bool ok = f && fchmod(fd, 0644) == 0 && fwrite(text, 1, len, f) == len;
    ok = (f && fclose(f) == 0) && ok;
    if (ok && rename(tmp, path) == 0) {
        free(tmp);
        return 0;
    }
    fprintf(stderr, "vramtrace watch: cannot write %s: %s\n", path, strerror(errno));
    if (fd >= 0)
        unlink(tmp);
    free(tmp);
    return -1;
}

/* One line for the damaged dumps of the directories found since the last. */
static void say_damaged(struct exporter *e)
{
    size_t n = 0;
    const char *first = NULL;
    for (size_t i = 0; i < e->n; i++) {
        struct followed *d = &e->dumps[i];
        if (d->damaged && !d->told && !n++)
            first = d->path;
        d->told |= d->damaged;
    }
    if (!n)
        return;
    fprintf(stderr,
            "vramtrace watch: %zu damaged %s in the directories watched, left out or read in "
            "part: %s",
            n, n == 1 ? "dump" : "dumps", first);
    if (n > 1)
        fprintf(stderr, " and %zu more", n - 1);
    fputs(" (vramtrace report DUMP says what is wrong)\n", stderr);
}

/* One refresh: read, render, hand out. FIRST: a named dump that cannot be
 * read ends it. */
static int refresh(struct exporter *e, bool first, bool *running)
{
    bool any_running = false;
    find_dumps(e);
    for (size_t i = 0; i < e->n; i++) {
        struct followed *d = &e->dumps[i];
        if (d->done)
            continue;
        if (advance(e, d) != 0) {
            d->damaged |= !d->named && d->open; /* opened, not readable */
            give_up(d);
            if (first && d->named)
                return -1;
        }
        any_running |= d->open && d->readable;
    }
    say_damaged(e);
    *running = any_running;
    if ((any_running ? render_forked(e) : render_here(e)) != 0)
        return -1;
    if (e->o->print) {
        fwrite(e->text, 1, e->len, stdout);
        fflush(stdout);
    }
    if (e->o->file && write_file(e->o->file, e->text, e->len) != 0)
        return -1;
    return 0;
}

static void pause_for(const struct exporter *e, double seconds)
{
    if (e->listen_fd >= 0) {
        vt_http_serve_for(e->listen_fd, seconds, e->text, e->len);
        return;
    }
    time_t whole = (time_t)seconds;
    struct timespec ts = {whole, (long)((seconds - (double)whole) * 1e9)};
    while (!stop && nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

static int run(struct exporter *e)
{
    bool running, serving = e->o->file || e->o->listen;
    if (refresh(e, true, &running) != 0)
        return VT_EXIT_ERROR;
    while (!e->o->once && !stop && (running || serving)) {
        pause_for(e, e->o->interval);
        if (!stop && refresh(e, false, &running) != 0)
            return VT_EXIT_ERROR;
    }
    return VT_EXIT_OK;
}

int vt_watch_metrics(const struct vt_watch_metrics *o, char *const *targets, size_t ntargets)
{
    static char *const here[] = {"."};
    struct exporter e = {.o = o,
                         .targets = ntargets ? targets : here,
                         .ntargets = ntargets ? ntargets : 1,
                         .listen_fd = -1};
    char shown[300];
    if (o->listen && (e.listen_fd = vt_http_listen(o->listen, shown, sizeof shown)) < 0)
        return VT_EXIT_ERROR;
    if (o->listen)
        fprintf(stderr, "vramtrace watch: serving http://%s/metrics\n", shown);
    struct sigaction sa = {.sa_handler = on_stop};
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    int status = run(&e);
    for (size_t i = 0; i < e.n; i++)
        forget(&e.dumps[i]);
    free(e.dumps);
    free(e.text);
    if (e.listen_fd >= 0)
        close(e.listen_fd);
    return status;
}
