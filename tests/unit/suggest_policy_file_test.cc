// The shared "did you mean" measure (src/base/suggest.h) and the policy file
// search that check, matrix and release share (src/base/policy_file.h).
#include <gtest/gtest.h>

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/policy_file.h"
#include "base/suggest.h"
#include "cuwheel/check/check.h"
#include "cuwheel/release/matrix.h"
#include "cuwheel/release/release.h"
#include "temp_dir.h"

namespace {

namespace fs = std::filesystem;
using cuwheel::suggest::did_you_mean;
using cuwheel::suggest::edit_distance;
using cuwheel::suggest::nearest;

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("", ""), 0u);
  EXPECT_EQ(edit_distance("abc", ""), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("enabled", "enable"), 1u);
  EXPECT_EQ(edit_distance("sass", "ssas"), 2u);  // a transposition is two edits
}

TEST(Suggest, NearWithinLimit) {
  EXPECT_EQ(nearest("pyton", {"python", "cuda", "trains"}), "python");
  EXPECT_EQ(nearest("missing-sas", {"missing-sass", "missing-ptx"}), "missing-sass");
  // Long words: up to three edits.
  EXPECT_EQ(nearest("uncoverd-gpus", {"uncovered-gpu", "missing-ptx"}), "uncovered-gpu");
  EXPECT_EQ(nearest("misisng-ptxx", {"missing-ptx"}), "missing-ptx");
}

TEST(Suggest, FarOrExactGivesNothing) {
  // Short words: at most two edits, so "ptx" is not "corrected" into "gpus".
  EXPECT_EQ(nearest("ptx", {"gpus", "sass"}), "");
  EXPECT_EQ(nearest("abcd", {"wxyz"}), "");
  EXPECT_EQ(nearest("sass", {"sass", "sas"}), "");
  EXPECT_EQ(nearest("anything", {}), "");
  EXPECT_EQ(nearest("completely-different", {"missing-sass"}), "");
}

TEST(Suggest, TiesGoToTheEarlierCandidate) {
  EXPECT_EQ(nearest("cu12", {"cu13", "cu11"}), "cu13");
  EXPECT_EQ(nearest("cu12", {"cu11", "cu13"}), "cu11");
}

TEST(Suggest, MessageSuffix) {
  EXPECT_EQ(did_you_mean("pyton", {"python"}), " (did you mean \"python\"?)");
  EXPECT_EQ(did_you_mean("zzzzzz", {"python"}), "");
}

class PolicyFile : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.str();
    ASSERT_FALSE(root_.empty());
    fs::create_directories(root_ + "/a/b");
  }
  void TearDown() override { fs::remove_all(root_); }
  cuwheel::test::TempDir tmp_{"policyfile"};  // this test's own folder
  void write(const std::string& rel, const std::string& text) { std::ofstream(root_ + "/" + rel) << text; }
  std::string root_;
};

TEST_F(PolicyFile, NothingFound) {
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), "");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "matrix"), "");
}

TEST_F(PolicyFile, CuwheelTomlBeforePyprojectInTheSameFolder) {
  write("a/pyproject.toml", "[tool.cuwheel]\ncuda-major = 13\n");
  write("a/cuwheel.toml", "cuda-major = 12\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), root_ + "/a/cuwheel.toml");
  EXPECT_EQ(cuwheel::check::find_policy_file(root_ + "/a/b"), root_ + "/a/cuwheel.toml");
}

TEST_F(PolicyFile, NearestFolderWins) {
  write("cuwheel.toml", "cuda-major = 12\n");
  write("a/pyproject.toml", "[tool.cuwheel]\ncuda-major = 13\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), root_ + "/a/pyproject.toml");
}

TEST_F(PolicyFile, EachCommandLooksForItsOwnTable) {
  // The nearest pyproject.toml has only the check's table: matrix and
  // release go on up to the cuwheel.toml that has theirs.
  write("a/pyproject.toml", "[project]\nname = \"x\"\n[tool.cuwheel]\ncuda-major = 13\n");
  write("cuwheel.toml", "[matrix]\npython = [\"3.12\"]\n[release]\ncore = \"dyng\"\n");
  EXPECT_EQ(cuwheel::check::find_policy_file(root_ + "/a/b"), root_ + "/a/pyproject.toml");
  EXPECT_EQ(cuwheel::matrix::find_policy_file(root_ + "/a/b"), root_ + "/cuwheel.toml");
  EXPECT_EQ(cuwheel::release::find_policy_file(root_ + "/a/b"), root_ + "/cuwheel.toml");
  // A pyproject.toml with [tool.cuwheel.matrix] is found for matrix only.
  write("a/b/pyproject.toml", "[tool.cuwheel.matrix]\npython = [\"3.12\"]\n");
  EXPECT_EQ(cuwheel::matrix::find_policy_file(root_ + "/a/b"), root_ + "/a/b/pyproject.toml");
  EXPECT_EQ(cuwheel::release::find_policy_file(root_ + "/a/b"), root_ + "/cuwheel.toml");
  // [tool.cuwheel.matrix] makes a [tool.cuwheel] table: that file is the
  // project's cuwheel configuration, and check reads it (with its defaults
  // for what it does not set) rather than one further up.
  EXPECT_EQ(cuwheel::check::find_policy_file(root_ + "/a/b"), root_ + "/a/b/pyproject.toml");
}

TEST_F(PolicyFile, PyprojectWithoutOurTableIsSkipped) {
  write("a/pyproject.toml", "[project]\nname = \"x\"\n[tool.other]\nx = 1\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), "");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "release"), "");
}

TEST_F(PolicyFile, BrokenFileThatMentionsTheTableIsReturnedSoItsErrorIsReported) {
  write("a/pyproject.toml", "[tool.cuwheel.release\ncore = \n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "release"), root_ + "/a/pyproject.toml");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), root_ + "/a/pyproject.toml");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "matrix"), "");
  auto loaded = cuwheel::release::load_policy(root_ + "/a/pyproject.toml");
  EXPECT_FALSE(loaded);
}

TEST_F(PolicyFile, OnlyRegularFilesCount) {
  fs::create_directories(root_ + "/a/cuwheel.toml");  // a folder of that name
  ASSERT_EQ(mkfifo((root_ + "/a/b/pyproject.toml").c_str(), 0600), 0);
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", ""), "");  // and no hang on the FIFO
}

TEST_F(PolicyFile, DottedAndInlineSpellingsOfTheTable) {
  write("a/pyproject.toml", "tool.cuwheel.matrix.python = [\"3.12\"]\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a", "matrix"), root_ + "/a/pyproject.toml");
  write("a/b/cuwheel.toml", "release = { core = \"dyng\" }\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "release"), root_ + "/a/b/cuwheel.toml");
}

TEST_F(PolicyFile, EveryPolicyReaderSuggestsTheSameWay) {
  write("cuwheel.toml", "cuda-majr = 13\n");
  auto c = cuwheel::check::load_policy(root_ + "/cuwheel.toml");
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("unknown key \"cuda-majr\" (did you mean \"cuda-major\"?)"), std::string::npos)
      << c.error().message();
  auto m = cuwheel::matrix::parse_policy("[matrix]\npyton = [\"3.12\"]\n", "cuwheel.toml");
  ASSERT_FALSE(m);
  EXPECT_NE(m.error().message().find("(did you mean \"python\"?)"), std::string::npos) << m.error().message();
  auto r = cuwheel::release::parse_policy("[release]\ncoree = \"dyng\"\n", "cuwheel.toml");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("(did you mean \"core\"?)"), std::string::npos) << r.error().message();
}

TEST_F(PolicyFile, NearMissNamesAMisspeltTable) {
  EXPECT_EQ(cuwheel::policyfile::near_miss(root_ + "/a/b", "release"), "");
  write("a/cuwheel.toml", "[relase]\ncore = \"dyng\"\n");
  EXPECT_EQ(cuwheel::policyfile::find(root_ + "/a/b", "release"), "");
  EXPECT_EQ(cuwheel::policyfile::near_miss(root_ + "/a/b", "release"),
            root_ + "/a/cuwheel.toml has [relase]: did you mean [release]?");
  write("a/b/pyproject.toml", "[tool.cuwheel.matrx]\npython = []\n");
  EXPECT_EQ(cuwheel::policyfile::near_miss(root_ + "/a/b", "matrix"),
            root_ + "/a/b/pyproject.toml has [tool.cuwheel.matrx]: did you mean [tool.cuwheel.matrix]?");
  // A key that is not a table, or a name too far off, is not a near miss.
  write("cuwheel.toml", "relase = 1\n[xyz]\n");
  EXPECT_EQ(cuwheel::policyfile::near_miss(root_, "release"), "");
}

}  // namespace
