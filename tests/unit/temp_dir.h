// A temporary folder of the running test's own, for the unit tests.
//
// Each TempDir is a fresh folder made by mkdtemp(3) under $TMPDIR (or /tmp),
// named after the running test ("cuwheel-Suite.Name-<tag>-XXXXXX"), and
// removed with everything in it when the TempDir is destroyed. Tests that run
// at the same time (ctest -j, gtest_discover_tests runs one process per test)
// never share a folder, and a folder left by a crashed run is never reused.
#pragma once

#include <gtest/gtest.h>
#include <stdlib.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

namespace cuwheel::test {

class TempDir {
 public:
  explicit TempDir(std::string_view tag = {}) {
    std::string name = "cuwheel-";
    if (const auto* info = ::testing::UnitTest::GetInstance()->current_test_info()) {
      name += std::string(info->test_suite_name()) + "." + info->name();
    } else {
      name += "test";
    }
    if (!tag.empty()) name += "-" + std::string(tag);
    // Parameterized names hold '/', and a path component must not.
    for (char& c : name) {
      bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' ||
                  c == '-' || c == '_';
      if (!keep) c = '_';
    }
    if (name.size() > 120) name.resize(120);
    const char* env = ::getenv("TMPDIR");
    std::string base = env && *env ? env : "/tmp";
    std::string tmpl = base + "/" + name + "-XXXXXX";
    std::vector<char> buf(tmpl.begin(), tmpl.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) {
      ADD_FAILURE() << "mkdtemp " << tmpl << ": " << std::strerror(errno);
      return;
    }
    path_ = buf.data();
  }
  ~TempDir() {
    if (path_.empty()) return;
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string str() const { return path_.string(); }
  std::filesystem::path operator/(const std::filesystem::path& p) const { return path_ / p; }

 private:
  std::filesystem::path path_;
};

}  // namespace cuwheel::test
