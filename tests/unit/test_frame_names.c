/* SPDX-License-Identifier: MIT */
/* Which framework a frame is in (tools/read/frameworks.c), on the paths a
 * real H200 run of PyTorch, JAX and CuPy recorded, and C++ names shortened
 * for text (tools/render/cxx_names.c), on names from the same run. */
#include <string.h>

#include "cxx_names.h"
#include "frames.h"
#include "frameworks.h"
#include "unit_check.h"

#define SITE "/opt/torch/.venv/lib/python3.12/site-packages/"

static enum vt_framework native(const char *module)
{
    struct vt_frame f = {.function = "f", .module = module};
    return vt_frame_framework(&f);
}

static enum vt_framework python(const char *file)
{
    struct vt_frame f = {.function = "f", .file = file, .module = "python", .python = true};
    return vt_frame_framework(&f);
}

static void check_frameworks(void)
{
    CHECK_EQ("libc10_cuda", native(SITE "torch/lib/libc10_cuda.so"), VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("libtorch_python", native(SITE "torch/lib/libtorch_python.so"), VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("libtorch unpacked", native("/opt/libtorch/lib/libtorch_cuda.so"),
             VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("libtorch.so", native("/opt/libtorch/lib/libtorch.so"), VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("torch._C", native(SITE "torch/_C.cpython-312-x86_64-linux-gnu.so"),
             VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("torchvision", native(SITE "torchvision/_C.so"), VT_FRAMEWORK_NONE);
    CHECK_EQ("libtorchaudio", native("/usr/lib/libtorchaudio.so"), VT_FRAMEWORK_NONE);
    CHECK_EQ("torch's Python", python(SITE "torch/nn/modules/module.py"), VT_FRAMEWORK_PYTORCH);
    CHECK_EQ("xla plugin", native(SITE "jax_plugins/xla_cuda13/xla_cuda_plugin.so"),
             VT_FRAMEWORK_JAX);
    CHECK_EQ("jaxlib", native(SITE "jaxlib/_jax.cpython-312-x86_64-linux-gnu.so"),
             VT_FRAMEWORK_JAX);
    CHECK_EQ("jax cuda plugin package", native(SITE "jax_cuda13_plugin/_cuda.so"),
             VT_FRAMEWORK_JAX);
    CHECK_EQ("jax's Python", python(SITE "jax/_src/dispatch.py"), VT_FRAMEWORK_JAX);
    CHECK_EQ("cupy_backends",
             native(SITE "cupy_backends/cuda/api/runtime.cpython-312-x86_64-linux-gnu.so"),
             VT_FRAMEWORK_CUPY);
    CHECK_EQ("cupy memory", native(SITE "cupy/cuda/memory.cpython-312-x86_64-linux-gnu.so"),
             VT_FRAMEWORK_CUPY);
    CHECK_EQ("cupy's Python", python(SITE "cupy/_creation/basic.py"), VT_FRAMEWORK_CUPY);
    CHECK_EQ("triton", python(SITE "triton/runtime/jit.py"), VT_FRAMEWORK_TRITON);
    CHECK_EQ("libtriton", native(SITE "triton/_C/libtriton.so"), VT_FRAMEWORK_TRITON);
    CHECK_EQ("numpy's C layer",
             native("/usr/lib/python3/dist-packages/numpy/_core/"
                    "_multiarray_umath.cpython-312-x86_64-linux-gnu.so"),
             VT_FRAMEWORK_NUMPY);
    CHECK_EQ("numpy.libs", native(SITE "numpy.libs/libscipy_openblas64_.so"), VT_FRAMEWORK_NUMPY);
    CHECK_EQ("numpyro", python(SITE "numpyro/infer/mcmc.py"), VT_FRAMEWORK_NONE);
    CHECK_EQ("a script", python("/work/main/tests/python/torch_loop.py"), VT_FRAMEWORK_NONE);
    CHECK_EQ("a script in a folder named torch", python("/home/u/torch/train.py"),
             VT_FRAMEWORK_NONE);
    CHECK_EQ("libc", native("/lib/x86_64-linux-gnu/libc.so.6"), VT_FRAMEWORK_NONE);
    CHECK("pytorch's id", !strcmp(vt_framework_id(VT_FRAMEWORK_PYTORCH), "pytorch"));
    CHECK("none's id", !vt_framework_id(VT_FRAMEWORK_NONE));
}

/* Start-up code the C and C++ libraries do not name is a runtime frame. */
static void check_runtime(void)
{
    struct vt_frame libc = {.module = "/lib/x86_64-linux-gnu/libc.so.6", .offset = 0x2a1ca};
    struct vt_frame libstdcxx = {.module = "/lib/x86_64-linux-gnu/libstdc++.so.6"};
    struct vt_frame named = {.function = "operator new(unsigned long)",
                             .module = "/lib/x86_64-linux-gnu/libstdc++.so.6"};
    struct vt_frame qsort = {.function = "qsort", .module = "/lib/x86_64-linux-gnu/libc.so.6"};
    CHECK("unnamed libc frame", vt_frame_is_runtime(&libc));
    CHECK("unnamed libstdc++ frame", vt_frame_is_runtime(&libstdcxx));
    CHECK("operator new", !vt_frame_is_runtime(&named));
    CHECK("qsort", !vt_frame_is_runtime(&qsort));
}

static void check_short(const char *name, bool params, const char *want)
{
    char buf[VT_SHORT_NAME_MAX];
    const char *got = vt_short_name(name, params, buf, sizeof buf);
    if (strcmp(got, want)) {
        fprintf(stderr, "%s:%d: %s (params %d):\n  expected %s\n  got      %s\n", __FILE__,
                __LINE__, name, params, want, got);
        unit_failures++;
    }
}

static void check_short_names(void)
{
    const char *pad = "shapes::pad_batch(std::vector<int, std::allocator<int> > const&, "
                      "std::vector<std::vector<int, std::allocator<int> >, "
                      "std::allocator<std::vector<int, std::allocator<int> > > > const&)";
    check_short(
        pad, false,
        "shapes::pad_batch(std::vector<int> const&, std::vector<std::vector<int> > const&)");
    check_short(pad, true, "shapes::pad_batch(...)");
    check_short("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
                "f(int)",
                false, "std::__cxx11::basic_string<char> f(int)");
    check_short("float* shapes::Grid<float>::cells<int>(std::vector<int, std::allocator<int> > "
                "const&)",
                true, "shapes::Grid<float>::cells<int>(...)");
    check_short("at::(anonymous namespace)::create_out(c10::ArrayRef<long>, c10::TensorOptions "
                "const&)",
                true, "at::(anonymous namespace)::create_out(...)");
    check_short("xla::Autotuner::GetTunedConfig(xla::HloInstruction const*, int) "
                "const::$_0::operator()(std::vector<int, std::allocator<int> >) const",
                true, "xla::Autotuner::GetTunedConfig(...) const::$_0::operator()(...) const");
    check_short("void at::native::gpu_reduce_kernel<float, 4>(at::TensorIterator&, double) "
                "[clone .isra.0]",
                true, "at::native::gpu_reduce_kernel<float, 4>(...)");
    check_short("operator new(unsigned long)", true, "operator new(...)");
    check_short("bool std::operator< <int>(std::pair<int, int> const&)", true,
                "std::operator< <int>(...)");
    check_short("main", true, "main");
    check_short("<module>", true, "<module>");
    check_short("f()", true, "f()");
}

int main(void)
{
    check_frameworks();
    check_runtime();
    check_short_names();
    return unit_result("frame_names");
}
