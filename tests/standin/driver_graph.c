/* SPDX-License-Identifier: MIT */
/* CUDA graphs: kernel, empty and memory nodes, instantiation, launches and
 * the devices' graph memory pools, as the driver documents graph memory
 * nodes: an allocation node's address is fixed when the node is made
 * (virtual only); a launch takes the physical memory of its allocations
 * from the device's graph memory pool, which grows as needed and keeps
 * what the graphs' frees give back until cuDeviceGraphMemTrim (or the
 * device's primary context is reset); a graph's allocation lives until a
 * free node, cuMemFreeAsync or cuMemFree frees it, and a graph whose
 * allocation is still live cannot be launched again unless instantiated
 * with CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH. Launches run at
 * once (no kernel runs here). */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define GRAPH_MAGIC 0x47524150u
#define EXEC_MAGIC 0x47455845u

enum node_type { NODE_KERNEL, NODE_MEM_ALLOC, NODE_MEM_FREE };

/* The memory of an allocation node: its addresses, reserved at the node. */
struct galloc {
    uintptr_t va;
    size_t bytes;
    int device;
    int live;  /* a launch allocated it and nothing freed it since */
    int users; /* the graph and its instantiations */
    UT_hash_handle hh;
};

struct snode {
    enum node_type type;
    struct galloc *alloc; /* memory nodes */
    struct snode *next;
};

struct sgraph {
    unsigned magic;
    struct snode *nodes, **tail;
};

struct sexec {
    unsigned magic;
    unsigned long long flags;
    size_t count;
    struct snode nodes[]; /* copies: the graph may go first */
};

/* Each device's graph memory pool, in bytes. */
static struct {
    size_t used, used_high, reserved, reserved_high;
} g_pool[MAX_DEVICES];

static struct galloc *g_galloc; /* by address */

static int valid_graph(struct sgraph *g)
{
    return g && g->magic == GRAPH_MAGIC;
}

/* One user less; the addresses go with the last. Lock held. */
static void put_galloc_locked(struct galloc *a)
{
    if (--a->users > 0 || a->live)
        return;
    HASH_DEL(g_galloc, a);
    munmap((void *)a->va, a->bytes);
    free(a);
}

static CUresult add_node(struct sgraph *g, enum node_type type, struct galloc *a,
                         CUgraphNode *out)
{
    struct snode *n = calloc(1, sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->type = type;
    n->alloc = a;
    pthread_mutex_lock(&g_lock);
    *g->tail = n;
    g->tail = &n->next;
    pthread_mutex_unlock(&g_lock);
    if (out)
        *out = (CUgraphNode)n;
    return CUDA_SUCCESS;
}

CUresult graph_new(struct sgraph **out)
{
    struct sgraph *g = calloc(1, sizeof *g);
    if (!g)
        return CUDA_ERROR_OUT_OF_MEMORY;
    g->magic = GRAPH_MAGIC;
    g->tail = &g->nodes;
    *out = g;
    return CUDA_SUCCESS;
}

/* An allocation node of BYTES on DEVICE: its addresses now, memory at launch. */
CUresult graph_add_alloc(struct sgraph *g, size_t bytes, int device, CUdeviceptr *dptr,
                         CUgraphNode *node)
{
    if (!valid_graph(g) || !dptr || bytes == 0)
        return CUDA_ERROR_INVALID_VALUE;
    if (device < 0 || device >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    struct galloc *a = calloc(1, sizeof *a);
    void *va = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                    -1, 0);
    if (!a || va == MAP_FAILED) {
        free(a);
        return CUDA_ERROR_OUT_OF_MEMORY;
    }
    a->va = (uintptr_t)va;
    a->bytes = bytes;
    a->device = device;
    a->users = 1;
    pthread_mutex_lock(&g_lock);
    HASH_ADD(hh, g_galloc, va, sizeof a->va, a);
    pthread_mutex_unlock(&g_lock);
    CUresult r = add_node(g, NODE_MEM_ALLOC, a, node);
    if (r == CUDA_SUCCESS)
        *dptr = (CUdeviceptr)a->va;
    return r;
}

/* A free node of a graph allocation (made in any graph). */
CUresult graph_add_free(struct sgraph *g, CUdeviceptr dptr, CUgraphNode *node)
{
    uintptr_t va = (uintptr_t)dptr;
    struct galloc *a;
    if (!valid_graph(g))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_galloc, &va, sizeof va, a);
    if (a)
        a->users++;
    pthread_mutex_unlock(&g_lock);
    if (!a)
        return CUDA_ERROR_INVALID_VALUE;
    return add_node(g, NODE_MEM_FREE, a, node);
}

CUresult graph_add_kernel(struct sgraph *g, CUgraphNode *node)
{
    return valid_graph(g) ? add_node(g, NODE_KERNEL, NULL, node) : CUDA_ERROR_INVALID_VALUE;
}

void graph_destroy(struct sgraph *g)
{
    struct snode *n = g->nodes;
    g->magic = 0;
    pthread_mutex_lock(&g_lock);
    while (n) {
        struct snode *next = n->next;
        if (n->alloc)
            put_galloc_locked(n->alloc);
        free(n);
        n = next;
    }
    pthread_mutex_unlock(&g_lock);
    free(g);
}

/* A graph allocation freed outside a graph (cuMemFreeAsync, cuMemFree):
 * its memory goes back to the pool. CUDA_ERROR_INVALID_VALUE when ADDRESS
 * is no live graph allocation. */
CUresult graph_free(uintptr_t address)
{
    struct galloc *a;
    CUresult r = CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    HASH_FIND(hh, g_galloc, &address, sizeof address, a);
    if (a && a->live) {
        a->live = 0;
        g_pool[a->device].used -= a->bytes;
        r = CUDA_SUCCESS;
        a->users++; /* put_galloc_locked below balances this */
        put_galloc_locked(a);
    }
    pthread_mutex_unlock(&g_lock);
    return r;
}

/* The primary context of DEVICE is torn down: its graph memory goes. */
void graph_teardown_locked(int device)
{
    struct galloc *a, *tmp;
    HASH_ITER(hh, g_galloc, a, tmp) {
        if (a->device == device && a->live) {
            a->live = 0;
            a->users++;
            put_galloc_locked(a);
        }
    }
    return_capacity_locked(device, g_pool[device].reserved);
    g_pool[device].used = g_pool[device].reserved = 0;
}

EXPORT CUresult cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraph || flags != 0)
        return CUDA_ERROR_INVALID_VALUE;
    return graph_new((struct sgraph **)phGraph);
}

EXPORT CUresult cuGraphAddKernelNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph,
                                        const CUgraphNode *dependencies, size_t numDependencies,
                                        const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
    (void)dependencies, (void)numDependencies;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphNode || !nodeParams || (!nodeParams->func && !nodeParams->kern))
        return CUDA_ERROR_INVALID_VALUE;
    return graph_add_kernel((struct sgraph *)hGraph, phGraphNode);
}

/* Graph memory is device memory of the pool's device: host, managed and
 * IPC-capable pools are not supported. */
EXPORT CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                       const CUgraphNode *dependencies, size_t numDependencies,
                                       CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
    (void)dependencies, (void)numDependencies;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphNode || !nodeParams || nodeParams->poolProps.allocType != CU_MEM_ALLOCATION_TYPE_PINNED ||
        nodeParams->poolProps.location.type != CU_MEM_LOCATION_TYPE_DEVICE ||
        nodeParams->poolProps.handleTypes != CU_MEM_HANDLE_TYPE_NONE)
        return CUDA_ERROR_INVALID_VALUE;
    return graph_add_alloc((struct sgraph *)hGraph, nodeParams->bytesize,
                           nodeParams->poolProps.location.id, &nodeParams->dptr, phGraphNode);
}

EXPORT CUresult cuGraphAddMemFreeNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                      const CUgraphNode *dependencies, size_t numDependencies,
                                      CUdeviceptr dptr)
{
    (void)dependencies, (void)numDependencies;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphNode)
        return CUDA_ERROR_INVALID_VALUE;
    return graph_add_free((struct sgraph *)hGraph, dptr, phGraphNode);
}

EXPORT CUresult cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec, CUgraph hGraph,
                                            unsigned long long flags)
{
    struct sgraph *g = (struct sgraph *)hGraph;
    size_t count = 0;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphExec || !valid_graph(g) || (flags & ~(unsigned long long)15))
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    for (struct snode *n = g->nodes; n; n = n->next)
        count++;
    struct sexec *e = calloc(1, sizeof *e + count * sizeof *e->nodes);
    if (e) {
        e->magic = EXEC_MAGIC;
        e->flags = flags;
        for (struct snode *n = g->nodes; n; n = n->next) {
            e->nodes[e->count] = *n;
            e->nodes[e->count++].next = NULL;
            if (n->alloc)
                n->alloc->users++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    if (!e)
        return CUDA_ERROR_OUT_OF_MEMORY;
    *phGraphExec = (CUgraphExec)e;
    return CUDA_SUCCESS;
}

/* Each device's pool grows to what the launch will use (memory it took for
 * devices before one that ran out stays in their pools). */
static CUresult take_pool_memory_locked(const size_t need[])
{
    for (int d = 0; d < g_ndev; d++) {
        size_t want = g_pool[d].used + need[d];
        if (want <= g_pool[d].reserved)
            continue;
        CUresult r = reserve_capacity_locked(d, want - g_pool[d].reserved);
        if (r != CUDA_SUCCESS)
            return r;
        g_pool[d].reserved = want;
        if (want > g_pool[d].reserved_high)
            g_pool[d].reserved_high = want;
    }
    return CUDA_SUCCESS;
}

static CUresult launch_locked(struct sexec *e)
{
    size_t need[MAX_DEVICES] = {0};
    int auto_free = (e->flags & CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH) != 0;
    for (size_t i = 0; i < e->count; i++) {
        struct galloc *a = e->nodes[i].alloc;
        if (e->nodes[i].type == NODE_MEM_ALLOC) {
            if (a->live && !auto_free)
                return CUDA_ERROR_INVALID_VALUE; /* not freed since the last launch */
            need[a->device] += a->live ? 0 : a->bytes;
        }
    }
    CUresult r = take_pool_memory_locked(need);
    if (r != CUDA_SUCCESS)
        return r;
    for (size_t i = 0; i < e->count; i++) {
        struct galloc *a = e->nodes[i].alloc;
        if (e->nodes[i].type == NODE_MEM_ALLOC && !a->live) {
            a->live = 1;
            g_pool[a->device].used += a->bytes;
            if (g_pool[a->device].used > g_pool[a->device].used_high)
                g_pool[a->device].used_high = g_pool[a->device].used;
        } else if (e->nodes[i].type == NODE_MEM_FREE && a->live) {
            a->live = 0;
            g_pool[a->device].used -= a->bytes;
        }
    }
    return CUDA_SUCCESS;
}

static CUresult graph_launch(CUgraphExec hGraphExec, CUstream hStream)
{
    struct sexec *e = (struct sexec *)hGraphExec;
    struct sctx *c;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!e || e->magic != EXEC_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    CUresult r = stream_ctx(hStream, &c);
    if (r != CUDA_SUCCESS)
        return r;
    pthread_mutex_lock(&g_lock);
    r = launch_locked(e);
    pthread_mutex_unlock(&g_lock);
    return r;
}

EXPORT CUresult cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
    return graph_launch(hGraphExec, hStream);
}

EXPORT CUresult cuGraphLaunch_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
    return graph_launch(hGraphExec, hStream);
}

/* The physical memory stays in the pool (and live allocations live). */
EXPORT CUresult cuGraphExecDestroy(CUgraphExec hGraphExec)
{
    struct sexec *e = (struct sexec *)hGraphExec;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!e || e->magic != EXEC_MAGIC)
        return CUDA_ERROR_INVALID_VALUE;
    e->magic = 0;
    pthread_mutex_lock(&g_lock);
    for (size_t i = 0; i < e->count; i++)
        if (e->nodes[i].alloc)
            put_galloc_locked(e->nodes[i].alloc);
    pthread_mutex_unlock(&g_lock);
    free(e);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphDestroy(CUgraph hGraph)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!valid_graph((struct sgraph *)hGraph))
        return CUDA_ERROR_INVALID_VALUE;
    graph_destroy((struct sgraph *)hGraph);
    return CUDA_SUCCESS;
}

/* What the pool keeps beyond what live allocations use goes back. */
EXPORT CUresult cuDeviceGraphMemTrim(CUdevice device)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    pthread_mutex_lock(&g_lock);
    return_capacity_locked(device, g_pool[device].reserved - g_pool[device].used);
    g_pool[device].reserved = g_pool[device].used;
    pthread_mutex_unlock(&g_lock);
    return CUDA_SUCCESS;
}

EXPORT CUresult cuDeviceGetGraphMemAttribute(CUdevice device, CUgraphMem_attribute attr,
                                             void *value)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (device < 0 || device >= g_ndev)
        return CUDA_ERROR_INVALID_DEVICE;
    if (!value || attr > CU_GRAPH_MEM_ATTR_RESERVED_MEM_HIGH)
        return CUDA_ERROR_INVALID_VALUE;
    pthread_mutex_lock(&g_lock);
    size_t figures[] = {g_pool[device].used, g_pool[device].used_high, g_pool[device].reserved,
                        g_pool[device].reserved_high};
    pthread_mutex_unlock(&g_lock);
    *(cuuint64_t *)value = figures[attr];
    return CUDA_SUCCESS;
}

/* The graph's nodes in the order they were added; with NODES NULL, their
 * count. Entries past the nodes are set to NULL. */
EXPORT CUresult cuGraphGetNodes(CUgraph hGraph, CUgraphNode *nodes, size_t *numNodes)
{
    struct sgraph *g = (struct sgraph *)hGraph;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!valid_graph(g) || !numNodes)
        return CUDA_ERROR_INVALID_VALUE;
    size_t n = 0;
    pthread_mutex_lock(&g_lock);
    for (struct snode *s = g->nodes; s; s = s->next, n++)
        if (nodes && n < *numNodes)
            nodes[n] = (CUgraphNode)s;
    pthread_mutex_unlock(&g_lock);
    for (size_t i = n; nodes && i < *numNodes; i++)
        nodes[i] = NULL;
    if (!nodes || n < *numNodes)
        *numNodes = n;
    return CUDA_SUCCESS;
}

/* The entry points cuGetProcAddress hands out (driver_proc.c). */
PROC("cuGraphCreate", 10000, cuGraphCreate)
PROC("cuGraphAddKernelNode", 12000, cuGraphAddKernelNode_v2)
PROC("cuGraphAddMemAllocNode", 11040, cuGraphAddMemAllocNode)
PROC("cuGraphAddMemFreeNode", 11040, cuGraphAddMemFreeNode)
PROC("cuGraphInstantiate", 11000, cuGraphInstantiateWithFlags)
PROC("cuGraphInstantiateWithFlags", 11040, cuGraphInstantiateWithFlags)
PROC_PTSZ("cuGraphLaunch", 10000, cuGraphLaunch)
PROC("cuGraphExecDestroy", 10000, cuGraphExecDestroy)
PROC("cuGraphDestroy", 10000, cuGraphDestroy)
PROC("cuGraphGetNodes", 10000, cuGraphGetNodes)
PROC("cuDeviceGraphMemTrim", 11040, cuDeviceGraphMemTrim)
PROC("cuDeviceGetGraphMemAttribute", 11040, cuDeviceGetGraphMemAttribute)
