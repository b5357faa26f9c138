/* vramtrace run [-o PATH] [--aggregate] [--fail-on-leak [LIMIT...]] [--json] [--pytorch-tensors] -- CMD [ARG...]
 * Runs CMD with libvramtrace.so preloaded, waits for it, then reports the
 * dump it wrote on stderr (stdout belongs to CMD). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_conf.h"
#include "cli.h"
#include "config.h"
#include "frames.h"
#include "limits.h"
#include "report.h"

#ifndef VT_LIBDIR_FROM_BINDIR
#define VT_LIBDIR_FROM_BINDIR "../lib"
#endif

#define VT_LIBRARY_NAME "libvramtrace.so"

static const char usage[] =
    "Usage: vramtrace run [-o PATH] [--aggregate] [--fail-on-leak [LIMIT...]] [--json]\n"
    "                     [--python-internals] [--pytorch-tensors] [--] CMD [ARG...]\n"
    "Run CMD with " VT_LIBRARY_NAME " preloaded; when it exits, print where the dump\n"
    "was written and the leak report, on stderr.\n"
    "\n"
    "Options:\n"
    "  -o, --output PATH  write the dump to PATH (%p: the process id, %r: the rank);\n"
    "                     an existing file there is replaced. Default: the\n"
    "                     library's choice (VRAMTRACE_OUTPUT, else\n"
    "                     vramtrace.EXE.PID.vtr in the working directory)\n"
    "      --aggregate    for long runs (VRAMTRACE_MODE=aggregate): a dump of bounded\n"
    "                     size with counts per call site, live bytes per site at\n"
    "                     intervals (VRAMTRACE_SAMPLE_INTERVAL_MS, default 100,\n"
    "                     doubling every 512 samples) and before each marker, and\n"
    "                     exact totals and peaks at exit. Leaks per site, peaks,\n"
    "                     growth between markers, check and the folded and pprof\n"
    "                     exports still work; it cannot tell individual allocations\n"
    "                     (addresses, sizes, lifetimes, order), exactly who held\n"
    "                     memory at a peak (it shows the fullest sample), nor\n"
    "                     anything finer than the sample interval\n"
    "      --fail-on-leak exit with status 23 if device or managed memory leaked, or\n"
    "                     with limits, when one is broken (as vramtrace check)\n"
    "      --json         print the report as JSON\n"
    "      --python-internals\n"
    "                     show the Python interpreter's own native frames\n"
    "      --pytorch-tensors\n"
    "                     PyTorch: add backend:cudaMallocAsync to PYTORCH_CUDA_ALLOC_CONF\n"
    "                     (other settings kept), so each tensor is one traced\n"
    "                     cudaMallocAsync/cudaFreeAsync at its own Python line, while\n"
    "                     the driver's pool still caches memory\n"
    "Limits and suppressions (a limit implies --fail-on-leak):\n"
    VT_LIMIT_OPTIONS_HELP
    VT_SUPPRESSION_OPTIONS_HELP
    "  -h, --help         show this help\n"
    "\n"
    "Exit status: CMD's own (128+N if a signal N killed it); 23 with --fail-on-leak\n"
    "and a leak over the limits; 127 if CMD could not be started; 1 if the library is missing;\n"
    "2 for a bad command line or when LD_PRELOAD already holds the tracer.\n";

struct run_options {
    const char *output;
    bool aggregate;
    bool fail_on_leak;
    bool json;
    bool pytorch_tensors;
    struct vt_check_options check;
};

static volatile sig_atomic_t child_pid;

static void forward_signal(int sig)
{
    if (child_pid > 0)
        kill((pid_t)child_pid, sig);
}

static int parse_options(int argc, char **argv, struct run_options *opts)
{
    enum { OPT_FAIL_ON_LEAK = 256, OPT_JSON, OPT_PYTHON_INTERNALS, OPT_AGGREGATE,
           OPT_PYTORCH_TENSORS };
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"aggregate", no_argument, NULL, OPT_AGGREGATE},
        {"fail-on-leak", no_argument, NULL, OPT_FAIL_ON_LEAK},
        {"json", no_argument, NULL, OPT_JSON},
        {"python-internals", no_argument, NULL, OPT_PYTHON_INTERNALS},
        {"pytorch-tensors", no_argument, NULL, OPT_PYTORCH_TENSORS},
        VT_LIMIT_LONG_OPTIONS,
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
        case OPT_FAIL_ON_LEAK:
            opts->fail_on_leak = true;
            break;
        case OPT_JSON:
            opts->json = true;
            break;
        case OPT_PYTHON_INTERNALS:
            vt_frames_show_interpreter(true);
            break;
        case OPT_PYTORCH_TENSORS:
            opts->pytorch_tensors = true;
            break;
        case 'h':
            fputs(usage, stdout);
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
    opts->fail_on_leak |= opts->check.limits_given;
    return -1;   /* go on */
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

/* Next to the executable (build tree), then in the installed libdir. */
static char *find_library(void)
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

/* TEMPLATE as the library expands it in process PID: %p the pid, %r the
 * rank (the child inherits our environment), %% a percent sign. */
static char *expand_output(const char *template, pid_t pid)
{
    char pidstr[24], rank[24];
    snprintf(pidstr, sizeof pidstr, "%d", (int)pid);
    if (vt_config_rank(rank, sizeof rank) < 0)
        snprintf(rank, sizeof rank, "norank");
    /* each two-character sequence becomes at most 23 characters */
    char *out = malloc(strlen(template) * 12 + 1);
    if (!out) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(VT_EXIT_ERROR);
    }
    char *o = out;
    for (const char *p = template; *p;) {
        if (p[0] == '%' && (p[1] == 'p' || p[1] == 'r' || p[1] == '%')) {
            o = p[1] == '%' ? stpcpy(o, "%") : stpcpy(o, p[1] == 'p' ? pidstr : rank);
            p += 2;
        } else {
            *o++ = *p++;
        }
    }
    *o = '\0';
    return out;
}

/* Keeps what the user preloads; ours goes last. */
static void add_to_preload(const char *library)
{
    const char *old = getenv("LD_PRELOAD");
    char *value = old && *old ? xstrdup_printf("%s:%s", old, library)
                              : xstrdup_printf("%s%s", "", library);
    setenv("LD_PRELOAD", value, 1);
    free(value);
}

/* In the child: never returns. Exec failures go to the parent through
 * STATUS_FD (close-on-exec), so it does not look for a dump. */
static void exec_child(char **cmd, const char *library, const struct run_options *opts,
                       int status_fd)
{
    if (opts->output) {
        char *path = expand_output(opts->output, getpid());
        struct stat st;
        if (lstat(path, &st) == 0 && S_ISREG(st.st_mode))
            unlink(path);
        free(path);
        setenv("VRAMTRACE_OUTPUT", opts->output, 1);
    }
    if (opts->aggregate)
        setenv("VRAMTRACE_MODE", "aggregate", 1);
    if (opts->pytorch_tensors)
        vt_alloc_conf_apply();
    add_to_preload(library);
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

static int wait_for_child(pid_t pid)
{
    int status;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) {
            perror("vramtrace: waitpid");
            status = VT_EXIT_ERROR << 8;
            break;
        }
    child_pid = 0;
    set_waiting_handlers(false);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return WEXITSTATUS(status);
}

/* vramtrace.<exe>.<pid>.vtr or vramtrace.<exe>.<pid>.<n>.vtr */
static bool is_dump_of(const char *name, pid_t pid)
{
    char middle[32];
    size_t middle_len = (size_t)snprintf(middle, sizeof middle, ".%d.", (int)pid);
    if (strncmp(name, "vramtrace.", 10))
        return false;
    for (const char *p = name + 10; (p = strstr(p, middle)); p++) {
        const char *rest = p + middle_len;
        if (p == name + 9)   /* the exe part must not be empty */
            continue;
        rest += strspn(rest, "0123456789");
        if (!strcmp(rest, "vtr") || (rest > p + middle_len && !strcmp(rest, ".vtr")))
            return true;
    }
    return false;
}

/* The newest of the names the library picks for PID, in the working dir. */
static char *find_default_dump(pid_t pid)
{
    DIR *dir = opendir(".");
    struct dirent *d;
    char *best = NULL;
    struct timespec best_time = {0};
    if (!dir)
        return NULL;
    while ((d = readdir(dir))) {
        struct stat st;
        if (!is_dump_of(d->d_name, pid) || stat(d->d_name, &st) != 0 || !S_ISREG(st.st_mode))
            continue;
        if (best && (st.st_mtim.tv_sec < best_time.tv_sec ||
                     (st.st_mtim.tv_sec == best_time.tv_sec &&
                      st.st_mtim.tv_nsec <= best_time.tv_nsec)))
            continue;
        free(best);
        best = strdup(d->d_name);
        best_time = st.st_mtim;
    }
    closedir(dir);
    return best;
}

static char *find_dump(const struct run_options *opts, pid_t pid)
{
    const char *env = getenv("VRAMTRACE_OUTPUT");
    if (opts->output)
        return expand_output(opts->output, pid);
    if (env && *env)
        return expand_output(env, pid);
    return find_default_dump(pid);
}

static int report_after_run(struct run_options *opts, pid_t pid, int status)
{
    char *dump = find_dump(opts, pid);
    struct stat st;
    if (!dump || stat(dump, &st) != 0) {
        fprintf(stderr, "vramtrace: no dump found for process %d%s%s%s\n", (int)pid,
                dump ? " (expected " : " in the working directory", dump ? dump : "",
                dump ? ")" : "");
        free(dump);
        return status;
    }
    fprintf(stderr, "vramtrace: dump written to %s\n", dump);
    struct vt_limits limits = vt_check_effective_limits(&opts->check);
    struct vt_report_options ropts = {
        .json = opts->json, .out = stderr, .suppressions = &opts->check.suppressions,
        .limits = opts->fail_on_leak ? &limits : NULL,
    };
    int broken = vt_report_dump(dump, &ropts);
    free(dump);
    return broken > 0 ? VT_EXIT_LEAK : status;
}

static int run_traced(int argc, char **argv, struct run_options *opts)
{
    int pipefd[2];
    int done = parse_options(argc, argv, opts);
    if (done < 0)   /* before the command runs: a bad file fails fast */
        done = vt_check_options_load(&opts->check) ? VT_EXIT_ERROR : -1;
    if (done >= 0)
        return done;
    const char *preload = getenv("LD_PRELOAD");
    if (preload && strstr(preload, "libvramtrace")) {
        fputs("vramtrace run: LD_PRELOAD already loads libvramtrace; run the command directly\n",
              stderr);
        return VT_EXIT_USAGE;
    }
    char *library = find_library();
    if (!library) {
        fprintf(stderr, "vramtrace run: cannot find " VT_LIBRARY_NAME " next to the vramtrace "
                "executable or in its " VT_LIBDIR_FROM_BINDIR "\n");
        return VT_EXIT_ERROR;
    }
    if (strpbrk(library, " :")) {
        fprintf(stderr, "vramtrace run: %s: LD_PRELOAD cannot hold a path with ' ' or ':'\n",
                library);
        free(library);
        return VT_EXIT_ERROR;
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        perror("vramtrace run: pipe");
        free(library);
        return VT_EXIT_ERROR;
    }
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("vramtrace run: fork");
        free(library);
        return VT_EXIT_ERROR;
    }
    if (pid == 0) {
        close(pipefd[0]);
        exec_child(argv + optind, library, opts, pipefd[1]);
    }
    child_pid = pid;
    set_waiting_handlers(true);
    free(library);
    close(pipefd[1]);
    int exec_errno = 0;
    ssize_t got;
    while ((got = read(pipefd[0], &exec_errno, sizeof exec_errno)) < 0 && errno == EINTR)
        ;
    close(pipefd[0]);
    int status = wait_for_child(pid);
    if (got > 0)   /* exec failed: the child said why; there is no dump */
        return status;
    return report_after_run(opts, pid, status);
}

int vt_cmd_run(int argc, char **argv)
{
    struct run_options opts = {0};
    int status = run_traced(argc, argv, &opts);
    vt_check_options_free(&opts.check);
    return status;
}
