// The NVIDIA driver of this machine (cuwheel/host/driver.h).
#include "cuwheel/host/driver.h"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "cuwheel/base/bytes.h"

namespace cuwheel::host {

namespace {

bool is_version_token(std::string_view t) {
  // MAJOR.MINOR[.PATCH], decimal.
  int parts = 0;
  size_t i = 0;
  while (i < t.size()) {
    size_t start = i;
    while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i;
    if (i == start) return false;
    ++parts;
    if (i == t.size()) break;
    if (t[i] != '.') return false;
    ++i;
    if (i == t.size()) return false;
  }
  return parts >= 2 && parts <= 3;
}

// dlopen()s `library` as the CUDA runtime loads the driver; nullptr with
// dlerror()'s text in `error` when it cannot be loaded.
void* open_library(const std::string& library, std::string& error) {
  dlerror();
  void* h = dlopen(library.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    error = e ? e : "unknown dlopen error";
  }
  return h;
}

// Looks an entry point up; a missing one is recorded by name.
template <typename Fn>
Fn lookup(void* handle, const char* name, std::vector<std::string>& missing) {
  void* p = dlsym(handle, name);
  if (!p) missing.emplace_back(name);
  return reinterpret_cast<Fn>(p);
}

}  // namespace

Expected<std::string> parse_nvrm_version(std::string_view text, const std::string& name) {
  size_t pos = text.find("NVRM version:");
  if (pos == std::string_view::npos) return Error(name + ": no \"NVRM version:\" line");
  size_t end = text.find('\n', pos);
  std::string_view line = text.substr(pos, end == std::string_view::npos ? std::string_view::npos : end - pos);
  size_t module = line.find("Kernel Module");
  std::string_view rest = module == std::string_view::npos ? line.substr(13) : line.substr(module + 13);
  size_t i = 0;
  while (i < rest.size()) {
    while (i < rest.size() && (rest[i] == ' ' || rest[i] == '\t')) ++i;
    size_t start = i;
    while (i < rest.size() && rest[i] != ' ' && rest[i] != '\t') ++i;
    std::string_view token = rest.substr(start, i - start);
    if (is_version_token(token)) return std::string(token);
  }
  return Error(name + ": no driver version on the line \"" + printable(line) + "\"");
}

Expected<std::string> read_kernel_driver_version(const std::string& root) {
  const std::string path = root + "/proc/driver/nvidia/version";
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error(path + ": " + std::strerror(errno));
  std::string text;
  char buf[4096];
  while (text.size() < 64 * 1024) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return Error(path + ": " + std::strerror(err));
    }
    if (n == 0) break;
    text.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return parse_nvrm_version(text, path);
}

std::string_view cuda_result_name(int code) {
  // The CUresult enum of cuda.h (CUDA 13.0), the codes a load or a module
  // load reports.
  switch (code) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 3: return "CUDA_ERROR_NOT_INITIALIZED";
    case 4: return "CUDA_ERROR_DEINITIALIZED";
    case 34: return "CUDA_ERROR_STUB_LIBRARY";
    case 46: return "CUDA_ERROR_DEVICE_UNAVAILABLE";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 102: return "CUDA_ERROR_DEVICE_NOT_LICENSED";
    case 200: return "CUDA_ERROR_INVALID_IMAGE";
    case 209: return "CUDA_ERROR_NO_BINARY_FOR_GPU";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 221: return "CUDA_ERROR_JIT_COMPILER_NOT_FOUND";
    case 222: return "CUDA_ERROR_UNSUPPORTED_PTX_VERSION";
    case 223: return "CUDA_ERROR_JIT_COMPILATION_DISABLED";
    case 303: return "CUDA_ERROR_SHARED_OBJECT_INIT_FAILED";
    case 304: return "CUDA_ERROR_OPERATING_SYSTEM";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 801: return "CUDA_ERROR_NOT_SUPPORTED";
    case 802: return "CUDA_ERROR_SYSTEM_NOT_READY";
    case 803: return "CUDA_ERROR_SYSTEM_DRIVER_MISMATCH";
    case 804: return "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE";
    case 999: return "CUDA_ERROR_UNKNOWN";
    default: return "";
  }
}

std::string cuda_version_string(int v) {
  if (v <= 0) return "";
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

DriverApiReport query_driver_api(const std::string& library) {
  // Prototypes as cuda.h declares them, with CUresult and CUdevice as int
  // (both are int-sized there); no CUDA header is needed.
  using version_fn = int (*)(int*);
  using init_fn = int (*)(unsigned);
  using count_fn = int (*)(int*);
  using get_fn = int (*)(int*, int);
  using name_fn = int (*)(char*, int, int);
  using attr_fn = int (*)(int*, int, int);
  constexpr int kCcMajor = 75, kCcMinor = 76;  // CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_{MAJOR,MINOR}

  DriverApiReport r;
  r.library = library;
  void* h = open_library(library, r.load_error);
  if (!h) return r;
  r.loaded = true;
  auto cu_version = lookup<version_fn>(h, "cuDriverGetVersion", r.missing_symbols);
  auto cu_init = lookup<init_fn>(h, "cuInit", r.missing_symbols);
  auto cu_count = lookup<count_fn>(h, "cuDeviceGetCount", r.missing_symbols);
  auto cu_get = lookup<get_fn>(h, "cuDeviceGet", r.missing_symbols);
  auto cu_name = lookup<name_fn>(h, "cuDeviceGetName", r.missing_symbols);
  auto cu_attr = lookup<attr_fn>(h, "cuDeviceGetAttribute", r.missing_symbols);
  if (cu_init) {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(cu_init), &info) != 0 && info.dli_fname) r.loaded_path = info.dli_fname;
  }
  if (cu_version) r.version_result = cu_version(&r.driver_version);
  if (r.version_result != 0) r.driver_version = 0;
  if (!cu_init) return r;
  r.init_result = cu_init(0);
  if (r.init_result != 0 || !cu_count) return r;
  r.count_result = cu_count(&r.device_count);
  if (r.count_result != 0 || r.device_count < 0) {
    r.device_count = 0;
    return r;
  }
  // A driver reports a handful of devices; a count past 1024 is not one.
  const int n = r.device_count > 1024 ? 1024 : r.device_count;
  for (int i = 0; i < n; ++i) {
    CudaDevice d;
    d.ordinal = i;
    int dev = 0;
    if (!cu_get || cu_get(&dev, i) != 0) {
      r.devices.push_back(d);
      continue;
    }
    char name[256] = {0};
    if (cu_name && cu_name(name, static_cast<int>(sizeof name - 1), dev) == 0) d.name = printable(name);
    if (cu_attr) {
      int major = 0, minor = 0;
      if (cu_attr(&major, kCcMajor, dev) == 0 && cu_attr(&minor, kCcMinor, dev) == 0) {
        d.cc_major = major;
        d.cc_minor = minor;
      }
    }
    r.devices.push_back(d);
  }
  return r;
}

ModuleLoad load_module(const std::string& library, int ordinal, const uint8_t* image, size_t size) {
  using get_fn = int (*)(int*, int);
  using retain_fn = int (*)(void**, int);
  using set_fn = int (*)(void*);
  using load_fn = int (*)(void**, const void*, unsigned, int*, void**);
  using unload_fn = int (*)(void*);
  constexpr int kErrorLogBuffer = 5, kErrorLogBufferSize = 6;  // CUjit_option: CU_JIT_ERROR_LOG_BUFFER{,_SIZE_BYTES}

  ModuleLoad r;
  std::string err;
  void* h = open_library(library, err);
  if (!h) {
    r.error = err;
    return r;
  }
  std::vector<std::string> missing;
  auto cu_get = lookup<get_fn>(h, "cuDeviceGet", missing);
  auto cu_retain = lookup<retain_fn>(h, "cuDevicePrimaryCtxRetain", missing);
  auto cu_set = lookup<set_fn>(h, "cuCtxSetCurrent", missing);
  auto cu_load = lookup<load_fn>(h, "cuModuleLoadDataEx", missing);
  auto cu_unload = lookup<unload_fn>(h, "cuModuleUnload", missing);
  if (!missing.empty()) {
    r.error = library + " has no " + missing.front();
    return r;
  }
  auto name = [](int code) {
    std::string_view n = cuda_result_name(code);
    return (n.empty() ? std::string("CUresult") : std::string(n)) + " (" + std::to_string(code) + ")";
  };
  int dev = 0;
  if (int rc = cu_get(&dev, ordinal); rc != 0) {
    r.error = "cuDeviceGet(" + std::to_string(ordinal) + "): " + name(rc);
    return r;
  }
  void* ctx = nullptr;
  if (int rc = cu_retain(&ctx, dev); rc != 0) {
    r.error = "cuDevicePrimaryCtxRetain: " + name(rc);
    return r;
  }
  if (int rc = cu_set(ctx); rc != 0) {
    r.error = "cuCtxSetCurrent: " + name(rc);
    return r;
  }
  std::vector<uint64_t> aligned((size + 7) / 8 + 1, 0);  // zero-padded, 8-byte aligned
  std::memcpy(aligned.data(), image, size);
  std::vector<char> log(4096, 0);
  int options[] = {kErrorLogBuffer, kErrorLogBufferSize};
  void* values[] = {log.data(), reinterpret_cast<void*>(static_cast<uintptr_t>(log.size() - 1))};
  void* module = nullptr;
  r.result = cu_load(&module, aligned.data(), 2, options, values);
  if (r.result == 0 && module) cu_unload(module);
  r.jit_log = printable(std::string(log.data()));
  while (!r.jit_log.empty() && (r.jit_log.back() == '\n' || r.jit_log.back() == ' ')) r.jit_log.pop_back();
  return r;
}

NvmlReport query_nvml(const std::string& library) {
  // nvml.h prototypes; nvmlReturn_t is an int-sized enum, nvmlDevice_t a pointer.
  using init_fn = int (*)();
  using shutdown_fn = int (*)();
  using driver_fn = int (*)(char*, unsigned);
  using cuda_fn = int (*)(int*);
  using count_fn = int (*)(unsigned*);
  using handle_fn = int (*)(unsigned, void**);
  using name_fn = int (*)(void*, char*, unsigned);
  using cc_fn = int (*)(void*, int*, int*);
  using mig_fn = int (*)(void*, unsigned*, unsigned*);

  NvmlReport r;
  r.library = library;
  void* h = open_library(library, r.load_error);
  if (!h) return r;
  r.loaded = true;
  auto nv_init = lookup<init_fn>(h, "nvmlInit_v2", r.missing_symbols);
  auto nv_shutdown = lookup<shutdown_fn>(h, "nvmlShutdown", r.missing_symbols);
  auto nv_driver = lookup<driver_fn>(h, "nvmlSystemGetDriverVersion", r.missing_symbols);
  auto nv_cuda = lookup<cuda_fn>(h, "nvmlSystemGetCudaDriverVersion_v2", r.missing_symbols);
  auto nv_count = lookup<count_fn>(h, "nvmlDeviceGetCount_v2", r.missing_symbols);
  auto nv_handle = lookup<handle_fn>(h, "nvmlDeviceGetHandleByIndex_v2", r.missing_symbols);
  auto nv_name = lookup<name_fn>(h, "nvmlDeviceGetName", r.missing_symbols);
  auto nv_cc = lookup<cc_fn>(h, "nvmlDeviceGetCudaComputeCapability", r.missing_symbols);
  auto nv_mig = lookup<mig_fn>(h, "nvmlDeviceGetMigMode", r.missing_symbols);
  if (!nv_init) return r;
  r.init_result = nv_init();
  if (r.init_result != 0) return r;
  if (nv_driver) {
    char buf[96] = {0};
    if (nv_driver(buf, sizeof buf - 1) == 0) r.driver_version = printable(buf);
  }
  if (nv_cuda) r.cuda_version_result = nv_cuda(&r.cuda_driver_version);
  if (r.cuda_version_result != 0) r.cuda_driver_version = 0;
  if (nv_count) r.count_result = nv_count(&r.device_count);
  if (r.count_result != 0) r.device_count = 0;
  const unsigned n = r.device_count > 1024 ? 1024 : r.device_count;
  for (unsigned i = 0; i < n; ++i) {
    NvmlDevice d;
    d.index = i;
    void* dev = nullptr;
    if (nv_handle && nv_handle(i, &dev) == 0) {
      char name[256] = {0};
      if (nv_name && nv_name(dev, name, sizeof name - 1) == 0) d.name = printable(name);
      int major = 0, minor = 0;
      if (nv_cc && nv_cc(dev, &major, &minor) == 0) {
        d.cc_major = major;
        d.cc_minor = minor;
      }
      if (nv_mig) d.mig_result = nv_mig(dev, &d.mig_current, &d.mig_pending);
    }
    r.devices.push_back(d);
  }
  if (nv_shutdown) nv_shutdown();
  return r;
}

}  // namespace cuwheel::host
