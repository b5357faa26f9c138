/* SPDX-License-Identifier: MIT */
#include "pypeek.h"

#include "tracing.h"

#include <errno.h>
#include <sys/uio.h>

#define BATCH 64 /* pieces per system call */

/* A seccomp filter or a kernel without the call: no reads, no more tries. */
static int refused;

/* Bytes copied from the N pieces, or -1. */
static ssize_t copy(const struct vt_peek_piece *pieces, size_t n)
{
    struct iovec local[BATCH], remote[BATCH];
    for (size_t i = 0; i < n; i++) {
        local[i] = (struct iovec){pieces[i].into, pieces[i].size};
        remote[i] = (struct iovec){(void *)(uintptr_t)pieces[i].at, pieces[i].size};
    }
    int saved = errno;
    /* A thread's id names its process here: the tracer's cached one costs no call. */
    ssize_t got = process_vm_readv(vt_tid(), local, n, remote, n, 0);
    if (got < 0 && (errno == ENOSYS || errno == EPERM))
        __atomic_store_n(&refused, 1, __ATOMIC_RELAXED);
    errno = saved;
    return got;
}

size_t vt_peek_many(const struct vt_peek_piece *pieces, size_t n)
{
    size_t done = 0;
    while (done < n && !__atomic_load_n(&refused, __ATOMIC_RELAXED)) {
        size_t batch = n - done < BATCH ? n - done : BATCH, whole = 0;
        ssize_t got = copy(pieces + done, batch);
        /* The call stops at the first piece it cannot read: count the whole ones. */
        while (whole < batch && got >= (ssize_t)pieces[done + whole].size)
            got -= (ssize_t)pieces[done + whole++].size;
        done += whole;
        if (whole < batch)
            break;
    }
    return done;
}

int vt_peek(const void *at, void *into, size_t n)
{
    struct vt_peek_piece piece = {at, into, n};
    return vt_peek_many(&piece, 1) == 1 ? 0 : -1;
}
