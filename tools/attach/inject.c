/* SPDX-License-Identifier: MIT */
#include "inject.h"

#include "target.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#if defined(__x86_64__)

struct vt_injection {
    pid_t pid, tid;
    struct user_regs_struct saved;
};

#define RED_ZONE 128
#define TRIES_PER_THREAD 200

/* Waits for TID's next stop; a signal meant for the program is delivered
 * and waited past. 0 at an interrupt stop (or SIGSEGV when SEGV_OK: our
 * call's return to address 0), -1 when the thread is gone. *SIG: the stop's
 * signal. */
static int wait_stop(pid_t tid, int segv_ok, int *sig)
{
    int status;
    for (;;) {
        if (waitpid(tid, &status, __WALL) < 0 || !WIFSTOPPED(status))
            return -1;
        *sig = WSTOPSIG(status);
        if ((status >> 16) == PTRACE_EVENT_STOP || (segv_ok && *sig == SIGSEGV))
            return 0;
        /* the program's signal: delivered as if we were not there */
        if (ptrace(PTRACE_CONT, tid, NULL, (void *)(uintptr_t)*sig) < 0)
            return -1;
    }
}

/* Memory-management calls libc makes from inside malloc, with its lock held. */
static int allocator_syscall(long nr)
{
    return nr == 9 || nr == 10 || nr == 11 || nr == 12 || nr == 25 || nr == 28; /* mmap.. madvise */
}

/* Stopped where a call can run: waiting in a system call (the ABI leaves no
 * vector register live across the call that made it), not inside the
 * dynamic linker (its lock may be held) nor libc's allocator syscalls. */
static int safe_stop(pid_t pid, const struct user_regs_struct *r)
{
    char name[256] = "";
    if ((long)r->orig_rax < 0 || vt_target_object_at(pid, r->rip, name, sizeof name) < 0)
        return 0;
    if (strncmp(name, "ld-linux", 8) == 0 || strncmp(name, "libvramtrace", 12) == 0)
        return 0;
    return !(strncmp(name, "libc.so", 7) == 0 && allocator_syscall((long)r->orig_rax));
}

/* Lets TID run a moment and stops it again. */
static int run_a_moment(pid_t tid)
{
    struct timespec moment = {0, 1000000};
    int sig;
    if (ptrace(PTRACE_CONT, tid, NULL, NULL) < 0)
        return -1;
    nanosleep(&moment, NULL);
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0)
        return -1;
    return wait_stop(tid, 0, &sig);
}

/* Seizes TID and waits for a safe stop; 0 with its registers in IN. */
static int try_thread(struct vt_injection *in, pid_t tid, int *err)
{
    int sig;
    if (ptrace(PTRACE_SEIZE, tid, NULL, NULL) < 0) {
        *err = errno;
        return -1;
    }
    if (ptrace(PTRACE_INTERRUPT, tid, NULL, NULL) < 0 || wait_stop(tid, 0, &sig) < 0) {
        ptrace(PTRACE_DETACH, tid, NULL, NULL);
        return -1;
    }
    for (int i = 0; i < TRIES_PER_THREAD; i++) {
        if (ptrace(PTRACE_GETREGS, tid, NULL, &in->saved) < 0)
            break;
        if (safe_stop(in->pid, &in->saved)) {
            in->tid = tid;
            return 0;
        }
        if (run_a_moment(tid) < 0)
            return -1;
    }
    ptrace(PTRACE_DETACH, tid, NULL, NULL);
    return -1;
}

/* The main thread first (it is the one most programs leave waiting). */
static int threads_of(pid_t pid, pid_t *tids, int max)
{
    char dir[64];
    struct dirent *e;
    int n = 0;
    snprintf(dir, sizeof dir, "/proc/%d/task", (int)pid);
    DIR *d = opendir(dir);
    tids[n++] = pid;
    while (d && (e = readdir(d)) && n < max) {
        pid_t tid = (pid_t)atoi(e->d_name);
        if (tid > 0 && tid != pid)
            tids[n++] = tid;
    }
    if (d)
        closedir(d);
    return n;
}

struct vt_injection *vt_inject_open(pid_t pid, char *why, size_t size)
{
    struct vt_injection *in = calloc(1, sizeof *in);
    pid_t tids[256];
    int n = threads_of(pid, tids, 256), err = 0;
    if (!in)
        return NULL;
    in->pid = pid;
    for (int i = 0; i < n; i++)
        if (try_thread(in, tids[i], &err) == 0)
            return in;
    if (err == EPERM)
        snprintf(why, size, "not permitted to trace process %d (ptrace: %s)", (int)pid,
                 strerror(err));
    else
        snprintf(why, size,
                 "no thread of process %d was found waiting in a system call where a call "
                 "can run safely; try again",
                 (int)pid);
    free(in);
    return NULL;
}

int vt_inject_call(struct vt_injection *in, uint64_t function, const char *text, uint64_t arg,
                   uint64_t *result, char *why, size_t size)
{
    struct user_regs_struct r = in->saved;
    uint64_t sp = (r.rsp - RED_ZONE - 256) & ~(uint64_t)15, text_at = 0, zero = 0;
    int sig;
    if (text) {
        size_t len = strlen(text) + 1;
        sp = (sp - len) & ~(uint64_t)15;
        text_at = sp;
        if (vt_target_write(in->pid, text_at, text, len) < 0)
            goto failed;
    }
    sp -= 8; /* the return address: 0, so the return faults and stops here */
    if (vt_target_write(in->pid, sp, &zero, sizeof zero) < 0)
        goto failed;
    r.rsp = sp;
    r.rip = function;
    r.rdi = text_at;
    r.rsi = arg;
    r.rax = 0;
    r.orig_rax = (uint64_t)-1; /* no system call to restart on the way */
    if (ptrace(PTRACE_SETREGS, in->tid, NULL, &r) < 0 ||
        ptrace(PTRACE_CONT, in->tid, NULL, NULL) < 0 || wait_stop(in->tid, 1, &sig) < 0 ||
        ptrace(PTRACE_GETREGS, in->tid, NULL, &r) < 0)
        goto failed;
    if (sig != SIGSEGV || r.rip != 0) {
        snprintf(why, size, "the call in process %d stopped at %#llx (signal %d)", (int)in->pid,
                 (unsigned long long)r.rip, sig);
        return -1;
    }
    *result = r.rax;
    return 0;
failed:
    snprintf(why, size, "cannot run a call in process %d: %s", (int)in->pid, strerror(errno));
    return -1;
}

void vt_inject_close(struct vt_injection *in)
{
    if (!in)
        return;
    ptrace(PTRACE_SETREGS, in->tid, NULL, &in->saved);
    ptrace(PTRACE_DETACH, in->tid, NULL, NULL);
    free(in);
}

#else

struct vt_injection *vt_inject_open(pid_t pid, char *why, size_t size)
{
    snprintf(why, size, "attaching works on x86_64 only; process %d was left alone", (int)pid);
    return NULL;
}

int vt_inject_call(struct vt_injection *in, uint64_t function, const char *text, uint64_t arg,
                   uint64_t *result, char *why, size_t size)
{
    (void)in, (void)function, (void)text, (void)arg, (void)result;
    snprintf(why, size, "attaching works on x86_64 only");
    return -1;
}

void vt_inject_close(struct vt_injection *in)
{
    (void)in;
}

#endif
