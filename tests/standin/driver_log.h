/* The stand-in driver's call log: with STANDIN_CUDA_LOG=FILE, every entry
 * point the runtime reaches appends one line "NAME ARGS..." to FILE, as the
 * logging driver that observed NVIDIA's runtime did (shared/real-runtime.md);
 * tests/test_standin.py compares the stand-in runtime's calls with it. */
#ifndef STANDIN_DRIVER_LOG_H
#define STANDIN_DRIVER_LOG_H

__attribute__((visibility("hidden"), format(printf, 1, 2)))
void standin_log(const char *fmt, ...);

#endif
/* SPDX-License-Identifier: MIT */
