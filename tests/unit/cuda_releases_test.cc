// The CUDA release table (include/cuwheel/cuda/releases.h): lookups, and
// the invariants every row must keep.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/releases.h"

using namespace cuwheel;
using cuda::PtxIsa;
using cuda::Release;

namespace {

std::string rel_for(int major, int minor) {
  auto r = cuda::release_for_ptx({major, minor});
  return r ? r->to_string() : "";
}

std::string drv_for(int major, int minor) { return std::string(cuda::min_driver_for_ptx({major, minor})); }

// "580.65.06" -> {580, 65, 6}, for ordering drivers.
std::vector<unsigned long> parts(std::string_view d) {
  std::vector<unsigned long> out;
  size_t i = 0;
  while (true) {
    size_t j = d.find('.', i);
    out.push_back(std::stoul(std::string(d.substr(i, j == std::string_view::npos ? std::string_view::npos : j - i))));
    if (j == std::string_view::npos) return out;
    i = j + 1;
  }
}

}  // namespace

// Moved from cubin_test.cc (the tables left the object layer). 8.6 now
// maps to 12.8, the first published release that emits it: 12.7 was never
// released (cuda-facts.md 2.1), and `arch --release 12.7` refuses it.
TEST(CudaReleases, ReleaseAndDriverTables) {
  EXPECT_EQ(rel_for(9, 0), "13.0");
  EXPECT_EQ(rel_for(8, 7), "12.8");
  EXPECT_EQ(rel_for(8, 6), "12.8");
  EXPECT_EQ(rel_for(7, 8), "11.8");
  EXPECT_EQ(rel_for(6, 4), "10.1");
  EXPECT_EQ(rel_for(3, 0), "");
  EXPECT_EQ(rel_for(-1, -1), "");
  EXPECT_EQ(drv_for(8, 7), "570.26");
  EXPECT_EQ(drv_for(1, 0), "");
}

TEST(CudaReleases, Lookups) {
  EXPECT_EQ(rel_for(8, 5), "12.5");  // 12.6 emits 8.5 too; the first release wins
  EXPECT_EQ(rel_for(9, 5), "13.5");
  EXPECT_EQ(rel_for(9, 6), "");      // no release this table knows emits it
  EXPECT_EQ(rel_for(7, 9), "");      // no such ISA
  EXPECT_EQ(rel_for(4, 0), "6.0");
  EXPECT_EQ(drv_for(8, 6), "570.26");
  EXPECT_EQ(drv_for(9, 0), "580.65.06");
  EXPECT_EQ(drv_for(9, 3), "610.43.02");
  EXPECT_EQ(drv_for(9, 4), "");      // 13.4's release notes bundle no driver
  EXPECT_EQ(drv_for(6, 5), "");      // before the driver table
  EXPECT_EQ(cuda::newest_ptx_isa(), (PtxIsa{9, 5}));
  ASSERT_NE(cuda::find_release({12, 7}), nullptr);
  EXPECT_FALSE(cuda::find_release({12, 7})->published);
  EXPECT_EQ(cuda::find_release({12, 10}), nullptr);
}

TEST(CudaReleases, RowsIncrease) {
  auto t = cuda::release_table();
  ASSERT_FALSE(t.empty());
  for (size_t i = 1; i < t.size(); ++i) {
    SCOPED_TRACE(t[i].release.to_string());
    EXPECT_LT(t[i - 1].release, t[i].release);
    EXPECT_LE(t[i - 1].ptx_isa, t[i].ptx_isa);
    // Current rows form one block at the end (11.0 on).
    if (t[i - 1].current) {
      EXPECT_TRUE(t[i].current);
    }
  }
  std::string last;
  for (const auto& r : t) {
    if (r.min_driver.empty()) continue;
    SCOPED_TRACE(r.release.to_string());
    EXPECT_TRUE(r.published && r.current);
    if (!last.empty()) {
      EXPECT_LT(parts(last), parts(r.min_driver));
      EXPECT_EQ(cuda::compare_driver_versions(last, r.min_driver), -1);
    }
    // Every driver is one the check policy accepts as `min-driver`.
    EXPECT_LE(parts(r.min_driver).size(), 3u);
    last = std::string(r.min_driver);
  }
}

// Every PTX ISA a current row emits maps back to a release that `arch
// --release` accepts, one that emits that ISA or, for an unpublished
// release, the next published one.
TEST(CudaReleases, EveryIsaMapsToAcceptedRelease) {
  for (const auto& row : cuda::release_table()) {
    if (!row.current) continue;
    SCOPED_TRACE(row.ptx_isa.to_string());
    auto r = cuda::release_for_ptx(row.ptx_isa);
    ASSERT_TRUE(r);
    EXPECT_TRUE(arch::parse_release(r->to_string()));
    if (row.published) {
      EXPECT_LE(*r, row.release);
    } else {
      EXPECT_GT(*r, row.release);
    }
    const cuda::ReleaseInfo* back = cuda::find_release(*r);
    ASSERT_NE(back, nullptr);
    EXPECT_TRUE(back->published);
    EXPECT_GE(back->ptx_isa, row.ptx_isa);
  }
}

TEST(CudaReleases, KnownReleasesAreThePublishedCurrentRows) {
  const auto& k = cuda::known_releases();
  ASSERT_FALSE(k.empty());
  EXPECT_EQ(k.front(), (Release{11, 0}));
  EXPECT_EQ(k.back(), (Release{13, 5}));
  size_t n = 0;
  for (const auto& row : cuda::release_table())
    if (row.published && row.current) {
      ASSERT_LT(n, k.size());
      EXPECT_EQ(k[n++], row.release);
      EXPECT_TRUE(cuda::parse_release(row.release.to_string()));
    } else {
      EXPECT_FALSE(cuda::parse_release(row.release.to_string()));
    }
  EXPECT_EQ(n, k.size());
  // Every release the architecture tables accept builds something.
  for (const Release& r : k) EXPECT_FALSE(arch::targetable(r).empty()) << r.to_string();
}

TEST(CudaReleases, CompareDriverVersions) {
  EXPECT_EQ(cuda::compare_driver_versions("580.65.06", "570.124.06"), 1);
  EXPECT_EQ(cuda::compare_driver_versions("570.26", "570.26.0"), 0);
  EXPECT_EQ(cuda::compare_driver_versions("535.54.03", "535.104.05"), -1);
  EXPECT_FALSE(cuda::compare_driver_versions("5x0", "570"));
  EXPECT_FALSE(cuda::compare_driver_versions("", "570"));
  EXPECT_FALSE(cuda::compare_driver_versions("570..1", "570"));
}

TEST(CudaReleases, ParseRelease) {
  EXPECT_EQ(*cuda::parse_release(" 12.8.1 "), (Release{12, 8}));
  EXPECT_EQ(cuda::parse_release("12.7").error().message(), "CUDA 12.7 was never released (12.6 was followed by 12.8)");
  EXPECT_EQ(cuda::parse_release("10.1").error().message(), "CUDA 10.1 is not a release this table knows (11.0 to 13.5)");
}

// The architecture columns: each target is added once; an SM is deprecated
// and removed at most once, never before it is added, and removed after it
// is deprecated; a variant comes no earlier than its SM; the
// result is what check_buildable() answers.
TEST(CudaReleases, ArchitectureColumns) {
  std::map<std::string, Release> added, deprecated, removed;
  auto tokens = [](std::string_view col) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : std::string(col) + " ") {
      if (c == ' ') {
        if (!cur.empty()) out.push_back(cur);
        cur.clear();
      } else {
        cur.push_back(c);
      }
    }
    return out;
  };
  for (const auto& row : cuda::release_table()) {
    if (!row.current) {
      EXPECT_TRUE(row.adds.empty() && row.deprecates.empty() && row.removes.empty());
      continue;
    }
    for (const auto& t : tokens(row.adds)) EXPECT_TRUE(added.emplace(t, row.release).second) << t;
    for (const auto& t : tokens(row.deprecates)) EXPECT_TRUE(deprecated.emplace(t, row.release).second) << t;
    for (const auto& t : tokens(row.removes)) EXPECT_TRUE(removed.emplace(t, row.release).second) << t;
  }
  for (const auto& [t, r] : added) {
    SCOPED_TRACE(t);
    auto a = arch::Arch::parse("sm_" + t);
    ASSERT_TRUE(a);
    std::string base = std::to_string(a->sm);
    ASSERT_TRUE(added.count(base));
    EXPECT_LE(added[base], r);
    arch::Target tg;
    static_cast<arch::Arch&>(tg) = *a;
    tg.sass = true;
    EXPECT_FALSE(arch::check_buildable(tg, r)) << r.to_string();
    if (r > Release{11, 0}) {
      const auto& k = cuda::known_releases();
      auto it = std::find(k.begin(), k.end(), r);
      ASSERT_NE(it, k.begin());
      EXPECT_TRUE(arch::check_buildable(tg, *(it - 1))) << (it - 1)->to_string();
    }
  }
  // 11.0's row adds what 11.0 or older builds, so 11.0 may deprecate it too.
  for (const auto& [t, r] : deprecated) {
    ASSERT_TRUE(added.count(t)) << t;
    EXPECT_LE(added[t], r) << t;
  }
  for (const auto& [t, r] : removed) {
    ASSERT_TRUE(added.count(t)) << t;
    EXPECT_LT(added[t], r) << t;
  }
  for (const auto& [t, r] : removed) {
    if (deprecated.count(t)) {
      EXPECT_LT(deprecated[t], r) << t;
    }
    arch::Target tg;
    tg.sm = static_cast<unsigned>(std::stoul(t));
    tg.sass = true;
    EXPECT_TRUE(arch::check_buildable(tg, r)) << t;
  }
}
