/* SPDX-License-Identifier: MIT */
/* Belief: what the reader accepts of one record. Every field is decoded
 * against the bytes really there (src/format.h's layouts), then checked
 * for what the format cannot say: ids defined before use, kinds in range,
 * times on the process's own clock. A dump is evidence: a record it
 * disbelieves costs that record (dropped, or the doubtful value clamped),
 * never the report, with one warning naming the record, its offset and
 * what was done. */
#ifndef VT_DUMP_BELIEF_H
#define VT_DUMP_BELIEF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "dump_framing.h"
#include "dump_model.h"

/* The reader's state between records. */
struct vt_belief {
    const char *path;
    struct vt_dump *dump;           /* the model so far (read only here) */
    const struct vt_framer *framer; /* past the record being believed: for looking ahead */
    FILE *warnings;                 /* NULL: count, say nothing */
    uint64_t time_ns;               /* the process's clock at the last timed record */
    uint64_t prev_address;          /* ALLOC/FREE addresses are deltas */
    /* the next timed record after the position looked ahead from */
    size_t ahead_offset;
    bool ahead_found;
    uint64_t ahead_time_ns;
};

/* A record as believed, in the reader's public types (dump_reader.h); what
 * building does not take, vt_believed_free releases. */
struct vt_believed {
    unsigned type; /* enum vt_record_type */
    union {
        struct vt_process process;
        struct vt_module module;
        struct vt_dump_stack_record *stack; /* STACK and PYSTACK */
        struct vt_dump_pyframe *pyframe;
        struct vt_dump_alloc alloc;
        struct vt_free_event free;
        struct vt_failed_event failed;
        struct vt_mark_event mark; /* label allocated */
        struct {
            unsigned reason;
            int signal, status;
            unsigned reopened; /* times the dump was found again by its path */
        } end;
        struct vt_sample_event sample;      /* arrays allocated */
        struct vt_sites_event sites;        /* array allocated */
        struct vt_totals_event totals;      /* array allocated */
        struct vt_thread_name thread;       /* name allocated */
        struct vt_framework_seen framework; /* strings allocated */
        struct vt_attach_info *attach;      /* allocated */
        struct vt_device_info device;
        struct vt_device_usage_event device_usage;
        struct vt_bad_free_event bad_free;
        struct vt_py_finalizing_event py_finalizing;
        struct vt_cache_segment_event cache_segment;
        size_t module_unload; /* the index in dump->modules of the module unloaded */
    } as;
};

/* Believes the record FRAME. True when there is something to build (OUT);
 * false for a record dropped (said on b->warnings) or of a type this
 * version does not know (skipped by its length, as the format says). */
bool vt_believe(struct vt_belief *b, const struct vt_frame *frame, struct vt_believed *out);
void vt_believed_free(struct vt_believed *rec);

/* A part of the file that cannot be read at all (a record length that is
 * no varint: nothing after it can be found), counted and said as a record
 * disbelieved. */
void vt_disbelieve_rest(struct vt_belief *b, size_t offset, const char *what);

/* Warnings are said for the first VT_WARNINGS_SHOWN records disbelieved;
 * at the end of a read, one line says how many more there were. */
#define VT_WARNINGS_SHOWN 20
void vt_belief_summary(const struct vt_belief *b);

#endif
