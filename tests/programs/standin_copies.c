/* SPDX-License-Identifier: MIT */
/* The stand-in runtime's copies and sets of two and three dimensions, as
 * the CUDA 13.0 headers document them: cudaMemcpy3D(Async) between pitched
 * memory and arrays (positions and extent in an array's elements, bytes
 * elsewhere), cudaMemset3D(Async) and cudaMemset2DAsync, the deprecated
 * cudaMemcpyToArray / cudaMemcpyFromArray (a run of bytes through an
 * array's rows), copies to and from symbols. Every byte is checked. Exit
 * status 0, or 99 with the first answer that differs (check.h). */
#include <cuda_runtime_api.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "check.h"

/* A volume of W bytes x H rows x D slices. */
#define W 20
#define H 3
#define D 4

/* Byte (x, y, z) of the volume as the host fills it. */
static unsigned char at(size_t x, size_t y, size_t z)
{
    return (unsigned char)(z * 64 + y * 16 + x);
}

static void pitched_volume(void)
{
    static unsigned char host[D][H][W], box[2][2][5];
    struct cudaPitchedPtr v;
    cudaStream_t s;
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++)
                host[z][y][x] = at(x, y, z);
    CHECK(cudaMalloc3D(&v, make_cudaExtent(W, H, D)));
    REQUIRE(v.pitch >= W && v.xsize == W && v.ysize == H);
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host, W, W, H);
    p.dstPtr = v;
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyHostToDevice;
    CHECK(cudaMemcpy3D(&p));
    /* the box of 5 x 2 x 2 bytes from (2, 1, 1) back, in stream order */
    memset(&p, 0, sizeof p);
    p.srcPtr = v;
    p.srcPos = make_cudaPos(2, 1, 1);
    p.dstPtr = make_cudaPitchedPtr(box, 5, 5, 2);
    p.extent = make_cudaExtent(5, 2, 2);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpy3DAsync(&p, s));
    CHECK(cudaStreamSynchronize(s));
    for (size_t z = 0; z < 2; z++)
        for (size_t y = 0; y < 2; y++)
            for (size_t x = 0; x < 5; x++)
                REQUIRE(box[z][y][x] == at(x + 2, y + 1, z + 1));
    /* rows 1-2 of slices 1-3 of the first 4 bytes, then the first row of
     * slice 0 in stream order (one row: the pitch is not used) */
    struct cudaPitchedPtr from_slice_1 = v;
    from_slice_1.ptr = (char *)v.ptr + v.pitch * H + v.pitch;
    CHECK(cudaMemset3D(from_slice_1, 0xee, make_cudaExtent(4, 2, 3)));
    CHECK(cudaMemset3DAsync(make_cudaPitchedPtr(v.ptr, 0, W, 1), 0xdd, make_cudaExtent(3, 1, 1), s));
    CHECK(cudaMemset2DAsync((char *)v.ptr + 10, v.pitch, 0xcc, 2, 2, s));
    memset(&p, 0, sizeof p);
    p.srcPtr = v;
    p.dstPtr = make_cudaPitchedPtr(host, W, W, H);
    p.extent = make_cudaExtent(W, H, D);
    p.kind = cudaMemcpyDefault;
    CHECK(cudaMemcpy3D(&p));
    for (size_t z = 0; z < D; z++)
        for (size_t y = 0; y < H; y++)
            for (size_t x = 0; x < W; x++) {
                unsigned char want = at(x, y, z);
                if (z >= 1 && y >= 1 && x < 4)
                    want = 0xee;
                else if (z == 0 && y == 0 && x < 3)
                    want = 0xdd;
                else if (z == 0 && y < 2 && (x == 10 || x == 11))
                    want = 0xcc;
                REQUIRE(host[z][y][x] == want);
            }
    /* slices further apart than the pointer's rows, and a row wider than
     * its pitch, are refused */
    EXPECT(cudaMemset3D(v, 0, make_cudaExtent(W, H + 1, 2)), cudaErrorInvalidValue);
    EXPECT(cudaMemset3D(make_cudaPitchedPtr(v.ptr, 8, W, H), 0, make_cudaExtent(9, 2, 1)),
           cudaErrorInvalidValue);
    CHECK(cudaStreamDestroy(s));
    CHECK(cudaFree(v.ptr));
}

/* A 6 x 3 x 2 array of floats, filled from pitched host memory and read
 * back from (1, 1, 1): positions and extent count floats. */
static void array_volume(void)
{
    static float host[2][3][6], back[2][2];
    struct cudaChannelFormatDesc f = cudaCreateChannelDesc(32, 0, 0, 0, cudaChannelFormatKindFloat);
    struct cudaChannelFormatDesc b = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t a, bytes;
    for (int z = 0; z < 2; z++)
        for (int y = 0; y < 3; y++)
            for (int x = 0; x < 6; x++)
                host[z][y][x] = (float)(z * 100 + y * 10 + x);
    CHECK(cudaMalloc3DArray(&a, &f, make_cudaExtent(6, 3, 2), 0));
    struct cudaMemcpy3DParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host, sizeof host[0][0], 6, 3);
    p.dstArray = a;
    p.extent = make_cudaExtent(6, 3, 2);
    p.kind = cudaMemcpyHostToHost; /* corrected: an array is on the device */
    CHECK(cudaMemcpy3D(&p));
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.srcPos = make_cudaPos(1, 1, 1);
    p.dstPtr = make_cudaPitchedPtr(back, sizeof back[0], 2, 2);
    p.extent = make_cudaExtent(2, 2, 1);
    p.kind = cudaMemcpyDeviceToHost;
    CHECK(cudaMemcpy3D(&p));
    REQUIRE(back[0][0] == 111 && back[0][1] == 112 && back[1][0] == 121 && back[1][1] == 122);
    /* beyond the array, both a source array and pointer, neither, a kind
     * there is none, arrays of other elements, a pitch past the maximum */
    p.extent = make_cudaExtent(2, 2, 2);
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.extent = make_cudaExtent(2, 2, 1);
    p.srcPtr = make_cudaPitchedPtr(host, 24, 6, 3);
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.srcArray = NULL;
    p.srcPtr.ptr = NULL;
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    p.srcArray = a;
    p.kind = (enum cudaMemcpyKind)7;
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidMemcpyDirection);
    CHECK(cudaMalloc3DArray(&bytes, &b, make_cudaExtent(8, 8, 2), 0));
    memset(&p, 0, sizeof p);
    p.srcArray = a;
    p.dstArray = bytes;
    p.extent = make_cudaExtent(1, 1, 1);
    p.kind = cudaMemcpyDeviceToDevice;
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidValue);
    memset(&p, 0, sizeof p);
    p.srcPtr = make_cudaPitchedPtr(host, (size_t)INT_MAX + 1, 6, 3);
    p.dstArray = a;
    p.extent = make_cudaExtent(1, 1, 1);
    p.kind = cudaMemcpyHostToDevice;
    EXPECT(cudaMemcpy3D(&p), cudaErrorInvalidPitchValue);
    CHECK(cudaFreeArray(bytes));
    CHECK(cudaFreeArray(a));
}

/* An 8 x 4 array of bytes: 12 bytes from byte 6 of row 1 on are the last
 * 2 bytes of row 1, all of row 2 and the first 2 of row 3. */
static void linear_through_rows(void)
{
    unsigned char src[12], whole[4][8], back[12];
    struct cudaChannelFormatDesc b = cudaCreateChannelDesc(8, 0, 0, 0, cudaChannelFormatKindUnsigned);
    cudaArray_t a;
    for (int i = 0; i < 12; i++)
        src[i] = (unsigned char)(i + 1);
    CHECK(cudaMallocArray(&a, &b, 8, 4, 0));
    memset(whole, 0, sizeof whole);
    CHECK(cudaMemcpy2DToArray(a, 0, 0, whole, 8, 8, 4, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyToArray(a, 6, 1, src, sizeof src, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy2DFromArray(whole, 8, a, 0, 0, 8, 4, cudaMemcpyDeviceToHost));
    for (int y = 0; y < 4; y++)
        for (int x = 0; x < 8; x++) {
            int i = (y - 1) * 8 + x - 6; /* the source byte here, if any */
            REQUIRE(whole[y][x] == (i >= 0 && i < 12 ? src[i] : 0));
        }
    memset(back, 0, sizeof back);
    CHECK(cudaMemcpyFromArray(back, a, 6, 1, sizeof back, cudaMemcpyDeviceToHost));
    REQUIRE(memcmp(back, src, sizeof src) == 0);
    EXPECT(cudaMemcpyToArray(a, 8, 0, src, 1, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    EXPECT(cudaMemcpyToArray(a, 6, 3, src, 3, cudaMemcpyHostToDevice), cudaErrorInvalidValue);
    CHECK(cudaFreeArray(a));
}

/* A variable's device copy, written and read at an offset. */
static int variable[8];

static void symbols(void)
{
    int in[3] = {7, 8, 9}, out[3] = {0, 0, 0};
    cudaStream_t s;
    CHECK(cudaMemcpyToSymbol(variable, in, sizeof in, 2 * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpyFromSymbol(out, variable, sizeof out, 2 * sizeof(int),
                               cudaMemcpyDeviceToHost));
    REQUIRE(out[0] == 7 && out[1] == 8 && out[2] == 9);
    CHECK(cudaStreamCreate(&s));
    CHECK(cudaMemcpyToSymbolAsync(variable, in, sizeof in, 5 * sizeof(int), cudaMemcpyDefault, s));
    CHECK(cudaMemcpyFromSymbolAsync(out, variable, 2 * sizeof(int), 4 * sizeof(int),
                                    cudaMemcpyDefault, s));
    CHECK(cudaStreamSynchronize(s));
    REQUIRE(out[0] == 9 && out[1] == 7 && out[2] == 9);
    EXPECT(cudaMemcpyFromSymbol(out, variable, 4, 0, cudaMemcpyHostToDevice),
           cudaErrorInvalidMemcpyDirection);
    EXPECT(cudaMemcpyToSymbol(variable, in, 4, 0, cudaMemcpyDeviceToHost),
           cudaErrorInvalidMemcpyDirection);
    CHECK(cudaStreamDestroy(s));
}

int main(void)
{
    CHECK(cudaSetDevice(0));
    pitched_volume();
    array_volume();
    linear_through_rows();
    symbols();
    return 0;
}
