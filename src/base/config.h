/* SPDX-License-Identifier: MIT */
/* Options from the environment. */
#ifndef VRAMTRACE_CONFIG_H
#define VRAMTRACE_CONFIG_H

#include <stddef.h>

/* Writes the dump path for this process into OUT: VRAMTRACE_OUTPUT with
 * %p = pid, %r = rank (vt_config_rank; "norank" when none is set), %e = the program's name
 * (as in the default name) and %% = %, or vramtrace.<exe-name>.<pid>.vtr.
 * attempt > 0 asks for the attempt-th fresh alternative (before ".vtr":
 * ".<attempt>", from 16 on ".<pid>-<attempt - 15>").
 * A relative path is made absolute under the start directory (below).
 * Returns 0, or -1 when the pattern expands badly or does not fit. */
int vt_config_output_path(char *out, size_t size, unsigned attempt);

/* vramtrace attach: the dump is PATH (absolute; the CLI chose it), not
 * VRAMTRACE_OUTPUT's, which the running process never had. */
void vt_config_set_output(const char *path);

/* A relative dump path is under the directory the process started in
 * (called once at start; a fork child keeps its parent's). */
void vt_config_remember_start_dir(void);

/* The process's rank in a distributed job: the first of RANK,
 * OMPI_COMM_WORLD_RANK, PMI_RANK, SLURM_PROCID, LOCAL_RANK that is set (the
 * job-wide rank before the node-local one), made file-name safe.
 * Returns 0, or -1 (OUT empty) when none is set. */
int vt_config_rank(char *out, size_t size);

/* The NVTX range name whose ends are step markers (VRAMTRACE_NVTX_MARK,
 * which `vramtrace run --mark-on-nvtx NAME` sets), or NULL when unset or
 * empty: then nothing of NVTX is installed. */
const char *vt_config_nvtx_mark(void);

#endif
