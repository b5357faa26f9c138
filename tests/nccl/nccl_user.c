/* SPDX-License-Identifier: MIT */
/* A program of NCCL's (tests/nccl/nccl_standin.c): a communicator it never
 * destroys (NCCL's buffers: known framework memory) and a buffer of its own
 * from ncclMemAlloc that it never frees (its leak). */
#include <stddef.h>
#include <stdio.h>

typedef struct ncclComm *ncclComm_t;
typedef struct {
    char internal[128];
} ncclUniqueId;
int ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId id, int rank);
int ncclMemAlloc(void **ptr, size_t size);

int main(void)
{
    ncclComm_t comm;
    ncclUniqueId id = {{0}};
    void *buffer;
    if (ncclCommInitRank(&comm, 1, id, 0) != 0) /* CALL:comm */
        return 1;
    if (ncclMemAlloc(&buffer, 1 << 20) != 0) /* LEAK:buffer */
        return 1;
    puts("done");
    return 0;
}
