// A CPython extension module (limited API, abi3) that uses the CUDA
// runtime without a GPU: runtime_version() returns cudaRuntimeGetVersion(),
// and libcudart() the path the loader took libcudart from.
#define Py_LIMITED_API 0x03080000
#include <Python.h>
#include <stdio.h>
#include <string.h>

extern int cudaRuntimeGetVersion(int* version);

static PyObject* runtime_version(PyObject* self, PyObject* args) {
  int v = 0;
  int err = cudaRuntimeGetVersion(&v);
  if (err != 0) return PyErr_Format(PyExc_RuntimeError, "cudaRuntimeGetVersion: error %d", err);
  return PyLong_FromLong(v);
}

#include "maps.h"

static PyMethodDef methods[] = {
    {"runtime_version", runtime_version, METH_NOARGS, "cudaRuntimeGetVersion()"},
    {"libcudart", libcudart, METH_NOARGS, "the libcudart file in this process"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, methods};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&module); }
