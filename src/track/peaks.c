/* SPDX-License-Identifier: MIT */
#include "peaks.h"

#include <string.h>

/* A few slots, searched linearly: a test suite takes one checkpoint per
 * test, and every allocation and free of the process visits the slots. */
static struct slot {
    bool used;
    uint64_t seq;   /* the checkpoint: allocations numbered above it count */
    uint64_t order; /* when it was followed, to forget the oldest */
    uint64_t live, peak;
    /* the allocation that raised the peak last, and the peak before it: a
     * segment of a framework's cache is known as one only after its call */
    uint64_t raised_by, peak_before;
} slots[VT_PEAK_CHECKPOINTS];
static uint64_t followed;
static unsigned nused;

static struct slot *find(uint64_t seq)
{
    for (unsigned i = 0; i < VT_PEAK_CHECKPOINTS; i++)
        if (slots[i].used && slots[i].seq == seq)
            return &slots[i];
    return NULL;
}

static struct slot *free_or_oldest(void)
{
    struct slot *oldest = &slots[0];
    for (unsigned i = 0; i < VT_PEAK_CHECKPOINTS; i++) {
        if (!slots[i].used)
            return &slots[i];
        if (slots[i].order < oldest->order)
            oldest = &slots[i];
    }
    return oldest;
}

void vt_peaks_follow(uint64_t seq)
{
    struct slot *s = find(seq); /* taken again with no allocation between: the same */
    if (s)
        return;
    s = free_or_oldest();
    nused += !s->used;
    *s = (struct slot){.used = true, .seq = seq, .order = ++followed};
}

/* The slots, from *I on, of the checkpoints taken before allocation SEQ. */
static struct slot *following(unsigned *i, uint64_t seq)
{
    for (; *i < VT_PEAK_CHECKPOINTS; (*i)++)
        if (slots[*i].used && seq > slots[*i].seq)
            return &slots[(*i)++];
    return NULL;
}

void vt_peaks_change(uint64_t seq, int64_t delta)
{
    struct slot *s;
    if (!nused)
        return;
    for (unsigned i = 0; (s = following(&i, seq));) {
        s->live += (uint64_t)delta;
        if (s->live > s->peak) {
            if (s->raised_by != seq)
                s->peak_before = s->peak;
            s->raised_by = seq;
            s->peak = s->live;
        }
    }
}

void vt_peaks_unsegment(uint64_t seq, uint64_t size)
{
    struct slot *s;
    if (!nused)
        return;
    for (unsigned i = 0; (s = following(&i, seq));) {
        s->live -= size;
        if (s->raised_by == seq) /* the segment alone raised it: undone */
            s->peak = s->peak_before > s->live ? s->peak_before : s->live;
    }
}

bool vt_peaks_since(uint64_t seq, uint64_t *peak)
{
    const struct slot *s = find(seq);
    if (s)
        *peak = s->peak;
    return s != NULL;
}

void vt_peaks_reset(void)
{
    memset(slots, 0, sizeof slots);
    followed = 0;
    nused = 0;
}
