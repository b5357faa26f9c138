/* SPDX-License-Identifier: MIT */
#include "known_memory.h"

#include <stdio.h>
#include <string.h>

#define CUBLAS_WORKSPACE "PyTorch's cuBLAS workspace"
#define CUBLAS_NOTE                                                                               \
    "PyTorch keeps a cuBLAS workspace per handle and stream until exit (CUBLAS_WORKSPACE_CONFIG " \
    "sets its size)"
#define TORCH_CACHE "PyTorch's cache"
#define TORCH_CACHE_NOTE                                                                        \
    "segments PyTorch's caching allocator reserved and keeps for reuse; which tensors live in " \
    "them is not traced (vramtrace run --pytorch-tensors traces each tensor)"
#define TORCH_CACHE_TENSORS_NOTE                                                              \
    "segments PyTorch's caching allocator reserved and keeps for reuse; the tensors in them " \
    "are traced, each at its own line"

#define NCCL_BUFFERS "NCCL's buffers"
#define NCCL_NOTE                                                                               \
    "device and page-locked host memory NCCL allocated for its communicators (channels, proxy " \
    "and connection buffers) and keeps until ncclCommDestroy (PyTorch: destroy_process_group)"

/* CUDA's libraries: what each allocates for a handle or plan it made
 * (cuBLAS's default workspace at the first call that needs one) and keeps
 * until the program destroys it; their documentation says so of the
 * creating and destroying calls. Made once, not a leak; made again each
 * step, a site that grows at the program's line that called the library. */
#define LIBRARY_NOTE(what, made, freed) \
    "device memory " what " allocated for " made ", kept until " freed
static const char cublas_note[] =
    LIBRARY_NOTE("cuBLAS", "a handle (cublasCreate) and its default workspace", "cublasDestroy");
static const char cudnn_note[] = LIBRARY_NOTE("cuDNN", "a handle (cudnnCreate)", "cudnnDestroy");
static const char cufft_note[] =
    LIBRARY_NOTE("cuFFT", "a plan's work area (cufftPlan*, cufftMakePlan*)", "cufftDestroy");
static const char cusparse_note[] =
    LIBRARY_NOTE("cuSPARSE", "a handle (cusparseCreate)", "cusparseDestroy");
static const char cusolver_note[] =
    LIBRARY_NOTE("cuSOLVER", "a handle (cusolverDnCreate)", "cusolverDnDestroy");

static const char torch_cache_note[] = TORCH_CACHE_NOTE;
/* A pattern whose match is the program's own memory, never known: what a
 * framework allocated at the program's request, inside the framework's code
 * that another pattern labels. */
static const char programs_own_note[] =
    "allocated at the program's request (ncclMemAlloc, cublasAlloc, cufftXtMalloc): the "
    "program's own, judged as any other";
static const char nvtx_heap_note[] =
    "a pool the program described with NVTX's memory API (nvtxMemHeapRegister): the regions "
    "in it are traced, each at the line that registered it";
static const char torch_cache_tensors_note[] = TORCH_CACHE_TENSORS_NOTE;

static const struct {
    const char *pattern, *label, *note;
} defaults[] = {
    /* a segment of the cache, whatever request made it (a workspace too):
     * matched first, for once made it holds other tensors as well; a label
     * covers only the memory of the allocation it names */
    {"DeviceCachingAllocator::alloc_block", TORCH_CACHE, torch_cache_note},
    {"ExpandableSegment::map", TORCH_CACHE, torch_cache_note},
    /* the workspace itself, allocated by itself (cudaMallocAsync backend) */
    {"allocateCUDABlasWorkspace", CUBLAS_WORKSPACE, CUBLAS_NOTE},
    {"getCUDABlasLtWorkspace", CUBLAS_WORKSPACE, CUBLAS_NOTE},
    {"setWorkspaceForHandle", CUBLAS_WORKSPACE, CUBLAS_NOTE},
    {"getCurrentCUDABlasHandle", CUBLAS_WORKSPACE, CUBLAS_NOTE},
    /* .item(), float(), bool() of a CUDA tensor: a small page-locked block
     * of PyTorch's host cache, made for that copy and kept for reuse (never a
     * pinned tensor of the program's own: pin_memory() is not matched) */
    {"_local_scalar_dense_cuda", "PyTorch's pinned buffer for .item()",
     "a small page-locked block PyTorch's host caching allocator made to copy a scalar back "
     "(.item(), float(), bool() of a CUDA tensor) and keeps for reuse"},
    {"SingleDeviceMemoryPool", "CuPy's memory pool",
     "memory CuPy's pool keeps for reuse; which arrays live in it is not traced "
     "(cupy.cuda.set_allocator(None) allocates each array by itself)"},
    /* no frame names it: the allocation a heap was registered on is
     * labelled by its CACHE_SEGMENT record (vt_known_nvtx_heap) */
    {"nvtxMemHeapRegister", "an NVTX memory heap", nvtx_heap_note},
    {"BFCAllocator::Extend", "XLA's BFC allocator",
     "memory XLA's allocator reserved (JAX preallocates 75% of the GPU at its first use; "
     "XLA_PYTHON_CLIENT_PREALLOCATE=false reserves on demand); which arrays live in it is not "
     "traced"},
    /* NCCL's own, inside libnccl (its internal functions have no symbols
     * there: the module names them) or linked into another library (its
     * communicators' creation and proxy threads); a buffer the program asked
     * for is the program's */
    {"ncclMemAlloc", "not known: the program's own", programs_own_note},
    {"libnccl.so", NCCL_BUFFERS, NCCL_NOTE},
    {"ncclCommInit", NCCL_BUFFERS, NCCL_NOTE},
    {"ncclProxy", NCCL_BUFFERS, NCCL_NOTE},
    /* CUDA's libraries, by module (their internal functions have no
     * symbols); the buffers the program asked them for are its own */
    {"cublasAlloc", "not known: the program's own", programs_own_note},
    {"cufftXtMalloc", "not known: the program's own", programs_own_note},
    {"libcublas", "cuBLAS's handles and workspaces", cublas_note}, /* also libcublasLt */
    {"libcudnn", "cuDNN's handles", cudnn_note},
    {"libcufft", "cuFFT's plans", cufft_note},
    {"libcusparse", "cuSPARSE's handles", cusparse_note},
    {"libcusolver", "cuSOLVER's handles", cusolver_note},
};

/* Frames that say what a framework was doing when it allocated. */
static const struct {
    const char *function, *during;
} contexts[] = {
    {"torch::autograd::Engine::", "during backward"},
};

void vt_known_add_defaults(struct vt_suppressions *k)
{
    for (size_t i = 0; i < sizeof defaults / sizeof defaults[0]; i++) {
        vt_suppressions_add(k, defaults[i].pattern, strlen(defaults[i].pattern), defaults[i].label,
                            "built in", 0);
        k->list[k->n - 1].note = defaults[i].note;
    }
}

void vt_known_tensors_traced(struct vt_suppressions *k, bool traced)
{
    for (size_t i = 0; i < k->n; i++)
        if (k->list[i].note == torch_cache_note || k->list[i].note == torch_cache_tensors_note)
            k->list[i].note = traced ? torch_cache_tensors_note : torch_cache_note;
}

struct vt_suppression *vt_known_nvtx_heap(struct vt_suppressions *k)
{
    for (size_t i = 0; k && i < k->n; i++)
        if (k->list[i].note == nvtx_heap_note)
            return &k->list[i];
    return NULL;
}

/* "PATTERN LABEL": the label after the first blank, else the pattern. */
static void add_line(struct vt_suppressions *k, char *text, const char *path, size_t line)
{
    size_t len = strcspn(text, " \t");
    const char *label = text + len + strspn(text + len, " \t");
    char own[64];
    if (!*label) {
        snprintf(own, sizeof own, "known:%.*s", (int)(sizeof own - 7), text);
        label = own;
    }
    vt_suppressions_add(k, text, len, label, path, line);
}

struct vt_suppression *vt_known_match(struct vt_suppressions *k,
                                      const struct vt_frame *const *frames, size_t n)
{
    struct vt_suppression *match = vt_suppressions_match(k, frames, n);
    return match && match->note == programs_own_note ? NULL : match;
}

int vt_known_load(struct vt_suppressions *k, const char *path)
{
    static const struct vt_pattern_file known = {"known patterns",
                                                 "known:", "known:PATTERN [LABEL]", add_line};
    return vt_pattern_file_load(k, &known, path);
}

const char *vt_known_during(const struct vt_frame *const *frames, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t c = 0; c < sizeof contexts / sizeof contexts[0]; c++)
            if (frames[i]->function && strstr(frames[i]->function, contexts[c].function))
                return contexts[c].during;
    return NULL;
}
