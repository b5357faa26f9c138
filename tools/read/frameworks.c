/* SPDX-License-Identifier: MIT */
/* Which framework a frame is in: see frameworks.h. A file or library under
 * a packages folder (site-packages, dist-packages) goes by its top-level
 * package; a library elsewhere (libtorch unpacked, a plugin copied) by its
 * file name. */
#include "frameworks.h"

#include <stdbool.h>
#include <string.h>

struct framework_names {
    const char *id, *name;
};

static const struct framework_names names[] = {
    [VT_FRAMEWORK_NONE] = {NULL, NULL},           [VT_FRAMEWORK_PYTORCH] = {"pytorch", "PyTorch"},
    [VT_FRAMEWORK_CUPY] = {"cupy", "CuPy"},       [VT_FRAMEWORK_JAX] = {"jax", "JAX"},
    [VT_FRAMEWORK_TRITON] = {"triton", "Triton"}, [VT_FRAMEWORK_NUMPY] = {"numpy", "NumPy"},
};

const char *vt_framework_id(enum vt_framework fw)
{
    return names[fw].id;
}

const char *vt_framework_name(enum vt_framework fw)
{
    return names[fw].name;
}

const char *vt_package_path(const char *path)
{
    static const char *const folders[] = {"/site-packages/", "/dist-packages/"};
    const char *found = NULL;
    for (size_t i = 0; path && i < sizeof folders / sizeof folders[0]; i++) {
        const char *at = strstr(path, folders[i]);
        if (at && (!found || at > found))
            found = at + strlen(folders[i]);
    }
    return found ? found : path;
}

/* A top-level package: its name, then a slash or a ".libs" folder (where
 * wheels keep the libraries they bundle). Prefixed names end in '*'. */
static bool package_is(const char *package, size_t len, const char *name)
{
    size_t n = strlen(name);
    if (name[n - 1] == '*')
        return len >= n - 1 && !strncmp(package, name, n - 1);
    return (len == n || (len == n + 5 && !strncmp(package + n, ".libs", 5))) &&
           !strncmp(package, name, n);
}

static enum vt_framework by_package(const char *path)
{
    static const struct {
        const char *name;
        enum vt_framework fw;
    } packages[] = {
        {"torch", VT_FRAMEWORK_PYTORCH}, {"functorch", VT_FRAMEWORK_PYTORCH},
        {"cupy", VT_FRAMEWORK_CUPY},     {"cupy_backends", VT_FRAMEWORK_CUPY},
        {"cupyx", VT_FRAMEWORK_CUPY},    {"jax", VT_FRAMEWORK_JAX},
        {"jaxlib", VT_FRAMEWORK_JAX},    {"jax_plugins", VT_FRAMEWORK_JAX},
        {"jax_cuda*", VT_FRAMEWORK_JAX}, {"triton", VT_FRAMEWORK_TRITON},
        {"numpy", VT_FRAMEWORK_NUMPY},
    };
    const char *package = vt_package_path(path);
    const char *slash = package && package != path ? strchr(package, '/') : NULL;
    if (!slash)
        return VT_FRAMEWORK_NONE;
    for (size_t i = 0; i < sizeof packages / sizeof packages[0]; i++)
        if (package_is(package, (size_t)(slash - package), packages[i].name))
            return packages[i].fw;
    return VT_FRAMEWORK_NONE;
}

/* Libraries known by their file name wherever they are. */
static enum vt_framework by_library(const char *module)
{
    static const struct {
        const char *prefix;
        enum vt_framework fw;
    } libraries[] = {
        {"libtorch.so", VT_FRAMEWORK_PYTORCH}, {"libtorch_", VT_FRAMEWORK_PYTORCH},
        {"libc10.so", VT_FRAMEWORK_PYTORCH},   {"libc10_", VT_FRAMEWORK_PYTORCH},
        {"xla_cuda_plugin", VT_FRAMEWORK_JAX}, {"libjax", VT_FRAMEWORK_JAX},
        {"libtriton", VT_FRAMEWORK_TRITON},    {"_multiarray_umath.", VT_FRAMEWORK_NUMPY},
    };
    const char *base = strrchr(module, '/');
    base = base ? base + 1 : module;
    for (size_t i = 0; i < sizeof libraries / sizeof libraries[0]; i++)
        if (!strncmp(base, libraries[i].prefix, strlen(libraries[i].prefix)))
            return libraries[i].fw;
    return VT_FRAMEWORK_NONE;
}

enum vt_framework vt_frame_framework(const struct vt_frame *f)
{
    if (f->python)
        return by_package(f->file);
    if (!f->module)
        return VT_FRAMEWORK_NONE;
    enum vt_framework fw = by_package(f->module);
    return fw ? fw : by_library(f->module);
}
