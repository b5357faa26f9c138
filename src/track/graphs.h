/* SPDX-License-Identifier: MIT */
/* CUDA graphs' memory. An allocation node has its address when it is made
 * (by cuGraphAddMemAllocNode, or by a stream-ordered allocation on a
 * capturing stream) but memory only while a launch of the graph has it
 * allocated: the tracer keeps each graph's memory nodes with the API and
 * stack that made them, and applies them at every launch of an
 * instantiation: an ALLOC per allocation node, a FREE per free node. What
 * a device's graph memory pool keeps beyond the graphs' live allocations
 * (the driver's reserved minus used graph memory: the graphs' frees gave
 * it back, cuDeviceGraphMemTrim returns it) is one live allocation per
 * device, of kind VT_KIND_GRAPH_POOL, where the launch or free that last
 * changed it stands. Each function takes the tracer lock itself. */
#ifndef VRAMTRACE_GRAPHS_H
#define VRAMTRACE_GRAPHS_H

#include "alloc_info.h"
#include "stacks.h"

#include <stdbool.h>
#include <stdint.h>

/* An allocation node of GRAPH: INFO's key its address, its api and device
 * resolved; STACK where it was made. */
void vt_graph_add_alloc(uint64_t graph, const struct vt_alloc_info *info,
                        const struct vt_stack *stack);
/* A free node of GRAPH freeing ADDRESS, made through API. */
void vt_graph_add_free(uint64_t graph, uint64_t address, unsigned api);
/* EXEC was instantiated from GRAPH: it runs a copy of GRAPH's nodes. */
void vt_graph_instantiated(uint64_t exec, uint64_t graph);
/* A launch of EXEC (through API, at STACK) ran its memory nodes. */
void vt_graph_launched(uint64_t exec, unsigned api, const struct vt_stack *stack);
void vt_graph_exec_destroyed(uint64_t exec);
void vt_graph_destroyed(uint64_t graph);
/* DEVICE's graph memory pool may have changed (a trim, a graph allocation
 * freed outside a graph): its kept memory as the driver says, through API
 * at STACK. */
void vt_graph_pool_changed(int device, unsigned api, const struct vt_stack *stack);

/* Whether ADDRESS is an allocation node's of a graph or an instantiation
 * (memory only while a launch has it allocated): its size, api and device
 * into *INFO, its stack's id into *STACK. */
bool vt_graph_node_at(uint64_t address, struct vt_alloc_info *info, uint32_t *stack);

/* Forget every graph (a forked child). */
void vt_graphs_reset(void);

#endif
