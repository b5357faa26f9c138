/* A C extension that allocates the way PyTorch's and CuPy's do: the GIL
 * released (Py_BEGIN_ALLOW_THREADS) around cudaMalloc. Built per Python
 * version by tests/test_pyversions.py, linked to the stand-in runtime.
 *   alloc_nogil(n)          cudaMalloc(n) without the GIL; the pointer
 *   alloc_in_c_thread(n, name[, count])  a pthread named NAME, which
 *                           never runs Python, allocates n bytes (COUNT
 *                           times, one after the other); the last pointer
 *   call_back(f)            calls f() from C, as C++ frameworks call back
 *                           into Python (JAX's jit, PyTorch's autograd
 *                           Functions and hooks); f's result */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <cuda_runtime_api.h>
#include <pthread.h>
#include <stdint.h>

static __attribute__((noinline)) int allocate(void **p, size_t n)
{
    return cudaMalloc(p, n); /* LEAK:ext */
}

static PyObject *alloc_nogil(PyObject *self, PyObject *args)
{
    Py_ssize_t n;
    void *p = NULL;
    int rc;
    (void)self;
    if (!PyArg_ParseTuple(args, "n", &n))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    rc = allocate(&p, (size_t)n);
    Py_END_ALLOW_THREADS
    if (rc != 0)
        return PyErr_Format(PyExc_MemoryError, "cudaMalloc returned %d", rc);
    return PyLong_FromVoidPtr(p);
}

struct job {
    size_t bytes;
    char name[16];
    void *p;
    int rc, count;
};

static __attribute__((noinline)) void *named_worker(void *arg)
{
    struct job *job = arg;
    pthread_setname_np(pthread_self(), job->name);
    for (int i = 0; i < job->count && job->rc == 0; i++)
        job->rc = cudaMalloc(&job->p, job->bytes); /* LEAK:c_thread */
    return NULL;
}

static PyObject *alloc_in_c_thread(PyObject *self, PyObject *args)
{
    Py_ssize_t n;
    const char *name;
    struct job job = {0};
    pthread_t thread;
    int started;
    (void)self;
    job.count = 1;
    if (!PyArg_ParseTuple(args, "ns|i", &n, &name, &job.count))
        return NULL;
    job.bytes = (size_t)n;
    snprintf(job.name, sizeof job.name, "%s", name);
    Py_BEGIN_ALLOW_THREADS
    started = pthread_create(&thread, NULL, named_worker, &job) == 0;
    if (started)
        pthread_join(thread, NULL);
    Py_END_ALLOW_THREADS
    if (!started || job.rc != 0)
        return PyErr_Format(PyExc_RuntimeError, "C thread: started %d, cudaMalloc %d", started,
                            job.rc);
    return PyLong_FromVoidPtr(job.p);
}

static __attribute__((noinline)) PyObject *call_python(PyObject *f)
{
    return PyObject_CallObject(f, NULL); /* CALL:c_calls_python */
}

static PyObject *call_back(PyObject *self, PyObject *f)
{
    (void)self;
    return call_python(f);
}

static PyMethodDef methods[] = {
    {"alloc_nogil", alloc_nogil, METH_VARARGS, "cudaMalloc with the GIL released"},
    {"alloc_in_c_thread", alloc_in_c_thread, METH_VARARGS, "cudaMalloc from a named C thread"},
    {"call_back", call_back, METH_O, "f() called from C"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "vt_cudaext", NULL, -1, methods,
                                    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit_vt_cudaext(void)
{
    return PyModule_Create(&module);
}
/* SPDX-License-Identifier: MIT */
