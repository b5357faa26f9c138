/* SPDX-License-Identifier: MIT */
/* The frames shown for a call site: the stack symbolized, inlined frames
 * expanded, and the CUDA runtime's insides trimmed off the top, so the
 * first frame is the caller of the outermost CUDA API function. */
#ifndef VT_FRAMES_H
#define VT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"
#include "frameworks.h"
#include "symbolize.h"

struct vt_site {
    const struct vt_frame **frames; /* innermost first, into the symbolizer's cache */
    size_t nframes;
    unsigned api;          /* the API the program called */
    bool python_truncated; /* outer Python frames were not recorded */
    size_t python_end;     /* index after the last Python frame (0: none) */
    uint64_t dropped;      /* frames the tracer left out of a deeper stack */
    size_t cut_at;         /* ... right before frames[cut_at] */
    /* A thread without Python frames of its own (PyTorch's autograd
     * engine): the Python frames of the thread it allocated for, as a site
     * of their own (NULL: none recorded). */
    struct vt_site *behalf;
};

/* Where the exports' stacks go on from a site's own frames into those of
 * the thread it allocated for (struct vt_site's behalf). */
#define VT_BEHALF_MARKER "[on its behalf, another thread]"

/* Fills SITE for STACK_ID (0 or unknown: no frames). RECORDED_API is the
 * api id from the event; a static runtime's cudaMalloc found among the
 * trimmed frames replaces a driver api the tracer saw. */
void vt_site_frames(struct vt_symbolizer *sym, const struct vt_dump *dump, uint64_t stack_id,
                    unsigned recorded_api, struct vt_site *site);
/* Every frame of STACK_ID, the CUDA libraries' own included (what
 * suppressions match against). */
void vt_site_all_frames(struct vt_symbolizer *sym, const struct vt_dump *dump, uint64_t stack_id,
                        struct vt_site *site);
void vt_site_free(struct vt_site *site);

/* Show the Python interpreter's own native frames beside the Python frames
 * (hidden by default). */
void vt_frames_show_interpreter(bool show);

/* A frame of the machinery around the program rather than of the program or
 * its libraries: the C library's process and thread start-up (std::thread's
 * too), the dynamic loader, pytest/pluggy/unittest (and xdist/execnet), and
 * the interpreter's own Python code (runpy, importlib, threading's
 * bootstrap, asyncio's loop, concurrent.futures and multiprocessing
 * workers). */
bool vt_frame_is_runtime(const struct vt_frame *f);

/* How text and HTML show stacks (JSON always has every frame, marked):
 * runtime frames folded into one "... N runtime frames" line and each run of
 * a framework's frames into one "... N PyTorch frames" line unless
 * ALL_FRAMES, and at most MAX_FRAMES frames of the program's own (0: all). */
void vt_frames_set_display(bool all_frames, size_t max_frames);
bool vt_frames_all(void);
size_t vt_frames_max(void);

/* What a renderer prints of SITE: frame I is shown unless folded or past
 * the cut. */
struct vt_frames_view {
    size_t runtime;    /* runtime frames folded (0: none folded) */
    size_t fold_at;    /* the "... N runtime frames" line goes before this frame */
    bool frameworks;   /* framework frames folded (the program has frames of its own) */
    size_t cut_at;     /* frames from here on are not shown (nframes: none cut) */
    size_t cut_hidden; /* how many of those would have been shown */
    size_t max_frames; /* the limit that cut them */
};
void vt_frames_view(const struct vt_site *site, struct vt_frames_view *view);
bool vt_frames_view_shows(const struct vt_site *site, const struct vt_frames_view *view, size_t i);
/* The folded frames of one framework that start at frame I: how many (0:
 * no folded run starts there), their framework into *FW. */
size_t vt_frames_view_run(const struct vt_site *site, const struct vt_frames_view *view, size_t i,
                          enum vt_framework *fw);

/* The first frame that is not a runtime frame (0 when all are): the frame
 * that names a call site in one line. */
size_t vt_site_first_own_frame(const struct vt_site *site);
/* A frame of the program's own: neither a runtime frame nor a framework's. */
bool vt_frame_is_users(const struct vt_frame *f);

#endif
