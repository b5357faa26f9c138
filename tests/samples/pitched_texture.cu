// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's simplePitchLinearTexture and simpleTexture
// samples: a WIDTH x HEIGHT float image in pitched memory (cudaMallocPitch)
// and in a CUDA array, copied in with cudaMemcpy2D / cudaMemcpy2DToArray,
// read through a texture object over each, copied back and compared; a
// volume from cudaMalloc3D, set with cudaMemset2D. It prints the pitches
// the runtime chose ("pitch P", "volume pitch P"). Ground truth
// (tests/test_samples.py): the pitched image (pitch x HEIGHT bytes,
// cudaMallocPitch), the array (WIDTH x HEIGHT x 4 bytes, cudaMallocArray)
// and the volume (pitch x HEIGHT x DEPTH, cudaMalloc3D) are never freed;
// one texture object is never destroyed and holds no memory, so it is no
// leak; everything else is freed.
#include "sample.h"

#include <cstring>

#define WIDTH 300
#define HEIGHT 200
#define DEPTH 6

__global__ void sample(float *out, cudaTextureObject_t pitched, cudaTextureObject_t array,
                       int width, int height)
{
    int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
    if (x < width && y < height)
        out[y * width + x] = tex2D<float>(pitched, x + 0.5f, y + 0.5f) -
                             tex2D<float>(array, x + 0.5f, y + 0.5f);
}

static NOINLINE float *pitched_image(size_t *pitch)
{
    void *p = nullptr;
    CHECK(cudaMallocPitch(&p, pitch, WIDTH * sizeof(float), HEIGHT)); // LEAK:pitched
    return static_cast<float *>(p);
}

static NOINLINE cudaArray_t array_image(const cudaChannelFormatDesc *desc)
{
    cudaArray_t a = nullptr;
    CHECK(cudaMallocArray(&a, desc, WIDTH, HEIGHT, 0)); // LEAK:array
    return a;
}

static NOINLINE cudaPitchedPtr volume(void)
{
    cudaPitchedPtr v;
    CHECK(cudaMalloc3D(&v, make_cudaExtent(WIDTH * sizeof(float), HEIGHT, DEPTH))); // LEAK:volume
    return v;
}

static cudaTextureObject_t texture_over(const cudaResourceDesc *res)
{
    cudaTextureDesc td;
    memset(&td, 0, sizeof td);
    td.addressMode[0] = td.addressMode[1] = cudaAddressModeClamp;
    td.filterMode = cudaFilterModePoint;
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t t = 0;
    CHECK(cudaCreateTextureObject(&t, res, &td, nullptr));
    return t;
}

int main()
{
    static float image[HEIGHT][WIDTH], back[HEIGHT][WIDTH];
    size_t row = WIDTH * sizeof(float), pitch = 0;
    for (int y = 0; y < HEIGHT; y++)
        for (int x = 0; x < WIDTH; x++)
            image[y][x] = (float)(y * WIDTH + x);
    cudaChannelFormatDesc desc = cudaCreateChannelDesc<float>();

    float *pitched = pitched_image(&pitch);
    REQUIRE(pitch >= row);
    CHECK(cudaMemcpy2D(pitched, pitch, image, row, row, HEIGHT, cudaMemcpyHostToDevice));
    cudaArray_t array = array_image(&desc);
    CHECK(cudaMemcpy2DToArray(array, 0, 0, image, row, row, HEIGHT, cudaMemcpyHostToDevice));

    cudaResourceDesc res;
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypePitch2D;
    res.res.pitch2D.devPtr = pitched;
    res.res.pitch2D.desc = desc;
    res.res.pitch2D.width = WIDTH;
    res.res.pitch2D.height = HEIGHT;
    res.res.pitch2D.pitchInBytes = pitch;
    cudaTextureObject_t over_pitched = texture_over(&res);
    memset(&res, 0, sizeof res);
    res.resType = cudaResourceTypeArray;
    res.res.array.array = array;
    cudaTextureObject_t over_array = texture_over(&res);

    float *out = nullptr;
    CHECK(cudaMalloc(&out, row * HEIGHT));
    sample<<<dim3((WIDTH + 15) / 16, (HEIGHT + 15) / 16), dim3(16, 16)>>>(
        out, over_pitched, over_array, WIDTH, HEIGHT);
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());

    CHECK(cudaMemcpy2D(back, row, pitched, pitch, row, HEIGHT, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(back, image, sizeof image) == 0);
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpy2DFromArray(back, row, array, 0, 0, row, HEIGHT, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(back, image, sizeof image) == 0);

    cudaPitchedPtr v = volume();
    CHECK(cudaMemset2D(v.ptr, v.pitch, 0, row, HEIGHT * DEPTH));
    printf("pitch %zu\nvolume pitch %zu\n", pitch, v.pitch);

    CHECK(cudaDestroyTextureObject(over_array)); // over_pitched is never destroyed
    CHECK(cudaFree(out));
    return over_pitched ? 0 : 1;
}
