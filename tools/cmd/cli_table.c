/* SPDX-License-Identifier: MIT */
/* The CLI's commands, options, variables and exit statuses, and the help
 * texts printed from them: see cli_table.h. */
#include "cli_table.h"

#include <stdbool.h>
#include <string.h>

struct command {
    const char *name, *synopsis, *summary;
};

/* COMMANDS: the commands it belongs to, space-separated. */
struct option {
    const char *commands, *flags, *help;
};

struct variable {
    const char *name, *help;
};

struct status {
    const char *commands, *status, *meaning;
};

static const struct command commands[] = {
    {"run",
     "run [-o PATH] [--no-children] [--aggregate] [--free-stacks] [--fail-on-leak] "
     "[--max-leaked SIZE] [--max-leaked-per-site SIZE] [--max-growth SIZE] [--max-held SIZE] "
     "[--max-invalid-frees N] [--skip N] [--error-exitcode N] [--suppressions FILE] "
     "[--no-default-suppressions] [--known FILE] [--no-default-known] [--json] "
     "[--json-output FILE] [--log-file FILE] [--force] [--python-internals] [--all-frames] "
     "[--max-frames N] [--top N] [--pytorch-tensors] [--mark-on-nvtx NAME] [--] CMD [ARG...]",
     "run CMD and every process it starts with libvramtrace.so preloaded, wait for them all, "
     "then report each one"},
    {"report",
     "report [--json] [--top N] [--skip N] [--python-internals] [--all-frames] [--max-frames N] "
     "[--html FILE] [--force] [--gen-suppressions] [--suppressions FILE] "
     "[--no-default-suppressions] [--known FILE] [--no-default-known] DUMP...|DIR | "
     "report --show-known [--known FILE] [--no-default-known]",
     "report growth, leaks, peaks, failures and invalid frees recorded in .vtr dumps"},
    {"check",
     "check [--max-leaked SIZE] [--max-leaked-per-site SIZE] [--max-growth SIZE] "
     "[--max-held SIZE] [--max-invalid-frees N] [--skip N] [--error-exitcode N] [--suppressions "
     "FILE] "
     "[--no-default-suppressions] [--known FILE] [--no-default-known] [--json] [--top N] "
     "DUMP...|DIR",
     "fail (status 23) when a dump grew or leaked more than allowed"},
    {"timeline", "timeline [--json] DUMP", "chart live device memory over time, per device"},
    {"export",
     "export --format folded|pprof|chrome|json|torch-snapshot|html [-o FILE] [--force] "
     "[--what WHAT] [--diff BASE] DUMP...",
     "write a dump for flamegraphs, pprof, Perfetto, PyTorch's memory_viz, or as HTML"},
    {"watch",
     "watch [--once] [--json|--openmetrics] [--openmetrics-file FILE] [--listen ADDR:PORT] "
     "[--interval SECONDS] [--top N] [PID|DUMP|DIR...]",
     "watch a traced process while it runs, from the dump it is writing; metrics for Prometheus"},
    {"gpus", "gpus [--json|--openmetrics] [--device N] [--min-free SIZE] [DUMP|DIR...]",
     "the machine's GPUs now (NVML): memory, and who holds it"},
    {"lib", "lib", "print the path of libvramtrace.so, for LD_PRELOAD=$(vramtrace lib) CMD"},
    {"attach", "attach [-o DUMP] PID",
     "trace a running process that was started without vramtrace, from now on (x86_64)"},
    {"detach", "detach PID", "stop tracing a process attach traces; it runs on untraced"},
};

#define FRAMES_COMMANDS "run report"
#define LIMIT_COMMANDS "run check"
#define SUPPRESSION_COMMANDS "run report check"

static const struct option options[] = {
    {"run", "-o, --output PATH",
     "the dumps' path (%p: the process id, %r: the rank, %e: the program's name, %%: %); relative "
     "to the working directory even for processes that change it. A directory, a symlink or a "
     "missing directory is refused before CMD starts; an existing file at a path without "
     "%-sequences is replaced. With several processes, give %p (the first takes PATH, the others "
     "a fresh name next to it). Default: VRAMTRACE_OUTPUT, else vramtrace.%e.%p.vtr in the "
     "working directory"},
    {"run", "--no-children", "trace CMD's process only (its exec'd programs too)"},
    {"run", "--aggregate",
     "for long runs (VRAMTRACE_MODE=aggregate): a dump of bounded size with counts per call "
     "site, live bytes per site at intervals (VRAMTRACE_SAMPLE_INTERVAL_MS, default 100, "
     "doubling every 512 samples) and before each marker, and exact totals and peaks at exit; it "
     "cannot tell individual allocations, exactly who held memory at a peak, nor anything finer "
     "than the sample interval"},
    {"run", "--free-stacks",
     "record the stack of every free (VRAMTRACE_FREE_STACKS=1), so that a double free shows "
     "where it was freed first"},
    {"run", "--fail-on-leak",
     "exit with status 23 if a process of the tree grew (a call site growing over the markers), "
     "leaked device or managed memory or made an invalid free (each dump is held to the limits, as "
     "by vramtrace check); any limit, "
     "--max-invalid-frees or --error-exitcode implies it"},
    {"run", "--json",
     "print the report as JSON on stdout, after CMD's own output (give --json-output when CMD "
     "prints on stdout)"},
    {"run", "--json-output FILE", "write the JSON report to FILE (the text report stays)"},
    {"run", "--log-file FILE", "write the text report to FILE instead of stderr"},
    {"run", "--force",
     "let --json-output and --log-file replace a file that holds a vramtrace dump"},
    {"run", "--pytorch-tensors",
     "PyTorch: add backend:cudaMallocAsync to PYTORCH_CUDA_ALLOC_CONF (other settings kept), so "
     "each tensor is one traced cudaMallocAsync/cudaFreeAsync at its own Python line"},
    {"run", "--mark-on-nvtx NAME",
     "each end of an NVTX range named NAME (any domain; torch.cuda.nvtx.range too) is a step "
     "marker, as vramtrace_mark(NAME) is: sets VRAMTRACE_NVTX_MARK (run sets NVTX_INJECTION64_PATH "
     "to libvramtrace.so for NVTX phases in any case, unless another tool (nsys) set it already, "
     "which is left and said)"},
    {"report check", "--json", "print one JSON object per dump instead of text"},
    {"report check run", "--top N",
     "show at most N call sites per list, in text and JSON alike (default 10, and 5 peak "
     "holders and churn sites in the text; 0: all); the report says how many more (JSON: the "
     "*_omitted counts), the totals count all"},
    {"report", "--html FILE",
     "also write the report as one self-contained HTML page (usage charts per device, over time "
     "and per marker; with several dumps or a directory, the job's page: one chart per rank on "
     "one byte scale)"},
    {"report", "--force", "let --html replace a file that holds a vramtrace dump"},
    {"report", "--gen-suppressions",
     "instead of the report, print a suppressions file for the leaks (one leak:^function$ line "
     "per call site, naming the caller that tells sites apart)"},
    {FRAMES_COMMANDS, "--python-internals",
     "show the Python interpreter's own native frames beside the Python frames (hidden by "
     "default)"},
    {FRAMES_COMMANDS, "--all-frames",
     "show the runtime frames (C start-up, dynamic loader, pytest/pluggy/unittest, the "
     "interpreter's own Python code) that reports fold into one '... N runtime frames' line per "
     "stack, and the frameworks' own frames (PyTorch, CuPy, JAX/XLA, Triton, NumPy) folded into "
     "one '... N PyTorch frames in CALL' line per run where the program has frames of its own "
     "(JSON has them all, marked)"},
    {FRAMES_COMMANDS, "--max-frames N",
     "show at most N frames per stack (beside the folded ones: the program's own come first)"},
    {LIMIT_COMMANDS, "--max-leaked SIZE",
     "fail when more than SIZE of device and managed memory leaked in total (limits are "
     "inclusive; SIZE: 123, 512KiB, 1.5 MiB, 2GB, all binary; without a leak limit, --max-leaked "
     "0 and --max-growth 0 apply)"},
    {LIMIT_COMMANDS, "--max-leaked-per-site SIZE", "fail when one call site leaked more than SIZE"},
    {LIMIT_COMMANDS, "--max-growth SIZE",
     "fail when the growing call sites (the report's growth rule, judged on the markers after "
     "--skip, or without markers on allocation ticks; those a suppression matches left out) "
     "rose by more than SIZE in all since each started growing; with fewer than 3 "
     "markers, or on time ticks: the leaked bytes. Without a limit, any growing site fails"},
    {LIMIT_COMMANDS, "--max-held SIZE",
     "fail when more than SIZE was held at the end: still referenced when a Python script ended "
     "and freed by the interpreter's shutdown (a model, optimizer state; not leaked, and passes "
     "by default)"},
    {LIMIT_COMMANDS, "--max-invalid-frees N",
     "fail when more than N frees were refused by the driver (double frees, unknown pointers); "
     "default 0: any invalid free fails, whatever the leak limits"},
    {"run report check", "--skip N",
     "leave the first N markers out of growth (a one-time rise, a warm-up, never counts as "
     "growth either way)"},
    {LIMIT_COMMANDS, "--error-exitcode N",
     "the exit status for a broken limit, 1 to 255 (default 23)"},
    {SUPPRESSION_COMMANDS, "--suppressions FILE",
     "skip leaks matching FILE's 'leak:PATTERN' lines (LeakSanitizer's format; repeatable; also "
     "$VRAMTRACE_SUPPRESSIONS)"},
    {SUPPRESSION_COMMANDS, "--no-default-suppressions",
     "do not skip the built-in list (the runtime's module registration)"},
    {SUPPRESSION_COMMANDS, "--known FILE",
     "label leaks matching FILE's 'known:PATTERN [LABEL]' lines as known framework memory, "
     "listed but not counted as leaked nor by any limit (repeatable; also $VRAMTRACE_KNOWN)"},
    {SUPPRESSION_COMMANDS, "--no-default-known",
     "do not label the built-in known framework memory (PyTorch's cache and cuBLAS workspace, "
     "CuPy's memory pool, XLA's BFC allocator, an NVTX memory heap, NCCL's buffers, CUDA's "
     "libraries' handles): count it as leaked"},
    {"report", "--show-known",
     "print the patterns of known framework memory in force (built in, $VRAMTRACE_KNOWN, "
     "--known) and exit"},
    {"run report check timeline export watch", "--debuginfod",
     "fetch missing debug information from the servers DEBUGINFOD_URLS names (also "
     "VRAMTRACE_DEBUGINFOD=1); without it, no server is asked"},
    {"timeline", "--json", "print the samples as one JSON object instead"},
    {"export", "--format FORMAT", "folded, pprof, chrome, json, torch-snapshot or html"},
    {"export", "-o, --output FILE",
     "write to FILE instead of standard output (put in place once whole: a failure leaves what "
     "was there; pprof and torch-snapshot need it on a terminal)"},
    {"export", "--force", "let -o replace a file that holds a vramtrace dump"},
    {"attach", "-o, --output DUMP",
     "the dump's path (the process writes it: its user must be able to); refused when it exists "
     "or its folder does not. "
     "Default: vramtrace.<program>.<pid>.vtr in the working directory, .1, .2... before .vtr "
     "when taken"},
    {"export", "--what WHAT",
     "folded: leaked (still allocated at exit, the default), peak (held when its device peaked) "
     "or allocated (all bytes allocated during the run)"},
    {"export", "--diff BASE",
     "folded: the differential form \"stack BASE_BYTES BYTES\" against the dump BASE, for "
     "difffolded-style flamegraphs"},
    {"watch", "--once", "print one snapshot and exit"},
    {"watch", "--json",
     "print the snapshot as the object `vramtrace report --json` prints for the dump so far, "
     "plus \"running\" and \"pid\" (one object per refresh)"},
    {"watch", "--interval SECONDS", "time between refreshes (default 1; fractions allowed)"},
    {"watch", "--top N",
     "call sites shown (default 5; 0: all that fit); with --json, per list (default 10; 0: all); "
     "with the metrics, call sites per process (default 20)"},
    {"watch", "--openmetrics",
     "print the metrics for Prometheus (text exposition format, ended by \"# EOF\") of every "
     "process of the dumps named and of the DIRs' *.vtr files, each refresh until every process "
     "has ended (with --once, one)"},
    {"watch", "--openmetrics-file FILE",
     "rewrite FILE with the metrics each refresh, atomically (for node_exporter's textfile "
     "collector: FILE in its directory, named *.prom); without --once, runs until SIGINT or "
     "SIGTERM"},
    {"watch", "--listen ADDR:PORT",
     "serve the metrics at http://ADDR:PORT/metrics (ADDR left out, as in :9400 or 9400: "
     "127.0.0.1); runs until SIGINT or SIGTERM"},
    {"gpus", "--json", "print one JSON object instead of text"},
    {"gpus", "--openmetrics",
     "print metrics for Prometheus instead: per GPU its total and used memory, and the used "
     "split into traced, outside the traced calls, and other processes (see docs/cluster.md)"},
    {"gpus", "--device N", "only GPU N (NVML's index, as nvidia-smi numbers them)"},
    {"gpus", "--min-free SIZE",
     "exit 3 when a GPU shown has less than SIZE free (a pre-flight check; SIZE as 512MiB, 20GiB)"},
};

static const struct variable variables[] = {
    {"VRAMTRACE_OUTPUT",
     "the dump's path (%p, %r, %e, %% as for run -o; default vramtrace.%e.%p.vtr; relative: from "
     "where the process started); run's default -o, and where watch looks without an argument"},
    {"VRAMTRACE_MODE", "events (the default) or aggregate (per call site totals and samples)"},
    {"VRAMTRACE_SAMPLE_INTERVAL_MS", "aggregate mode: the first sample interval (default 100)"},
    {"VRAMTRACE_FREE_STACKS", "1: record the stack of every free"},
    {"VRAMTRACE_MAX_FRAMES", "native frames kept per stack, 16 to 1024 (default 512)"},
    {"VRAMTRACE_MARK_SIGNAL",
     "the signal that writes a marker, once the process uses CUDA (default USR2; 0 or off: "
     "none)"},
    {"VRAMTRACE_NVTX_MARK",
     "NAME: each end of an NVTX range named NAME is a marker, where NVTX_INJECTION64_PATH names "
     "libvramtrace.so and it is preloaded too (run --mark-on-nvtx sets both)"},
    {"VRAMTRACE_QUIET", "1: no line on stderr at exit naming the dump"},
    {"VRAMTRACE_NVML", "0: the traced process does not load NVML"},
    {"VRAMTRACE_MANIFEST", "set by run: the file each process appends the path of its dumps to"},
    {"VRAMTRACE_ONLY_PID", "set by run --no-children: only that process is traced"},
    {"VRAMTRACE_SUPPRESSIONS", "a suppressions file read by report, check and run"},
    {"VRAMTRACE_KNOWN", "a file of known framework memory patterns read by report, check and run"},
    {"VRAMTRACE_DEBUGINFOD", "1: as --debuginfod (otherwise DEBUGINFOD_URLS is ignored)"},
    {"VRAMTRACE_SYMBOL_CACHE",
     "0: no symbol cache; a directory: the symbol cache there (default "
     "$XDG_CACHE_HOME/vramtrace/symbols, else ~/.cache/vramtrace/symbols; at most 64 MiB)"},
    {"VRAMTRACE_PROGRESS_DELAY",
     "seconds before reading a dump shows progress on a terminal (default 1)"},
};

static const struct status statuses[] = {
    {"run report check timeline export watch gpus lib attach detach", "0",
     "success (report, timeline, export: any readable dump, leaks or not; check: every dump that "
     "could be judged is within the limits; watch: the process has ended, or --once, or the "
     "metrics stopped by SIGINT or SIGTERM; attach: the process is traced; detach: no longer)"},
    {"run", "CMD's", "CMD's own status when nothing is wrong, or without --fail-on-leak"},
    {"run", "128+N", "CMD was killed by signal N (a crash is never reported as a leak)"},
    {"run check", "23",
     "a limit was broken (run: with --fail-on-leak); --error-exitcode N chooses another"},
    {"run check", "24",
     "nothing to judge: no dump, no successful allocation, or no process that ended on its own"},
    {"run report check timeline export watch gpus lib attach detach", "1",
     "a dump, suppressions or known-patterns file cannot be read, or is damaged and no limit is "
     "broken; an "
     "output file cannot be written; run: the library is missing; watch: no dump found, the "
     "metrics file cannot be written or the port listened on; gpus: NVML cannot list the GPUs "
     "or --device names none; lib: libvramtrace.so is not found; attach, detach: the process "
     "cannot be attached (none such, another user's, not permitted, no CUDA loaded, attached or "
     "traced already, -o exists) or is not attached, said in one line, the process untouched"},
    {"run report check timeline export watch gpus lib attach detach", "2",
     "a bad command line; run: an -o that cannot work (a missing directory, a directory, a "
     "symlink, an unknown % sequence) or LD_PRELOAD already loads the tracer; gpus: NVML is "
     "missing"},
    {"gpus", "3", "--min-free is not met"},
    {"run", "127", "CMD could not be started"},
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define WIDTH 79

static bool belongs(const char *list, const char *command)
{
    size_t n = strlen(command);
    for (const char *p = list; (p = strstr(p, command)); p += n)
        if ((p == list || p[-1] == ' ') && (p[n] == ' ' || !p[n]))
            return true;
    return false;
}

/* The length of the word at TEXT: up to a space outside brackets, so that
 * "[--log-file FILE]" stays on one line. */
static size_t word_length(const char *text)
{
    size_t n = 0;
    for (int depth = 0; text[n] && (text[n] != ' ' || depth > 0); n++)
        depth += (text[n] == '[') - (text[n] == ']');
    return n;
}

/* TEXT from the cursor at column AT, wrapped at WIDTH onto lines indented
 * by INDENT. */
static void wrap(const char *text, size_t indent, size_t at, FILE *out)
{
    bool fresh = true; /* no space before the first word of a line */
    while (*text) {
        size_t word = word_length(text);
        if (!fresh && at + 1 + word > WIDTH) {
            fprintf(out, "\n%*s", (int)indent, "");
            at = indent;
        } else if (!fresh) {
            fputc(' ', out);
            at++;
        }
        fresh = false;
        fwrite(text, 1, word, out);
        at += word;
        text += word;
        text += strspn(text, " ");
    }
    fputc('\n', out);
}

/* "  FLAGS   help...", the help from column COLUMN. */
static void row(const char *flags, const char *help, size_t column, FILE *out)
{
    int at = fprintf(out, "  %s", flags);
    if (at + 2 > (int)column) {
        fprintf(out, "\n%*s", (int)column, "");
        at = (int)column;
    } else {
        fprintf(out, "%*s", (int)column - at, "");
        at = (int)column;
    }
    wrap(help, column, (size_t)at, out);
}

static const struct command *find(const char *name)
{
    for (size_t i = 0; i < COUNT(commands); i++)
        if (!strcmp(commands[i].name, name))
            return &commands[i];
    return NULL;
}

void vt_cli_help(const char *command, const char *about, FILE *out)
{
    const struct command *c = find(command);
    fputs("Usage: vramtrace ", out);
    wrap(c ? c->synopsis : command, 17, 17, out);
    fputs(about, out);
    fputs("\nOptions:\n", out);
    for (size_t i = 0; i < COUNT(options); i++)
        if (belongs(options[i].commands, command))
            row(options[i].flags, options[i].help, 24, out);
    row("-h, --help", "show this help", 24, out);
    fputs("\nExit status:\n", out);
    for (size_t i = 0; i < COUNT(statuses); i++)
        if (belongs(statuses[i].commands, command))
            row(statuses[i].status, statuses[i].meaning, 10, out);
}

void vt_cli_main_help(FILE *out)
{
    fputs("Usage: vramtrace COMMAND [OPTION...] [ARG...]\n"
          "Trace CUDA device-memory allocations of a process and report leaks.\n"
          "\nCommands:\n",
          out);
    for (size_t i = 0; i < COUNT(commands); i++) {
        fputs("  ", out);
        wrap(commands[i].synopsis, 6, 2, out);
        fprintf(out, "%*s", 8, "");
        wrap(commands[i].summary, 8, 8, out);
    }
    fputs("\nOptions:\n", out);
    row("-h, --help", "show this help (also: vramtrace COMMAND --help)", 24, out);
    row("-V, --version", "show the version", 24, out);
    fputs("\nEnvironment:\n", out);
    for (size_t i = 0; i < COUNT(variables); i++)
        row(variables[i].name, variables[i].help, 31, out);
    fputs("\nExit status (vramtrace COMMAND --help says which apply):\n", out);
    for (size_t i = 0; i < COUNT(statuses); i++)
        row(statuses[i].status, statuses[i].meaning, 10, out);
}

/* Edits that turn A into B (Levenshtein), for names of a few letters. */
static size_t distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row_[32];
    if (la >= 31 || lb >= 31)
        return 99;
    for (size_t k = 0; k <= lb; k++)
        row_[k] = k;
    for (size_t i = 1; i <= la; i++) {
        size_t diagonal = row_[0];
        row_[0] = i;
        for (size_t k = 1; k <= lb; k++) {
            size_t up = row_[k], best = diagonal + (a[i - 1] != b[k - 1]);
            best = up + 1 < best ? up + 1 : best;
            best = row_[k - 1] + 1 < best ? row_[k - 1] + 1 : best;
            diagonal = up;
            row_[k] = best;
        }
    }
    return row_[lb];
}

const char *vt_cli_nearest_command(const char *name)
{
    const char *best = NULL;
    size_t best_distance = 3; /* farther is no typo */
    for (size_t i = 0; i < COUNT(commands); i++) {
        size_t d = distance(name, commands[i].name);
        if (d < best_distance) {
            best_distance = d;
            best = commands[i].name;
        }
    }
    return best;
}
