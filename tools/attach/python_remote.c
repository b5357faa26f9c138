/* SPDX-License-Identifier: MIT */
#include "python_remote.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 30000 /* for the interpreter's next safe point */

/* The interpreter PID runs, when it is CPython 3.14 or later: a path to
 * it here (its own, else the same name in /usr/bin or /usr/local/bin: the
 * process may see another root; else its /proc/PID/exe). */
static int interpreter_of(pid_t pid, char *python, size_t size)
{
    char link[64], target[256];
    const char *name;
    unsigned minor;
    ssize_t n;
    snprintf(link, sizeof link, "/proc/%d/exe", (int)pid);
    n = readlink(link, target, sizeof target - 1);
    if (n <= 0)
        return -1;
    target[n] = '\0';
    name = strrchr(target, '/');
    name = name ? name + 1 : target;
    if (sscanf(name, "python3.%u", &minor) != 1 || minor < 14)
        return -1;
    snprintf(python, size, "%s", target);
    if (access(python, X_OK) == 0)
        return 0;
    snprintf(python, size, "/usr/bin/%s", name);
    if (access(python, X_OK) == 0)
        return 0;
    snprintf(python, size, "/usr/local/bin/%s", name);
    if (access(python, X_OK) == 0)
        return 0;
    snprintf(python, size, "%s", link);
    return 0;
}

/* TEXT as a Python bytes literal, every byte escaped. */
static void put_bytes(FILE *f, const char *text)
{
    fputs("b\"", f);
    for (const unsigned char *p = (const unsigned char *)text; *p; p++)
        fprintf(f, "\\x%02x", *p);
    fputc('"', f);
}

/* The script: unless the CLI gave up (CANCEL exists), the call, its result
 * (or the error's text) into RESULT, renamed into place whole. */
static int write_script(const char *dir, const char *library, const char *function, const char *arg)
{
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof path, "%s/attach.py", dir);
    f = fopen(path, "we");
    if (!f)
        return -1;
    fputs("import ctypes, os\ndir = ", f);
    put_bytes(f, dir);
    fputs(".decode()\nif not os.path.exists(dir + '/cancel'):\n    try:\n"
          "        lib = ctypes.CDLL(",
          f);
    put_bytes(f, library);
    fputs(".decode(), mode=os.RTLD_NOW | os.RTLD_LOCAL)\n        rc = str(getattr(lib, ", f);
    put_bytes(f, function);
    fputs(".decode())(", f);
    if (arg)
        put_bytes(f, arg);
    fputs("))\n    except Exception as e:\n        rc = 'error: %s' % e\n"
          "    with open(dir + '/result.tmp', 'w') as out:\n        out.write(rc)\n"
          "    os.rename(dir + '/result.tmp', dir + '/result')\n",
          f);
    return fclose(f);
}

/* PYTHON -c "sys.remote_exec(PID, SCRIPT)": 0 when the script was sent. */
static int send_script(const char *python, pid_t pid, const char *dir)
{
    char pid_text[16], script[PATH_MAX];
    int status;
    pid_t child;
    snprintf(pid_text, sizeof pid_text, "%d", (int)pid);
    snprintf(script, sizeof script, "%s/attach.py", dir);
    child = fork();
    if (child == 0) {
        int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
        if (null >= 0)
            dup2(null, 2);
        execl(python, python, "-I", "-c",
              "import sys; sys.remote_exec(int(sys.argv[1]), sys.argv[2])", pid_text, script,
              (char *)NULL);
        _exit(127);
    }
    if (child < 0 || waitpid(child, &status, 0) < 0)
        return -1;
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

static int read_result(const char *dir, char *text, size_t size)
{
    char path[PATH_MAX];
    FILE *f;
    snprintf(path, sizeof path, "%s/result", dir);
    if (!(f = fopen(path, "re")))
        return -1;
    size_t n = fread(text, 1, size - 1, f);
    text[n] = '\0';
    fclose(f);
    return 0;
}

/* The script's result, waited for; -1 on time out, the script cancelled
 * (it will do nothing when it runs later). */
static int wait_result(const char *dir, char *text, size_t size)
{
    char path[PATH_MAX];
    struct timespec tick = {0, 10000000};
    int fd;
    for (int waited = 0; waited < WAIT_MS; waited += 10) {
        if (read_result(dir, text, size) == 0)
            return 0;
        nanosleep(&tick, NULL);
    }
    snprintf(path, sizeof path, "%s/cancel", dir);
    if ((fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) >= 0)
        close(fd);
    return read_result(dir, text, size); /* it ran meanwhile */
}

static void remove_files(const char *dir)
{
    static const char *const names[] = {"attach.py", "result", "result.tmp", "cancel"};
    char path[PATH_MAX];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        unlink(path);
    }
    rmdir(dir);
}

/* A folder the process can read the script from and write its result to:
 * made by us, handed to its user when we are root. */
static int make_folder(pid_t pid, char *dir, size_t size)
{
    char proc[64];
    struct stat st;
    snprintf(dir, size, "%s/vramtrace-attach-XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    snprintf(proc, sizeof proc, "/proc/%d", (int)pid);
    if (!mkdtemp(dir))
        return -1;
    if (stat(proc, &st) == 0 && st.st_uid != geteuid() && geteuid() == 0 &&
        chown(dir, st.st_uid, st.st_gid) != 0) {
        rmdir(dir);
        return -1;
    }
    return 0;
}

int vt_python_remote_call(pid_t pid, const char *library, const char *function, const char *arg,
                          int *result, char *why, size_t size)
{
    char python[PATH_MAX], dir[1024], text[256];
    int r = 1;
    char *end;
    if (interpreter_of(pid, python, sizeof python) < 0 || make_folder(pid, dir, sizeof dir) < 0)
        return 1;
    if (write_script(dir, library, function, arg) == 0 && send_script(python, pid, dir) == 0) {
        r = -1;
        if (wait_result(dir, text, sizeof text) < 0)
            snprintf(why, size,
                     "process %d's interpreter did not run the script within %d s (its main "
                     "thread is in a long call); nothing was done",
                     (int)pid, WAIT_MS / 1000);
        else if ((*result = (int)strtol(text, &end, 10)), end != text && !*end)
            r = 0;
        else
            snprintf(why, size, "process %d could not load libvramtrace.so: %s", (int)pid, text);
    }
    remove_files(dir);
    return r;
}
