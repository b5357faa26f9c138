/* SPDX-License-Identifier: MIT */
/* A module's symbols sorted by address, read once: the symbol an address
 * is in, chosen as dwfl_module_addrinfo chooses it, without its walk over
 * every symbol of the module for each address (libtorch_cpu.so has 546,000:
 * 20 ms an address). */
#ifndef VT_SYMBOL_TABLE_H
#define VT_SYMBOL_TABLE_H

#include <elfutils/libdwfl.h>

struct vt_symbol_table;

/* MOD's symbol tables (.symtab, else .dynsym, and the aux table), read
 * now; NULL when it has none. MOD must outlive the table. */
struct vt_symbol_table *vt_symbol_table_read(Dwfl_Module *mod);
void vt_symbol_table_free(struct vt_symbol_table *t);

/* The name of the symbol ADDRESS (as reported in MOD's Dwfl) lies in, or
 * NULL: the same answer as dwfl_module_addrinfo's. */
const char *vt_symbol_table_find(const struct vt_symbol_table *t, GElf_Addr address);

#endif
