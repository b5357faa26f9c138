/* SPDX-License-Identifier: MIT */
#include "gpus_query.h"

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "dump_reader.h"
#include "format.h"
#include "xalloc.h"

#define COMMAND_MAX 4096

/* ---- traced processes: the PROCESS record at the start of each dump ---- */

/* Reads only the header and the first record (PROCESS), not the events. */
static int read_process(const char *path, struct vt_process *out, bool quiet)
{
    static const struct vt_event_sink none;
    struct stat st;
    struct vt_dump dump;
    int fd = open(path, O_RDONLY | O_CLOEXEC), result = -1;
    if (fd < 0 || fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size <= VT_HEADER_LEN) {
        if (!quiet)
            fprintf(stderr, "vramtrace: %s: %s\n", path,
                    fd < 0 ? strerror(errno) : "not a vramtrace dump");
        if (fd >= 0)
            close(fd);
        return -1;
    }
    const uint8_t *data = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (data == MAP_FAILED)
        return -1;
    const uint8_t *p = data + VT_HEADER_LEN + 1, *end = data + st.st_size;
    uint64_t len;
    if (data[VT_HEADER_LEN] == VT_REC_PROCESS && vt_get_varint(&p, end, &len) == 0 &&
        len <= (uint64_t)(end - p) && !memcmp(data, VT_MAGIC, VT_MAGIC_LEN) &&
        vt_dump_read_memory_quietly(path, data, (size_t)(p - data) + (size_t)len, &none, NULL,
                                    &dump) == 0) {
        if (dump.process.present) {
            *out = dump.process;
            memset(&dump.process, 0, sizeof dump.process); /* taken over */
            result = 0;
        }
        vt_dump_free(&dump);
    } else if (!quiet) {
        fprintf(stderr, "vramtrace: %s: no process record at its start\n", path);
    }
    munmap((void *)data, (size_t)st.st_size);
    return result;
}

static void add_traced(struct vt_gpus *g, const char *path, bool quiet)
{
    struct vt_process p;
    if (read_process(path, &p, quiet) != 0)
        return;
    g->traced = vt_xrealloc(g->traced, g->ntraced + 1, sizeof *g->traced);
    g->traced[g->ntraced++] = (struct vt_traced){.path = strdup(path),
                                                 .host = strdup(p.hostname ? p.hostname : ""),
                                                 .pid = p.pid,
                                                 .start_real_ns = p.start_real_ns};
    free(p.exe);
    free(p.hostname);
    for (size_t i = 0; i < p.argc; i++)
        free(p.argv[i]);
    free(p.argv);
    free(p.rank);
}

static void add_directory(struct vt_gpus *g, const char *dir, bool quiet)
{
    char *pattern;
    glob_t found;
    /* the working directory's dumps by their names */
    if ((!strcmp(dir, ".") ? (pattern = strdup("*.vtr")) == NULL
                           : asprintf(&pattern, "%s/*.vtr", dir) < 0))
        return;
    if (glob(pattern, 0, NULL, &found) == 0) {
        for (size_t i = 0; i < found.gl_pathc; i++)
            add_traced(g, found.gl_pathv[i], true);
        globfree(&found);
    } else if (!quiet) {
        fprintf(stderr, "vramtrace: %s: no .vtr dumps in this directory\n", dir);
    }
    free(pattern);
}

void vt_gpus_find_traced(struct vt_gpus *g, char *const *paths, size_t npaths)
{
    struct stat st;
    if (!npaths)
        add_directory(g, ".", true);
    for (size_t i = 0; i < npaths; i++) {
        if (stat(paths[i], &st) == 0 && S_ISDIR(st.st_mode))
            add_directory(g, paths[i], false);
        else
            add_traced(g, paths[i], false);
    }
}

/* Seconds since the epoch at boot: process start times are since boot. */
static double boot_time(void)
{
    char line[256];
    double btime = -1;
    FILE *f = fopen("/proc/stat", "re");
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "btime %lf", &btime) == 1)
            break;
    fclose(f);
    return btime;
}

/* The dump of process P: same host, same pid, and the process started
 * before the dump did (a later process with a reused pid did not). */
static const char *dump_of(const struct vt_gpus *g, const struct vt_gpu_process *p)
{
    long ticks = sysconf(_SC_CLK_TCK);
    double boot = boot_time();
    if (!p->visible || ticks <= 0 || boot < 0)
        return NULL;
    double started = boot + (double)p->status.start_ticks / (double)ticks;
    for (size_t i = 0; i < g->ntraced; i++) {
        const struct vt_traced *t = &g->traced[i];
        if (t->pid == p->pid && (!t->host[0] || !strcmp(t->host, g->host)) &&
            started <= (double)t->start_real_ns / 1e9 + 1.0) /* ticks and clocks: a second */
            return t->path;
    }
    return NULL;
}

/* ---- processes ---- */

static char *command_line(unsigned pid, const char *comm)
{
    char path[64], *buf = vt_xcalloc(COMMAND_MAX + 1, 1);
    ssize_t n = 0;
    snprintf(path, sizeof path, "/proc/%u/cmdline", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        n = read(fd, buf, COMMAND_MAX);
        close(fd);
    }
    while (n > 0 && buf[n - 1] == '\0')
        n--;
    if (n <= 0) /* a zombie, a kernel thread: no arguments any more */
        snprintf(buf, COMMAND_MAX, "[%s]", comm);
    for (ssize_t i = 0; i < n; i++)
        if (buf[i] == '\0')
            buf[i] = ' ';
    return buf;
}

static void user_name(unsigned uid, char *out, size_t size)
{
    struct passwd pw, *found = NULL;
    char buf[1024];
    if (getpwuid_r(uid, &pw, buf, sizeof buf, &found) == 0 && found)
        snprintf(out, size, "%s", found->pw_name);
    else
        snprintf(out, size, "%u", uid);
}

static void describe(const struct vt_gpus *g, struct vt_gpu_process *p,
                     const nvmlProcessInfo_t *info)
{
    p->pid = info->pid;
    p->has_used = info->usedGpuMemory != VT_NVML_VALUE_NOT_AVAILABLE;
    p->used = p->has_used ? info->usedGpuMemory : 0;
    p->run_seconds = -1;
    if (vt_proc_status_read((int)info->pid, &p->status) != 0)
        return;
    p->visible = true;
    p->orphaned = vt_proc_orphaned(&p->status);
    p->run_seconds = vt_proc_run_seconds(&p->status);
    user_name(p->status.uid, p->user, sizeof p->user);
    p->command = command_line(p->pid, p->status.comm);
    p->dump = dump_of(g, p);
}

static bool listed(const nvmlProcessInfo_t *infos, unsigned n, unsigned pid)
{
    for (unsigned i = 0; i < n; i++)
        if (infos[i].pid == pid)
            return true;
    return false;
}

/* Processes NVML listed that /proc does not show: in another container,
 * unless NVML no longer lists them either (they ended meanwhile). */
static void drop_vanished(const struct vt_nvml *n, nvmlDevice_t device, struct vt_gpu *gpu)
{
    nvmlProcessInfo_t *now;
    unsigned count;
    size_t kept = 0;
    bool invisible = false;
    for (size_t i = 0; i < gpu->nprocesses; i++)
        invisible |= !gpu->processes[i].visible;
    if (!invisible || vt_nvml_processes(n, device, &now, &count) != NVML_SUCCESS)
        return;
    for (size_t i = 0; i < gpu->nprocesses; i++) {
        struct vt_gpu_process *p = &gpu->processes[i];
        if (!p->visible && !listed(now, count, p->pid)) {
            gpu->vanished++;
            continue;
        }
        gpu->processes[kept++] = *p;
    }
    gpu->nprocesses = kept;
    free(now);
}

static void query_processes(const struct vt_nvml *n, const struct vt_gpus *g, nvmlDevice_t device,
                            struct vt_gpu *gpu)
{
    nvmlProcessInfo_t *infos;
    unsigned count;
    char error[96];
    nvmlReturn_t r = vt_nvml_processes(n, device, &infos, &count);
    if (r != NVML_SUCCESS) {
        snprintf(gpu->processes_error, sizeof gpu->processes_error, "%s",
                 vt_nvml_error(n, r, error));
        return;
    }
    gpu->processes = vt_xcalloc(count, sizeof *gpu->processes);
    for (unsigned i = 0; i < count; i++)
        describe(g, &gpu->processes[gpu->nprocesses++], &infos[i]);
    free(infos);
    drop_vanished(n, device, gpu);
}

/* ---- GPUs ---- */

/* What NVML says of DEVICE, a GPU or a MIG device. */
static void query_device(const struct vt_nvml *n, nvmlDevice_t device, struct vt_gpu *gpu)
{
    nvmlMemory_t memory;
    nvmlUtilization_t utilization;
    nvmlPciInfo_t pci;
    if (VT_NVML_CALL(n, nvmlDeviceGetUUID, device, gpu->uuid, sizeof gpu->uuid) != NVML_SUCCESS)
        gpu->uuid[0] = '\0';
    if (VT_NVML_CALL(n, nvmlDeviceGetName, device, gpu->name, sizeof gpu->name) != NVML_SUCCESS)
        gpu->name[0] = '\0';
    if (VT_NVML_CALL(n, nvmlDeviceGetPciInfo_v3, device, &pci) == NVML_SUCCESS)
        snprintf(gpu->pci_bus_id, sizeof gpu->pci_bus_id, "%.31s", pci.busId);
    if (VT_NVML_CALL(n, nvmlDeviceGetMemoryInfo, device, &memory) == NVML_SUCCESS &&
        memory.free <= memory.total) {
        gpu->has_memory = true;
        gpu->total = memory.total;
        gpu->used = memory.total - memory.free; /* what cuMemGetInfo calls used */
        gpu->free = memory.free;
    }
    if (VT_NVML_CALL(n, nvmlDeviceGetUtilizationRates, device, &utilization) == NVML_SUCCESS &&
        utilization.gpu <= 100 && utilization.memory <= 100) {
        gpu->has_utilization = true;
        gpu->utilization = utilization.gpu;
        gpu->memory_utilization = utilization.memory;
    }
}

/* A GPU in MIG mode: each MIG device with its own memory and processes
 * (the GPU's own listing is an aggregate that needs privileges). */
static void query_migs(const struct vt_nvml *n, const struct vt_gpus *g, nvmlDevice_t device,
                       struct vt_gpu *gpu)
{
    nvmlDevice_t migs[VT_GPU_MIG_MAX];
    unsigned indices[VT_GPU_MIG_MAX];
    gpu->nmigs = vt_nvml_mig_devices(n, device, migs, indices, VT_GPU_MIG_MAX);
    gpu->mig_mode = gpu->nmigs > 0;
    gpu->migs = vt_xcalloc(gpu->nmigs, sizeof *gpu->migs);
    for (size_t i = 0; i < gpu->nmigs; i++) {
        struct vt_gpu *mig = &gpu->migs[i];
        mig->index = indices[i];
        query_device(n, migs[i], mig);
        query_processes(n, g, migs[i], mig);
    }
}

static void query_gpu(const struct vt_nvml *n, const struct vt_gpus *g, unsigned index,
                      struct vt_gpu *gpu)
{
    nvmlDevice_t device;
    char error[96];
    nvmlReturn_t r = VT_NVML_CALL(n, nvmlDeviceGetHandleByIndex_v2, index, &device);
    gpu->index = index;
    if (r != NVML_SUCCESS) {
        snprintf(gpu->error, sizeof gpu->error, "%s", vt_nvml_error(n, r, error));
        return;
    }
    query_device(n, device, gpu);
    query_migs(n, g, device, gpu);
    if (!gpu->mig_mode)
        query_processes(n, g, device, gpu);
}

int vt_gpus_query(const struct vt_nvml *n, struct vt_gpus *g, int only, char *why, size_t size)
{
    unsigned count = 0;
    char error[96];
    nvmlReturn_t r = VT_NVML_CALL(n, nvmlDeviceGetCount_v2, &count);
    if (r != NVML_SUCCESS) {
        snprintf(why, size, "NVML cannot count the GPUs: %s", vt_nvml_error(n, r, error));
        return -1;
    }
    if (only >= 0 && (unsigned)only >= count) {
        snprintf(why, size, "there is no GPU %d (NVML counts %u)", only, count);
        return -1;
    }
    if (VT_NVML_CALL(n, nvmlSystemGetDriverVersion, g->driver_version, sizeof g->driver_version) !=
        NVML_SUCCESS)
        g->driver_version[0] = '\0';
    gethostname(g->host, sizeof g->host - 1);
    g->gpus = vt_xcalloc(count, sizeof *g->gpus);
    for (unsigned i = 0; i < count; i++)
        if (only < 0 || (unsigned)only == i)
            query_gpu(n, g, i, &g->gpus[g->n++]);
    return 0;
}

static void free_gpu(struct vt_gpu *gpu)
{
    for (size_t k = 0; k < gpu->nprocesses; k++)
        free(gpu->processes[k].command);
    free(gpu->processes);
    for (size_t k = 0; k < gpu->nmigs; k++)
        free_gpu(&gpu->migs[k]);
    free(gpu->migs);
}

void vt_gpus_free(struct vt_gpus *g)
{
    for (size_t i = 0; i < g->n; i++)
        free_gpu(&g->gpus[i]);
    free(g->gpus);
    for (size_t i = 0; i < g->ntraced; i++) {
        free(g->traced[i].path);
        free(g->traced[i].host);
    }
    free(g->traced);
    memset(g, 0, sizeof *g);
}
