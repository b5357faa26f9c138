/* The functions behind include/vramtrace.h, exported under the same names so
 * the header's shim and ctypes find them with dlsym(RTLD_DEFAULT, ...). */
#include "records.h"
#include "tracer.h"
#include "track.h"

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

VT_EXPORT uint64_t vramtrace_leaked_since(uint64_t checkpoint)
{
    return vt_tracing() ? vt_track_bytes_since(checkpoint) : 0;
}

VT_EXPORT void vramtrace_mark(const char *label)
{
    if (!vt_enter())
        return;
    vt_lock();
    if (vt_output_ready() == 0 && vt_rec_mark(label ? label : "") < 0)
        vt_disable_locked("cannot write the dump");
    vt_unlock();
    vt_leave();
}
