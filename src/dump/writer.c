/* SPDX-License-Identifier: MIT */
#include "writer.h"

#include "config.h"
#include "format.h"
#include "manifest.h"
#include "announce.h"
#include "output_path.h"
#include "proc_self.h"
#include "warn.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

/* The disk is the program's: the dump grows in steps of at most 4 MiB, and
 * never into the last part of its filesystem (its margin: 1% of its size,
 * 64 MiB to 1 GiB), where the program's own writes would then fail. */
#define CHUNK_MIN (1u << 20)
#define CHUNK_MAX (4u << 20)
#define MARGIN_MIN (64ull << 20)
#define MARGIN_MAX (1ull << 30)
/* Kept free at the end of what is mapped for the last record (END, a stop
 * said there), whatever made the dump stop growing. */
#define LAST_WORDS 64
#ifdef MADV_POPULATE_WRITE
#define VT_MADV_POPULATE_WRITE MADV_POPULATE_WRITE
#else
#define VT_MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif
/* Only this much of the file is mapped at a time: the part written before
 * is unmapped (it stays in the page cache), so the traced process's
 * resident memory does not grow with the dump. */
#define WINDOW (4u << 20)
/* Fresh names tried (vt_config_output_path): x.1.vtr ... x.15.vtr, then
 * x.PID-1.vtr ...: however many processes share one name, each finds one. */
#define MAX_ATTEMPTS 116
#define PREFETCH_AHEAD 256
/* Windows whose records a thread may still fill in: the current one and
 * those slid away while a free was in flight. */
#define HELD_WINDOWS 16

/* A window that holds can be given (vt_writer_hold): it is unmapped only
 * once every field held in it was filled in (HOLDS back to 0). */
struct window {
    uint8_t *map; /* NULL: this descriptor is unused */
    size_t len;
    unsigned holds;
};

static struct window windows[HELD_WINDOWS];

static struct {
    int fd;
    dev_t dev;    /* the file it was opened on: a number the program took over */
    ino_t ino;    /* (closefrom, dup2) is never used */
    uint8_t *map; /* the window: file bytes [window_start, window_end) */
    size_t window_start, window_end;
    struct window *held;     /* its descriptor; NULL: none was free, it gives no holds */
    size_t capacity;         /* file bytes reserved on disk */
    size_t used;             /* file bytes written */
    int broken;              /* could not grow: said so once, writes nothing more */
    int lost;                /* fd is the program's now, and the file is gone */
    unsigned reopened;       /* times the file was found again by its path */
    uint32_t version;        /* the header's format version */
    enum vt_stop_cause stop; /* why, where known (0: not stopped) */
    pid_t owner;             /* the process that opened it */
    char path[4096];
    char absolute[4096]; /* to open it again ("": the cwd was too long to say) */
} out = {.fd = -1};

int vt_writer_is_open(void)
{
    return out.fd >= 0;
}

int vt_writer_owned_here(void)
{
    return out.fd >= 0 && out.owner == getpid();
}

const char *vt_writer_path(void)
{
    return out.path;
}

/* The name asked for was taken (a stale dump, or a symlink: IS_LINK). The
 * dump goes elsewhere, and a reader of the old name would read the wrong
 * file: say where. */
static void say_fresh_name(const char *asked, int is_link)
{
    vt_warn("%s %s; writing this process's dump to %s instead", asked,
            is_link ? "is a symlink (not followed)" : "exists", out.path);
}

/* Skips a str field; 0 or -1. */
static int skip_str(const uint8_t **p, const uint8_t *end)
{
    uint64_t len;
    if (vt_get_varint(p, end, &len) < 0 || len > (uint64_t)(end - *p))
        return -1;
    *p += len;
    return 0;
}

/* Is the file at PATH this very process's dump from before an exec (same
 * pid and start time in its PROCESS record)? Then a fresh name for the new
 * program's dump is expected, and not worth a word. */
static int own_earlier_dump(const char *path)
{
    uint8_t buf[8192];
    int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
    if (fd >= 0)
        close(fd);
    if (n < VT_HEADER_LEN + 2 || memcmp(buf, VT_MAGIC, VT_MAGIC_LEN) ||
        buf[VT_HEADER_LEN] != VT_REC_PROCESS)
        return 0;
    const uint8_t *p = buf + VT_HEADER_LEN + 1, *end = buf + n;
    uint64_t len, pid, skip, argc, ticks;
    if (vt_get_varint(&p, end, &len) < 0 || len > (uint64_t)(end - p))
        return 0;
    end = p + len;
    if (vt_get_varint(&p, end, &pid) < 0 || pid != (uint64_t)getpid())
        return 0;
    for (int i = 0; i < 3; i++) /* ppid, start times */
        if (vt_get_varint(&p, end, &skip) < 0)
            return 0;
    if (skip_str(&p, end) < 0 || skip_str(&p, end) < 0 || vt_get_varint(&p, end, &argc) < 0)
        return 0;
    for (uint64_t i = 0; i < argc; i++)
        if (skip_str(&p, end) < 0)
            return 0;
    return skip_str(&p, end) == 0 && vt_get_varint(&p, end, &ticks) == 0 &&
           ticks == vt_proc_start_ticks();
}

static int create_file(void)
{
    char asked[sizeof out.path];
    int is_link = 0;
    for (unsigned attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
        if (vt_config_output_path(out.path, sizeof out.path, attempt) < 0) {
            vt_warn("VRAMTRACE_OUTPUT does not expand to a usable path (known: %s); "
                    "not tracing",
                    VT_OUTPUT_PATH_SEQUENCES);
            return -1;
        }
        int fd = open(out.path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            if (attempt && (is_link || !own_earlier_dump(asked)))
                say_fresh_name(asked, is_link);
            return fd;
        }
        if (errno != EEXIST && errno != ELOOP) {
            vt_warn("cannot create dump %s: %s; not tracing", out.path, strerror(errno));
            return -1;
        }
        if (!attempt) { /* O_EXCL fails with EEXIST on a symlink too */
            struct stat st;
            memcpy(asked, out.path, sizeof asked);
            is_link = lstat(out.path, &st) == 0 && S_ISLNK(st.st_mode);
        }
    }
    vt_warn("cannot find a fresh dump name near %s; not tracing", out.path);
    return -1;
}

/* FD moved to a number programs do not reuse first (they take the lowest
 * free one, or close 3..1023): three quarters up RLIMIT_NOFILE, at most
 * 2048. Close-on-exec. Where none is free, FD stays. */
static int move_high(int fd)
{
    struct rlimit limit;
    if (getrlimit(RLIMIT_NOFILE, &limit) != 0 || limit.rlim_cur < 16)
        return fd;
    rlim_t base = limit.rlim_cur == RLIM_INFINITY || limit.rlim_cur >= 4096
                      ? 2048
                      : limit.rlim_cur - limit.rlim_cur / 4;
    int high = fcntl(fd, F_DUPFD_CLOEXEC, (int)base);
    if (high < 0)
        return fd;
    close(fd); /* just opened by us: ours */
    return high;
}

/* Is out.fd still the dump? The program may have closed it (closefrom,
 * closerange) and opened its own file or socket under the same number, or
 * dup2'd onto it: then it is the program's, and never touched. fstat only
 * looks. */
static int fd_is_ours(void)
{
    struct stat st;
    return out.fd >= 0 && !out.lost && fstat(out.fd, &st) == 0 && st.st_dev == out.dev &&
           st.st_ino == out.ino;
}

/* A descriptor on PATH if it is the very dump (same device and inode), or -1. */
static int open_again(const char *path)
{
    struct stat st;
    if (!*path)
        return -1;
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return -1;
    if (fstat(fd, &st) == 0 && st.st_dev == out.dev && st.st_ino == out.ino)
        return move_high(fd);
    close(fd); /* ours: just opened */
    return -1;
}

/* Before each syscall on the dump's descriptor: 0 when out.fd is the dump,
 * found again by path if the program took its number (the old number is
 * left to the program); -1 when the file is gone too. Async-signal-safe. */
static int own_fd(void)
{
    if (fd_is_ours())
        return 0;
    if (out.lost)
        return -1;
    int fd = open_again(out.absolute);
    if (fd < 0)
        fd = open_again(out.path);
    if (fd < 0) {
        out.lost = 1; /* the mapping still takes the last words */
        return -1;
    }
    out.fd = fd;
    out.reopened++;
    return 0;
}

/* The part of the dump's filesystem left to the program. */
static unsigned long long disk_margin(const struct statvfs *vfs)
{
    unsigned long long size = (unsigned long long)vfs->f_blocks * vfs->f_frsize,
                       margin = size / 100;
    return margin < MARGIN_MIN ? MARGIN_MIN : margin > MARGIN_MAX ? MARGIN_MAX : margin;
}

/* Would GROW more bytes of the dump eat into the program's margin? */
static int disk_nearly_full(size_t grow)
{
    struct statvfs vfs;
    if (fstatvfs(out.fd, &vfs) != 0 || vfs.f_blocks == 0)
        return 0; /* cannot say (a filesystem without sizes): fallocate will */
    unsigned long long free_bytes = (unsigned long long)vfs.f_bavail * vfs.f_frsize;
    return free_bytes < grow + disk_margin(&vfs);
}

/* Why tracing stops, said once (stderr), kept for the END record. */
static int stop_tracing(enum vt_stop_cause cause, const char *what, int err)
{
    static const char *const causes[] = {
        [VT_STOP_DISK_FULL] = "its filesystem is nearly full (the rest is left to the program)",
        [VT_STOP_DUMP_LOST] = "the program took its descriptor and the file is gone",
        [VT_STOP_SIZE_LIMIT] = "the file size limit (ulimit -f) is reached",
        [VT_STOP_WRITE_ERROR] = "",
    };
    out.stop = cause;
    if (cause == VT_STOP_WRITE_ERROR)
        vt_warn("cannot %s dump %s: %s; tracing stops here", what, out.path, strerror(err));
    else
        vt_warn("dump %s: %s; tracing stops here", out.path, causes[cause]);
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

/* Reserves disk blocks up to NEED before any of them is written through
 * the mapping: writing a hole of a full disk would kill the process with
 * SIGBUS. Grows in steps of half the file, 1 to 4 MiB. */
static int reserve(size_t need)
{
    size_t step = out.capacity / 2;
    if (step < CHUNK_MIN)
        step = CHUNK_MIN;
    if (step > CHUNK_MAX)
        step = CHUNK_MAX;
    size_t capacity = out.capacity + step;
    while (capacity < need)
        capacity += step;
    if (own_fd() < 0)
        return stop_tracing(VT_STOP_DUMP_LOST, NULL, 0);
    if (beyond_file_size_limit(capacity))
        return stop_tracing(VT_STOP_SIZE_LIMIT, NULL, 0);
    if (disk_nearly_full(capacity - out.capacity))
        return stop_tracing(VT_STOP_DISK_FULL, NULL, 0);
    int err = posix_fallocate(out.fd, (off_t)out.capacity, (off_t)(capacity - out.capacity));
    if (err == EOPNOTSUPP || err == EINVAL)
        err = ftruncate(out.fd, (off_t)capacity) ? errno : 0;
    if (err == ENOSPC || err == EDQUOT)
        return stop_tracing(VT_STOP_DISK_FULL, NULL, 0);
    if (err)
        return stop_tracing(VT_STOP_WRITE_ERROR, "grow", err);
    out.capacity = capacity;
    return 0;
}

/* Unmaps every window slid away whose held fields were all filled in. */
static void unmap_filled_windows(void)
{
    for (int i = 0; i < HELD_WINDOWS; i++)
        if (windows[i].map && &windows[i] != out.held &&
            __atomic_load_n(&windows[i].holds, __ATOMIC_ACQUIRE) == 0) {
            munmap(windows[i].map, windows[i].len);
            windows[i].map = NULL;
        }
}

/* The current window is slid away: unmapped now, unless a thread will
 * still fill in a field of it (then once it has). */
static void let_go_of_window(void)
{
    struct window *held = out.held;
    out.held = NULL;
    if (!held && out.map)
        munmap(out.map, out.window_end - out.window_start);
    unmap_filled_windows();
    out.map = NULL;
}

/* A descriptor for the new window MAP, or NULL when every one is taken by
 * a window still held (its fields are then not held: they keep their 0). */
static struct window *held_window(uint8_t *map, size_t len)
{
    for (int i = 0; i < HELD_WINDOWS; i++)
        if (!windows[i].map) {
            windows[i] = (struct window){.map = map, .len = len};
            return &windows[i];
        }
    return NULL;
}

/* Maps the window that holds file bytes [out.used, NEED): from the page
 * where the next record starts, up to WINDOW long (more for a huge record),
 * within the part of the file reserved on disk. */
static int slide_window(size_t need)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE), start = out.used / page * page;
    if (need > out.capacity && reserve(need) < 0)
        return -1;
    size_t end = start + WINDOW < out.capacity ? start + WINDOW : out.capacity;
    if (end < need)
        end = out.capacity;
    if (own_fd() < 0)
        return stop_tracing(VT_STOP_DUMP_LOST, NULL, 0);
    void *map = mmap(NULL, end - start, PROT_READ | PROT_WRITE, MAP_SHARED, out.fd, (off_t)start);
    if (map == MAP_FAILED)
        return stop_tracing(VT_STOP_WRITE_ERROR, "map", errno);
    let_go_of_window();
    out.held = held_window(map, end - start);
    /* Fault the window in now, in one call, rather than one page at a time
     * as records reach it (best effort: older kernels lack this advice). */
    madvise(map, end - start, VT_MADV_POPULATE_WRITE);
    out.map = map;
    out.window_start = start;
    out.window_end = end;
    return 0;
}

/* Room for a record ending at NEED, LAST_WORDS kept free after it. */
static int make_room(size_t need)
{
    if (need + LAST_WORDS <= out.window_end)
        return 0;
    if (slide_window(need + LAST_WORDS) == 0)
        return 0;
    out.broken = 1;
    return -1;
}

/* out.path as an absolute path, to find the dump again after a chdir. */
static void remember_absolute_path(void)
{
    size_t len = 0, n = strlen(out.path) + 1;
    out.absolute[0] = '\0';
    if (out.path[0] != '/') {
        if (!getcwd(out.absolute, sizeof out.absolute))
            return;
        len = strlen(out.absolute);
        out.absolute[len++] = '/';
    }
    if (len + n <= sizeof out.absolute)
        memcpy(out.absolute + len, out.path, n);
    else
        out.absolute[0] = '\0';
}

/* The header, then the first page reserved and mapped (no margin taken
 * for it: the header's block holds it). A process killed in between
 * leaves a dump that ended before its first record, never zeros. */
static int start_file(uint32_t flags)
{
    int fd = out.fd;
    uint8_t header[VT_HEADER_LEN] = {0};
    struct stat st;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    memcpy(header, VT_MAGIC, VT_MAGIC_LEN);
    out.version = flags & VT_FLAG_AGGREGATED ? VT_VERSION_AGGREGATED : VT_VERSION_EVENTS;
    header[8] = (uint8_t)out.version;
    header[12] = flags & 0xff;
    if (beyond_file_size_limit(page)) { /* the kernel would send SIGXFSZ */
        errno = EFBIG;
        return -1;
    }
    if (fstat(fd, &st) != 0 || pwrite(fd, header, sizeof header, 0) != (ssize_t)sizeof header)
        return -1;
    int err = posix_fallocate(fd, 0, (off_t)page);
    if (err == EOPNOTSUPP || err == EINVAL)
        err = ftruncate(fd, (off_t)page) ? errno : 0;
    if (err) {
        errno = err;
        return -1;
    }
    out.dev = st.st_dev;
    out.ino = st.st_ino;
    out.map = NULL;
    out.window_start = out.window_end = 0;
    out.capacity = page;
    out.used = sizeof header;
    out.broken = out.lost = 0;
    out.reopened = 0;
    out.stop = 0;
    return make_room(out.used);
}

int vt_writer_open(uint32_t flags)
{
    int fd = create_file();
    if (fd < 0)
        return -1;
    out.fd = move_high(fd);
    remember_absolute_path();
    if (start_file(flags) < 0) {
        vt_warn("cannot write dump %s: %s; not tracing", out.path, strerror(errno));
        let_go_of_window();
        close(out.fd); /* ours: just made, still unknown to the program */
        unlink(out.path);
        out.fd = -1;
        return -1;
    }
    out.owner = getpid();
    vt_manifest_add(out.path);
    vt_announce_opened(out.path);
    return 0;
}

/* The record of TYPE whose payload (LEN bytes) is at PAYLOAD, HEAD_LEN
 * bytes after its start: type byte last, so that a reader never sees a
 * type byte whose record is not complete in the page cache. */
static inline void publish(uint8_t type, uint8_t *payload, size_t head_len, size_t len)
{
    uint8_t *at = payload - head_len;
    vt_put_varint(at + 1, len);
    __atomic_store_n(at, type, __ATOMIC_RELEASE);
    out.used += head_len + len;
    /* Records are small and land on fresh cache lines: fetch the line a few
     * records ahead now rather than stall on it then. */
    if (out.used + PREFETCH_AHEAD < out.window_end)
        __builtin_prefetch(payload + len + PREFETCH_AHEAD, 1);
}

/* The footer may use the room kept at the end of the mapping (the END
 * that says why tracing stopped, or the last one). */
static int room_for_footer(size_t need)
{
    return out.map && need <= out.window_end ? 0 : -1;
}

int vt_writer_record(uint8_t type, const uint8_t *payload, size_t len)
{
    uint8_t head[VT_VARINT_MAX];
    size_t head_len = 1 + vt_put_varint(head, len), need = out.used + head_len + len;
    bool footer_fits = type == VT_REC_END && room_for_footer(need) == 0;
    if (out.fd < 0 || (!footer_fits && (out.broken || make_room(need) < 0)))
        return -1;
    uint8_t *at = out.map + (out.used - out.window_start) + head_len;
    memcpy(at, payload, len);
    publish(type, at, head_len, len);
    return 0;
}

uint8_t *vt_writer_small_begin(void)
{
    if (out.fd < 0 || out.broken || make_room(out.used + 2 + VT_SMALL_PAYLOAD_MAX) < 0)
        return NULL;
    return out.map + (out.used - out.window_start) + 2;
}

void vt_writer_small_end(uint8_t type, uint8_t *payload, size_t len)
{
    publish(type, payload, 2, len);
}

unsigned vt_writer_stop_cause(void)
{
    return out.fd >= 0 ? out.stop : 0;
}

int vt_writer_raise_version(uint32_t version)
{
    uint8_t le[4] = {(uint8_t)version, (uint8_t)(version >> 8), (uint8_t)(version >> 16),
                     (uint8_t)(version >> 24)};
    if (out.fd < 0 || version <= out.version)
        return 0;
    if (own_fd() < 0 || pwrite(out.fd, le, sizeof le, VT_MAGIC_LEN) != (ssize_t)sizeof le)
        return -1;
    out.version = version;
    return 0;
}

unsigned vt_writer_reopened(void)
{
    return out.fd >= 0 ? out.reopened : 0;
}

/* A dump whose descriptor is gone and whose file cannot be found again
 * keeps its reserved tail: zeros, which a reader takes as the end. */
void vt_writer_close(void)
{
    if (out.fd < 0)
        return;
    let_go_of_window();
    if (own_fd() == 0) {
        if (ftruncate(out.fd, (off_t)out.used) != 0)
            vt_warn("cannot trim dump %s: %s", out.path, strerror(errno));
        close(out.fd);
    }
    out.fd = -1;
}

size_t vt_writer_mark(void)
{
    return out.used;
}

void vt_writer_hold(size_t at, struct vt_held_field *field)
{
    field->at = NULL;
    if (!out.held || out.broken || at < out.window_start || at >= out.used)
        return;
    field->at = out.map + (at - out.window_start);
    field->holds = &out.held->holds;
    __atomic_add_fetch(field->holds, 1, __ATOMIC_RELAXED);
}

/* Zeroes the records from MARK on, type byte first (a reader then sees the
 * end of the data there), and writes from MARK again. */
void vt_writer_rewind(size_t mark)
{
    static const uint8_t zeros[4096];
    if (out.fd < 0 || mark >= out.used)
        return;
    if (mark >= out.window_start && out.map) { /* the usual case: no descriptor needed */
        uint8_t *at = out.map + (mark - out.window_start);
        __atomic_store_n(at, 0, __ATOMIC_RELEASE);
        memset(at + 1, 0, out.used - mark - 1);
        out.used = mark;
        return;
    }
    if (own_fd() < 0) {
        out.broken = 1;
        return;
    }
    for (size_t at = mark; at < out.used;) {
        size_t n = at == mark ? 1 : out.used - at < sizeof zeros ? out.used - at : sizeof zeros;
        if (pwrite(out.fd, zeros, n, (off_t)at) != (ssize_t)n)
            break;
        at += n;
    }
    out.used = mark;
    if (mark < out.window_start && slide_window(mark + 1) < 0)
        out.broken = 1;
}

/* Only the forking thread lives in a child: no field is held here. */
void vt_writer_forget(void)
{
    for (int i = 0; i < HELD_WINDOWS; i++)
        if (windows[i].map && windows[i].map != out.map)
            munmap(windows[i].map, windows[i].len);
    if (out.map)
        munmap(out.map, out.window_end - out.window_start);
    memset(windows, 0, sizeof windows);
    out.map = NULL;
    out.held = NULL;
    if (fd_is_ours()) /* else the number is the program's now */
        close(out.fd);
    out.fd = -1;
    out.stop = 0;
    out.lost = 0;
    out.window_start = out.window_end = out.capacity = out.used = 0;
    out.broken = 0;
}
