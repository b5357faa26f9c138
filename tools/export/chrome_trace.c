/* SPDX-License-Identifier: MIT */
/* The Chrome trace event JSON's events, shared by the export's parts
 * (export_chrome.c, export_lifetimes.c). */
#include "chrome_trace.h"

void vt_chrome_begin_event(struct vt_chrome_trace *t, const char *name, const char *ph,
                           uint64_t tid, uint64_t time_ns)
{
    vt_json_begin_object(&t->j);
    vt_json_key(&t->j, "name");
    vt_json_string(&t->j, name);
    vt_json_key(&t->j, "ph");
    vt_json_string(&t->j, ph);
    vt_json_key(&t->j, "pid");
    vt_json_uint(&t->j, t->pid);
    vt_json_key(&t->j, "tid");
    vt_json_uint(&t->j, tid);
    vt_json_key(&t->j, "ts");
    vt_json_ns_as_us(&t->j, t->offset_ns + time_ns);
}

/* A metadata event of track TID: {"name": WHAT, "ph": "M", args {KEY: ...}}. */
static void thread_metadata(struct vt_chrome_trace *t, uint64_t tid, const char *what)
{
    vt_json_begin_object(&t->j);
    vt_json_key(&t->j, "name");
    vt_json_string(&t->j, what);
    vt_json_key(&t->j, "ph");
    vt_json_string(&t->j, "M");
    vt_json_key(&t->j, "pid");
    vt_json_uint(&t->j, t->pid);
    vt_json_key(&t->j, "tid");
    vt_json_uint(&t->j, tid);
    vt_json_key(&t->j, "args");
    vt_json_begin_object(&t->j);
}

void vt_chrome_thread_name(struct vt_chrome_trace *t, uint64_t tid, const char *name)
{
    thread_metadata(t, tid, "thread_name");
    vt_json_key(&t->j, "name");
    vt_json_string(&t->j, name);
    vt_json_end_object(&t->j);
    vt_json_end_object(&t->j);
    thread_metadata(t, tid, "thread_sort_index");
    vt_json_key(&t->j, "sort_index");
    vt_json_uint(&t->j, tid);
    vt_json_end_object(&t->j);
    vt_json_end_object(&t->j);
}

/* A process-wide instant ("i", scope "p"); its args object is left open. */
