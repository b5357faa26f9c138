/* SPDX-License-Identifier: MIT */
/* CUDA graphs: kernel, empty, memory, memcpy, memset and host nodes (added
 * one by one, or by capture), edges (kept by no node: the nodes run in the
 * order they were added, which is an order of their edges for a graph
 * whose edges go from an earlier node to a later one), clones (not of a
 * graph with memory nodes, which the driver refuses to clone), instantiation, launches and
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

enum node_type {
    NODE_KERNEL,
    NODE_MEM_ALLOC,
    NODE_MEM_FREE,
    NODE_EMPTY,
    NODE_COPY, /* runs at each launch, as the other three below */
    NODE_SET,
    NODE_HOST
};

/* What a memcpy, memset or host node does. */
union node_op {
    CUDA_MEMCPY3D copy;
    CUDA_MEMSET_NODE_PARAMS set;
    CUDA_HOST_NODE_PARAMS host;
};

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
    union node_op op;
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

static CUresult add_node_op(struct sgraph *g, enum node_type type, struct galloc *a,
                            const union node_op *op, CUgraphNode *out)
{
    struct snode *n = calloc(1, sizeof *n);
    if (!n)
        return CUDA_ERROR_OUT_OF_MEMORY;
    n->type = type;
    n->alloc = a;
    if (op)
        n->op = *op;
    pthread_mutex_lock(&g_lock);
    *g->tail = n;
    g->tail = &n->next;
    pthread_mutex_unlock(&g_lock);
    if (out)
        *out = (CUgraphNode)n;
    return CUDA_SUCCESS;
}

static CUresult add_node(struct sgraph *g, enum node_type type, struct galloc *a,
                         CUgraphNode *out)
{
    return add_node_op(g, type, a, NULL, out);
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

/* A memset node's rows, as cuMemsetD8/D16/D32 set them. */
static CUresult run_set(const CUDA_MEMSET_NODE_PARAMS *m)
{
    for (size_t row = 0; row < m->height; row++) {
        CUdeviceptr at = m->dst + row * m->pitch;
        CUresult r = CUDA_SUCCESS;
        if (m->elementSize == 1)
            r = cuMemsetD8_v2(at, (unsigned char)m->value, m->width);
        else if (m->elementSize == 4)
            r = cuMemsetD32_v2(at, m->value, m->width);
        else /* 2: the memory is the host's here */
            for (size_t i = 0; i < m->width; i++)
                ((unsigned short *)(uintptr_t)at)[i] = (unsigned short)m->value;
        if (r != CUDA_SUCCESS)
            return r;
    }
    return CUDA_SUCCESS;
}

/* The launch's copies, sets and host calls, in node order (no lock held:
 * a copy looks its memory up). */
static CUresult run_ops(const struct sexec *e)
{
    CUresult r = CUDA_SUCCESS;
    for (size_t i = 0; i < e->count && r == CUDA_SUCCESS; i++) {
        const union node_op *op = &e->nodes[i].op;
        if (e->nodes[i].type == NODE_COPY)
            r = cuMemcpy3D_v2(&op->copy);
        else if (e->nodes[i].type == NODE_SET)
            r = run_set(&op->set);
        else if (e->nodes[i].type == NODE_HOST)
            op->host.fn(op->host.userData);
    }
    return r;
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
    return r == CUDA_SUCCESS ? run_ops(e) : r;
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

/* ---- nodes added one by one ---- */

/* The front of every cuGraphAdd*Node: the driver, the graph, the node's
 * handle, DEPENDENCIES given when their count is. */
static CUresult node_front(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                           size_t count)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!node || !valid_graph((struct sgraph *)graph) || (count && !dependencies))
        return CUDA_ERROR_INVALID_VALUE;
    return live_ctx() ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT;
}

EXPORT CUresult cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                    const CUgraphNode *dependencies, size_t numDependencies)
{
    CUresult r = node_front(phGraphNode, hGraph, dependencies, numDependencies);
    return r == CUDA_SUCCESS ? add_node((struct sgraph *)hGraph, NODE_EMPTY, NULL, phGraphNode)
                             : r;
}

/* A node of TYPE doing what PARAMS (SIZE bytes of them) say; NULL: they
 * are invalid. */
static CUresult add_op(CUgraphNode *node, CUgraph graph, const CUgraphNode *dependencies,
                       size_t count, enum node_type type, const void *params, size_t size)
{
    union node_op op;
    CUresult r = node_front(node, graph, dependencies, count);
    if (r == CUDA_SUCCESS && !params)
        r = CUDA_ERROR_INVALID_VALUE;
    if (r != CUDA_SUCCESS)
        return r;
    memcpy(&op, params, size);
    return add_node_op((struct sgraph *)graph, type, NULL, &op, node);
}

/* The copy runs at each launch, as cuMemcpy3D would (its checks then). */
EXPORT CUresult cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                     const CUgraphNode *dependencies, size_t numDependencies,
                                     const CUDA_MEMCPY3D *copyParams, CUcontext ctx)
{
    const CUDA_MEMCPY3D *c = copyParams;
    (void)ctx;
    return add_op(phGraphNode, hGraph, dependencies, numDependencies, NODE_COPY,
                  c && c->WidthInBytes && c->Height && c->Depth ? c : NULL, sizeof *c);
}

/* Elements of 1, 2 or 4 bytes; rows PITCH apart when there are several. */
EXPORT CUresult cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                     const CUgraphNode *dependencies, size_t numDependencies,
                                     const CUDA_MEMSET_NODE_PARAMS *memsetParams, CUcontext ctx)
{
    const CUDA_MEMSET_NODE_PARAMS *m = memsetParams;
    unsigned e = m ? m->elementSize : 0;
    (void)ctx;
    int valid = m && m->dst && m->width && m->height && (e == 1 || e == 2 || e == 4) &&
                (m->height == 1 || m->pitch >= m->width * e);
    return add_op(phGraphNode, hGraph, dependencies, numDependencies, NODE_SET,
                  valid ? m : NULL, sizeof *m);
}

/* The function runs on the launching thread at each launch. */
EXPORT CUresult cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
                                   const CUgraphNode *dependencies, size_t numDependencies,
                                   const CUDA_HOST_NODE_PARAMS *nodeParams)
{
    return add_op(phGraphNode, hGraph, dependencies, numDependencies, NODE_HOST,
                  nodeParams && nodeParams->fn ? nodeParams : NULL, sizeof *nodeParams);
}

/* Edges are checked, not kept (see the top of this file). */
static CUresult add_edges(CUgraph hGraph, const CUgraphNode *from, const CUgraphNode *to,
                          size_t count)
{
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!valid_graph((struct sgraph *)hGraph) || (count && (!from || !to)))
        return CUDA_ERROR_INVALID_VALUE;
    for (size_t i = 0; i < count; i++)
        if (!from[i] || !to[i] || from[i] == to[i])
            return CUDA_ERROR_INVALID_VALUE;
    return CUDA_SUCCESS;
}

EXPORT CUresult cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
                                       const CUgraphNode *to, size_t numDependencies)
{
    return add_edges(hGraph, from, to, numDependencies);
}

EXPORT CUresult cuGraphAddDependencies_v2(CUgraph hGraph, const CUgraphNode *from,
                                          const CUgraphNode *to, const CUgraphEdgeData *edgeData,
                                          size_t numDependencies)
{
    (void)edgeData; /* default edges are all there are here */
    return add_edges(hGraph, from, to, numDependencies);
}

/* A copy of every node; a graph with memory nodes is not cloned. */
EXPORT CUresult cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
    struct sgraph *g = (struct sgraph *)originalGraph, *clone = NULL;
    if (!initialized())
        return CUDA_ERROR_NOT_INITIALIZED;
    if (!phGraphClone || !valid_graph(g))
        return CUDA_ERROR_INVALID_VALUE;
    for (struct snode *n = g->nodes; n; n = n->next)
        if (n->alloc)
            return CUDA_ERROR_NOT_SUPPORTED;
    CUresult r = graph_new(&clone);
    for (struct snode *n = g->nodes; n && r == CUDA_SUCCESS; n = n->next)
        r = add_node_op(clone, n->type, NULL, &n->op, NULL);
    if (r != CUDA_SUCCESS) {
        if (clone)
            graph_destroy(clone);
        return r;
    }
    *phGraphClone = (CUgraph)clone;
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
PROC("cuGraphAddEmptyNode", 10000, cuGraphAddEmptyNode)
PROC("cuGraphAddMemcpyNode", 10000, cuGraphAddMemcpyNode)
PROC("cuGraphAddMemsetNode", 10000, cuGraphAddMemsetNode)
PROC("cuGraphAddHostNode", 10000, cuGraphAddHostNode)
PROC("cuGraphAddDependencies", 10000, cuGraphAddDependencies)
PROC("cuGraphAddDependencies", 12030, cuGraphAddDependencies_v2)
PROC("cuGraphClone", 10000, cuGraphClone)
