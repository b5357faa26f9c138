/* SPDX-License-Identifier: MIT */
/* A module's sorted symbols (tools/read/symbol_table.c) name every address
 * as dwfl_module_addrinfo does: the first, second and last byte of symbols,
 * the bytes before and after them, and addresses between, in the
 * shared libraries this test runs with (libc, libdw, libelf, libstdc++,
 * libz: stripped and not, sizeless assembly symbols, aliases, locals) and
 * any further ELF files named on its command line (FILE STEP: every
 * STEP-th symbol of FILE). */
#include <link.h>
#include <stdlib.h>
#include <string.h>

#include "symbol_table.h"
#include "unit_check.h"

static size_t compared;

static void compare_at(Dwfl_Module *mod, const struct vt_symbol_table *t, GElf_Addr addr,
                       const char *path)
{
    GElf_Off off;
    GElf_Sym sym;
    const char *want = dwfl_module_addrinfo(mod, addr, &off, &sym, NULL, NULL, NULL);
    const char *got = t ? vt_symbol_table_find(t, addr) : NULL;
    compared++;
    if (want == got || (want && got && !strcmp(want, got)))
        return;
    fprintf(stderr, "%s+0x%llx: libdw %s, the table %s\n", path, (unsigned long long)addr,
            want ? want : "(none)", got ? got : "(none)");
    unit_failures++;
}

/* Every STEP-th symbol's edges (0: of about a thousand symbols), and as
 * many addresses evenly spread over the module. */
static void compare_module(const char *path, int step)
{
    static const Dwfl_Callbacks callbacks = {
        .find_elf = dwfl_build_id_find_elf,
        .find_debuginfo = dwfl_standard_find_debuginfo,
        .section_address = dwfl_offline_section_address,
    };
    Dwfl *dwfl = dwfl_begin(&callbacks);
    dwfl_report_begin(dwfl);
    Dwfl_Module *mod = dwfl_report_elf(dwfl, path, path, -1, 0x10000, true);
    dwfl_report_end(dwfl, NULL, NULL);
    CHECK(path, mod != NULL);
    if (!mod) {
        dwfl_end(dwfl);
        return;
    }
    struct vt_symbol_table *t = vt_symbol_table_read(mod);
    int n = dwfl_module_getsymtab(mod);
    if (step <= 0)
        step = n / 1000 + 1;
    Dwarf_Addr start, end;
    dwfl_module_info(mod, NULL, &start, &end, NULL, NULL, NULL, NULL);
    for (int i = 1; i < n; i += step) {
        GElf_Sym sym;
        GElf_Addr value;
        if (!dwfl_module_getsym_info(mod, i, &sym, &value, NULL, NULL, NULL))
            continue;
        const GElf_Addr at[] = {value - 1,           value,
                                value + 1,           value + sym.st_size - 1,
                                value + sym.st_size, value + sym.st_size + 1};
        for (size_t k = 0; k < sizeof at / sizeof at[0]; k++)
            compare_at(mod, t, at[k], path);
    }
    GElf_Addr stride = (end - start) / (GElf_Addr)(n / step + 1) + 1;
    for (GElf_Addr a = start; a < end; a += stride)
        compare_at(mod, t, a, path);
    vt_symbol_table_free(t);
    dwfl_end(dwfl);
}

static int each_library(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    static const char *const wanted[] = {"libc.so", "libdw", "libelf", "libstdc++", "libz."};
    for (size_t i = 0; i < sizeof wanted / sizeof wanted[0]; i++)
        if (info->dlpi_name[0] && strstr(info->dlpi_name, wanted[i]))
            compare_module(info->dlpi_name, 0);
    return 0;
}

int main(int argc, char **argv)
{
    dl_iterate_phdr(each_library, NULL);
    CHECK("addresses compared", compared > 10000);
    for (int i = 1; i < argc; i += 2) /* FILE STEP: e.g. libtorch_cpu.so 5000 */
        compare_module(argv[i], i + 1 < argc ? atoi(argv[i + 1]) : 1);
    printf("%zu addresses named alike\n", compared);
    return unit_result("symbol_table");
}
