#include "writer.h"

#include "config.h"
#include "format.h"
#include "tracer.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#define CHUNK_MIN (1u << 20)
#ifdef MADV_POPULATE_WRITE
#define VT_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define VT_MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
#define CHUNK_MAX (64u << 20)
#define MAX_ATTEMPTS 100
#define PREFETCH_AHEAD 256

static struct {
    int fd;
    uint8_t *map;
    size_t capacity;
    size_t used;
    int broken;        /* could not grow: said so once, writes nothing more */
    char path[4096];
} out = {.fd = -1};

int vt_writer_is_open(void)
{
    return out.fd >= 0;
}

const char *vt_writer_path(void)
{
    return out.path;
}

static int create_file(void)
{
    for (unsigned attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (vt_config_output_path(out.path, sizeof out.path, attempt) < 0) {
            vt_warn("VRAMTRACE_OUTPUT does not expand to a usable path (only %%p and %%%% are "
                    "known); not tracing");
            return -1;
        }
        int fd = open(out.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0)
            return fd;
        if (errno != EEXIST && errno != ELOOP) {
            vt_warn("cannot create dump %s: %s; not tracing", out.path, strerror(errno));
            return -1;
        }
    }
    vt_warn("cannot find a fresh dump name near %s; not tracing", out.path);
    return -1;
}

/* Beyond RLIMIT_FSIZE the kernel would kill the program with SIGXFSZ for
 * our file: treat the limit as a full disk instead. */
static int beyond_file_size_limit(size_t size)
{
    struct rlimit limit;
    return getrlimit(RLIMIT_FSIZE, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY &&
           size > limit.rlim_cur;
}

/* Reserves disk blocks before the mapping is written: writing a hole of a
 * full disk through a mapping would kill the process with SIGBUS. */
static int grow(size_t need)
{
    size_t step = out.capacity / 2;
    if (step < CHUNK_MIN)
        step = CHUNK_MIN;
    if (step > CHUNK_MAX)
        step = CHUNK_MAX;
    size_t capacity = out.capacity + step;
    while (capacity < need)
        capacity += step;
    int err = beyond_file_size_limit(capacity) ? EFBIG
              : posix_fallocate(out.fd, (off_t)out.capacity, (off_t)(capacity - out.capacity));
    if (err == EOPNOTSUPP || err == EINVAL)
        err = ftruncate(out.fd, (off_t)capacity) ? errno : 0;
    if (err) {
        vt_warn("cannot grow dump %s: %s; tracing stops here", out.path, strerror(err));
        out.broken = 1;
        return -1;
    }
    void *map = out.map ? mremap(out.map, out.capacity, capacity, MREMAP_MAYMOVE)
                        : mmap(NULL, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, out.fd, 0);
    if (map == MAP_FAILED) {
        vt_warn("cannot map dump %s: %s; tracing stops here", out.path, strerror(errno));
        out.broken = 1;
        return -1;
    }
    /* Fault the new pages in now, in one call, rather than one by one as
     * records reach them (best effort: older kernels lack this advice). */
    madvise((uint8_t *)map + out.capacity, capacity - out.capacity, VT_MADV_POPULATE_WRITE);
    out.map = map;
    out.capacity = capacity;
    return 0;
}

int vt_writer_open(uint32_t flags)
{
    uint8_t header[VT_HEADER_LEN] = {0};
    out.fd = create_file();
    if (out.fd < 0)
        return -1;
    out.map = NULL;
    out.capacity = out.used = 0;
    out.broken = 0;
    if (grow(VT_HEADER_LEN) < 0) {
        close(out.fd);
        unlink(out.path);
        out.fd = -1;
        return -1;
    }
    memcpy(header, VT_MAGIC, VT_MAGIC_LEN);
    header[8] = VT_VERSION & 0xff;
    header[9] = (VT_VERSION >> 8) & 0xff;
    header[12] = flags & 0xff;
    memcpy(out.map, header, sizeof header);
    out.used = sizeof header;
    return 0;
}

int vt_writer_record(uint8_t type, const uint8_t *payload, size_t len)
{
    uint8_t head[1 + VT_VARINT_MAX];
    size_t head_len;
    if (out.fd < 0 || out.broken)
        return -1;
    head[0] = type;
    head_len = 1 + vt_put_varint(head + 1, len);
    if (out.used + head_len + len > out.capacity && grow(out.used + head_len + len) < 0)
        return -1;
    /* Payload first, type byte last: a reader never sees a type byte whose
     * record is not complete in the page cache. */
    memcpy(out.map + out.used + 1, head + 1, head_len - 1);
    memcpy(out.map + out.used + head_len, payload, len);
    __atomic_store_n(out.map + out.used, type, __ATOMIC_RELEASE);
    out.used += head_len + len;
    /* Records are small and land on fresh cache lines: fetch the line a few
     * records ahead now rather than stall on it then. */
    if (out.used + PREFETCH_AHEAD < out.capacity)
        __builtin_prefetch(out.map + out.used + PREFETCH_AHEAD, 1);
    return 0;
}

void vt_writer_close(void)
{
    if (out.fd < 0)
        return;
    munmap(out.map, out.capacity);
    if (ftruncate(out.fd, (off_t)out.used) != 0)
        vt_warn("cannot trim dump %s: %s", out.path, strerror(errno));
    close(out.fd);
    out.fd = -1;
    out.map = NULL;
}

void vt_writer_forget(void)
{
    if (out.map)
        munmap(out.map, out.capacity);
    if (out.fd >= 0)
        close(out.fd);
    out.fd = -1;
    out.map = NULL;
    out.capacity = out.used = out.broken = 0;
}
