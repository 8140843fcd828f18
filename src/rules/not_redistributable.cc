// not-redistributable: a bundled NVIDIA file that the CUDA EULA's
// Attachment A ("redistributable software") does not list.
//
// Source: NVIDIA CUDA Toolkit EULA, Attachment A (docs.nvidia.com/cuda/eula,
// read for CUDA 12.x/13.0). Written from memory of that page, not from the
// project's fact base (cuda-facts.md has no redistribution table), so the
// table is medium confidence; docs/rules/not-redistributable.md says so.
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
    "cudart",                                   // CUDA Runtime
    "cublas", "cublasLt", "nvblas",             // CUDA BLAS, drop-in BLAS
    "cufft", "cufftw",                          // CUDA FFT
    "curand",                                   // CUDA Random Number Generation
    "cusolver", "cusolverMg",                   // CUDA Linear Solver
    "cusparse",                                 // CUDA Sparse Matrix
    "nppc", "nppial", "nppicc", "nppidei", "nppif", "nppig", "nppim", "nppist", "nppisu", "nppitc",
    "npps",                                     // NVIDIA Performance Primitives
    "nvjpeg",                                   // NVIDIA JPEG
    "nvrtc", "nvrtc-builtins",                  // NVIDIA Runtime Compilation
    "nvrtc.alt", "nvrtc-builtins.alt",          //   (13.0 variants; assumed same row)
    "nvJitLink",                                // nvJitLink
    "nvfatbin",                                 // nvFatbin
    "nvvm",                                     // NVIDIA Optimizing Compiler Library
    "cupti", "checkpoint", "nvperf_host", "nvperf_target", "pcsamplingutil",  // CUPTI
    "nvToolsExt", "nvtx3interop",               // NVIDIA Tools Extension
    "cufile", "cufile_rdma",                    // cuFile (GPUDirect Storage)
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
    if (ctx.model.kind != CheckModel::Kind::wheel) {
      if (!lib.owner.empty() && (lookup_distribution(lib.owner) || normalize_distribution_name(lib.owner).rfind("nvidia-", 0) == 0)) continue;
      check_name(lib.member, base_name(lib.member), "file name");
    }
    if (lib.load.soname) check_name(lib.member, *lib.load.soname, "DT_SONAME");
  }
}

}  // namespace cuwheel::check::rule_impl
