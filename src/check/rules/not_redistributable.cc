// not-redistributable: a bundled NVIDIA file that the CUDA EULA's
// Attachment A ("redistributable software") does not list.
//
// Source: NVIDIA CUDA Toolkit EULA (docs.nvidia.com/cuda/eula), section 2.6
// "Attachment A", as last updated January 26, 2026, checked row by row for
// Linux. It lets applications redistribute the files it lists "including
// certain variations of these files that have version number or
// architecture specific information embedded in the file name"
// (libcudart.so.13 is libcudart.so). It does not list libnvfatbin,
// libcusolverMg, the `.alt` NVRTC variants, or CUPTI's companions
// (libcheckpoint, libnvperf_host, libnvperf_target, libpcsamplingutil): only
// libcupti.so. The copy of the EULA inside NVIDIA's own wheels
// (License.txt, "Release Date: July 26, 2018") is an older text with a
// shorter list (no nvJitLink, NVTX3 interop or cuFile) and is not used.
// Libraries of cuDNN, NCCL, NVSHMEM and cuSPARSELt come under their own
// licences and are not judged here; driver libraries are
// bundled-driver-library's (CW201).
#include <set>
#include <string_view>

#include "loading_util.h"
#include "rules.h"

namespace cuwheel::check::rule_impl {

namespace {

// libclass components (LibraryClass::component) that Attachment A lists as
// redistributable runtime libraries.
constexpr std::string_view kRedistributable[] = {
    "cudart",                                   // CUDA Runtime: libcudart.so
    "cublas", "cublasLt",                       // CUDA BLAS: libcublas.so, libcublasLt.so
    "nvblas",                                   // "Drop-in" BLAS: libnvblas.so
    "cufft", "cufftw",                          // CUDA FFT: libcufft.so, libcufftw.so
    "curand",                                   // CUDA Random Number Generation: libcurand.so
    "cusolver",                                 // CUDA Linear Solver: libcusolver.so (not libcusolverMg)
    "cusparse",                                 // CUDA Sparse Matrix: libcusparse.so
    "nppc", "nppial", "nppicc", "nppicom", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc",
    "npps",                                     // NVIDIA Performance Primitives: libnpp*.so
    "nvjpeg",                                   // NVIDIA JPEG: libnvjpeg.so
    "nvrtc", "nvrtc-builtins",                  // Runtime Compilation: libnvrtc.so, libnvrtc-builtins.so
    "nvvm",                                     // Optimizing Compiler Library: libnvvm.so
    "nvJitLink",                                // libnvJitLink.so
    "cupti",                                    // CUPTI: libcupti.so
    "nvToolsExt", "nvtx3interop",               // Tools Extension: libnvToolsExt.so, libnvtx3interop.so
    "cufile", "cufile_rdma",                    // libcufile.so, libcufile_rdma.so
    "cuobjclient", "cuobjserver",               // libcuobjclient.so, libcuobjserver.so
};

// Components under their own licences (cuDNN, NCCL, NVSHMEM, cuSPARSELt).
bool own_licence(std::string_view component) {
  for (std::string_view p : {"cudnn", "nccl", "nvshmem", "cusparseLt"})
    if (component.substr(0, p.size()) == p) return true;
  return false;
}

// CUDA toolkit tools: executables that Attachment A does not list.
constexpr std::string_view kTools[] = {
    "nvcc", "cicc", "ptxas", "nvlink", "fatbinary", "cudafe++", "bin2c", "nvprune", "cuobjdump", "nvdisasm",
    "cu++filt", "cuda-gdb", "cuda-gdbserver", "compute-sanitizer", "nvprof", "ncu", "nsys", "tileiras",
};

bool redistributable(std::string_view component) {
  for (auto r : kRedistributable)
    if (r == component) return true;
  return false;
}

std::string tool_name(const std::string& base) {
  std::string b = base;
  if (b.size() > 4 && b.compare(b.size() - 4, 4, ".exe") == 0) b.resize(b.size() - 4);
  for (auto t : kTools)
    if (b == t) return b;
  return "";
}

}  // namespace

void not_redistributable(const Context& ctx, Emitter& out) {
  std::string self = loading::wheel_name(ctx.model);
  // NVIDIA's own wheels redistribute under their own terms.
  if (lookup_distribution(self) || self.rfind("nvidia-", 0) == 0) return;
  std::set<std::string> done;
  auto check_name = [&](const std::string& member, const std::string& name, const std::string& how) {
    if (done.count(member)) return;
    auto c = classify_soname(name);
    if (c.kind == LibraryKind::cuda_toolkit) {
      if (redistributable(c.component) || own_licence(c.component)) return;
      done.insert(member);
      out.emit(member, how,
               name + " (CUDA component " + std::string(c.component) +
                   ") is not on the CUDA EULA's list of redistributable files",
               "do not ship it; depend on the NVIDIA pip package that provides it");
      return;
    }
    std::string tool = tool_name(base_name(name));
    if (!tool.empty()) {
      done.insert(member);
      out.emit(member, how,
               tool + " is a CUDA toolkit tool; the CUDA EULA lets applications redistribute runtime libraries, "
                      "not the compiler and binary tools",
               "remove it from the wheel; users get it from nvidia-cuda-nvcc or a CUDA toolkit install");
    }
  };
  for (const auto& m : ctx.model.members) check_name(m.name, base_name(m.name), "file name");
  for (const auto& lib : ctx.model.libraries) {
    if (!loading::loadable(lib)) continue;
    if (!ctx.model.is_distribution()) {
      if (!lib.owner.empty() && (lookup_distribution(lib.owner) || normalize_distribution_name(lib.owner).rfind("nvidia-", 0) == 0)) continue;
      check_name(lib.member, base_name(lib.member), "file name");
    }
    if (lib.load.soname) check_name(lib.member, *lib.load.soname, "DT_SONAME");
  }
}

}  // namespace cuwheel::check::rule_impl
