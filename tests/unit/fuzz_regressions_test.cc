// Inputs found by the fuzz targets (fuzz/fuzz_*.cc), minimised, each kept as
// a named test of the behaviour it proves. The same bytes are in the fuzz
// corpus (fuzz/corpus/<target>/regression-*), so the fuzzers start from them.
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "cuwheel/fatbin.h"

using namespace cuwheel;

// parse_region skipped "padding" when fewer than 4 bytes were left, even when
// they were not zero, without advancing: an endless loop on any region that
// ends in 1-3 non-zero bytes after a container.
TEST(FuzzRegression, FatbinRegionShortNonZeroTailTerminates) {
  const uint8_t input[] = {
      0x50, 0xed, 0x55, 0xba, 0x01, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // empty container
      0x01, 0x02, 0x03,                                                                                // tail
  };
  std::vector<fatbin::Container> partial;
  auto cs = fatbin::parse_region(ByteView(input, sizeof input), 0, &partial);
  ASSERT_FALSE(cs);
  EXPECT_EQ(cs.error().message(), "fatbin container at 0x10: truncated header (3 bytes left)");
  EXPECT_EQ(partial.size(), 1u);
}
