/* SPDX-License-Identifier: MIT */
/* A program of CUDA's libraries' handles (the stand-ins of this folder and
 * tests/standin's cuBLAS), STEPS steps, vramtrace_mark("step") after each.
 * argv[1] names the library, argv[2] the mode:
 *   grow     a handle made each step and never destroyed (the leak: the
 *            library's memory grows at the program's line)
 *   keep     one handle made before the steps and kept until exit (not a
 *            leak: the library's memory, held as the library documents)
 *   destroy  a handle made and destroyed each step (nothing held)
 *   own      (cublas, cufft) one handle kept, as keep, and two buffers the
 *            program asks the library for (cublasAlloc, cufftXtMalloc) at
 *            the line marked CALL:<name>_own: the first freed, the second
 *            not (the program's own leak)
 * make_cublas and make_cufft call their library at the line marked
 * CALL:<name>, make_handle the others at the handle's mark: the call that
 * allocates the handle's device memory (cuBLAS's workspace: at the first
 * product on the handle). */
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "vramtrace.h"

#define STEPS 5
#define FFT_POINTS 4096 /* a plan of FFT_BATCH transforms of FFT_POINTS complex floats */
#define FFT_BATCH 16

typedef intptr_t handle_t;

int cublasCreate_v2(void **handle);
int cublasDestroy_v2(void *handle);
int cublasSgemm_v2(void *handle, int transa, int transb, int m, int n, int k, const float *alpha,
                   const float *A, int lda, const float *B, int ldb, const float *beta, float *C,
                   int ldc);
int cublasAlloc(int n, int elemSize, void **devicePtr);
int cublasFree(void *devicePtr);
int cufftPlan1d(int *plan, int nx, int type, int batch);
int cufftDestroy(int plan);
int cufftXtMalloc(int plan, void **descriptor, int format);
int cufftXtFree(void *descriptor);
int cudnnCreate(void **handle);
int cudnnDestroy(void *handle);
int cusparseCreate(void **handle);
int cusparseDestroy(void *handle);
int cusolverDnCreate(void **handle);
int cusolverDnDestroy(void *handle);

#define OWN_FLOATS 65536 /* of the program's buffer from cublasAlloc */
#define CUFFT_C2C 0x29
#define CUFFT_XT_FORMAT_INPUT 0x00

static NOINLINE handle_t make_cublas(void)
{
    void *h;
    float one = 1, x = 0;
    CHECK(cublasCreate_v2(&h));
    CHECK(cublasSgemm_v2(h, 0, 0, 1, 1, 1, &one, &x, 1, &x, 1, &one, &x, 1)); /* CALL:cublas */
    return (handle_t)h;
}

static NOINLINE void destroy_cublas(handle_t h)
{
    CHECK(cublasDestroy_v2((void *)h));
}

static NOINLINE void *own_cublas(handle_t h)
{
    (void)h; /* the legacy API's allocation takes no handle */
    void *p;
    CHECK(cublasAlloc(OWN_FLOATS, sizeof(float), &p)); /* CALL:cublas_own */
    return p;
}

static NOINLINE void disown_cublas(void *p)
{
    CHECK(cublasFree(p));
}

static NOINLINE handle_t make_cufft(void)
{
    int plan;
    CHECK(cufftPlan1d(&plan, FFT_POINTS, CUFFT_C2C, FFT_BATCH)); /* CALL:cufft */
    return plan;
}

static NOINLINE void destroy_cufft(handle_t h)
{
    CHECK(cufftDestroy((int)h));
}

static NOINLINE void *own_cufft(handle_t h)
{
    void *descriptor;
    CHECK(cufftXtMalloc((int)h, &descriptor, CUFFT_XT_FORMAT_INPUT)); /* CALL:cufft_own */
    return descriptor;
}

static NOINLINE void disown_cufft(void *descriptor)
{
    CHECK(cufftXtFree(descriptor));
}

/* cuDNN, cuSPARSE and cuSOLVER: a handle from CREATE. */
static NOINLINE handle_t make_handle(int (*create)(void **))
{
    void *h;
    CHECK(create(&h)); /* CALL:handle */
    return (handle_t)h;
}

static handle_t make_cudnn(void)
{
    return make_handle(cudnnCreate);
}

static void destroy_cudnn(handle_t h)
{
    CHECK(cudnnDestroy((void *)h));
}

static handle_t make_cusparse(void)
{
    return make_handle(cusparseCreate);
}

static void destroy_cusparse(handle_t h)
{
    CHECK(cusparseDestroy((void *)h));
}

static handle_t make_cusolver(void)
{
    return make_handle(cusolverDnCreate);
}

static void destroy_cusolver(handle_t h)
{
    CHECK(cusolverDnDestroy((void *)h));
}

static const struct library {
    const char *name;
    handle_t (*make)(void);
    void (*destroy)(handle_t);
    void *(*own)(handle_t); /* a buffer the program asks the library for, or NULL */
    void (*disown)(void *);
} libraries[] = {
    {"cublas", make_cublas, destroy_cublas, own_cublas, disown_cublas},
    {"cufft", make_cufft, destroy_cufft, own_cufft, disown_cufft},
    {"cudnn", make_cudnn, destroy_cudnn, NULL, NULL},
    {"cusparse", make_cusparse, destroy_cusparse, NULL, NULL},
    {"cusolver", make_cusolver, destroy_cusolver, NULL, NULL},
};

static const struct library *library_named(const char *name)
{
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        if (!strcmp(libraries[i].name, name))
            return &libraries[i];
    return NULL;
}

int main(int argc, char **argv)
{
    const struct library *lib = argc == 3 ? library_named(argv[1]) : NULL;
    if (!lib) {
        fputs("usage: handles_user cublas|cufft|cudnn|cusparse|cusolver grow|keep|destroy|own\n",
              stderr);
        return 2;
    }
    const char *mode = argv[2];
    if (!strcmp(mode, "keep") || !strcmp(mode, "own")) {
        handle_t kept = lib->make(); /* CALL:main_keep */
        if (!strcmp(mode, "own") && lib->own) {
            lib->disown(lib->own(kept));
            vt_sink = lib->own(kept); /* CALL:main_own */
        }
    }
    for (int i = 0; i < STEPS; i++) {
        if (!strcmp(mode, "grow"))
            vt_sink = (void *)lib->make();
        else if (!strcmp(mode, "destroy"))
            lib->destroy(lib->make());
        vramtrace_mark("step");
    }
    return 0;
}
