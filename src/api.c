/* The functions behind include/vramtrace.h, exported under the same names so
 * the header's shim and ctypes find them with dlsym(RTLD_DEFAULT, ...). */
#include "records.h"
#include "tracer.h"
#include "track.h"

#include <stddef.h>
#include <stdint.h>

VT_EXPORT int vramtrace_active(void)
{
    return vt_tracing();
}

VT_EXPORT uint64_t vramtrace_live_bytes(void)
{
    return vt_tracing() ? vt_track_live_bytes() : 0;
}

VT_EXPORT uint64_t vramtrace_checkpoint(void)
{
    return vt_tracing() ? vt_track_checkpoint() : 0;
}

/* Walks the table under the lock: not from a signal handler that
 * interrupted a traced call on this thread (that would deadlock), which
 * gets 0. */
VT_EXPORT uint64_t vramtrace_leaked_since(uint64_t checkpoint)
{
    uint64_t bytes;
    if (!vt_enter())
        return 0;
    bytes = vt_track_bytes_since(checkpoint);
    vt_leave();
    return bytes;
}

VT_EXPORT void vramtrace_mark(const char *label)
{
    if (!vt_enter())
        return;
    vt_lock();
    if (vt_output_ready() == 0 && vt_rec_mark(label ? label : "") < 0)
        vt_disable_locked(NULL); /* the writer said why */
    vt_unlock();
    vt_leave();
}
