/* SPDX-License-Identifier: MIT */
#include "exiting.h"

#include "elf_symbol.h"
#include "stacks.h"

#include <dlfcn.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>

#define EXIT_FRAMES_MAX 256

/* The C library's exit(): where it starts and one past its end. */
static int exit_function(uintptr_t *start, uintptr_t *end)
{
    void *exit_fn = vt_elf_lookup("libc.so.6", "exit");
    const ElfW(Sym) *sym = NULL;
    Dl_info info;
    if (!exit_fn || !dladdr1(exit_fn, &info, (void **)&sym, RTLD_DL_SYMENT) || !sym ||
        !sym->st_size)
        return -1;
    *start = (uintptr_t)exit_fn;
    *end = *start + sym->st_size;
    return 0;
}

int vt_process_exiting(void)
{
    uintptr_t frames[EXIT_FRAMES_MAX];
    uintptr_t start, end;
    int n;
    if (exit_function(&start, &end) < 0)
        return 0;
    /* The walk the stacks take: libunwind before 1.7 ends the stack at a
     * signed return address (aarch64, pac-ret), often before exit's. */
    n = vt_stack_return_addresses(frames, EXIT_FRAMES_MAX);
    /* Return addresses: the call to the exit handlers is exit's last
     * instruction, so its return address is one past the function. */
    for (int i = 0; i < n; i++)
        if (frames[i] - 1 >= start && frames[i] - 1 < end)
            return 1;
    return 0;
}
