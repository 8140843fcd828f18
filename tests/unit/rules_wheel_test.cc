// Twin fixtures of the wheel, metadata and release-set rules: each rule flags
// its fixture and passes the clean twin. The wheels are written by
// tests/fixtures/make_check_wheels.py into tests/fixtures/check/wheel/.
#include <gtest/gtest.h>

#include "check_test_util.h"
#include "cuwheel/check/check.h"

using namespace cuwheel;
using namespace cuwheel::check;

namespace {

const std::string kDir = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/check/wheel/";
const std::string kClean = "cwfix-1.0.0-py3-none-any.whl";

std::vector<Finding> check_fixture(const std::string& name, const Policy& policy = {}) {
  return test_util::check_path(kDir + name, policy);
}

size_t count(const std::vector<Finding>& fs, const std::string& rule) { return test_util::count_rule(fs, rule); }

// The findings of one rule, one per line, for failure messages.
std::string dump(const std::vector<Finding>& fs, const std::string& rule) {
  std::string s;
  for (const auto& f : fs)
    if (f.rule == rule) s += f.path + ":" + f.member + " [" + f.location + "] " + f.message + "\n";
  return s;
}

bool has(const std::vector<Finding>& fs, const std::string& rule, const std::string& text) {
  for (const auto& f : fs)
    if (f.rule == rule && f.message.find(text) != std::string::npos) return true;
  return false;
}

// A policy that turns on every policy-driven rule of this group.
Policy full_policy() {
  Policy p;
  p.max_size = 50000;
  p.max_installed_size = 500000;
  p.license_files = {"LICENSE", "EULA.txt"};
  p.entry_points = {"console_scripts:cwfix"};
  return p;
}

const char* const kRules[] = {"size-budget",  "record-mismatch",     "metadata-invalid",    "missing-license-file",
                              "exact-pin",    "missing-entry-point", "inconsistent-release", "tag-mismatch",
                              "unsafe-path"};

}  // namespace

TEST(RulesWheel, CleanTwinPassesEveryRule) {
  auto f = check_fixture(kClean, full_policy());
  for (const char* r : kRules) EXPECT_EQ(count(f, r), 0u) << r << ":\n" << dump(f, r);
}

TEST(RulesWheel, SizeBudget) {
  auto big = check_fixture("cwfix_big-1.0.0-py3-none-any.whl", full_policy());
  ASSERT_EQ(count(big, "size-budget"), 2u) << dump(big, "size-budget");
  EXPECT_TRUE(has(big, "size-budget", "compressed, above the budget of 0.050 MB")) << dump(big, "size-budget");
  EXPECT_TRUE(has(big, "size-budget", "cwfix_big/data/noise.bin (0.064 MB)")) << dump(big, "size-budget");
  EXPECT_TRUE(has(big, "size-budget", "installs 1.1 MB, above the budget of 0.500 MB; largest members: "
                                      "cwfix_big/data/zeros.bin (1.0 MB)"))
      << dump(big, "size-budget");
  // No budget, no finding.
  EXPECT_EQ(count(check_fixture("cwfix_big-1.0.0-py3-none-any.whl"), "size-budget"), 0u);
  EXPECT_EQ(count(check_fixture(kClean, full_policy()), "size-budget"), 0u);
}

TEST(RulesWheel, RecordMismatch) {
  auto f = check_fixture("cwfix_record-1.0.0-py3-none-any.whl");
  EXPECT_EQ(count(f, "record-mismatch"), 5u) << dump(f, "record-mismatch");
  EXPECT_TRUE(has(f, "record-mismatch", "member is not listed in RECORD"));
  EXPECT_TRUE(has(f, "record-mismatch", "RECORD lists cwfix_record/data/phantom.bin, which is not in the wheel"));
  EXPECT_TRUE(has(f, "record-mismatch", "digest differs from RECORD"));
  EXPECT_TRUE(has(f, "record-mismatch", "size differs from RECORD: RECORD has 101 bytes, the member is 100"));
  EXPECT_TRUE(has(f, "record-mismatch", "RECORD gives no hash"));
  for (const auto& x : f)
    if (x.rule == "record-mismatch" && x.message.find("not listed") != std::string::npos)
      EXPECT_EQ(x.member, "cwfix_record/data/gone.bin");

  auto none = check_fixture("cwfix_norecord-1.0.0-py3-none-any.whl");
  ASSERT_EQ(count(none, "record-mismatch"), 1u) << dump(none, "record-mismatch");
  EXPECT_TRUE(has(none, "record-mismatch", "RECORD is missing"));

  // The twin: complete RECORD, and an unlisted RECORD.jws (a signature).
  EXPECT_EQ(count(check_fixture(kClean), "record-mismatch"), 0u) << dump(check_fixture(kClean), "record-mismatch");
}

TEST(RulesWheel, MetadataInvalid) {
  auto meta = check_fixture("cwfix_meta-1.0.0-py3-none-any.whl");
  EXPECT_EQ(count(meta, "metadata-invalid"), 3u) << dump(meta, "metadata-invalid");
  EXPECT_TRUE(has(meta, "metadata-invalid", "METADATA Name cwfix-other is not the file name's distribution cwfix_meta"));
  EXPECT_TRUE(has(meta, "metadata-invalid", "Requires-Dist:"));
  EXPECT_TRUE(has(meta, "metadata-invalid", "WHEEL has no Root-Is-Purelib"));
  for (const auto& x : meta)
    if (x.rule == "metadata-invalid" && x.message.rfind("Requires-Dist:", 0) == 0)
      EXPECT_EQ(x.location.rfind("METADATA line ", 0), 0u) << x.location;

  auto badver = check_fixture("cwfix_badversion-1.0.0-py3-none-any.whl");
  EXPECT_EQ(count(badver, "metadata-invalid"), 2u) << dump(badver, "metadata-invalid");
  EXPECT_TRUE(has(badver, "metadata-invalid", "Version: "));
  EXPECT_TRUE(has(badver, "metadata-invalid", "is not the file name's version 1.0.0"));

  auto nometa = check_fixture("cwfix_nometa-1.0.0-py3-none-any.whl");
  ASSERT_EQ(count(nometa, "metadata-invalid"), 1u) << dump(nometa, "metadata-invalid");
  EXPECT_TRUE(has(nometa, "metadata-invalid", "METADATA is missing"));

  EXPECT_EQ(count(check_fixture(kClean), "metadata-invalid"), 0u) << dump(check_fixture(kClean), "metadata-invalid");
}

TEST(RulesWheel, MissingLicenseFile) {
  Policy p;
  p.license_files = {"LICENSE", "EULA.txt"};
  auto f = check_fixture("cwfix_nolicense-1.0.0-py3-none-any.whl", p);
  // LICENSE and EULA.txt required by the policy, and both License-File lines.
  EXPECT_EQ(count(f, "missing-license-file"), 4u) << dump(f, "missing-license-file");
  EXPECT_TRUE(has(f, "missing-license-file", "the policy requires EULA.txt"));
  EXPECT_TRUE(has(f, "missing-license-file",
                  "License-File LICENSE is not in the wheel (expected cwfix_nolicense-1.0.0.dist-info/licenses/LICENSE)"));
  // Without a policy only METADATA's License-File lines count.
  EXPECT_EQ(count(check_fixture("cwfix_nolicense-1.0.0-py3-none-any.whl"), "missing-license-file"), 2u);
  EXPECT_EQ(count(check_fixture(kClean, p), "missing-license-file"), 0u) << dump(check_fixture(kClean, p), "missing-license-file");
}

TEST(RulesWheel, MissingEntryPoint) {
  Policy p;
  p.entry_points = {"console_scripts:cwfix"};
  auto f = check_fixture("cwfix_noentry-1.0.0-py3-none-any.whl", p);
  ASSERT_EQ(count(f, "missing-entry-point"), 1u) << dump(f, "missing-entry-point");
  EXPECT_TRUE(has(f, "missing-entry-point", "entry point cwfix in group console_scripts is not declared"));
  EXPECT_EQ(count(check_fixture(kClean, p), "missing-entry-point"), 0u);
  // A bare name matches in any group; the wrong group does not.
  Policy any;
  any.entry_points = {"cwfix-gui"};
  EXPECT_EQ(count(check_fixture("cwfix_noentry-1.0.0-py3-none-any.whl", any), "missing-entry-point"), 0u);
  Policy wrong_group;
  wrong_group.entry_points = {"console_scripts:cwfix-gui"};
  EXPECT_EQ(count(check_fixture("cwfix_noentry-1.0.0-py3-none-any.whl", wrong_group), "missing-entry-point"), 1u);
}

TEST(RulesWheel, TagMismatchRenamedNotRepaired) {
  // Field report 20: manylinux_2_28 in the file name, linux_x86_64 in WHEEL.
  auto renamed = check_fixture("cwfix_tag-1.0.0-py3-none-manylinux_2_28_x86_64.whl");
  ASSERT_EQ(count(renamed, "tag-mismatch"), 1u);
  EXPECT_TRUE(has(renamed, "tag-mismatch", "py3-none-manylinux_2_28_x86_64")) << dump(renamed, "tag-mismatch");
  EXPECT_TRUE(has(renamed, "tag-mismatch", "py3-none-linux_x86_64")) << dump(renamed, "tag-mismatch");
  EXPECT_EQ(count(check_fixture("cwfix_tag-1.0.0-py3-none-linux_x86_64.whl"), "tag-mismatch"), 0u);
}

// WHEEL's Build field against the file name's build tag (PEP 427): a
// warning, since installers read only the file name's.
TEST(RulesWheel, TagMismatchBuildField) {
  auto only_wheel = check_fixture("cwfix_build-1.0.0-py3-none-any.whl");
  ASSERT_EQ(count(only_wheel, "tag-mismatch"), 1u) << dump(only_wheel, "tag-mismatch");
  const Finding* f = nullptr;
  for (const auto& x : only_wheel)
    if (x.rule == "tag-mismatch") f = &x;
  EXPECT_EQ(f->severity, Severity::warning);
  EXPECT_EQ(f->location, "Build");
  EXPECT_TRUE(has(only_wheel, "tag-mismatch", "no build tag and WHEEL has Build: 1")) << dump(only_wheel, "tag-mismatch");
  EXPECT_EQ(count(check_fixture("cwfix_build-1.0.0-1-py3-none-any.whl"), "tag-mismatch"), 0u);
}

TEST(RulesWheel, ExactPin) {
  Policy p;
  p.pins["dyng"] = "exact";
  auto bad = check_fixture("release-bad", p);
  ASSERT_EQ(count(bad, "exact-pin"), 1u) << dump(bad, "exact-pin");
  for (const auto& x : bad)
    if (x.rule == "exact-pin") {
      EXPECT_NE(x.path.find("dyng_cu13-0.2.0"), std::string::npos) << x.path;
      EXPECT_NE(x.message.find("is not an exact pin (>=0.2)"), std::string::npos) << x.message;
      EXPECT_NE(x.hint.find("dyng==0.2.0"), std::string::npos) << x.hint;  // its own version
    }
  EXPECT_EQ(count(check_fixture("release-good", p), "exact-pin"), 0u) << dump(check_fixture("release-good", p), "exact-pin");
  // A wheel with no requirement on the pinned distribution at all.
  auto none = check_fixture(kClean, p);
  ASSERT_EQ(count(none, "exact-pin"), 1u);
  EXPECT_TRUE(has(none, "exact-pin", "no Requires-Dist on dyng"));
}

TEST(RulesWheel, InconsistentRelease) {
  auto bad = check_fixture("release-bad");
  const std::string d = dump(bad, "inconsistent-release");
  // The macOS core declaring other dependencies than the two Linux cores
  // (1); dyng-cu12 0.2.1 pinning a core that is not in the set (1); the three
  // cores pinning dyng-cu12==0.2.0 (3) and requesting dyng-cu13[nccl] (3).
  EXPECT_EQ(count(bad, "inconsistent-release"), 8u) << d;
  EXPECT_TRUE(has(bad, "inconsistent-release", "only here: `numpy>=2.0`. only there: `numpy>=1.26`.")) << d;
  EXPECT_TRUE(has(bad, "inconsistent-release", "dyng-cu12 0.2.1 pins dyng==0.2.1, but this release set has dyng 0.2.0"))
      << d;
  EXPECT_TRUE(has(bad, "inconsistent-release", "requests extra nccl of dyng-cu13")) << d;
  for (const auto& x : bad)
    if (x.rule == "inconsistent-release" && x.message.find("only here") != std::string::npos)
      EXPECT_NE(x.path.find("macosx_11_0_arm64"), std::string::npos) << x.path;  // reported on the wheel at fault
  auto good = check_fixture("release-good");
  EXPECT_EQ(count(good, "inconsistent-release"), 0u) << dump(good, "inconsistent-release");
  // The clean release set passes the other rules of this group too.
  Policy p;
  p.pins["dyng"] = "exact";
  p.license_files = {"LICENSE", "EULA.txt"};
  auto all = check_fixture("release-good", p);
  for (const char* r : kRules) EXPECT_EQ(count(all, r), 0u) << r << ":\n" << dump(all, r);
}
