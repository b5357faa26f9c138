// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's simplePitchLinearTexture, simpleTexture and
// simpleTexture3D samples: a WIDTH x HEIGHT float image in pitched memory
// (cudaMallocPitch) and in a CUDA array, copied in with cudaMemcpy2D and
// the deprecated cudaMemcpyToArray, read through a texture object over
// each, copied back and compared; a volume from cudaMalloc3D, filled with
// cudaMemcpy3D and its first slice cleared with cudaMemset3D, a box of it
// copied with cudaMemcpy3D into a 3D array (cudaMalloc3DArray) and back to
// the host, compared. It prints the pitches the runtime chose ("pitch P",
// "volume pitch P"). Ground truth (tests/test_samples.py): the pitched image
// (pitch x HEIGHT bytes, cudaMallocPitch), the array (WIDTH x HEIGHT x 4
// bytes, cudaMallocArray), the volume (pitch x HEIGHT x DEPTH,
// cudaMalloc3D) and the 3D array (BOX_W x BOX_H x DEPTH x 4 bytes,
// cudaMalloc3DArray) are never freed; one texture object is never
// destroyed and holds no memory, so it is no leak; everything else is
// freed.
#include "sample.h"

#include <cstring>

#define WIDTH 300
#define HEIGHT 200
#define DEPTH 6
// the box of the volume the 3D array holds, from (BOX_X, BOX_Y)
#define BOX_W 32
#define BOX_H 16
#define BOX_X 7
#define BOX_Y 5

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

static NOINLINE cudaArray_t volume_array(const cudaChannelFormatDesc *desc)
{
    cudaArray_t a = nullptr;
    CHECK(cudaMalloc3DArray(&a, desc, make_cudaExtent(BOX_W, BOX_H, DEPTH), 0)); // LEAK:volume_array
    return a;
}

// The whole image into the array's rows at once, as simpleTexture did
// before cudaMemcpyToArray was deprecated.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
static void fill_array(cudaArray_t a, const void *image, size_t bytes)
{
    CHECK(cudaMemcpyToArray(a, 0, 0, image, bytes, cudaMemcpyHostToDevice));
}
#pragma GCC diagnostic pop

// Volume value of (x, y, z), exact in a float.
static float voxel(int x, int y, int z)
{
    return (float)((z * HEIGHT + y) * WIDTH + x);
}

// Fills the volume V from the host, clears its first slice, copies the box
// into the 3D array A and back to the host: what comes back is the box.
static void volume_round_trip(cudaPitchedPtr v, cudaArray_t a)
{
    static float slices[DEPTH][HEIGHT][WIDTH], box[DEPTH][BOX_H][BOX_W];
    size_t row = WIDTH * sizeof(float);
    for (int z = 0; z < DEPTH; z++)
        for (int y = 0; y < HEIGHT; y++)
            for (int x = 0; x < WIDTH; x++)
                slices[z][y][x] = voxel(x, y, z);
    cudaMemcpy3DParms p = {};
    p.srcPtr = make_cudaPitchedPtr(slices, row, WIDTH, HEIGHT);
    p.dstPtr = v;
    p.extent = make_cudaExtent(row, HEIGHT, DEPTH);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    CHECK(cudaMemset3D(v, 0, make_cudaExtent(row, HEIGHT, 1)));
    p = {};
    p.srcPtr = v;
    p.srcPos = make_cudaPos(BOX_X * sizeof(float), BOX_Y, 0); // bytes of pitched memory
    p.dstArray = a;
    p.extent = make_cudaExtent(BOX_W, BOX_H, DEPTH); // the array's elements
    p.kind = cudaMemcpyDeviceToDevice;
    CHECK(cudaMemcpy3D(&p));
    p = {};
    p.srcArray = a;
    p.dstPtr = make_cudaPitchedPtr(box, BOX_W * sizeof(float), BOX_W, BOX_H);
    p.extent = make_cudaExtent(BOX_W, BOX_H, DEPTH);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    for (int z = 0; z < DEPTH; z++)
        for (int y = 0; y < BOX_H; y++)
            for (int x = 0; x < BOX_W; x++)
                REQUIRE(box[z][y][x] == (z == 0 ? 0.0f : voxel(x + BOX_X, y + BOX_Y, z)));
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
    fill_array(array, image, sizeof image);

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
    volume_round_trip(v, volume_array(&desc));
    printf("pitch %zu\nvolume pitch %zu\n", pitch, v.pitch);

    CHECK(cudaDestroyTextureObject(over_array)); // over_pitched is never destroyed
    CHECK(cudaFree(out));
    return over_pitched ? 0 : 1;
}
