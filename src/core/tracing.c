/* SPDX-License-Identifier: MIT */
#include "tracing.h"

#include <pthread.h>
#include <sys/syscall.h>
#include <unistd.h>

__thread struct vt_thread vt_thread_state __attribute__((tls_model("initial-exec")));

int vt_tracing_state_now = VT_TRACING_UNINIT;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pid_t lock_owner; /* the thread holding the lock, 0 if none */

void vt_tracing_set(enum vt_tracing_state state)
{
    __atomic_store_n(&vt_tracing_state_now, (int)state, __ATOMIC_RELEASE);
}

pid_t vt_tid(void)
{
    if (!vt_thread_state.tid)
        vt_thread_state.tid = (pid_t)syscall(SYS_gettid);
    return vt_thread_state.tid;
}

void vt_lock(void)
{
    pthread_mutex_lock(&lock);
    __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
}

void vt_unlock(void)
{
    __atomic_store_n(&lock_owner, 0, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&lock);
}

int vt_trylock(void)
{
    int r = pthread_mutex_trylock(&lock);
    if (r == 0)
        __atomic_store_n(&lock_owner, vt_tid(), __ATOMIC_RELAXED);
    return r;
}

int vt_lock_held_here(void)
{
    return __atomic_load_n(&lock_owner, __ATOMIC_RELAXED) == vt_tid();
}

void vt_lock_after_fork_child(void)
{
    pthread_mutex_init(&lock, NULL);
    lock_owner = 0;
    vt_thread_state.tid = 0;
}
