/* SPDX-License-Identifier: MIT */
/* libunwind checks that an address is readable before it reads there (every
 * unw_step with its conservative checks, a guessed frame, a signal frame):
 * by writing one byte from it into a pipe of its own, which write() refuses
 * with EFAULT. Version 1.6 and 1.7 open that pipe when libunwind sets
 * itself up (the first unwind of the process), 1.8 on the first check; the
 * pipe takes the lowest free descriptors (3 and 4 in a fresh process), and
 * once the program has closed and reused those numbers libunwind reads a
 * byte from the program's descriptor, writes bytes of memory into another,
 * or closes both. Here libunwind's own calls to pipe/pipe2, read, write,
 * close and syscall (its GOT slots: the program's calls are untouched) are
 * bound to functions that give it a pipe of two numbers no descriptor can
 * have and answer its check without a descriptor: rt_sigprocmask with an
 * invalid "how" copies the set in first (EFAULT where the memory cannot be
 * read) and then refuses (EINVAL), changing nothing. */
#include "unwind_checks.h"

#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <libunwind.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

/* Descriptors of the pipe libunwind gets: negative, no file's. */
enum { CHECK_READ_END = -0x5654, CHECK_WRITE_END = -0x5655 };

/* 0 when the word at ADDR can be read (errno kept), else -1 with EFAULT. */
static int readable(const void *addr)
{
    int saved = errno;
    long r = syscall(SYS_rt_sigprocmask, -1, addr, NULL, (size_t)8);
    if (r < 0 && errno == EFAULT)
        return -1;
    errno = saved;
    return 0;
}

static int check_pipe2(int fds[2], int flags)
{
    (void)flags;
    fds[0] = CHECK_READ_END;
    fds[1] = CHECK_WRITE_END;
    return 0;
}

static int check_pipe(int fds[2])
{
    return check_pipe2(fds, 0);
}

/* Draining the pipe: there is never anything in it. */
static ssize_t check_read(int fd, void *buf, size_t n)
{
    if (fd != CHECK_READ_END)
        return read(fd, buf, n);
    errno = EAGAIN;
    return -1;
}

static ssize_t check_write(int fd, const void *buf, size_t n)
{
    if (fd != CHECK_WRITE_END)
        return write(fd, buf, n);
    return readable(buf) == 0 ? (ssize_t)(n ? 1 : 0) : -1;
}

static int check_close(int fd)
{
    return fd == CHECK_READ_END || fd == CHECK_WRITE_END ? 0 : close(fd);
}

static long check_syscall(long number, ...)
{
    va_list ap;
    long a[6];
    va_start(ap, number);
    for (int i = 0; i < 6; i++)
        a[i] = va_arg(ap, long);
    va_end(ap);
    /* the descriptor was passed as an int: its register's upper half is not */
    if (number == SYS_write && (int)a[0] == CHECK_WRITE_END)
        return check_write((int)a[0], (const void *)a[1], (size_t)a[2]);
    return syscall(number, a[0], a[1], a[2], a[3], a[4], a[5]);
}

static const struct {
    const char *name;
    void *replacement;
} replacements[] = {
    {"pipe2", (void *)check_pipe2}, {"pipe", (void *)check_pipe},
    {"read", (void *)check_read},   {"write", (void *)check_write},
    {"close", (void *)check_close}, {"syscall", (void *)check_syscall},
};

#if defined(__x86_64__)
#define IS_SLOT(type) ((type) == R_X86_64_JUMP_SLOT || (type) == R_X86_64_GLOB_DAT)
#elif defined(__aarch64__)
#define IS_SLOT(type) ((type) == R_AARCH64_JUMP_SLOT || (type) == R_AARCH64_GLOB_DAT)
#else
#define IS_SLOT(type) 0
#endif

static void *replacement_for(const char *name)
{
    for (size_t i = 0; i < sizeof replacements / sizeof replacements[0]; i++)
        if (!strcmp(replacements[i].name, name))
            return replacements[i].replacement;
    return NULL;
}

/* Stores P in SLOT, making its page writable for the moment where it lies
 * in the object's read-only part (RELRO, or the whole GOT with BIND_NOW). */
static void set_slot(void **slot, void *p, const ElfW(Ehdr) * elf, uintptr_t bias)
{
    const ElfW(Phdr) *ph = (const ElfW(Phdr) *)((const char *)elf + elf->e_phoff);
    uintptr_t at = (uintptr_t)slot, page = (uintptr_t)sysconf(_SC_PAGESIZE);
    for (unsigned i = 0; i < elf->e_phnum; i++)
        if (ph[i].p_type == PT_GNU_RELRO && at >= bias + ph[i].p_vaddr &&
            at < bias + ph[i].p_vaddr + ph[i].p_memsz) {
            void *start = (void *)(at & ~(page - 1));
            if (mprotect(start, page, PROT_READ | PROT_WRITE) != 0)
                return;
            __atomic_store_n(slot, p, __ATOMIC_RELEASE);
            mprotect(start, page, PROT_READ);
            return;
        }
    __atomic_store_n(slot, p, __ATOMIC_RELEASE);
}

/* The value of the dynamic entry TAG of MAP (0 if none); an address where
 * ADDRESS (glibc relocates most of those in place, others stay relative). */
static uintptr_t dyn_value(const struct link_map *map, ElfW(Sxword) tag, int address)
{
    for (const ElfW(Dyn) *d = map->l_ld; d->d_tag != DT_NULL; d++)
        if (d->d_tag == tag)
            return address && d->d_un.d_ptr < map->l_addr ? map->l_addr + d->d_un.d_ptr
                                                          : d->d_un.d_val;
    return 0;
}

static void *own_base(void)
{
    Dl_info info;
    return dladdr((void *)vt_unwind_checks_quiet, &info) ? info.dli_fbase : NULL;
}

/* The relocations of one table (RELA, SIZE bytes; NULL: none) of the object MAP. */
static void bind_table(const struct link_map *map, const ElfW(Ehdr) * elf, const ElfW(Rela) * rela,
                       size_t size, const ElfW(Sym) * symtab, const char *strtab)
{
    if (!rela)
        return;
    for (size_t i = 0; i < size / sizeof *rela; i++) {
        void *to;
        if (!IS_SLOT(ELF64_R_TYPE(rela[i].r_info)) || !ELF64_R_SYM(rela[i].r_info))
            continue;
        to = replacement_for(strtab + symtab[ELF64_R_SYM(rela[i].r_info)].st_name);
        if (to)
            set_slot((void **)(map->l_addr + rela[i].r_offset), to, elf, map->l_addr);
    }
}

void vt_unwind_checks_quiet(void)
{
    Dl_info info;
    struct link_map *map = NULL;
    if (!dladdr1((void *)unw_backtrace, &info, (void **)&map, RTLD_DL_LINKMAP) || !map ||
        !map->l_ld || !info.dli_fbase || info.dli_fbase == own_base())
        return; /* libunwind built into us: our own calls would come here */
    const ElfW(Sym) *symtab = (const ElfW(Sym) *)dyn_value(map, DT_SYMTAB, 1);
    const char *strtab = (const char *)dyn_value(map, DT_STRTAB, 1);
    if (!symtab || !strtab)
        return;
    bind_table(map, info.dli_fbase, (const ElfW(Rela) *)dyn_value(map, DT_JMPREL, 1),
               dyn_value(map, DT_PLTRELSZ, 0), symtab, strtab);
    bind_table(map, info.dli_fbase, (const ElfW(Rela) *)dyn_value(map, DT_RELA, 1),
               dyn_value(map, DT_RELASZ, 0), symtab, strtab);
}
