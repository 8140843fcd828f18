// The loading rules (CW2xx) on the fixtures of
// tests/fixtures/make_check_loading.sh: each rule has a wheel it flags and a
// twin it passes. Counts are per rule, so a fixture built for one rule may
// trip others without breaking the assertion for the rule under test.
#include <gtest/gtest.h>

#include <string>

#include "check_test_util.h"
#include "cuwheel/check.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

const std::string kDir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/loading/";
const std::string kTag = "-1.0-py3-none-manylinux_2_36_x86_64.whl";

std::vector<Finding> run(const std::string& file, const Policy& policy = {}) {
  return test_util::check_path(kDir + file, policy);
}

size_t count(const std::vector<Finding>& fs, const std::string& rule) { return test_util::count_rule(fs, rule); }

std::string dump(const std::vector<Finding>& fs) {
  std::string out;
  for (const auto& f : fs) out += f.rule + " " + f.member + " [" + f.location + "] " + f.message + "\n";
  return out;
}

const char* kLoadingRules[] = {
    "bundled-driver-library", "bundled-cuda-library", "not-redistributable", "build-machine-path",
    "unresolved-runpath", "unresolved-needed", "cuda-major-mismatch", "undeclared-dependency",
    "unused-dependency", "deprecated-package-name", "duplicate-symbol", "export-not-allowed",
    "needed-version-mismatch", "platform-tag",
};

}  // namespace

TEST(RulesLoading, GoodWheelPassesEveryLoadingRule) {
  auto fs = run("lw_good_cu13" + kTag);
  for (const char* r : kLoadingRules) EXPECT_EQ(count(fs, r), 0u) << r << "\n" << dump(fs);
}

TEST(RulesLoading, BundledLibrariesByNameAndSoname) {
  auto fs = run("lw_bundled" + kTag);
  EXPECT_EQ(count(fs, "bundled-cuda-library"), 2u) << dump(fs);   // field report 2
  EXPECT_EQ(count(fs, "bundled-driver-library"), 1u) << dump(fs); // field report 1
  EXPECT_EQ(count(fs, "not-redistributable"), 1u) << dump(fs);    // bin/ptxas; libcudart is redistributable
  for (const auto& f : fs)
    if (f.rule == "bundled-cuda-library") {
      EXPECT_TRUE(f.member == "lw_bundled/lib/libcudart.so.13" || f.member == "lw_bundled/lib/libmyblas.so") << f.member;
      if (f.member == "lw_bundled/lib/libmyblas.so") EXPECT_EQ(f.location, "DT_SONAME");
    }
}

TEST(RulesLoading, BuildMachinePath) {
  auto fs = run("lw_paths" + kTag);
  EXPECT_EQ(count(fs, "build-machine-path"), 2u) << dump(fs);  // field report 6
  EXPECT_EQ(count(run("lw_paths_ok" + kTag), "build-machine-path"), 0u);
}

TEST(RulesLoading, UnresolvedRunpath) {
  auto fs = run("lw_runpath" + kTag);
  EXPECT_EQ(count(fs, "unresolved-runpath"), 3u) << dump(fs);
  auto ok = run("lw_runpath_ok" + kTag);
  EXPECT_EQ(count(ok, "unresolved-runpath"), 0u) << dump(ok);
}

TEST(RulesLoading, UnresolvedNeededFieldReports7And8) {
  auto fs = run("lw_needed_cu13" + kTag);
  EXPECT_EQ(count(fs, "unresolved-needed"), 3u) << dump(fs);
  bool nvrtc = false, nccl = false;
  for (const auto& f : fs) {
    nvrtc |= f.rule == "unresolved-needed" && f.location == "DT_NEEDED libnvrtc.so.13";
    nccl |= f.rule == "unresolved-needed" && f.location == "DT_NEEDED libnccl.so.2";
  }
  EXPECT_TRUE(nvrtc && nccl) << dump(fs);
  auto ok = run("lw_needed_fixed_cu13" + kTag);
  EXPECT_EQ(count(ok, "unresolved-needed"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "unresolved-runpath"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "undeclared-dependency"), 0u) << dump(ok);
  EXPECT_EQ(count(ok, "unused-dependency"), 0u) << dump(ok);
}

TEST(RulesLoading, CudaMajorMismatch) {
  auto fs = run("lw_major_cu12" + kTag);
  EXPECT_EQ(count(fs, "cuda-major-mismatch"), 2u) << dump(fs);
  // The good CUDA 13 wheel passes, and so does it under a matching policy,
  // but not under a CUDA 12 policy.
  Policy p13, p12;
  p13.cuda_major = 13;
  p12.cuda_major = 12;
  EXPECT_EQ(count(run("lw_good_cu13" + kTag, p13), "cuda-major-mismatch"), 0u);
  EXPECT_GE(count(run("lw_good_cu13" + kTag, p12), "cuda-major-mismatch"), 1u);
}

TEST(RulesLoading, DeclaredDependenciesFieldReport18) {
  auto fs = run("lw_undeclared_cu13" + kTag);
  EXPECT_EQ(count(fs, "undeclared-dependency"), 1u) << dump(fs);
  EXPECT_EQ(count(fs, "unused-dependency"), 1u) << dump(fs);
  EXPECT_EQ(count(fs, "deprecated-package-name"), 1u) << dump(fs);
  for (const auto& f : fs) {
    if (f.rule == "undeclared-dependency") EXPECT_NE(f.message.find("nvidia-cuda-runtime"), std::string::npos) << f.message;
    if (f.rule == "unused-dependency") {
      EXPECT_EQ(f.severity, Severity::warning);
      EXPECT_NE(f.message.find("nvidia-nccl-cu13"), std::string::npos) << f.message;
    }
  }
}

TEST(RulesLoading, DuplicateSymbolAndExports) {
  auto fs = run("lw_clash" + kTag);
  EXPECT_EQ(count(fs, "duplicate-symbol"), 1u) << dump(fs);
  for (const auto& f : fs)
    if (f.rule == "duplicate-symbol") {
      EXPECT_NE(f.message.find("clash_fn"), std::string::npos) << f.message;
      EXPECT_EQ(f.message.find("clash_weak"), std::string::npos) << f.message;
    }
  EXPECT_EQ(count(fs, "export-not-allowed"), 0u);  // no allowlist, no check
  Policy narrow, wide;
  narrow.exports = {"clash_a_*"};
  wide.exports = {"clash_*"};
  EXPECT_EQ(count(run("lw_clash" + kTag, narrow), "export-not-allowed"), 2u);
  EXPECT_EQ(count(run("lw_clash" + kTag, wide), "export-not-allowed"), 0u);
}

TEST(RulesLoading, NeededVersionMismatchFieldReport5) {
  auto fs = run("lw_version" + kTag);
  EXPECT_EQ(count(fs, "needed-version-mismatch"), 1u) << dump(fs);
  auto ok = run("lw_version_ok" + kTag);
  EXPECT_EQ(count(ok, "needed-version-mismatch"), 0u) << dump(ok);
}

TEST(RulesLoading, PlatformTag) {
  auto fs = run("lw_plat-1.0-py3-none-manylinux2014_x86_64.whl");
  EXPECT_EQ(count(fs, "platform-tag"), 3u) << dump(fs);  // GLIBC_2.34, GLIBCXX_3.4.21, CXXABI_1.3.9
  EXPECT_EQ(count(run("lw_plat-1.0-py3-none-manylinux_2_36_x86_64.whl"), "platform-tag"), 0u);
  EXPECT_EQ(count(run("lw_plat-1.0-py3-none-linux_x86_64.whl"), "platform-tag"), 0u);
}
