/* SPDX-License-Identifier: MIT */
/* Symbolizing return addresses offline with libdwfl, from the module list
 * recorded in the dump: function, file, line and inlined frames. */
#ifndef VT_SYMBOLIZE_H
#define VT_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"

struct vt_frame {
    const char *function;           /* bare symbol name, or NULL */
    const char *file;               /* or NULL */
    unsigned line;                  /* 0 = unknown */
    const char *module;             /* full path as recorded, or NULL */
    const struct vt_module *loaded; /* that module's record, or NULL */
    uint64_t offset;                /* address - module load bias, when module is set */
    uint64_t address;               /* the return address */
    bool inlined;                   /* a function inlined into the next frame */
    bool python;                    /* a Python frame: module "python", no address */
};

struct vt_symbolizer;

/* Symbol servers (debuginfod) are asked for debug information only after
 * this (--debuginfod) or with VRAMTRACE_DEBUGINFOD=1; otherwise the first
 * symbolizer ignores DEBUGINFOD_URLS: nothing leaves the machine. */
void vt_symbolize_allow_debuginfod(void);

struct vt_symbolizer *vt_symbolizer_new(const struct vt_dump *dump);
void vt_symbolizer_free(struct vt_symbolizer *s);

/* The frames for one return address of a stack read in module epoch EPOCH
 * (vt_stack.module_epoch), innermost (inlined) first; at least one. Owned by
 * the symbolizer's cache. */
size_t vt_symbolize(struct vt_symbolizer *s, uint64_t address, uint64_t epoch,
                    const struct vt_frame **frames);

/* The frame for a Python location (PYFRAME id), owned by the symbolizer. */
const struct vt_frame *vt_symbolize_python(struct vt_symbolizer *s,
                                           const struct vt_dump_pyframe *py);

#endif
