/* SPDX-License-Identifier: MIT */
/* The subcommands and what they share. */
#ifndef VT_CLI_H
#define VT_CLI_H

/* Exit statuses. */
enum {
    VT_EXIT_OK = 0,
    VT_EXIT_ERROR = 1,         /* an unreadable dump, a missing library */
    VT_EXIT_USAGE = 2,         /* bad command line */
    VT_EXIT_LEAK = 23,         /* --fail-on-leak, as LeakSanitizer (--error-exitcode) */
    VT_EXIT_NO_DATA = 24,      /* nothing to judge: no dump, no successful allocation,
                                 * no process that ended on its own */
    VT_EXIT_EXEC_FAILED = 127, /* the command could not be started */
};

int vt_cmd_report(int argc, char **argv);
int vt_cmd_run(int argc, char **argv);
int vt_cmd_check(int argc, char **argv);
int vt_cmd_timeline(int argc, char **argv);
int vt_cmd_export(int argc, char **argv);
int vt_cmd_gpus(int argc, char **argv);
int vt_cmd_watch(int argc, char **argv);
int vt_cmd_lib(int argc, char **argv);
int vt_cmd_attach(int argc, char **argv);
int vt_cmd_detach(int argc, char **argv);

/* libvramtrace.so's path (malloc'd), as run preloads it; NULL when missing. */
char *vt_find_library(void);

#endif
