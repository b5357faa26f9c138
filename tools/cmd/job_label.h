/* SPDX-License-Identifier: MIT */
/* The scheduler's name for the job a running process belongs to, from its
 * environment: Slurm's job id, or a Kubernetes pod's name. */
#ifndef VT_JOB_LABEL_H
#define VT_JOB_LABEL_H

#include <sys/types.h>

/* SLURM_JOB_ID, else POD_NAME, else HOSTNAME when KUBERNETES_SERVICE_HOST
 * is set (a pod's hostname is its name), from /proc/PID/environ (empty
 * values count as unset): a new string, or NULL when none is set or the
 * environment cannot be read (another user's process, one that has ended). */
char *vt_job_label(pid_t pid);

#endif
