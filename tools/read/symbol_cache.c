/* SPDX-License-Identifier: MIT */
/* A file of the cache: "VTSYMC1\n", a 64-bit FNV-1a checksum of the rest,
 * then the CLI's build, the module's build id, its debug source, and the
 * entries: offset, frame count, and per frame its line, marks (inlined,
 * has a function, has a file) and those names. Numbers are the machine's
 * own (the CLI's build is in the file); strings a 32-bit length, the
 * bytes, a NUL. The file is read whole and believed whole or not at all. */
#include "symbol_cache.h"

#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <uthash.h>

#include "xalloc.h"

static const char magic[8] = {'V', 'T', 'S', 'Y', 'M', 'C', '1', '\n'};
#define HEADER (sizeof magic + sizeof(uint64_t)) /* the magic and the checksum */
#define FRAMES_MAX 4096                          /* inlined frames of one address */
enum { INLINED = 1, HAS_FUNCTION = 2, HAS_FILE = 4 };

struct cached {
    uint64_t offset;
    size_t n;
    struct vt_cached_frame *frames;
    UT_hash_handle hh;
};

struct added {
    uint64_t offset;
    struct vt_cached_frame *frames;
    size_t n;
};

struct vt_symbol_cache {
    char *path;
    unsigned char *id;
    size_t id_len;
    char *debug_source;
    char *bytes; /* the file read: the cached strings point into it */
    struct cached *table;
    struct added *added;
    size_t nadded;
    bool used; /* a frame was found: the file was of use (its age is renewed) */
};

/* ---- where, and which build of the CLI ---- */

/* The cache's directory (malloc'd), or NULL when it is off. */
static char *cache_dir(void)
{
    const char *set = getenv("VRAMTRACE_SYMBOL_CACHE"), *base = getenv("XDG_CACHE_HOME");
    char *dir = NULL;
    if (set && *set)
        return strcmp(set, "0") ? strdup(set) : NULL;
    if (base && base[0] == '/') {
        if (asprintf(&dir, "%s/vramtrace/symbols", base) < 0)
            return NULL;
    } else if ((base = getenv("HOME")) && base[0] == '/') {
        if (asprintf(&dir, "%s/.cache/vramtrace/symbols", base) < 0)
            return NULL;
    }
    return dir;
}

/* The running CLI's build id as hex into OUT (empty when it has none). */
static int note_build_id(struct dl_phdr_info *info, size_t size, void *out)
{
    (void)size;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type != PT_NOTE)
            continue;
        const char *p = (const char *)(info->dlpi_addr + ph->p_vaddr), *end = p + ph->p_memsz;
        while (p + sizeof(ElfW(Nhdr)) <= end) {
            const ElfW(Nhdr) *n = (const void *)p;
            const char *desc = p + sizeof *n + ((n->n_namesz + 3) & ~3u);
            if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 && !memcmp(n + 1, "GNU", 4) &&
                desc + n->n_descsz <= end && n->n_descsz <= 64) {
                for (unsigned j = 0; j < n->n_descsz; j++)
                    sprintf((char *)out + 2 * j, "%02x", (unsigned char)desc[j]);
                return 1;
            }
            p = desc + ((n->n_descsz + 3) & ~3u);
        }
    }
    return 1; /* the first object is the executable */
}

/* What a cached frame depends on of the CLI: its version and its build. */
static const char *cli_build(void)
{
    static char build[160];
    if (!build[0]) {
        char id[129] = "";
        dl_iterate_phdr(note_build_id, id);
        snprintf(build, sizeof build, "%s %s", VT_CLI_VERSION, id);
    }
    return build;
}

static char *file_of(const char *dir, const unsigned char *id, size_t len)
{
    char *path = vt_xcalloc(strlen(dir) + 2 * len + sizeof "/.vtsym", 1);
    char *p = path + sprintf(path, "%s/", dir);
    for (size_t i = 0; i < len; i++)
        p += sprintf(p, "%02x", id[i]);
    strcpy(p, ".vtsym");
    return path;
}

static uint64_t checksum(const char *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 0x100000001b3u;
    return h;
}

/* ---- reading ---- */

struct cursor {
    const char *p, *end;
    bool bad;
};

static void take(struct cursor *c, void *out, size_t n)
{
    if (c->bad || (size_t)(c->end - c->p) < n) {
        c->bad = true;
        memset(out, 0, n);
        return;
    }
    memcpy(out, c->p, n);
    c->p += n;
}

/* A string of the file (NUL-terminated there), or NULL when damaged. */
static const char *take_string(struct cursor *c)
{
    uint32_t len;
    take(c, &len, sizeof len);
    if (c->bad || (size_t)(c->end - c->p) <= len || c->p[len] || memchr(c->p, 0, len)) {
        c->bad = true;
        return NULL;
    }
    const char *s = c->p;
    c->p += len + 1;
    return s;
}

static bool take_frame(struct cursor *c, struct vt_cached_frame *f)
{
    uint32_t line;
    unsigned char marks;
    take(c, &line, sizeof line);
    take(c, &marks, 1);
    *f = (struct vt_cached_frame){.line = line, .inlined = marks & INLINED};
    if (marks & HAS_FUNCTION)
        f->function = take_string(c);
    if (marks & HAS_FILE)
        f->file = take_string(c);
    return !c->bad && marks < 8;
}

static void free_table(struct vt_symbol_cache *sc)
{
    struct cached *e, *tmp;
    HASH_ITER(hh, sc->table, e, tmp) {
        HASH_DEL(sc->table, e);
        free(e->frames);
        free(e);
    }
}

static bool take_entry(struct vt_symbol_cache *sc, struct cursor *c)
{
    uint64_t offset;
    uint32_t n;
    struct cached *e;
    take(c, &offset, sizeof offset);
    take(c, &n, sizeof n);
    if (c->bad || n == 0 || n > FRAMES_MAX)
        return false;
    HASH_FIND(hh, sc->table, &offset, sizeof offset, e);
    if (e)
        return false; /* written once each */
    e = vt_xcalloc(1, sizeof *e);
    e->offset = offset;
    e->n = n;
    e->frames = vt_xcalloc(n, sizeof *e->frames);
    HASH_ADD(hh, sc->table, offset, sizeof e->offset, e);
    for (uint32_t i = 0; i < n; i++)
        if (!take_frame(c, &e->frames[i]))
            return false;
    return true;
}

/* The file's entries into SC's table, if all of it is believed. */
static bool parse(struct vt_symbol_cache *sc, const char *bytes, size_t size)
{
    uint64_t sum;
    uint32_t id_len, n;
    if (size < HEADER || memcmp(bytes, magic, sizeof magic))
        return false;
    memcpy(&sum, bytes + sizeof magic, sizeof sum);
    if (sum != checksum(bytes + HEADER, size - HEADER))
        return false;
    struct cursor c = {bytes + HEADER, bytes + size, false};
    const char *build = take_string(&c);
    take(&c, &id_len, sizeof id_len);
    if (c.bad || !build || strcmp(build, cli_build()) || id_len != sc->id_len ||
        (size_t)(c.end - c.p) < id_len || memcmp(c.p, sc->id, id_len))
        return false;
    c.p += id_len;
    const char *debug_source = take_string(&c);
    take(&c, &n, sizeof n);
    if (c.bad || !debug_source || strcmp(debug_source, sc->debug_source))
        return false;
    for (uint32_t i = 0; i < n; i++)
        if (!take_entry(sc, &c))
            return false;
    return c.p == c.end;
}

static void read_file(struct vt_symbol_cache *sc)
{
    struct stat st;
    int fd = open(sc->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 &&
        (uint64_t)st.st_size <= VT_SYMBOL_CACHE_FILE_MAX) {
        size_t size = (size_t)st.st_size;
        sc->bytes = vt_xcalloc(size, 1);
        if (read(fd, sc->bytes, size) != (ssize_t)size || !parse(sc, sc->bytes, size)) {
            free_table(sc); /* ignored whole */
            free(sc->bytes);
            sc->bytes = NULL;
        }
    }
    close(fd);
}

struct vt_symbol_cache *vt_symbol_cache_open(const unsigned char *id, size_t len,
                                             const char *debug_source)
{
    char *dir = len ? cache_dir() : NULL;
    if (!dir)
        return NULL;
    struct vt_symbol_cache *sc = vt_xcalloc(1, sizeof *sc);
    sc->path = file_of(dir, id, len);
    free(dir);
    sc->id = vt_xcalloc(len, 1);
    memcpy(sc->id, id, len);
    sc->id_len = len;
    sc->debug_source = strdup(debug_source);
    if (!sc->debug_source) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    read_file(sc);
    return sc;
}

size_t vt_symbol_cache_find(struct vt_symbol_cache *c, uint64_t offset,
                            const struct vt_cached_frame **frames)
{
    struct cached *e;
    HASH_FIND(hh, c->table, &offset, sizeof offset, e);
    if (!e)
        return 0;
    c->used = true;
    *frames = e->frames;
    return e->n;
}

void vt_symbol_cache_add(struct vt_symbol_cache *c, uint64_t offset, struct vt_cached_frame *frames,
                         size_t n)
{
    if (!n || n > FRAMES_MAX) {
        free(frames);
        return;
    }
    c->added = vt_xgrow(c->added, c->nadded, sizeof *c->added);
    c->added[c->nadded++] = (struct added){offset, frames, n};
}

/* ---- writing ---- */

static void put(FILE *f, const void *p, size_t n)
{
    fwrite(p, 1, n, f);
}

static void put_string(FILE *f, const char *s)
{
    uint32_t len = (uint32_t)strlen(s);
    put(f, &len, sizeof len);
    put(f, s, len + 1);
}

static void put_entry(FILE *f, uint64_t offset, const struct vt_cached_frame *frames, size_t n)
{
    uint32_t count = (uint32_t)n;
    put(f, &offset, sizeof offset);
    put(f, &count, sizeof count);
    for (size_t i = 0; i < n; i++) {
        uint32_t line = frames[i].line;
        unsigned char marks = (frames[i].inlined ? INLINED : 0) |
                              (frames[i].function ? HAS_FUNCTION : 0) |
                              (frames[i].file ? HAS_FILE : 0);
        put(f, &line, sizeof line);
        put(f, &marks, 1);
        if (frames[i].function)
            put_string(f, frames[i].function);
        if (frames[i].file)
            put_string(f, frames[i].file);
    }
}

/* The file being made in memory: KEPT bytes of it whole, N entries. */
struct making {
    FILE *f;
    char *buf;
    size_t len, kept;
    uint32_t n;
};

/* One more entry, if the file stays within VT_SYMBOL_CACHE_FILE_MAX. */
static bool append(struct making *m, uint64_t offset, const struct vt_cached_frame *frames,
                   size_t n)
{
    put_entry(m->f, offset, frames, n);
    if (fflush(m->f) || m->len > VT_SYMBOL_CACHE_FILE_MAX)
        return false;
    m->kept = m->len;
    m->n++;
    return true;
}

/* What was added, then what was read, as long as the file stays within
 * VT_SYMBOL_CACHE_FILE_MAX: the whole file in memory (malloc'd), or NULL. */
static char *contents(const struct vt_symbol_cache *sc, size_t *size)
{
    struct making m = {0};
    if (!(m.f = open_memstream(&m.buf, &m.len)))
        return NULL;
    uint32_t id_len = (uint32_t)sc->id_len;
    put(m.f, magic, sizeof magic);
    put(m.f, &(uint64_t){0}, sizeof(uint64_t));
    put_string(m.f, cli_build());
    put(m.f, &id_len, sizeof id_len);
    put(m.f, sc->id, sc->id_len);
    put_string(m.f, sc->debug_source);
    put(m.f, &m.n, sizeof m.n);
    if (fflush(m.f)) {
        fclose(m.f);
        free(m.buf);
        return NULL;
    }
    bool room = true;
    size_t count_at = m.len - sizeof m.n;
    m.kept = m.len;
    for (size_t i = 0; room && i < sc->nadded; i++)
        room = append(&m, sc->added[i].offset, sc->added[i].frames, sc->added[i].n);
    for (const struct cached *e = sc->table; room && e; e = e->hh.next)
        room = append(&m, e->offset, e->frames, e->n);
    fclose(m.f);
    memcpy(m.buf + count_at, &m.n, sizeof m.n);
    uint64_t sum = checksum(m.buf + HEADER, m.kept - HEADER);
    memcpy(m.buf + sizeof magic, &sum, sizeof sum);
    *size = m.kept;
    return m.buf;
}

/* DIR and the folders above it (0700). */
static bool make_dirs(const char *dir)
{
    char *path = strdup(dir);
    if (!path)
        return false;
    for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
        *p = 0;
        (void)mkdir(path, 0700); /* the last one says whether it worked */
        *p = '/';
    }
    bool ok = mkdir(path, 0700) == 0 || errno == EEXIST;
    free(path);
    return ok;
}

/* The file replaced whole: written aside, renamed over it. */
static bool write_file(const char *path, const char *buf, size_t size)
{
    char *dir = strdup(path), *slash = dir ? strrchr(dir, '/') : NULL, *tmp = NULL;
    bool ok = false;
    if (slash) {
        *slash = 0;
        if (make_dirs(dir) && asprintf(&tmp, "%s/.vtsym-XXXXXX", dir) >= 0) {
            int fd = mkstemp(tmp);
            if (fd >= 0) {
                ok = write(fd, buf, size) == (ssize_t)size;
                ok = close(fd) == 0 && ok && rename(tmp, path) == 0;
                if (!ok)
                    unlink(tmp);
            }
        }
    }
    free(tmp);
    free(dir);
    return ok;
}

struct aged {
    char *path;
    struct timespec mtime;
    off_t size;
};

static int oldest_first(const void *pa, const void *pb)
{
    const struct aged *a = pa, *b = pb;
    if (a->mtime.tv_sec != b->mtime.tv_sec)
        return a->mtime.tv_sec < b->mtime.tv_sec ? -1 : 1;
    return a->mtime.tv_nsec < b->mtime.tv_nsec ? -1 : a->mtime.tv_nsec > b->mtime.tv_nsec;
}

static bool ours(const char *name)
{
    size_t len = strlen(name);
    return !strncmp(name, ".vtsym-", 7) || (len > 6 && !strcmp(name + len - 6, ".vtsym"));
}

/* The cache's files (and those half written) at most VT_SYMBOL_CACHE_MAX
 * bytes together: the least recently used removed first. */
static void evict(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    struct aged *files = NULL;
    size_t n = 0;
    uint64_t total = 0;
    if (!d)
        return;
    while ((de = readdir(d))) {
        struct stat st;
        char *path;
        if (!ours(de->d_name) || asprintf(&path, "%s/%s", dir, de->d_name) < 0)
            continue;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) {
            free(path);
            continue;
        }
        files = vt_xgrow(files, n, sizeof *files);
        files[n++] = (struct aged){path, st.st_mtim, st.st_size};
        total += (uint64_t)st.st_size;
    }
    closedir(d);
    if (n > 1)
        qsort(files, n, sizeof *files, oldest_first);
    for (size_t i = 0; i < n; i++) {
        if (total > VT_SYMBOL_CACHE_MAX && unlink(files[i].path) == 0)
            total -= (uint64_t)files[i].size;
        free(files[i].path);
    }
    free(files);
}

void vt_symbol_cache_close(struct vt_symbol_cache *c)
{
    if (!c)
        return;
    size_t size;
    char *buf = c->nadded ? contents(c, &size) : NULL;
    if (buf && write_file(c->path, buf, size)) {
        char *slash = strrchr(c->path, '/');
        *slash = 0;
        evict(c->path);
        *slash = '/';
    } else if (c->used) {
        utimensat(AT_FDCWD, c->path, NULL, 0); /* used again: the last to go */
    }
    free(buf);
    free_table(c);
    for (size_t i = 0; i < c->nadded; i++)
        free(c->added[i].frames);
    free(c->added);
    free(c->bytes);
    free(c->debug_source);
    free(c->id);
    free(c->path);
    free(c);
}
