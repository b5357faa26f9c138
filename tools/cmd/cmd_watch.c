/* SPDX-License-Identifier: MIT */
/* vramtrace watch [--once] [--json] [--interval SECONDS] [--top N] [PID|DUMP]
 * vramtrace watch [--once] --openmetrics|--openmetrics-file FILE|--listen ADDR:PORT
 *                 [--interval SECONDS] [--top N] [PID|DUMP|DIR...]
 *
 * Follows a dump while its process writes it: each refresh reads only what
 * was appended (dump_follow.h) into one replay kept across refreshes, and a
 * forked copy of that state finishes it into a report and prints it, so the
 * replay itself goes on untouched (copy-on-write: no re-reading, no copy). */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "dump_follow.h"
#include "json_writer.h"
#include "metrics_http.h"
#include "report.h"
#include "symbolize.h"
#include "watch_find.h"
#include "watch_metrics.h"
#include "watch_view.h"
#include "xalloc.h"

static const char about[] =
    "Watch a traced process while it runs, from the dump it is writing (no signal,\n"
    "no ptrace: the process is not touched): live and peak device memory with a\n"
    "sparkline per device, the call sites holding the most now with their growth\n"
    "per marker and per second, failed allocations so far. Refreshed in place on a\n"
    "terminal, one line per refresh otherwise; when the process ends, the final\n"
    "view and its verdict. PID: the dump that process writes (one that writes none,\n"
    "as the `vramtrace run` wrapper: its nearest traced descendant's; with the\n"
    "metrics, every traced descendant's); DUMP: a .vtr file (finished or not).\n"
    "Without an argument: the running traced processes whose dumps are in the\n"
    "working directory or VRAMTRACE_OUTPUT's directory. With the metrics\n"
    "(--openmetrics, --openmetrics-file, --listen): every process of the dumps\n"
    "named and of the DIRs' *.vtr files (looked at again each refresh; none named:\n"
    "the working directory's), in one exposition (docs/cluster.md).\n";

struct watch {
    struct vt_dump_follow follow;
    struct vt_analysis analysis;
    struct vt_symbolizer *sym;
    size_t sym_modules; /* the dump's modules when sym was made */
    struct vt_report_options opts;
    bool once, json, terminal;
    double interval;
    size_t top;
    unsigned last_lines; /* of the view on the terminal */
};

/* Symbolizer of the modules read so far (each refresh may bring more). */
static void refresh_symbolizer(struct watch *w)
{
    if (w->sym && w->sym_modules == w->follow.dump.nmodules)
        return;
    vt_symbolizer_free(w->sym);
    w->sym = vt_symbolizer_new(&w->follow.dump);
    w->sym_modules = w->follow.dump.nmodules;
}

static void terminal_size(unsigned *columns, unsigned *rows)
{
    struct winsize ws;
    *columns = 0, *rows = 0;
    if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0) {
        *columns = ws.ws_col;
        *rows = ws.ws_row;
    }
}

static void print_json(const struct vt_report *r, bool running)
{
    struct vt_json j;
    vt_json_init(&j, stdout);
    vt_json_begin_object(&j);
    vt_render_json_fields(r, &j);
    vt_json_key(&j, "running");
    vt_json_bool(&j, running);
    vt_json_key(&j, "pid");
    r->dump->process.present ? vt_json_uint(&j, r->dump->process.pid) : vt_json_null(&j);
    vt_json_end_object(&j);
}

/* Finishes W's replay into a report and prints it. W's state is used up:
 * call it in a forked copy, or last with FINAL (the state is freed then).
 * Returns the view's line count. */
static unsigned print_snapshot(struct watch *w, bool running, bool final)
{
    struct vt_loaded_report l = {.dump = w->follow.dump, .analysis = w->analysis, .sym = w->sym};
    struct vt_watch_look look = {.running = running, .terminal = w->terminal, .top = w->top};
    unsigned lines = 0;
    vt_report_build(w->follow.path, &w->opts, &l);
    if (w->json) {
        print_json(&l.report, running);
    } else if (w->terminal) {
        terminal_size(&look.columns, &look.rows);
        if (w->last_lines)
            printf("\033[%uA\r", w->last_lines); /* back over the last view */
        lines = vt_watch_view(&l.report, &look, stdout);
        fputs("\033[J", stdout); /* and clear what it left below */
    } else if (w->once) {
        vt_watch_view(&l.report, &look, stdout);
    } else {
        vt_watch_line(&l.report, running, stdout);
    }
    if (final && !w->json && !w->once)
        vt_watch_verdict(&l.report, stdout);
    fflush(stdout);
    if (final) { /* the report owns the state now */
        vt_report_unload(&l);
        memset(&w->follow.dump, 0, sizeof w->follow.dump);
        memset(&w->analysis, 0, sizeof w->analysis);
        w->sym = NULL;
    }
    return lines;
}

/* A refresh while the process runs: printed by a forked copy. */
static int print_refresh(struct watch *w)
{
    if (!w->json)
        vt_watch_warm(w->sym, &w->follow.dump, &w->analysis.usage, w->top ? w->top : 64);
    fflush(stdout);
    pid_t child = fork();
    if (child < 0) {
        fprintf(stderr, "vramtrace watch: cannot fork: %s\n", strerror(errno));
        return -1;
    }
    if (child == 0)
        _exit((int)(print_snapshot(w, true, false) & 0xff));
    int status;
    while (waitpid(child, &status, 0) < 0 && errno == EINTR)
        ;
    if (!WIFEXITED(status)) {
        fprintf(stderr, "vramtrace watch: the refresh died (status %d)\n", status);
        return -1;
    }
    w->last_lines = (unsigned)WEXITSTATUS(status);
    return 0;
}

static bool still_running(const struct vt_dump *d)
{
    struct vt_ending e = vt_dump_ending(d);
    return e.reason == VT_ENDING_RUNNING;
}

static void pause_for(double seconds)
{
    time_t whole = (time_t)seconds;
    struct timespec ts = {whole, (long)((seconds - (double)whole) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* A dump found as its process starts may hold no header yet, or the header
 * without the PROCESS record: looked at again for up to START_WAIT_S before
 * it is judged (neither is a dump that ended). */
#define START_WAIT_S 2.0
#define START_POLL_S 0.05

static bool starting(const struct watch *w)
{
    return w->follow.pos.offset == 0 || w->follow.dump.process.pid == 0;
}

/* Refreshes until the process ends (or once). */
static int follow(struct watch *w, const char *path)
{
    double waited = 0;
    for (;;) {
        if (vt_dump_follow_poll(&w->follow, &vt_analysis_sink, &w->analysis) < 0)
            return VT_EXIT_ERROR;
        if (starting(w) && waited < START_WAIT_S) {
            pause_for(START_POLL_S);
            waited += START_POLL_S;
            continue;
        }
        if (w->follow.pos.offset == 0) {
            fprintf(stderr, "vramtrace: %s: %s\n", path,
                    w->follow.file_size ? "not a vramtrace dump (no header written)"
                                        : "empty file");
            return VT_EXIT_ERROR;
        }
        bool running = still_running(&w->follow.dump);
        /* it may have written its last records just before it ended */
        if (!running && vt_dump_follow_poll(&w->follow, &vt_analysis_sink, &w->analysis) < 0)
            return VT_EXIT_ERROR;
        refresh_symbolizer(w);
        if (!running || w->once) {
            vt_dump_follow_settle(&w->follow);
            print_snapshot(w, running, true);
            return VT_EXIT_OK;
        }
        if (print_refresh(w) != 0)
            return VT_EXIT_ERROR;
        pause_for(w->interval);
    }
}

static int watch(struct watch *w, const char *path)
{
    if (vt_dump_follow_open(&w->follow, path) != 0)
        return VT_EXIT_ERROR;
    w->analysis.skip = w->opts.skip;
    int status = follow(w, path);
    vt_symbolizer_free(w->sym);
    vt_analysis_free(&w->analysis);
    vt_dump_follow_close(&w->follow);
    return status;
}

/* PID (digits, not a file) or DUMP: the dumps' paths, appended to *PATHS
 * (*N of them); ALL: every dump of PID's descendants when it writes none
 * itself, else the nearest. -1 when none (said why). */
static int target_paths(const char *arg, bool all, char ***paths, size_t *n)
{
    struct stat st;
    char *end, **found;
    size_t nfound;
    long pid = strtol(arg, &end, 10);
    if (stat(arg, &st) == 0 || *end || end == arg || pid <= 0) {
        *paths = vt_xgrow(*paths, *n, sizeof **paths);
        (*paths)[(*n)++] = strcpy(vt_xcalloc(strlen(arg) + 1, 1), arg);
        return 0;
    }
    if (vt_watch_find_pid((pid_t)pid, all, &found, &nfound) != 0)
        return -1;
    for (size_t i = 0; i < nfound; i++) {
        *paths = vt_xgrow(*paths, *n, sizeof **paths);
        (*paths)[(*n)++] = found[i];
    }
    free(found);
    return 0;
}

static int parse_interval(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (!*s || *end || errno || !(v > 0) || v > 3600)
        return -1;
    *out = v;
    return 0;
}

/* The metrics of the processes of ARGS (PIDs, dumps, directories). */
static int export_metrics(struct vt_watch_metrics *m, const struct watch *w, char **args, size_t n)
{
    char **paths = NULL;
    size_t npaths = 0;
    int status = VT_EXIT_OK;
    for (size_t i = 0; i < n && status == VT_EXIT_OK; i++)
        if (target_paths(args[i], true, &paths, &npaths) != 0)
            status = VT_EXIT_ERROR;
    m->interval = w->interval;
    m->once = w->once;
    m->skip = w->opts.skip;
    if (status == VT_EXIT_OK)
        status = vt_watch_metrics(m, paths, npaths);
    for (size_t i = 0; i < npaths; i++)
        free(paths[i]);
    free(paths);
    return status;
}

int vt_cmd_watch(int argc, char **argv)
{
    enum { OPT_ONCE = 256, OPT_JSON, OPT_INTERVAL, OPT_TOP, OPT_OM, OPT_OM_FILE, OPT_LISTEN };
    static const struct option options[] = {
        {"once", no_argument, NULL, OPT_ONCE},
        {"json", no_argument, NULL, OPT_JSON},
        {"openmetrics", no_argument, NULL, OPT_OM},
        {"openmetrics-file", required_argument, NULL, OPT_OM_FILE},
        {"listen", required_argument, NULL, OPT_LISTEN},
        {"interval", required_argument, NULL, OPT_INTERVAL},
        {"top", required_argument, NULL, OPT_TOP},
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    static struct watch w = {.interval = 1.0, .top = 5};
    struct vt_watch_metrics m = {.top = 20};
    bool top_given = false;
    char host[256], port[16];
    int c;
    long top = 0;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+h", options, NULL)) != -1) {
        switch (c) {
        case OPT_ONCE:
            w.once = true;
            break;
        case OPT_JSON:
            w.json = true;
            break;
        case OPT_INTERVAL:
            if (parse_interval(optarg, &w.interval) != 0)
                return vt_usage_error("watch",
                                      "--interval needs seconds above 0 (at most 3600), "
                                      "not '%s'",
                                      optarg);
            break;
        case OPT_TOP:
            if ((top = vt_parse_count(optarg)) < 0)
                return vt_usage_error("watch", "--top needs a number, not '%s'", optarg);
            w.top = m.top = (size_t)top;
            top_given = true;
            break;
        case OPT_OM:
            m.print = true;
            break;
        case OPT_OM_FILE:
            m.file = optarg;
            break;
        case OPT_LISTEN:
            if (vt_http_address(optarg, host, sizeof host, port, sizeof port) != 0)
                return vt_usage_error("watch", "--listen needs ADDR:PORT or PORT, not '%s'",
                                      optarg);
            m.listen = optarg;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("watch", about, stdout);
            return VT_EXIT_OK;
        case '?':
            if (optopt)
                return vt_usage_error("watch", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("watch", "unknown option '%s'", argv[optind - 1]);
        }
    }
    bool metrics = m.print || m.file || m.listen;
    if (metrics && w.json)
        return vt_usage_error("watch", "--json and %s do not go together",
                              m.print  ? "--openmetrics"
                              : m.file ? "--openmetrics-file"
                                       : "--listen");
    if (w.once && m.listen)
        return vt_usage_error("watch", "--once and --listen do not go together (%s)",
                              "--once --openmetrics prints one exposition");
    if (metrics && top_given && !top)
        return vt_usage_error("watch", "--top needs a number above 0 with the metrics, not '%s'",
                              "0");
    if (metrics)
        return export_metrics(&m, &w, argv + optind, (size_t)(argc - optind));
    if (argc - optind > 1)
        return vt_usage_error("watch", "one PID or DUMP at a time, not '%s' too", argv[optind + 1]);
    if (optind == argc)
        return vt_watch_list(stdout) ? VT_EXIT_OK : VT_EXIT_ERROR;
    char **paths = NULL, *path;
    size_t npaths = 0;
    if (target_paths(argv[optind], false, &paths, &npaths) != 0 || !paths)
        return VT_EXIT_ERROR; /* (a path is found whenever it returns 0) */
    path = paths[0];
    free(paths);
    w.terminal = !w.json && !w.once && isatty(STDOUT_FILENO);
    w.opts.out = stdout;
    /* the views show a few sites: the report symbolizes no more; the JSON lists
     * --top's many, or VT_TEXT_TOP as report --json */
    w.opts.top = w.json ? (top_given ? w.top : VT_TEXT_TOP) : w.top ? w.top : 64;
    w.opts.top_given = w.json;
    signal(SIGPIPE, SIG_DFL);
    int status = watch(&w, path);
    free(path);
    return status;
}
