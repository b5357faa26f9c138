/* SPDX-License-Identifier: MIT */
/* vramtrace run [-o PATH] [--fail-on-leak] [LIMIT...] [--json] [--pytorch-tensors]
 *               [--mark-on-nvtx NAME] -- CMD [ARG...]
 * Runs CMD with libvramtrace.so preloaded, and with it every process CMD
 * starts; waits for the whole tree, then reports the dumps its processes
 * wrote (the library lists them in a manifest: never a guessed name) on
 * stderr (stdout belongs to CMD) and turns them into an exit status. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_conf.h"
#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"
#include "ending.h"
#include "output_file.h"
#include "frames.h"
#include "leak_limits.h"
#include "report.h"
#include "report_dump.h"
#include "run_manifest.h"
#include "run_output.h"
#include "size_arg.h"
#include "symbolize.h"
#include "xalloc.h"

#ifndef VT_LIBDIR_FROM_BINDIR
#define VT_LIBDIR_FROM_BINDIR "../lib"
#endif

#define VT_LIBRARY_NAME "libvramtrace.so"

static const char about[] =
    "Run CMD with libvramtrace.so preloaded, and every process it starts (exec'd\n"
    "programs, forked children, their children: the whole tree); wait for all of\n"
    "them, then say which dumps were written, the job's ranks (see report --help),\n"
    "the combined totals, then the report of each process that used CUDA, on\n"
    "stderr.\n";

struct run_options {
    const char *output;
    bool aggregate, free_stacks, no_children;
    bool fail_on_leak;
    bool json;
    const char *json_output, *log_file;
    bool force; /* --log-file and --json-output may overwrite a dump */
    bool pytorch_tensors;
    const char *nvtx_mark; /* --mark-on-nvtx NAME */
    bool nvtx_taken;       /* NVTX_INJECTION64_PATH names another tool */
    size_t top;            /* --top: call sites per section of the reports */
    bool top_given;
    struct vt_check_options check;
};

/* The command's process while it runs; 0 once it has ended. */
static volatile sig_atomic_t child_pid;

/* Every process waiting on us (orphans of the tree are reparented here):
 * /proc's list of this thread's children. Async-signal-safe. */
static void signal_children(int sig)
{
    char path[64], buf[4096];
    snprintf(path, sizeof path, "/proc/self/task/%d/children", (int)getpid());
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf - 1) : -1;
    if (fd >= 0)
        close(fd);
    buf[n > 0 ? n : 0] = '\0';
    for (char *p = buf; *p;) {
        long pid = strtol(p, &p, 10);
        if (pid > 0)
            kill((pid_t)pid, sig);
        while (*p == ' ' || *p == '\n')
            p++;
    }
}

static void forward_signal(int sig)
{
    int saved = errno;
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
    else
        signal_children(sig);
    errno = saved;
}

/* `--fail-on-leak 1MiB -- cmd`: the limit read as the command. */
static int check_flag_value(char **argv, int index)
{
    uint64_t size;
    if (index > 1 && !strcmp(argv[index - 1], "--fail-on-leak") &&
        vt_parse_size(argv[index], &size) == 0) {
        fprintf(stderr,
                "vramtrace run: --fail-on-leak takes no value; for a limit give "
                "--max-leaked %s (see vramtrace run --help)\n",
                argv[index]);
        return VT_EXIT_USAGE;
    }
    return -1;
}

static int parse_options(int argc, char **argv, struct run_options *opts)
{
    enum {
        OPT_FAIL_ON_LEAK = 256,
        OPT_JSON,
        OPT_PYTHON_INTERNALS,
        OPT_AGGREGATE,
        OPT_JSON_OUTPUT,
        OPT_LOG_FILE,
        OPT_NO_CHILDREN,
        OPT_FREE_STACKS,
        OPT_PYTORCH_TENSORS,
        OPT_MARK_ON_NVTX,
        OPT_ALL_FRAMES,
        OPT_MAX_FRAMES,
        OPT_FORCE
    };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"aggregate", no_argument, NULL, OPT_AGGREGATE},
        {"free-stacks", no_argument, NULL, OPT_FREE_STACKS},
        {"no-children", no_argument, NULL, OPT_NO_CHILDREN},
        {"fail-on-leak", no_argument, NULL, OPT_FAIL_ON_LEAK},
        {"json", no_argument, NULL, OPT_JSON},
        {"json-output", required_argument, NULL, OPT_JSON_OUTPUT},
        {"log-file", required_argument, NULL, OPT_LOG_FILE},
        {"force", no_argument, NULL, OPT_FORCE},
        {"python-internals", no_argument, NULL, OPT_PYTHON_INTERNALS},
        {"pytorch-tensors", no_argument, NULL, OPT_PYTORCH_TENSORS},
        {"mark-on-nvtx", required_argument, NULL, OPT_MARK_ON_NVTX},
        {"all-frames", no_argument, NULL, OPT_ALL_FRAMES},
        {"max-frames", required_argument, NULL, OPT_MAX_FRAMES},
        {"top", required_argument, NULL, VT_OPT_TOP},
        VT_LIMIT_LONG_OPTIONS,
        VT_DEBUGINFOD_LONG_OPTION,
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    opterr = 0;
    while ((c = getopt_long(argc, argv, "+o:h", options, NULL)) != -1) {
        int taken = vt_check_option(&opts->check, c, optarg, "run");
        if (taken > 0)
            return taken;
        if (taken == 0)
            continue;
        switch (c) {
        case 'o':
            opts->output = optarg;
            break;
        case OPT_AGGREGATE:
            opts->aggregate = true;
            break;
        case OPT_FREE_STACKS:
            opts->free_stacks = true;
            break;
        case OPT_NO_CHILDREN:
            opts->no_children = true;
            break;
        case OPT_FAIL_ON_LEAK:
            opts->fail_on_leak = true;
            break;
        case OPT_JSON:
            opts->json = true;
            break;
        case OPT_JSON_OUTPUT:
            opts->json_output = optarg;
            break;
        case OPT_LOG_FILE:
            opts->log_file = optarg;
            break;
        case OPT_FORCE:
            opts->force = true;
            break;
        case OPT_PYTHON_INTERNALS:
            vt_frames_show_interpreter(true);
            break;
        case OPT_PYTORCH_TENSORS:
            opts->pytorch_tensors = true;
            break;
        case OPT_MARK_ON_NVTX:
            /* the library keeps the name in a buffer of 256 bytes */
            if (!*optarg || strlen(optarg) > 255)
                return vt_usage_error(
                    "run", "--mark-on-nvtx needs a range name of 1 to 255 bytes, not '%s'", optarg);
            opts->nvtx_mark = optarg;
            break;
        case OPT_ALL_FRAMES:
            vt_frames_set_display(true, vt_frames_max());
            break;
        case OPT_MAX_FRAMES: {
            long max = vt_parse_count(optarg);
            if (max <= 0)
                return vt_usage_error("run", "--max-frames needs a number above 0, not '%s'",
                                      optarg);
            vt_frames_set_display(vt_frames_all(), (size_t)max);
            break;
        }
        case VT_OPT_TOP:
            if (vt_top_option("run", optarg, &opts->top, &opts->top_given))
                return VT_EXIT_USAGE;
            break;
        case VT_OPT_DEBUGINFOD:
            vt_symbolize_allow_debuginfod();
            break;
        case 'h':
            vt_cli_help("run", about, stdout);
            return VT_EXIT_OK;
        default:
            if (optopt == 'o')
                return vt_usage_error("run", "%s needs a path", "-o/--output");
            if (optopt)
                return vt_usage_error("run", "%s needs a value", argv[optind - 1]);
            return vt_usage_error("run", "unknown option '%s'", argv[optind - 1]);
        }
    }
    if (optind == argc)
        return vt_usage_error("run", "%s", "no command given");
    /* a limit, an invalid-free limit or an exit code for them: fail on them */
    opts->fail_on_leak |=
        opts->check.limits_given || opts->check.limits.has_invalid || opts->check.error_exitcode;
    return check_flag_value(argv, optind);
}

static char *xstrdup_printf(const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(fmt) + strlen(a) + strlen(b) + 1;
    char *s = malloc(len);
    if (!s) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(VT_EXIT_ERROR);
    }
    snprintf(s, len, fmt, a, b);
    return s;
}

/* Next to the executable (build tree, wheel), then in the installed libdir. */
char *vt_find_library(void)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return NULL;
    exe[n] = '\0';
    char *slash = strrchr(exe, '/');
    if (!slash)
        return NULL;
    *slash = '\0';
    const char *candidates[] = {"%s/%s" VT_LIBRARY_NAME, "%s/%s/" VT_LIBRARY_NAME};
    const char *subdirs[] = {"", VT_LIBDIR_FROM_BINDIR};
    for (size_t i = 0; i < 2; i++) {
        char *path = xstrdup_printf(candidates[i], exe, subdirs[i]);
        if (access(path, R_OK) == 0)
            return path;
        free(path);
    }
    return NULL;
}

/* Keeps what the user preloads; ours goes last. */
static void add_to_preload(const char *library)
{
    const char *old = getenv("LD_PRELOAD");
    char *value =
        old && *old ? xstrdup_printf("%s:%s", old, library) : xstrdup_printf("%s%s", "", library);
    setenv("LD_PRELOAD", value, 1);
    free(value);
}

/* What the tree's processes need to know, in the environment they inherit. */
struct child_setup {
    const char *library, *pattern, *manifest;
};

/* In the child: never returns. Exec failures go to the parent through
 * STATUS_FD (close-on-exec), so it does not look for a dump. */
static void exec_child(char **cmd, const struct child_setup *setup, const struct run_options *opts,
                       int status_fd)
{
    char pid[24];
    setenv("VRAMTRACE_OUTPUT", setup->pattern, 1);
    setenv("VRAMTRACE_MANIFEST", setup->manifest, 1);
    if (opts->aggregate)
        setenv("VRAMTRACE_MODE", "aggregate", 1);
    if (opts->free_stacks)
        setenv("VRAMTRACE_FREE_STACKS", "1", 1);
    if (opts->no_children) {
        snprintf(pid, sizeof pid, "%d", (int)getpid());
        setenv("VRAMTRACE_ONLY_PID", pid, 1);
    } else {
        unsetenv("VRAMTRACE_ONLY_PID");
    }
    if (opts->pytorch_tensors)
        vt_alloc_conf_apply();
    if (opts->nvtx_mark)
        setenv("VRAMTRACE_NVTX_MARK", opts->nvtx_mark, 1);
    if (!opts->nvtx_taken) /* phases: NVTX loads it at its first call, if one comes */
        setenv("NVTX_INJECTION64_PATH", setup->library, 1);
    add_to_preload(setup->library);
    execvp(cmd[0], cmd);
    int err = errno;
    fprintf(stderr, "vramtrace: %s: %s\n", cmd[0], strerror(err));
    if (write(status_fd, &err, sizeof err) < 0) {
        /* the parent then looks for a dump in vain: harmless */
    }
    _exit(VT_EXIT_EXEC_FAILED);
}

static void set_handler(int sig, void (*handler)(int))
{
    struct sigaction sa = {.sa_handler = handler};
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART;
    sigaction(sig, &sa, NULL);
}

/* Like a shell: SIGINT and SIGQUIT are for the child; TERM and HUP are passed on. */
static void set_waiting_handlers(bool waiting)
{
    set_handler(SIGINT, waiting ? SIG_IGN : SIG_DFL);
    set_handler(SIGQUIT, waiting ? SIG_IGN : SIG_DFL);
    set_handler(SIGTERM, waiting ? forward_signal : SIG_DFL);
    set_handler(SIGHUP, waiting ? forward_signal : SIG_DFL);
}

/* The next child to end, reaped, its start time read while it is a zombie
 * (recorded in WAITS, so that a dump without a footer can say how it
 * ended); its pid, 0 when there is none to wait for, -1 on an error. */
static pid_t reap(pid_t pid, int *status, struct vt_waits *waits)
{
    siginfo_t info = {0};
    if (waitid(pid > 0 ? P_PID : P_ALL, (id_t)(pid > 0 ? pid : 0), &info, WEXITED | WNOWAIT) != 0)
        return -1;
    struct vt_wait w = {.pid = info.si_pid};
    bool known = vt_proc_start_ticks(w.pid, &w.start_ticks);
    pid_t done;
    while ((done = waitpid(info.si_pid, status, 0)) < 0 && errno == EINTR)
        ;
    if (done > 0 && known) {
        waits->list = vt_xrealloc(waits->list, waits->n + 1, sizeof *waits->list);
        w.status = *status;
        waits->list[waits->n++] = w;
    }
    return done;
}

/* Waits for PID and, with TREE, for every other process that ends up our
 * child (we are their subreaper); returns PID's wait status. */
static int wait_for_tree(pid_t pid, bool tree, struct vt_waits *waits)
{
    int status = VT_EXIT_ERROR << 8, main_status = status;
    pid_t done;
    while ((done = reap(tree ? -1 : pid, &status, waits)) != 0) {
        if (done < 0) {
            if (errno == EINTR)
                continue;
            if (errno != ECHILD)
                perror("vramtrace: waitpid");
            break;
        }
        if (done == pid) {
            main_status = status;
            child_pid = 0;
            if (!tree)
                break;
        }
    }
    set_waiting_handlers(false);
    return main_status;
}

/* Where the report goes: text on stderr or --log-file, JSON on stdout
 * (--json) or into --json-output. The files are put in place at the end. */
struct outputs {
    FILE *text, *json_stdout, *json_file;
    struct vt_output_file log, json;
};

/* stderr is unbuffered: a report of many call sites written through it
 * is one system call per piece. The report goes through a buffered copy of
 * it instead (stderr itself where that cannot be had); the program does not
 * inherit the copy. */
static FILE *buffered_stderr(void)
{
    int fd = fcntl(STDERR_FILENO, F_DUPFD_CLOEXEC, 0);
    FILE *out = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!out) {
        if (fd >= 0)
            close(fd);
        return stderr;
    }
    setvbuf(out, NULL, _IOFBF, 1 << 16);
    return out;
}

static int open_outputs(const struct run_options *opts, struct outputs *o)
{
    o->text = opts->json || opts->log_file ? NULL : buffered_stderr();
    o->json_stdout = opts->json ? stdout : NULL;
    if (opts->log_file) {
        if (vt_output_file_open(&o->log, opts->log_file, opts->force, "vramtrace run: --log-file"))
            return VT_EXIT_ERROR;
        o->text = o->log.f;
    }
    if (opts->json_output) {
        if (vt_output_file_open(&o->json, opts->json_output, opts->force,
                                "vramtrace run: --json-output"))
            return VT_EXIT_ERROR;
        o->json_file = o->json.f;
    }
    return 0;
}

/* WRITTEN: the report went into them; else what was there stays. */
static void close_outputs(struct outputs *o, bool written)
{
    if (o->log.f)
        vt_output_file_close(&o->log, written);
    else if (o->text && o->text != stderr)
        fclose(o->text);
    if (o->json.f)
        vt_output_file_close(&o->json, written);
}

static void list_dumps(char **dumps, size_t n, FILE *out)
{
    if (n == 1)
        fprintf(out, "vramtrace: dump written to %s\n", dumps[0]);
    else
        fprintf(out, "vramtrace: %zu dumps written by the process tree:\n", n);
    for (size_t i = 0; n > 1 && i < n; i++)
        fprintf(out, "    %s\n", dumps[i]);
}

/* The dumps' report, into the outputs; the verdict (with --fail-on-leak). */
static enum vt_verdict report_dumps(char **dumps, size_t n, struct run_options *opts,
                                    const struct outputs *o, const struct vt_limits *limits,
                                    const struct vt_waits *waits)
{
    FILE *primary = o->text ? o->text : o->json_stdout ? o->json_stdout : o->json_file;
    struct vt_report_options ropts = {
        .json = !o->text,
        .out = primary,
        .suppressions = &opts->check.suppressions,
        .known = &opts->check.known,
        .limits = opts->fail_on_leak ? limits : NULL,
        .skip = opts->check.skip,
        .top = opts->top,
        .top_given = opts->top_given,
        .json_out = o->text ? (o->json_stdout ? o->json_stdout : o->json_file) : NULL,
        .waits = waits,
    };
    if (o->text && n)
        list_dumps(dumps, n, o->text);
    if (n == 0)
        fprintf(stderr,
                "vramtrace: no dump: %s made a CUDA allocation call that the tracer "
                "saw (or its dump could not be written: see above)\n",
                opts->no_children ? "the program never" : "no process of the tree");
    enum vt_verdict verdict =
        n == 1 ? vt_report_dump(dumps[0], &ropts) : vt_report_many(dumps, n, &ropts);
    /* --json and --json-output both: the file gets its copy too */
    if (o->json_stdout && o->json_file) {
        ropts = (struct vt_report_options){.json = true,
                                           .out = o->json_file,
                                           .suppressions = ropts.suppressions,
                                           .known = ropts.known,
                                           .skip = ropts.skip,
                                           .top = ropts.top,
                                           .top_given = ropts.top_given,
                                           .waits = waits};
        n == 1 ? (void)vt_report_dump(dumps[0], &ropts) : (void)vt_report_many(dumps, n, &ropts);
    }
    return verdict;
}

/* The program's own status (as a shell gives it), unless --fail-on-leak
 * has something to say: a crash (128+N) first, then an unreadable dump, a
 * broken limit, nothing to judge. */
static int final_status(int wait_status, enum vt_verdict verdict, size_t ndumps,
                        const struct run_options *opts)
{
    int status = WIFSIGNALED(wait_status) ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
    if (!opts->fail_on_leak || WIFSIGNALED(wait_status))
        return status;
    switch (verdict) {
    case VT_VERDICT_UNREADABLE:
    case VT_VERDICT_DAMAGED:
        return VT_EXIT_ERROR;
    case VT_VERDICT_BROKEN:
        return vt_check_leak_status(&opts->check);
    case VT_VERDICT_NO_DATA:
        if (ndumps) /* without a dump, "no dump" said it */
            fprintf(stderr,
                    "vramtrace run: nothing to judge: no process of the tree made a "
                    "successful CUDA allocation and ended on its own (exit status %d)\n",
                    VT_EXIT_NO_DATA);
        return VT_EXIT_NO_DATA;
    default:
        return status;
    }
}

/* Starts CMD; returns its pid (0 when exec failed: the child said why),
 * or -1. */
static pid_t start(char **cmd, const struct child_setup *setup, const struct run_options *opts)
{
    int pipefd[2];
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        perror("vramtrace run: pipe");
        return -1;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("vramtrace run: fork");
        return -1;
    }
    if (pid == 0) {
        close(pipefd[0]);
        exec_child(cmd, setup, opts, pipefd[1]);
    }
    child_pid = pid;
    set_waiting_handlers(true);
    close(pipefd[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    return got > 0 ? -pid : pid; /* negative: exec failed */
}

/* Everything that can be refused before CMD runs. */
/* NVTX ranges as phases (and markers, --mark-on-nvtx): NVTX loads one
 * injection library, the one that NVTX_INJECTION64_PATH names; another
 * tool's (nsys) is left in place, and said once, here, before the tree
 * starts. */
static void nvtx_injection(struct run_options *opts, const char *library)
{
    const char *taken = getenv("NVTX_INJECTION64_PATH");
    if (!taken || !*taken || !strcmp(taken, library))
        return;
    opts->nvtx_taken = true;
    if (opts->nvtx_mark)
        fprintf(stderr,
                "vramtrace: NVTX_INJECTION64_PATH is already set (%s, another NVTX tool's): left "
                "as it is, so NVTX ranges are not phases and those named '%s' are not markers\n",
                taken, opts->nvtx_mark);
    else
        fprintf(stderr,
                "vramtrace: NVTX_INJECTION64_PATH is already set (%s, another NVTX tool's): left "
                "as it is, so NVTX ranges are not phases\n",
                taken);
}

static int prepare(struct run_options *opts, char **library, char **pattern)
{
    const char *preload = getenv("LD_PRELOAD"), *env = getenv("VRAMTRACE_OUTPUT");
    if (preload && strstr(preload, "libvramtrace")) {
        fputs("vramtrace run: LD_PRELOAD already loads libvramtrace; run the command directly\n",
              stderr);
        return VT_EXIT_USAGE;
    }
    if (opts->output)
        *pattern = vt_run_output_pattern(opts->output, "-o", true);
    else
        *pattern = vt_run_output_pattern(env && *env ? env : NULL, "VRAMTRACE_OUTPUT", false);
    if (!*pattern)
        return VT_EXIT_USAGE;
    *library = vt_find_library();
    if (!*library) {
        fprintf(stderr, "vramtrace run: cannot find " VT_LIBRARY_NAME " next to the vramtrace "
                        "executable or in its " VT_LIBDIR_FROM_BINDIR "\n");
        return VT_EXIT_ERROR;
    }
    if (strpbrk(*library, " :")) {
        fprintf(stderr, "vramtrace run: %s: LD_PRELOAD cannot hold a path with ' ' or ':'\n",
                *library);
        return VT_EXIT_ERROR;
    }
    nvtx_injection(opts, *library);
    return -1;
}

static int run_traced(int argc, char **argv, struct run_options *opts)
{
    char *library = NULL, *pattern = NULL, manifest[PATH_MAX];
    struct outputs out = {0};
    int done = parse_options(argc, argv, opts);
    if (done < 0) /* before the command runs: a bad file fails fast */
        done = vt_check_options_load(&opts->check) ? VT_EXIT_ERROR : -1;
    if (done < 0)
        done = prepare(opts, &library, &pattern);
    if (done < 0 && (open_outputs(opts, &out) != 0 || vt_manifest_create(manifest) != 0))
        done = VT_EXIT_ERROR;
    if (done >= 0) {
        close_outputs(&out, false);
        free(library);
        free(pattern);
        return done;
    }
    /* Orphaned descendants (a daemonized worker, a shell's background job)
     * become our children, so the wait covers the whole tree. */
    if (!opts->no_children && prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        perror("vramtrace run: prctl(PR_SET_CHILD_SUBREAPER)");
    struct child_setup setup = {library, pattern, manifest};
    pid_t pid = start(argv + optind, &setup, opts);
    struct vt_waits waits = {0};
    int wait_status = pid == -1 ? VT_EXIT_ERROR << 8
                                : wait_for_tree(pid < 0 ? -pid : pid, !opts->no_children, &waits);
    int status = WEXITSTATUS(wait_status); /* CMD did not run: 127, or 1 */
    char **dumps;
    size_t n;
    vt_manifest_take(manifest, &dumps, &n);
    if (pid > 0) { /* CMD ran */
        struct vt_limits limits = vt_check_effective_limits(&opts->check);
        status =
            final_status(wait_status, report_dumps(dumps, n, opts, &out, &limits, &waits), n, opts);
    }
    free(waits.list);
    for (size_t i = 0; i < n; i++)
        free(dumps[i]);
    free(dumps);
    close_outputs(&out, pid > 0);
    free(library);
    free(pattern);
    return status;
}

int vt_cmd_run(int argc, char **argv)
{
    struct run_options opts = {0};
    int status = run_traced(argc, argv, &opts);
    vt_check_options_free(&opts.check);
    return status;
}
