// The compatibility rules (include/cuwheel/cuda/compat.h) and the Arch type
// (include/cuwheel/cuda/arch.h), against the cases cuda-facts.md section 1
// states.
#include <gtest/gtest.h>

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
