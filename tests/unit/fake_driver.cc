// A stand-in for libcuda.so.1 and libnvidia-ml.so.1 in one shared library,
// for the host driver tests (host_driver_test.cc): the entry points
// query_driver_api() and query_nvml() look up, with the prototypes of
// cuda.h and nvml.h, answering as a two-GPU machine (an H200-like 9.0 and
// an 8.6 device, a mixed host) with driver 580.65.06 for CUDA 13.0.
// FAKE_CUINIT=<code> makes cuInit return that CUresult (34 is what the
// toolkit's stub libcuda.so returns, 804 a forward-compatibility libcuda
// on a GPU that does not allow it).
//
// cuModuleLoadDataEx answers as a driver that reads only entry headers
// (fatbin-format.md section 3): a cubin entry of the device's major with a
// minor at or below the device's loads; else a PTX entry at or below the
// device's SM loads (neither the PTX ISA nor 'a'/'f' suffixes checked);
// else CUDA_ERROR_NO_BINARY_FOR_GPU (209). With CUDA_FORCE_PTX_JIT=1
// cubin entries are ignored, as the real driver does. It is enough to
// test the plumbing of `probe --load`, not the rules.
#include <cstdlib>
#include <cstring>

namespace {
const char* const kNames[] = {"Fake GPU 9.0", "Fake GPU 8.6"};
const int kMajor[] = {9, 8};
const int kMinor[] = {0, 6};
bool g_init = false;
int g_current = 0;
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

__attribute__((visibility("default"))) int cuDevicePrimaryCtxRetain(void** ctx, int dev) {
  if (!g_init) return 3;
  if (dev < 0 || dev > 1) return 101;
  *ctx = const_cast<char*>(kNames[dev]);
  return 0;
}
__attribute__((visibility("default"))) int cuCtxSetCurrent(void* ctx) {
  g_current = ctx == kNames[0] ? 0 : 1;
  return 0;
}
__attribute__((visibility("default"))) int cuModuleLoadDataEx(void** module, const void* image, unsigned, int*, void**) {
  const unsigned char* p = static_cast<const unsigned char*>(image);
  unsigned magic, sm;
  unsigned long long fat, size;
  unsigned short kind;
  unsigned hsize;
  std::memcpy(&magic, p, 4);
  if (magic != 0xBA55ED50u) return 200;  // CUDA_ERROR_INVALID_IMAGE
  std::memcpy(&fat, p + 8, 8);
  const bool ptx_only = std::getenv("CUDA_FORCE_PTX_JIT") && std::strcmp(std::getenv("CUDA_FORCE_PTX_JIT"), "1") == 0;
  const unsigned dev_sm = static_cast<unsigned>(kMajor[g_current] * 10 + kMinor[g_current]);
  bool cubin = false, ptx = false;
  for (unsigned long long off = 16; off + 0x40 <= 16 + fat;) {
    std::memcpy(&kind, p + off, 2);
    std::memcpy(&hsize, p + off + 4, 4);
    std::memcpy(&size, p + off + 8, 8);
    std::memcpy(&sm, p + off + 0x1c, 4);
    if (kind == 2 && sm / 10 == dev_sm / 10 && sm <= dev_sm && !ptx_only) cubin = true;
    if (kind == 1 && sm <= dev_sm) ptx = true;
    if (hsize < 0x40) break;
    off += hsize + size;
  }
  if (!cubin && !ptx) return 209;
  *module = const_cast<void*>(image);
  return 0;
}
__attribute__((visibility("default"))) int cuModuleUnload(void*) { return 0; }

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
