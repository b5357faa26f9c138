/* SPDX-License-Identifier: MIT */
/* The one list of what the CLI accepts and answers (cli_table.c): every
 * command, its options, the environment variables and the exit statuses.
 * `vramtrace --help` and each `vramtrace COMMAND --help` are printed from
 * it; tests/test_docs.py checks that the man page and docs/cli.md name
 * every entry. */
#ifndef VT_CLI_TABLE_H
#define VT_CLI_TABLE_H

#include <stdio.h>

/* COMMAND's help: its synopsis, ABOUT (what it does, in the command's own
 * words), its options and exit statuses. */
void vt_cli_help(const char *command, const char *about, FILE *out);
/* `vramtrace --help`: the commands, the options, the environment variables
 * and every exit status. */
void vt_cli_main_help(FILE *out);
/* The command nearest to NAME by edit distance, or NULL when none is near. */
const char *vt_cli_nearest_command(const char *name);

#endif
