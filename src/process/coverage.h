/* SPDX-License-Identifier: MIT */
/* Coverage builds only (meson -Db_coverage=true, tests/coverage.sh): the
 * coverage runtime writes its counts at exit, from the library's
 * destructors; a fatal signal, _exit or an exec ends the process without
 * them. Where the dump is finished on such a way out, the counts are written
 * first, so the figure covers what the tests do run there. (The footer of a
 * normal exit is written after every destructor, the coverage runtime's
 * included: those lines stay uncounted.) A no-op otherwise. */
#ifndef VRAMTRACE_COVERAGE_H
#define VRAMTRACE_COVERAGE_H

#ifdef VT_COVERAGE
void __gcov_dump(void);
#define vt_coverage_write() __gcov_dump()
#else
#define vt_coverage_write() ((void)0)
#endif

#endif
