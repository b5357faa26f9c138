/* Coverage builds only (meson -Db_coverage=true, tests/coverage.sh): the
 * coverage runtime writes its counts from the library's destructors, but the
 * footer is written after every destructor, and a fatal signal kills the
 * process before any. Around such code the counts are taken again (added
 * to the file), so the figure covers what the tests do run. No-ops otherwise. */
#ifndef VRAMTRACE_COVERAGE_H
#define VRAMTRACE_COVERAGE_H

#ifdef VT_COVERAGE
void __gcov_reset(void);
void __gcov_dump(void);
/* After the runtime wrote its counts: count anew from here. */
#define vt_coverage_after_exit_begin() __gcov_reset()
/* Write what was counted since (or everything, when nothing was written yet). */
#define vt_coverage_write() __gcov_dump()
#else
#define vt_coverage_after_exit_begin() ((void)0)
#define vt_coverage_write() ((void)0)
#endif

#endif
