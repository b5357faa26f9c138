/* SPDX-License-Identifier: MIT */
#include "thread_names.h"

#include "records.h"
#include "tracing.h"

#include <sys/prctl.h>

static unsigned generation = 1; /* of the dump; changed under the tracer lock */

int vt_thread_name_note(void)
{
    char name[17] = "";
    if (vt_thread_state.name_generation == generation)
        return 0;
    vt_thread_state.name_generation = generation;
    if (prctl(PR_GET_NAME, name) != 0)
        return 0;
    return vt_rec_thread(vt_tid(), name);
}

void vt_thread_names_reset(void)
{
    generation++;
}
