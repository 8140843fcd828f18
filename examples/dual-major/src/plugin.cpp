// demo_cu<N>._plugin: the CUDA implementation of demo's sum, one build per
// CUDA major from this one source. Linked with that major's static CUDA
// runtime (libcudart_static.a), so the wheel needs no libcudart and bundles
// none; the runtime finds the driver (libcuda.so.1) with dlopen when first
// called, so the module imports on a machine without a driver and says why
// it cannot run there. The device code is a fat binary in .nv_fatbin
// (fatbin.S), loaded with cudaLibraryLoadData (CUDA 12.0 and later), which
// lets the CUDA 12 plugin use device code built without nvcc. Only
// PyInit__plugin is exported (plugin.map, -fvisibility=hidden,
// --exclude-libs,ALL).
#ifndef Py_LIMITED_API  // scikit-build-core defines it (USE_SABI 3.11)
#define Py_LIMITED_API 0x030B0000
#endif
#include <Python.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <string>

#include "int32_buffer.h"

#ifndef DEMO_PLUGIN
#error "DEMO_PLUGIN (cu12 or cu13) is set by CMakeLists.txt"
#endif
#ifndef DEMO_ARCHS
#error "DEMO_ARCHS (the release list the fat binary holds) is set by CMakeLists.txt"
#endif

extern "C" const unsigned char demo_fatbin[];

namespace {

struct State {
  bool tried = false;
  std::string reason;  // empty: usable
  cudaLibrary_t library = nullptr;
  cudaKernel_t kernel = nullptr;
  int device = 0;
};
State state;

std::string version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10); }

std::string error_text(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + std::to_string(static_cast<int>(e)) + "): " + cudaGetErrorString(e);
}

// Decides once whether the plugin can run here, and why not.
void init() {
  if (state.tried) return;
  state.tried = true;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e == cudaErrorInsufficientDriver) {
    int driver = 0;
    cudaDriverGetVersion(&driver);
    state.reason = driver == 0 ? "no CUDA driver"
                               : "the CUDA driver supports CUDA " + version_text(driver) +
                                     ", older than this plugin's runtime (CUDA " + version_text(CUDART_VERSION) + ")";
    return;
  }
  if (e == cudaErrorNoDevice || (e == cudaSuccess && count == 0)) {
    state.reason = "no CUDA GPU";
    return;
  }
  if (e != cudaSuccess) {
    state.reason = "CUDA could not start: " + error_text(e);
    return;
  }
  cudaGetDevice(&state.device);
  e = cudaLibraryLoadData(&state.library, demo_fatbin, nullptr, nullptr, 0, nullptr, nullptr, 0);
  if (e != cudaSuccess) {
    cudaDeviceProp prop;
    std::string gpu = "this GPU";
    if (cudaGetDeviceProperties(&prop, state.device) == cudaSuccess)
      gpu = std::string(prop.name) + " (sm_" + std::to_string(prop.major) + std::to_string(prop.minor) + ")";
    state.reason = "the plugin's device code (" DEMO_ARCHS ") cannot run on " + gpu + ": " + error_text(e);
    return;
  }
  e = cudaLibraryGetKernel(&state.kernel, state.library, "demo_sum");
  if (e != cudaSuccess) state.reason = "kernel demo_sum not found: " + error_text(e);
}

PyObject* status(PyObject*, PyObject*) {
  init();
  if (state.reason.empty()) return Py_BuildValue("(OO)", Py_True, Py_None);
  return Py_BuildValue("(Os)", Py_False, state.reason.c_str());
}

PyObject* device(PyObject*, PyObject*) {
  init();
  if (!state.reason.empty()) Py_RETURN_NONE;
  cudaDeviceProp prop;
  if (cudaGetDeviceProperties(&prop, state.device) != cudaSuccess) Py_RETURN_NONE;
  int driver = 0;
  cudaDriverGetVersion(&driver);
  return Py_BuildValue("{s:s,s:s,s:s}", "name", prop.name, "arch",
                       ("sm_" + std::to_string(prop.major) + std::to_string(prop.minor)).c_str(), "driver_cuda",
                       version_text(driver).c_str());
}

PyObject* sum(PyObject*, PyObject* arg) {
  init();
  if (!state.reason.empty()) {
    PyErr_Format(PyExc_RuntimeError, "demo-%s cannot run here: %s", DEMO_PLUGIN, state.reason.c_str());
    return nullptr;
  }
  Py_buffer view;
  if (!demo_get_int32(arg, &view)) return nullptr;
  unsigned long long n = static_cast<unsigned long long>(view.len / 4);
  unsigned long long result = 0;
  std::string failed;
  Py_BEGIN_ALLOW_THREADS
  void* x = nullptr;
  unsigned long long* out = nullptr;
  cudaError_t e = cudaMalloc(&x, n ? n * 4 : 4);
  if (e == cudaSuccess) e = cudaMalloc(reinterpret_cast<void**>(&out), sizeof *out);
  if (e == cudaSuccess && n) e = cudaMemcpy(x, view.buf, n * 4, cudaMemcpyHostToDevice);
  if (e == cudaSuccess) e = cudaMemset(out, 0, sizeof *out);
  if (e == cudaSuccess) {
    unsigned long long blocks = (n + 255) / 256;
    dim3 grid(static_cast<unsigned>(blocks == 0 ? 1 : blocks > 1024 ? 1024 : blocks)), block(256);
    const int* xp = static_cast<const int*>(x);
    void* args[] = {&xp, &n, &out};
    // A cudaKernel_t is launched through cudaLaunchKernel as its function
    // pointer (CUDA runtime API, cudaLibraryGetKernel).
    e = cudaLaunchKernel(reinterpret_cast<const void*>(state.kernel), grid, block, args, 0, nullptr);
  }
  if (e == cudaSuccess) e = cudaMemcpy(&result, out, sizeof result, cudaMemcpyDeviceToHost);
  if (e != cudaSuccess) failed = error_text(e);
  cudaFree(out);
  cudaFree(x);
  Py_END_ALLOW_THREADS
  PyBuffer_Release(&view);
  if (!failed.empty()) {
    PyErr_Format(PyExc_RuntimeError, "demo-%s: %s", DEMO_PLUGIN, failed.c_str());
    return nullptr;
  }
  return PyLong_FromLongLong(static_cast<long long>(result));
}

PyObject* build_info(PyObject*, PyObject*) {
  return Py_BuildValue("{s:s,s:s,s:s,s:s}", "plugin", DEMO_PLUGIN, "cuda_runtime", version_text(CUDART_VERSION).c_str(),
                       "runtime", "static", "architectures", DEMO_ARCHS);
}

PyMethodDef methods[] = {
    {"status", status, METH_NOARGS, "status() -> (usable, reason): whether the plugin can run here, and why not."},
    {"device", device, METH_NOARGS, "device() -> dict or None: the GPU the plugin runs on."},
    {"sum", sum, METH_O, "sum(buffer) -> int: the exact sum of a contiguous int32 buffer, on the GPU."},
    {"build_info", build_info, METH_NOARGS, "build_info() -> dict: plugin, CUDA runtime, architectures."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef module = {PyModuleDef_HEAD_INIT, "_plugin", "demo's CUDA plugin.", -1, methods,
                      nullptr, nullptr, nullptr, nullptr};

}  // namespace

PyMODINIT_FUNC PyInit__plugin(void) { return PyModule_Create(&module); }
