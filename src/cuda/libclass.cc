// cuwheel: shared-library name classification. The tables are the module;
// the code only matches names against them. See include/cuwheel/cuda/libclass.h
// for the sources of each table and docs/library-classes.md for the tables
// in prose.
#include "cuwheel/cuda/libclass.h"

#include <array>
#include <cctype>

namespace cuwheel {
namespace {

using E = Evidence;

// ---------------------------------------------------------------------------
// Distributions (sections 4.1, 4.2, 7). Evidence covers the name and the
// folder; the extra that selects each one lives in kExtras below.
struct DistRow {
  std::string_view name;
  int major;
  std::string_view directory;
  Evidence evidence;
};

constexpr DistRow kDists[] = {
    // CUDA 12: "-cu12" names (section 4.1 [H]) in per-component folders
    // (section 4.2, descriptor_catalog.py).
    {"nvidia-cuda-runtime-cu12", 12, "nvidia/cuda_runtime/lib", E::documented},
    {"nvidia-cublas-cu12", 12, "nvidia/cublas/lib", E::documented},
    {"nvidia-cuda-nvrtc-cu12", 12, "nvidia/cuda_nvrtc/lib", E::documented},
    {"nvidia-nvjitlink-cu12", 12, "nvidia/nvjitlink/lib", E::documented},
    // Folder documented (4.2); the package name is not listed in 4.1.
    {"nvidia-nvfatbin-cu12", 12, "nvidia/nvfatbin/lib", E::inferred},
    // CUDA 12's libnvvm ships inside the nvcc package (4.2).
    {"nvidia-cuda-nvcc-cu12", 12, "nvidia/cuda_nvcc/nvvm/lib64", E::documented},
    {"nvidia-cufft-cu12", 12, "nvidia/cufft/lib", E::documented},
    {"nvidia-curand-cu12", 12, "nvidia/curand/lib", E::documented},
    {"nvidia-cusolver-cu12", 12, "nvidia/cusolver/lib", E::documented},
    {"nvidia-cusparse-cu12", 12, "nvidia/cusparse/lib", E::documented},
    {"nvidia-cuda-cupti-cu12", 12, "nvidia/cuda_cupti/lib", E::documented},
    {"nvidia-npp-cu12", 12, "nvidia/npp/lib", E::inferred},
    {"nvidia-nvjpeg-cu12", 12, "nvidia/nvjpeg/lib", E::inferred},
    {"nvidia-cufile-cu12", 12, "nvidia/cufile/lib", E::documented},
    {"nvidia-nvtx-cu12", 12, "nvidia/nvtx/lib", E::documented},
    {"nvidia-nccl-cu12", 12, "nvidia/nccl/lib", E::documented},
    {"nvidia-nvshmem-cu12", 12, "nvidia/nvshmem/lib", E::documented},
    // Older cuSPARSELt wheels used a top-level "cusparselt/lib" (4.2).
    {"nvidia-cusparselt-cu12", 12, "nvidia/cusparselt/lib", E::documented},
    {"nvidia-cudnn-cu12", 12, "nvidia/cudnn/lib", E::documented},
    {"nvidia-cuda-cccl-cu12", 12, "", E::inferred},

    // CUDA 13: toolkit components drop the suffix and share nvidia/cu13/lib
    // (section 7, observed); four non-toolkit libraries keep "-cu13" and
    // their own folders (section 7 wins over 4.2's "nvidia/cu13/lib or
    // nvidia/cusparselt/lib" for cuSPARSELt).
    {"nvidia-cuda-runtime", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-cublas", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-cuda-nvrtc", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-nvjitlink", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-nvfatbin", 13, "nvidia/cu13/lib", E::inferred},
    {"nvidia-nvvm", 13, "nvidia/cu13/lib", E::documented},
    {"nvidia-cufft", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-curand", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-cusolver", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-cusparse", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-cuda-cupti", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-npp", 13, "nvidia/cu13/lib", E::inferred},
    {"nvidia-nvjpeg", 13, "nvidia/cu13/lib", E::inferred},
    {"nvidia-cufile", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-nvtx", 13, "nvidia/cu13/lib", E::observed},
    {"nvidia-nccl-cu13", 13, "nvidia/nccl/lib", E::observed},
    {"nvidia-nvshmem-cu13", 13, "nvidia/nvshmem/lib", E::observed},
    {"nvidia-cusparselt-cu13", 13, "nvidia/cusparselt/lib", E::observed},
    {"nvidia-cudnn-cu13", 13, "nvidia/cudnn/lib", E::observed},
    // Header/tool packages without shared libraries (names: 4.1 [H] and 7).
    {"nvidia-cuda-nvcc", 13, "", E::documented},
    {"nvidia-cuda-crt", 13, "", E::documented},
    {"nvidia-cuda-cccl", 13, "", E::documented},
    {"nvidia-cuda-culibos", 13, "", E::documented},
    {"nvidia-nvml-dev", 13, "", E::observed},
    {"nvidia-cuda-profiler-api", 13, "", E::observed},
};

// Archived 0.0.1 "-cu13" placeholders of CUDA 13 toolkit components
// (section 4.1): pypi.org lists the first six explicitly; the rest follow
// the same rule ("The -cu13 names are archived 0.0.1 sdists").
struct StubRow {
  std::string_view name;
  std::string_view replacement;
  Evidence evidence;
};

constexpr StubRow kStubs[] = {
    {"nvidia-cuda-runtime-cu13", "nvidia-cuda-runtime", E::documented},
    {"nvidia-cuda-nvrtc-cu13", "nvidia-cuda-nvrtc", E::documented},
    {"nvidia-cuda-cupti-cu13", "nvidia-cuda-cupti", E::documented},
    {"nvidia-cuda-nvcc-cu13", "nvidia-cuda-nvcc", E::documented},
    {"nvidia-cuda-crt-cu13", "nvidia-cuda-crt", E::documented},
    {"nvidia-cuda-culibos-cu13", "nvidia-cuda-culibos", E::documented},
    {"nvidia-cublas-cu13", "nvidia-cublas", E::inferred},
    {"nvidia-nvjitlink-cu13", "nvidia-nvjitlink", E::inferred},
    {"nvidia-nvfatbin-cu13", "nvidia-nvfatbin", E::inferred},
    {"nvidia-nvvm-cu13", "nvidia-nvvm", E::inferred},
    {"nvidia-cufft-cu13", "nvidia-cufft", E::inferred},
    {"nvidia-curand-cu13", "nvidia-curand", E::inferred},
    {"nvidia-cusolver-cu13", "nvidia-cusolver", E::inferred},
    {"nvidia-cusparse-cu13", "nvidia-cusparse", E::inferred},
    {"nvidia-npp-cu13", "nvidia-npp", E::inferred},
    {"nvidia-nvjpeg-cu13", "nvidia-nvjpeg", E::inferred},
    {"nvidia-cufile-cu13", "nvidia-cufile", E::inferred},
    {"nvidia-nvtx-cu13", "nvidia-nvtx", E::inferred},
    {"nvidia-cuda-cccl-cu13", "nvidia-cuda-cccl", E::inferred},
};

// ---------------------------------------------------------------------------
// cuda-toolkit extras. CUDA 13: section 7 (13.0.2 metadata) names the
// target of the first thirteen; the rest are listed as extras only. CUDA 12:
// section 4.1 confirms the extra names and says 12.x extras map to the
// "-cu12" packages; those not on its confirmed list are inferred.
struct ExtraRow {
  std::string_view extra;
  int major;
  std::string_view distribution;  // empty: extra exists, target unrecorded
  Evidence evidence;
};

constexpr ExtraRow kExtras[] = {
    {"cudart", 12, "nvidia-cuda-runtime-cu12", E::documented},
    {"cublas", 12, "nvidia-cublas-cu12", E::documented},
    {"cufft", 12, "nvidia-cufft-cu12", E::documented},
    {"cufile", 12, "nvidia-cufile-cu12", E::documented},
    {"cupti", 12, "nvidia-cuda-cupti-cu12", E::documented},
    {"curand", 12, "nvidia-curand-cu12", E::documented},
    {"cusolver", 12, "nvidia-cusolver-cu12", E::documented},
    {"cusparse", 12, "nvidia-cusparse-cu12", E::documented},
    {"nvjitlink", 12, "nvidia-nvjitlink-cu12", E::documented},
    {"nvrtc", 12, "nvidia-cuda-nvrtc-cu12", E::documented},
    {"nvtx", 12, "nvidia-nvtx-cu12", E::documented},
    {"cccl", 12, "nvidia-cuda-cccl-cu12", E::inferred},
    {"nvcc", 12, "nvidia-cuda-nvcc-cu12", E::inferred},
    {"nvfatbin", 12, "nvidia-nvfatbin-cu12", E::inferred},
    {"npp", 12, "nvidia-npp-cu12", E::inferred},
    {"nvjpeg", 12, "nvidia-nvjpeg-cu12", E::inferred},
    {"all", 12, "", E::documented},

    {"cudart", 13, "nvidia-cuda-runtime", E::observed},
    {"cublas", 13, "nvidia-cublas", E::observed},
    {"cufft", 13, "nvidia-cufft", E::observed},
    {"cufile", 13, "nvidia-cufile", E::observed},
    {"cupti", 13, "nvidia-cuda-cupti", E::observed},
    {"curand", 13, "nvidia-curand", E::observed},
    {"cusolver", 13, "nvidia-cusolver", E::observed},
    {"cusparse", 13, "nvidia-cusparse", E::observed},
    {"nvjitlink", 13, "nvidia-nvjitlink", E::observed},
    {"nvrtc", 13, "nvidia-cuda-nvrtc", E::observed},
    {"nvtx", 13, "nvidia-nvtx", E::observed},
    {"nvml", 13, "nvidia-nvml-dev", E::observed},
    {"profiler", 13, "nvidia-cuda-profiler-api", E::observed},
    {"cccl", 13, "nvidia-cuda-cccl", E::inferred},
    {"crt", 13, "nvidia-cuda-crt", E::inferred},
    {"culibos", 13, "nvidia-cuda-culibos", E::inferred},
    {"nvcc", 13, "nvidia-cuda-nvcc", E::inferred},
    {"nvvm", 13, "nvidia-nvvm", E::inferred},
    {"nvfatbin", 13, "nvidia-nvfatbin", E::inferred},
    {"npp", 13, "nvidia-npp", E::inferred},
    {"nvjpeg", 13, "nvidia-nvjpeg", E::inferred},
    {"cuxxfilt", 13, "", E::observed},
    {"nvptxcompiler", 13, "", E::observed},
    {"opencl", 13, "", E::observed},
    {"sanitizer", 13, "", E::observed},
    {"all", 13, "", E::observed},
};

// ---------------------------------------------------------------------------
// Toolkit sonames per major (sections 4.2 and 7). Empty: the component has
// no such library in that major (or the fact base does not say). A '*' in
// the version stands for a minor that varies; a '*' at the end of the stem
// makes it a prefix. CUDA 11 columns only carry what section 4.2 lists.
struct ToolkitRow {
  std::string_view component;
  std::string_view cuda11;
  std::string_view cuda12;
  std::string_view cuda13;
  std::string_view dist12;
  std::string_view dist13;
  std::string_view note;
};

constexpr std::string_view kCupti12Note =
    "the CUDA 12 CUPTI wheel's copy of this library is inferred, not observed";
constexpr std::string_view kNvshmemNote =
    "plugin sonames observed in nvidia-nvshmem-cu13; the cu12 wheel is inferred";

constexpr ToolkitRow kToolkit[] = {
    {"cudart", "libcudart.so.11.0", "libcudart.so.12", "libcudart.so.13",
     "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime", ""},
    {"cublas", "libcublas.so.11", "libcublas.so.12", "libcublas.so.13",
     "nvidia-cublas-cu12", "nvidia-cublas", ""},
    {"cublasLt", "libcublasLt.so.11", "libcublasLt.so.12", "libcublasLt.so.13",
     "nvidia-cublas-cu12", "nvidia-cublas", ""},
    {"nvblas", "", "libnvblas.so.12", "libnvblas.so.13",
     "nvidia-cublas-cu12", "nvidia-cublas", ""},
    {"nvrtc", "libnvrtc.so.11.2", "libnvrtc.so.12", "libnvrtc.so.13",
     "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc", ""},
    {"nvrtc.alt", "", "", "libnvrtc.alt.so.13",
     "", "nvidia-cuda-nvrtc", ""},
    {"nvrtc-builtins", "", "libnvrtc-builtins.so.12.*", "libnvrtc-builtins.so.13.*",
     "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc",
     "the soname carries the toolkit minor (13.0 observed in nvidia-cuda-nvrtc 13.0.88)"},
    {"nvrtc-builtins.alt", "", "", "libnvrtc-builtins.alt.so.13.*",
     "", "nvidia-cuda-nvrtc", ""},
    {"nvJitLink", "", "libnvJitLink.so.12", "libnvJitLink.so.13",
     "nvidia-nvjitlink-cu12", "nvidia-nvjitlink", ""},
    {"nvfatbin", "", "libnvfatbin.so.12", "libnvfatbin.so.13",
     "nvidia-nvfatbin-cu12", "nvidia-nvfatbin",
     "the nvfatbin package names are inferred; the folders are documented"},
    {"nvvm", "", "libnvvm.so.4", "libnvvm.so.4",
     "nvidia-cuda-nvcc-cu12", "nvidia-nvvm",
     "the toolkit's NVVM; the driver's is libnvidia-nvvm.so.4"},
    {"cufft", "libcufft.so.10", "libcufft.so.11", "libcufft.so.12",
     "nvidia-cufft-cu12", "nvidia-cufft", ""},
    {"cufftw", "", "libcufftw.so.11", "libcufftw.so.12",
     "nvidia-cufft-cu12", "nvidia-cufft", ""},
    {"curand", "libcurand.so.10", "libcurand.so.10", "libcurand.so.10",
     "nvidia-curand-cu12", "nvidia-curand", ""},
    {"cusolver", "libcusolver.so.11", "libcusolver.so.11", "libcusolver.so.12",
     "nvidia-cusolver-cu12", "nvidia-cusolver", ""},
    {"cusolverMg", "", "libcusolverMg.so.11", "libcusolverMg.so.12",
     "nvidia-cusolver-cu12", "nvidia-cusolver", ""},
    {"cusparse", "libcusparse.so.11", "libcusparse.so.12", "libcusparse.so.12",
     "nvidia-cusparse-cu12", "nvidia-cusparse", ""},
    {"cupti", "", "libcupti.so.12", "libcupti.so.13",
     "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", ""},
    {"checkpoint", "", "libcheckpoint.so", "libcheckpoint.so",
     "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", kCupti12Note},
    {"nvperf_host", "", "libnvperf_host.so", "libnvperf_host.so",
     "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", kCupti12Note},
    {"nvperf_target", "", "libnvperf_target.so", "libnvperf_target.so",
     "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", kCupti12Note},
    {"pcsamplingutil", "", "libpcsamplingutil.so", "libpcsamplingutil.so",
     "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti", kCupti12Note},
    {"nppc", "", "libnppc.so.12", "libnppc.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppial", "", "libnppial.so.12", "libnppial.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppicc", "", "libnppicc.so.12", "libnppicc.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppidei", "", "libnppidei.so.12", "libnppidei.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppif", "", "libnppif.so.12", "libnppif.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppig", "", "libnppig.so.12", "libnppig.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppim", "", "libnppim.so.12", "libnppim.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppist", "", "libnppist.so.12", "libnppist.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppisu", "", "libnppisu.so.12", "libnppisu.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nppitc", "", "libnppitc.so.12", "libnppitc.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"npps", "", "libnpps.so.12", "libnpps.so.13", "nvidia-npp-cu12", "nvidia-npp", ""},
    {"nvjpeg", "", "libnvjpeg.so.12", "libnvjpeg.so.13",
     "nvidia-nvjpeg-cu12", "nvidia-nvjpeg", ""},
    {"cufile", "", "libcufile.so.0", "libcufile.so.0",
     "nvidia-cufile-cu12", "nvidia-cufile", ""},
    {"cufile_rdma", "", "libcufile_rdma.so.1", "libcufile_rdma.so.1",
     "nvidia-cufile-cu12", "nvidia-cufile", ""},
    {"nvToolsExt", "", "libnvToolsExt.so.1", "",
     "nvidia-nvtx-cu12", "",
     "NVTX v2; CUDA 13's nvidia-nvtx installs libnvtx3interop.so.1 instead"},
    {"nvtx3interop", "", "", "libnvtx3interop.so.1",
     "", "nvidia-nvtx",
     "observed in nvidia-nvtx 13.0.85; whether nvidia-nvtx-cu12 ships it is unknown"},
    {"nccl", "", "libnccl.so.2", "libnccl.so.2",
     "nvidia-nccl-cu12", "nvidia-nccl-cu13", ""},
    {"nvshmem_host", "", "libnvshmem_host.so.3", "libnvshmem_host.so.3",
     "nvidia-nvshmem-cu12", "nvidia-nvshmem-cu13", ""},
    {"nvshmem_bootstrap", "", "nvshmem_bootstrap_*.so.3", "nvshmem_bootstrap_*.so.3",
     "nvidia-nvshmem-cu12", "nvidia-nvshmem-cu13", kNvshmemNote},
    {"nvshmem_transport", "", "nvshmem_transport_*.so.3", "nvshmem_transport_*.so.3",
     "nvidia-nvshmem-cu12", "nvidia-nvshmem-cu13", kNvshmemNote},
    {"cusparseLt", "", "libcusparseLt.so.0", "libcusparseLt.so.0",
     "nvidia-cusparselt-cu12", "nvidia-cusparselt-cu13", ""},
    {"cudnn", "", "libcudnn.so.9", "libcudnn.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_adv", "", "libcudnn_adv.so.9", "libcudnn_adv.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_cnn", "", "libcudnn_cnn.so.9", "libcudnn_cnn.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_engines_precompiled", "", "libcudnn_engines_precompiled.so.9",
     "libcudnn_engines_precompiled.so.9", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_engines_runtime_compiled", "", "libcudnn_engines_runtime_compiled.so.9",
     "libcudnn_engines_runtime_compiled.so.9", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_graph", "", "libcudnn_graph.so.9", "libcudnn_graph.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_heuristic", "", "libcudnn_heuristic.so.9", "libcudnn_heuristic.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
    {"cudnn_ops", "", "libcudnn_ops.so.9", "libcudnn_ops.so.9",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", ""},
};

// ---------------------------------------------------------------------------
// Driver user-space libraries (section 5; libnvidia-container nvc_info.c,
// plus libnvcudla from cuda-pathfinder's descriptor_catalog.py). Matched by
// stem: any version suffix, or none, is the driver's.
struct DriverRow {
  std::string_view stem;
  std::string_view group;
};

constexpr DriverRow kDriver[] = {
    {"libnvidia-ml", "utility"},
    {"libnvidia-cfg", "utility"},
    {"libnvidia-nscq", "utility"},
    {"libcuda", "compute"},
    {"libcudadebugger", "compute"},
    {"libnvidia-opencl", "compute"},
    {"libnvidia-gpucomp", "compute"},
    {"libnvidia-ptxjitcompiler", "compute"},
    {"libnvidia-fatbinaryloader", "compute"},
    {"libnvidia-allocator", "compute"},
    {"libnvidia-compiler", "compute"},
    {"libnvidia-pkcs11", "compute"},
    {"libnvidia-pkcs11-openssl3", "compute"},
    {"libnvidia-nvvm", "compute"},
    {"libnvidia-tileiras", "compute"},
    {"libvdpau_nvidia", "video"},
    {"libnvidia-encode", "video"},
    {"libnvidia-opticalflow", "video"},
    {"libnvcuvid", "video"},
    {"libnvidia-eglcore", "graphics"},
    {"libnvidia-glcore", "graphics"},
    {"libnvidia-tls", "graphics"},
    {"libnvidia-glsi", "graphics"},
    {"libnvidia-fbc", "graphics"},
    {"libnvidia-ifr", "graphics"},
    {"libnvidia-rtcore", "graphics"},
    {"libnvoptix", "graphics"},
    {"libGLX_nvidia", "graphics"},
    {"libEGL_nvidia", "graphics"},
    {"libGLESv2_nvidia", "graphics"},
    {"libGLESv1_CM_nvidia", "graphics"},
    {"libnvidia-glvkspirv", "graphics"},
    {"libnvidia-cbl", "graphics"},
    {"libnvidia-ngx", "ngx"},
    {"libdxcore", "dxcore"},
    {"libnvcudla", "tegra"},
};

// ---------------------------------------------------------------------------
// System libraries: the union of every manylinux policy's lib_whitelist in
// auditwheel's manylinux-policy.json, plus libmvec (section 5). Matched on
// stem and first version number, so a real file name such as
// "libstdc++.so.6.0.33" counts too.
struct SystemRow {
  std::string_view soname;
  std::string_view group;
};

constexpr SystemRow kSystem[] = {
    {"libc.so.6", "glibc"},
    {"libm.so.6", "glibc"},
    {"libdl.so.2", "glibc"},
    {"libpthread.so.0", "glibc"},
    {"librt.so.1", "glibc"},
    {"libutil.so.1", "glibc"},
    {"libnsl.so.1", "glibc"},
    {"libresolv.so.2", "glibc"},
    {"libmvec.so.1", "glibc"},
    {"libstdc++.so.6", "compiler-runtime"},
    {"libgcc_s.so.1", "compiler-runtime"},
    {"libatomic.so.1", "compiler-runtime"},
    {"libGL.so.1", "graphics"},
    {"libX11.so.6", "graphics"},
    {"libXext.so.6", "graphics"},
    {"libXrender.so.1", "graphics"},
    {"libICE.so.6", "graphics"},
    {"libSM.so.6", "graphics"},
    {"libglib-2.0.so.0", "glib"},
    {"libgobject-2.0.so.0", "glib"},
    {"libgthread-2.0.so.0", "glib"},
    {"libz.so.1", "zlib"},
    {"libexpat.so.1", "expat"},
};

// ---------------------------------------------------------------------------
// Name parsing.

// "<stem>.so" then zero or more ".<group>" where a group is digits (or, in
// table patterns, "*"). `version` is what follows ".so." ("12.8.90"), empty
// when unversioned; `first` is its first group.
struct ParsedName {
  std::string_view stem;
  std::string_view version;
  std::string_view first;
};

bool valid_version(std::string_view v, bool allow_star) {
  if (v.empty()) return false;
  size_t start = 0;
  while (start <= v.size()) {
    size_t dot = v.find('.', start);
    std::string_view group = v.substr(start, dot == std::string_view::npos ? v.npos : dot - start);
    if (group.empty()) return false;
    bool ok = true;
    if (allow_star && group == "*") {
      ok = true;
    } else {
      for (char c : group) ok = ok && std::isdigit(static_cast<unsigned char>(c));
    }
    if (!ok) return false;
    if (dot == std::string_view::npos) break;
    start = dot + 1;
  }
  return true;
}

std::optional<ParsedName> parse_name(std::string_view name, bool allow_star) {
  size_t pos = 0;
  while ((pos = name.find(".so", pos)) != std::string_view::npos) {
    std::string_view rest = name.substr(pos + 3);
    if (pos > 0 && rest.empty()) return ParsedName{name.substr(0, pos), {}, {}};
    if (pos > 0 && rest.front() == '.' && valid_version(rest.substr(1), allow_star)) {
      std::string_view version = rest.substr(1);
      return ParsedName{name.substr(0, pos), version, version.substr(0, version.find('.'))};
    }
    pos += 3;
  }
  return std::nullopt;
}

bool stem_matches(std::string_view pattern, std::string_view stem) {
  if (!pattern.empty() && pattern.back() == '*') {
    std::string_view prefix = pattern.substr(0, pattern.size() - 1);
    return stem.size() > prefix.size() && stem.substr(0, prefix.size()) == prefix;
  }
  return pattern == stem;
}

// Whether `input` has the same version as the table pattern: both
// unversioned, or the same first group.
bool version_matches(const ParsedName& pattern, const ParsedName& input) {
  if (pattern.version.empty() || input.version.empty())
    return pattern.version.empty() && input.version.empty();
  return pattern.first == input.first;
}

std::string_view strip_lib(std::string_view stem) {
  return stem.substr(0, 3) == "lib" ? stem.substr(3) : stem;
}

const DistRow* find_dist(std::string_view name) {
  for (const DistRow& d : kDists)
    if (d.name == name) return &d;
  return nullptr;
}

std::string_view extra_for(std::string_view dist, int major) {
  for (const ExtraRow& e : kExtras)
    if (e.major == major && e.distribution == dist) return e.extra;
  return {};
}

std::optional<Provision> make_provision(int major, std::string_view soname,
                                        std::string_view dist) {
  if (soname.empty() || dist.empty()) return std::nullopt;
  const DistRow* d = find_dist(dist);
  if (d == nullptr) return std::nullopt;  // guarded by a unit test
  return Provision{major, soname, d->name, d->directory, extra_for(d->name, major), d->evidence};
}

std::vector<std::string_view> sonames_of(std::string_view dist, int major) {
  std::vector<std::string_view> out;
  for (const ToolkitRow& r : kToolkit) {
    if (major == 12 && r.dist12 == dist && !r.cuda12.empty()) out.push_back(r.cuda12);
    if (major == 13 && r.dist13 == dist && !r.cuda13.empty()) out.push_back(r.cuda13);
  }
  return out;
}

Distribution make_distribution(const DistRow& d) {
  return Distribution{d.name, d.major, d.directory, extra_for(d.name, d.major),
                      d.evidence, {}, sonames_of(d.name, d.major)};
}

}  // namespace

std::string_view to_string(LibraryKind kind) {
  switch (kind) {
    case LibraryKind::cuda_toolkit: return "cuda_toolkit";
    case LibraryKind::nvidia_driver: return "nvidia_driver";
    case LibraryKind::system: return "system";
    case LibraryKind::unknown: return "unknown";
  }
  return "unknown";
}

std::string_view to_string(Evidence evidence) {
  switch (evidence) {
    case Evidence::observed: return "observed";
    case Evidence::documented: return "documented";
    case Evidence::inferred: return "inferred";
  }
  return "inferred";
}

std::vector<int> CudaMajors::list() const {
  std::vector<int> out;
  for (int m = kFirst; m <= kLast; ++m)
    if (contains(m)) out.push_back(m);
  return out;
}

const Provision* LibraryClass::provision(int major) const {
  if (major == 12 && cuda12) return &*cuda12;
  if (major == 13 && cuda13) return &*cuda13;
  return nullptr;
}

std::optional<std::string> grafted_original(std::string_view name) {
  if (size_t slash = name.rfind('/'); slash != std::string_view::npos) name = name.substr(slash + 1);
  // <base>{-|.}<8 lowercase hex>.so[.<rest>]
  for (size_t i = 1; i + 12 <= name.size(); ++i) {
    if (name[i] != '-' && name[i] != '.') continue;
    std::string_view hash = name.substr(i + 1, 8);
    bool hex = true;
    for (char c : hash) hex = hex && ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'));
    if (!hex) continue;
    std::string_view rest = name.substr(i + 9);
    if (rest.substr(0, 3) != ".so" || (rest.size() > 3 && rest[3] != '.')) continue;
    std::string_view base = name.substr(0, i);
    // auditwheel splits at the first '.', so its base holds none.
    if (name[i] == '-' && base.find('.') != std::string_view::npos) continue;
    return std::string(base) + std::string(rest);
  }
  return std::nullopt;
}

namespace {
LibraryClass classify_plain(std::string_view soname);
}  // namespace

LibraryClass classify_soname(std::string_view soname) {
  if (size_t slash = soname.rfind('/'); slash != std::string_view::npos) soname = soname.substr(slash + 1);
  LibraryClass out = classify_plain(soname);
  if (out.kind != LibraryKind::unknown) return out;
  std::optional<std::string> original = grafted_original(soname);
  if (!original) return out;
  LibraryClass grafted = classify_plain(*original);
  if (grafted.kind == LibraryKind::unknown) return out;
  grafted.grafted = true;
  return grafted;
}

namespace {
LibraryClass classify_plain(std::string_view soname) {
  LibraryClass out;
  std::optional<ParsedName> name = parse_name(soname, /*allow_star=*/false);
  if (!name) {
    out.note = "not a shared-object name (<stem>.so[.<digits>...])";
    return out;
  }

  // 1. The driver: matched on the stem alone, whatever the version.
  for (const DriverRow& d : kDriver) {
    if (d.stem == name->stem) {
      out.kind = LibraryKind::nvidia_driver;
      out.form = SonameForm::exact;
      out.component = strip_lib(d.stem);
      out.group = d.group;
      return out;
    }
  }
  if (name->stem.substr(0, 10) == "libnvidia-" && name->stem.size() > 10) {
    out.kind = LibraryKind::nvidia_driver;
    out.form = SonameForm::exact;
    out.component = "nvidia-*";
    out.note = "not in nvc_info.c's lists; every libnvidia-* library belongs to the driver";
    return out;
  }

  // 2. Toolkit libraries: the stem names the component, the first version
  // number says which majors install that soname.
  for (const ToolkitRow& r : kToolkit) {
    const std::array<std::pair<int, std::string_view>, 3> cols = {
        {{11, r.cuda11}, {12, r.cuda12}, {13, r.cuda13}}};
    bool stem_hit = false;
    bool unversioned_row = false;
    for (const auto& [major, pattern_text] : cols) {
      if (pattern_text.empty()) continue;
      std::optional<ParsedName> pattern = parse_name(pattern_text, /*allow_star=*/true);
      if (!pattern || !stem_matches(pattern->stem, name->stem)) continue;
      stem_hit = true;
      unversioned_row = unversioned_row || pattern->version.empty();
      if (version_matches(*pattern, *name)) out.majors.insert(major);
    }
    if (!stem_hit) continue;
    out.kind = LibraryKind::cuda_toolkit;
    out.component = r.component;
    out.cuda12 = make_provision(12, r.cuda12, r.dist12);
    out.cuda13 = make_provision(13, r.cuda13, r.dist13);
    if (!out.majors.empty()) {
      out.form = SonameForm::exact;
      out.note = r.note;
    } else if (name->version.empty() && !unversioned_row) {
      out.form = SonameForm::unversioned;
      out.note = "development symlink name: the versioned soname pins the CUDA major";
    } else {
      out.form = SonameForm::other_version;
      out.note = "a version that no CUDA 11-13 library in the table uses";
    }
    return out;
  }

  // 3. System libraries and dynamic loaders.
  if (name->stem.substr(0, 8) == "ld-linux" || name->stem == "ld64") {
    out.kind = LibraryKind::system;
    out.form = SonameForm::exact;
    out.component = name->stem == "ld64" ? "ld64" : "ld-linux";
    out.group = "glibc";
    return out;
  }
  for (const SystemRow& s : kSystem) {
    std::optional<ParsedName> pattern = parse_name(s.soname, /*allow_star=*/false);
    if (pattern && pattern->stem == name->stem && !name->version.empty() &&
        version_matches(*pattern, *name)) {
      out.kind = LibraryKind::system;
      out.form = SonameForm::exact;
      out.component = strip_lib(pattern->stem);
      out.group = s.group;
      return out;
    }
  }
  return out;
}
}  // namespace

std::vector<Distribution> distributions_for_major(int major) {
  std::vector<Distribution> out;
  for (const DistRow& d : kDists)
    if (d.major == major) out.push_back(make_distribution(d));
  return out;
}

std::string normalize_distribution_name(std::string_view name) {
  std::string out;
  out.reserve(name.size());
  bool in_sep = false;
  for (char c : name) {
    if (c == '-' || c == '_' || c == '.') {
      if (!in_sep) out.push_back('-');
      in_sep = true;
      continue;
    }
    in_sep = false;
    out.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return out;
}

std::optional<Distribution> lookup_distribution(std::string_view name) {
  const std::string key = normalize_distribution_name(name);
  if (const DistRow* d = find_dist(key)) return make_distribution(*d);
  for (const StubRow& s : kStubs) {
    if (s.name == key) {
      Distribution out;
      out.name = s.name;
      out.cuda_major = 13;
      out.evidence = s.evidence;
      out.replacement = s.replacement;
      return out;
    }
  }
  return std::nullopt;
}

std::optional<ToolkitExtra> cuda_toolkit_extra(std::string_view extra, int major) {
  const std::string key = normalize_distribution_name(extra);
  for (const ExtraRow& e : kExtras)
    if (e.major == major && e.extra == key)
      return ToolkitExtra{e.extra, e.major, e.distribution, e.evidence};
  return std::nullopt;
}

}  // namespace cuwheel
