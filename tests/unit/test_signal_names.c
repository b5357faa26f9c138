/* SPDX-License-Identifier: MIT */
/* A signal's name in reports (tools/read/ending.c) is glibc's abbreviation
 * with SIG before it, "signal N" where glibc has none, without calling
 * sigabbrev_np (glibc 2.32): compared with it for every number here. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "ending.h"
#include "unit_check.h"

int main(void)
{
    for (int sig = -1; sig <= 2 * NSIG; sig++) {
        char got[16], want[16], what[64];
        const char *abbrev = sigabbrev_np(sig);
        if (abbrev)
            snprintf(want, sizeof(want), "SIG%s", abbrev);
        else
            snprintf(want, sizeof(want), "signal %d", sig);
        snprintf(what, sizeof(what), "signal %d: %s", sig, vt_signal_name(sig, got));
        CHECK(what, strcmp(got, want) == 0);
    }
    return unit_result("signal_names");
}
