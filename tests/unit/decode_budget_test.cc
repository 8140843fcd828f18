// Decompression bombs inside fatbins: every input decodes its compressed
// payloads within one DecodeBudget (include/cuwheel/object/devicecode.h),
// taken in entry order before decoding starts. Fixtures: tests/fixtures/bombs
// (tests/fixtures/make_bombs.sh) and containers built here with libzstd.
#include <gtest/gtest.h>

#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "byte_builders.h"
#include "cuwheel/base/source.h"
#include "cuwheel/model/model.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/fatbin.h"

using namespace cuwheel;
using namespace cuwheel::testing;

namespace {

const std::string kBombs = std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bombs/";

// A ZSTD frame of `n` newline bytes that records its content size.
Bytes zstd_of_newlines(size_t n) {
  std::vector<uint8_t> plain(n, '\n');
  Bytes frame(ZSTD_compressBound(n));
  size_t got = ZSTD_compress(frame.data(), frame.size(), plain.data(), plain.size(), 1);
  EXPECT_FALSE(ZSTD_isError(got));
  frame.resize(got);
  return frame;
}

// One PTX entry (ISA 8.0, compute_90) whose payload is the ZSTD frame `z`
// of `size` bytes.
EntrySpec zstd_ptx(const Bytes& z, uint64_t size) {
  EntrySpec e;
  e.kind = fatbin::kPtx;
  e.arch = 90;
  e.code_major = 8;
  e.flags = 0x11 | fatbin::kFlagZstd;
  e.payload = z;
  e.compressed_size = static_cast<uint32_t>(z.size());
  e.uncompressed_size = size;
  return e;
}

}  // namespace

TEST(DecodeBudget, IsARatioOfTheStoredSizeWithAFloor) {
  EXPECT_EQ(DecodeBudget(0).limit(), DecodeBudget::kFloor);
  EXPECT_EQ(DecodeBudget(33808).limit(), DecodeBudget::kFloor);
  EXPECT_EQ(DecodeBudget(100ull << 20).limit(), DecodeBudget::kRatio * (100ull << 20));
  EXPECT_EQ(DecodeBudget(UINT64_MAX / 2).limit(), UINT64_MAX);  // no wrap-around
  DecodeBudget b(0);
  EXPECT_TRUE(b.take(DecodeBudget::kFloor - 10));
  EXPECT_FALSE(b.take(11));  // refused, nothing taken
  EXPECT_EQ(b.used(), DecodeBudget::kFloor - 10);
  EXPECT_TRUE(b.take(10));
  EXPECT_FALSE(b.take(1));
  EXPECT_FALSE(b.take(UINT64_MAX));
}

// The repro: a 33 KB raw fatbin whose one ZSTD PTX entry declares
// just under 1 GiB. It was decoded (12.5 s, 3.0 GB for `check`); now it
// is refused before any byte is decoded, with the figures.
TEST(DecodeBudget, OneEntryOfAGibibyteFromThirtyThreeKilobytes) {
  auto blob = Blob::map_file(kBombs + "ptx_1gib.fatbin");
  ASSERT_TRUE(blob) << blob.error().message();
  ASSERT_LT(blob->view().size(), 40000u);
  WarningSink w;
  auto dc = read_device_code(blob->view(), Depth::full, &w);
  ASSERT_TRUE(dc) << dc.error().message();
  ASSERT_EQ(dc->entries.size(), 1u);
  EXPECT_EQ(dc->entries[0].payload_error,
            "decompression bomb: entry at 0x10 would decode to 1024.0 MiB, past the 64.0 MiB this input may decode "
            "(64 times its 33.0 KiB, at least 64.0 MiB); not decoded");
  EXPECT_FALSE(dc->entries[0].ptx);  // nothing decoded
  // The headers alone stay listable: `list` reads no payload.
  auto headers = read_device_code(blob->view(), Depth::arch, nullptr);
  ASSERT_TRUE(headers);
  EXPECT_EQ(headers->entries.at(0).payload_error, "");
  // As a model (what check and show read), the object is unreadable.
  model::LibraryModel lib = model::read_object(blob->view());
  EXPECT_EQ(lib.error, dc->entries[0].payload_error);
}

// Twenty 4 MiB entries in a 5 KB fatbin: the first sixteen fill the 64 MiB
// floor exactly and are decoded; the last four share one message. With 20
// entries the payloads are decoded on several threads; what is refused is
// fixed before they start, so every run gives the same answer.
TEST(DecodeBudget, EntriesAreAdmittedInOrderWhateverTheThreads) {
  const Bytes z = zstd_of_newlines(4u << 20);
  Bytes body;
  for (int i = 0; i < 20; ++i) append(body, entry_bytes(zstd_ptx(z, 4u << 20)));
  const Bytes fb = container_bytes(body);
  ASSERT_LT(fb.size(), 64u * 1024);
  for (int run = 0; run < 3; ++run) {
    auto dc = read_device_code(fb, Depth::full, nullptr);
    ASSERT_TRUE(dc) << dc.error().message();
    ASSERT_EQ(dc->entries.size(), 20u);
    for (size_t i = 0; i < 16; ++i) {
      EXPECT_EQ(dc->entries[i].payload_error, "") << i;
      ASSERT_TRUE(dc->entries[i].ptx) << i;
    }
    char kib[32];
    std::snprintf(kib, sizeof kib, "%.1f KiB", double(fb.size()) / 1024);
    const std::string want = "decompression bomb: entry at " + hex(dc->entries[16].offset) +
                             " and 3 more would decode to 16.0 MiB, past the 64.0 MiB this input may decode (64 times "
                             "its " + std::string(kib) + ", at least 64.0 MiB; 64.0 MiB taken before); not decoded";
    for (size_t i = 16; i < 20; ++i) {
      EXPECT_EQ(dc->entries[i].payload_error, want) << i;
      EXPECT_FALSE(dc->entries[i].ptx) << i;
    }
  }
}

// One budget for a whole input: a library whose one entry decodes to
// 40 MiB is fine alone, and the second such library of the same wheel is
// past the wheel's 64 MiB.
TEST(DecodeBudget, LibrariesOfOneInputShareIt) {
  auto blob = Blob::map_file(kBombs + "libptx_40mib.so");
  ASSERT_TRUE(blob) << blob.error().message();
  model::LibraryModel alone = model::read_object(blob->view());
  EXPECT_EQ(alone.error, "");
  DecodeBudget wheel(20000);  // a 20 KB wheel
  model::ReadObjectOptions ro;
  ro.budget = &wheel;
  model::LibraryModel first = model::read_object(blob->view(), ro);
  EXPECT_EQ(first.error, "");
  EXPECT_EQ(wheel.used(), 40u << 20);
  model::LibraryModel second = model::read_object(blob->view(), ro);
  EXPECT_EQ(second.error,
            "decompression bomb: entry at 0x1010 would decode to 40.0 MiB, past the 64.0 MiB this input may decode "
            "(64 times its 19.5 KiB, at least 64.0 MiB; 40.0 MiB taken before); not decoded");
}

// An LZ4 entry takes what its stored bytes can expand to, not what its
// header declares (a raw block grows at most about 255 times).
TEST(DecodeBudget, Lz4TakesItsExpansionBoundNotItsDeclaredSize) {
  Bytes plain(300, 'a');
  Bytes block(static_cast<size_t>(LZ4_compressBound(300)));
  block.resize(static_cast<size_t>(LZ4_compress_default(reinterpret_cast<const char*>(plain.data()),
                                                        reinterpret_cast<char*>(block.data()), 300,
                                                        static_cast<int>(block.size()))));
  EntrySpec e = zstd_ptx(block, 0x3ffffff0);
  e.flags = 0x11 | fatbin::kFlagLz4;
  const Bytes fb = container_of({e});
  auto c = fatbin::parse_container(fb, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(fatbin::decode_bound(c->entries.at(0)), block.size() * 256 + 64);
  DecodeBudget b(fb.size());
  auto dc = read_device_code(fb, Depth::full, nullptr, {}, &b);
  ASSERT_TRUE(dc);
  EXPECT_EQ(dc->entries.at(0).payload_error, "");
  EXPECT_EQ(b.used(), block.size() * 256 + 64);
  // Raw payloads and entries over decode()'s own 1 GiB limit take nothing.
  EntrySpec raw;
  raw.payload = Bytes(64, 0);
  auto cr = fatbin::parse_container(container_of({raw}), 0, 0);
  ASSERT_TRUE(cr);
  EXPECT_EQ(fatbin::decode_bound(cr->entries.at(0)), 0u);
  auto huge = fatbin::parse_container(container_of({zstd_ptx(zstd_of_newlines(16), (1ull << 30) + 1)}), 0, 0);
  ASSERT_TRUE(huge);
  EXPECT_EQ(fatbin::decode_bound(huge->entries.at(0)), 0u);
}
