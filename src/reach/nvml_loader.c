/* SPDX-License-Identifier: MIT */
#include "nvml_loader.h"

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LISTING_TRIES 4

/* dlclose here is, inside the tracer, its own exported interposer
 * (hooks/hooks_dlclose.c), and on purpose the one exported name the tracer
 * calls for itself: what it kept of NVML's code (modules, unwind rules,
 * resolved functions) is forgotten as for any library the program unloads.
 * A lower layer reaches it by the symbol, not by a call into hooks/. */

int vt_nvml_open(struct vt_nvml *n, vt_nvml_lookup_fn lookup, char *why, size_t size)
{
    char error[96];
    memset(n, 0, sizeof *n);
    n->library = dlopen(VT_NVML_LIBRARY, RTLD_NOW | RTLD_LOCAL);
    if (!n->library) {
        const char *detail = dlerror();
        snprintf(why, size, "NVML (%s, installed with the NVIDIA driver) cannot be loaded: %s",
                 VT_NVML_LIBRARY, detail ? detail : "not found");
        return -1;
    }
#define VT_NVML_LOOKUP(name) n->name = (name##_fn)lookup(n->library, #name);
    VT_NVML_FUNCTIONS(VT_NVML_LOOKUP)
#undef VT_NVML_LOOKUP
    if (!n->nvmlInit_v2) {
        snprintf(why, size, "%s has no nvmlInit_v2: not a usable NVML", VT_NVML_LIBRARY);
        dlclose(n->library);
        memset(n, 0, sizeof *n);
        return -1;
    }
    nvmlReturn_t r = n->nvmlInit_v2();
    if (r != NVML_SUCCESS) {
        snprintf(why, size, "NVML cannot start: %s", vt_nvml_error(n, r, error));
        dlclose(n->library);
        memset(n, 0, sizeof *n);
        return -1;
    }
    return 0;
}

void vt_nvml_close(struct vt_nvml *n)
{
    if (!n->library)
        return;
    VT_NVML_CALL(n, nvmlShutdown);
    dlclose(n->library);
    memset(n, 0, sizeof *n);
}

const char *vt_nvml_error(const struct vt_nvml *n, nvmlReturn_t r, char *buf)
{
    const char *text = n->nvmlErrorString ? n->nvmlErrorString(r) : NULL;
    snprintf(buf, 96, "%.64s (NVML error %d)", text ? text : "unknown error", r);
    return buf;
}

nvmlReturn_t vt_nvml_processes(const struct vt_nvml *n, nvmlDevice_t device,
                               nvmlProcessInfo_t **out, unsigned *count)
{
    nvmlProcessInfo_t *infos = NULL;
    unsigned room = 0;
    nvmlReturn_t r = NVML_ERROR_INSUFFICIENT_SIZE;
    *out = NULL;
    *count = 0;
    for (int tries = 0; tries < LISTING_TRIES && r == NVML_ERROR_INSUFFICIENT_SIZE; tries++) {
        unsigned asked = room;
        r = VT_NVML_CALL(n, nvmlDeviceGetComputeRunningProcesses_v3, device, &asked, infos);
        if (r == NVML_ERROR_INSUFFICIENT_SIZE) {
            /* room for what it said and a few that may start meanwhile */
            nvmlProcessInfo_t *grown;
            room = asked + 4;
            grown = realloc(infos, room * sizeof *infos);
            if (!grown) {
                free(infos);
                return NVML_ERROR_UNKNOWN;
            }
            infos = grown;
        } else if (r == NVML_SUCCESS) {
            *count = asked <= room ? asked : room;
        }
    }
    if (r != NVML_SUCCESS) {
        free(infos);
        return r;
    }
    *out = infos;
    return NVML_SUCCESS;
}

unsigned vt_nvml_mig_devices(const struct vt_nvml *n, nvmlDevice_t gpu, nvmlDevice_t *out,
                             unsigned *indices, unsigned max)
{
    unsigned current, pending, most = 0, found = 0;
    if (VT_NVML_CALL(n, nvmlDeviceGetMigMode, gpu, &current, &pending) != NVML_SUCCESS ||
        current != NVML_DEVICE_MIG_ENABLE ||
        VT_NVML_CALL(n, nvmlDeviceGetMaxMigDeviceCount, gpu, &most) != NVML_SUCCESS)
        return 0;
    /* indices without a MIG device answer NOT_FOUND: skipped */
    for (unsigned i = 0; i < most && found < max; i++)
        if (VT_NVML_CALL(n, nvmlDeviceGetMigDeviceHandleByIndex, gpu, i, &out[found]) ==
            NVML_SUCCESS) {
            if (indices)
                indices[found] = i;
            found++;
        }
    return found;
}
