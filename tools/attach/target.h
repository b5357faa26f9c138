/* SPDX-License-Identifier: MIT */
/* Another process seen from outside, without stopping it: its loaded
 * objects (/proc/PID/maps), the address there of a dynamic symbol of one
 * of them (read from the object's file), and its memory. */
#ifndef VT_ATTACH_TARGET_H
#define VT_ATTACH_TARGET_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* The loaded object of PID whose file name (after the last '/') starts
 * with PREFIX: its path into PATH and its load bias; 0, -1 when none is
 * loaded, -2 with errno set when the map cannot be read (EACCES: not
 * ours). */
int vt_target_object(pid_t pid, const char *prefix, char *path, size_t size, uint64_t *bias);

/* The address in PID of the dynamic symbol NAME (its default version)
 * of the object PREFIX; 0 when either is missing. */
uint64_t vt_target_symbol(pid_t pid, const char *prefix, const char *name);

/* Reads LEN bytes at ADDRESS of PID; 0 or -1. */
int vt_target_read(pid_t pid, uint64_t address, void *out, size_t len);

/* Writes LEN bytes at ADDRESS of PID (a page it may write); 0 or -1. */
int vt_target_write(pid_t pid, uint64_t address, const void *data, size_t len);

/* The object holding ADDRESS in PID: its file name (after the last '/')
 * into NAME, "" for anonymous memory; -1 when no mapping holds it. */
int vt_target_object_at(pid_t pid, uint64_t address, char *name, size_t size);

#endif
