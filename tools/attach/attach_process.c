/* SPDX-License-Identifier: MIT */
#include "attach_process.h"

#include "inject.h"
#include "python_remote.h"
#include "target.h"

#include <dlfcn.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* vramtrace_attach_state in the library (src/hooks/hooks_attach.c). */
enum { STATE_NONE = 0, STATE_ON = 1, STATE_OFF = 2, STATE_NOT_LOADED = -1 };

static int yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "re");
    int scope = 0;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = 0;
        fclose(f);
    }
    return scope;
}

/* Why PID cannot be traced by us, in one line. */
static void not_permitted(pid_t pid, char *why, size_t size)
{
    char proc[64];
    struct stat st;
    int scope = yama_scope();
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    if (stat(proc, &st) == 0 && st.st_uid != geteuid() && geteuid() != 0)
        snprintf(why, size,
                 "process %d belongs to another user (uid %u): attach as that user or as root",
                 (int)pid, (unsigned)st.st_uid);
    else if (scope >= 3)
        snprintf(why, size,
                 "kernel.yama.ptrace_scope is 3: no process may be traced until the next boot");
    else if (scope > 0 && geteuid() != 0)
        snprintf(why, size,
                 "kernel.yama.ptrace_scope is %d, which lets only %s trace process %d: "
                 "attach as root (or with CAP_SYS_PTRACE)%s",
                 scope, scope == 1 ? "its parent" : "root", (int)pid,
                 scope == 1 ? ", or set kernel.yama.ptrace_scope to 0" : "");
    else
        snprintf(why, size,
                 "not permitted to trace process %d (ptrace refused: in a container, it needs "
                 "CAP_SYS_PTRACE)",
                 (int)pid);
}

/* 0 when PID exists, can be read by us and has loaded CUDA. */
static int check_target(pid_t pid, char *why, size_t size)
{
    char path[4096];
    uint64_t bias;
    int r;
    if (kill(pid, 0) < 0 && errno == ESRCH) {
        snprintf(why, size, "no process %d", (int)pid);
        return -1;
    }
    r = vt_target_object(pid, "libc.so", path, sizeof path, &bias);
    if (r == -2 && (errno == EACCES || errno == EPERM)) {
        not_permitted(pid, why, size);
        return -1;
    }
    if (r == -2) {
        snprintf(why, size, "cannot read process %d's memory map: %s", (int)pid, strerror(errno));
        return -1;
    }
    if (vt_target_object(pid, "libcuda.so", path, sizeof path, &bias) != 0 &&
        vt_target_object(pid, "libcudart.so", path, sizeof path, &bias) != 0) {
        snprintf(why, size,
                 "process %d has not loaded CUDA (neither libcuda nor libcudart is in its "
                 "memory): nothing to trace",
                 (int)pid);
        return -1;
    }
    return 0;
}

/* The library's attach state in PID, read without stopping it. */
static int attach_state(pid_t pid)
{
    uint64_t at = vt_target_symbol(pid, "libvramtrace.so", "vramtrace_attach_state");
    int state;
    if (!at)
        return STATE_NOT_LOADED;
    return vt_target_read(pid, at, &state, sizeof state) == 0 ? state : STATE_NONE;
}

/* dlerror()'s message in PID, after a failed dlopen. */
static void load_error(pid_t pid, struct vt_injection *in, char *why, size_t size)
{
    uint64_t dlerror = vt_target_symbol(pid, "libc.so", "dlerror"), text = 0;
    char message[512] = "";
    char ignored[256];
    if (dlerror && vt_inject_call(in, dlerror, NULL, 0, &text, ignored, sizeof ignored) == 0 &&
        text && vt_target_read(pid, text, message, sizeof message - 1) < 0)
        message[0] = '\0';
    message[sizeof message - 1] = '\0';
    snprintf(why, size, "process %d could not load libvramtrace.so: %s", (int)pid,
             message[0] ? message : "dlopen failed");
}

static const char *const start_errors[] = {
    [1] = "is attached already",
    [2] = "could not create its dump there (may it write to that folder?): name another "
          "with -o",
    [3] = "cannot be attached on this machine (x86_64 only)",
};

/* What vramtrace_attach_start's RESULT means: 0, or -1 with WHY. */
static int started(pid_t pid, unsigned result, char *why, size_t size)
{
    if (result == 0)
        return 0;
    snprintf(why, size, "process %d %s", (int)pid, start_errors[result < 4 ? result : 2]);
    return -1;
}

/* dlopen(LIBRARY) then vramtrace_attach_start(DUMP) in the stopped thread. */
static int load_and_start(pid_t pid, struct vt_injection *in, const char *library, const char *dump,
                          char *why, size_t size)
{
    uint64_t dlopen_at = vt_target_symbol(pid, "libc.so", "dlopen"), handle = 0, start, result;
    if (!dlopen_at)
        dlopen_at = vt_target_symbol(pid, "libdl.so", "dlopen"); /* glibc before 2.34 */
    if (!dlopen_at) {
        snprintf(why, size, "process %d has no dlopen to load libvramtrace.so with", (int)pid);
        return -1;
    }
    if (vt_inject_call(in, dlopen_at, library, RTLD_NOW | RTLD_LOCAL, &handle, why, size) < 0)
        return -1;
    if (!handle) {
        load_error(pid, in, why, size);
        return -1;
    }
    start = vt_target_symbol(pid, "libvramtrace.so", "vramtrace_attach_start");
    if (!start) {
        snprintf(why, size, "process %d loaded a libvramtrace.so without attach", (int)pid);
        return -1;
    }
    if (vt_inject_call(in, start, dump, 0, &result, why, size) < 0)
        return -1;
    return started(pid, (uint32_t)result, why, size);
}

int vt_attach_process(pid_t pid, const char *library, const char *dump, int *by_python, char *why,
                      size_t size)
{
    struct vt_injection *in;
    int r, code = 0;
    if (check_target(pid, why, size) < 0)
        return -1;
    switch (attach_state(pid)) {
    case STATE_ON:
        snprintf(why, size, "process %d is attached already (vramtrace detach %d ends it)",
                 (int)pid, (int)pid);
        return -1;
    case STATE_NONE:
        snprintf(why, size,
                 "process %d is traced already (started under vramtrace run or LD_PRELOAD)",
                 (int)pid);
        return -1;
    default:
        break;
    }
    /* CPython 3.14 and later: the interpreter runs the call at a safe point */
    r = vt_python_remote_call(pid, library, "vramtrace_attach_start", dump, &code, why, size);
    *by_python = r <= 0;
    if (r <= 0)
        return r < 0 ? -1 : started(pid, (unsigned)code, why, size);
    in = vt_inject_open(pid, why, size);
    if (!in) {
        if (strstr(why, "not permitted"))
            not_permitted(pid, why, size);
        return -1;
    }
    r = load_and_start(pid, in, library, dump, why, size);
    vt_inject_close(in);
    return r;
}

int vt_detach_process(pid_t pid, char *why, size_t size)
{
    struct vt_injection *in;
    char library[4096];
    uint64_t stop, result = 1, bias;
    int r, code = 1;
    if (kill(pid, 0) < 0 && errno == ESRCH) {
        snprintf(why, size, "no process %d", (int)pid);
        return -1;
    }
    stop = vt_target_symbol(pid, "libvramtrace.so", "vramtrace_attach_stop");
    if (attach_state(pid) != STATE_ON || !stop ||
        vt_target_object(pid, "libvramtrace.so", library, sizeof library, &bias) != 0) {
        snprintf(why, size, "process %d is not attached", (int)pid);
        return -1;
    }
    r = vt_python_remote_call(pid, library, "vramtrace_attach_stop", NULL, &code, why, size);
    if (r == 0 && code != 0)
        snprintf(why, size, "process %d is not attached", (int)pid);
    if (r <= 0)
        return r < 0 || code != 0 ? -1 : 0;
    in = vt_inject_open(pid, why, size);
    if (!in)
        return -1;
    r = -1;
    if (vt_inject_call(in, stop, NULL, 0, &result, why, size) == 0) {
        r = (uint32_t)result == 0 ? 0 : -1;
        if (r < 0)
            snprintf(why, size, "process %d is not attached", (int)pid);
    }
    vt_inject_close(in);
    return r;
}
