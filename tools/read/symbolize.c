/* SPDX-License-Identifier: MIT */
/* Offline symbolization: one Dwfl per recorded module (so modules recorded
 * at overlapping addresses, e.g. after dlclose/dlopen, never clash), opened
 * on first use, reported at the load bias from the dump. Strings in the
 * frames point into libdw's data, which lives as long as the symbolizer. */
#include "symbolize.h"

#include <dwarf.h>
#include <elfutils/libdwfl.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "debug_source.h"
#include "symbol_cache.h"
#include "symbol_table.h"
#include "xalloc.h"

struct module_state {
    bool tried; /* opened (or failed to) already */
    Dwfl *dwfl; /* NULL when the module cannot be used */
    Dwfl_Module *mod;
    bool symbols_read;               /* SYMBOLS read (or found missing) already */
    struct vt_symbol_table *symbols; /* or NULL */
    bool cache_opened;
    struct vt_symbol_cache *cache; /* frames symbolized before, or NULL */
};

struct address_key {
    uint64_t address, epoch;
};

struct address_entry {
    struct address_key key;
    size_t nframes;
    struct vt_frame *frames;
    UT_hash_handle hh;
};

/* Source paths, made absolute and tidied once, shared by all frames. */
struct path_entry {
    char *path;
    UT_hash_handle hh;
};

/* Demangled C++ names and names qualified from DWARF scopes, by the text
 * they were made from. */
struct name_entry {
    char *from, *name;
    UT_hash_handle hh;
};

struct python_entry {
    uint64_t id;
    struct vt_frame frame;
    UT_hash_handle hh;
};

struct vt_symbolizer {
    const struct vt_dump *dump;
    struct module_state *modules; /* parallel to dump->modules */
    size_t nmodules;              /* as many as the dump had then (a followed dump grows) */
    struct address_entry *cache;
    struct path_entry *paths;
    struct python_entry *python;
    struct name_entry *names;
};

static const Dwfl_Callbacks offline_callbacks = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void *xcalloc(size_t n, size_t size)
{
    void *p = calloc(n ? n : 1, size);
    if (!p) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    return p;
}

static bool debuginfod_allowed;

void vt_symbolize_allow_debuginfod(void)
{
    debuginfod_allowed = true;
}

/* libdw asks every server DEBUGINFOD_URLS names (many distributions set it
 * for everyone) about each module without local debug information: a round
 * trip, or a timeout on a firewalled machine, per module. Unset in this
 * process only, once whatever it runs has been started with it. */
static void keep_debuginfod_unless_asked(void)
{
    const char *asked = getenv("VRAMTRACE_DEBUGINFOD");
    if (!debuginfod_allowed && !(asked && !strcmp(asked, "1")))
        unsetenv("DEBUGINFOD_URLS");
}

struct vt_symbolizer *vt_symbolizer_new(const struct vt_dump *dump)
{
    struct vt_symbolizer *s = xcalloc(1, sizeof *s);
    keep_debuginfod_unless_asked();
    s->dump = dump;
    s->modules = xcalloc(dump->nmodules, sizeof *s->modules);
    s->nmodules = dump->nmodules;
    return s;
}

void vt_symbolizer_free(struct vt_symbolizer *s)
{
    struct address_entry *e, *tmp;
    if (!s)
        return;
    for (size_t i = 0; i < s->nmodules; i++) /* before the frames it keeps */
        vt_symbol_cache_close(s->modules[i].cache);
    HASH_ITER(hh, s->cache, e, tmp) {
        HASH_DEL(s->cache, e);
        free(e->frames);
        free(e);
    }
    struct python_entry *y, *ytmp;
    HASH_ITER(hh, s->python, y, ytmp) {
        HASH_DEL(s->python, y);
        free(y);
    }
    struct name_entry *n, *ntmp;
    HASH_ITER(hh, s->names, n, ntmp) {
        HASH_DEL(s->names, n);
        free(n->from);
        free(n->name);
        free(n);
    }
    struct path_entry *p, *ptmp;
    HASH_ITER(hh, s->paths, p, ptmp) {
        HASH_DEL(s->paths, p);
        free(p->path);
        free(p);
    }
    for (size_t i = 0; i < s->nmodules; i++) {
        vt_symbol_table_free(s->modules[i].symbols);
        if (s->modules[i].dwfl)
            dwfl_end(s->modules[i].dwfl);
    }
    free(s->modules);
    free(s);
}

/* The kernel's vDSO and anonymous mappings have no file to read: not worth
 * a warning. */
static bool is_pseudo_module(const char *path)
{
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return !path[0] || path[0] == '[' || !strncmp(base, "linux-vdso", 10) ||
           !strncmp(base, "linux-gate", 10);
}

/* Each module's warning once per command: watch and the metrics make a new
 * symbolizer whenever a dump brings modules, and read many dumps of the
 * same binaries. */
static bool warned_before(const char *path, const char *why)
{
    static char **warned;
    static size_t nwarned;
    size_t len = strlen(path);
    for (size_t i = 0; i < nwarned; i++)
        if (!strncmp(warned[i], path, len) && warned[i][len] == '\n' &&
            !strcmp(warned[i] + len + 1, why))
            return true;
    char *key = vt_xcalloc(len + strlen(why) + 2, 1);
    sprintf(key, "%s\n%s", path, why);
    warned = vt_xgrow(warned, nwarned, sizeof *warned);
    warned[nwarned++] = key;
    return false;
}

static void warn_unusable(const struct vt_module *m, const char *why)
{
    if (!is_pseudo_module(m->path) && !warned_before(m->path, why))
        fprintf(stderr, "vramtrace: warning: %s: %s; its frames show as module+offset\n", m->path,
                why);
}

static bool build_id_matches(Dwfl_Module *mod, const struct vt_module *m)
{
    const unsigned char *bits;
    GElf_Addr vaddr;
    if (m->build_id_len == 0) /* nothing recorded to compare with */
        return true;
    int len = dwfl_module_build_id(mod, &bits, &vaddr);
    return len > 0 && (size_t)len == m->build_id_len && !memcmp(bits, m->build_id, (size_t)len);
}

static void open_module(struct module_state *st, const struct vt_module *m)
{
    st->tried = true;
    if (is_pseudo_module(m->path) || access(m->path, R_OK) != 0) {
        warn_unusable(m, strerror(errno ? errno : ENOENT));
        return;
    }
    Dwfl *dwfl = dwfl_begin(&offline_callbacks);
    if (!dwfl) {
        warn_unusable(m, dwfl_errmsg(-1));
        return;
    }
    dwfl_report_begin(dwfl);
    const char *base = strrchr(m->path, '/');
    Dwfl_Module *mod = dwfl_report_elf(dwfl, base ? base + 1 : m->path, m->path, -1, m->bias, true);
    dwfl_report_end(dwfl, NULL, NULL);
    if (!mod) {
        warn_unusable(m, dwfl_errmsg(-1));
        dwfl_end(dwfl);
        return;
    }
    if (!build_id_matches(mod, m)) {
        warn_unusable(m, "build id differs from the traced process's copy");
        dwfl_end(dwfl);
        return;
    }
    st->dwfl = dwfl;
    st->mod = mod;
}

static struct module_state *usable_module(struct vt_symbolizer *s, const struct vt_module *m)
{
    struct module_state *st = &s->modules[m - s->dump->modules];
    if (!st->tried)
        open_module(st, m);
    return st->mod ? st : NULL;
}

/* The module's cache, keyed by its build id and where its debug
 * information would come from (debug_source.h). */
static struct vt_symbol_cache *module_cache(struct module_state *st, const struct vt_module *m)
{
    if (!st->cache_opened && m->build_id_len) {
        char *source = vt_debug_source(st->mod, m->path, m->build_id, m->build_id_len);
        if (source)
            st->cache = vt_symbol_cache_open(m->build_id, m->build_id_len, source);
        free(source);
    }
    st->cache_opened = true;
    return st->cache;
}

/* The symbol PC is in: its module's symbols are read at the first. */
static const char *symbol_at(struct module_state *st, Dwarf_Addr pc)
{
    if (!st->symbols_read) {
        st->symbols = vt_symbol_table_read(st->mod);
        st->symbols_read = true;
    }
    return st->symbols ? vt_symbol_table_find(st->symbols, pc) : NULL;
}

/* Removes "." and "dir/.." components in place, as the compiler meant
 * them (build systems pass paths like ../src/file.c). */
static void tidy_path(char *path)
{
    char *out = path, *p = path;
    bool absolute = *p == '/';
    size_t kept = 0; /* components in OUT that ".." may remove */
    if (absolute)
        out++, p++;
    while (*p) {
        size_t len = strcspn(p, "/");
        /* Where the next component starts, read before writing: the slash we
         * append may overwrite the terminating NUL of the last component. */
        char *next = p + len;
        while (*next == '/')
            next++;
        bool last = !*next;
        if ((len == 1 && p[0] == '.') || len == 0) {
            /* skip */
        } else if (len == 2 && p[0] == '.' && p[1] == '.' && (kept || absolute)) {
            if (kept) {
                out--; /* back over the previous component and its slash */
                while (out > path + absolute && out[-1] != '/')
                    out--;
                kept--;
            }
        } else {
            memmove(out, p, len);
            out += len;
            *out++ = '/';
            kept += !(len == 2 && p[0] == '.' && p[1] == '.');
        }
        if (last)
            break;
        p = next;
    }
    if (out > path + absolute)
        out--; /* the last slash */
    *out = '\0';
}

static const char *source_path(struct vt_symbolizer *s, const char *comp_dir, const char *file)
{
    struct path_entry *e;
    char *path;
    if (!file)
        return NULL;
    if (file[0] != '/' && comp_dir && comp_dir[0]) {
        if (asprintf(&path, "%s/%s", comp_dir, file) < 0)
            path = NULL;
    } else {
        path = strdup(file);
    }
    if (!path) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    tidy_path(path);
    HASH_FIND_STR(s->paths, path, e);
    if (e) {
        free(path);
        return e->path;
    }
    e = xcalloc(1, sizeof *e);
    e->path = path;
    HASH_ADD_KEYPTR(hh, s->paths, e->path, strlen(e->path), e);
    return e->path;
}

/* The platform's C++ demangler (libstdc++'s, as the compiler's runtime). */
char *__cxa_demangle(const char *mangled, char *out, size_t *length, int *status);

/* NAME as kept by the symbolizer for the life of its frames: FROM's
 * demangled form (made once), or NAME itself. FROM is the lookup key. */
static const char *kept_name(struct vt_symbolizer *s, const char *from, char *made)
{
    struct name_entry *e;
    HASH_FIND_STR(s->names, from, e);
    if (e) {
        free(made);
        return e->name;
    }
    e = xcalloc(1, sizeof *e);
    e->from = strdup(from);
    e->name = made;
    if (!e->from) {
        fputs("vramtrace: out of memory\n", stderr);
        exit(1);
    }
    HASH_ADD_KEYPTR(hh, s->names, e->from, strlen(e->from), e);
    return e->name;
}

/* A C++ symbol's demangled name ("trainer::Buffer<float>::make(unsigned
 * long)"); any other name as it is. */
static const char *demangled(struct vt_symbolizer *s, const char *symbol)
{
    struct name_entry *e;
    int status = -1;
    if (!symbol || strncmp(symbol, "_Z", 2) != 0)
        return symbol;
    HASH_FIND_STR(s->names, symbol, e);
    if (e)
        return e->name;
    char *name = __cxa_demangle(symbol, NULL, NULL, &status);
    if (status != 0 || !name) {
        free(name);
        return symbol;
    }
    return kept_name(s, symbol, name);
}

static bool is_cxx_unit(Dwarf_Die *die)
{
    Dwarf_Die cu;
    Dwarf_Attribute attr;
    Dwarf_Word lang;
    if (!dwarf_diecu(die, &cu, NULL, NULL) ||
        dwarf_formudata(dwarf_attr(&cu, DW_AT_language, &attr), &lang) != 0)
        return false;
    return lang == DW_LANG_C_plus_plus || lang == DW_LANG_C_plus_plus_03 ||
           lang == DW_LANG_C_plus_plus_11 || lang == DW_LANG_C_plus_plus_14;
}

/* A C++ function DIE without a linkage name (inlined copies, some
 * compilers' member functions): its name qualified by the namespaces and
 * classes around its declaration, "trainer::Buffer<float>::make". */
static const char *qualified_name(struct vt_symbolizer *s, Dwarf_Die *die, const char *name)
{
    Dwarf_Die decl = *die, *scopes = NULL, target;
    Dwarf_Attribute attr;
    /* The declaration inside the class, where a definition points to one. */
    while (dwarf_formref_die(dwarf_attr(&decl, DW_AT_specification, &attr), &target) ||
           dwarf_formref_die(dwarf_attr(&decl, DW_AT_abstract_origin, &attr), &target))
        decl = target;
    int n = dwarf_getscopes_die(&decl, &scopes);
    char *qualified = NULL;
    size_t len = 0;
    FILE *text = open_memstream(&qualified, &len);
    if (!text) {
        free(scopes);
        return name;
    }
    for (int i = n - 1; i > 0; i--) { /* outermost first; scopes[0] is the DIE */
        int tag = dwarf_tag(&scopes[i]);
        const char *scope = dwarf_diename(&scopes[i]);
        if (tag == DW_TAG_namespace || tag == DW_TAG_class_type || tag == DW_TAG_structure_type ||
            tag == DW_TAG_union_type)
            fprintf(text, "%s::", scope ? scope : "(anonymous namespace)");
    }
    fputs(name, text);
    fclose(text);
    free(scopes);
    return kept_name(s, qualified, qualified);
}

/* A DIE's function name: the demangled linkage name (following
 * DW_AT_abstract_origin / DW_AT_specification); else, for the function the
 * address is in, its (demangled) SYMBOL, which GCC has for functions with
 * internal linkage where DWARF has no linkage name; else its name,
 * qualified in C++. */
static const char *die_function_name(struct vt_symbolizer *s, Dwarf_Die *die, const char *symbol)
{
    static const int linkage[] = {DW_AT_linkage_name, DW_AT_MIPS_linkage_name};
    Dwarf_Attribute attr;
    for (size_t i = 0; i < sizeof linkage / sizeof linkage[0]; i++) {
        const char *name = dwarf_formstring(dwarf_attr_integrate(die, linkage[i], &attr));
        if (name)
            return demangled(s, name);
    }
    if (symbol && dwarf_tag(die) == DW_TAG_subprogram)
        return symbol;
    const char *name = dwarf_formstring(dwarf_attr_integrate(die, DW_AT_name, &attr));
    return name && is_cxx_unit(die) ? qualified_name(s, die, name) : name;
}

static const char *comp_dir_of(Dwarf_Die *cu)
{
    Dwarf_Attribute attr;
    return dwarf_formstring(dwarf_attr(cu, DW_AT_comp_dir, &attr));
}

/* Where an inlined call was made: DW_AT_call_file / DW_AT_call_line. */
static void call_site(struct vt_symbolizer *s, Dwarf_Die *inlined, const char **file,
                      unsigned *line)
{
    Dwarf_Attribute attr;
    Dwarf_Word index, lineno;
    Dwarf_Die cudie;
    Dwarf_Files *files;
    size_t nfiles;
    *file = NULL;
    *line = 0;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_line, &attr), &lineno) == 0)
        *line = (unsigned)lineno;
    if (dwarf_formudata(dwarf_attr(inlined, DW_AT_call_file, &attr), &index) == 0 &&
        dwarf_diecu(inlined, &cudie, NULL, NULL) &&
        dwarf_getsrcfiles(&cudie, &files, &nfiles) == 0 && index < nfiles)
        *file = source_path(s, comp_dir_of(&cudie), dwarf_filesrc(files, index, NULL, NULL));
}

struct frame_list {
    struct vt_frame *v;
    size_t n, cap;
};

static struct vt_frame *push_frame(struct frame_list *l, const struct vt_frame *proto)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 4;
        l->v = realloc(l->v, l->cap * sizeof *l->v);
        if (!l->v) {
            fputs("vramtrace: out of memory\n", stderr);
            exit(1);
        }
    }
    l->v[l->n] = *proto;
    return &l->v[l->n++];
}

/* The compile unit holding PC. libdw before 0.19x finds none through
 * dwfl_module_addrdie when .debug_aranges is missing (clang emits none):
 * then look through the units' own address ranges. */
static Dwarf_Die *find_cu(Dwfl_Module *mod, Dwarf_Addr pc, Dwarf_Addr *bias)
{
    Dwarf_Die *cu = dwfl_module_addrdie(mod, pc, bias);
    if (cu)
        return cu;
    while ((cu = dwfl_module_nextcu(mod, cu, bias)))
        if (dwarf_haspc(cu, pc - *bias) == 1)
            return cu;
    return NULL;
}

/* The eu-addr2line -i walk: the innermost scope gets the address's own
 * line; each inlined scope's call site is the line of the scope around it. */
static void add_dwarf_frames(struct vt_symbolizer *s, struct frame_list *l, Dwarf_Die *cu,
                             Dwarf_Addr cu_pc, struct vt_frame *proto, const char *symbol)
{
    Dwarf_Die *scopes = NULL;
    int nscopes = dwarf_getscopes(cu, cu_pc, &scopes);
    for (int i = 0; i < nscopes; i++) {
        int tag = dwarf_tag(&scopes[i]);
        if (tag != DW_TAG_inlined_subroutine && tag != DW_TAG_subprogram)
            continue;
        const char *name = die_function_name(s, &scopes[i], symbol);
        proto->function = name ? name : symbol;
        proto->inlined = tag == DW_TAG_inlined_subroutine;
        push_frame(l, proto);
        if (tag == DW_TAG_subprogram)
            break;
        call_site(s, &scopes[i], &proto->file, &proto->line);
    }
    free(scopes);
}

/* The frames cached for PROTO's address, with PROTO's module fields. */
static bool from_cache(struct vt_symbol_cache *c, struct frame_list *l, struct vt_frame proto)
{
    const struct vt_cached_frame *cached;
    size_t n = vt_symbol_cache_find(c, proto.offset, &cached);
    for (size_t i = 0; i < n; i++) {
        proto.function = cached[i].function;
        proto.file = cached[i].file;
        proto.line = cached[i].line;
        proto.inlined = cached[i].inlined;
        push_frame(l, &proto);
    }
    return n > 0;
}

/* The frames of ADDRESS into L; *KEEP: the cache to keep them in, if any. */
static void resolve(struct vt_symbolizer *s, uint64_t address, uint64_t epoch, struct frame_list *l,
                    struct vt_symbol_cache **keep)
{
    const struct vt_module *m = vt_dump_module_at(s->dump, address - 1, epoch);
    struct vt_frame proto = {.address = address, .loaded = m};
    struct module_state *st;
    if (m) {
        proto.module = m->path;
        proto.offset = address - m->bias;
    }
    if (!m || !(st = usable_module(s, m))) {
        push_frame(l, &proto);
        return;
    }
    struct vt_symbol_cache *cache = module_cache(st, m);
    if (cache && from_cache(cache, l, proto))
        return;
    *keep = cache;
    Dwarf_Addr pc = address - 1; /* the call, not the instruction after it */
    Dwarf_Addr bias;
    const char *symbol = demangled(s, symbol_at(st, pc));
    Dwarf_Die *cu = find_cu(st->mod, pc, &bias);
    Dwarf_Line *line = cu ? dwarf_getsrc_die(cu, pc - bias) : NULL;
    int lineno = 0;
    if (line && dwarf_lineno(line, &lineno) == 0 && lineno > 0) {
        proto.file = source_path(s, comp_dir_of(cu), dwarf_linesrc(line, NULL, NULL));
        proto.line = proto.file ? (unsigned)lineno : 0;
    }
    if (cu)
        add_dwarf_frames(s, l, cu, pc - bias, &proto, symbol);
    if (l->n == 0 || l->v[l->n - 1].inlined) { /* no DWARF, or no subprogram around */
        proto.function = symbol;
        proto.inlined = false;
        push_frame(l, &proto);
    }
}

/* L's frames into the cache, for the next report. */
static void keep_frames(struct vt_symbol_cache *c, const struct frame_list *l)
{
    struct vt_cached_frame *kept = xcalloc(l->n, sizeof *kept);
    for (size_t i = 0; i < l->n; i++)
        kept[i] =
            (struct vt_cached_frame){l->v[i].function, l->v[i].file, l->v[i].line, l->v[i].inlined};
    vt_symbol_cache_add(c, l->v[0].offset, kept, l->n);
}

size_t vt_symbolize(struct vt_symbolizer *s, uint64_t address, uint64_t epoch,
                    const struct vt_frame **frames)
{
    struct address_key key = {address, epoch};
    struct address_entry *e;
    HASH_FIND(hh, s->cache, &key, sizeof key, e);
    if (!e) {
        struct frame_list l = {0};
        struct vt_symbol_cache *keep = NULL;
        resolve(s, address, epoch, &l, &keep);
        e = xcalloc(1, sizeof *e);
        e->key = key;
        e->frames = l.v;
        e->nframes = l.n;
        HASH_ADD(hh, s->cache, key, sizeof e->key, e);
        if (keep)
            keep_frames(keep, &l);
    }
    *frames = e->frames;
    return e->nframes;
}

const struct vt_frame *vt_symbolize_python(struct vt_symbolizer *s,
                                           const struct vt_dump_pyframe *py)
{
    struct python_entry *e;
    HASH_FIND(hh, s->python, &py->id, sizeof py->id, e);
    if (e)
        return &e->frame;
    e = xcalloc(1, sizeof *e);
    e->id = py->id;
    e->frame.function = py->function;
    e->frame.file = py->file;
    e->frame.line = py->line > UINT32_MAX ? 0 : (unsigned)py->line;
    e->frame.module = "python";
    e->frame.python = true;
    HASH_ADD(hh, s->python, id, sizeof e->id, e);
    return &e->frame;
}
