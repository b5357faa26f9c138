/* SPDX-License-Identifier: MIT */
/* The stand-in driver's answers to what PyTorch's c10, JAX and NVIDIA's
 * samples call, as cuda.h documents them: attributes of the stand-in H100,
 * peers, events, stream order, modules and launches, address ranges,
 * pointer attributes of cuMemMap'ped memory, allocation handles retained,
 * exported and imported, cuGetExportTable. Exit status 0, or 99 with the
 * first answer that differs (check.h). */
#include <cuda.h>
#include <dlfcn.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

#define MIB ((size_t)1 << 20)

static void attributes_and_peers(CUdevice dev)
{
    int v;
    CHECK(cuDeviceGetAttribute(&v, 102, dev)); /* VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED */
    REQUIRE(v == 1);
    CHECK(cuDeviceGetAttribute(&v, 16, dev)); /* MULTIPROCESSOR_COUNT */
    REQUIRE(v == 132);
    CHECK(cuDeviceGetAttribute(&v, 33, dev)); /* PCI_BUS_ID: 0000:17:00.0 for GPU 0 */
    REQUIRE(v == 0x17);
    CHECK(cuDeviceCanAccessPeer(&v, 0, 1));
    REQUIRE(v == 1);
    CHECK(cuDeviceCanAccessPeer(&v, 0, 0));
    REQUIRE(v == 0);
}

static void stream_order(void)
{
    CUstream s;
    CUevent a, b;
    CUdeviceptr d, base;
    size_t size;
    unsigned int words[4];
    CHECK(cuStreamCreateWithPriority(&s, CU_STREAM_NON_BLOCKING, -2));
    CHECK(cuEventCreate(&a, CU_EVENT_DEFAULT));
    CHECK(cuEventCreate(&b, CU_EVENT_DISABLE_TIMING));
    CHECK(cuMemAlloc_v2(&d, 4096));
    CHECK(cuMemsetD32Async(d, 0xabcdef01u, 4, s));
    CHECK(cuStreamWriteValue32_v2(s, d + 4, 5, 0));
    CHECK(cuEventRecord(a, s));
    CHECK(cuStreamWaitEvent(NULL, a, 0));
    CHECK(cuMemcpyDtoHAsync_v2(words, d, sizeof words, s));
    CHECK(cuEventRecord(b, s));
    CHECK(cuEventSynchronize(b));
    REQUIRE(words[0] == 0xabcdef01u && words[1] == 5 && words[3] == 0xabcdef01u);
    CHECK(cuMemGetAddressRange_v2(&base, &size, d + 100));
    REQUIRE(base == d && size == 4096);
    EXPECT(cuMemGetAddressRange_v2(&base, &size, (CUdeviceptr)(uintptr_t)words), CUDA_ERROR_NOT_FOUND);
    CHECK(cuMemFree_v2(d));
    CHECK(cuEventDestroy_v2(a));
    CHECK(cuEventDestroy_v2(b));
    CHECK(cuStreamDestroy_v2(s));
}

static void modules_and_launches(void)
{
    static const char ptx[] = ".version 9.0\n.target sm_90\n.address_size 64\n";
    CUmodule m;
    CUfunction f;
    CHECK(cuModuleLoadData(&m, ptx));
    CHECK(cuModuleGetFunction(&f, m, "kernel"));
    CHECK(cuLaunchKernel(f, 1, 1, 1, 128, 1, 1, 0, NULL, NULL, NULL));
    EXPECT(cuLaunchKernel(f, 1, 1, 1, 2048, 1, 1, 0, NULL, NULL, NULL), CUDA_ERROR_INVALID_VALUE);
    CHECK(cuModuleUnload(m));
    const void *table = &table;
    CUuuid id;
    memset(&id, 0, sizeof id);
    CUresult (*get)(const void **, const CUuuid *) =
        (CUresult(*)(const void **, const CUuuid *))dlsym(RTLD_DEFAULT, "cuGetExportTable");
    REQUIRE(get != NULL);
    EXPECT(get(&table, &id), CUDA_ERROR_NOT_SUPPORTED);
    REQUIRE(table == NULL);
}

static void vmm_handles(CUdevice dev)
{
    CUmemAllocationProp prop;
    CUmemAccessDesc access;
    CUmemGenericAllocationHandle h, retained, imported;
    CUdeviceptr va;
    int fd, type = 0, ordinal = -1;
    memset(&prop, 0, sizeof prop);
    prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = dev;
    prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    CHECK(cuMemCreate(&h, 2 * MIB, &prop, 0));
    CHECK(cuMemAddressReserve(&va, 2 * MIB, 0, 0, 0));
    CHECK(cuMemMap(va, 2 * MIB, 0, h, 0));
    memset(&access, 0, sizeof access);
    access.location = prop.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    CHECK(cuMemSetAccess(va, 2 * MIB, &access, 1));
    CHECK(cuPointerGetAttribute(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, va + 4096));
    CHECK(cuPointerGetAttribute(&ordinal, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL, va + 4096));
    REQUIRE(type == 2 && ordinal == dev); /* CU_MEMORYTYPE_DEVICE */
    CHECK(cuMemRetainAllocationHandle(&retained, (void *)(uintptr_t)(va + 100)));
    REQUIRE(retained == h);
    CHECK(cuMemExportToShareableHandle(&fd, h, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0));
    CHECK(cuMemImportFromShareableHandle(&imported, (void *)(intptr_t)fd,
                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR));
    REQUIRE(imported == h);
    close(fd);
    CHECK(cuMemRelease(imported)); /* three references: created, retained, imported */
    CHECK(cuMemRelease(retained));
    CHECK(cuMemUnmap(va, 2 * MIB));
    CHECK(cuMemRelease(h));
    CHECK(cuMemAddressFree(va, 2 * MIB));
    int attributes[2] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE, CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL};
    void *data[2] = {&type, &ordinal};
    CHECK(cuPointerGetAttributes(2, attributes, data, va)); /* no longer mapped: zeros */
    REQUIRE(type == 0 && ordinal == 0);
}

int main(void)
{
    CUdevice dev;
    CUcontext ctx;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
    CHECK(cuCtxSetCurrent(ctx));
    attributes_and_peers(dev);
    stream_order();
    modules_and_launches();
    vmm_handles(dev);
    CHECK(cuDevicePrimaryCtxRelease_v2(dev));
    return 0;
}
