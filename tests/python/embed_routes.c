/* Python embedded in a C program: runs the script named first with the
 * remaining arguments, from run_file(), so that the stacks lead from the
 * Python frames down into this file. */
#include <Python.h>
#include <stdio.h>

static __attribute__((noinline)) int run_file(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return 1;
    int rc = PyRun_SimpleFileExFlags(f, path, 1, NULL);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        return 2;
    Py_Initialize();
    PyObject *args = PyList_New(0);
    for (int i = 1; i < argc; i++) {
        PyObject *arg = PyUnicode_DecodeFSDefault(argv[i]);
        PyList_Append(args, arg);
        Py_DECREF(arg);
    }
    PySys_SetObject("argv", args);
    Py_DECREF(args);
    PyObject *main_module = PyImport_AddModule("__main__");
    PyObject *name = PyUnicode_FromString("__main__");
    PyObject_SetAttrString(main_module, "__name__", name);
    Py_DECREF(name);
    int rc = run_file(argv[1]);
    if (Py_FinalizeEx() < 0)
        return 98;
    return rc;
}
/* SPDX-License-Identifier: MIT */
