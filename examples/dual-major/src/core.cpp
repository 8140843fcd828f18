// demo._core: the CPU implementation, always present. sum(buffer) -> int.
#ifndef Py_LIMITED_API  // scikit-build-core defines it (USE_SABI 3.11)
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>

#include "int32_buffer.h"

namespace {

PyObject* sum(PyObject*, PyObject* arg) {
  Py_buffer view;
  if (!demo_get_int32(arg, &view)) return nullptr;
  const std::int32_t* x = static_cast<const std::int32_t*>(view.buf);
  Py_ssize_t n = view.len / 4;
  long long s = 0;
  Py_BEGIN_ALLOW_THREADS
  unsigned long long u = 0;  // two's complement, as the kernel adds
  for (Py_ssize_t i = 0; i < n; ++i) u += static_cast<unsigned long long>(static_cast<long long>(x[i]));
  s = static_cast<long long>(u);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  return PyLong_FromLongLong(s);
}

PyMethodDef methods[] = {
    {"sum", sum, METH_O, "sum(buffer) -> int: the exact sum of a contiguous int32 buffer, on the CPU."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_core", "demo's CPU core.", -1, methods,
                      nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__core(void) { return PyModule_Create(&module); }
