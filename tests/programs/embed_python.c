/* A C program with Python embedded: the leak is made by Python code that the
 * C function run_script() runs, so the stack leads from the Python frames
 * down into this file. Leaks EMBED_BYTES. */
#include <Python.h>
#include <stdio.h>

#define EMBED_BYTES 3200011

static const char script[] =
    "import ctypes, os\n"
    "lib = ctypes.PyDLL('libcudart.so.13', mode=os.RTLD_NOW | os.RTLD_LOCAL)\n"
    "lib.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]\n"
    "kept = []\n"
    "def embedded_leak(n):\n"
    "    p = ctypes.c_void_p()\n"
    "    if lib.cudaMalloc(ctypes.byref(p), n) != 0:\n" /* script line 7 */
    "        raise SystemExit(99)\n"
    "    kept.append(p)\n"
    "embedded_leak(%d)\n";

static __attribute__((noinline)) int run_script(void)
{
    char code[sizeof script + 16];
    snprintf(code, sizeof code, script, EMBED_BYTES);
    return PyRun_SimpleString(code); /* CALL:run_script */
}

int main(void)
{
    Py_Initialize();
    int rc = run_script();
    if (Py_FinalizeEx() < 0)
        return 98;
    return rc == 0 ? 0 : 97;
}
/* SPDX-License-Identifier: MIT */
