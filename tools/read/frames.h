/* The frames shown for a call site: the stack symbolized, inlined frames
 * expanded, and the CUDA runtime's insides trimmed off the top, so the
 * first frame is the caller of the outermost CUDA API function. */
#ifndef VT_FRAMES_H
#define VT_FRAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "dump_reader.h"
#include "symbolize.h"

struct vt_site {
    const struct vt_frame **frames;   /* innermost first, into the symbolizer's cache */
    size_t nframes;
    unsigned api;                     /* the API the program called */
    bool python_truncated;            /* outer Python frames were not recorded */
    size_t python_end;                /* index after the last Python frame (0: none) */
    uint64_t dropped;                 /* frames the tracer left out of a deeper stack */
    size_t cut_at;                    /* ... right before frames[cut_at] */
};

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

#endif
