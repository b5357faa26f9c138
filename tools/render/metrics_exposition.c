/* SPDX-License-Identifier: MIT */
/* The exposition of the processes' metrics: each family once, with every
 * process's samples under it (the format wants a family's samples
 * together). */
#include "openmetrics.h"
#include "process_metrics.h"

enum { PROCESS_LABELS = 5, DEVICE_LABELS = 7, SITE_LABELS = 9 };

/* host, job, process, pid, rank; then device, gpu_uuid; then site, api. */
static void labels_of(const struct vt_metrics_process *p, const struct vt_metrics_device *d,
                      const struct vt_metrics_site *s, struct vt_om_label *l)
{
    l[0] = (struct vt_om_label){"host", p->host};
    l[1] = (struct vt_om_label){"job", p->job};
    l[2] = (struct vt_om_label){"process", p->process};
    l[3] = (struct vt_om_label){"pid", p->pid};
    l[4] = (struct vt_om_label){"rank", p->rank};
    if (d) {
        l[5] = (struct vt_om_label){"device", d->device};
        l[6] = (struct vt_om_label){"gpu_uuid", d->uuid};
    }
    if (s) {
        l[7] = (struct vt_om_label){"site", s->site};
        l[8] = (struct vt_om_label){"api", s->api};
    }
}

/* A counter of each process. */
static void count_family(const struct vt_metrics_process *p, size_t n, FILE *out, const char *name,
                         const char *help, enum vt_metrics_count which)
{
    struct vt_om_label l[PROCESS_LABELS];
    vt_om_family(out, name, "counter", help);
    for (size_t i = 0; i < n; i++) {
        labels_of(&p[i], NULL, NULL, l);
        vt_om_sample_uint(out, name, l, PROCESS_LABELS, p[i].counts[which]);
    }
}

static void device_family(const struct vt_metrics_process *p, size_t n, FILE *out, const char *name,
                          const char *help, bool peak)
{
    struct vt_om_label l[DEVICE_LABELS];
    vt_om_family(out, name, "gauge", help);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].ndevices; k++) {
            const struct vt_metrics_device *d = &p[i].devices[k];
            labels_of(&p[i], d, NULL, l);
            vt_om_sample_uint(out, name, l, DEVICE_LABELS, peak ? d->peak_bytes : d->live_bytes);
        }
}

static void site_family(const struct vt_metrics_process *p, size_t n, FILE *out, const char *name,
                        const char *help, bool growth)
{
    struct vt_om_label l[SITE_LABELS];
    vt_om_family(out, name, "gauge", help);
    for (size_t i = 0; i < n; i++)
        for (size_t k = 0; k < p[i].nsites; k++) {
            const struct vt_metrics_site *s = &p[i].sites[k];
            labels_of(&p[i], &s->where, s, l);
            if (growth)
                vt_om_sample_double(out, name, l, SITE_LABELS, s->growth_bytes_per_second);
            else
                vt_om_sample_uint(out, name, l, SITE_LABELS, s->live_bytes);
        }
}

void vt_metrics_render(const struct vt_metrics_process *p, size_t n, FILE *out)
{
    struct vt_om_label l[PROCESS_LABELS];
    vt_om_family(out, "vramtrace_running", "gauge",
                 "1 while the traced process runs, 0 once it has ended");
    for (size_t i = 0; i < n; i++) {
        labels_of(&p[i], NULL, NULL, l);
        vt_om_sample_uint(out, "vramtrace_running", l, PROCESS_LABELS, p[i].running);
    }
    device_family(p, n, out, "vramtrace_device_live_bytes",
                  "Device memory the process holds now, by its traced calls (bytes)", false);
    device_family(p, n, out, "vramtrace_device_peak_bytes",
                  "The most device memory the process held at once so far (bytes)", true);
    count_family(p, n, out, "vramtrace_allocations_total",
                 "Successful device memory allocations so far", VT_METRICS_ALLOCATIONS);
    count_family(p, n, out, "vramtrace_frees_total", "Frees so far", VT_METRICS_FREES);
    count_family(p, n, out, "vramtrace_failed_allocations_total",
                 "Allocations the CUDA driver or runtime refused so far (out of memory and others)",
                 VT_METRICS_FAILED_ALLOCATIONS);
    count_family(p, n, out, "vramtrace_invalid_frees_total",
                 "Frees of pointers that were not allocated, or freed twice, so far",
                 VT_METRICS_INVALID_FREES);
    site_family(p, n, out, "vramtrace_site_live_bytes",
                "Device memory held now per call site (first frame of the program), the top "
                "sites by live bytes",
                false);
    site_family(
        p, n, out, "vramtrace_site_growth_bytes_per_second",
        "Growth of a call site's live bytes over the last interval, where it grows (else 0)", true);
    vt_om_end(out);
}
