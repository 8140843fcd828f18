// cuwheel: the NVIDIA driver of this machine, as a CUDA program meets it.
//
// Three independent sources, because they can disagree and the
// disagreement is the diagnosis (repair-probe-packaging-facts.md B1, B3):
//   - the kernel-mode driver (KMD): /proc/driver/nvidia/version, written by
//     the nvidia kernel module ("NVRM version: ... Kernel Module 580.65.06");
//   - the user-mode driver (UMD): the libcuda.so.1 that dlopen() finds, the
//     way the CUDA runtime and Python bindings load it, asked through the
//     driver API (cuDriverGetVersion, cuInit, cuDeviceGetCount,
//     cuDeviceGet, cuDeviceGetName, cuDeviceGetAttribute with
//     CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR = 75 / _MINOR = 76;
//     CUDA Driver API reference, cuda.h of CUDA 13.0). A forward-
//     compatibility libcuda (cuda-compat) is newer than the KMD; the
//     toolkit's stub libcuda.so answers cuInit with CUDA_ERROR_STUB_LIBRARY;
//   - NVML (libnvidia-ml.so.1, no CUDA context): nvmlSystemGetDriverVersion,
//     nvmlSystemGetCudaDriverVersion_v2, and per device name, compute
//     capability and MIG mode (NVML API reference).
// Nothing here links against the driver: every library is dlopen()ed and
// its entry points looked up with dlsym(), so cuwheel runs on machines
// without one (and inside `cuwheel run --hide-driver`, where dlopen fails
// on an empty file). No query prints; each returns what it saw.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"

namespace cuwheel::host {

// ---------------------------------------------------------------------------
// Kernel-mode driver

/// The kernel module version in the text of /proc/driver/nvidia/version:
/// the first token of the "NVRM version:" line, after "Kernel Module",
/// that is a dotted decimal version ("580.65.06", "470.256.02", "535.104").
/// Both the proprietary line ("NVIDIA UNIX x86_64 Kernel Module  580.65.06
/// Sun Jul 27 ...") and the open one ("NVIDIA UNIX Open Kernel Module for
/// x86_64  580.65.06  Release Build ...") are read. `name` is used in
/// messages. Errors: no "NVRM version:" line, or no version on it (the
/// message quotes the line, escaped).
Expected<std::string> parse_nvrm_version(std::string_view text, const std::string& name);

/// Reads `root`/proc/driver/nvidia/version (root "" is "/") and parses it
/// with parse_nvrm_version(). Errors: the file cannot be read (the
/// message names the path and errno: no kernel driver loaded, or a
/// container without it), or it does not parse. Reads at most 64 KiB.
Expected<std::string> read_kernel_driver_version(const std::string& root = "");

// ---------------------------------------------------------------------------
// Driver API (libcuda.so.1)

/// The CUresult name for a driver API status ("CUDA_SUCCESS",
/// "CUDA_ERROR_STUB_LIBRARY", "CUDA_ERROR_NO_DEVICE",
/// "CUDA_ERROR_COMPAT_NOT_SUPPORTED_ON_DEVICE", ...), from the CUresult
/// enum of cuda.h (CUDA 13.0); "" for a code it does not list.
std::string_view cuda_result_name(int code);

/// One device the driver API enumerates.
struct CudaDevice {
  int ordinal = 0;        ///< 0..count-1, as cuDeviceGet takes it
  std::string name;       ///< cuDeviceGetName, e.g. "NVIDIA H200" ("" when the call failed)
  int cc_major = 0;       ///< compute capability, 0 when the attribute query failed
  int cc_minor = 0;
};

/// What loading libcuda and asking it gave. Each call's CUresult is kept
/// as returned; -1 means the call was not made (an earlier step failed or
/// the entry point is missing).
struct DriverApiReport {
  std::string library;          ///< the name given to dlopen()
  bool loaded = false;
  std::string load_error;       ///< dlerror() text when not loaded
  std::string loaded_path;      ///< the file dlopen() mapped (dladdr of cuInit), "" when unknown
  std::vector<std::string> missing_symbols;  ///< entry points dlsym() did not find
  int version_result = -1;      ///< cuDriverGetVersion's CUresult
  int driver_version = 0;       ///< 1000 * major + 10 * minor of the CUDA the UMD supports (13000 = 13.0)
  int init_result = -1;         ///< cuInit(0)'s CUresult (34: stub library, 804: forward compat not supported)
  int count_result = -1;        ///< cuDeviceGetCount's CUresult
  int device_count = 0;
  std::vector<CudaDevice> devices;
};

/// Loads `library` (default "libcuda.so.1", searched as ld.so does; a path
/// with a slash is loaded as is) with RTLD_NOW | RTLD_LOCAL and queries it
/// in order: cuDriverGetVersion (before cuInit, as it needs none), cuInit,
/// cuDeviceGetCount, then per device cuDeviceGet, cuDeviceGetName and the
/// two compute-capability attributes. Never fails as a function: a library
/// that cannot be loaded is `loaded == false` with dlerror()'s text. The
/// library stays loaded for the life of the process (unloading a driver
/// after cuInit is unsafe), so query once.
DriverApiReport query_driver_api(const std::string& library = "libcuda.so.1");

/// The CUDA version a driver API version number stands for: 13000 -> "13.0",
/// 12090 -> "12.9" (cuDriverGetVersion returns 1000 * major + 10 * minor;
/// CUDA Driver API reference, Version Management). "" for 0 or a negative
/// number.
std::string cuda_version_string(int driver_version);

/// What handing one image to the driver gave.
struct ModuleLoad {
  int result = -1;        ///< cuModuleLoadDataEx's CUresult (-1: not called; see `error`)
  std::string error;      ///< why it was not called ("cuDevicePrimaryCtxRetain: CUDA_ERROR_...")
  std::string jit_log;    ///< the JIT's error log (CU_JIT_ERROR_LOG_BUFFER), trimmed, at most 4 KiB
};

/// Loads `image` (a whole fatbin container, header included, or a whole
/// cubin; bytes copied into an 8-byte aligned buffer first) as a module
/// in the primary context of device `ordinal` with cuModuleLoadDataEx,
/// through the libcuda that query_driver_api(`library`) loaded, then
/// unloads it. The driver picks the image's code for the GPU exactly as
/// for a library the CUDA runtime registers: a cubin that runs natively,
/// else PTX it JIT-compiles (CUDA Driver API, Module Management). Needs
/// a successful cuInit (query_driver_api() first). The driver's
/// environment applies: CUDA_FORCE_PTX_JIT=1 makes it ignore cubins,
/// CUDA_CACHE_DISABLE=1 skips the JIT cache, CUDA_MODULE_LOADING=EAGER
/// makes a load compile every function before it returns. Never throws;
/// entry points it cannot find are reported in `error`.
ModuleLoad load_module(const std::string& library, int ordinal, const uint8_t* image, size_t size);

// ---------------------------------------------------------------------------
// NVML (libnvidia-ml.so.1)

/// One device as NVML sees it.
struct NvmlDevice {
  unsigned index = 0;
  std::string name;             ///< nvmlDeviceGetName
  int cc_major = 0;             ///< nvmlDeviceGetCudaComputeCapability (0 when it failed)
  int cc_minor = 0;
  int mig_result = -1;          ///< nvmlDeviceGetMigMode's nvmlReturn_t (3 = NVML_ERROR_NOT_SUPPORTED: no MIG on this GPU)
  unsigned mig_current = 0;     ///< 1 = MIG enabled
  unsigned mig_pending = 0;
};

/// What loading NVML and asking it gave; -1 is a call not made, as above.
struct NvmlReport {
  std::string library;
  bool loaded = false;
  std::string load_error;
  std::vector<std::string> missing_symbols;
  int init_result = -1;          ///< nvmlInit_v2's nvmlReturn_t (0 = NVML_SUCCESS)
  std::string driver_version;    ///< nvmlSystemGetDriverVersion, the KMD ("580.95.05")
  int cuda_version_result = -1;
  int cuda_driver_version = 0;   ///< nvmlSystemGetCudaDriverVersion_v2 (12090): the system driver's CUDA, not a compat package's
  int count_result = -1;
  unsigned device_count = 0;
  std::vector<NvmlDevice> devices;
};

/// Loads `library` (default "libnvidia-ml.so.1") and queries it: nvmlInit_v2,
/// the system driver and CUDA versions, nvmlDeviceGetCount_v2, and per
/// device its handle, name, compute capability and MIG mode; then
/// nvmlShutdown. Never fails as a function, like query_driver_api().
NvmlReport query_nvml(const std::string& library = "libnvidia-ml.so.1");

}  // namespace cuwheel::host
