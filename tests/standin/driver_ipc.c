/* SPDX-License-Identifier: MIT */
/* IPC handles of device memory between processes of one machine
 * (cuIpcGetMemHandle, cuIpcOpenMemHandle, cuIpcCloseMemHandle). The stand-in
 * GPU's memory is host memory, so exporting an allocation moves it, in
 * place, into shared memory (a memfd mapped over it); the handle names the
 * exporting process and that descriptor, which another process of the same
 * user opens through /proc and maps. What a process opens is a mapping of
 * another's allocation, not an allocation of its own: it is charged to no
 * GPU and freed by cuIpcCloseMemHandle. */
#include "driver_internal.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define IPC_MAGIC 0x49504331u

/* What a handle carries (within its 64 bytes). */
struct ipc_handle {
    unsigned magic;
    int pid;
    int fd;
    int device;
    size_t bytes;
};

/* The mappings this process opened. */
struct sopened {
    uintptr_t address;
    size_t bytes;
    UT_hash_handle hh;
};
static struct sopened *g_opened;

static size_t page_round(size_t bytes)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    return (bytes + page - 1) / page * page;
}

/* Moves the allocation A (its pages) into shared memory: its descriptor,
 * or -1. */
static int share_locked(struct salloc *a)
{
    size_t bytes = page_round(a->bytes);
    int fd = memfd_create("standin-cuda-ipc", MFD_CLOEXEC);
    if (fd < 0)
        return -1;
    if (pwrite(fd, (void *)a->key, bytes, 0) != (ssize_t)bytes ||
        mmap((void *)a->key, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0) ==
            MAP_FAILED) {
        close(fd);
        return -1;
    }
    return fd;
}

void ipc_unshare(uintptr_t address, size_t bytes, int fd)
{
    /* ordinary memory again, for the allocator that owns these pages */
    mmap((void *)address, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED,
         -1, 0);
    close(fd);
}

EXPORT CUresult cuIpcGetMemHandle(CUipcMemHandle *pHandle, CUdeviceptr dptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!pHandle)
        return CUDA_ERROR_INVALID_VALUE;
    struct ipc_handle h = {IPC_MAGIC, (int)getpid(), -1, 0, 0};
    pthread_mutex_lock(&g_lock);
    struct salloc *a = containing_locked((uintptr_t)dptr);
    if (a && a->kind == K_DEVICE && a->key == (uintptr_t)dptr) { /* cuMemAlloc's, its base */
        if (!a->ipc_fd)
            a->ipc_fd = share_locked(a) + 1;
        h.fd = a->ipc_fd - 1;
        h.device = a->device;
        h.bytes = a->bytes;
    }
    pthread_mutex_unlock(&g_lock);
    if (h.fd < 0)
        return CUDA_ERROR_INVALID_VALUE;
    memset(pHandle, 0, sizeof *pHandle);
    memcpy(pHandle->reserved, &h, sizeof h);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcOpenMemHandle_v2(CUdeviceptr *pdptr, CUipcMemHandle handle,
                                      unsigned int Flags)
{
    struct ipc_handle h;
    memcpy(&h, handle.reserved, sizeof h);
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!live_ctx())
        return CUDA_ERROR_INVALID_CONTEXT;
    if (!pdptr || h.magic != IPC_MAGIC || Flags > CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS)
        return CUDA_ERROR_INVALID_VALUE;
    if (h.pid == (int)getpid()) /* a process opens no handle of its own */
        return CUDA_ERROR_INVALID_CONTEXT;
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd/%d", h.pid, h.fd);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return CUDA_ERROR_INVALID_HANDLE; /* the exporter is gone, or its memory freed */
    void *p = mmap(NULL, h.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    struct sopened *o = p != MAP_FAILED ? calloc(1, sizeof *o) : NULL;
    if (!o) {
        if (p != MAP_FAILED)
            munmap(p, h.bytes);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    o->address = (uintptr_t)p;
    o->bytes = h.bytes;
    pthread_mutex_lock(&g_lock);
    HASH_ADD(hh, g_opened, address, sizeof o->address, o);
    pthread_mutex_unlock(&g_lock);
    *pdptr = (CUdeviceptr)o->address;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuIpcCloseMemHandle(CUdeviceptr dptr)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    uintptr_t address = (uintptr_t)dptr;
    struct sopened *o;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_opened, &address, sizeof address, o);
    if (o)
        HASH_DEL(g_opened, o);
    pthread_mutex_unlock(&g_lock);
    if (!o)
        return CUDA_ERROR_INVALID_VALUE;
    munmap((void *)o->address, o->bytes);
    free(o);
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuIpcGetMemHandle", 4010, cuIpcGetMemHandle)
PROC("cuIpcOpenMemHandle", 11000, cuIpcOpenMemHandle_v2)
PROC("cuIpcCloseMemHandle", 4010, cuIpcCloseMemHandle)
