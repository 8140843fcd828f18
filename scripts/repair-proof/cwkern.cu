// A CPython extension module (limited API, abi3) with a CUDA kernel:
// run(n) adds two vectors of n floats on GPU 0 and returns the sum of the
// result (n * 3.0 when right); libcudart() names the runtime file in use.
#define Py_LIMITED_API 0x03080000
#include <Python.h>
#include <cuda_runtime.h>
#include <stdio.h>
#include <string.h>

__global__ void add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}

static PyObject* fail(const char* what, cudaError_t e) {
  return PyErr_Format(PyExc_RuntimeError, "%s: %s (%d)", what, cudaGetErrorString(e), (int)e);
}

static PyObject* run(PyObject* self, PyObject* args) {
  int n = 0;
  if (!PyArg_ParseTuple(args, "i", &n) || n <= 0) return NULL;
  size_t bytes = (size_t)n * sizeof(float);
  float* h = (float*)malloc(bytes);
  for (int i = 0; i < n; ++i) h[i] = 1.0f;
  float *a, *b, *c;
  cudaError_t e;
  if ((e = cudaMalloc(&a, bytes)) != cudaSuccess) { free(h); return fail("cudaMalloc", e); }
  cudaMalloc(&b, bytes);
  cudaMalloc(&c, bytes);
  cudaMemcpy(a, h, bytes, cudaMemcpyHostToDevice);
  for (int i = 0; i < n; ++i) h[i] = 2.0f;
  cudaMemcpy(b, h, bytes, cudaMemcpyHostToDevice);
  add<<<(n + 255) / 256, 256>>>(a, b, c, n);
  if ((e = cudaGetLastError()) != cudaSuccess) { free(h); return fail("launch", e); }
  if ((e = cudaMemcpy(h, c, bytes, cudaMemcpyDeviceToHost)) != cudaSuccess) { free(h); return fail("cudaMemcpy", e); }
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += h[i];
  cudaFree(a); cudaFree(b); cudaFree(c);
  free(h);
  return PyFloat_FromDouble(sum);
}

static PyObject* runtime_version(PyObject* self, PyObject* args) {
  int v = 0;
  cudaRuntimeGetVersion(&v);
  return PyLong_FromLong(v);
}

#include "maps.h"

static PyMethodDef methods[] = {
    {"run", run, METH_VARARGS, "run(n): add two vectors on GPU 0, return the sum"},
    {"runtime_version", runtime_version, METH_NOARGS, "cudaRuntimeGetVersion()"},
    {"libcudart", libcudart, METH_NOARGS, "the libcudart file in this process"},
    {NULL, NULL, 0, NULL},
};
static struct PyModuleDef module = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, methods};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&module); }
