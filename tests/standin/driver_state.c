/* The stand-in driver's state: its devices (set up once, from the
 * environment) and the calling thread's context stack. */
#include "driver_internal.h"

#include <stdlib.h>
#include <string.h>

pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
int g_ndev;
int g_reuse_contexts;
size_t g_context_bytes;
struct sctx *g_destroyed_ctx;
int g_initialized;
struct sdev g_dev[MAX_DEVICES];

__thread struct sctx *t_stack[CTX_STACK];
__thread int t_depth;

static pthread_once_t g_once = PTHREAD_ONCE_INIT;

static void setup(void)
{
    const char *reuse = getenv("STANDIN_CUDA_REUSE_CONTEXTS");
    int physical[SG_MAX_GPUS];
    g_reuse_contexts = reuse && !strcmp(reuse, "1");
    g_context_bytes = sg_parse_size(getenv("STANDIN_CUDA_CONTEXT_BYTES"), 0);
    g_ndev = sg_visible_gpus(physical);
    if (g_ndev > MAX_DEVICES)
        g_ndev = MAX_DEVICES;
    for (int i = 0; i < MAX_DEVICES; i++) {
        g_dev[i].physical = i < g_ndev ? physical[i] : -1;
        g_dev[i].primary.magic = CTX_MAGIC;
        g_dev[i].primary.device = i;
        g_dev[i].primary.primary = 1;
        g_dev[i].default_pool.magic = POOL_MAGIC;
        g_dev[i].default_pool.device = i;
    }
}

void ensure_setup(void)
{
    pthread_once(&g_once, setup);
}

int initialized(void)
{
    ensure_setup();
    return __atomic_load_n(&g_initialized, __ATOMIC_ACQUIRE);
}

struct sctx *cur_ctx(void)
{
    return t_depth > 0 ? t_stack[t_depth - 1] : NULL;
}

/* The current context if it is usable, else NULL. */
struct sctx *live_ctx(void)
{
    struct sctx *c = cur_ctx();
    if (!c)
        return NULL;
    pthread_mutex_lock(&g_lock);
    int ok = c->magic == CTX_MAGIC && c->alive;
    pthread_mutex_unlock(&g_lock);
    return ok ? c : NULL;
}

int valid_ctx_locked(struct sctx *c)
{
    if (!c)
        return 0;
    for (int i = 0; i < g_ndev; i++)
        if (c == &g_dev[i].primary)
            return 1;
    return c->magic == CTX_MAGIC;
}
/* SPDX-License-Identifier: MIT */
