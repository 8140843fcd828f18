// A stand-in for libcuda.so.1 and libnvidia-ml.so.1 in one shared library,
// for the host driver tests (host_driver_test.cc): the entry points
// query_driver_api() and query_nvml() look up, with the prototypes of
// cuda.h and nvml.h, answering as a two-GPU machine (an H200-like 9.0 and
// an 8.6 device, a mixed host) with driver 580.65.06 for CUDA 13.0.
// FAKE_CUINIT=<code> makes cuInit return that CUresult (34 is what the
// toolkit's stub libcuda.so returns, 804 a forward-compatibility libcuda
// on a GPU that does not allow it).
#include <cstdlib>
#include <cstring>

namespace {
const char* const kNames[] = {"Fake GPU 9.0", "Fake GPU 8.6"};
const int kMajor[] = {9, 8};
const int kMinor[] = {0, 6};
bool g_init = false;
int fake_init_result() {
  const char* v = std::getenv("FAKE_CUINIT");
  return v ? std::atoi(v) : 0;
}
}  // namespace

extern "C" {
__attribute__((visibility("default"))) int cuDriverGetVersion(int* v) {
  *v = 13000;
  return 0;
}
__attribute__((visibility("default"))) int cuInit(unsigned) {
  int rc = fake_init_result();
  g_init = rc == 0;
  return rc;
}
__attribute__((visibility("default"))) int cuDeviceGetCount(int* n) {
  if (!g_init) return 3;  // CUDA_ERROR_NOT_INITIALIZED
  *n = 2;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGet(int* dev, int ordinal) {
  if (ordinal < 0 || ordinal > 1) return 101;  // CUDA_ERROR_INVALID_DEVICE
  *dev = ordinal;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetName(char* name, int len, int dev) {
  if (dev < 0 || dev > 1 || len <= 0) return 101;
  std::strncpy(name, kNames[dev], static_cast<size_t>(len) - 1);
  name[len - 1] = 0;
  return 0;
}
__attribute__((visibility("default"))) int cuDeviceGetAttribute(int* value, int attr, int dev) {
  if (dev < 0 || dev > 1) return 101;
  if (attr == 75) *value = kMajor[dev];
  else if (attr == 76) *value = kMinor[dev];
  else return 1;  // CUDA_ERROR_INVALID_VALUE
  return 0;
}

__attribute__((visibility("default"))) int nvmlInit_v2() { return 0; }
__attribute__((visibility("default"))) int nvmlShutdown() { return 0; }
__attribute__((visibility("default"))) int nvmlSystemGetDriverVersion(char* buf, unsigned len) {
  std::strncpy(buf, "580.65.06", len);
  return 0;
}
__attribute__((visibility("default"))) int nvmlSystemGetCudaDriverVersion_v2(int* v) {
  *v = 13000;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetCount_v2(unsigned* n) {
  *n = 2;
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetHandleByIndex_v2(unsigned i, void** dev) {
  if (i > 1) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *dev = const_cast<char*>(kNames[i]);
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetName(void* dev, char* buf, unsigned len) {
  std::strncpy(buf, static_cast<const char*>(dev), len);
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetCudaComputeCapability(void* dev, int* major, int* minor) {
  int i = dev == kNames[0] ? 0 : 1;
  *major = kMajor[i];
  *minor = kMinor[i];
  return 0;
}
__attribute__((visibility("default"))) int nvmlDeviceGetMigMode(void* dev, unsigned* current, unsigned* pending) {
  if (dev == kNames[1]) return 3;  // NVML_ERROR_NOT_SUPPORTED: no MIG on this GPU
  *current = 1;
  *pending = 1;
  return 0;
}
}
