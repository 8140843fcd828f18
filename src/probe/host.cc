// This machine's driver and GPUs. See include/cuwheel/probe/host.h.
#include "cuwheel/probe/host.h"

#include <algorithm>

#include "cuwheel/host/hide_driver.h"

namespace cuwheel::probe {

namespace {

std::string result_text(int code) {
  std::string_view n = host::cuda_result_name(code);
  return (n.empty() ? "CUresult" : std::string(n)) + " (" + std::to_string(code) + ")";
}

bool is_stub_path(const std::string& p) { return p.find("/stubs/") != std::string::npos; }

// The libcuda.so.1 files ld.so could find, as the driver-hiding discovery
// sees them (every driver library it would cover, kept when reached by the
// name libcuda.so.1).
std::vector<std::pair<std::string, std::vector<std::string>>> find_libcuda(const HostOptions& o) {
  HideDriverInputs in;
  in.root = o.root.empty() ? "/" : o.root;
  in.ld_library_path = o.ld_library_path;
  in.use_cache = o.use_ld_cache;
  WarningSink warnings;
  std::vector<std::pair<std::string, std::vector<std::string>>> out;
  auto plan = plan_hide_driver(in, warnings);
  if (!plan) return out;
  for (const auto& t : plan->targets) {
    if (t.kind != HideKind::library) continue;
    bool named = std::any_of(t.via.begin(), t.via.end(), [](const std::string& v) {
      return v.size() >= 12 && v.compare(v.size() - 12, 12, "libcuda.so.1") == 0;
    });
    if (named) out.emplace_back(t.path, t.via);
  }
  return out;
}

}  // namespace

std::string_view to_string(HostState s) {
  switch (s) {
    case HostState::ok: return "ok";
    case HostState::no_driver: return "no-driver";
    case HostState::no_user_driver: return "no-user-driver";
    case HostState::no_gpu: return "no-gpu";
    case HostState::stub_library: return "stub-library";
    case HostState::compat_not_supported: return "compat-not-supported";
    case HostState::driver_error: return "driver-error";
  }
  return "";
}

HostReport probe_host(const HostOptions& o) {
  HostReport r;
  if (auto k = host::read_kernel_driver_version(o.root)) r.kernel_driver = *k;
  else r.kernel_error = k.error().message();
  r.api = host::query_driver_api(o.libcuda);
  r.nvml = host::query_nvml(o.libnvml);
  r.libcuda_copies = find_libcuda(o);
  if (r.api.version_result == 0)
    if (auto d = driver_from_api_version(r.api.driver_version)) r.driver = *d;

  const std::string lib = r.api.loaded_path.empty() ? r.api.library : r.api.loaded_path;
  if (!r.api.loaded) {
    if (r.kernel_driver.empty()) {
      r.state = HostState::no_driver;
      r.summary = "no NVIDIA driver: " + r.api.library + " cannot be loaded (" + r.api.load_error +
                  ") and no kernel module is loaded (" + r.kernel_error + ")";
    } else {
      r.state = HostState::no_user_driver;
      r.summary = "the NVIDIA kernel module " + r.kernel_driver + " is loaded but " + r.api.library +
                  " cannot be (" + r.api.load_error +
                  "): a container started without the driver's libraries (NVIDIA Container Toolkit, --gpus)?";
    }
  } else if (!r.api.missing_symbols.empty() && r.api.init_result == -1) {
    r.state = HostState::driver_error;
    r.summary = lib + " is no CUDA driver: it lacks " + r.api.missing_symbols.front();
  } else if (r.api.init_result == 34 || is_stub_path(lib)) {
    r.state = HostState::stub_library;
    r.summary = "the CUDA toolkit's stub libcuda was loaded (" + lib +
                ", cuInit: " + result_text(r.api.init_result) +
                "): it links programs but runs nothing; take its stubs folder off LD_LIBRARY_PATH so the "
                "driver's libcuda.so.1 is found";
  } else if (r.api.init_result == 804) {
    r.state = HostState::compat_not_supported;
    r.summary = "a forward-compatibility libcuda (" + lib + ", CUDA " +
                host::cuda_version_string(r.api.driver_version) + ") on " +
                (r.kernel_driver.empty() ? std::string("a kernel driver") : "kernel driver " + r.kernel_driver) +
                " and a GPU that does not support forward compatibility (" + result_text(804) +
                "): remove the cuda-compat folder from the loader path";
  } else if (r.api.init_result == 100 || (r.api.init_result == 0 && r.api.count_result == 0 && r.api.device_count == 0)) {
    r.state = HostState::no_gpu;
    r.summary = "NVIDIA driver " + (!r.kernel_driver.empty()       ? r.kernel_driver
                                    : !r.nvml.driver_version.empty() ? r.nvml.driver_version
                                    : "for CUDA " + host::cuda_version_string(r.api.driver_version)) +
                " is installed but there is no GPU" +
                (r.api.init_result == 100 ? " (cuInit: " + result_text(100) + ")" : "") +
                " (CUDA_VISIBLE_DEVICES, a container without --gpus, or a GPU the driver does not support)";
  } else if (r.api.init_result != 0 || r.api.count_result != 0) {
    r.state = HostState::driver_error;
    int code = r.api.init_result != 0 ? r.api.init_result : r.api.count_result;
    r.summary = lib + " fails: " + std::string(r.api.init_result != 0 ? "cuInit" : "cuDeviceGetCount") + ": " +
                result_text(code);
  } else {
    r.state = HostState::ok;
    r.summary = std::to_string(r.api.device_count) + " GPU" + (r.api.device_count == 1 ? "" : "s") +
                ", driver " + (!r.kernel_driver.empty()       ? r.kernel_driver
                               : !r.nvml.driver_version.empty() ? r.nvml.driver_version + " (NVML; kernel module version unread)"
                                                                : std::string("(version unread)")) +
                " for CUDA " + host::cuda_version_string(r.api.driver_version);
  }
  for (const auto& d : r.api.devices) {
    Gpu g;
    g.sm = static_cast<unsigned>(d.cc_major * 10 + d.cc_minor);
    g.known = d.cc_major > 0 && arch::is_known_cc(g.sm);
    g.label = (d.name.empty() ? std::string("GPU") : d.name) + " (device " + std::to_string(d.ordinal) + ")";
    if (d.cc_major > 0) r.gpus.push_back(std::move(g));
  }

  if (r.libcuda_copies.size() > 1) {
    std::string list;
    for (const auto& [path, via] : r.libcuda_copies) list += (list.empty() ? "" : ", ") + path;
    r.notes.push_back("the loader can find " + std::to_string(r.libcuda_copies.size()) +
                      " different libcuda.so.1 files (" + list + "); the first on its search path wins" +
                      (r.api.loaded_path.empty() ? "" : " (" + r.api.loaded_path + " was loaded)"));
  }
  if (r.nvml.loaded && r.nvml.cuda_version_result == 0 && r.api.version_result == 0 &&
      r.api.driver_version > r.nvml.cuda_driver_version && r.nvml.cuda_driver_version > 0)
    r.notes.push_back("the loaded libcuda supports CUDA " + host::cuda_version_string(r.api.driver_version) +
                      ", the system driver CUDA " + host::cuda_version_string(r.nvml.cuda_driver_version) +
                      ": a forward-compatibility libcuda (cuda-compat)");
  if (!r.kernel_driver.empty() && r.nvml.loaded && r.nvml.init_result == 0 && !r.nvml.driver_version.empty() &&
      r.nvml.driver_version != r.kernel_driver)
    r.notes.push_back("NVML reports driver " + r.nvml.driver_version + ", the kernel module " + r.kernel_driver +
                      ": user-space driver libraries of another version than the kernel module");
  if (r.state == HostState::ok && r.nvml.loaded && r.nvml.count_result == 0 &&
      r.nvml.device_count != static_cast<unsigned>(r.api.device_count))
    r.notes.push_back("NVML sees " + std::to_string(r.nvml.device_count) + " GPUs, the driver API " +
                      std::to_string(r.api.device_count) + " (CUDA_VISIBLE_DEVICES or MIG)");
  return r;
}

}  // namespace cuwheel::probe
