// GPU check of cuwheel/host/driver.h: prints what the three driver queries
// report on this machine, one fact per line, so that a run on a GPU machine
// can be compared with nvidia-smi and /proc/driver/nvidia/version there.
// Built by scripts/gpu-check/build.sh against the host layer.
#include <cstdio>
#include <string>

#include "cuwheel/host/driver.h"

using namespace cuwheel::host;

int main(int argc, char** argv) {
  const std::string libcuda = argc > 1 ? argv[1] : "libcuda.so.1";
  auto kmd = read_kernel_driver_version();
  std::printf("kmd: %s\n", kmd ? kmd->c_str() : ("error: " + kmd.error().message()).c_str());

  DriverApiReport d = query_driver_api(libcuda);
  std::printf("umd.library: %s\n", d.library.c_str());
  std::printf("umd.loaded: %s\n", d.loaded ? "yes" : ("no: " + d.load_error).c_str());
  std::printf("umd.loaded_path: %s\n", d.loaded_path.c_str());
  for (const auto& s : d.missing_symbols) std::printf("umd.missing: %s\n", s.c_str());
  std::printf("umd.cuDriverGetVersion: %d -> %d (CUDA %s)\n", d.version_result, d.driver_version,
              cuda_version_string(d.driver_version).c_str());
  std::printf("umd.cuInit: %d %s\n", d.init_result, std::string(cuda_result_name(d.init_result)).c_str());
  std::printf("umd.cuDeviceGetCount: %d -> %d\n", d.count_result, d.device_count);
  for (const auto& g : d.devices)
    std::printf("umd.device %d: %s, compute capability %d.%d\n", g.ordinal, g.name.c_str(), g.cc_major, g.cc_minor);

  NvmlReport n = query_nvml();
  std::printf("nvml.loaded: %s\n", n.loaded ? "yes" : ("no: " + n.load_error).c_str());
  for (const auto& s : n.missing_symbols) std::printf("nvml.missing: %s\n", s.c_str());
  std::printf("nvml.nvmlInit_v2: %d\n", n.init_result);
  std::printf("nvml.driver_version: %s\n", n.driver_version.c_str());
  std::printf("nvml.cuda_driver_version: %d -> %d (CUDA %s)\n", n.cuda_version_result, n.cuda_driver_version,
              cuda_version_string(n.cuda_driver_version).c_str());
  std::printf("nvml.device_count: %d -> %u\n", n.count_result, n.device_count);
  for (const auto& g : n.devices)
    std::printf("nvml.device %u: %s, compute capability %d.%d, MIG %d (current %u, pending %u)\n", g.index,
                g.name.c_str(), g.cc_major, g.cc_minor, g.mig_result, g.mig_current, g.mig_pending);
  return d.loaded && d.init_result == 0 && !d.devices.empty() ? 0 : 1;
}
