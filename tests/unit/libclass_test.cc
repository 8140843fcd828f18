// Unit tests for the soname classifier and its reverse lookups. Every row of
// the tables is restated here from cuda-facts.md (sections 4, 5, 7) rather
// than read back from the implementation, so a changed row fails a test.
#include "cuwheel/cuda/libclass.h"

#include <gtest/gtest.h>

#include <ostream>

#include <cctype>
#include <set>
#include <tuple>
#include <string>
#include <vector>

namespace cuwheel {
namespace {

std::vector<int> majors_of(std::string_view soname) {
  return classify_soname(soname).majors.list();
}

// --- Toolkit libraries, both majors -----------------------------------------

struct ToolkitCase {
  const char* component;
  const char* soname12;  // "" when CUDA 12 has none
  const char* soname13;  // "" when CUDA 13 has none
  const char* dist12;
  const char* dist13;
  const char* dir12;
  const char* dir13;
  const char* extra12;
  const char* extra13;
};

const ToolkitCase kToolkitCases[] = {
    {"cudart", "libcudart.so.12", "libcudart.so.13", "nvidia-cuda-runtime-cu12",
     "nvidia-cuda-runtime", "nvidia/cuda_runtime/lib", "nvidia/cu13/lib", "cudart", "cudart"},
    {"cublas", "libcublas.so.12", "libcublas.so.13", "nvidia-cublas-cu12", "nvidia-cublas",
     "nvidia/cublas/lib", "nvidia/cu13/lib", "cublas", "cublas"},
    {"cublasLt", "libcublasLt.so.12", "libcublasLt.so.13", "nvidia-cublas-cu12", "nvidia-cublas",
     "nvidia/cublas/lib", "nvidia/cu13/lib", "cublas", "cublas"},
    {"nvblas", "libnvblas.so.12", "libnvblas.so.13", "nvidia-cublas-cu12", "nvidia-cublas",
     "nvidia/cublas/lib", "nvidia/cu13/lib", "cublas", "cublas"},
    {"nvrtc", "libnvrtc.so.12", "libnvrtc.so.13", "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc",
     "nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib", "nvrtc", "nvrtc"},
    {"nvrtc.alt", "", "libnvrtc.alt.so.13", "", "nvidia-cuda-nvrtc", "", "nvidia/cu13/lib", "",
     "nvrtc"},
    {"nvrtc-builtins", "libnvrtc-builtins.so.12.8", "libnvrtc-builtins.so.13.0",
     "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc", "nvidia/cuda_nvrtc/lib", "nvidia/cu13/lib",
     "nvrtc", "nvrtc"},
    {"nvrtc-builtins.alt", "", "libnvrtc-builtins.alt.so.13.0", "", "nvidia-cuda-nvrtc", "",
     "nvidia/cu13/lib", "", "nvrtc"},
    {"nvJitLink", "libnvJitLink.so.12", "libnvJitLink.so.13", "nvidia-nvjitlink-cu12",
     "nvidia-nvjitlink", "nvidia/nvjitlink/lib", "nvidia/cu13/lib", "nvjitlink", "nvjitlink"},
    {"nvfatbin", "libnvfatbin.so.12", "libnvfatbin.so.13", "nvidia-nvfatbin-cu12",
     "nvidia-nvfatbin", "nvidia/nvfatbin/lib", "nvidia/cu13/lib", "nvfatbin", "nvfatbin"},
    {"cufft", "libcufft.so.11", "libcufft.so.12", "nvidia-cufft-cu12", "nvidia-cufft",
     "nvidia/cufft/lib", "nvidia/cu13/lib", "cufft", "cufft"},
    {"cufftw", "libcufftw.so.11", "libcufftw.so.12", "nvidia-cufft-cu12", "nvidia-cufft",
     "nvidia/cufft/lib", "nvidia/cu13/lib", "cufft", "cufft"},
    {"cusolver", "libcusolver.so.11", "libcusolver.so.12", "nvidia-cusolver-cu12",
     "nvidia-cusolver", "nvidia/cusolver/lib", "nvidia/cu13/lib", "cusolver", "cusolver"},
    {"cusolverMg", "libcusolverMg.so.11", "libcusolverMg.so.12", "nvidia-cusolver-cu12",
     "nvidia-cusolver", "nvidia/cusolver/lib", "nvidia/cu13/lib", "cusolver", "cusolver"},
    {"cupti", "libcupti.so.12", "libcupti.so.13", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti",
     "nvidia/cuda_cupti/lib", "nvidia/cu13/lib", "cupti", "cupti"},
    {"nppc", "libnppc.so.12", "libnppc.so.13", "nvidia-npp-cu12", "nvidia-npp", "nvidia/npp/lib",
     "nvidia/cu13/lib", "npp", "npp"},
    {"nppial", "libnppial.so.12", "libnppial.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppicc", "libnppicc.so.12", "libnppicc.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppidei", "libnppidei.so.12", "libnppidei.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppif", "libnppif.so.12", "libnppif.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppig", "libnppig.so.12", "libnppig.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppim", "libnppim.so.12", "libnppim.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppist", "libnppist.so.12", "libnppist.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppisu", "libnppisu.so.12", "libnppisu.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"nppitc", "libnppitc.so.12", "libnppitc.so.13", "nvidia-npp-cu12", "nvidia-npp",
     "nvidia/npp/lib", "nvidia/cu13/lib", "npp", "npp"},
    {"npps", "libnpps.so.12", "libnpps.so.13", "nvidia-npp-cu12", "nvidia-npp", "nvidia/npp/lib",
     "nvidia/cu13/lib", "npp", "npp"},
    {"nvjpeg", "libnvjpeg.so.12", "libnvjpeg.so.13", "nvidia-nvjpeg-cu12", "nvidia-nvjpeg",
     "nvidia/nvjpeg/lib", "nvidia/cu13/lib", "nvjpeg", "nvjpeg"},
    {"nvToolsExt", "libnvToolsExt.so.1", "", "nvidia-nvtx-cu12", "", "nvidia/nvtx/lib", "",
     "nvtx", ""},
    {"nvtx3interop", "", "libnvtx3interop.so.1", "", "nvidia-nvtx", "", "nvidia/cu13/lib", "",
     "nvtx"},
};

// Readable parameter names in test listings and failures (gtest otherwise
// prints the structs as raw bytes).
void PrintTo(const ToolkitCase& t, std::ostream* os) {
  *os << t.component << " (" << (*t.soname12 ? t.soname12 : "-") << ", " << (*t.soname13 ? t.soname13 : "-") << ")";
}

class LibClassToolkit : public ::testing::TestWithParam<ToolkitCase> {};

void expect_provision(const LibraryClass& c, int major, const char* soname, const char* dist,
                      const char* dir, const char* extra) {
  const Provision* p = c.provision(major);
  if (*dist == '\0') {
    EXPECT_EQ(p, nullptr) << "CUDA " << major;
    return;
  }
  ASSERT_NE(p, nullptr) << "CUDA " << major;
  EXPECT_EQ(p->cuda_major, major);
  // A pattern soname ("libnvrtc-builtins.so.12.*") matches any minor.
  std::string_view want = soname;
  if (p->soname.ends_with(".*")) {
    std::string_view prefix = p->soname.substr(0, p->soname.size() - 1);
    EXPECT_TRUE(want.starts_with(prefix)) << p->soname << " vs " << want;
  } else {
    EXPECT_EQ(p->soname, want) << "CUDA " << major;
  }
  EXPECT_EQ(p->distribution, dist);
  EXPECT_EQ(p->directory, dir);
  EXPECT_EQ(p->toolkit_extra, extra);
}

TEST_P(LibClassToolkit, EachMajorPinsItsOwnMajorAndProvider) {
  const ToolkitCase& t = GetParam();
  for (int major : {12, 13}) {
    const char* soname = major == 12 ? t.soname12 : t.soname13;
    if (*soname == '\0') continue;
    SCOPED_TRACE(soname);
    LibraryClass c = classify_soname(soname);
    EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit);
    EXPECT_EQ(c.form, SonameForm::exact);
    EXPECT_EQ(c.component, t.component);
    // Pins this major against the other one (libcusolver.so.11 is also
    // CUDA 11's soname; PerMajorSonameTable checks the exact sets).
    EXPECT_TRUE(c.majors.contains(major));
    EXPECT_FALSE(c.majors.contains(major == 12 ? 13 : 12));
    expect_provision(c, 12, t.soname12, t.dist12, t.dir12, t.extra12);
    expect_provision(c, 13, t.soname13, t.dist13, t.dir13, t.extra13);
  }
}

INSTANTIATE_TEST_SUITE_P(LibClassRows, LibClassToolkit, ::testing::ValuesIn(kToolkitCases),
                         [](const auto& info) {
                           std::string n = info.param.component;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

// Sonames that both majors install: the name cannot pin the major.
struct SharedCase {
  const char* soname;
  const char* component;
  const char* dist12;
  const char* dist13;
  const char* dir12;
  const char* dir13;
};

const SharedCase kSharedCases[] = {
    {"libnvvm.so.4", "nvvm", "nvidia-cuda-nvcc-cu12", "nvidia-nvvm",
     "nvidia/cuda_nvcc/nvvm/lib64", "nvidia/cu13/lib"},
    {"libcusparse.so.12", "cusparse", "nvidia-cusparse-cu12", "nvidia-cusparse",
     "nvidia/cusparse/lib", "nvidia/cu13/lib"},
    {"libcufile.so.0", "cufile", "nvidia-cufile-cu12", "nvidia-cufile", "nvidia/cufile/lib",
     "nvidia/cu13/lib"},
    {"libcufile_rdma.so.1", "cufile_rdma", "nvidia-cufile-cu12", "nvidia-cufile",
     "nvidia/cufile/lib", "nvidia/cu13/lib"},
    {"libcheckpoint.so", "checkpoint", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti",
     "nvidia/cuda_cupti/lib", "nvidia/cu13/lib"},
    {"libnvperf_host.so", "nvperf_host", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti",
     "nvidia/cuda_cupti/lib", "nvidia/cu13/lib"},
    {"libnvperf_target.so", "nvperf_target", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti",
     "nvidia/cuda_cupti/lib", "nvidia/cu13/lib"},
    {"libpcsamplingutil.so", "pcsamplingutil", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti",
     "nvidia/cuda_cupti/lib", "nvidia/cu13/lib"},
    {"libnccl.so.2", "nccl", "nvidia-nccl-cu12", "nvidia-nccl-cu13", "nvidia/nccl/lib",
     "nvidia/nccl/lib"},
    {"libnvshmem_host.so.3", "nvshmem_host", "nvidia-nvshmem-cu12", "nvidia-nvshmem-cu13",
     "nvidia/nvshmem/lib", "nvidia/nvshmem/lib"},
    {"nvshmem_bootstrap_uid.so.3", "nvshmem_bootstrap", "nvidia-nvshmem-cu12",
     "nvidia-nvshmem-cu13", "nvidia/nvshmem/lib", "nvidia/nvshmem/lib"},
    {"nvshmem_transport_ibrc.so.3", "nvshmem_transport", "nvidia-nvshmem-cu12",
     "nvidia-nvshmem-cu13", "nvidia/nvshmem/lib", "nvidia/nvshmem/lib"},
    {"libcusparseLt.so.0", "cusparseLt", "nvidia-cusparselt-cu12", "nvidia-cusparselt-cu13",
     "nvidia/cusparselt/lib", "nvidia/cusparselt/lib"},
    {"libcudnn.so.9", "cudnn", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia/cudnn/lib",
     "nvidia/cudnn/lib"},
    {"libcudnn_adv.so.9", "cudnn_adv", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
     "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_cnn.so.9", "cudnn_cnn", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
     "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_engines_precompiled.so.9", "cudnn_engines_precompiled", "nvidia-cudnn-cu12",
     "nvidia-cudnn-cu13", "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_engines_runtime_compiled.so.9", "cudnn_engines_runtime_compiled",
     "nvidia-cudnn-cu12", "nvidia-cudnn-cu13", "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_graph.so.9", "cudnn_graph", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
     "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_heuristic.so.9", "cudnn_heuristic", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
     "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
    {"libcudnn_ops.so.9", "cudnn_ops", "nvidia-cudnn-cu12", "nvidia-cudnn-cu13",
     "nvidia/cudnn/lib", "nvidia/cudnn/lib"},
};

void PrintTo(const SharedCase& t, std::ostream* os) { *os << t.soname << " (" << t.component << ")"; }

class LibClassShared : public ::testing::TestWithParam<SharedCase> {};

TEST_P(LibClassShared, AmbiguousBetween12And13) {
  const SharedCase& t = GetParam();
  LibraryClass c = classify_soname(t.soname);
  EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit);
  EXPECT_EQ(c.form, SonameForm::exact);
  EXPECT_EQ(c.component, t.component);
  EXPECT_EQ(c.majors.list(), (std::vector<int>{12, 13}));
  EXPECT_TRUE(c.ambiguous());
  EXPECT_EQ(c.major(), std::nullopt);
  ASSERT_NE(c.provision(12), nullptr);
  ASSERT_NE(c.provision(13), nullptr);
  EXPECT_EQ(c.provision(12)->distribution, t.dist12);
  EXPECT_EQ(c.provision(13)->distribution, t.dist13);
  EXPECT_EQ(c.provision(12)->directory, t.dir12);
  EXPECT_EQ(c.provision(13)->directory, t.dir13);
}

INSTANTIATE_TEST_SUITE_P(LibClassRows, LibClassShared, ::testing::ValuesIn(kSharedCases),
                         [](const auto& info) {
                           std::string n = info.param.soname;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(LibClassToolkitMajors, PerMajorSonameTable) {
  // Section 4.2's bold rows and section 7.
  EXPECT_EQ(majors_of("libcudart.so.12"), (std::vector<int>{12}));
  EXPECT_EQ(majors_of("libcudart.so.13"), (std::vector<int>{13}));
  EXPECT_EQ(majors_of("libcufft.so.11"), (std::vector<int>{12}));
  EXPECT_EQ(majors_of("libcufft.so.12"), (std::vector<int>{13}));
  EXPECT_EQ(majors_of("libcusparse.so.12"), (std::vector<int>{12, 13}));
  // CUDA 11 shared some sonames with later majors (section 4.2, [M]).
  EXPECT_EQ(majors_of("libcurand.so.10"), (std::vector<int>{11, 12, 13}));
  EXPECT_EQ(majors_of("libcusolver.so.11"), (std::vector<int>{11, 12}));
  EXPECT_EQ(majors_of("libcufft.so.10"), (std::vector<int>{11}));
  EXPECT_EQ(majors_of("libcudart.so.11.0"), (std::vector<int>{11}));
  EXPECT_EQ(majors_of("libnvrtc.so.11.2"), (std::vector<int>{11}));
  EXPECT_EQ(majors_of("libcublasLt.so.11"), (std::vector<int>{11}));
  EXPECT_EQ(majors_of("libcusparse.so.11"), (std::vector<int>{11}));
}

TEST(LibClassToolkitMajors, CurandIsAmbiguousWithBothProviders) {
  LibraryClass c = classify_soname("libcurand.so.10");
  EXPECT_EQ(c.component, "curand");
  EXPECT_TRUE(c.ambiguous());
  ASSERT_NE(c.provision(12), nullptr);
  ASSERT_NE(c.provision(13), nullptr);
  EXPECT_EQ(c.provision(12)->distribution, "nvidia-curand-cu12");
  EXPECT_EQ(c.provision(12)->directory, "nvidia/curand/lib");
  EXPECT_EQ(c.provision(13)->distribution, "nvidia-curand");
  EXPECT_EQ(c.provision(13)->directory, "nvidia/cu13/lib");
  EXPECT_EQ(c.provision(13)->toolkit_extra, "curand");
  EXPECT_EQ(c.provision(13)->evidence, Evidence::observed);
}

TEST(LibClassToolkitMajors, ProvisionGivesTheOtherMajorsSoname) {
  LibraryClass c = classify_soname("libcufft.so.12");
  ASSERT_NE(c.provision(12), nullptr);
  EXPECT_EQ(c.provision(12)->soname, "libcufft.so.11");
  EXPECT_EQ(c.provision(13)->soname, "libcufft.so.12");
}

TEST(LibClassToolkitMajors, RealFileNamesMatchLikeTheirSoname) {
  EXPECT_EQ(majors_of("libcudart.so.12.8.90"), (std::vector<int>{12}));
  EXPECT_EQ(majors_of("libcublasLt.so.13.1.0.3"), (std::vector<int>{13}));
  LibraryClass c = classify_soname("nvidia/cu13/lib/libnvJitLink.so.13");
  EXPECT_EQ(c.component, "nvJitLink");
  EXPECT_EQ(c.major(), 13);
}

// --- Near misses of toolkit names -------------------------------------------

TEST(LibClassNearMiss, UnversionedDevSymlinkIsToolkitWithoutMajor) {
  LibraryClass c = classify_soname("libcudart.so");
  EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit);
  EXPECT_EQ(c.form, SonameForm::unversioned);
  EXPECT_EQ(c.component, "cudart");
  EXPECT_TRUE(c.majors.empty());
  EXPECT_EQ(c.major(), std::nullopt);
  ASSERT_NE(c.provision(12), nullptr);
  EXPECT_EQ(c.provision(12)->soname, "libcudart.so.12");
  ASSERT_NE(c.provision(13), nullptr);
  EXPECT_EQ(c.provision(13)->soname, "libcudart.so.13");
  EXPECT_FALSE(c.note.empty());
}

TEST(LibClassNearMiss, StaticArchiveIsNotASharedObject) {
  for (const char* name : {"libcudart_static.a", "libcudart.a", "libculibos.a", "cudart64_13.dll",
                           "libcudart.so.12.bak", "libcudart.so.x", "", ".so", "libcudart"}) {
    SCOPED_TRACE(name);
    LibraryClass c = classify_soname(name);
    EXPECT_EQ(c.kind, LibraryKind::unknown);
    EXPECT_EQ(c.form, SonameForm::none);
    EXPECT_TRUE(c.component.empty());
  }
}

TEST(LibClassNearMiss, UnusedVersionIsOtherVersion) {
  for (const char* name : {"libcudart.so.14", "libcudnn.so.8", "libnccl.so.3", "libcupti.so.11.8",
                           "libcheckpoint.so.1"}) {
    SCOPED_TRACE(name);
    LibraryClass c = classify_soname(name);
    EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit);
    EXPECT_EQ(c.form, SonameForm::other_version);
    EXPECT_TRUE(c.majors.empty());
  }
}

TEST(LibClassNearMiss, SimilarStemsAreDifferentLibraries) {
  EXPECT_EQ(classify_soname("libcuda_wrapper.so").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libcudart_wrapper.so.12").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libcublas_ext.so.12").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libCUDART.so.12").kind, LibraryKind::unknown);  // case-sensitive
  EXPECT_EQ(classify_soname("nvshmem_bootstrap_.so.3").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libnvrtc.alt.so.13").component, "nvrtc.alt");
  EXPECT_EQ(classify_soname("libnvrtc-builtins.so.13.0").component, "nvrtc-builtins");
}

TEST(LibClassNearMiss, NvvmToolkitVersusDriver) {
  LibraryClass toolkit = classify_soname("libnvvm.so.4");
  EXPECT_EQ(toolkit.kind, LibraryKind::cuda_toolkit);
  EXPECT_EQ(toolkit.component, "nvvm");
  LibraryClass driver = classify_soname("libnvidia-nvvm.so.4");
  EXPECT_EQ(driver.kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(driver.component, "nvidia-nvvm");
  EXPECT_EQ(driver.group, "compute");
  EXPECT_EQ(classify_soname("libnvidia-nvvm.so.580.95.05").kind, LibraryKind::nvidia_driver);
}

TEST(LibClassNearMiss, NvtxGenerations) {
  LibraryClass v2 = classify_soname("libnvToolsExt.so.1");
  EXPECT_EQ(v2.major(), 12);
  EXPECT_EQ(v2.provision(13), nullptr);
  LibraryClass v3 = classify_soname("libnvtx3interop.so.1");
  EXPECT_EQ(v3.major(), 13);
  EXPECT_EQ(v3.provision(12), nullptr);
}

// --- Driver -----------------------------------------------------------------

struct DriverCase {
  const char* stem;
  const char* group;
};

const DriverCase kDriverCases[] = {
    {"libnvidia-ml", "utility"},         {"libnvidia-cfg", "utility"},
    {"libnvidia-nscq", "utility"},       {"libcuda", "compute"},
    {"libcudadebugger", "compute"},      {"libnvidia-opencl", "compute"},
    {"libnvidia-gpucomp", "compute"},    {"libnvidia-ptxjitcompiler", "compute"},
    {"libnvidia-fatbinaryloader", "compute"}, {"libnvidia-allocator", "compute"},
    {"libnvidia-compiler", "compute"},   {"libnvidia-pkcs11", "compute"},
    {"libnvidia-pkcs11-openssl3", "compute"}, {"libnvidia-nvvm", "compute"},
    {"libnvidia-tileiras", "compute"},   {"libvdpau_nvidia", "video"},
    {"libnvidia-encode", "video"},       {"libnvidia-opticalflow", "video"},
    {"libnvcuvid", "video"},             {"libnvidia-eglcore", "graphics"},
    {"libnvidia-glcore", "graphics"},    {"libnvidia-tls", "graphics"},
    {"libnvidia-glsi", "graphics"},      {"libnvidia-fbc", "graphics"},
    {"libnvidia-ifr", "graphics"},       {"libnvidia-rtcore", "graphics"},
    {"libnvoptix", "graphics"},          {"libGLX_nvidia", "graphics"},
    {"libEGL_nvidia", "graphics"},       {"libGLESv2_nvidia", "graphics"},
    {"libGLESv1_CM_nvidia", "graphics"}, {"libnvidia-glvkspirv", "graphics"},
    {"libnvidia-cbl", "graphics"},       {"libnvidia-ngx", "ngx"},
    {"libdxcore", "dxcore"},             {"libnvcudla", "tegra"},
};

void PrintTo(const DriverCase& t, std::ostream* os) { *os << t.stem << " (" << t.group << ")"; }

class LibClassDriver : public ::testing::TestWithParam<DriverCase> {};

TEST_P(LibClassDriver, AnyVersionSuffixIsTheDriver) {
  const DriverCase& t = GetParam();
  const std::string stem = t.stem;
  for (const std::string& name :
       {stem + ".so", stem + ".so.1", stem + ".so.0", stem + ".so.4", stem + ".so.570.86.10",
        stem + ".so.580.95.05", "/usr/lib/x86_64-linux-gnu/" + stem + ".so.1"}) {
    SCOPED_TRACE(name);
    LibraryClass c = classify_soname(name);
    EXPECT_EQ(c.kind, LibraryKind::nvidia_driver);
    EXPECT_EQ(c.form, SonameForm::exact);
    EXPECT_EQ(c.group, t.group);
    EXPECT_EQ(c.component, stem.substr(3));
    EXPECT_TRUE(c.majors.empty());
    EXPECT_EQ(c.provision(12), nullptr);
    EXPECT_EQ(c.provision(13), nullptr);
  }
}

INSTANTIATE_TEST_SUITE_P(LibClassRows, LibClassDriver, ::testing::ValuesIn(kDriverCases),
                         [](const auto& info) {
                           std::string n = info.param.stem;
                           for (char& ch : n)
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           return n;
                         });

TEST(LibClassDriverNames, FieldReportSonames) {
  // Field report 1: the 71 MB libcuda.so.570.x copied into a wheel.
  EXPECT_EQ(classify_soname("libcuda.so.570.86.10").kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(classify_soname("libcuda.so.1").kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(classify_soname("libcuda.so").kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(classify_soname("libnvidia-ml.so.1").kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(classify_soname("libnvidia-ptxjitcompiler.so.1").kind, LibraryKind::nvidia_driver);
}

TEST(LibClassDriverNames, UnlistedLibnvidiaIsStillTheDriver) {
  LibraryClass c = classify_soname("libnvidia-gtk3.so.570.86.10");
  EXPECT_EQ(c.kind, LibraryKind::nvidia_driver);
  EXPECT_EQ(c.component, "nvidia-*");
  EXPECT_FALSE(c.note.empty());
  EXPECT_EQ(classify_soname("libnvidia-.so.1").kind, LibraryKind::unknown);
}

// --- System -----------------------------------------------------------------

TEST(LibClassSystem, ManylinuxWhitelistAndLoaders) {
  const std::vector<std::pair<const char*, const char*>> cases = {
      {"libc.so.6", "glibc"},          {"libm.so.6", "glibc"},
      {"libdl.so.2", "glibc"},         {"libpthread.so.0", "glibc"},
      {"librt.so.1", "glibc"},         {"libutil.so.1", "glibc"},
      {"libnsl.so.1", "glibc"},        {"libresolv.so.2", "glibc"},
      {"libmvec.so.1", "glibc"},       {"libstdc++.so.6", "compiler-runtime"},
      {"libgcc_s.so.1", "compiler-runtime"}, {"libatomic.so.1", "compiler-runtime"},
      {"libGL.so.1", "graphics"},      {"libX11.so.6", "graphics"},
      {"libXext.so.6", "graphics"},    {"libXrender.so.1", "graphics"},
      {"libICE.so.6", "graphics"},     {"libSM.so.6", "graphics"},
      {"libglib-2.0.so.0", "glib"},    {"libgobject-2.0.so.0", "glib"},
      {"libgthread-2.0.so.0", "glib"}, {"libz.so.1", "zlib"},
      {"libexpat.so.1", "expat"},      {"ld-linux-x86-64.so.2", "glibc"},
      {"ld-linux-aarch64.so.1", "glibc"}, {"ld-linux.so.2", "glibc"},
      {"ld64.so.2", "glibc"},          {"libstdc++.so.6.0.33", "compiler-runtime"},
  };
  for (const auto& [name, group] : cases) {
    SCOPED_TRACE(name);
    LibraryClass c = classify_soname(name);
    EXPECT_EQ(c.kind, LibraryKind::system);
    EXPECT_EQ(c.group, group);
    EXPECT_FALSE(c.component.empty());
    EXPECT_TRUE(c.majors.empty());
  }
  EXPECT_EQ(classify_soname("libstdc++.so.6").component, "stdc++");
  EXPECT_EQ(classify_soname("ld-linux-x86-64.so.2").component, "ld-linux");
}

TEST(LibClassSystem, OtherVersionsOfSystemLibsAreNotWhitelisted) {
  EXPECT_EQ(classify_soname("libc.so").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libz.so.2").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libstdc++.so.5").kind, LibraryKind::unknown);
  EXPECT_EQ(classify_soname("libGLX.so.0").kind, LibraryKind::unknown);
}

TEST(LibClassUnknown, OrdinaryLibraries) {
  for (const char* name : {"libfoo.so.1", "libfoo.so", "libtorch_cuda.so", "libssl.so.3",
                           "libgomp.so.1", "libOpenCL.so.1"}) {
    SCOPED_TRACE(name);
    LibraryClass c = classify_soname(name);
    EXPECT_EQ(c.kind, LibraryKind::unknown);
    EXPECT_EQ(c.form, SonameForm::none);
    EXPECT_TRUE(c.component.empty());
    EXPECT_EQ(c.provision(12), nullptr);
  }
}

TEST(LibClassStrings, EnumNames) {
  EXPECT_EQ(to_string(LibraryKind::cuda_toolkit), "cuda_toolkit");
  EXPECT_EQ(to_string(LibraryKind::nvidia_driver), "nvidia_driver");
  EXPECT_EQ(to_string(LibraryKind::system), "system");
  EXPECT_EQ(to_string(LibraryKind::unknown), "unknown");
  EXPECT_EQ(to_string(Evidence::observed), "observed");
  EXPECT_EQ(to_string(Evidence::documented), "documented");
  EXPECT_EQ(to_string(Evidence::inferred), "inferred");
}

// --- Reverse lookups ----------------------------------------------------------

TEST(LibClassDistributions, Cuda13MatchesTheObservedEnvironment) {
  // Section 7: which package installs which library, and where.
  struct Row {
    const char* name;
    const char* dir;
    std::vector<std::string_view> sonames;
  };
  const std::vector<Row> rows = {
      {"nvidia-cuda-runtime", "nvidia/cu13/lib", {"libcudart.so.13"}},
      {"nvidia-cublas", "nvidia/cu13/lib", {"libcublas.so.13", "libcublasLt.so.13", "libnvblas.so.13"}},
      {"nvidia-cuda-nvrtc",
       "nvidia/cu13/lib",
       {"libnvrtc.so.13", "libnvrtc.alt.so.13", "libnvrtc-builtins.so.13.*",
        "libnvrtc-builtins.alt.so.13.*"}},
      {"nvidia-nvjitlink", "nvidia/cu13/lib", {"libnvJitLink.so.13"}},
      {"nvidia-cufft", "nvidia/cu13/lib", {"libcufft.so.12", "libcufftw.so.12"}},
      {"nvidia-curand", "nvidia/cu13/lib", {"libcurand.so.10"}},
      {"nvidia-cusolver", "nvidia/cu13/lib", {"libcusolver.so.12", "libcusolverMg.so.12"}},
      {"nvidia-cusparse", "nvidia/cu13/lib", {"libcusparse.so.12"}},
      {"nvidia-cufile", "nvidia/cu13/lib", {"libcufile.so.0", "libcufile_rdma.so.1"}},
      {"nvidia-cuda-cupti",
       "nvidia/cu13/lib",
       {"libcupti.so.13", "libcheckpoint.so", "libnvperf_host.so", "libnvperf_target.so",
        "libpcsamplingutil.so"}},
      {"nvidia-nvtx", "nvidia/cu13/lib", {"libnvtx3interop.so.1"}},
      {"nvidia-cudnn-cu13",
       "nvidia/cudnn/lib",
       {"libcudnn.so.9", "libcudnn_adv.so.9", "libcudnn_cnn.so.9",
        "libcudnn_engines_precompiled.so.9", "libcudnn_engines_runtime_compiled.so.9",
        "libcudnn_graph.so.9", "libcudnn_heuristic.so.9", "libcudnn_ops.so.9"}},
      {"nvidia-nccl-cu13", "nvidia/nccl/lib", {"libnccl.so.2"}},
      {"nvidia-nvshmem-cu13",
       "nvidia/nvshmem/lib",
       {"libnvshmem_host.so.3", "nvshmem_bootstrap_*.so.3", "nvshmem_transport_*.so.3"}},
      {"nvidia-cusparselt-cu13", "nvidia/cusparselt/lib", {"libcusparseLt.so.0"}},
  };
  for (const Row& r : rows) {
    SCOPED_TRACE(r.name);
    std::optional<Distribution> d = lookup_distribution(r.name);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->cuda_major, 13);
    EXPECT_EQ(d->directory, r.dir);
    EXPECT_EQ(d->evidence, Evidence::observed);
    EXPECT_FALSE(d->deprecated());
    EXPECT_EQ(std::set<std::string_view>(d->sonames.begin(), d->sonames.end()),
              std::set<std::string_view>(r.sonames.begin(), r.sonames.end()));
  }
}

TEST(LibClassDistributions, WholeTablePerMajor) {
  std::vector<Distribution> d12 = distributions_for_major(12);
  std::vector<Distribution> d13 = distributions_for_major(13);
  EXPECT_GE(d12.size(), 19u);
  EXPECT_GE(d13.size(), 20u);
  EXPECT_TRUE(distributions_for_major(11).empty());
  EXPECT_TRUE(distributions_for_major(14).empty());
  std::set<std::string_view> names;
  for (const Distribution& d : d12) {
    EXPECT_EQ(d.cuda_major, 12);
    EXPECT_TRUE(d.name.ends_with("-cu12")) << d.name;
    EXPECT_FALSE(d.deprecated());
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate " << d.name;
    if (!d.directory.empty()) {
      EXPECT_TRUE(d.directory.starts_with("nvidia/")) << d.name;
    }
  }
  for (const Distribution& d : d13) {
    EXPECT_EQ(d.cuda_major, 13);
    EXPECT_FALSE(d.name.ends_with("-cu12")) << d.name;
    EXPECT_FALSE(d.deprecated());
    EXPECT_TRUE(names.insert(d.name).second) << "duplicate " << d.name;
    // Only the four non-toolkit libraries keep a -cu13 name and own folder.
    if (d.name.ends_with("-cu13")) {
      EXPECT_NE(d.directory, "nvidia/cu13/lib") << d.name;
      EXPECT_TRUE(d.toolkit_extra.empty()) << d.name;
    } else if (!d.directory.empty()) {
      EXPECT_EQ(d.directory, "nvidia/cu13/lib") << d.name;
    }
  }
  // Every distribution with a folder provides at least one soname and every
  // soname it lists classifies back to it.
  for (const auto* table : {&d12, &d13}) {
    for (const Distribution& d : *table) {
      SCOPED_TRACE(d.name);
      EXPECT_EQ(d.directory.empty(), d.sonames.empty());
      for (std::string_view s : d.sonames) {
        std::string concrete(s);
        for (size_t star; (star = concrete.find('*')) != std::string::npos;)
          concrete.replace(star, 1, concrete[star - 1] == '.' ? "0" : "x");
        LibraryClass c = classify_soname(concrete);
        EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit) << concrete;
        EXPECT_TRUE(c.majors.contains(d.cuda_major)) << concrete;
        ASSERT_NE(c.provision(d.cuda_major), nullptr) << concrete;
        EXPECT_EQ(c.provision(d.cuda_major)->distribution, d.name) << concrete;
      }
    }
  }
}

TEST(LibClassDistributions, Cuda12Folders) {
  const std::vector<std::pair<const char*, const char*>> rows = {
      {"nvidia-cuda-runtime-cu12", "nvidia/cuda_runtime/lib"},
      {"nvidia-cublas-cu12", "nvidia/cublas/lib"},
      {"nvidia-cuda-nvrtc-cu12", "nvidia/cuda_nvrtc/lib"},
      {"nvidia-nvjitlink-cu12", "nvidia/nvjitlink/lib"},
      {"nvidia-cuda-nvcc-cu12", "nvidia/cuda_nvcc/nvvm/lib64"},
      {"nvidia-cufft-cu12", "nvidia/cufft/lib"},
      {"nvidia-curand-cu12", "nvidia/curand/lib"},
      {"nvidia-cusolver-cu12", "nvidia/cusolver/lib"},
      {"nvidia-cusparse-cu12", "nvidia/cusparse/lib"},
      {"nvidia-cuda-cupti-cu12", "nvidia/cuda_cupti/lib"},
      {"nvidia-cufile-cu12", "nvidia/cufile/lib"},
      {"nvidia-nvtx-cu12", "nvidia/nvtx/lib"},
      {"nvidia-nccl-cu12", "nvidia/nccl/lib"},
      {"nvidia-nvshmem-cu12", "nvidia/nvshmem/lib"},
      {"nvidia-cusparselt-cu12", "nvidia/cusparselt/lib"},
      {"nvidia-cudnn-cu12", "nvidia/cudnn/lib"},
  };
  for (const auto& [name, dir] : rows) {
    SCOPED_TRACE(name);
    std::optional<Distribution> d = lookup_distribution(name);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->cuda_major, 12);
    EXPECT_EQ(d->directory, dir);
    EXPECT_EQ(d->evidence, Evidence::documented);
  }
  EXPECT_EQ(lookup_distribution("nvidia-nvfatbin-cu12")->evidence, Evidence::inferred);
}

TEST(LibClassDistributions, NamesArePep503Normalized) {
  for (const char* spelling : {"nvidia-cuda-runtime-cu12", "NVIDIA_CUDA_RUNTIME_CU12",
                               "nvidia.cuda_runtime--cu12", "Nvidia-Cuda-Runtime-Cu12"}) {
    SCOPED_TRACE(spelling);
    std::optional<Distribution> d = lookup_distribution(spelling);
    ASSERT_TRUE(d.has_value());
    EXPECT_EQ(d->name, "nvidia-cuda-runtime-cu12");
    EXPECT_EQ(d->sonames, (std::vector<std::string_view>{"libcudart.so.12"}));
    EXPECT_EQ(d->toolkit_extra, "cudart");
  }
  EXPECT_EQ(normalize_distribution_name("A__b.-C"), "a-b-c");
  EXPECT_FALSE(lookup_distribution("nvidia-cuda-runtime-cu11").has_value());
  EXPECT_FALSE(lookup_distribution("torch").has_value());
  EXPECT_FALSE(lookup_distribution("").has_value());
}

TEST(LibClassDistributions, DeprecatedCu13Placeholders) {
  const std::vector<std::pair<const char*, const char*>> documented = {
      {"nvidia-cuda-runtime-cu13", "nvidia-cuda-runtime"},
      {"nvidia-cuda-nvrtc-cu13", "nvidia-cuda-nvrtc"},
      {"nvidia-cuda-cupti-cu13", "nvidia-cuda-cupti"},
      {"nvidia-cuda-nvcc-cu13", "nvidia-cuda-nvcc"},
      {"nvidia-cuda-crt-cu13", "nvidia-cuda-crt"},
      {"nvidia-cuda-culibos-cu13", "nvidia-cuda-culibos"},
  };
  for (const auto& [stub, replacement] : documented) {
    SCOPED_TRACE(stub);
    std::optional<Distribution> d = lookup_distribution(stub);
    ASSERT_TRUE(d.has_value());
    EXPECT_TRUE(d->deprecated());
    EXPECT_EQ(d->replacement, replacement);
    EXPECT_EQ(d->cuda_major, 13);
    EXPECT_EQ(d->evidence, Evidence::documented);
    EXPECT_TRUE(d->sonames.empty());
    EXPECT_TRUE(d->directory.empty());
    EXPECT_TRUE(lookup_distribution(replacement).has_value());
  }
  std::optional<Distribution> cublas = lookup_distribution("NVIDIA_CUBLAS_CU13");
  ASSERT_TRUE(cublas.has_value());
  EXPECT_TRUE(cublas->deprecated());
  EXPECT_EQ(cublas->replacement, "nvidia-cublas");
  EXPECT_EQ(cublas->evidence, Evidence::inferred);
  // The non-toolkit libraries' -cu13 names are real, current packages.
  for (const char* real : {"nvidia-cudnn-cu13", "nvidia-nccl-cu13", "nvidia-nvshmem-cu13",
                           "nvidia-cusparselt-cu13"}) {
    SCOPED_TRACE(real);
    std::optional<Distribution> d = lookup_distribution(real);
    ASSERT_TRUE(d.has_value());
    EXPECT_FALSE(d->deprecated());
    EXPECT_TRUE(d->toolkit_extra.empty());
  }
}

TEST(LibClassExtras, TorchCu130ExtrasResolve) {
  // torch 2.11.0's cuda-toolkit[...] (section 7) and cu128's (section 4.1).
  const std::vector<std::tuple<const char*, const char*, const char*>> rows = {
      {"cublas", "nvidia-cublas-cu12", "nvidia-cublas"},
      {"cudart", "nvidia-cuda-runtime-cu12", "nvidia-cuda-runtime"},
      {"cufft", "nvidia-cufft-cu12", "nvidia-cufft"},
      {"cufile", "nvidia-cufile-cu12", "nvidia-cufile"},
      {"cupti", "nvidia-cuda-cupti-cu12", "nvidia-cuda-cupti"},
      {"curand", "nvidia-curand-cu12", "nvidia-curand"},
      {"cusolver", "nvidia-cusolver-cu12", "nvidia-cusolver"},
      {"cusparse", "nvidia-cusparse-cu12", "nvidia-cusparse"},
      {"nvjitlink", "nvidia-nvjitlink-cu12", "nvidia-nvjitlink"},
      {"nvrtc", "nvidia-cuda-nvrtc-cu12", "nvidia-cuda-nvrtc"},
      {"nvtx", "nvidia-nvtx-cu12", "nvidia-nvtx"},
  };
  for (const auto& [extra, d12, d13] : rows) {
    SCOPED_TRACE(extra);
    std::optional<ToolkitExtra> e12 = cuda_toolkit_extra(extra, 12);
    std::optional<ToolkitExtra> e13 = cuda_toolkit_extra(extra, 13);
    ASSERT_TRUE(e12.has_value());
    ASSERT_TRUE(e13.has_value());
    EXPECT_EQ(e12->distribution, d12);
    EXPECT_EQ(e13->distribution, d13);
    EXPECT_EQ(e13->evidence, Evidence::observed);
    EXPECT_EQ(e12->cuda_major, 12);
    // The target is in the distribution table with this extra.
    EXPECT_EQ(lookup_distribution(d12)->toolkit_extra, extra);
    EXPECT_EQ(lookup_distribution(d13)->toolkit_extra, extra);
  }
}

TEST(LibClassExtras, OtherExtras) {
  EXPECT_EQ(cuda_toolkit_extra("nvml", 13)->distribution, "nvidia-nvml-dev");
  EXPECT_EQ(cuda_toolkit_extra("profiler", 13)->distribution, "nvidia-cuda-profiler-api");
  EXPECT_EQ(cuda_toolkit_extra("nvvm", 13)->distribution, "nvidia-nvvm");
  EXPECT_EQ(cuda_toolkit_extra("nvvm", 13)->evidence, Evidence::inferred);
  // Known to exist, target not recorded.
  for (const char* extra : {"cuxxfilt", "nvptxcompiler", "opencl", "sanitizer", "all"}) {
    SCOPED_TRACE(extra);
    std::optional<ToolkitExtra> e = cuda_toolkit_extra(extra, 13);
    ASSERT_TRUE(e.has_value());
    EXPECT_TRUE(e->distribution.empty());
  }
  EXPECT_EQ(cuda_toolkit_extra("CUDART", 13)->distribution, "nvidia-cuda-runtime");
  EXPECT_FALSE(cuda_toolkit_extra("cudnn", 13).has_value());
  EXPECT_FALSE(cuda_toolkit_extra("nccl", 12).has_value());
  EXPECT_FALSE(cuda_toolkit_extra("cudart", 11).has_value());
  EXPECT_FALSE(cuda_toolkit_extra("bogus", 13).has_value());
  // Every named target exists in the distribution table for that major.
  for (int major : {12, 13}) {
    for (const Distribution& d : distributions_for_major(major)) {
      if (d.toolkit_extra.empty()) continue;
      std::optional<ToolkitExtra> e = cuda_toolkit_extra(d.toolkit_extra, major);
      ASSERT_TRUE(e.has_value()) << d.name;
      EXPECT_EQ(e->distribution, d.name);
    }
  }
}


// Grafted copies (auditwheel repair's `<base>-<8 hex>.<ext>`, torchvision's
// `<base>.<8 hex>.so...`) are classified as the library they copy.
TEST(LibClassGrafted, OriginalNameFromBothForms) {
  EXPECT_EQ(grafted_original("libcudart-53d54daa.so.12.6.68").value_or("?"), "libcudart.so.12.6.68");
  EXPECT_EQ(grafted_original("libcudart.3eda8113.so.13").value_or("?"), "libcudart.so.13");
  EXPECT_EQ(grafted_original("torchvision.libs/libnvjpeg.f00ca762.so.13").value_or("?"), "libnvjpeg.so.13");
  EXPECT_EQ(grafted_original("libnvrtc-builtins-0123abcd.so.12.6").value_or("?"), "libnvrtc-builtins.so.12.6");
  EXPECT_EQ(grafted_original("libgomp-a34b3233.so.1").value_or("?"), "libgomp.so.1");
  EXPECT_EQ(grafted_original("libfoo-53d54daa.so").value_or("?"), "libfoo.so");
}

TEST(LibClassGrafted, NearMissesAreNotGrafts) {
  EXPECT_FALSE(grafted_original("libcudart.so.12"));
  EXPECT_FALSE(grafted_original("libcudart-53D54DAA.so.12"));   // upper-case hex
  EXPECT_FALSE(grafted_original("libcudart-53d54da.so.12"));    // 7 digits
  EXPECT_FALSE(grafted_original("libcudart-53d54daab.so.12"));  // 9 digits
  EXPECT_FALSE(grafted_original("libcudart-53d54daa.sox"));
  EXPECT_FALSE(grafted_original("libcudart-53d54gaa.so.12"));   // not hex
  EXPECT_FALSE(grafted_original("-53d54daa.so.12"));            // no base
  EXPECT_FALSE(grafted_original(""));
}

TEST(LibClassGrafted, GraftedCudartIsStillTheRuntime) {
  LibraryClass c = classify_soname("libcudart-53d54daa.so.12.6.68");
  EXPECT_EQ(c.kind, LibraryKind::cuda_toolkit);
  EXPECT_EQ(c.component, "cudart");
  EXPECT_TRUE(c.grafted);
  EXPECT_EQ(c.major().value_or(0), 12);
  LibraryClass t = classify_soname("libcudart.3eda8113.so.13");
  EXPECT_EQ(t.kind, LibraryKind::cuda_toolkit);
  EXPECT_EQ(t.major().value_or(0), 13);
  // The plain name is not marked, and a graft of an unknown library stays unknown.
  EXPECT_FALSE(classify_soname("libcudart.so.13").grafted);
  EXPECT_EQ(classify_soname("libver-1a2b3c4d.so.1").kind, LibraryKind::unknown);
  // A grafted driver library is still the driver (never bundled).
  EXPECT_EQ(classify_soname("libcuda-0123abcd.so.1").kind, LibraryKind::nvidia_driver);
  // A grafted system library is classified as its original.
  EXPECT_EQ(classify_soname("libgomp-a34b3233.so.1").kind, classify_soname("libgomp.so.1").kind);
}

}  // namespace
}  // namespace cuwheel
