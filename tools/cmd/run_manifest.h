/* SPDX-License-Identifier: MIT */
/* The list of dumps a `vramtrace run` tree wrote (src/dump/manifest.h): a file
 * run creates, names in VRAMTRACE_MANIFEST, and reads once the tree ends. */
#ifndef VT_RUN_MANIFEST_H
#define VT_RUN_MANIFEST_H

#include <stddef.h>

/* Creates the empty manifest (mode 0600) in $TMPDIR or /tmp; its path into
 * PATH (PATH_MAX). 0, or -1 after one line on stderr. */
int vt_manifest_create(char *path);

/* The dumps listed in PATH (each once, in the order they were created),
 * into *DUMPS / *N; then removes PATH. Free each and the array. */
void vt_manifest_take(const char *path, char ***dumps, size_t *n);

#endif
