/* SPDX-License-Identifier: MIT */
/* Finding a symbol in a loaded object by reading its dynamic symbol table
 * ourselves: the one way to reach libc's dlsym/dlvsym without calling a
 * dlsym that we interpose. */
#ifndef VRAMTRACE_ELF_SYMBOL_H
#define VRAMTRACE_ELF_SYMBOL_H

#include <stdint.h>

/* Address of the defined dynamic symbol NAME in the loaded object whose
 * path ends with SONAME (e.g. "libc.so.6"), or NULL. */
void *vt_elf_lookup(const char *soname, const char *name);

struct link_map;

/* NAME (of VERSION, or the default version when VERSION is NULL) defined in
 * the object MAP itself, not its dependencies; NULL if it has none. */
void *vt_elf_lookup_map(const struct link_map *map, const char *name, const char *version);

/* The same as the dynamic linker binds a reference to NAME of VERSION: an
 * unversioned definition in MAP satisfies it too. */
void *vt_elf_binding_map(const struct link_map *map, const char *name, const char *version);

/* 1 when MAP imports the symbol NAME (binds it by name at load time), with
 * *VERSION the version it requires (as "libcudart.so.13") or NULL. */
int vt_elf_imports(const struct link_map *map, const char *name, const char **version);

/* An address of a dynamic section's entry (d_ptr VALUE) in the object
 * loaded at BASE: glibc relocates most in place, others stay relative. */
uintptr_t vt_elf_dyn_ptr(uintptr_t base, uintptr_t value);

/* strcmp(a, b) == 0 that calls nothing (safe before sanitizers start). */
int vt_str_eq(const char *a, const char *b);

#endif
