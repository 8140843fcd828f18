// The device-code rules (CW101-CW107): each has a fixture it flags and a twin
// it passes. Libraries are the committed nvcc-built fixtures of
// tests/fixtures/bin (see tests/fixtures/README.md for their architectures);
// the no-device-code wheels come from tests/fixtures/make_check_device_wheels.py.
// Field reports (../shared/field-reports.md) 13, 14, 16 and 17 are
// reproduced with a policy that recreates their situation.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "check_test_util.h"
#include "cuwheel/check/check.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

const std::string kBin = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/";
const std::string kDev = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/device/";
const std::string kTag = "-cp312-cp312-manylinux_2_28_x86_64.whl";

std::vector<Finding> check_file(const std::string& path, const Policy& policy) {
  return test_util::check_path(path, policy);
}

std::vector<Finding> only(const std::vector<Finding>& fs, const std::string& rule) {
  std::vector<Finding> out;
  for (const auto& f : fs)
    if (f.rule == rule) out.push_back(f);
  return out;
}

size_t count(const std::string& path, const Policy& policy, const std::string& rule) {
  return only(check_file(path, policy), rule).size();
}

Policy sass(std::vector<std::string> archs, bool exact = false) {
  Policy p;
  p.sass = std::move(archs);
  p.sass_exact = exact;
  return p;
}

Policy gpus(std::vector<std::string> g) {
  Policy p;
  p.gpus = std::move(g);
  return p;
}

Policy driver(const std::string& d) {
  Policy p;
  p.min_driver = d;
  return p;
}

bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

// ---- missing-sass (CW101) ----

TEST(RulesDevice, MissingSassTwins) {
  // Field report 17 (nvbench#308): the release silently lacked sm_89.
  auto f = only(check_file(kBin + "libplain.so", sass({"sm_75", "sm_89", "sm_90", "sm_120"})), "missing-sass");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "libplain.so lacks SASS for sm_89")) << f[0].message;
  EXPECT_TRUE(has(f[0].hint, "-gencode arch=compute_89,code=sm_89")) << f[0].hint;
  EXPECT_EQ(count(kBin + "libplain.so", sass({"sm_75", "sm_90", "sm_120"}), "missing-sass"), 0u);
}

TEST(RulesDevice, MissingSassFieldReport16NewGenerationNotBuilt) {
  // pytorch#167244: a CUDA 12 build stopping at sm_90 against a list with Blackwell.
  auto f = only(check_file(kBin + "cu12_plain.so", sass({"sm_80", "sm_90a", "sm_100", "sm_120"})), "missing-sass");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "sm_100, sm_120")) << f[0].message;
  EXPECT_EQ(count(kBin + "cu12_plain.so", sass({"sm_80", "sm_90a"}), "missing-sass"), 0u);
}

TEST(RulesDevice, MissingSassComparesSuffixedNamesExactly) {
  // libsuffix.so: sm_90a, sm_100a, sm_100f, sm_120f ('f' only in the entry header).
  EXPECT_EQ(count(kBin + "libsuffix.so", sass({"sm_90a", "sm_100a", "sm_100f", "sm_120f"}), "missing-sass"), 0u);
  auto f = only(check_file(kBin + "libsuffix.so", sass({"sm_90", "sm_120"})), "missing-sass");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "lacks SASS for sm_90, sm_120")) << f[0].message;
  EXPECT_TRUE(has(f[0].message, "sm_90a, sm_120f are other targets")) << f[0].message;
  // libfamily.so's 'f' cubins are named with their 'f'.
  EXPECT_EQ(count(kBin + "libfamily.so", sass({"sm_88", "sm_100f", "sm_103a", "sm_110f", "sm_121a"}), "missing-sass"), 0u);
}

TEST(RulesDevice, MissingSassEachLibraryOnItsOwn) {
  // Two device objects in the archive, one host-only object that is not judged.
  EXPECT_EQ(count(kBin + "libhostmix.a", sass({"sm_75", "sm_90", "sm_120"}), "missing-sass"), 0u);
  auto f = only(check_file(kBin + "libhostmix.a", sass({"sm_80"})), "missing-sass");
  ASSERT_EQ(f.size(), 2u);
  EXPECT_EQ(f[0].location, "archive member a_plain.o");
  // A wheel: the host-only extension is not judged, libplain.so is.
  const std::string gpu_whl = kDev + "cuwheel_devgpu_cu13-1.0.0" + kTag;
  auto w = only(check_file(gpu_whl, sass({"sm_80", "sm_90"})), "missing-sass");
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].member, "cuwheel_devgpu_cu13/lib/libplain.so");
  // Objects carrying LTO-IR get their SASS at the consumer's device link.
  EXPECT_EQ(count(kBin + "liblto.a", sass({"sm_80"}), "missing-sass"), 0u);
}

TEST(RulesDevice, MissingSassNothingToInspect) {
  EXPECT_EQ(count(kBin + "libplain.so", Policy{}, "missing-sass"), 0u);
  EXPECT_EQ(count(kBin + "libhostonly.a", sass({"sm_80"}), "missing-sass"), 0u);
}

// ---- unexpected-sass (CW102) ----

TEST(RulesDevice, UnexpectedSassTwins) {
  auto f = only(check_file(kBin + "libplain.so", sass({"sm_75", "sm_90"}, true)), "unexpected-sass");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "carries SASS for sm_120")) << f[0].message;
  EXPECT_EQ(count(kBin + "libplain.so", sass({"sm_75", "sm_90", "sm_120"}, true), "unexpected-sass"), 0u);
  // Only in exact mode.
  EXPECT_EQ(count(kBin + "libplain.so", sass({"sm_75", "sm_90"}, false), "unexpected-sass"), 0u);
  // sm_90a is not sm_90.
  EXPECT_EQ(count(kBin + "cu12_plain.so", sass({"sm_80", "sm_90"}, true), "unexpected-sass"), 1u);
}

// ---- missing-ptx (CW103) ----

TEST(RulesDevice, MissingPtxNewestTwins) {
  Policy p = sass({"sm_75", "sm_90", "sm_120"});
  p.ptx_mode = Policy::PtxMode::newest;
  EXPECT_EQ(count(kBin + "libplain.so", p, "missing-ptx"), 0u);  // compute_120 present
  auto f = only(check_file(kBin + "a.cubin", p), "missing-ptx");  // a raw sm_90 cubin: no PTX at all
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "lacks PTX for compute_120 (has no PTX)")) << f[0].message;
  EXPECT_TRUE(has(f[0].hint, "-gencode arch=compute_120,code=compute_120")) << f[0].hint;
}

TEST(RulesDevice, MissingPtxNewestWantsPlainPtx) {
  // cu12_plain.so has compute_90a only: it JITs on 9.0 alone, not forward.
  Policy p = sass({"sm_80", "sm_90a"});
  p.ptx_mode = Policy::PtxMode::newest;
  auto f = only(check_file(kBin + "cu12_plain.so", p), "missing-ptx");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "compute_90 (has compute_90a)")) << f[0].message;
  // libsuffix.so: compute_120f does not stand in for compute_120.
  Policy q = sass({"sm_120f"});
  q.ptx_mode = Policy::PtxMode::newest;
  EXPECT_EQ(count(kBin + "libsuffix.so", q, "missing-ptx"), 1u);
}

TEST(RulesDevice, MissingPtxNewestWithoutListUsesTheLibrarysHighestSass) {
  Policy p;
  p.ptx_mode = Policy::PtxMode::newest;
  EXPECT_EQ(count(kBin + "libdefault_arch.so", p, "missing-ptx"), 0u);  // sm_80 + compute_80
  EXPECT_EQ(count(kBin + "a.cubin", p, "missing-ptx"), 1u);             // sm_90, no PTX: wants compute_90
  EXPECT_EQ(count(kBin + "libmulti.so", p, "missing-ptx"), 0u);         // up to sm_120 + compute_120
}

TEST(RulesDevice, MissingPtxListAndNone) {
  Policy list;
  list.ptx_mode = Policy::PtxMode::list;
  list.ptx = {"compute_80"};
  EXPECT_EQ(count(kBin + "libdefault_arch.so", list, "missing-ptx"), 0u);
  EXPECT_EQ(count(kBin + "libplain.so", list, "missing-ptx"), 1u);
  Policy none = sass({"sm_75", "sm_90", "sm_120"});
  none.ptx_mode = Policy::PtxMode::none;
  EXPECT_EQ(count(kBin + "a.cubin", none, "missing-ptx"), 0u);
  EXPECT_EQ(count(kBin + "a.cubin", sass({"sm_90"}), "missing-ptx"), 0u);  // unset
}

TEST(RulesDevice, MissingPtxFieldReport14PolicyRequiresNewestPtx) {
  // keryx-miner#18: SASS only, no PTX; a policy asking for newest PTX catches it.
  Policy p = sass({"sm_75", "sm_90"});
  p.ptx_mode = Policy::PtxMode::newest;
  EXPECT_EQ(count(kBin + "a.cubin", p, "missing-ptx"), 1u);
  EXPECT_EQ(count(kBin + "libdefault_arch.so", [] {
              Policy q = sass({"sm_80"});
              q.ptx_mode = Policy::PtxMode::newest;
              return q;
            }(), "missing-ptx"),
            0u);
}

// ---- uncovered-gpu (CW104) ----

TEST(RulesDevice, UncoveredGpuFieldReport14) {
  // Old SASS (sm_80, sm_90a) and only 'a' PTX: an RTX 50xx (12.0) gets no kernel image.
  auto f = only(check_file(kBin + "cu12_plain.so", gpus({"sm_120"})), "uncovered-gpu");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "cu12_plain.so cannot run on sm_120")) << f[0].message;
  EXPECT_TRUE(has(f[0].hint, "code=[sm_120,compute_120]")) << f[0].hint;
  // SASS only, no PTX at all (the report's exact shape): a raw sm_90 cubin.
  EXPECT_EQ(count(kBin + "a.cubin", gpus({"sm_120"}), "uncovered-gpu"), 1u);
  EXPECT_EQ(count(kBin + "a.cubin", gpus({"sm_90"}), "uncovered-gpu"), 0u);
  // Twins: native SASS, or plain PTX below the GPU that the driver JITs.
  EXPECT_EQ(count(kBin + "libplain.so", gpus({"sm_120"}), "uncovered-gpu"), 0u);
  EXPECT_EQ(count(kBin + "libdefault_arch.so", gpus({"sm_120"}), "uncovered-gpu"), 0u);
}

TEST(RulesDevice, UncoveredGpuMinorForwardButNotMajor) {
  // libmulti.so: sm_75, sm_90, sm_120 and PTX compute_120 only.
  EXPECT_EQ(count(kBin + "libmulti.so", gpus({"sm_75", "sm_90", "sm_120", "sm_121"}), "uncovered-gpu"), 0u);
  auto f = only(check_file(kBin + "libmulti.so", gpus({"sm_80", "sm_89", "sm_100"})), "uncovered-gpu");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "cannot run on sm_80, sm_89, sm_100")) << f[0].message;
  // libfamily.so's sm_88 cubin runs on 8.9.
  EXPECT_EQ(count(kBin + "libfamily.so", gpus({"sm_89"}), "uncovered-gpu"), 0u);
}

TEST(RulesDevice, UncoveredGpuArchSpecificOnlyOnItsExactGpu) {
  EXPECT_EQ(count(kBin + "cu12_plain.so", gpus({"sm_90"}), "uncovered-gpu"), 0u);     // sm_90a on 9.0
  EXPECT_EQ(count(kBin + "libfamily.so", gpus({"sm_121"}), "uncovered-gpu"), 0u);     // sm_121a on 12.1
  EXPECT_EQ(count(kBin + "libfamily.so", gpus({"sm_120"}), "uncovered-gpu"), 1u);     // 121a is not 12.0
}

TEST(RulesDevice, UncoveredGpuFamilyTargets) {
  // libsuffix.so: sm_100f covers 10.3; sm_120f covers 12.1; nothing covers 11.0.
  EXPECT_EQ(count(kBin + "libsuffix.so", gpus({"sm_100", "sm_103", "sm_120", "sm_121"}), "uncovered-gpu"), 0u);
  auto f = only(check_file(kBin + "libsuffix.so", gpus({"sm_110"})), "uncovered-gpu");
  ASSERT_EQ(f.size(), 1u);
}

TEST(RulesDevice, UncoveredGpuTegraMatchesOnlyItself) {
  // cu12_plain.so's sm_80 cubin runs on 8.6 but not on Jetson Orin (8.7).
  EXPECT_EQ(count(kBin + "cu12_plain.so", gpus({"sm_86"}), "uncovered-gpu"), 0u);
  EXPECT_EQ(count(kBin + "cu12_plain.so", gpus({"sm_87"}), "uncovered-gpu"), 1u);
  // PTX still JITs for it.
  EXPECT_EQ(count(kBin + "libdefault_arch.so", gpus({"sm_87"}), "uncovered-gpu"), 0u);
}

TEST(RulesDevice, UncoveredGpuNothingToInspect) {
  EXPECT_EQ(count(kBin + "cu12_plain.so", Policy{}, "uncovered-gpu"), 0u);
  EXPECT_EQ(count(kBin + "libhostonly.a", gpus({"sm_120"}), "uncovered-gpu"), 0u);
}

// ---- ptx-needs-newer-driver (CW105) ----

TEST(RulesDevice, PtxNeedsNewerDriverFieldReport13) {
  // cupy#6875: PTX newer than the driver. libplain.so's PTX is ISA 9.0 (CUDA 13.0).
  auto f = only(check_file(kBin + "libplain.so", driver("570.26")), "ptx-needs-newer-driver");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "PTX compute_120 is ISA 9.0 (CUDA 13.0), which needs driver >= 580.65.06"))
      << f[0].message;
  EXPECT_TRUE(has(f[0].location, "entry at 0x")) << f[0].location;
  EXPECT_TRUE(has(f[0].hint, "CUDA 12.8 or older")) << f[0].hint;
  EXPECT_EQ(count(kBin + "libplain.so", driver("580.65.06"), "ptx-needs-newer-driver"), 0u);
}

TEST(RulesDevice, PtxNeedsNewerDriverComparesNumerically) {
  EXPECT_EQ(count(kBin + "libplain.so", driver("580.65.5"), "ptx-needs-newer-driver"), 1u);
  EXPECT_EQ(count(kBin + "libplain.so", driver("580.100"), "ptx-needs-newer-driver"), 0u);
  EXPECT_EQ(count(kBin + "libplain.so", driver("1000"), "ptx-needs-newer-driver"), 0u);
  EXPECT_EQ(count(kBin + "libplain.so", Policy{}, "ptx-needs-newer-driver"), 0u);
}

TEST(RulesDevice, PtxNeedsNewerDriverOneFindingPerIsaVersion) {
  auto f = only(check_file(kBin + "libfamily.so", driver("575.51.03")), "ptx-needs-newer-driver");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "compute_100f, compute_121a")) << f[0].message;
  EXPECT_TRUE(has(f[0].message, "(2 entries)")) << f[0].message;
  EXPECT_EQ(count(kBin + "a.cubin", driver("525.60.13"), "ptx-needs-newer-driver"), 0u);  // no PTX
}

// ---- no-device-code (CW106) ----

TEST(RulesDevice, NoDeviceCodeTwins) {
  auto f = only(check_file(kDev + "cuwheel_devhost_cu13-1.0.0" + kTag, Policy{}), "no-device-code");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_TRUE(has(f[0].message, "its name \"cuwheel-devhost-cu13\"")) << f[0].message;
  EXPECT_EQ(count(kDev + "cuwheel_devgpu_cu13-1.0.0" + kTag, Policy{}, "no-device-code"), 0u);
}

TEST(RulesDevice, RawFatbinMemberIsThePackagesDeviceCode) {
  // A wheel that ships a fatbin file and loads it itself (cuModuleLoad):
  // its device code counts, for coverage and against no-device-code.
  const std::string whl = kDev + "cuwheel_devfatbin_cu13-1.0.0" + kTag;
  EXPECT_EQ(count(whl, Policy{}, "no-device-code"), 0u);
  auto f = only(check_file(whl, gpus({"sm_80", "sm_90"})), "uncovered-gpu");
  ASSERT_EQ(f.size(), 1u);
  EXPECT_EQ(f[0].member, "cuwheel_devfatbin_cu13/kernels.fatbin");
  EXPECT_TRUE(has(f[0].message, "cannot run on sm_80")) << f[0].message;
  EXPECT_TRUE(has(f[0].message, "PTX: compute_120")) << f[0].message;
  EXPECT_EQ(count(whl, gpus({"sm_90", "sm_120"}), "uncovered-gpu"), 0u);
  // Cut in half: unreadable, never a pass.
  auto ms = build_models(kDev + "cuwheel_devfatcut_cu13-1.0.0" + kTag, BuildOptions{});
  ASSERT_TRUE(ms);
  ASSERT_EQ(ms->size(), 1u);
  ASSERT_EQ((*ms)[0].read_errors.size(), 1u);
  EXPECT_TRUE(has((*ms)[0].read_errors[0].first, "cuwheel_devfatcut_cu13/kernels.fatbin")) << (*ms)[0].read_errors[0].first;
  EXPECT_TRUE(has((*ms)[0].read_errors[0].second, "extends past the end")) << (*ms)[0].read_errors[0].second;
}

TEST(RulesDevice, NoDeviceCodeClaims) {
  auto label = only(check_file(kDev + "cuwheel_devlabel-1.0.0+cu130" + kTag, Policy{}), "no-device-code");
  ASSERT_EQ(label.size(), 1u);
  EXPECT_TRUE(has(label[0].message, "+cu130")) << label[0].message;
  auto req = only(check_file(kDev + "cuwheel_devreq-1.0.0" + kTag, Policy{}), "no-device-code");
  ASSERT_EQ(req.size(), 1u);
  EXPECT_TRUE(has(req[0].message, "Requires-Dist nvidia-cuda-runtime")) << req[0].message;
  // Claims nothing: CUDA only behind an extra, and the NVML binding.
  EXPECT_EQ(count(kDev + "cuwheel_devcpu-1.0.0" + kTag, Policy{}, "no-device-code"), 0u);
  // A library NEEDing libcudart claims CUDA; a plain host library does not.
  EXPECT_EQ(count(kDev + "libhost_cudart.so", Policy{}, "no-device-code"), 1u);
  EXPECT_EQ(count(kDev + "libhost_only.so", Policy{}, "no-device-code"), 0u);
}

TEST(RulesDevice, NoDeviceCodeNeverPassesSilently) {
  // A policy asking for SASS, PTX and GPUs of a host-only build: the other
  // device rules have nothing to inspect, and this one fires.
  Policy p = sass({"sm_80", "sm_90"});
  p.ptx_mode = Policy::PtxMode::newest;
  p.gpus = {"sm_120"};
  p.min_driver = "570.26";
  for (const std::string path : {kDev + "cuwheel_devcpu-1.0.0" + kTag, kBin + "libhostonly.a"}) {
    auto fs = check_file(path, p);
    EXPECT_EQ(only(fs, "no-device-code").size(), 1u) << path;
    for (const char* r : {"missing-sass", "unexpected-sass", "missing-ptx", "uncovered-gpu", "ptx-needs-newer-driver"})
      EXPECT_EQ(only(fs, r).size(), 0u) << path << " " << r;
  }
  Policy major;
  major.cuda_major = 13;
  EXPECT_EQ(count(kDev + "cuwheel_devcpu-1.0.0" + kTag, major, "no-device-code"), 1u);
  EXPECT_EQ(count(kBin + "libplain.so", p, "no-device-code"), 0u);
}

TEST(RulesDevice, RegistryCodesAndDocs) {
  const std::vector<std::pair<std::string, std::string>> want = {
      {"CW101", "missing-sass"}, {"CW102", "unexpected-sass"}, {"CW103", "missing-ptx"},
      {"CW104", "uncovered-gpu"}, {"CW105", "ptx-needs-newer-driver"}, {"CW106", "no-device-code"},
      {"CW107", "no-ptx-fallback"}};
  for (const auto& [code, name] : want) {
    const RuleInfo* r = find_rule(code);
    ASSERT_NE(r, nullptr) << code;
    EXPECT_EQ(r->name, name);
    EXPECT_EQ(r->group, "device-code");
    EXPECT_FALSE(rule_doc(name).empty()) << name;
  }
}

// A PTX ISA newer than the release table: the driver it needs is unknown, so
// the finding says so and no min-driver, however high, passes it (no
// invented threshold). libplain.so's ISA 9.0 entries are relabelled 9.9.
TEST(RulesDevice, PtxNeedsNewerDriverIsaNewerThanTheTable) {
  auto ms = build_models(kBin + "libplain.so", BuildOptions{});
  ASSERT_TRUE(ms);
  size_t relabelled = 0;
  for (auto& m : *ms)
    for (auto& lib : m.libraries)
      for (auto& e : lib.device.entries) {
        if (e.kind != fatbin::kPtx) continue;
        e.code_major = 9, e.code_minor = 9;
        if (e.ptx) e.ptx->version = std::pair<int, int>{9, 9};
        ++relabelled;
      }
  ASSERT_GT(relabelled, 0u);
  for (const char* d : {"580.65.06", "610.43.02", "610.43.03", "999.99"}) {
    auto f = only(run_rules(*ms, driver(d)), "ptx-needs-newer-driver");
    ASSERT_EQ(f.size(), 1u) << d;
    EXPECT_TRUE(has(f[0].message, "PTX ISA 9.9 is newer than any CUDA release this cuwheel knows; the driver it needs "
                                  "is unknown"))
        << f[0].message;
    EXPECT_FALSE(has(f[0].message, "needs driver")) << f[0].message;
    EXPECT_TRUE(has(f[0].hint, "update cuwheel")) << f[0].hint;
    EXPECT_FALSE(has(f[0].hint, "raise `min-driver`")) << f[0].hint;
  }
  // Without a min-driver the rule stays quiet, as for a known ISA.
  EXPECT_TRUE(only(run_rules(*ms, Policy{}), "ptx-needs-newer-driver").empty());
}

// A PTX ISA of a release the table knows but whose minimum driver it lacks
// (ISA 9.4, CUDA 13.4: its release notes bundle no driver, cuda-facts.md
// 2.2): flagged whatever the min-driver, naming the release instead of
// calling the ISA unknown. libplain.so's ISA 9.0 entries are relabelled 9.4.
TEST(RulesDevice, PtxNeedsNewerDriverReleaseWithoutDriver) {
  auto ms = build_models(kBin + "libplain.so", BuildOptions{});
  ASSERT_TRUE(ms);
  for (auto& m : *ms)
    for (auto& lib : m.libraries)
      for (auto& e : lib.device.entries) {
        if (e.kind != fatbin::kPtx) continue;
        e.code_major = 9, e.code_minor = 4;
        if (e.ptx) e.ptx->version = std::pair<int, int>{9, 4};
      }
  for (const char* d : {"580.65.06", "999.99"}) {
    auto f = only(run_rules(*ms, driver(d)), "ptx-needs-newer-driver");
    ASSERT_EQ(f.size(), 1u) << d;
    EXPECT_TRUE(has(f[0].message, "PTX ISA 9.4 (CUDA 13.4): the minimum driver of CUDA 13.4 is unknown to this "
                                  "cuwheel"))
        << f[0].message;
    EXPECT_FALSE(has(f[0].message, "newer than any CUDA release")) << f[0].message;
    EXPECT_TRUE(has(f[0].hint, "release notes")) << f[0].hint;
    EXPECT_FALSE(has(f[0].hint, "raise `min-driver`")) << f[0].hint;
  }
}

// uncovered-gpu's hint never suggests a target the policy's CUDA major cannot
// build (the release table of cuwheel/cuda/arch.h: CUDA 13 removed sm_70).
TEST(RulesDevice, UncoveredGpuHintKnowsWhatTheCudaMajorBuilds) {
  Policy p = gpus({"sm_70"});
  p.cuda_major = 13;
  auto f13 = only(check_file(kBin + "libplain.so", p), "uncovered-gpu");
  ASSERT_EQ(f13.size(), 1u);
  EXPECT_FALSE(has(f13[0].hint, "compute_70")) << f13[0].hint;
  EXPECT_TRUE(has(f13[0].hint, "sm_70: CUDA 13.0 cannot build it")) << f13[0].hint;
  EXPECT_TRUE(has(f13[0].hint, "drop it from the policy's `gpus`, or ship it from a CUDA 12 build")) << f13[0].hint;
  p.cuda_major = 12;
  auto f12 = only(check_file(kBin + "libplain.so", p), "uncovered-gpu");
  ASSERT_EQ(f12.size(), 1u);
  EXPECT_TRUE(has(f12[0].hint, "-gencode arch=compute_70,code=[sm_70,compute_70]")) << f12[0].hint;
  EXPECT_FALSE(has(f12[0].hint, "cannot build")) << f12[0].hint;
}

// --- no-ptx-fallback (CW107) ----------------------------------------------

TEST(RulesDevice, NoPtxFallbackTwins) {
  // libplain.so: sm_75, sm_90, sm_120 and compute_120 PTX: every newer GPU
  // can JIT it. cu12_plain.so: sm_90a SASS and compute_90a PTX only.
  EXPECT_EQ(count(kBin + "libplain.so", Policy{}, "no-ptx-fallback"), 0u);
  auto fs = only(check_file(kBin + "cu12_plain.so", Policy{}), "no-ptx-fallback");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_EQ(fs[0].severity, Severity::warning);
  EXPECT_TRUE(has(fs[0].message, "runs on no GPU newer than sm_90 (Hopper)")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "compute_90a")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "sm_100 sm_103 sm_120 sm_121 (Blackwell)")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].hint, "-gencode arch=compute_90,code=compute_90")) << fs[0].hint;
}

TEST(RulesDevice, NoPtxFallbackSassOnlyLibrary) {
  // The library with sm_75 in .nv_fatbin and nothing else newer.
  const std::string df = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/datafatbin/";
  auto fs = only(check_file(df + "libown_none.so", Policy{}), "no-ptx-fallback");
  ASSERT_EQ(fs.size(), 1u);
  EXPECT_TRUE(has(fs[0].message, "no GPU newer than sm_75 (Turing): it has no PTX")) << fs[0].message;
  EXPECT_TRUE(has(fs[0].message, "sm_80 sm_86 (Ampere), sm_89 (Ada), sm_90 (Hopper)")) << fs[0].message;
  // Its twin keeps compute_90 PTX in .rodata, which the driver JITs for
  // every newer GPU.
  EXPECT_EQ(count(df + "libown_rodata.so", Policy{}, "no-ptx-fallback"), 0u);
}

TEST(RulesDevice, NoPtxFallbackQuietOnceThePolicySaysAnythingAboutPtx) {
  Policy none;
  none.ptx_mode = Policy::PtxMode::none;
  EXPECT_EQ(count(kBin + "cu12_plain.so", none, "no-ptx-fallback"), 0u);
  Policy newest;
  newest.ptx_mode = Policy::PtxMode::newest;
  auto fs = check_file(kBin + "cu12_plain.so", newest);
  EXPECT_EQ(only(fs, "no-ptx-fallback").size(), 0u);
  EXPECT_EQ(only(fs, "missing-ptx").size(), 1u);
}

TEST(RulesDevice, NoPtxFallbackLeavesRawCubinsAndLtoAlone) {
  EXPECT_EQ(count(kBin + "a.cubin", Policy{}, "no-ptx-fallback"), 0u);
  EXPECT_EQ(count(kBin + "liblto.a", Policy{}, "no-ptx-fallback"), 0u);
}
