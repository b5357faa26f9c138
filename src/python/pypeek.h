/* SPDX-License-Identifier: MIT */
/* Copies of this process's memory that another thread may free or unmap
 * meanwhile: process_vm_readv on our own process either copies the bytes
 * or fails, where a plain load of an unmapped page would crash the program.
 * A system call per batch of pieces: for the rare reads of other threads'
 * state, never for the hot path. */
#ifndef VRAMTRACE_PYPEEK_H
#define VRAMTRACE_PYPEEK_H

#include <stddef.h>

/* 0 when all N bytes at AT were copied into INTO; -1 when any of them
 * could not be read (or the system refuses such reads: never tried again). */
int vt_peek(const void *at, void *into, size_t n);

struct vt_peek_piece {
    const void *at;
    void *into;
    size_t size;
};

/* Copies the N pieces with as few system calls as it can; how many of
 * them, from the first, were copied whole (N: all). */
size_t vt_peek_many(const struct vt_peek_piece *pieces, size_t n);

#endif
