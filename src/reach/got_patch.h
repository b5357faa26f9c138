/* SPDX-License-Identifier: MIT */
/* Calls that the dynamic linker bound before the tracer was loaded (vramtrace
 * attach): the GOT entries of every loaded object repointed to our
 * definitions, as LD_PRELOAD's interposition would have bound them, and put
 * back at detach. x86_64 only (its JUMP_SLOT and GLOB_DAT relocations). */
#ifndef VRAMTRACE_GOT_PATCH_H
#define VRAMTRACE_GOT_PATCH_H

#include <stdint.h>

/* Our definition that a reference to NAME is to reach, or NULL: leave it. */
typedef void *(*vt_got_choose_fn)(const char *name);

/* Repoints, in every loaded object but ours and the dynamic linker, each
 * JUMP_SLOT and GLOB_DAT entry of a symbol CHOOSE names; remembers each
 * entry's old value. CHOOSE is kept for vt_got_patch_new. Returns how many
 * entries were changed, -1 where the machine is not x86_64. */
int vt_got_patch_loaded(vt_got_choose_fn choose);

/* Objects loaded since the last patching (dlopen) are patched the same
 * way; nothing when none was or when nothing is patched. Cheap: called at
 * each dlsym. */
void vt_got_patch_new(void);

/* Every entry still holding what we wrote gets its old value back (entries
 * of objects unloaded meanwhile are left alone); returns how many. */
int vt_got_restore(void);

struct dl_phdr_info;
/* 1 for the objects never patched: the dynamic linker and the tracer. */
int vt_got_skipped(const struct dl_phdr_info *info);

/* Held around vt_got_patch_word, outside dl_iterate_phdr (the order
 * vt_got_patch_loaded takes them in). */
void vt_got_lock(void);
void vt_got_unlock(void);

/* Writes OURS into SLOT (in the object loaded at BIAS) where it still
 * holds OLD, remembered for vt_got_restore like a GOT entry; 0 when
 * written, -1 otherwise (not x86_64, patched already). */
int vt_got_patch_word(void **slot, void *old, void *ours, uintptr_t bias);

/* Our own exported definition of NAME (default version), or NULL. */
void *vt_own_export(const char *name);

#endif
