/* SPDX-License-Identifier: MIT */
/* pprof's profile.proto (github.com/google/pprof/proto/profile.proto),
 * gzip-compressed, as `pprof` and JAX's device memory profiles read it:
 * one sample per call site with inuse_space/inuse_objects (still allocated
 * at exit) and alloc_space/alloc_objects (over the run), labels device,
 * kind, api and phase (the NVTX range of most of its bytes, where any);
 * one location per return address, its inlined frames as lines; mappings
 * from the dump's module list with their build ids. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <uthash.h>
#include <zlib.h>

#include "export.h"
#include "format.h"
#include "protobuf.h"
#include "xalloc.h"

/* profile.proto field numbers */
enum {
    PROFILE_SAMPLE_TYPE = 1,
    PROFILE_SAMPLE,
    PROFILE_MAPPING,
    PROFILE_LOCATION,
    PROFILE_FUNCTION,
    PROFILE_STRING_TABLE,
    PROFILE_TIME_NANOS = 9,
    PROFILE_DURATION_NANOS,
    PROFILE_PERIOD_TYPE,
    PROFILE_PERIOD,
    PROFILE_COMMENT,
    PROFILE_DEFAULT_SAMPLE_TYPE,
    VALUE_TYPE_TYPE = 1,
    VALUE_TYPE_UNIT,
    SAMPLE_LOCATION_ID = 1,
    SAMPLE_VALUE,
    SAMPLE_LABEL,
    LABEL_KEY = 1,
    LABEL_STR,
    LABEL_NUM,
    LABEL_NUM_UNIT,
    MAPPING_ID = 1,
    MAPPING_START,
    MAPPING_LIMIT,
    MAPPING_OFFSET,
    MAPPING_FILENAME,
    MAPPING_BUILD_ID,
    MAPPING_HAS_FUNCTIONS,
    MAPPING_HAS_FILENAMES,
    MAPPING_HAS_LINE_NUMBERS,
    MAPPING_HAS_INLINE_FRAMES,
    LOCATION_ID = 1,
    LOCATION_MAPPING_ID,
    LOCATION_ADDRESS,
    LOCATION_LINE,
    LINE_FUNCTION_ID = 1,
    LINE_LINE,
    FUNCTION_ID = 1,
    FUNCTION_NAME,
    FUNCTION_SYSTEM_NAME,
    FUNCTION_FILENAME,
};

struct string_entry {
    char *s;
    uint64_t index;
    UT_hash_handle hh;
};

/* A function is its name and file; a location is a run of frames that
 * share one address (the inlined ones and the function they sit in). */
struct function_key {
    uint64_t name, file;
};
struct function_entry {
    struct function_key key;
    uint64_t id;
    UT_hash_handle hh;
};
struct location_key {
    const struct vt_frame *first; /* the symbolizer caches one frame per (address, depth) */
    size_t nlines;
};
struct location_entry {
    struct location_key key;
    uint64_t id;
    UT_hash_handle hh;
};

struct profile {
    const struct vt_dump *dump;
    struct vt_pb out, msg, sub, fn; /* the profile and scratch for nested messages */
    struct string_entry *strings;
    uint64_t nstrings;
    struct function_entry *functions;
    uint64_t nfunctions;
    struct location_entry *locations;
    uint64_t nlocations;
    struct vt_pb functions_pb, locations_pb; /* encoded as they are first seen */
};

static uint64_t intern(struct profile *p, const char *s)
{
    struct string_entry *e;
    if (!s)
        s = "";
    HASH_FIND_STR(p->strings, s, e);
    if (e)
        return e->index;
    e = vt_xcalloc(1, sizeof *e);
    e->s = vt_xrealloc(NULL, strlen(s) + 1, 1);
    strcpy(e->s, s);
    e->index = p->nstrings++;
    HASH_ADD_KEYPTR(hh, p->strings, e->s, strlen(e->s), e);
    return e->index;
}

static uint64_t function_id(struct profile *p, const struct vt_frame *f)
{
    struct function_key key = {intern(p, f->function), intern(p, f->file)};
    struct function_entry *e;
    HASH_FIND(hh, p->functions, &key, sizeof key, e);
    if (e)
        return e->id;
    e = vt_xcalloc(1, sizeof *e);
    e->key = key;
    e->id = ++p->nfunctions;
    HASH_ADD(hh, p->functions, key, sizeof e->key, e);
    vt_pb_clear(&p->fn);
    vt_pb_uint(&p->fn, FUNCTION_ID, e->id);
    vt_pb_int(&p->fn, FUNCTION_NAME, (int64_t)key.name);
    vt_pb_int(&p->fn, FUNCTION_SYSTEM_NAME, (int64_t)key.name);
    vt_pb_int(&p->fn, FUNCTION_FILENAME, (int64_t)key.file);
    vt_pb_message(&p->functions_pb, PROFILE_FUNCTION, &p->fn);
    return e->id;
}

static uint64_t mapping_id(const struct profile *p, const struct vt_frame *frame)
{
    const struct vt_module *m = frame->python ? NULL : frame->loaded;
    return m ? (uint64_t)(m - p->dump->modules) + 1 : 0;
}

static void encode_location(struct profile *p, const struct vt_frame *const *frames, size_t n,
                            uint64_t id)
{
    const struct vt_frame *outer = frames[n - 1];
    uint64_t address = outer->python ? 0 : outer->address;
    vt_pb_clear(&p->msg);
    vt_pb_uint(&p->msg, LOCATION_ID, id);
    vt_pb_uint(&p->msg, LOCATION_MAPPING_ID, mapping_id(p, outer));
    vt_pb_uint(&p->msg, LOCATION_ADDRESS, address);
    for (size_t i = 0; i < n; i++) {
        if (!frames[i]->function) /* unresolved: pprof shows the address */
            continue;
        uint64_t fid = function_id(p, frames[i]);
        vt_pb_clear(&p->sub);
        vt_pb_uint(&p->sub, LINE_FUNCTION_ID, fid);
        vt_pb_int(&p->sub, LINE_LINE, frames[i]->line);
        vt_pb_message(&p->msg, LOCATION_LINE, &p->sub);
    }
    vt_pb_message(&p->locations_pb, PROFILE_LOCATION, &p->msg);
}

static uint64_t location_id(struct profile *p, const struct vt_frame *const *frames, size_t n)
{
    struct location_key key;
    struct location_entry *e;
    memset(&key, 0, sizeof key);
    key.first = frames[0];
    key.nlines = n;
    HASH_FIND(hh, p->locations, &key, sizeof key, e);
    if (e)
        return e->id;
    e = vt_xcalloc(1, sizeof *e);
    e->key = key;
    e->id = ++p->nlocations;
    HASH_ADD(hh, p->locations, key, sizeof e->key, e);
    encode_location(p, frames, n, e->id);
    return e->id;
}

/* Between a site's own frames and those of the thread it allocated for
 * (the one that called backward()), as the folded stacks say it; no
 * address, no mapping. */
static const struct vt_frame behalf_marker = {.function = VT_BEHALF_MARKER, .python = true};

/* Location ids of a site, innermost first: frames marked inlined join the
 * frame after them (the function they were inlined into); then, where it
 * allocated for another thread, the marker and that thread's frames. At
 * most site_depth(SITE) ids. */
static size_t site_locations(struct profile *p, const struct vt_site *site, uint64_t *ids)
{
    size_t n = 0;
    for (size_t i = 0; i < site->nframes;) {
        size_t len = 1;
        while (i + len < site->nframes && site->frames[i + len - 1]->inlined &&
               !site->frames[i + len - 1]->python)
            len++;
        ids[n++] = location_id(p, site->frames + i, len);
        i += len;
    }
    if (site->behalf) {
        const struct vt_frame *marker = &behalf_marker;
        ids[n++] = location_id(p, &marker, 1);
        n += site_locations(p, site->behalf, ids + n);
    }
    return n;
}

static size_t site_depth(const struct vt_site *site)
{
    return site->nframes + (site->behalf ? 1 + site_depth(site->behalf) : 0);
}

static void add_label(struct profile *p, const char *key, const char *value)
{
    vt_pb_clear(&p->sub);
    vt_pb_int(&p->sub, LABEL_KEY, (int64_t)intern(p, key));
    vt_pb_int(&p->sub, LABEL_STR, (int64_t)intern(p, value));
    vt_pb_message(&p->msg, SAMPLE_LABEL, &p->sub);
}

/* A numeric label, so `-tagfocus=device=0` works; with a unit, since pprof
 * drops a numeric label whose value and unit are both 0 (device 0). */
static void add_num_label(struct profile *p, const char *key, int64_t num, const char *unit)
{
    vt_pb_clear(&p->sub);
    vt_pb_int(&p->sub, LABEL_KEY, (int64_t)intern(p, key));
    vt_pb_int(&p->sub, LABEL_NUM, num);
    vt_pb_int(&p->sub, LABEL_NUM_UNIT, (int64_t)intern(p, unit));
    vt_pb_message(&p->msg, SAMPLE_LABEL, &p->sub);
}

static void add_sample(struct profile *p, const struct vt_export_site *s, uint64_t *ids)
{
    uint64_t values[4] = {s->usage->live_bytes, s->leaked_allocations, s->allocated_bytes,
                          s->allocations};
    size_t n = site_locations(p, s->site, ids);
    vt_pb_clear(&p->msg);
    vt_pb_packed(&p->msg, SAMPLE_LOCATION_ID, ids, n);
    vt_pb_packed(&p->msg, SAMPLE_VALUE, values, 4);
    add_num_label(p, "device", s->usage->device, "index");
    add_label(p, "kind", vt_kind_name(s->usage->kind));
    add_label(p, "api", vt_api_label(s->site->api));
    /* the NVTX range it made most of its bytes in, as the report says it */
    const char *phase = vt_dump_phase_name(p->dump, vt_usage_site_phase(s->usage, NULL));
    if (phase)
        add_label(p, "phase", phase);
    vt_pb_message(&p->out, PROFILE_SAMPLE, &p->msg);
}

static void add_value_type(struct profile *p, unsigned field, const char *type, const char *unit)
{
    vt_pb_clear(&p->msg);
    vt_pb_int(&p->msg, VALUE_TYPE_TYPE, (int64_t)intern(p, type));
    vt_pb_int(&p->msg, VALUE_TYPE_UNIT, (int64_t)intern(p, unit));
    vt_pb_message(&p->out, field, &p->msg);
}

static void add_mappings(struct profile *p)
{
    for (size_t i = 0; i < p->dump->nmodules; i++) {
        const struct vt_module *m = &p->dump->modules[i];
        char hex[2 * 64 + 1] = "";
        for (size_t k = 0; k < m->build_id_len && k < 64; k++)
            snprintf(hex + 2 * k, 3, "%02x", m->build_id[k]);
        vt_pb_clear(&p->msg);
        vt_pb_uint(&p->msg, MAPPING_ID, i + 1);
        vt_pb_uint(&p->msg, MAPPING_START, m->start);
        vt_pb_uint(&p->msg, MAPPING_LIMIT, m->end);
        vt_pb_uint(&p->msg, MAPPING_OFFSET, m->start - m->bias);
        vt_pb_int(&p->msg, MAPPING_FILENAME, (int64_t)intern(p, m->path));
        vt_pb_int(&p->msg, MAPPING_BUILD_ID, (int64_t)intern(p, hex));
        /* symbolized here, so pprof must not try again */
        vt_pb_uint(&p->msg, MAPPING_HAS_FUNCTIONS, 1);
        vt_pb_uint(&p->msg, MAPPING_HAS_FILENAMES, 1);
        vt_pb_uint(&p->msg, MAPPING_HAS_LINE_NUMBERS, 1);
        vt_pb_uint(&p->msg, MAPPING_HAS_INLINE_FRAMES, 1);
        vt_pb_message(&p->out, PROFILE_MAPPING, &p->msg);
    }
}

/* The string table in index order (entries were appended as interned). */
static void add_strings(struct profile *p)
{
    for (struct string_entry *e = p->strings; e; e = e->hh.next)
        vt_pb_string(&p->out, PROFILE_STRING_TABLE, e->s);
}

static void encode(struct profile *p, const struct vt_export *e)
{
    size_t max_frames = 0;
    intern(p, ""); /* string 0 is always "" */
    add_value_type(p, PROFILE_SAMPLE_TYPE, "inuse_space", "bytes");
    add_value_type(p, PROFILE_SAMPLE_TYPE, "inuse_objects", "count");
    add_value_type(p, PROFILE_SAMPLE_TYPE, "alloc_space", "bytes");
    add_value_type(p, PROFILE_SAMPLE_TYPE, "alloc_objects", "count");
    for (size_t i = 0; i < e->nsites; i++)
        if (site_depth(e->sites[i].site) > max_frames)
            max_frames = site_depth(e->sites[i].site);
    uint64_t *ids = vt_xcalloc(max_frames, sizeof *ids);
    for (size_t i = 0; i < e->nsites; i++)
        add_sample(p, &e->sites[i], ids);
    free(ids);
    add_mappings(p);
    vt_pb_append(&p->out, &p->locations_pb);
    vt_pb_append(&p->out, &p->functions_pb);
    if (p->dump->process.present)
        vt_pb_int(&p->out, PROFILE_TIME_NANOS, (int64_t)p->dump->process.start_real_ns);
    vt_pb_int(&p->out, PROFILE_DURATION_NANOS, (int64_t)e->loaded.analysis.usage.end_ns);
    add_value_type(p, PROFILE_PERIOD_TYPE, "space", "bytes");
    vt_pb_int(&p->out, PROFILE_PERIOD, 1);
    vt_pb_int(&p->out, PROFILE_COMMENT, (int64_t)intern(p, e->loaded.report.path));
    vt_pb_int(&p->out, PROFILE_DEFAULT_SAMPLE_TYPE, (int64_t)intern(p, "inuse_space"));
    add_strings(p);
}

static void free_profile(struct profile *p)
{
    struct string_entry *s, *stmp;
    struct function_entry *f, *ftmp;
    struct location_entry *l, *ltmp;
    HASH_ITER(hh, p->strings, s, stmp) {
        HASH_DEL(p->strings, s);
        free(s->s);
        free(s);
    }
    HASH_ITER(hh, p->functions, f, ftmp) {
        HASH_DEL(p->functions, f);
        free(f);
    }
    HASH_ITER(hh, p->locations, l, ltmp) {
        HASH_DEL(p->locations, l);
        free(l);
    }
    vt_pb_free(&p->out);
    vt_pb_free(&p->msg);
    vt_pb_free(&p->sub);
    vt_pb_free(&p->fn);
    vt_pb_free(&p->functions_pb);
    vt_pb_free(&p->locations_pb);
}

/* gzip (RFC 1952) of DATA to OUT. */
static int write_gzip(const uint8_t *data, size_t len, FILE *out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, Z_BEST_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return -1;
    size_t cap = deflateBound(&z, len);
    uint8_t *buf = vt_xrealloc(NULL, cap, 1);
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)len;
    z.next_out = buf;
    z.avail_out = (uInt)cap;
    int rc = deflate(&z, Z_FINISH);
    size_t n = cap - z.avail_out;
    deflateEnd(&z);
    int status = rc == Z_STREAM_END && fwrite(buf, 1, n, out) == n ? 0 : -1;
    free(buf);
    return status;
}

int vt_export_pprof(const struct vt_export *e, FILE *out)
{
    struct profile p;
    memset(&p, 0, sizeof p);
    p.dump = &e->loaded.dump;
    encode(&p, e);
    int status = write_gzip(p.out.data, p.out.len, out);
    free_profile(&p);
    return status;
}
