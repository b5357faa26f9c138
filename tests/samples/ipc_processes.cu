// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's simpleIPC sample: a parent process fills device
// memory and exports it with cudaIpcGetMemHandle; a child process (the same
// program, exec'd with the handle in hex) opens it with
// cudaIpcOpenMemHandle, reads and rewrites it, and closes it; the parent
// sees the child's bytes. A second exported buffer (FREED_BYTES), opened
// and closed by the child too, is freed by the parent afterwards. Ground
// truth (tests/test_samples.py): in the parent's dump the first exported
// buffer (IPC_BYTES, cudaMalloc) is never freed; in the child's, what it
// opened is no allocation of its own and no leak, and only its own buffer
// (CHILD_BYTES, cudaMalloc) leaks.
#include "sample.h"

#include <cstring>
#include <string>
#include <sys/wait.h>
#include <unistd.h>

#define IPC_BYTES (3 << 20)
#define CHILD_BYTES (72 << 10)
#define FREED_BYTES (128 << 10)

static NOINLINE void *exported(void)
{
    void *p = nullptr;
    CHECK(cudaMalloc(&p, IPC_BYTES)); // LEAK:ipc_exported
    return p;
}

static NOINLINE void *child_own(void)
{
    void *p = nullptr;
    CHECK(cudaMalloc(&p, CHILD_BYTES)); // LEAK:ipc_child_own
    return p;
}

static bool all_bytes(const void *device, unsigned char value)
{
    static unsigned char host[IPC_BYTES];
    CHECK(cudaMemcpy(host, device, IPC_BYTES, cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < IPC_BYTES; i++)
        if (host[i] != value)
            return false;
    return true;
}

static cudaIpcMemHandle_t handle_of(const char *hex)
{
    cudaIpcMemHandle_t h;
    REQUIRE(strlen(hex) == 2 * sizeof h.reserved);
    for (size_t i = 0; i < sizeof h.reserved; i++)
        h.reserved[i] = (char)std::stoi(std::string(hex + 2 * i, 2), nullptr, 16);
    return h;
}

static std::string hex_of(void *device)
{
    cudaIpcMemHandle_t h;
    CHECK(cudaIpcGetMemHandle(&h, device));
    char hex[2 * sizeof h.reserved + 1];
    for (size_t i = 0; i < sizeof h.reserved; i++)
        snprintf(hex + 2 * i, 3, "%02x", (unsigned char)h.reserved[i]);
    return hex;
}

static int child(const char *hex, const char *freed_hex)
{
    void *p = nullptr, *q = nullptr;
    CHECK(cudaIpcOpenMemHandle(&p, handle_of(hex), cudaIpcMemLazyEnablePeerAccess));
    CHECK(cudaIpcOpenMemHandle(&q, handle_of(freed_hex), cudaIpcMemLazyEnablePeerAccess));
    REQUIRE(all_bytes(p, 0x5a));
    CHECK(cudaMemset(p, 0xa5, IPC_BYTES));
    CHECK(cudaMemset(q, 0, FREED_BYTES));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaIpcCloseMemHandle(p));
    CHECK(cudaIpcCloseMemHandle(q));
    child_own();
    printf("child: opened %d bytes\n", IPC_BYTES);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child(argv[2], argv[3]);
    void *p = exported(), *q = nullptr;
    CHECK(cudaMalloc(&q, FREED_BYTES)); // CALL:ipc_freed
    CHECK(cudaMemset(p, 0x5a, IPC_BYTES));
    CHECK(cudaDeviceSynchronize());
    std::string hex = hex_of(p), freed_hex = hex_of(q);
    fflush(stdout);
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "--child", hex.c_str(), freed_hex.c_str(),
              (char *)nullptr);
        _exit(127);
    }
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    REQUIRE(all_bytes(p, 0xa5));
    CHECK(cudaFree(q));
    printf("parent: saw the child's bytes\n");
    return 0;
}
