/* SPDX-License-Identifier: MIT */
#include "dump_model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void vt_process_free(struct vt_process *proc)
{
    free(proc->exe);
    free(proc->hostname);
    for (size_t i = 0; i < proc->argc; i++)
        free(proc->argv[i]);
    free(proc->argv);
    free(proc->rank);
    free(proc->boot_id);
    memset(proc, 0, sizeof *proc);
}

void vt_device_info_free(struct vt_device_info *d)
{
    free(d->pci_bus_id);
    free(d->name);
    free(d->parent_name);
    memset(d, 0, sizeof *d);
}

void vt_dump_stack_free(struct vt_dump_stack_record *s)
{
    if (!s)
        return;
    free(s->frames);
    free(s->python);
    free(s->entry_frames);
    free(s->behalf);
    free(s);
}

void vt_attach_info_free(struct vt_attach_info *a)
{
    if (!a)
        return;
    for (size_t i = 0; i < a->nroutes; i++)
        free(a->routes[i]);
    free(a->routes);
    free(a->devices);
    free(a);
}

uint64_t vt_attach_held_bytes(const struct vt_attach_device *device, bool *by_nvml)
{
    *by_nvml = device->own_plus1 != 0;
    return *by_nvml ? device->own_plus1 - 1 : device->total_bytes - device->free_bytes;
}

static void free_names(struct vt_thread_name **names)
{
    struct vt_thread_name *t, *ttmp;
    HASH_ITER(hh, *names, t, ttmp) {
        HASH_DEL(*names, t);
        free(t->name);
        free(t);
    }
}

void vt_dump_free(struct vt_dump *dump)
{
    struct vt_dump_stack_record *s, *tmp;
    HASH_ITER(hh, dump->stacks, s, tmp) {
        HASH_DEL(dump->stacks, s);
        vt_dump_stack_free(s);
    }
    struct vt_dump_pyframe *f, *ftmp;
    HASH_ITER(hh, dump->pyframes, f, ftmp) {
        HASH_DEL(dump->pyframes, f);
        free(f->function);
        free(f->file);
        free(f);
    }
    free_names(&dump->threads);
    free_names(&dump->phases);
    for (size_t i = 0; i < dump->nframeworks; i++) {
        free(dump->frameworks[i].name);
        free(dump->frameworks[i].version);
    }
    free(dump->frameworks);
    vt_attach_info_free(dump->attach);
    for (size_t i = 0; i < dump->nmodules; i++) {
        free(dump->modules[i].path);
        free(dump->modules[i].build_id);
    }
    free(dump->modules);
    free(dump->stack_index);
    for (size_t i = 0; i < dump->ndevices; i++)
        vt_device_info_free(&dump->devices[i]);
    free(dump->devices);
    vt_process_free(&dump->process);
    memset(dump, 0, sizeof *dump);
}

const struct vt_dump_stack_record *vt_dump_stack(const struct vt_dump *dump, uint64_t id)
{
    struct vt_dump_stack_record *s;
    if (id < dump->stack_index_len && dump->stack_index[id])
        return dump->stack_index[id];
    HASH_FIND(hh, dump->stacks, &id, sizeof id, s);
    return s;
}

static const char *name_of(struct vt_thread_name *names, uint64_t id)
{
    struct vt_thread_name *t;
    HASH_FIND(hh, names, &id, sizeof id, t);
    return t ? t->name : NULL;
}

const char *vt_dump_thread_name(const struct vt_dump *dump, uint64_t tid)
{
    return name_of(dump->threads, tid);
}

const char *vt_dump_phase_name(const struct vt_dump *dump, uint64_t id)
{
    return name_of(dump->phases, id);
}

const struct vt_dump_pyframe *vt_dump_pyframe(const struct vt_dump *dump, uint64_t id)
{
    struct vt_dump_pyframe *f;
    HASH_FIND(hh, dump->pyframes, &id, sizeof id, f);
    return f;
}

const struct vt_module *vt_dump_module_at(const struct vt_dump *dump, uint64_t addr, uint64_t epoch)
{
    for (size_t i = dump->nmodules; i-- > 0;) {
        const struct vt_module *m = &dump->modules[i];
        if (addr >= m->start && addr < m->end && m->loaded_epoch <= epoch &&
            epoch < m->unloaded_epoch)
            return m;
    }
    return NULL;
}

const struct vt_device_info *vt_dump_device(const struct vt_dump *dump, int64_t device)
{
    for (size_t i = 0; i < dump->ndevices; i++)
        if (dump->devices[i].device == device)
            return &dump->devices[i];
    return NULL;
}

static const char *uuid_text(const char *prefix, const uint8_t u[16], char *buf)
{
    snprintf(buf, VT_UUID_TEXT,
             "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", prefix,
             u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
             u[14], u[15]);
    return buf;
}

const char *vt_device_uuid_text(const struct vt_device_info *d, char *buf)
{
    return d->has_uuid ? uuid_text(d->mig ? "MIG" : "GPU", d->uuid, buf) : NULL;
}

const char *vt_device_parent_uuid_text(const struct vt_device_info *d, char *buf)
{
    return d->mig && d->has_parent_uuid ? uuid_text("GPU", d->parent_uuid, buf) : NULL;
}
