/* SPDX-License-Identifier: MIT */
#include "graphs.h"

#include "cuda_abi.h"
#include "driver_function.h"
#include "track.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <uthash.h>

/* A memory node: an allocation of SIZE at ADDRESS on DEVICE, or its free. */
struct node {
    uint64_t address, size;
    int device;
    unsigned api;
    uint32_t stack;
    int is_free;
};

/* A graph, or an instantiation (a copy of its graph's nodes then). */
struct graph {
    uint64_t handle;
    struct node *nodes;
    size_t count, room;
    UT_hash_handle hh;
};

static struct {
    pthread_mutex_t lock; /* taken without the tracer lock, never inside it */
    struct graph *graphs, *execs;
} model = {PTHREAD_MUTEX_INITIALIZER, NULL, NULL};

/* The key of a device's graph memory pool entry (handle space). */
#define POOL_KEY(device) (0xF6F6000000000000ull | (uint64_t)(unsigned)(device))
#define MAX_POOL_DEVICES 64

static struct graph *find(struct graph *table, uint64_t handle)
{
    struct graph *g;
    HASH_FIND(hh, table, &handle, sizeof handle, g);
    return g;
}

/* GRAPH's entry, made when first needed (lock held); NULL without memory. */
static struct graph *graph_entry(uint64_t handle)
{
    struct graph *g = find(model.graphs, handle);
    if (!g && (g = calloc(1, sizeof *g))) {
        g->handle = handle;
        HASH_ADD(hh, model.graphs, handle, sizeof g->handle, g);
    }
    return g;
}

static void add_node(uint64_t graph, const struct node *n)
{
    pthread_mutex_lock(&model.lock);
    struct graph *g = graph_entry(graph);
    if (g && g->count == g->room) {
        size_t room = g->room ? 2 * g->room : 8;
        struct node *grown = realloc(g->nodes, room * sizeof *grown);
        if (grown) {
            g->nodes = grown;
            g->room = room;
        }
    }
    if (g && g->count < g->room)
        g->nodes[g->count++] = *n;
    pthread_mutex_unlock(&model.lock);
}

void vt_graph_add_alloc(uint64_t graph, const struct vt_alloc_info *info,
                        const struct vt_stack *stack)
{
    struct node n = {.address = info->key,
                     .size = info->size,
                     .device = info->device,
                     .api = info->api,
                     .stack = vt_track_stack_id(stack)};
    add_node(graph, &n);
}

void vt_graph_add_free(uint64_t graph, uint64_t address, unsigned api)
{
    struct node n = {.address = address, .api = api, .is_free = 1};
    add_node(graph, &n);
}

static void forget(struct graph **table, uint64_t handle)
{
    pthread_mutex_lock(&model.lock);
    struct graph *g = find(*table, handle);
    if (g) {
        HASH_DEL(*table, g);
        free(g->nodes);
        free(g);
    }
    pthread_mutex_unlock(&model.lock);
}

void vt_graph_instantiated(uint64_t exec, uint64_t graph)
{
    forget(&model.execs, exec); /* an address reused */
    pthread_mutex_lock(&model.lock);
    struct graph *g = find(model.graphs, graph), *e = calloc(1, sizeof *e);
    if (e && g && g->count && !(e->nodes = malloc(g->count * sizeof *e->nodes))) {
        free(e);
        e = NULL;
    }
    if (e) {
        e->handle = exec;
        e->count = e->room = g ? g->count : 0;
        if (e->count)
            memcpy(e->nodes, g->nodes, e->count * sizeof *e->nodes);
        HASH_ADD(hh, model.execs, handle, sizeof e->handle, e);
    }
    pthread_mutex_unlock(&model.lock);
}

void vt_graph_exec_destroyed(uint64_t exec)
{
    forget(&model.execs, exec);
}

void vt_graph_destroyed(uint64_t graph)
{
    forget(&model.graphs, graph);
}

static void free_live(uint64_t key, enum vt_space space, unsigned api)
{
    struct vt_pending_free pending;
    vt_track_free_begin(key, space, api, 0, NULL, &pending, vt_now_ns());
}

/* DEVICE's pool entry becomes BYTES (0: none), made through API at STACK. */
static void set_pool(int device, uint64_t bytes, unsigned api, const struct vt_stack *stack)
{
    uint64_t now = vt_track_live_size(POOL_KEY(device), VT_SPACE_HANDLE);
    if (now == bytes)
        return;
    if (now)
        free_live(POOL_KEY(device), VT_SPACE_HANDLE, api);
    if (!bytes)
        return;
    struct vt_alloc_info info = {.key = POOL_KEY(device),
                                 .size = bytes,
                                 .api = api,
                                 .kind = VT_KIND_GRAPH_POOL,
                                 .space = VT_SPACE_HANDLE,
                                 .device = device};
    vt_track_alloc(&info, stack, vt_now_ns());
}

void vt_graph_pool_changed(int device, unsigned api, const struct vt_stack *stack)
{
    static void *slot;
    cuuint64_t used = 0, reserved = 0;
    cuDeviceGetGraphMemAttribute_fn attribute =
        (cuDeviceGetGraphMemAttribute_fn)vt_driver_function_cached(&slot,
                                                                   "cuDeviceGetGraphMemAttribute");
    if (device < 0 || !attribute ||
        attribute(device, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &used) != CUDA_SUCCESS ||
        attribute(device, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &reserved) != CUDA_SUCCESS)
        return;
    set_pool(device, reserved > used ? reserved - used : 0, api, stack);
}

/* The allocation an allocation node makes at a launch. */
static struct vt_alloc_info node_info(const struct node *n)
{
    return (struct vt_alloc_info){.key = n->address,
                                  .size = n->size,
                                  .api = n->api,
                                  .kind = VT_KIND_DEVICE,
                                  .space = VT_SPACE_POINTER,
                                  .device = n->device,
                                  .graph = 1};
}

/* The launch takes the memory of its allocations from what the pools keep
 * first (so that nothing is counted twice), then allocates and frees, then
 * the pools are what the driver says. */
static void launch(const struct node *nodes, size_t count, unsigned api,
                   const struct vt_stack *stack)
{
    uint64_t wanted[MAX_POOL_DEVICES] = {0};
    for (size_t i = 0; i < count; i++)
        if (!nodes[i].is_free && nodes[i].device >= 0 && nodes[i].device < MAX_POOL_DEVICES)
            wanted[nodes[i].device] += nodes[i].size;
    for (int d = 0; d < MAX_POOL_DEVICES; d++) {
        uint64_t kept = wanted[d] ? vt_track_live_size(POOL_KEY(d), VT_SPACE_HANDLE) : 0;
        if (kept)
            set_pool(d, kept > wanted[d] ? kept - wanted[d] : 0, api, stack);
    }
    for (size_t i = 0; i < count; i++) {
        const struct node *n = &nodes[i];
        if (n->is_free) {
            free_live(n->address, VT_SPACE_POINTER, n->api);
            continue;
        }
        if (vt_track_live_size(n->address, VT_SPACE_POINTER)) /* freed on launch */
            free_live(n->address, VT_SPACE_POINTER, api);
        struct vt_alloc_info info = node_info(n);
        vt_track_alloc_interned(&info, n->stack);
    }
    for (int d = 0; d < MAX_POOL_DEVICES; d++)
        if (wanted[d])
            vt_graph_pool_changed(d, api, stack);
}

void vt_graph_launched(uint64_t exec, unsigned api, const struct vt_stack *stack)
{
    struct node *nodes = NULL;
    size_t count = 0;
    pthread_mutex_lock(&model.lock);
    struct graph *e = find(model.execs, exec);
    if (e && e->count && (nodes = malloc(e->count * sizeof *nodes))) {
        memcpy(nodes, e->nodes, e->count * sizeof *nodes);
        count = e->count;
    }
    pthread_mutex_unlock(&model.lock);
    launch(nodes, count, api, stack);
    free(nodes);
}

static const struct node *node_in(const struct graph *table, uint64_t address)
{
    for (const struct graph *g = table; g; g = g->hh.next)
        for (size_t i = 0; i < g->count; i++)
            if (!g->nodes[i].is_free && g->nodes[i].address == address)
                return &g->nodes[i];
    return NULL;
}

bool vt_graph_node_at(uint64_t address, struct vt_alloc_info *info, uint32_t *stack)
{
    pthread_mutex_lock(&model.lock);
    const struct node *n = node_in(model.graphs, address);
    if (!n)
        n = node_in(model.execs, address);
    if (n) {
        *info = node_info(n);
        *stack = n->stack;
    }
    pthread_mutex_unlock(&model.lock);
    return n != NULL;
}

void vt_graphs_reset(void)
{
    struct graph *g, *tmp;
    pthread_mutex_init(&model.lock, NULL);
    for (int t = 0; t < 2; t++) {
        struct graph **table = t ? &model.execs : &model.graphs;
        HASH_ITER(hh, *table, g, tmp) {
            HASH_DEL(*table, g);
            free(g->nodes);
            free(g);
        }
    }
}
