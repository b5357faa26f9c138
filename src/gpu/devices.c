/* SPDX-License-Identifier: MIT */
#include "devices.h"

#include "cuda_abi.h"
#include "format.h"
#include "gpu_view.h"
#include "driver_function.h"
#include "resolve.h"
#include "output.h"
#include "tracing.h"

#include <stdlib.h>
#include <string.h>

#define MAX_DEVICES 64

enum { DEVICE_UNSEEN, DEVICE_READING, DEVICE_KNOWN };

struct device {
    unsigned state;
    void *primary;                /* its primary context, once retained */
    void *ctx;                    /* the context of its allocations, to query through */
    struct vt_device_identity id; /* set before state becomes DEVICE_KNOWN */
};

static struct device devices[MAX_DEVICES];
unsigned vt_devices_pending; /* 1 << reason for each sample asked for */
static int exit_sample_registered;

/* Driver functions called here (not hooked; the guard is held). */
static struct {
    void *uuid, *pci_bus_id, *name, *total_memory, *memory_info, *current_context, *context_device,
        *push, *pop, *primary_state, *retain, *release;
} fn;

#define DRIVER(type, slot, name) ((type)vt_driver_function_cached(&fn.slot, name))

static void read_identity(int device, struct vt_device_identity *id)
{
    cuDeviceGetUuid_v2_fn get_uuid = DRIVER(cuDeviceGetUuid_v2_fn, uuid, "cuDeviceGetUuid_v2");
    cuDeviceGetPCIBusId_fn get_pci_bus_id =
        DRIVER(cuDeviceGetPCIBusId_fn, pci_bus_id, "cuDeviceGetPCIBusId");
    cuDeviceGetName_fn get_name = DRIVER(cuDeviceGetName_fn, name, "cuDeviceGetName");
    cuDeviceTotalMem_v2_fn get_total =
        DRIVER(cuDeviceTotalMem_v2_fn, total_memory, "cuDeviceTotalMem_v2");
    CUuuid uuid;
    size_t total;
    memset(id, 0, sizeof *id);
    id->device = device;
    if (get_uuid && get_uuid(&uuid, device) == CUDA_SUCCESS) {
        memcpy(id->uuid, uuid.bytes, sizeof id->uuid);
        id->has_uuid = 1;
    }
    if (!get_pci_bus_id || get_pci_bus_id(id->pci_bus_id, sizeof id->pci_bus_id, device))
        id->pci_bus_id[0] = '\0';
    if (!get_name || get_name(id->name, sizeof id->name, device))
        id->name[0] = '\0';
    if (get_total && get_total(&total, device) == CUDA_SUCCESS)
        id->total_bytes = total;
    vt_gpu_view_identify(id);
}

/* A context on DEVICE that is alive now: its primary context while active,
 * else the one its allocations were made in. */
static CUcontext context_on(int device)
{
    cuDevicePrimaryCtxGetState_fn get_state =
        DRIVER(cuDevicePrimaryCtxGetState_fn, primary_state, "cuDevicePrimaryCtxGetState");
    unsigned flags;
    int active = 0;
    CUcontext primary = vt_devices_primary_context(device);
    if (primary && get_state && get_state(device, &flags, &active) == CUDA_SUCCESS && active)
        return primary;
    return __atomic_load_n(&devices[device].ctx, __ATOMIC_ACQUIRE);
}

/* cuMemGetInfo_v2 answers for the current context's device: the current
 * context when it is on DEVICE, else one on DEVICE made current for the call. */
static int memory_info(int device, size_t *free_bytes, size_t *total_bytes)
{
    cuMemGetInfo_v2_fn get_info = DRIVER(cuMemGetInfo_v2_fn, memory_info, "cuMemGetInfo_v2");
    cuCtxGetCurrent_fn get_current = DRIVER(cuCtxGetCurrent_fn, current_context, "cuCtxGetCurrent");
    cuCtxGetDevice_fn get_device = DRIVER(cuCtxGetDevice_fn, context_device, "cuCtxGetDevice");
    cuCtxPushCurrent_v2_fn push = DRIVER(cuCtxPushCurrent_v2_fn, push, "cuCtxPushCurrent_v2");
    cuCtxPopCurrent_v2_fn pop = DRIVER(cuCtxPopCurrent_v2_fn, pop, "cuCtxPopCurrent_v2");
    CUcontext current = NULL, other, popped;
    CUdevice current_device = -1;
    CUresult r;
    if (!get_info || !get_current || !get_device)
        return -1;
    if (get_current(&current) == CUDA_SUCCESS && current &&
        get_device(&current_device) == CUDA_SUCCESS && current_device == device)
        return get_info(free_bytes, total_bytes) == CUDA_SUCCESS ? 0 : -1;
    other = context_on(device);
    if (!other || !push || !pop || push(other) != CUDA_SUCCESS)
        return -1;
    r = get_info(free_bytes, total_bytes);
    pop(&popped);
    return r == CUDA_SUCCESS ? 0 : -1;
}

/* DEVICE's memory as its primary context sees it, when that context is
 * active (one never made is not made here). */
static int held_on(int device, struct vt_usage_sample *s)
{
    cuDevicePrimaryCtxGetState_fn get_state =
        DRIVER(cuDevicePrimaryCtxGetState_fn, primary_state, "cuDevicePrimaryCtxGetState");
    cuDevicePrimaryCtxRetain_fn retain =
        DRIVER(cuDevicePrimaryCtxRetain_fn, retain, "cuDevicePrimaryCtxRetain");
    cuDevicePrimaryCtxRelease_v2_fn release =
        DRIVER(cuDevicePrimaryCtxRelease_v2_fn, release, "cuDevicePrimaryCtxRelease_v2");
    cuMemGetInfo_v2_fn get_info = DRIVER(cuMemGetInfo_v2_fn, memory_info, "cuMemGetInfo_v2");
    cuCtxPushCurrent_v2_fn push = DRIVER(cuCtxPushCurrent_v2_fn, push, "cuCtxPushCurrent_v2");
    cuCtxPopCurrent_v2_fn pop = DRIVER(cuCtxPopCurrent_v2_fn, pop, "cuCtxPopCurrent_v2");
    struct vt_device_identity id;
    CUcontext ctx, popped;
    unsigned flags;
    int active = 0, ok;
    size_t free_bytes, total_bytes;
    if (!get_state || !retain || !release || !get_info || !push || !pop ||
        get_state(device, &flags, &active) != CUDA_SUCCESS || !active ||
        retain(&ctx, device) != CUDA_SUCCESS)
        return -1;
    ok = push(ctx) == CUDA_SUCCESS;
    if (ok) {
        ok = get_info(&free_bytes, &total_bytes) == CUDA_SUCCESS;
        pop(&popped);
    }
    release(device);
    if (!ok)
        return -1;
    *s = (struct vt_usage_sample){.time_ns = vt_now_ns(), .device = device};
    s->free_bytes = free_bytes;
    s->total_bytes = total_bytes;
    read_identity(device, &id);
    vt_gpu_view_usage(&id, s);
    return 0;
}

unsigned vt_devices_held_now(struct vt_usage_sample *out, unsigned max)
{
    unsigned n = 0;
    for (int d = 0; d < MAX_DEVICES && n < max; d++)
        if (held_on(d, &out[n]) == 0)
            n++;
    return n;
}

static void write_locked_or_stop(int result)
{
    if (result < 0)
        vt_disable_locked(NULL); /* the writer said why */
}

/* The driver's and NVML's view of DEVICE now, into *S; -1 when there is
 * no live context on it (nothing the driver can say). */
static int read_sample(int device, unsigned reason, struct vt_usage_sample *s)
{
    size_t free_bytes, total_bytes;
    *s = (struct vt_usage_sample){.time_ns = vt_now_ns(), .reason = reason, .device = device};
    if (memory_info(device, &free_bytes, &total_bytes) != 0)
        return -1;
    s->free_bytes = free_bytes;
    s->total_bytes = total_bytes;
    vt_gpu_view_usage(&devices[device].id, s);
    return 0;
}

static void write_sample(struct vt_usage_sample *s)
{
    vt_lock();
    /* aggregate mode: the dump's samples are older; the live bytes of now */
    s->traced_plus1 = vt_output->device_traced_plus1(s->device);
    if (vt_output_ready() == 0)
        write_locked_or_stop(vt_rec_device_usage(s));
    vt_unlock();
}

static void sample_device(int device, unsigned reason)
{
    struct vt_usage_sample s;
    if (read_sample(device, reason, &s) == 0)
        write_sample(&s);
}

void vt_devices_sample(unsigned reason)
{
    for (int d = 0; d < MAX_DEVICES; d++)
        if (__atomic_load_n(&devices[d].state, __ATOMIC_ACQUIRE) == DEVICE_KNOWN)
            sample_device(d, reason);
}

void vt_devices_request(unsigned reason)
{
    __atomic_or_fetch(&vt_devices_pending, 1u << reason, __ATOMIC_RELAXED);
}

void vt_devices_take_pending(void)
{
    unsigned asked = __atomic_exchange_n(&vt_devices_pending, 0, __ATOMIC_RELAXED);
    if (asked)
        vt_devices_sample(asked & (1u << VT_USAGE_MARK) ? VT_USAGE_MARK : VT_USAGE_SAMPLE);
}

/* At exit, before the runtime releases its contexts (its exit handler was
 * registered before the first allocation, so it runs after this one). */
static void sample_at_exit(void)
{
    if (!vt_guard_take())
        return;
    vt_devices_sample(VT_USAGE_EXIT);
    vt_leave();
}

/* The first allocation on DEVICE: which GPU it is, and the first sample. */
static void first_use(int device, void *ctx)
{
    struct device *d = &devices[device];
    unsigned expected = DEVICE_UNSEEN;
    if (!__atomic_compare_exchange_n(&d->state, &expected, DEVICE_READING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return; /* another thread is at it */
    __atomic_store_n(&d->ctx, ctx, __ATOMIC_RELEASE);
    read_identity(device, &d->id);
    __atomic_store_n(&d->state, DEVICE_KNOWN, __ATOMIC_RELEASE);
    vt_lock();
    if (vt_output_ready() == 0)
        write_locked_or_stop(vt_rec_device(&d->id));
    vt_unlock();
    if (!__atomic_exchange_n(&exit_sample_registered, 1, __ATOMIC_ACQ_REL))
        atexit(sample_at_exit);
    sample_device(device, VT_USAGE_START);
}

void vt_devices_seen(int device, void *ctx)
{
    if (device >= 0 && device < MAX_DEVICES) {
        struct device *d = &devices[device];
        if (__atomic_load_n(&d->state, __ATOMIC_ACQUIRE) != DEVICE_KNOWN)
            first_use(device, ctx);
        else if (ctx && __atomic_load_n(&d->ctx, __ATOMIC_RELAXED) != ctx)
            __atomic_store_n(&d->ctx, ctx, __ATOMIC_RELEASE);
    }
    vt_devices_flush();
}

static int device_of_context(void *ctx)
{
    for (int d = 0; d < MAX_DEVICES; d++)
        if (ctx && __atomic_load_n(&devices[d].ctx, __ATOMIC_ACQUIRE) == ctx)
            return d;
    return -1;
}

void vt_devices_before_teardown(void *ctx, int device)
{
    if (ctx)
        device = device_of_context(ctx);
    if (device >= 0 && device < MAX_DEVICES &&
        __atomic_load_n(&devices[device].state, __ATOMIC_ACQUIRE) == DEVICE_KNOWN)
        sample_device(device, VT_USAGE_TEARDOWN);
}

int vt_devices_before_release(int device, struct vt_usage_sample *s)
{
    if (device < 0 || device >= MAX_DEVICES ||
        __atomic_load_n(&devices[device].state, __ATOMIC_ACQUIRE) != DEVICE_KNOWN)
        return -1;
    return read_sample(device, VT_USAGE_TEARDOWN, s);
}

void vt_devices_released(struct vt_usage_sample *s)
{
    write_sample(s);
}

void vt_devices_context_gone(void *ctx)
{
    for (int d = 0; d < MAX_DEVICES; d++) {
        void *expected = ctx;
        if (ctx)
            __atomic_compare_exchange_n(&devices[d].ctx, &expected, NULL, 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE);
    }
}

void vt_devices_oom_view(int device, void *ctx, struct vt_meminfo *mem)
{
    if (device < 0 || device >= MAX_DEVICES)
        return;
    if (__atomic_load_n(&devices[device].state, __ATOMIC_ACQUIRE) != DEVICE_KNOWN)
        first_use(device, ctx); /* its identity, before the failure is written */
    if (__atomic_load_n(&devices[device].state, __ATOMIC_ACQUIRE) == DEVICE_KNOWN)
        vt_gpu_view_processes(&devices[device].id, mem);
}

void vt_devices_set_primary_context(int device, void *ctx)
{
    if (device >= 0 && device < MAX_DEVICES)
        __atomic_store_n(&devices[device].primary, ctx, __ATOMIC_RELAXED);
}

void *vt_devices_primary_context(int device)
{
    if (device < 0 || device >= MAX_DEVICES)
        return NULL;
    return __atomic_load_n(&devices[device].primary, __ATOMIC_RELAXED);
}

void vt_devices_reset(void)
{
    memset(devices, 0, sizeof devices);
    vt_devices_pending = 0;
    vt_gpu_view_reset();
}
