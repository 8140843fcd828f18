// nvrtcc: a minimal CUDA C++ -> cubin compiler on top of NVRTC.
//
// NVIDIA publishes no CUDA 12 nvcc on PyPI (nvidia-cuda-nvcc-cu12 ships
// ptxas, libnvvm, libdevice and the crt headers, but neither the nvcc driver
// nor cicc), while nvidia-cuda-nvrtc-cu12 ships libnvrtc.so.12, which
// compiles CUDA C++ to a cubin in-process. This is the CUDA 12 device
// compiler of the example. The nvrtc wheel has no nvrtc.h, so the few
// entry points used are declared here as the NVRTC API documents them
// (docs.nvidia.com/cuda/nvrtc, "NVRTC API"; the ABI is stable within 12.x).
//
// Usage: nvrtcc -arch sm_XX -o OUT.cubin IN.cu
#include <cstddef>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

extern "C" {
typedef int nvrtcResult;  // enum nvrtcResult, NVRTC_SUCCESS = 0
typedef struct _nvrtcProgram* nvrtcProgram;
const char* nvrtcGetErrorString(nvrtcResult result);
nvrtcResult nvrtcVersion(int* major, int* minor);
nvrtcResult nvrtcCreateProgram(nvrtcProgram* prog, const char* src, const char* name, int numHeaders,
                               const char* const* headers, const char* const* includeNames);
nvrtcResult nvrtcDestroyProgram(nvrtcProgram* prog);
nvrtcResult nvrtcCompileProgram(nvrtcProgram prog, int numOptions, const char* const* options);
nvrtcResult nvrtcGetProgramLogSize(nvrtcProgram prog, size_t* logSizeRet);
nvrtcResult nvrtcGetProgramLog(nvrtcProgram prog, char* log);
nvrtcResult nvrtcGetCUBINSize(nvrtcProgram prog, size_t* cubinSizeRet);
nvrtcResult nvrtcGetCUBIN(nvrtcProgram prog, char* cubin);
}

int main(int argc, char** argv) {
  std::string arch, out, in;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-arch" && i + 1 < argc) arch = argv[++i];
    else if (a == "-o" && i + 1 < argc) out = argv[++i];
    else if (a == "--version") {
      int major = 0, minor = 0;
      nvrtcVersion(&major, &minor);
      std::printf("nvrtcc: NVRTC %d.%d\n", major, minor);
      return 0;
    } else in = a;
  }
  if (arch.compare(0, 3, "sm_") != 0 || out.empty() || in.empty()) {
    std::fprintf(stderr, "usage: nvrtcc -arch sm_XX -o OUT.cubin IN.cu\n");
    return 2;
  }
  std::ifstream f(in, std::ios::binary);
  if (!f) {
    std::fprintf(stderr, "nvrtcc: cannot open %s\n", in.c_str());
    return 2;
  }
  std::stringstream src;
  src << f.rdbuf();
  std::string name = in.substr(in.find_last_of('/') + 1);
  nvrtcProgram prog;
  nvrtcResult r = nvrtcCreateProgram(&prog, src.str().c_str(), name.c_str(), 0, nullptr, nullptr);
  if (r != 0) {
    std::fprintf(stderr, "nvrtcc: %s: %s\n", in.c_str(), nvrtcGetErrorString(r));
    return 1;
  }
  std::string gpu = "--gpu-architecture=" + arch;  // sm_XX: NVRTC emits a cubin
  const char* opts[] = {gpu.c_str(), "-std=c++17"};
  r = nvrtcCompileProgram(prog, 2, opts);
  size_t log_size = 0;
  nvrtcGetProgramLogSize(prog, &log_size);
  if (log_size > 1) {
    std::vector<char> log(log_size);
    nvrtcGetProgramLog(prog, log.data());
    std::fprintf(stderr, "%s", log.data());
  }
  if (r != 0) {
    std::fprintf(stderr, "nvrtcc: %s: %s\n", in.c_str(), nvrtcGetErrorString(r));
    nvrtcDestroyProgram(&prog);
    return 1;
  }
  size_t size = 0;
  nvrtcGetCUBINSize(prog, &size);
  std::vector<char> cubin(size);
  nvrtcGetCUBIN(prog, cubin.data());
  nvrtcDestroyProgram(&prog);
  std::string tmp = out + ".tmp";
  std::ofstream o(tmp, std::ios::binary);
  o.write(cubin.data(), static_cast<std::streamsize>(size));
  o.close();
  if (!o || std::rename(tmp.c_str(), out.c_str()) != 0) {
    std::fprintf(stderr, "nvrtcc: cannot write %s\n", out.c_str());
    std::remove(tmp.c_str());
    return 1;
  }
  return 0;
}
