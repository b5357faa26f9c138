/* SPDX-License-Identifier: MIT */
#include "tracing.h"

#include <linux/futex.h>
#include <stddef.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct vt_thread vt_thread_state __attribute__((tls_model("initial-exec")));

int vt_tracing_state_now = VT_TRACING_UNINIT;

/* The lock: a futex word (0 free, 1 held, 2 held and waited for), the
 * uncontended case one atomic instruction each way where a pthread mutex
 * took some 55 instructions a lock and unlock, twice per allocation. */
static int lock_word;
static pid_t lock_owner; /* the thread holding the lock, 0 if none */

void vt_tracing_set(enum vt_tracing_state state)
{
    __atomic_store_n(&vt_tracing_state_now, (int)state, __ATOMIC_RELEASE);
}

pid_t vt_tid_first(void)
{
    vt_thread_state.tid = (pid_t)syscall(SYS_gettid);
    return vt_thread_state.tid;
}

/* Held by another thread: marked waited for, then slept on until free. */
static void lock_contended(int seen)
{
    if (seen != 2)
        seen = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
    while (seen != 0) {
        syscall(SYS_futex, &lock_word, FUTEX_WAIT_PRIVATE, 2, NULL, NULL, 0);
        seen = __atomic_exchange_n(&lock_word, 2, __ATOMIC_ACQUIRE);
    }
}

void vt_lock(void)
{
    int seen = 0;
    if (!__atomic_compare_exchange_n(&lock_word, &seen, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        lock_contended(seen);
    __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
}

void vt_unlock(void)
{
    __atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
    if (__atomic_exchange_n(&lock_word, 0, __ATOMIC_RELEASE) == 2)
        syscall(SYS_futex, &lock_word, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
}

int vt_trylock(void)
{
    int seen = 0;
    if (!__atomic_compare_exchange_n(&lock_word, &seen, 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return -1;
    __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
    return 0;
}

int vt_lock_held_here(void)
{
    return __atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == vt_tid();
}

void vt_lock_after_fork_child(void)
{
    __atomic_store_n(&lock_word, 0, __ATOMIC_RELAXED);
    lock_owner = 0;
    vt_thread_state.tid = 0;
}
