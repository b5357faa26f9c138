// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's vectorAddDrv sample: the driver API alone. A
// context of its own on device 0, a module loaded from a fatbinary file
// (argv[1], built by nvcc -fatbin from module_kernels.cu), its function
// found by name and launched with cuLaunchKernel on three buffers, the
// result copied back; the module unloaded. Ground truth
// (tests/test_samples.py): the result buffer (ELEMENTS floats, cuMemAlloc)
// and a staging buffer of page-locked host memory (STAGING_BYTES,
// cuMemAllocHost) are never freed, and the context is left alive;
// everything else is freed.
#include "sample.h"

#include <vector>

#define ELEMENTS 50000
#define STAGING_BYTES (96 << 10)

static std::vector<char> read_file(const char *path)
{
    std::vector<char> image;
    FILE *f = fopen(path, "rb");
    REQUIRE(f != nullptr);
    char buf[4096];
    size_t got;
    while ((got = fread(buf, 1, sizeof buf, f)) > 0)
        image.insert(image.end(), buf, buf + got);
    fclose(f);
    image.push_back(0); // a PTX image must end with a NUL
    return image;
}

static NOINLINE CUdeviceptr result_buffer(size_t bytes)
{
    CUdeviceptr d = 0;
    CHECK(cuMemAlloc(&d, bytes)); // LEAK:drv_result
    return d;
}

static NOINLINE void *staging(void)
{
    void *h = nullptr;
    CHECK(cuMemAllocHost(&h, STAGING_BYTES)); // LEAK:drv_staging
    return h;
}

int main(int argc, char **argv)
{
    REQUIRE(argc == 2);
    CUdevice dev;
    CUcontext ctx;
    CUmodule module;
    CUfunction fn;
    CHECK(cuInit(0));
    CHECK(cuDeviceGet(&dev, 0));
    CHECK(cuCtxCreate(&ctx, nullptr, 0, dev));
    std::vector<char> image = read_file(argv[1]);
    CHECK(cuModuleLoadData(&module, image.data()));
    CHECK(cuModuleGetFunction(&fn, module, "vector_add"));

    int n = ELEMENTS;
    size_t bytes = ELEMENTS * sizeof(float);
    std::vector<float> a(ELEMENTS, 1.0f), b(ELEMENTS, 2.0f), c(ELEMENTS, 0.0f);
    CUdeviceptr da = 0, db = 0, dc = result_buffer(bytes);
    CHECK(cuMemAlloc(&da, bytes));
    CHECK(cuMemAlloc(&db, bytes));
    CHECK(cuMemcpyHtoD(da, a.data(), bytes));
    CHECK(cuMemcpyHtoD(db, b.data(), bytes));
    void *args[] = {&da, &db, &dc, &n};
    CHECK(cuLaunchKernel(fn, (ELEMENTS + 255) / 256, 1, 1, 256, 1, 1, 0, nullptr, args, nullptr));
    CHECK(cuCtxSynchronize());
    CHECK(cuMemcpyDtoH(c.data(), dc, bytes));
    float *stage = static_cast<float *>(staging());
    stage[0] = c[0];
    CHECK(cuMemFree(da));
    CHECK(cuMemFree(db));
    CHECK(cuModuleUnload(module));
    printf("elements: %d\n", ELEMENTS);
    return 0;
}
