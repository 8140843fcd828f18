// Reads a Python object as a C-contiguous buffer of 32-bit signed integers
// (array.array('i'), a NumPy int32 array, a memoryview of either). Shared by
// the core module and the plugin. Limited API 3.11 (the buffer protocol
// joined the stable ABI in 3.11).
#pragma once
#include <Python.h>

#include <cstdint>
#include <cstring>

// Fills *view; returns false with a Python TypeError set when obj is not a
// contiguous buffer of 4-byte signed integers. The caller releases the view
// with PyBuffer_Release when this returned true.
inline bool demo_get_int32(PyObject* obj, Py_buffer* view) {
  if (PyObject_GetBuffer(obj, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT) != 0) return false;
  const char* f = view->format ? view->format : "B";
  if (*f == '@' || *f == '=' || *f == '<') ++f;
  bool int32 = view->itemsize == 4 && (std::strcmp(f, "i") == 0 || std::strcmp(f, "l") == 0);
  if (!int32) {
    PyBuffer_Release(view);
    PyErr_Format(PyExc_TypeError, "expected a contiguous buffer of int32 (format 'i'), got format '%s' of %zd-byte items",
                 view->format ? view->format : "B", view->itemsize);
    return false;
  }
  return true;
}
