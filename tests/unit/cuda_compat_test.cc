// The compatibility rules (include/cuwheel/cuda/compat.h) and the Arch type
// (include/cuwheel/cuda/arch.h), against the cases cuda-facts.md section 1
// states.
#include <gtest/gtest.h>

#include <algorithm>

#include "cuwheel/cuda/arch.h"
#include "cuwheel/cuda/compat.h"

using namespace cuwheel::arch;

namespace {

Arch A(const char* s) { return *Arch::parse(s); }

}  // namespace

TEST(CudaArch, Parse) {
  EXPECT_EQ(A("sm_90a"), (Arch{90, Variant::kA}));
  EXPECT_EQ(A("compute_120f"), (Arch{120, Variant::kF}));
  EXPECT_EQ(A("lto_80"), (Arch{80, Variant::kBase}));
  EXPECT_EQ(A("sm_090"), (Arch{90, Variant::kBase}));
  EXPECT_FALSE(Arch::parse("sm_5"));
  EXPECT_FALSE(Arch::parse("sm_12345"));
  EXPECT_FALSE(Arch::parse("sm_90x"));
  EXPECT_FALSE(Arch::parse("sm_90af"));
  EXPECT_FALSE(Arch::parse("sm_-50"));
  EXPECT_FALSE(Arch::parse("SM_90"));
  EXPECT_FALSE(Arch::parse("90"));
  EXPECT_EQ(A("sm_100f").sm_name(), "sm_100f");
  EXPECT_EQ(A("sm_100f").compute_name(), "compute_100f");
  EXPECT_EQ(A("sm_100f").cc_name(), "10.0f");
  EXPECT_EQ(A("sm_121").major(), 12u);
  EXPECT_EQ(A("sm_121").minor(), 1u);
}

TEST(CudaArch, Tegra) {
  for (unsigned sm : {53u, 62u, 72u, 87u, 101u, 110u}) EXPECT_TRUE(is_tegra(sm)) << sm;
  for (unsigned sm : {50u, 52u, 61u, 70u, 75u, 80u, 86u, 89u, 90u, 100u, 103u, 120u, 121u, 0u, 99u})
    EXPECT_FALSE(is_tegra(sm)) << sm;
}

TEST(CudaCompat, Sass) {
  // 1.1: same major, minor at least the cubin's.
  EXPECT_TRUE(sass_runs_on(A("sm_80"), 86));
  EXPECT_TRUE(sass_runs_on(A("sm_80"), 89));
  EXPECT_FALSE(sass_runs_on(A("sm_86"), 80));
  EXPECT_FALSE(sass_runs_on(A("sm_90"), 100));
  EXPECT_FALSE(sass_runs_on(A("sm_86"), 120));  // field report 14: no SASS across majors
  // 1.1: Tegra only matches itself.
  EXPECT_FALSE(sass_runs_on(A("sm_80"), 87));
  EXPECT_FALSE(sass_runs_on(A("sm_72"), 75));
  EXPECT_TRUE(sass_runs_on(A("sm_87"), 87));
  // 1.3: 'a' on its exact CC only.
  EXPECT_TRUE(sass_runs_on(A("sm_90a"), 90));
  EXPECT_FALSE(sass_runs_on(A("sm_100a"), 103));
  // 1.4, Table 28: 100f on 10.0 and 10.3, 120f on 12.0 and 12.1, 110f on 11.0.
  EXPECT_TRUE(sass_runs_on(A("sm_100f"), 103));
  EXPECT_TRUE(sass_runs_on(A("sm_120f"), 121));
  EXPECT_FALSE(sass_runs_on(A("sm_103f"), 100));
  EXPECT_TRUE(sass_runs_on(A("sm_110f"), 110));
  EXPECT_FALSE(sass_runs_on(A("sm_100f"), 110));
}

TEST(CudaCompat, Ptx) {
  // 1.2: the onion model, across majors, never backwards.
  EXPECT_TRUE(ptx_runs_on(A("compute_80"), 120));
  EXPECT_TRUE(ptx_runs_on(A("compute_80"), 87));
  EXPECT_FALSE(ptx_runs_on(A("compute_90"), 89));
  // 1.3: compute_90a JITs for 9.0 only, never for Blackwell.
  EXPECT_TRUE(ptx_runs_on(A("compute_90a"), 90));
  EXPECT_FALSE(ptx_runs_on(A("compute_90a"), 100));
  EXPECT_FALSE(ptx_runs_on(A("compute_100a"), 103));
  // 1.4: 'f' within its family.
  EXPECT_TRUE(ptx_runs_on(A("compute_100f"), 103));
  EXPECT_TRUE(ptx_runs_on(A("compute_120f"), 121));
  EXPECT_FALSE(ptx_runs_on(A("compute_100f"), 120));
  EXPECT_FALSE(ptx_runs_on(A("compute_100f"), 101));  // Thor (CUDA 12.9's 10.1) is Tegra
}

// --- predict(): the one prediction of cuda-facts.md 1.6 ---------------------

namespace {
std::vector<cuwheel::arch::Arch> as(std::initializer_list<const char*> names) {
  std::vector<cuwheel::arch::Arch> v;
  for (const char* n : names) v.push_back(*cuwheel::arch::Arch::parse(n));
  return v;
}
}  // namespace

TEST(Predict, NativeThenJitThenNone) {
  auto sass = as({"sm_75", "sm_80", "sm_90a"});
  auto ptx = as({"compute_80"});
  auto p86 = cuwheel::arch::predict(sass, ptx, 86);
  EXPECT_EQ(p86.by, cuwheel::arch::RunsBy::native);
  EXPECT_EQ(p86.code->sm_name(), "sm_80");  // the highest CC at or below 8.6 of its major
  auto p90 = cuwheel::arch::predict(sass, ptx, 90);
  EXPECT_EQ(p90.by, cuwheel::arch::RunsBy::native);
  EXPECT_EQ(p90.code->sm_name(), "sm_90a");  // exact CC
  auto p120 = cuwheel::arch::predict(sass, ptx, 120);
  EXPECT_EQ(p120.by, cuwheel::arch::RunsBy::jit);
  EXPECT_EQ(p120.code->compute_name(), "compute_80");
  auto p70 = cuwheel::arch::predict(sass, ptx, 70);
  EXPECT_EQ(p70.by, cuwheel::arch::RunsBy::none);
  EXPECT_FALSE(p70.code);
}

TEST(Predict, ExactVariantsFirstAndHighestPtx) {
  auto sass = as({"sm_100", "sm_100f", "sm_100a"});
  EXPECT_EQ(cuwheel::arch::predict(sass, {}, 100).code->sm_name(), "sm_100a");
  EXPECT_EQ(cuwheel::arch::predict(sass, {}, 103).code->sm_name(), "sm_100f");
  auto ptx = as({"compute_75", "compute_90", "compute_90a"});
  auto p = cuwheel::arch::predict({}, ptx, 90);
  EXPECT_EQ(p.by, cuwheel::arch::RunsBy::jit);
  EXPECT_EQ(p.code->compute_name(), "compute_90a");
  EXPECT_EQ(cuwheel::arch::predict({}, ptx, 120).code->compute_name(), "compute_90");
}

TEST(Predict, ParseNamesKeepsOrderAndDropsWhatDoesNotParse) {
  auto v = cuwheel::arch::parse_names({"sm_90a", "bogus", "compute_120f", ""});
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0].sm_name(), "sm_90a");
  EXPECT_EQ(v[1].compute_name(), "compute_120f");
}

TEST(Predict, ShippedGpusAreSortedAndSkipTegra) {
  auto gpus = cuwheel::arch::shipped_gpus();
  ASSERT_FALSE(gpus.empty());
  EXPECT_TRUE(std::is_sorted(gpus.begin(), gpus.end()));
  for (unsigned g : gpus) EXPECT_FALSE(cuwheel::arch::is_tegra(g)) << g;
  EXPECT_NE(std::find(gpus.begin(), gpus.end(), 90u), gpus.end());
  EXPECT_EQ(std::find(gpus.begin(), gpus.end(), 88u), gpus.end());  // no documented product
  auto all = cuwheel::arch::shipped_gpus(true);
  EXPECT_NE(std::find(all.begin(), all.end(), 87u), all.end());
}
