// cuwheel: this machine's NVIDIA driver and GPUs, as `cuwheel probe` with
// no path reports them, with one diagnosis (docs/probe.md "This machine").
//
// The facts come from cuwheel/host/driver.h (kernel module version, driver
// API, NVML; all dlopen()ed, nothing linked) and from the loader's search
// path as cuwheel/host/hide_driver.h reads it (which libcuda.so.1 files
// ld.so could find). Nothing here prints.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cuwheel/host/driver.h"
#include "cuwheel/probe/probe.h"

namespace cuwheel::probe {

/// Where to look; the defaults are the real machine's.
struct HostOptions {
  std::string root;                              ///< prefix for /proc and /etc ("" = "/")
  std::string libcuda = "libcuda.so.1";          ///< what dlopen() is given
  std::string libnvml = "libnvidia-ml.so.1";
  std::string ld_library_path;                   ///< the LD_LIBRARY_PATH to read for libcuda copies
  bool use_ld_cache = true;                      ///< read <root>/etc/ld.so.cache for libcuda copies
};

/// The one-word diagnosis.
enum class HostState : uint8_t {
  ok,                    ///< a driver that answers, with at least one GPU
  no_driver,             ///< neither a kernel module nor a loadable libcuda.so.1
  no_user_driver,        ///< the kernel module is loaded but libcuda.so.1 is not found (a container without the driver's libraries)
  no_gpu,                ///< libcuda answers but there is no device (CUDA_ERROR_NO_DEVICE, 100, or zero devices)
  stub_library,          ///< the toolkit's stub libcuda was loaded (CUDA_ERROR_STUB_LIBRARY, 34)
  compat_not_supported,  ///< a forward-compatibility libcuda on a GPU without forward compatibility (804)
  driver_error,          ///< libcuda fails otherwise (cuInit's CUresult is in the report)
};

/// "ok", "no-driver", "no-user-driver", "no-gpu", "stub-library",
/// "compat-not-supported", "driver-error".
std::string_view to_string(HostState s);

/// What this machine has.
struct HostReport {
  std::string kernel_driver;         ///< /proc/driver/nvidia/version's module version, "" when unread
  std::string kernel_error;          ///< why it is unread
  host::DriverApiReport api;
  host::NvmlReport nvml;
  /// The libcuda.so.1 files the loader could find (LD_LIBRARY_PATH, the
  /// ld.so.cache, ld.so.conf and standard folders), symlinks resolved,
  /// each with how it is reached: more than one is a diagnosis of its own.
  std::vector<std::pair<std::string, std::vector<std::string>>> libcuda_copies;
  HostState state = HostState::no_driver;
  std::string summary;               ///< one line: the diagnosis in words, with the fix when there is one
  std::vector<std::string> notes;    ///< further findings (two libcuda copies, a UMD newer than the KMD, NVML and the driver API disagreeing)
  std::vector<Gpu> gpus;             ///< the driver API's devices, labelled "NVIDIA H200 (device 0)"
  std::optional<DriverLimit> driver; ///< from cuDriverGetVersion, when it answered
};

/// Reads the facts and diagnoses them. Never fails and never crashes
/// without a driver, inside `cuwheel run --hide-driver` (an empty
/// libcuda.so.1) or in a container; libraries stay loaded (see
/// host::query_driver_api). Call it once per process.
HostReport probe_host(const HostOptions& options = {});

}  // namespace cuwheel::probe
