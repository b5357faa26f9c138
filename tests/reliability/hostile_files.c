/* SPDX-License-Identifier: MIT */
/* A program that treats every descriptor above 2 as its own, as daemons
 * do, and writes files a test compares with an untraced run (its working
 * directory, stdout). argv[1]:
 *   closeall  close every descriptor from 3 up (a close loop), then open a
 *             file, an fopen'd log and a socket pair, allocate enough for
 *             the dump to grow, fork a child that writes into the file,
 *             try an exec that fails, and leak LEAK_BYTES;
 *   dup2      the same, but instead of closing, dup2 its own file onto
 *             every number it inherited (the dump's among them);
 *   dup2_move DIR  the same, and rename DIR to DIR.moved first (the dump,
 *             in DIR, cannot be found again by its path);
 *   fill      write FILL_BYTES into "data" after the allocations (the test
 *             runs it on a small filesystem);
 *   rmdir     allocate in a directory it made, leave it and remove it.
 * Prints what each write did; exit 0. */
#include <cuda_runtime_api.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "check.h"

#define PAIRS 150000 /* about 3 MiB of records: the dump grows and remaps */
#define LEAK_BYTES 7340033
#define FILL_BYTES (1536 * 1024)

static void pairs(int n)
{
    void *p = NULL;
    for (int i = 0; i < n; i++) {
        CHECK(cudaMalloc(&p, 512 + (size_t)(i % 5)));
        CHECK(cudaFree(p));
    }
}

static void close_all(void)
{
    long max = sysconf(_SC_OPEN_MAX);
    for (long fd = 3; fd < max && fd < 65536; fd++)
        close((int)fd);
}

/* Every open descriptor from 3 up but the 4 in OWN now holds OWN[0]. */
static void dup2_over_inherited(const int own[4])
{
    for (int n = 3; n < 4096; n++)
        if (n != own[0] && n != own[1] && n != own[2] && n != own[3] && fcntl(n, F_GETFD) >= 0)
            dup2(own[0], n);
}

static void say(const char *what, long got)
{
    printf("%s %ld\n", what, got);
    fflush(stdout);
}

/* Writes LINE into FD, the log and the socket; says how many bytes went. */
static void write_all(int fd, FILE *log, int sock, const char *line)
{
    say("file", (long)write(fd, line, strlen(line)));
    say("log", (long)fputs(line, log) >= 0 ? (long)strlen(line) : -1L);
    fflush(log);
    say("socket", (long)send(sock, line, strlen(line), MSG_NOSIGNAL));
}

static void hostile(int use_dup2, const char *move)
{
    void *leak = NULL;
    int sv[2];
    char moved[4096];
    pairs(10); /* the dump exists */
    if (move) {
        snprintf(moved, sizeof moved, "%s.moved", move);
        say("rename", rename(move, moved));
    }
    if (!use_dup2)
        close_all();
    int fd = open("data", O_RDWR | O_CREAT | O_TRUNC, 0644);
    FILE *log = fopen("log", "w");
    say("socketpair", socketpair(AF_UNIX, SOCK_STREAM, 0, sv));
    if (use_dup2)
        dup2_over_inherited((int[4]){fd, fileno(log), sv[0], sv[1]});
    write_all(fd, log, sv[0], "before the allocations\n");
    pairs(PAIRS);
    write_all(fd, log, sv[0], "after the allocations\n");
    pid_t child = fork();
    if (child == 0) {
        write_all(fd, log, sv[0], "from the child\n");
        pairs(1000);
        _exit(0);
    }
    int status;
    waitpid(child, &status, 0);
    say("child", status);
    char *argv[] = {"/nonexistent/program", NULL};
    execv(argv[0], argv);
    say("exec failed", errno == ENOENT);
    pairs(PAIRS / 4);
    CHECK(cudaMalloc(&leak, LEAK_BYTES));
    vt_sink = leak;
    write_all(fd, log, sv[0], "at the end\n");
    char got[4096];
    ssize_t n = recv(sv[1], got, sizeof got, MSG_DONTWAIT);
    say("received", (long)n);
    say("close", close(fd));
    fclose(log);
    struct stat st;
    say("data size", stat("data", &st) == 0 ? (long)st.st_size : -1L);
}

static void fill(void)
{
    static char block[64 * 1024];
    void *leak = NULL;
    pairs(PAIRS);
    CHECK(cudaMalloc(&leak, LEAK_BYTES));
    vt_sink = leak;
    memset(block, 'x', sizeof block);
    int fd = open("data", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    long written = 0;
    for (ssize_t n = 1; written < FILL_BYTES && n > 0; written += n > 0 ? n : 0)
        n = write(fd, block, sizeof block);
    say("written", written);
    say("close", close(fd));
}

static void remove_own_dir(void)
{
    void *leak = NULL;
    say("mkdir", mkdir("work", 0755));
    say("chdir", chdir("work"));
    pairs(100);
    CHECK(cudaMalloc(&leak, LEAK_BYTES));
    vt_sink = leak;
    say("chdir ..", chdir(".."));
    say("rmdir", rmdir("work") == 0 ? 0 : errno);
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "";
    if (!strcmp(mode, "closeall") || !strcmp(mode, "dup2"))
        hostile(!strcmp(mode, "dup2"), NULL);
    else if (!strcmp(mode, "dup2_move") && argc > 2)
        hostile(1, argv[2]);
    else if (!strcmp(mode, "fill"))
        fill();
    else if (!strcmp(mode, "rmdir"))
        remove_own_dir();
    else
        return 2;
    return 0;
}
