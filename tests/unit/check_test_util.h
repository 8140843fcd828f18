// Helpers shared by the check and rule tests: build the models of one
// fixture and run the rules; count findings of one rule.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cuwheel/check/check.h"

namespace cuwheel::check::test_util {

/// Builds the models of `path` and runs the rules of `policy` on them; a
/// fixture that cannot be read fails the calling test.
inline std::vector<Finding> check_path(const std::string& path, const Policy& policy = {}) {
  auto ms = build_models(path, BuildOptions{});
  EXPECT_TRUE(ms) << path << ": " << (ms ? "" : ms.error().message());
  if (!ms) return {};
  return run_rules(*ms, policy);
}

/// The models of `path`; a fixture that cannot be read fails the calling test.
inline std::vector<CheckModel> models(const std::string& path) {
  auto ms = build_models(path, BuildOptions{});
  EXPECT_TRUE(ms) << path << ": " << (ms ? "" : ms.error().message());
  return ms ? std::move(*ms) : std::vector<CheckModel>{};
}

/// A loadable shared library (ET_DYN ELF) of an in-memory model: its member
/// name, DT_NEEDED, DT_RPATH and DT_RUNPATH entries.
inline LibraryModel elf_library(const std::string& member, std::vector<std::string> needed,
                                std::vector<std::string> rpath = {}, std::vector<std::string> runpath = {}) {
  LibraryModel l;
  l.member = member;
  l.is_elf = true;
  l.load.type = 3;  // ET_DYN
  l.load.needed = std::move(needed);
  l.load.rpath = std::move(rpath);
  l.load.runpath = std::move(runpath);
  return l;
}

/// The number of findings of `rule`.
inline size_t count_rule(const std::vector<Finding>& fs, const std::string& rule) {
  size_t n = 0;
  for (const auto& f : fs) n += f.rule == rule;
  return n;
}

}  // namespace cuwheel::check::test_util
