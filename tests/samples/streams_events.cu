// SPDX-License-Identifier: MIT
// In the shape of NVIDIA's simpleStreams and asyncAPI samples: pinned host
// memory, STREAMS non-blocking streams each with its own device chunk,
// copies in and out and a kernel per stream, events recorded on each and
// waited on by the first, elapsed times read; scratch memory from the
// stream-ordered allocator in each stream. Ground truth (tests/test_samples.py):
// the last stream's chunk is never freed (CHUNK_BYTES, cudaMalloc), nor is
// one stream-ordered scratch buffer (SCRATCH_BYTES, cudaMallocAsync);
// everything else is freed.
#include "sample.h"

#define STREAMS 4
#define CHUNK_BYTES (3 << 20)
#define SCRATCH_BYTES (640 << 10)
#define HOST_BYTES (STREAMS * CHUNK_BYTES)

__global__ void scale(float *out, const float *in, size_t n, float by)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * by;
}

static NOINLINE float *stream_chunk(void)
{
    void *p = nullptr;
    CHECK(cudaMalloc(&p, CHUNK_BYTES)); // LEAK:stream_chunk
    return static_cast<float *>(p);
}

static NOINLINE void *stream_scratch(cudaStream_t s)
{
    void *p = nullptr;
    CHECK(cudaMallocAsync(&p, SCRATCH_BYTES, s)); // LEAK:stream_scratch
    return p;
}

int main()
{
    cudaStream_t streams[STREAMS];
    cudaEvent_t done[STREAMS], start, stop;
    float *chunks[STREAMS], *host = nullptr;
    void *scratch[STREAMS];
    size_t n = CHUNK_BYTES / sizeof(float);

    CHECK(cudaMallocHost(&host, HOST_BYTES));
    for (size_t i = 0; i < STREAMS * n; i++)
        host[i] = (float)i;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamCreateWithFlags(&streams[i], cudaStreamNonBlocking));
        CHECK(cudaEventCreateWithFlags(&done[i], cudaEventDisableTiming));
        chunks[i] = stream_chunk();
    }
    CHECK(cudaEventRecord(start, streams[0]));
    for (int i = 0; i < STREAMS; i++) {
        float *h = host + i * n;
        scratch[i] = stream_scratch(streams[i]);
        CHECK(cudaMemcpyAsync(chunks[i], h, CHUNK_BYTES, cudaMemcpyHostToDevice, streams[i]));
        CHECK(cudaMemsetAsync(scratch[i], 0, SCRATCH_BYTES, streams[i]));
        scale<<<(unsigned)((n + 255) / 256), 256, 0, streams[i]>>>(chunks[i], chunks[i], n, 1.0f);
        CHECK(cudaGetLastError());
        CHECK(cudaMemcpyAsync(h, chunks[i], CHUNK_BYTES, cudaMemcpyDeviceToHost, streams[i]));
        CHECK(cudaEventRecord(done[i], streams[i]));
        CHECK(cudaStreamWaitEvent(streams[0], done[i], 0));
        if (i != 1)
            CHECK(cudaFreeAsync(scratch[i], streams[i]));
    }
    CHECK(cudaEventRecord(stop, streams[0]));
    CHECK(cudaEventSynchronize(stop));
    float ms = -1;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    REQUIRE(ms >= 0);
    for (size_t i = 0; i < STREAMS * n; i++)
        REQUIRE(host[i] == (float)i);
    for (int i = 0; i < STREAMS; i++) {
        CHECK(cudaStreamSynchronize(streams[i]));
        if (i != STREAMS - 1)
            CHECK(cudaFree(chunks[i]));
        CHECK(cudaEventDestroy(done[i]));
        CHECK(cudaStreamDestroy(streams[i]));
    }
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    CHECK(cudaFreeHost(host));
    printf("streams: %d, chunk %zu bytes\n", STREAMS, (size_t)CHUNK_BYTES);
    return 0;
}
