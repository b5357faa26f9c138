/* SPDX-License-Identifier: MIT */
/* The ways a process ends or becomes another program without passing
 * through exit(), each given its footer: _exit and _Exit (END
 * VT_END_UNDERSCORE_EXIT) and the exec family (VT_END_EXEC, erased again if
 * the exec fails). A signal the program sends itself to die of it with the
 * default action ("clean up, restore SIG_DFL, re-raise", CPython's exit
 * after an unhandled KeyboardInterrupt) reaches the tracer's handler:
 * setting SIG_DFL gives the signal back to the tracer (dispositions.c).
 * SIGKILL gets none: nothing can. Each first checks that this process owns
 * the dump: a vfork child runs these in its parent's memory. */
#include "endings.h"

#include "finish.h"
#include "resolve.h"
#include "tracing.h"

#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Ours, called by name nowhere inside the tracer: a layer preloaded before
 * us would see our own calls as the program's. */
__attribute__((noreturn)) static void exit_now(int status)
{
    vt_finish_underscore_exit(status);
    for (;;)
        syscall(SYS_exit_group, status);
}

VT_EXPORT void _exit(int status)
{
    exit_now(status);
}

VT_EXPORT void _Exit(int status)
{
    exit_now(status);
}

/* ---- exec ---- */

typedef int (*execve_fn)(const char *, char *const[], char *const[]);
typedef int (*execv_fn)(const char *, char *const[]);
typedef int (*fexecve_fn)(int, char *const[], char *const[]);
typedef int (*execveat_fn)(int, const char *, char *const[], char *const[], int);

/* RESULT of an exec that returned: it failed; the footer is taken back. */
static int after_failed_exec(int began, int result)
{
    int saved = errno;
    if (began)
        vt_exec_failed();
    errno = saved;
    return result;
}

static struct {
    void *execve, *execv, *execvp, *execvpe, *fexecve, *execveat;
} real_exec;

/* Looked up while the tracer starts: a vfork child must not search the
 * loaded objects (another thread of its parent may hold the loader's lock). */
void vt_endings_init(void)
{
    real_exec.execve = vt_find_real("execve");
    real_exec.execv = vt_find_real("execv");
    real_exec.execvp = vt_find_real("execvp");
    real_exec.execvpe = vt_find_real("execvpe");
    real_exec.fexecve = vt_find_real("fexecve");
    real_exec.execveat = vt_find_real("execveat");
}

#define REAL_EXEC(type, name)         \
    type real = (type)real_exec.name; \
    if (!real) {                      \
        errno = ENOSYS;               \
        return -1;                    \
    }

static int exec_path(const char *path, char *const argv[], char *const envp[])
{
    REAL_EXEC(execve_fn, execve);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(path, argv, envp));
}

static int exec_search(const char *file, char *const argv[])
{
    REAL_EXEC(execv_fn, execvp);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(file, argv));
}

VT_EXPORT int execve(const char *path, char *const argv[], char *const envp[])
{
    return exec_path(path, argv, envp);
}

VT_EXPORT int execv(const char *path, char *const argv[])
{
    REAL_EXEC(execv_fn, execv);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(path, argv));
}

VT_EXPORT int execvp(const char *file, char *const argv[])
{
    return exec_search(file, argv);
}

VT_EXPORT int execvpe(const char *file, char *const argv[], char *const envp[])
{
    REAL_EXEC(execve_fn, execvpe);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(file, argv, envp));
}

VT_EXPORT int fexecve(int fd, char *const argv[], char *const envp[])
{
    REAL_EXEC(fexecve_fn, fexecve);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(fd, argv, envp));
}

VT_EXPORT int execveat(int dirfd, const char *path, char *const argv[], char *const envp[],
                       int flags)
{
    REAL_EXEC(execveat_fn, execveat);
    int began = vt_exec_begin();
    return after_failed_exec(began, real(dirfd, path, argv, envp, flags));
}

/* execl, execlp, execle: the arguments into an array, then the v form (ours,
 * not the exported name). */
#define COLLECT_ARGS(arg0, last_named, envp_out)        \
    va_list ap;                                         \
    size_t argc = 1;                                    \
    va_start(ap, last_named);                           \
    while (va_arg(ap, char *))                          \
        argc++;                                         \
    va_end(ap);                                         \
    char *argv[argc + 1];                               \
    argv[0] = (char *)(arg0);                           \
    va_start(ap, last_named);                           \
    for (size_t i = 1; i <= argc; i++)                  \
        argv[i] = i < argc ? va_arg(ap, char *) : NULL; \
    (void)va_arg(ap, char *); /* the NULL */            \
    envp_out;                                           \
    va_end(ap)

extern char **environ;

VT_EXPORT int execl(const char *path, const char *arg, ...)
{
    COLLECT_ARGS(arg, arg, (void)0);
    return exec_path(path, argv, environ);
}

VT_EXPORT int execlp(const char *file, const char *arg, ...)
{
    COLLECT_ARGS(arg, arg, (void)0);
    return exec_search(file, argv);
}

VT_EXPORT int execle(const char *path, const char *arg, ...)
{
    char *const *envp;
    COLLECT_ARGS(arg, arg, envp = va_arg(ap, char *const *));
    return exec_path(path, argv, envp);
}
