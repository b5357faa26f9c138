#include "standin_gpus.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/file.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define SG_MAX_SLOTS 512
#define SG_MAGIC "VTSGPU02"

size_t sg_parse_size(const char *s, size_t dflt)
{
    if (!s || !*s)
        return dflt;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 0);
    if (errno || end == s)
        return dflt;
    switch (*end) {
    case 'k': case 'K': v <<= 10; break;
    case 'm': case 'M': v <<= 20; break;
    case 'g': case 'G': v <<= 30; break;
    default: break;
    }
    return (size_t)v;
}

/* ---- the machine's GPUs ---- */

static pthread_once_t gpus_once = PTHREAD_ONCE_INIT;
static int gpu_count, unit_count;
static struct sg_gpu gpus[SG_MAX_GPUS];

static uint64_t mix(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* Fixed per unit: the same GPU has the same UUID in every process. */
static void make_uuid(unsigned char uuid[16], uint64_t seed)
{
    uint64_t hi = mix(seed), lo = mix(hi);
    memcpy(uuid, &hi, 8);
    memcpy(uuid + 8, &lo, 8);
    uuid[6] = (unsigned char)(0x40 | (uuid[6] & 0x0f));
}

/* STANDIN_CUDA_MIG: GPU 0's MIG devices, after the GPUs. */
static void make_migs(void)
{
    const char *n = getenv("STANDIN_CUDA_MIG");
    int migs = n && *n ? atoi(n) : 0;
    struct sg_gpu *gpu = &gpus[0];
    if (migs > SG_MIG_MAX)
        migs = SG_MIG_MAX;
    if (migs > SG_MAX_GPUS - gpu_count)
        migs = SG_MAX_GPUS - gpu_count;
    if (migs <= 0 || gpu_count == 0)
        return;
    gpu->first_mig = unit_count;
    gpu->migs = migs;
    for (int k = 0; k < migs; k++) {
        struct sg_gpu *mig = &gpus[unit_count++];
        make_uuid(mig->uuid, 0x6d69672d64657673ull + (uint64_t)k);
        memcpy(mig->pci_bus_id, gpu->pci_bus_id, sizeof mig->pci_bus_id);
        mig->capacity = gpu->capacity / (size_t)migs;
        snprintf(mig->name, sizeof mig->name, "%.40s MIG 1g.%zumb", gpu->name,
                 mig->capacity >> 20);
        mig->parent = 0;
        mig->gpu_instance = (unsigned)k + 1;
    }
}

static void make_gpus(void)
{
    const char *n = getenv("STANDIN_CUDA_DEVICES");
    size_t capacity = sg_parse_size(getenv("STANDIN_CUDA_MEMORY"), (size_t)1 << 30);
    gpu_count = n && *n ? atoi(n) : 2;
    if (gpu_count < 0)
        gpu_count = 0;
    if (gpu_count > SG_MAX_GPUS)
        gpu_count = SG_MAX_GPUS;
    for (int i = 0; i < SG_MAX_GPUS; i++) {
        make_uuid(gpus[i].uuid, 0x7672616d74726163ull + (uint64_t)i);
        snprintf(gpus[i].pci_bus_id, sizeof gpus[i].pci_bus_id, "0000:%02X:00.0", 0x17 + i);
        snprintf(gpus[i].name, sizeof gpus[i].name, "vramtrace stand-in GPU");
        gpus[i].capacity = capacity;
        gpus[i].parent = -1;
    }
    unit_count = gpu_count;
    make_migs();
}

int sg_gpu_count(void)
{
    pthread_once(&gpus_once, make_gpus);
    return gpu_count;
}

int sg_unit_count(void)
{
    pthread_once(&gpus_once, make_gpus);
    return unit_count;
}

const struct sg_gpu *sg_gpu(int unit)
{
    if (unit < 0 || unit >= sg_unit_count())
        return NULL;
    return &gpus[unit];
}

void sg_uuid_text(const struct sg_gpu *gpu, char out[SG_UUID_TEXT])
{
    const unsigned char *u = gpu->uuid;
    snprintf(out, SG_UUID_TEXT,
             "%s-%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x",
             gpu->parent >= 0 ? "MIG" : "GPU", u[0], u[1], u[2], u[3], u[4], u[5], u[6], u[7],
             u[8], u[9], u[10], u[11], u[12], u[13], u[14], u[15]);
}

/* The unit an entry of CUDA_VISIBLE_DEVICES names, or -1. */
static int named_unit(const char *entry)
{
    char uuid[SG_UUID_TEXT];
    int found = -1;
    size_t len = strlen(entry);
    if (len && strspn(entry, "0123456789") == len) {
        long i = strtol(entry, NULL, 10);
        return i < sg_gpu_count() ? (int)i : -1;
    }
    if (strncasecmp(entry, "GPU-", 4) != 0 && strncasecmp(entry, "MIG-", 4) != 0)
        return -1;
    for (int i = 0; i < sg_unit_count(); i++) {
        sg_uuid_text(&gpus[i], uuid);
        if (!strncasecmp(uuid, entry, len)) {
            if (found >= 0)
                return -1; /* ambiguous prefix */
            found = i;
        }
    }
    return found;
}

/* Adds UNIT (a GPU in MIG mode: its MIG devices); -1 when one is listed already. */
static int add_visible(int units[SG_MAX_GPUS], int *n, int unit)
{
    const struct sg_gpu *gpu = sg_gpu(unit);
    int first = gpu->migs ? gpu->first_mig : unit, count = gpu->migs ? gpu->migs : 1;
    for (int u = first; u < first + count; u++) {
        for (int k = 0; k < *n; k++)
            if (units[k] == u)
                return -1;
        if (*n < SG_MAX_GPUS)
            units[(*n)++] = u;
    }
    return 0;
}

int sg_visible_gpus(int units[SG_MAX_GPUS])
{
    const char *list = getenv("CUDA_VISIBLE_DEVICES");
    char copy[1024], *save = NULL;
    int n = 0;
    if (!list) {
        for (int i = 0; i < sg_gpu_count(); i++)
            add_visible(units, &n, i);
        return n;
    }
    snprintf(copy, sizeof copy, "%s", list);
    for (char *entry = strtok_r(copy, ",", &save); entry && n < SG_MAX_GPUS;
         entry = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*entry))
            entry++;
        for (size_t len = strlen(entry); len && isspace((unsigned char)entry[len - 1]);)
            entry[--len] = '\0';
        int unit = named_unit(entry);
        if (unit < 0 || add_visible(units, &n, unit) != 0)
            break;
    }
    return n;
}

/* ---- the registry ---- */

/* Every charge is in the slot of the process that made it, and what a GPU
 * has in use is the sum of the slots: a slot is dropped, with its
 * charges, once its process is gone (a SIGKILL included), and no count
 * kept beside the slots can drift from them. */

enum { SLOT_FREE = 0, SLOT_LIVE = 1, SLOT_EXITED = 2 };

struct slot {
    uint32_t state;
    int32_t pid;
    uint64_t pid_ns;          /* inode of its pid namespace: pids elsewhere are not ours to read */
    uint64_t start_ticks;     /* /proc/PID/stat starttime: tells a reused pid apart */
    uint64_t used[SG_MAX_GPUS];
    uint32_t contexts[SG_MAX_GPUS];
};

struct registry {
    char magic[8];
    uint32_t slots_max, gpus_max;
    uint32_t slots_seen;      /* slots ever claimed: the sums stop there */
    uint32_t reserved;
    struct slot slots[SG_MAX_SLOTS];
};

static pthread_once_t registry_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t slot_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t file_lock = PTHREAD_MUTEX_INITIALIZER; /* flock is not per thread */
static struct registry *reg;
static int reg_fd = -1;          /* -1: a private registry (the file could not be used) */
static char reg_path[4096];
static struct slot *mine;
static pid_t mine_pid;

static void registry_path(char *out, size_t size)
{
    /* a setuid program does not take a path from its environment */
    const char *path = secure_getenv("STANDIN_GPU_REGISTRY"), *tmp = secure_getenv("TMPDIR");
    struct stat st;
    if (path && *path)
        snprintf(out, size, "%s", path);
    else if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0)
        snprintf(out, size, "/dev/shm/vramtrace-standin-gpus.%u", (unsigned)getuid());
    else
        snprintf(out, size, "%s/vramtrace-standin-gpus.%u", tmp && *tmp ? tmp : "/tmp",
                 (unsigned)getuid());
}

static int lock_file(void)
{
    pthread_mutex_lock(&file_lock);
    if (reg_fd < 0)
        return 0;
    while (flock(reg_fd, LOCK_EX) != 0)
        if (errno != EINTR) {
            pthread_mutex_unlock(&file_lock);
            return -1;
        }
    return 0;
}

static void unlock_file(void)
{
    if (reg_fd >= 0)
        flock(reg_fd, LOCK_UN);
    pthread_mutex_unlock(&file_lock);
}

/* A new file, or one an older stand-in laid out otherwise: made anew. */
static void initialize(struct registry *r)
{
    static const char zeros[8];
    if (!memcmp(r->magic, zeros, 8) ||
        (!memcmp(r->magic, SG_MAGIC, 6) && memcmp(r->magic, SG_MAGIC, 8))) {
        memset(r, 0, sizeof *r);
        r->slots_max = SG_MAX_SLOTS;
        r->gpus_max = SG_MAX_GPUS;
        memcpy(r->magic, SG_MAGIC, 8);
    }
}

static struct registry *map_file(int fd)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || (st.st_size < (off_t)sizeof(struct registry) &&
                                ftruncate(fd, sizeof(struct registry)) != 0))
        return NULL;
    struct registry *r = mmap(NULL, sizeof *r, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (r == MAP_FAILED)
        return NULL;
    initialize(r);
    if (memcmp(r->magic, SG_MAGIC, 8) || r->slots_max != SG_MAX_SLOTS ||
        r->gpus_max != SG_MAX_GPUS) {
        munmap(r, sizeof *r);
        return NULL;
    }
    return r;
}

static void open_registry(void)
{
    registry_path(reg_path, sizeof reg_path);
    int fd = open(reg_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd >= 0) {
        reg_fd = fd;
        if (lock_file() == 0) {
            reg = map_file(fd);
            unlock_file();
        }
        if (!reg) {
            close(fd);
            reg_fd = -1;
        }
    }
    if (!reg) { /* this process alone, as if no other used the GPUs */
        const char *asked = secure_getenv("STANDIN_GPU_REGISTRY");
        if (asked && *asked)
            fprintf(stderr, "stand-in GPUs: cannot use the registry %s (%s); other processes "
                    "will not see this one\n", reg_path, strerror(errno));
        reg = calloc(1, sizeof *reg);
    }
}

static struct registry *registry(void)
{
    pthread_once(&registry_once, open_registry);
    return reg;
}

static uint64_t own_pid_ns(void)
{
    struct stat st;
    return stat("/proc/self/ns/pid", &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Field 3 (state) and 22 (starttime) of /proc/PID/stat; -1 when gone. */
static int read_stat(int pid, char *state, uint64_t *start_ticks)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    char *p = strrchr(buf, ')'); /* the command name may hold spaces and parentheses */
    if (!p || sscanf(p + 2, "%c", state) != 1)
        return -1;
    for (int field = 2; field < 22 && p; field++) /* p: the space before field + 1 */
        p = strchr(p + 1, ' ');
    *start_ticks = p ? strtoull(p + 1, NULL, 10) : 0;
    return 0;
}

static int thread_count(int pid)
{
    char path[64], line[256];
    int threads = 0;
    snprintf(path, sizeof path, "/proc/%d/status", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "Threads: %d", &threads) == 1)
            break;
    fclose(f);
    return threads;
}

/* Each process holds a record lock on the first byte of its slot; the
 * kernel releases it when the process ends, however it ends. */
static struct flock slot_byte(const struct slot *s, short type)
{
    return (struct flock){.l_type = type, .l_whence = SEEK_SET,
                          .l_start = (off_t)((const char *)s - (const char *)reg), .l_len = 1};
}

static int slot_held(const struct slot *s)
{
    struct flock fl = slot_byte(s, F_WRLCK);
    return reg_fd < 0 || fcntl(reg_fd, F_GETLK, &fl) != 0 || fl.l_type != F_UNLCK;
}

enum { PROCESS_ALIVE, PROCESS_EXITED, PROCESS_GONE };

/* A zombie whose threads have all ended has closed the device: its memory
 * is free, though it is listed until its parent reaps it. A pid of
 * another namespace cannot be read here: its slot's lock tells. */
static int process_state(const struct slot *s, uint64_t my_ns)
{
    char state;
    uint64_t start;
    if (s->pid_ns != my_ns || !my_ns || !s->start_ticks) {
        if (s->pid == getpid() && s->pid_ns == my_ns)
            return PROCESS_ALIVE; /* the other library's: its lock is not seen from here */
        return slot_held(s) ? PROCESS_ALIVE : PROCESS_GONE;
    }
    if (read_stat(s->pid, &state, &start) != 0 || start != s->start_ticks || state == 'X')
        return PROCESS_GONE;
    if (state == 'Z' && thread_count(s->pid) <= 1)
        return PROCESS_EXITED;
    return PROCESS_ALIVE;
}

/* Other threads sum the slots without the lock: every field they read is
 * cleared atomically. */
static void clear_slot(struct slot *s)
{
    __atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_SEQ_CST);
    for (int g = 0; g < SG_MAX_GPUS; g++) {
        __atomic_store_n(&s->used[g], 0, __ATOMIC_SEQ_CST);
        __atomic_store_n(&s->contexts[g], 0, __ATOMIC_SEQ_CST);
    }
    s->pid = 0;
    s->pid_ns = s->start_ticks = 0;
}

/* File lock held: drops what exited processes held. */
static void reap_locked(void)
{
    uint64_t ns = own_pid_ns();
    uint32_t seen = __atomic_load_n(&reg->slots_seen, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < seen && i < SG_MAX_SLOTS; i++) {
        struct slot *s = &reg->slots[i];
        if (s->state == SLOT_FREE || s == mine)
            continue;
        int st = process_state(s, ns);
        if (st == PROCESS_GONE) {
            clear_slot(s);
        } else if (st == PROCESS_EXITED && s->state == SLOT_LIVE) {
            for (int g = 0; g < SG_MAX_GPUS; g++)
                __atomic_store_n(&s->used[g], 0, __ATOMIC_SEQ_CST);
            __atomic_store_n(&s->state, SLOT_EXITED, __ATOMIC_SEQ_CST);
        }
    }
}

static void reap(void)
{
    if (lock_file() == 0) {
        reap_locked();
        unlock_file();
    }
}

/* File lock held: a free slot for this process, its lock taken. */
static struct slot *claim_locked(void)
{
    char state;
    uint64_t start = 0;
    struct slot *s = NULL;
    reap_locked();
    for (int i = 0; i < SG_MAX_SLOTS && !s; i++)
        if (reg->slots[i].state == SLOT_FREE)
            s = &reg->slots[i];
    if (!s)
        return NULL;
    clear_slot(s);
    s->pid = (int32_t)getpid();
    s->pid_ns = own_pid_ns();
    if (read_stat(s->pid, &state, &start) == 0)
        s->start_ticks = start;
    struct flock fl = slot_byte(s, F_WRLCK);
    if (reg_fd >= 0)
        fcntl(reg_fd, F_SETLK, &fl);
    uint32_t index = (uint32_t)(s - reg->slots);
    if (index >= reg->slots_seen)
        __atomic_store_n(&reg->slots_seen, index + 1, __ATOMIC_RELEASE);
    __atomic_store_n(&s->state, SLOT_LIVE, __ATOMIC_RELEASE);
    return s;
}

/* This process's slot, claimed on first use (a forked child claims its own). */
static struct slot *own_slot(void)
{
    registry();
    pthread_mutex_lock(&slot_lock);
    if (!mine || mine_pid != getpid()) {
        mine = NULL;
        if (lock_file() == 0) {
            mine = claim_locked();
            unlock_file();
        }
        if (mine)
            mine_pid = getpid();
    }
    struct slot *s = mine;
    pthread_mutex_unlock(&slot_lock);
    return s;
}

static int valid_gpu(int physical)
{
    return physical >= 0 && physical < SG_MAX_GPUS;
}

/* What every process in the registry holds on UNIT. */
static uint64_t unit_used(int unit)
{
    uint64_t used = 0;
    uint32_t seen = __atomic_load_n(&reg->slots_seen, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < seen && i < SG_MAX_SLOTS; i++)
        if (__atomic_load_n(&reg->slots[i].state, __ATOMIC_ACQUIRE) != SLOT_FREE)
            used += __atomic_load_n(&reg->slots[i].used[unit], __ATOMIC_SEQ_CST);
    return used;
}

/* Charged first, then checked against the sum: two processes charging at
 * once each see the other's charge, so together they never pass the
 * capacity. */
static int try_charge(struct slot *s, int physical, size_t bytes)
{
    size_t capacity = gpus[physical].capacity;
    if (bytes > capacity)
        return -1;
    __atomic_fetch_add(&s->used[physical], bytes, __ATOMIC_SEQ_CST);
    if (unit_used(physical) <= capacity)
        return 0;
    __atomic_fetch_sub(&s->used[physical], bytes, __ATOMIC_SEQ_CST);
    return -1;
}

static void print_size(char *out, size_t size, uint64_t bytes)
{
    snprintf(out, size, "%.1f MiB", (double)bytes / (1 << 20));
}

/* Once a process: where the rest of the GPU's memory is, and how to start
 * afresh, when other processes hold part of it. */
static void explain_out_of_memory(int physical, const struct slot *s)
{
    static int told;
    uint64_t others = unit_used(physical) - __atomic_load_n(&s->used[physical], __ATOMIC_SEQ_CST);
    char held[32], capacity[32];
    if (!others || reg_fd < 0 || __atomic_exchange_n(&told, 1, __ATOMIC_ACQ_REL))
        return;
    print_size(held, sizeof held, others);
    print_size(capacity, sizeof capacity, gpus[physical].capacity);
    fprintf(stderr, "stand-in GPUs: out of memory on GPU %d: other processes hold %s of its %s "
            "in the registry %s (STANDIN_GPU_REGISTRY; `vramtrace gpus` lists them); to reset "
            "it, end them or remove that file\n", physical, held, capacity, reg_path);
}

int sg_charge(int physical, size_t bytes)
{
    if (!sg_gpu(physical))
        return -1;
    struct slot *s = own_slot();
    if (!s) {
        fprintf(stderr, "stand-in GPUs: the registry %s has no free slot (%d processes)\n",
                reg_path, SG_MAX_SLOTS);
        return -1;
    }
    if (try_charge(s, physical, bytes) == 0)
        return 0;
    reap(); /* the memory of processes that have ended since */
    if (try_charge(s, physical, bytes) == 0)
        return 0;
    explain_out_of_memory(physical, s);
    return -1;
}

/* Never below zero: a forked child frees nothing of what its parent holds. */
void sg_uncharge(int physical, size_t bytes)
{
    struct slot *s = sg_gpu(physical) ? own_slot() : NULL;
    if (!s)
        return;
    uint64_t cur = __atomic_load_n(&s->used[physical], __ATOMIC_SEQ_CST), next;
    do
        next = cur > bytes ? cur - bytes : 0;
    while (!__atomic_compare_exchange_n(&s->used[physical], &cur, next, 1, __ATOMIC_SEQ_CST,
                                        __ATOMIC_SEQ_CST));
}

void sg_context_opened(int physical)
{
    struct slot *s = valid_gpu(physical) ? own_slot() : NULL;
    if (s)
        __atomic_fetch_add(&s->contexts[physical], 1, __ATOMIC_ACQ_REL);
}

void sg_context_closed(int physical)
{
    struct slot *s = valid_gpu(physical) ? own_slot() : NULL;
    if (s && __atomic_load_n(&s->contexts[physical], __ATOMIC_ACQUIRE) > 0)
        __atomic_fetch_sub(&s->contexts[physical], 1, __ATOMIC_ACQ_REL);
}

size_t sg_used(int physical)
{
    const struct sg_gpu *gpu = sg_gpu(physical);
    size_t used = 0;
    if (!gpu || !registry())
        return 0;
    reap();
    if (!gpu->migs)
        return (size_t)unit_used(physical);
    for (int u = gpu->first_mig; u < gpu->first_mig + gpu->migs; u++)
        used += (size_t)unit_used(u);
    return used;
}

size_t sg_processes(int physical, struct sg_process *out, size_t max)
{
    size_t n = 0;
    if (!sg_gpu(physical) || !registry() || lock_file() != 0)
        return 0;
    reap_locked();
    uint32_t seen = __atomic_load_n(&reg->slots_seen, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < seen && i < SG_MAX_SLOTS; i++) {
        const struct slot *s = &reg->slots[i];
        uint64_t used = __atomic_load_n(&s->used[physical], __ATOMIC_ACQUIRE);
        if (s->state == SLOT_FREE ||
            (!__atomic_load_n(&s->contexts[physical], __ATOMIC_ACQUIRE) && !used))
            continue;
        if (n < max)
            out[n] = (struct sg_process){s->pid, used, s->state == SLOT_EXITED};
        n++;
    }
    unlock_file();
    return n;
}
/* SPDX-License-Identifier: MIT */
