// `cuwheel probe`'s prediction (include/cuwheel/probe/probe.h), the product
// table (cuwheel/cuda/gpus.h) and the host report (cuwheel/probe/host.h),
// against the cases of cuda-facts.md section 1 and the field reports the
// probe issue names.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/gpus.h"
#include "cuwheel/probe/host.h"
#include "cuwheel/probe/probe.h"
#include "temp_dir.h"

using namespace cuwheel;
using namespace cuwheel::probe;

namespace {

arch::Arch A(const char* s) { return *arch::Arch::parse(s); }

// An image from "sm_75 sm_80 compute_75:8.3" (PTX with its ISA after ':').
Image img(std::initializer_list<const char*> codes) {
  Image i;
  for (const char* c : codes) {
    std::string s = c;
    if (s.rfind("compute_", 0) == 0) {
      size_t colon = s.find(':');
      std::string isa = colon == std::string::npos ? "9.0" : s.substr(colon + 1);
      i.ptx.push_back({A(s.substr(0, colon).c_str()), isa});
    } else {
      i.sass.push_back(A(c));
    }
  }
  i.kernels = 1;
  return i;
}

Gpu G(const char* text) {
  auto g = parse_gpu(text);
  EXPECT_TRUE(g) << text << ": " << (g ? "" : g.error().message());
  return *g;
}

DriverLimit D(const char* text) {
  auto d = parse_driver(text);
  EXPECT_TRUE(d) << text << ": " << (d ? "" : d.error().message());
  return *d;
}

Verdict V(const Image& i, const char* gpu, std::optional<DriverLimit> d = std::nullopt) {
  return judge_image(i, G(gpu), d).verdict;
}

}  // namespace

// --- the field cases of the issue ------------------------------------------

TEST(ProbeField, OldGpuNewWheel) {
  // A GTX 1080 (6.1) given torch cu128: sm_75..sm_120 SASS, no PTX.
  Image torch128 = img({"sm_75", "sm_80", "sm_86", "sm_90", "sm_100", "sm_120"});
  ImageVerdict v = judge_image(torch128, G("GTX 1080"), std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::no_image);
  EXPECT_EQ(cuda_error(v.verdict), 209);
  EXPECT_NE(v.reason.find("no cubin for 6.1"), std::string::npos) << v.reason;
}

TEST(ProbeField, NewGpuOldWheel) {
  // An RTX 5090 (12.0) given torch cu126: sm_50..sm_90, no PTX.
  Image torch126 = img({"sm_50", "sm_60", "sm_70", "sm_75", "sm_80", "sm_86", "sm_90"});
  EXPECT_EQ(V(torch126, "RTX 5090"), Verdict::no_image);
  EXPECT_EQ(V(torch126, "sm_90"), Verdict::native);
}

TEST(ProbeField, DgxSparkAgainstSm120a) {
  // sglang#30562: sm_90 + sm_120a, no PTX, on an sm_121 DGX Spark.
  Image i = img({"sm_90", "sm_120a"});
  EXPECT_EQ(V(i, "DGX Spark"), Verdict::no_image);
  EXPECT_EQ(V(i, "sm_121"), Verdict::no_image);
  EXPECT_EQ(V(i, "sm_120"), Verdict::native);
}

TEST(ProbeField, Ada89WithR535AgainstIsa83) {
  // mach#62: sm_75 SASS + compute_75 PTX of ISA 8.3 on an sm_89 with R535.
  Image i = img({"sm_75", "compute_75:8.3"});
  ImageVerdict v = judge_image(i, G("sm_89"), D("535.104.05"));
  EXPECT_EQ(v.verdict, Verdict::ptx_unsupported);
  EXPECT_EQ(cuda_error(v.verdict), 222);
  EXPECT_EQ(v.ptx_isa, "8.3");
  EXPECT_EQ(v.needs_cuda, "12.3");
  EXPECT_EQ(v.needs_driver, "545.23.06");
  EXPECT_NE(v.reason.find("CUDA 12.2"), std::string::npos) << v.reason;
  // The same image with a 12.3 driver JIT-compiles; on an sm_75 it is native.
  EXPECT_EQ(V(i, "sm_89", D("545.23.08")), Verdict::jit);
  EXPECT_EQ(V(i, "sm_75", D("535.104.05")), Verdict::native);
}

TEST(ProbeField, OrinIsNotServedByDesktopCubins) {
  Image i = img({"sm_80", "sm_86"});
  EXPECT_EQ(V(i, "Jetson AGX Orin"), Verdict::no_image);
  EXPECT_EQ(V(i, "8.7"), Verdict::no_image);
  // The reason names the cubins that fail only by the Tegra line.
  const std::string why = judge_image(i, G("8.7"), std::nullopt).reason;
  EXPECT_NE(why.find("sm_80 sm_86 (desktop) do not run on Tegra 8.7"), std::string::npos) << why;
  // And the other way: a Tegra 7.2 cubin on a desktop 7.5.
  const std::string back = judge_image(img({"sm_72"}), G("7.5"), std::nullopt).reason;
  EXPECT_NE(back.find("sm_72 (Tegra) does not run on desktop 7.5"), std::string::npos) << back;
  // Desktop PTX still JIT-compiles for it.
  EXPECT_EQ(V(img({"sm_80", "compute_80"}), "8.7"), Verdict::jit);
  EXPECT_EQ(V(img({"sm_87"}), "8.7"), Verdict::native);
}

TEST(ProbeField, ThorAcrossTheRename) {
  // CUDA 12.9's sm_101 and CUDA 13's sm_110 are one target.
  EXPECT_EQ(V(img({"sm_101"}), "sm_110"), Verdict::native);
  EXPECT_EQ(V(img({"sm_110"}), "sm_101"), Verdict::native);
  EXPECT_EQ(V(img({"sm_101a"}), "Jetson AGX Thor"), Verdict::native);
  EXPECT_EQ(V(img({"sm_100"}), "sm_110"), Verdict::no_image);  // desktop cubins do not run on Tegra
}

TEST(ProbeField, B300AgainstFamilyAndArchSpecific) {
  EXPECT_EQ(V(img({"sm_100a"}), "B300"), Verdict::no_image);
  EXPECT_EQ(V(img({"sm_100a"}), "B200"), Verdict::native);
  EXPECT_EQ(V(img({"sm_100f"}), "B300"), Verdict::native);
  EXPECT_EQ(V(img({"sm_100f"}), "B200"), Verdict::native);
  EXPECT_EQ(V(img({"sm_100f"}), "RTX 5090"), Verdict::no_image);
}

TEST(ProbeField, GpuNewerThanTheTablesIsUnknown) {
  Gpu g = G("sm_130");
  EXPECT_FALSE(g.known);
  ImageVerdict v = judge_image(img({"sm_90", "compute_120:8.7"}), g, std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::unknown);
  EXPECT_NE(v.reason.find("compute_120 PTX would JIT-compile"), std::string::npos) << v.reason;
  // Never "runs", not even for an exact cubin of it.
  EXPECT_EQ(judge_image(img({"sm_130"}), g, std::nullopt).verdict, Verdict::unknown);
}

// --- the rules --------------------------------------------------------------

TEST(ProbeRules, SassSameMajorMinorAtLeast) {
  EXPECT_EQ(V(img({"sm_80"}), "sm_86"), Verdict::native);
  EXPECT_EQ(V(img({"sm_86"}), "sm_80"), Verdict::no_image);
  EXPECT_EQ(V(img({"sm_80"}), "sm_90"), Verdict::no_image);
  EXPECT_EQ(V(img({"sm_90a"}), "sm_90"), Verdict::native);
  EXPECT_EQ(V(img({"sm_120f"}), "sm_121"), Verdict::native);
  EXPECT_EQ(V(img({"sm_120a"}), "sm_121"), Verdict::no_image);
}

TEST(ProbeRules, PtxOnionAndItsExceptions) {
  EXPECT_EQ(V(img({"compute_75"}), "sm_120"), Verdict::jit);
  EXPECT_EQ(V(img({"compute_90"}), "sm_86"), Verdict::no_image);  // never backwards
  EXPECT_EQ(V(img({"compute_90a"}), "sm_90"), Verdict::jit);
  EXPECT_EQ(V(img({"compute_90a"}), "sm_100"), Verdict::no_image);  // 'a' PTX on its exact CC only
  EXPECT_EQ(V(img({"compute_120f"}), "sm_121"), Verdict::jit);
  EXPECT_EQ(V(img({"compute_100f"}), "sm_120"), Verdict::no_image);  // outside its family
}

TEST(ProbeRules, NativeWinsOverPtxAndNamesTheCubin) {
  ImageVerdict v = judge_image(img({"sm_80", "sm_90", "compute_90"}), G("H100"), std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::native);
  ASSERT_TRUE(v.code);
  EXPECT_EQ(v.code->sm_name(), "sm_90");
  v = judge_image(img({"sm_80", "sm_86"}), G("RTX 3090"), std::nullopt);
  EXPECT_EQ(v.code->sm_name(), "sm_86");
}

TEST(ProbeRules, BestPtxIsTakenAndNotPassedOver) {
  Image i = img({"compute_80:7.0", "compute_90:9.0"});
  ImageVerdict any = judge_image(i, G("sm_100"), std::nullopt);
  EXPECT_EQ(any.verdict, Verdict::jit);
  EXPECT_EQ(any.code->compute_name(), "compute_90");
  EXPECT_EQ(any.needs_driver, "580.65.06");
  // A 12.8 driver refuses ISA 9.0; the driver does not fall back to the
  // lower PTX it would accept (H200 matrix, m16): 222, naming compute_90.
  ImageVerdict r128 = judge_image(i, G("sm_100"), D("12.8"));
  EXPECT_EQ(r128.verdict, Verdict::ptx_unsupported);
  EXPECT_EQ(r128.code->compute_name(), "compute_90");
  EXPECT_EQ(r128.needs_cuda, "13.0");
  // On a GPU only the lower PTX targets, that one is the best and it JITs.
  EXPECT_EQ(V(i, "sm_86", D("12.8")), Verdict::jit);
  ImageVerdict refused = judge_image(img({"compute_90:9.0"}), G("sm_100"), D("12.8"));
  EXPECT_EQ(refused.verdict, Verdict::ptx_unsupported);
  EXPECT_EQ(refused.needs_cuda, "13.0");
}

TEST(ProbeRules, NothingLoadableSaysWhy) {
  Image lto;
  lto.ltoir = 2;
  ImageVerdict v = judge_image(lto, G("sm_90"), std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::no_image);
  EXPECT_NE(v.reason.find("LTO-IR only"), std::string::npos) << v.reason;
  // The PTX-only view of a cubin-only image (--load's CUDA_FORCE_PTX_JIT pass).
  v = judge_image(Image{}, G("sm_90"), std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::no_image);
  EXPECT_EQ(v.reason, "no cubin and no PTX");
}

TEST(ProbeRules, PtxIsaOutsideTheTableIsUnknown) {
  EXPECT_EQ(V(img({"compute_90:9.9"}), "sm_90"), Verdict::unknown);
  EXPECT_EQ(V(img({"compute_90:"}), "sm_90"), Verdict::unknown);
  EXPECT_EQ(V(img({"compute_90:7.9"}), "sm_90"), Verdict::unknown);  // no release emits 7.9
}

TEST(ProbeRules, OpenEndedDriver) {
  DriverLimit d = D("620.10");
  EXPECT_TRUE(d.open_ended);
  EXPECT_EQ(V(img({"compute_90:9.0"}), "sm_90", d), Verdict::jit);
  EXPECT_EQ(V(img({"compute_90:9.4"}), "sm_90", d), Verdict::unknown);
  // A driver of the table's last known branch is not open-ended.
  EXPECT_FALSE(D("610.43.02").open_ended);
  EXPECT_EQ(V(img({"compute_90:9.4"}), "sm_90", D("610.43.02")), Verdict::ptx_unsupported);
}

TEST(ProbeRules, LtoIrOnlyCannotBeLoaded) {
  Image i;
  i.ltoir = 2;
  ImageVerdict v = judge_image(i, G("sm_90"), std::nullopt);
  EXPECT_EQ(v.verdict, Verdict::no_image);
  EXPECT_NE(v.reason.find("LTO-IR"), std::string::npos);
}

// --- libraries and exit status ---------------------------------------------

TEST(ProbeLibrary, ImagesAgreeOrArePartial) {
  std::vector<Image> both{img({"sm_80", "sm_90"}), img({"sm_80", "compute_80:8.0"})};
  LibraryVerdict lv = judge_library(both, G("sm_90"), std::nullopt);
  EXPECT_EQ(lv.verdict, Verdict::jit);  // the weakest of native and jit
  EXPECT_EQ(lv.count[static_cast<size_t>(Verdict::native)], 1u);
  EXPECT_EQ(lv.count[static_cast<size_t>(Verdict::jit)], 1u);
  std::vector<Image> some{img({"sm_80", "sm_90"}), img({"sm_80"})};
  lv = judge_library(some, G("sm_90"), std::nullopt);
  EXPECT_EQ(lv.verdict, Verdict::partial);
  EXPECT_EQ(lv.worst.verdict, Verdict::no_image);
  EXPECT_EQ(lv.best.verdict, Verdict::native);
  lv = judge_library(some, G("sm_75"), std::nullopt);
  EXPECT_EQ(lv.verdict, Verdict::no_image);
}

TEST(ProbeLibrary, ExitStatus) {
  EXPECT_EQ(exit_status({Verdict::native, Verdict::native}), 0);
  EXPECT_EQ(exit_status({Verdict::native, Verdict::jit}), 1);
  EXPECT_EQ(exit_status({Verdict::unknown}), 1);
  EXPECT_EQ(exit_status({Verdict::partial}), 1);
  EXPECT_EQ(exit_status({Verdict::jit, Verdict::ptx_unsupported}), 2);
  EXPECT_EQ(exit_status({Verdict::no_image, Verdict::native}), 2);
  EXPECT_EQ(weakest(Verdict::jit, Verdict::native), Verdict::jit);
  EXPECT_EQ(weakest(Verdict::partial, Verdict::no_image), Verdict::no_image);
}

TEST(ProbeLibrary, ImagesOfSkipsRelocatableAndKernelLessLinkImages) {
  DeviceCode dc;
  auto entry = [](size_t container, uint16_t kind, unsigned sm, fatbin::Origin origin, size_t kernels) {
    EntryFacts e;
    e.container = container;
    e.kind = kind;
    e.sm = sm;
    e.origin = origin;
    if (kind == fatbin::kElf) {
      cubin::CubinInfo c;
      c.sm = sm;
      c.kernel_count = kernels;
      e.cubin = c;
    } else {
      e.code_major = 9;
      e.code_minor = 0;
    }
    return e;
  };
  // Container 0: nvcc's device-link image (a cubin without kernels).
  dc.entries.push_back(entry(0, fatbin::kElf, 80, fatbin::Origin::executable, 0));
  // Container 1: the library's kernels.
  dc.entries.push_back(entry(1, fatbin::kElf, 80, fatbin::Origin::executable, 2));
  dc.entries.push_back(entry(1, fatbin::kPtx, 80, fatbin::Origin::executable, 0));
  // Container 2: relocatable device code, linked at build time.
  dc.entries.push_back(entry(2, fatbin::kElf, 90, fatbin::Origin::relocatable, 1));
  // Container 3: code the library loads itself.
  dc.entries.push_back(entry(3, fatbin::kElf, 90, fatbin::Origin::data, 1));
  std::vector<Image> images = images_of(dc);
  ASSERT_EQ(images.size(), 2u);
  EXPECT_EQ(images[0].container, 1u);
  ASSERT_EQ(images[0].sass.size(), 1u);
  ASSERT_EQ(images[0].ptx.size(), 1u);
  EXPECT_EQ(images[0].ptx[0].arch.compute_name(), "compute_80");
  EXPECT_EQ(images[1].container, 3u);
  // An undecoded cubin is never taken for a kernel-less one.
  DeviceCode undecoded;
  undecoded.entries.push_back(entry(0, fatbin::kElf, 80, fatbin::Origin::executable, 0));
  undecoded.entries.back().cubin.reset();
  EXPECT_EQ(images_of(undecoded).size(), 1u);
}

// --- --driver and --gpu -----------------------------------------------------

TEST(ProbeDriver, DriverVersions) {
  EXPECT_EQ(D("580.65").cuda.to_string(), "13.0");  // any 580.65.x
  EXPECT_EQ(D("580.65.06").cuda.to_string(), "13.0");
  EXPECT_EQ(D("580.159.04").cuda.to_string(), "13.0");
  EXPECT_EQ(D("580.159.04").max_isa.to_string(), "9.0");
  EXPECT_EQ(D("575.51.02").cuda.to_string(), "12.8");  // just below 12.9's 575.51.03
  EXPECT_EQ(D("535").cuda.to_string(), "12.2");
  EXPECT_EQ(D("570.26").cuda.to_string(), "12.8");
  EXPECT_FALSE(D("580.65").open_ended);
  EXPECT_FALSE(parse_driver("abc"));
  EXPECT_FALSE(parse_driver("580..1"));
  auto old = parse_driver("400.1");
  ASSERT_FALSE(old);
  EXPECT_NE(old.error().message().find("450.51.05"), std::string::npos) << old.error().message();
}

TEST(ProbeDriver, CudaVersions) {
  EXPECT_EQ(D("13.0").max_isa.to_string(), "9.0");
  EXPECT_EQ(D("12.8").max_isa.to_string(), "8.7");
  EXPECT_EQ(D("cu126").max_isa.to_string(), "8.5");
  EXPECT_FALSE(parse_driver("12.7"));  // never released
  auto api = driver_from_api_version(13000);
  ASSERT_TRUE(api);
  EXPECT_EQ(api->cuda.to_string(), "13.0");
  EXPECT_NE(api->given.find("13000"), std::string::npos);
  auto future = driver_from_api_version(15000);
  ASSERT_TRUE(future);
  EXPECT_TRUE(future->open_ended);
  EXPECT_FALSE(driver_from_api_version(0));
  EXPECT_FALSE(driver_from_api_version(12070));
}

TEST(ProbeGpu, ComputeCapabilities) {
  EXPECT_EQ(G("sm_90").sm, 90u);
  EXPECT_EQ(G("9.0").sm, 90u);
  EXPECT_EQ(G("12.1").sm, 121u);
  EXPECT_EQ(G("120").sm, 120u);
  EXPECT_TRUE(G("sm_88").known);
  EXPECT_FALSE(G("sm_95").known);
  EXPECT_FALSE(parse_gpu("sm_90a"));  // a GPU has no variant
  EXPECT_FALSE(parse_gpu("sm_x"));
  EXPECT_FALSE(parse_gpu("9.10"));
}

TEST(ProbeGpu, ProductNames) {
  EXPECT_EQ(G("H100").sm, 90u);
  EXPECT_EQ(G("H100").matched, "H100");
  EXPECT_EQ(G("rtx 5090").matched, "GeForce RTX 5090");
  EXPECT_EQ(G("NVIDIA GeForce RTX 4090").sm, 89u);
  EXPECT_EQ(G("NVIDIA H100 80GB HBM3").sm, 90u);   // as cuDeviceGetName says it
  EXPECT_EQ(G("NVIDIA A100-SXM4-80GB").sm, 80u);
  EXPECT_EQ(G("Tesla T4").sm, 75u);
  EXPECT_EQ(G("t4").sm, 75u);
  EXPECT_EQ(G("RTX 3060 Ti").sm, 86u);
  EXPECT_EQ(G("jetson agx orin").sm, 87u);
  EXPECT_EQ(G("Quadro RTX 6000").sm, 75u);
  EXPECT_EQ(G("RTX 6000 Ada").sm, 89u);
  EXPECT_EQ(G("RTX PRO 6000 Blackwell").sm, 120u);
  EXPECT_EQ(G("GB10").sm, 121u);
  EXPECT_EQ(G("B300").sm, 103u);
  auto none = parse_gpu("Orin");
  ASSERT_FALSE(none);
  EXPECT_NE(none.error().message().find("Jetson AGX Orin"), std::string::npos) << none.error().message();
  EXPECT_NE(none.error().message().find("sm_86"), std::string::npos);
  EXPECT_FALSE(parse_gpu("A1000x"));
  // Only memory, form-factor and Ti/SUPER words may follow a product's
  // name: other words name another product, which is refused, not guessed.
  EXPECT_EQ(G("RTX 4000 SFF Ada Generation").sm, 89u);  // as nvidia-smi says it
  EXPECT_EQ(G("NVIDIA RTX 6000 Ada Generation").sm, 89u);
  EXPECT_EQ(G("GeForce RTX 4070 SUPER").sm, 89u);
  auto blackwell = parse_gpu("RTX 6000 Blackwell");  // not the Quadro RTX 6000 (7.5)
  ASSERT_FALSE(blackwell);
  EXPECT_NE(blackwell.error().message().find("RTX PRO 6000 Blackwell"), std::string::npos) << blackwell.error().message();
  auto nano = parse_gpu("Jetson Nano Orin");  // not the Jetson Nano (5.3)
  ASSERT_FALSE(nano);
  EXPECT_NE(nano.error().message().find("Jetson Orin Nano"), std::string::npos) << nano.error().message();
  // A product number is not an SM number; a variant letter is refused.
  EXPECT_FALSE(parse_gpu("4090"));
  EXPECT_FALSE(parse_gpu("9.0a"));
  EXPECT_EQ(G("  a100  ").label, "a100");
  // A name that is also the start of another generation's product is noted.
  auto also = cuda::gpu_products_extending("RTX 6000");
  ASSERT_EQ(also.size(), 1u);
  EXPECT_EQ(also[0].name, "RTX 6000 Ada");
  EXPECT_TRUE(cuda::gpu_products_extending("H100").empty());  // its variants share 9.0
  EXPECT_TRUE(cuda::gpu_products_extending("no such gpu").empty());
}

TEST(ProbeGpu, ProductTableIsKnownAndUnique) {
  std::set<std::string> names;
  for (const auto& p : cuda::gpu_products()) {
    EXPECT_TRUE(arch::is_known_cc(p.sm)) << p.name;
    EXPECT_TRUE(names.insert(std::string(p.name)).second) << "duplicate " << p.name;
    // Each name finds itself.
    auto back = cuda::find_gpu_product(p.name);
    ASSERT_TRUE(back) << p.name;
    EXPECT_EQ(back->name, p.name);
  }
  std::vector<Gpu> all = all_known_gpus();
  ASSERT_FALSE(all.empty());
  for (size_t i = 1; i < all.size(); ++i) EXPECT_LT(all[i - 1].sm, all[i].sm);
  for (const auto& g : all) EXPECT_TRUE(g.known) << g.sm;
  // Data center, workstation, GeForce and Jetson parts are all there.
  std::set<cuda::Segment> segments;
  for (const auto& p : cuda::gpu_products()) segments.insert(p.segment);
  EXPECT_EQ(segments.size(), 4u);
}

// --- the host report, with the fake driver of fake_driver.cc ----------------

namespace {

struct FakeHost {
  test::TempDir dir;
  HostOptions options;
  explicit FakeHost(bool kernel_module = true, bool driver = true) {
    options.root = dir.path().string();
    options.use_ld_cache = false;
    options.libcuda = driver ? CUWHEEL_FAKE_DRIVER : "/nonexistent/libcuda.so.1";
    options.libnvml = driver ? CUWHEEL_FAKE_DRIVER : "/nonexistent/libnvidia-ml.so.1";
    if (kernel_module) {
      std::filesystem::create_directories(dir.path() / "proc/driver/nvidia");
      std::ofstream(dir.path() / "proc/driver/nvidia/version")
          << "NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.65.06  Sun Jul 27 06:54:38 UTC 2025\n"
             "GCC version:  gcc version 12.2.0\n";
    }
  }
};

}  // namespace

TEST(ProbeHost, MixedHost) {
  unsetenv("FAKE_CUINIT");
  FakeHost h;
  HostReport r = probe_host(h.options);
  EXPECT_EQ(r.state, HostState::ok) << r.summary;
  EXPECT_EQ(r.kernel_driver, "580.65.06");
  ASSERT_EQ(r.gpus.size(), 2u);
  EXPECT_EQ(r.gpus[0].sm, 90u);
  EXPECT_EQ(r.gpus[1].sm, 86u);
  EXPECT_NE(r.gpus[0].label.find("(device 0)"), std::string::npos);
  ASSERT_TRUE(r.driver);
  EXPECT_EQ(r.driver->cuda.to_string(), "13.0");
  EXPECT_NE(r.summary.find("2 GPUs"), std::string::npos) << r.summary;
  EXPECT_TRUE(r.notes.empty()) << r.notes.front();
}

TEST(ProbeHost, NoDriver) {
  FakeHost h(false, false);
  HostReport r = probe_host(h.options);
  EXPECT_EQ(r.state, HostState::no_driver);
  EXPECT_NE(r.summary.find("no NVIDIA driver"), std::string::npos) << r.summary;
  EXPECT_TRUE(r.gpus.empty());
  EXPECT_FALSE(r.driver);
}

TEST(ProbeHost, KernelModuleWithoutUserDriver) {
  FakeHost h(true, false);
  HostReport r = probe_host(h.options);
  EXPECT_EQ(r.state, HostState::no_user_driver);
  EXPECT_NE(r.summary.find("580.65.06"), std::string::npos) << r.summary;
}

TEST(ProbeHost, HiddenDriverIsNoDriver) {
  // What `cuwheel run --hide-driver` leaves: an empty libcuda.so.1 and no
  // /proc/driver/nvidia/version.
  FakeHost h(false, false);
  const std::string empty = (h.dir.path() / "libcuda.so.1").string();
  std::ofstream(empty).close();
  h.options.libcuda = empty;
  h.options.libnvml = empty;
  HostReport r = probe_host(h.options);
  EXPECT_EQ(r.state, HostState::no_driver) << r.summary;
}

TEST(ProbeHost, StubLibrary) {
  setenv("FAKE_CUINIT", "34", 1);
  FakeHost h;
  HostReport r = probe_host(h.options);
  unsetenv("FAKE_CUINIT");
  EXPECT_EQ(r.state, HostState::stub_library);
  EXPECT_NE(r.summary.find("stub"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("CUDA_ERROR_STUB_LIBRARY (34)"), std::string::npos) << r.summary;
}

TEST(ProbeHost, ForwardCompatibilityNotSupported) {
  setenv("FAKE_CUINIT", "804", 1);
  FakeHost h;
  HostReport r = probe_host(h.options);
  unsetenv("FAKE_CUINIT");
  EXPECT_EQ(r.state, HostState::compat_not_supported);
  EXPECT_NE(r.summary.find("forward-compatibility"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("804"), std::string::npos) << r.summary;
}

TEST(ProbeHost, DriverWithoutGpu) {
  setenv("FAKE_CUINIT", "100", 1);
  FakeHost h;
  HostReport r = probe_host(h.options);
  unsetenv("FAKE_CUINIT");
  EXPECT_EQ(r.state, HostState::no_gpu);
  EXPECT_NE(r.summary.find("no GPU"), std::string::npos) << r.summary;
}

TEST(ProbeHost, OtherDriverError) {
  setenv("FAKE_CUINIT", "999", 1);
  FakeHost h;
  HostReport r = probe_host(h.options);
  unsetenv("FAKE_CUINIT");
  EXPECT_EQ(r.state, HostState::driver_error);
  EXPECT_NE(r.summary.find("CUDA_ERROR_UNKNOWN (999)"), std::string::npos) << r.summary;
}

TEST(ProbeHost, TwoLibcudaCopiesOnTheLoaderPath) {
  unsetenv("FAKE_CUINIT");
  FakeHost h;
  for (const char* d : {"a", "b"}) {
    std::filesystem::create_directories(h.dir.path() / d);
    std::ofstream(h.dir.path() / d / "libcuda.so.1") << d;
  }
  h.options.ld_library_path = "/a:/b";
  HostReport r = probe_host(h.options);
  ASSERT_EQ(r.libcuda_copies.size(), 2u);
  ASSERT_EQ(r.notes.size(), 1u);
  EXPECT_NE(r.notes[0].find("2 different libcuda.so.1"), std::string::npos) << r.notes[0];
  // One copy reached twice is one file.
  h.options.ld_library_path = "/a:/a";
  EXPECT_EQ(probe_host(h.options).libcuda_copies.size(), 1u);
}

// --- the CUDA runtime against the driver --------------------------------------
// A runtime of major N needs a driver for CUDA N.0 or newer: a CUDA 13 wheel
// (torch cu130, a plugin with the static 13.0 runtime) on a 12.8 driver fails
// with cudaErrorInsufficientDriver (35) whatever its cubins.

TEST(ProbeRuntime, SharedRuntimeMajorIsRead) {
  CudaRuntime rt;
  rt.kind = CudaRuntime::Kind::shared;
  rt.major = 13;
  rt.soname = "libcudart.so.13";
  auto need = runtime_need(rt, {img({"sm_90"})});
  ASSERT_TRUE(need);
  EXPECT_EQ(need->major, 13);
  EXPECT_FALSE(need->inferred);
  EXPECT_EQ(need->evidence, "libcudart.so.13 (DT_NEEDED)");
}

TEST(ProbeRuntime, StaticRuntimeMajorIsInferredFromTheNewestPtx) {
  CudaRuntime rt;
  rt.kind = CudaRuntime::Kind::static_runtime;
  auto need = runtime_need(rt, {img({"sm_90", "compute_90:8.8"}), img({"compute_121:9.0"})});
  ASSERT_TRUE(need);
  EXPECT_EQ(need->major, 13);
  EXPECT_TRUE(need->inferred);
  // 12.9's PTX: a CUDA 12 runtime.
  need = runtime_need(rt, {img({"sm_90", "compute_121:8.8"})});
  ASSERT_TRUE(need);
  EXPECT_EQ(need->major, 12);
  // No PTX, or an ISA no release emits: nothing to infer from.
  EXPECT_FALSE(runtime_need(rt, {img({"sm_90", "sm_100"})}));
  EXPECT_FALSE(runtime_need(rt, {img({"compute_90:7.9"})}));
  // No runtime at all (a library that loads its code with the driver API).
  EXPECT_FALSE(runtime_need(CudaRuntime{}, {img({"compute_90:9.0"})}));
}

TEST(ProbeRuntime, OlderMajorDriverFailsEveryImage) {
  std::vector<Image> images = {img({"sm_90", "compute_90:9.0"}), img({"sm_80"})};
  LibraryVerdict lv = judge_library(images, G("H100"), D("12.8"));
  ASSERT_EQ(lv.verdict, Verdict::partial);  // the sm_80 image alone has no H100 code
  RuntimeNeed need{13, false, "libcudart.so.13 (DT_NEEDED)"};
  EXPECT_TRUE(apply_runtime_need(lv, need, D("12.8")));
  EXPECT_EQ(lv.verdict, Verdict::driver_too_old);
  EXPECT_EQ(lv.count[static_cast<size_t>(Verdict::driver_too_old)], 2u);
  EXPECT_EQ(cuda_error(lv.verdict), 35);
  EXPECT_NE(lv.worst.reason.find("cudaErrorInsufficientDriver (35)"), std::string::npos) << lv.worst.reason;
  EXPECT_NE(lv.worst.reason.find("CUDA 13.0 or newer"), std::string::npos) << lv.worst.reason;
  EXPECT_EQ(exit_status({Verdict::native, Verdict::driver_too_old}), 2);
  EXPECT_EQ(to_string(Verdict::driver_too_old), "driver-too-old");
  EXPECT_EQ(weakest(Verdict::no_image, Verdict::driver_too_old), Verdict::driver_too_old);
}

TEST(ProbeRuntime, SameOrNewerMajorDriverChangesNothing) {
  std::vector<Image> images = {img({"sm_90"})};
  RuntimeNeed need{13, false, "libcudart.so.13 (DT_NEEDED)"};
  for (const char* d : {"13.0", "13.2", "580.65"}) {
    LibraryVerdict lv = judge_library(images, G("H100"), D(d));
    EXPECT_FALSE(apply_runtime_need(lv, need, D(d))) << d;  // minor version compatibility: 13.x on a 13.0 driver
    EXPECT_EQ(lv.verdict, Verdict::native) << d;
  }
  // A CUDA 12 runtime on a CUDA 13 driver: backward compatible.
  LibraryVerdict lv = judge_library(images, G("H100"), D("13.0"));
  EXPECT_FALSE(apply_runtime_need(lv, RuntimeNeed{12, false, "libcudart.so.12 (DT_NEEDED)"}, D("13.0")));
}
