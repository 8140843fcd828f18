// Shared by cwdemo.c and cwkern.cu: libcudart(), the path of the libcudart
// file the loader mapped into this process (/proc/self/maps), or None.
#pragma once
#include <stdio.h>
#include <string.h>

static PyObject* libcudart(PyObject* self, PyObject* args) {
  FILE* f = fopen("/proc/self/maps", "r");
  char line[4096];
  if (!f) Py_RETURN_NONE;
  while (fgets(line, sizeof line, f)) {
    char* p = strstr(line, "/");
    if (p && strstr(p, "libcudart")) {
      fclose(f);
      p[strcspn(p, "\n")] = 0;
      return PyUnicode_FromString(p);
    }
  }
  fclose(f);
  Py_RETURN_NONE;
}
