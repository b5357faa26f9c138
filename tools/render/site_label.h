/* SPDX-License-Identifier: MIT */
/* One name per call site, for every view (site_label.c): the site's first
 * own frame, then as many callers as tell it apart from the other sites
 * named beside it ("get_buffer x.c:12 <- step x.c:19"). Text, HTML, watch,
 * check and the JSON's "label" (which the pytest plugin prints) use it. */
#ifndef VT_SITE_LABEL_H
#define VT_SITE_LABEL_H

#include <stddef.h>

#include "frames.h"

/* Frames a label may name at most. */
#define VT_LABEL_MAX_FRAMES 6

/* Into DEPTHS[i]: how many frames SITES[i]'s label needs so that no other of
 * the N sites has the same label (1 at least; identical stacks stay alike).
 * Two sites whose own frames are all alike (two allocations inside one
 * framework call: Adam's two moments) also name the frame, inside the
 * framework, where their stacks part: a depth of VT_LABEL_INNER + K names
 * all own frames and then frame K of the stack. */
#define VT_LABEL_INNER (VT_LABEL_MAX_FRAMES + 2)
void vt_label_depths(const struct vt_site *const *sites, size_t n, size_t *depths);

/* SITE's label of DEPTH frames into BUF (always terminated). */
void vt_site_label(const struct vt_site *site, size_t depth, char *buf, size_t len);

/* A framework's frame as the call the program made ("via" in labels, the
 * fold line of text): its name shortened, and where for a Python frame,
 * under its package ("linear (torch/nn/functional.py:1693)"). */
void vt_frame_call_name(const struct vt_frame *f, char *buf, size_t len);

/* The labels of N sites, each told apart from the others (free with
 * vt_site_labels_free). */
char **vt_site_labels(const struct vt_site *const *sites, size_t n);
void vt_site_labels_free(char **labels, size_t n);

/* A source path as labels and reports show it: under the working directory,
 * relative to it. */
const char *vt_display_path(const char *path);

#endif
