/* SPDX-License-Identifier: MIT */
/* vramtrace attach PID [-o DUMP] and vramtrace detach PID: tracing a job
 * that was started without vramtrace, from now until detach (or its end). */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attach_process.h"
#include "cli.h"
#include "cli_table.h"
#include "cli_usage.h"

static const char attach_about[] =
    "Trace the running process PID from now on, as if it had been started under run:\n"
    "libvramtrace.so is loaded into it (ptrace, one thread stopped for an instant) and its\n"
    "CUDA calls are bound to it. The dump says how much device memory was held before.\n";

static const char detach_about[] =
    "Stop tracing the process PID that attach traces: every call is bound back where it\n"
    "went before, the dump is finished, the process runs on.\n";

/* PID from TEXT, or -1. */
static pid_t pid_arg(const char *text)
{
    char *end;
    long pid;
    errno = 0;
    pid = strtol(text, &end, 10);
    return errno || *end || end == text || pid <= 0 || pid > INT_MAX ? -1 : (pid_t)pid;
}

static void command_name(pid_t pid, char *out, size_t size)
{
    char path[64];
    FILE *f;
    snprintf(path, sizeof path, "/proc/%d/comm", (int)pid);
    snprintf(out, size, "process");
    if ((f = fopen(path, "re"))) {
        if (fgets(out, (int)size, f))
            out[strcspn(out, "\n/")] = '\0';
        fclose(f);
    }
}

/* The folder PATH would be created in is there. */
static int folder_exists(const char *path)
{
    char folder[PATH_MAX];
    struct stat st;
    const char *slash = strrchr(path, '/');
    snprintf(folder, sizeof folder, "%.*s", (int)(slash - path), path);
    return stat(folder[0] ? folder : "/", &st) == 0 && S_ISDIR(st.st_mode);
}

/* -o DUMP made absolute, or vramtrace.<comm>.<pid>[.N].vtr here, a name
 * no file has yet; NULL (said why) when DUMP exists. */
static char *dump_path(const char *output, pid_t pid)
{
    char cwd[PATH_MAX], comm[64], *path = NULL;
    if (!getcwd(cwd, sizeof cwd))
        return NULL;
    if (output) {
        if (asprintf(&path, "%s%s%s", output[0] == '/' ? "" : cwd, output[0] == '/' ? "" : "/",
                     output) < 0)
            return NULL;
        if (access(path, F_OK) == 0) {
            fprintf(stderr, "vramtrace: %s exists; name another dump with -o\n", output);
            free(path);
            return NULL;
        }
        if (!folder_exists(path)) {
            fprintf(stderr, "vramtrace: no folder for %s; name another dump with -o\n", output);
            free(path);
            return NULL;
        }
        return path;
    }
    command_name(pid, comm, sizeof comm);
    for (unsigned attempt = 0;; attempt++) {
        int n = attempt ? asprintf(&path, "%s/vramtrace.%s.%d.%u.vtr", cwd, comm, (int)pid, attempt)
                        : asprintf(&path, "%s/vramtrace.%s.%d.vtr", cwd, comm, (int)pid);
        if (n < 0)
            return NULL;
        if (access(path, F_OK) != 0)
            return path;
        free(path);
    }
}

/* The options of CMD (-h; -o DUMP for attach), then PID. */
static int parse(const char *cmd, const char *about, int argc, char **argv, const char **output,
                 pid_t *pid)
{
    static const struct option options[] = {
        {"output", required_argument, NULL, 'o'},
        {"help", no_argument, NULL, 'h'},
        {0},
    };
    int c;
    opterr = 0;
    optind = 1;
    while ((c = getopt_long(argc, argv, output ? "ho:" : "h", options, NULL)) != -1) {
        if (c == 'h') {
            vt_cli_help(cmd, about, stdout);
            return VT_EXIT_OK;
        }
        if (c == 'o' && output) {
            *output = optarg;
            continue;
        }
        return vt_usage_error(cmd, "unknown option '%s'", argv[optind - 1]);
    }
    if (optind + 1 != argc)
        return vt_usage_error(cmd, optind == argc ? "%sPID is missing" : "unexpected argument '%s'",
                              optind == argc ? "" : argv[optind + 1]);
    *pid = pid_arg(argv[optind]);
    if (*pid < 0)
        return vt_usage_error(cmd, "PID must be a process id, not '%s'", argv[optind]);
    return -1;
}

int vt_cmd_attach(int argc, char **argv)
{
    const char *output = NULL;
    char why[1024], *library, *dump;
    int by_python = 0;
    pid_t pid = 0;
    int r = parse("attach", attach_about, argc, argv, &output, &pid);
    if (r >= 0)
        return r;
    library = vt_find_library();
    if (!library) {
        fputs("vramtrace: cannot find libvramtrace.so next to the vramtrace executable nor in "
              "its installed library folder\n",
              stderr);
        return VT_EXIT_ERROR;
    }
    dump = dump_path(output, pid);
    if (!dump) {
        free(library);
        return VT_EXIT_ERROR;
    }
    r = vt_attach_process(pid, library, dump, &by_python, why, sizeof why);
    if (r == 0)
        printf("vramtrace: attached to process %d%s, tracing into %s (vramtrace detach %d "
               "stops)\n",
               (int)pid, by_python ? " through its interpreter's remote execution" : "", dump,
               (int)pid);
    else
        fprintf(stderr, "vramtrace: %s\n", why);
    free(library);
    free(dump);
    return r == 0 ? VT_EXIT_OK : VT_EXIT_ERROR;
}

int vt_cmd_detach(int argc, char **argv)
{
    char why[1024];
    pid_t pid = 0;
    int r = parse("detach", detach_about, argc, argv, NULL, &pid);
    if (r >= 0)
        return r;
    if (vt_detach_process(pid, why, sizeof why) < 0) {
        fprintf(stderr, "vramtrace: %s\n", why);
        return VT_EXIT_ERROR;
    }
    printf("vramtrace: detached from process %d; its dump is finished\n", (int)pid);
    return VT_EXIT_OK;
}
