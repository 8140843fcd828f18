// Unit tests for the fatbin reader on containers built byte by byte:
// container and entry header checks, region walking, scanning, and LZ4 /
// ZSTD payload decoding (streams made with liblz4 / libzstd here).
#include <gtest/gtest.h>

#include <lz4.h>
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "byte_builders.h"
#include "cuwheel/base/fileio.h"
#include "cuwheel/check/check.h"
#include "cuwheel/object/cubin.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/fatbin.h"
#include "temp_dir.h"

using namespace cuwheel;
using namespace cuwheel::testing;

namespace {

Bytes lz4_block(const Bytes& in) {
  Bytes out(static_cast<size_t>(LZ4_compressBound(static_cast<int>(in.size()))));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(in.data()), reinterpret_cast<char*>(out.data()),
                               static_cast<int>(in.size()), static_cast<int>(out.size()));
  out.resize(static_cast<size_t>(n));
  return out;
}

Bytes zstd_frame(const Bytes& in) {
  Bytes out(ZSTD_compressBound(in.size()));
  size_t n = ZSTD_compress(out.data(), out.size(), in.data(), in.size(), 3);
  out.resize(n);
  return out;
}

Bytes sample_payload(size_t n) {
  Bytes b;
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>("cubin-payload-"[i % 14]));
  return b;
}

// A container's bytes and its only entry (whose views point into `bytes`).
struct Held {
  Bytes bytes;
  fatbin::Entry e;
};

Held hold(Bytes container) {
  Held h;
  h.bytes = std::move(container);
  auto c = fatbin::parse_container(h.bytes, 0, 0);
  EXPECT_TRUE(c) << (c ? "" : c.error().message());
  if (c && c->entries.size() == 1) h.e = c->entries[0];
  else ADD_FAILURE() << "expected one entry";
  return h;
}

Bytes compressed_container(const Bytes& stream, uint64_t flag, uint64_t uncompressed, uint32_t compressed_size = 0,
                           size_t pad = 0) {
  EntrySpec e;
  e.flags = 0x11 | flag;
  e.payload = stream;
  e.payload.resize(stream.size() + pad, 0);
  e.compressed_size = compressed_size ? compressed_size : static_cast<uint32_t>(stream.size());
  e.uncompressed_size = uncompressed;
  return container_of({e});
}

}  // namespace

// --- container header ------------------------------------------------------

TEST(FatbinContainer, BadMagic) {
  auto b = container_bytes({}, 0, 0x12345678);
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "fatbin container at 0x0: bad magic 0x12345678 (expected 0xba55ed50)");
}

TEST(FatbinContainer, TruncatedHeader) {
  auto b = container_bytes({});
  b.resize(12);
  auto c = fatbin::parse_container(b, 0, 0x100);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "fatbin container at 0x100: truncated header (12 bytes left)");
}

TEST(FatbinContainer, FatSizePastEnd) {
  auto b = container_of({EntrySpec{}});
  poke_le<uint64_t>(b, 8, 0x41);  // one byte more than the 0x40-byte entry
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "fatbin container at 0x0: fat_size 0x41 extends past the end of the data (0x50)");
}

TEST(FatbinContainer, FatSizeOverflowIsRejected) {
  auto b = container_of({EntrySpec{}});
  poke_le<uint64_t>(b, 8, ~uint64_t{0} - 4);
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("extends past the end of the data"), std::string::npos);
}

TEST(FatbinContainer, ContainerHeaderSizeBelow16) {
  auto b = container_bytes({}, 0, 0xBA55ED50, 1, 8);
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "fatbin container at 0x0: header size 0x8 is smaller than 0x10");
}

TEST(FatbinContainer, EmptyContainerHasNoEntries) {
  auto b = container_bytes({});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_TRUE(c->entries.empty());
  EXPECT_EQ(c->fat_size, 0u);
  EXPECT_EQ(c->end(), 16u);
}

TEST(FatbinContainer, OffsetsIncludeBase) {
  EntrySpec e;
  e.payload = sample_payload(8);
  auto b = container_of({e, e});
  auto c = fatbin::parse_container(b, 0, 0x1000);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->offset, 0x1000u);
  ASSERT_EQ(c->entries.size(), 2u);
  EXPECT_EQ(c->entries[0].offset, 0x1010u);
  EXPECT_EQ(c->entries[1].offset, 0x1010u + 0x48);
  EXPECT_EQ(c->entries[1].stored.size(), 8u);
}

TEST(FatbinContainer, TrailingZeroPaddingShorterThanHeaderIsSkipped) {
  Bytes body = entry_bytes(EntrySpec{});
  body.resize(body.size() + 8, 0);
  auto b = container_bytes(body);
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->entries.size(), 1u);
}

TEST(FatbinContainer, TrailingNonZeroBytesAreAnError) {
  Bytes body = entry_bytes(EntrySpec{});
  body.push_back(7);
  auto b = container_bytes(body);
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x50: 64-byte header extends past the end of the container (0x51)");
}

// --- entry header ----------------------------------------------------------

TEST(FatbinEntry, FieldsAreRead) {
  EntrySpec e;
  e.kind = 1;
  e.code_major = 9;
  e.code_minor = 0;
  e.arch = 90;
  e.flags = 0x11 | fatbin::kFlagArchA;
  e.payload = bytes_of(".version 9.0\n");
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  const auto& x = c->entries.at(0);
  EXPECT_EQ(x.kind, fatbin::kPtx);
  EXPECT_EQ(x.version, 0x0101);
  EXPECT_EQ(x.header_size, 0x40u);
  EXPECT_EQ(x.code_major, 9);
  EXPECT_EQ(x.arch, 90u);
  EXPECT_EQ(x.arch_name(), "sm_90a");
  EXPECT_EQ(x.compression(), fatbin::Compression::none);
  EXPECT_EQ(std::string(x.stored.begin(), x.stored.end()), ".version 9.0\n");
}

TEST(FatbinEntry, HeaderSizeBelow0x40) {
  EntrySpec e;
  e.header_size = 0x10;
  e.payload = Bytes(0x40, 0);
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "fatbin container at 0x0: entry at 0x10: header_size 0x10 is smaller than 0x40");
}

TEST(FatbinEntry, HeaderSizeZeroCannotStall) {
  EntrySpec e;
  e.header_size = 0;
  e.payload_size = 0;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("header_size 0x0 is smaller than 0x40"), std::string::npos);
}

TEST(FatbinEntry, HeaderSizePastContainer) {
  EntrySpec e;
  e.header_size = 0x80;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: header_size 0x80 extends past the end of the container (0x50)");
}

TEST(FatbinEntry, PayloadPastContainer) {
  EntrySpec e;
  e.payload = Bytes(16, 1);
  e.payload_size = 17;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: payload of 0x11 bytes at 0x50 extends past the end of the "
            "container (0x60)");
}

TEST(FatbinEntry, PayloadSizeOverflowIsRejected) {
  EntrySpec e;
  e.payload_size = ~uint64_t{0} - 0x20;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("extends past the end of the container"), std::string::npos);
}

TEST(FatbinEntry, IdentifierInsideHeaderIsRead) {
  EntrySpec e;
  e.extra = bytes_of(std::string("dir/a.cu\0\0\0\0\0\0\0\0", 16));
  e.ident_offset = 0x40;
  e.ident_size = 9;  // counts the NUL
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->entries.at(0).identifier, "dir/a.cu");
}

TEST(FatbinEntry, IdentifierOutsideHeader) {
  EntrySpec e;
  e.extra = Bytes(16, 'x');
  e.ident_offset = 0x48;
  e.ident_size = 0x20;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: identifier (32 bytes at +0x48) lies outside the entry header "
            "(0x50 bytes)");
}

TEST(FatbinEntry, IdentifierInsideFixedHeaderIsRejected) {
  EntrySpec e;
  e.ident_offset = 0x8;
  e.ident_size = 4;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("identifier (4 bytes at +0x8) lies outside the entry header"), std::string::npos);
}

TEST(FatbinEntry, OptionsDescriptorOutsideHeader) {
  EntrySpec e;
  e.extra = Bytes(8, 0);
  e.options_offset = 0x44;  // the 8-byte descriptor would end at 0x4c > 0x48
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: ptxas-options descriptor at +0x44 lies outside the entry header");
}

TEST(FatbinEntry, OptionsAreRead) {
  EntrySpec e;
  put_le<uint32_t>(e.extra, 8);  // options start right after the descriptor
  put_le<uint32_t>(e.extra, 4);
  append(e.extra, std::string("-O3\0", 4));
  e.options_offset = 0x40;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->entries.at(0).ptxas_options, "-O3");
}

TEST(FatbinEntry, OptionsLengthPastHeader) {
  EntrySpec e;
  put_le<uint32_t>(e.extra, 8);
  put_le<uint32_t>(e.extra, 0xFFFFFFFF);
  e.options_offset = 0x40;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: ptxas options (4294967295 bytes) lie outside the entry header");
}

TEST(FatbinEntry, CompressedSizeLargerThanPayload) {
  EntrySpec e;
  e.flags = 0x11 | fatbin::kFlagZstd;
  e.payload = Bytes(8, 0);
  e.compressed_size = 9;
  e.uncompressed_size = 8;
  auto b = container_of({e});
  auto c = fatbin::parse_container(b, 0, 0);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(),
            "fatbin container at 0x0: entry at 0x10: compressed size 0x9 exceeds the stored payload size 0x8");
}

TEST(FatbinEntry, KindNames) {
  EXPECT_EQ(fatbin::kind_name(fatbin::kPtx), "ptx");
  EXPECT_EQ(fatbin::kind_name(fatbin::kElf), "elf");
  EXPECT_EQ(fatbin::kind_name(fatbin::kLtoIr), "ltoir");
  EXPECT_EQ(fatbin::kind_name(fatbin::kTileIr), "tile-ir");
  EXPECT_EQ(fatbin::kind_name(0x3), "kind-0x3");
}

// --- regions and scanning --------------------------------------------------

TEST(FatbinRegion, ZeroPaddingBetweenContainers) {
  EntrySpec e;
  e.payload = Bytes(4, 1);  // container of 0x54 bytes; padded to 0x58
  Bytes region = container_of({e});
  region.resize(region.size() + 4, 0);
  append(region, container_of({e}));
  region.resize(region.size() + 12, 0);  // trailing padding too
  auto cs = fatbin::parse_region(region, 0x200);
  ASSERT_TRUE(cs) << cs.error().message();
  ASSERT_EQ(cs->size(), 2u);
  EXPECT_EQ((*cs)[0].offset, 0x200u);
  EXPECT_EQ((*cs)[1].offset, 0x258u);
}

TEST(FatbinRegion, EmptyAndAllZeroRegions) {
  auto a = fatbin::parse_region({}, 0);
  ASSERT_TRUE(a);
  EXPECT_TRUE(a->empty());
  Bytes zeros(64, 0);
  auto z = fatbin::parse_region(zeros, 0);
  ASSERT_TRUE(z);
  EXPECT_TRUE(z->empty());
}

TEST(FatbinRegion, ErrorAfterFirstContainerReturnsPartial) {
  Bytes region = container_of({EntrySpec{}});
  append(region, Bytes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16});
  std::vector<fatbin::Container> partial;
  auto cs = fatbin::parse_region(region, 0, &partial);
  ASSERT_FALSE(cs);
  EXPECT_EQ(cs.error().message(), "fatbin container at 0x50: bad magic 0x4030201 (expected 0xba55ed50)");
  EXPECT_EQ(partial.size(), 1u);
}

TEST(FatbinScan, FindsContainerInGarbage) {
  Bytes b(37, 0xEE);
  EntrySpec e;
  e.payload = Bytes(8, 0);
  append(b, container_of({e}));
  append(b, Bytes(5, 0xEE));
  auto cs = fatbin::scan(b, 0x400);
  ASSERT_EQ(cs.size(), 1u);
  EXPECT_EQ(cs[0].offset, 0x400u + 37);
}

// Garbage made of the magic's own bytes (0xBA everywhere, partial magics
// right before the real one) and a container at offset 0: every container
// is found at its exact offset, and a magic too close to the end is none.
TEST(FatbinScan, FindsContainersAmongPartialMagics) {
  EntrySpec e;
  e.payload = Bytes(8, 0);
  Bytes b = container_of({e});
  append(b, Bytes{0xBA, 0xBA, 0x50, 0xBA, 0x50, 0xED, 0xBA, 0xED, 0x55, 0xBA, 0xBA});
  const size_t second = b.size();
  append(b, container_of({e}));
  append(b, Bytes{0x50, 0xED, 0x55, 0xBA, 0x01, 0x00});  // a magic with no room for a header
  auto cs = fatbin::scan(b, 0x1000);
  ASSERT_EQ(cs.size(), 2u);
  EXPECT_EQ(cs[0].offset, 0x1000u);
  EXPECT_EQ(cs[1].offset, 0x1000u + second);
}

TEST(FatbinScan, IgnoresUnlikelyContainers) {
  Bytes b;
  append(b, container_bytes(entry_bytes(EntrySpec{}), std::nullopt, 0xBA55ED50, 2));  // version 2
  append(b, container_bytes({}));                                                   // no entries
  EntrySpec odd;
  odd.kind = 0x77;
  append(b, container_of({odd}));  // unknown first kind
  EXPECT_TRUE(fatbin::scan(b, 0).empty());
}

// --- decoding --------------------------------------------------------------

TEST(FatbinDecode, RawPayload) {
  EntrySpec e;
  e.payload = sample_payload(100);
  auto held_entry = hold(container_of({e}));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, sample_payload(100));
  auto p = fatbin::decode_prefix(entry, 10);
  ASSERT_TRUE(p);
  EXPECT_EQ(*p, Bytes(d->begin(), d->begin() + 10));
  auto all = fatbin::decode_prefix(entry, 1000);
  ASSERT_TRUE(all);
  EXPECT_EQ(all->size(), 100u);
}

TEST(FatbinDecode, Lz4) {
  Bytes plain = sample_payload(5000);
  auto held_entry = hold(compressed_container(lz4_block(plain), fatbin::kFlagLz4, plain.size(), 0, 7));
  const fatbin::Entry& entry = held_entry.e;
  EXPECT_EQ(entry.compression(), fatbin::Compression::lz4);
  auto d = fatbin::decode(entry);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
  auto p = fatbin::decode_prefix(entry, 64);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(*p, Bytes(plain.begin(), plain.begin() + 64));
}

TEST(FatbinDecode, Zstd) {
  Bytes plain = sample_payload(5000);
  auto held_entry = hold(compressed_container(zstd_frame(plain), fatbin::kFlagZstd, plain.size(), 0, 3));
  const fatbin::Entry& entry = held_entry.e;
  EXPECT_EQ(entry.compression(), fatbin::Compression::zstd);
  auto d = fatbin::decode(entry);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
  auto p = fatbin::decode_prefix(entry, 64);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_EQ(*p, Bytes(plain.begin(), plain.begin() + 64));
}

// --- partial decoding of large cubins -----------------------------------------

namespace {
Bytes fixture_cubin() {
  std::ifstream in(std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/a.cubin", std::ios::binary);
  return Bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
}  // namespace

TEST(FatbinPartial, KeepsPrefixAndTablesAndReadsTheSame) {
  // a.cubin (nvcc 13, sm_90): .shstrtab at 0x40 ... .nv.compat ends at
  // 0x6b8, .text at 0x800, the section header table at 0xfb8.
  const Bytes plain = fixture_cubin();
  ASSERT_GT(plain.size(), 0x1000u);
  auto held = hold(compressed_container(zstd_frame(plain), fatbin::kFlagZstd, plain.size()));
  auto full = cubin::read_cubin(plain, true);
  ASSERT_TRUE(full) << full.error().message();
  // One buffer for every prefix: what an earlier payload left in it
  // (past the kept bytes) must not matter.
  fatbin::PartialBuffer buffer;
  for (uint64_t prefix : {uint64_t{plain.size()}, uint64_t{0x6b8}, uint64_t{0x6b7}, uint64_t{64}}) {
    SCOPED_TRACE(prefix);
    auto p = fatbin::decode_partial(held.e, buffer, prefix, [&](ByteView h) { return cubin::cubin_tables_from(h, prefix); });
    ASSERT_TRUE(p) << p.error().message();
    ASSERT_EQ(p->view.size(), plain.size());
    const fatbin::ByteRanges want = prefix == plain.size() ? fatbin::ByteRanges{{0, plain.size()}}
                                                           : fatbin::ByteRanges{{0, prefix}, {0xfb8, plain.size()}};
    EXPECT_EQ(p->kept, want);
    // Kept bytes are the payload's.
    for (auto [b, e] : want)
      for (uint64_t i = b; i < e; ++i) ASSERT_EQ(p->view[i], plain[i]) << "offset " << i;
    // Whether read_cubin may read it: not when .nv.compat (ending at
    // 0x6b8) or the section names are cut.
    const bool within = cubin::cubin_reads_within(p->view, p->kept);
    EXPECT_EQ(within, prefix >= 0x6b8) << prefix;
    if (within) {
      auto c = cubin::read_cubin(p->view, true);
      ASSERT_TRUE(c) << c.error().message();
      EXPECT_EQ(c->arch_name(), full->arch_name());
      EXPECT_EQ(c->kernels, full->kernels);
      EXPECT_EQ(c->abi_version, full->abi_version);
    }
  }
}

TEST(FatbinPartial, HashesInPlaceOfNames) {
  const Bytes plain = fixture_cubin();
  auto names = cubin::read_cubin(plain, true);
  auto hashes = cubin::read_cubin(plain, true, false);
  ASSERT_TRUE(names && hashes);
  EXPECT_EQ(names->kernels.size(), 2u);
  EXPECT_TRUE(hashes->kernels.empty());
  EXPECT_EQ(hashes->kernel_hashes.size(), 2u);
  EXPECT_EQ(hashes->kernel_count, 2u);
  EXPECT_NE(hashes->kernel_hashes[0], hashes->kernel_hashes[1]);
}

TEST(FatbinPartial, ErrorsAreTheWholeDecodersErrors) {
  Bytes plain = sample_payload(5000);
  auto tables = [](ByteView h) { return cubin::cubin_tables_from(h, 64); };
  fatbin::PartialBuffer buffer;
  Bytes frame = zstd_frame(plain);
  Bytes cut(frame.begin(), frame.begin() + frame.size() / 2);
  auto truncated = hold(compressed_container(cut, fatbin::kFlagZstd, plain.size()));
  auto t = fatbin::decode_partial(truncated.e, buffer, 64, tables);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("entry at 0x10: ZSTD frame: "), std::string::npos) << t.error().message();
  auto lying = hold(compressed_container(frame, fatbin::kFlagZstd, 4999));
  auto l = fatbin::decode_partial(lying.e, buffer, 64, tables);
  ASSERT_FALSE(l);
  EXPECT_EQ(l.error().message(), "entry at 0x10: ZSTD frame declares 0x1388 bytes but the entry header says 0x1387");
  auto lz = hold(compressed_container(lz4_block(plain), fatbin::kFlagLz4, plain.size()));
  EXPECT_FALSE(fatbin::decode_partial(lz.e, buffer, 64, tables));
  auto big = hold(compressed_container(frame, fatbin::kFlagZstd, plain.size()));
  auto b = fatbin::decode_partial(big.e, buffer, 64, tables, 1000);
  ASSERT_FALSE(b);
  EXPECT_EQ(b.error().message(), "entry at 0x10: declared uncompressed size 0x1388 exceeds the limit 0x3e8");
  // Not an ELF image: no tables, only the prefix is kept, and the reader
  // is told it may not read it.
  auto ok = fatbin::decode_partial(big.e, buffer, 64, tables);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->kept, (fatbin::ByteRanges{{0, 64}}));
  EXPECT_FALSE(cubin::cubin_reads_within(ok->view, ok->kept));
}

// decode_head: the whole payload decoded and checked as decode_into does,
// only its first bytes kept.
TEST(FatbinDecodeHead, SameBytesAndErrorsAsDecodeInto) {
  Bytes plain = sample_payload(300000);
  Bytes frame = zstd_frame(plain);
  auto whole = [](const fatbin::Entry& e) -> std::string {
    fatbin::DecodeBuffer b;
    auto d = fatbin::decode_into(e, b);
    return d ? std::string(reinterpret_cast<const char*>(d->data()), d->size()) : "error: " + d.error().message();
  };
  auto head = [](const fatbin::Entry& e, uint64_t keep) -> std::string {
    fatbin::DecodeBuffer b;
    auto d = fatbin::decode_head(e, b, keep);
    return d ? std::string(reinterpret_cast<const char*>(d->data()), d->size()) : "error: " + d.error().message();
  };
  auto good = hold(compressed_container(frame, fatbin::kFlagZstd, plain.size()));
  for (uint64_t keep : {uint64_t{1}, uint64_t{64}, uint64_t{4096}, uint64_t{plain.size()}, uint64_t{plain.size() + 9}}) {
    SCOPED_TRACE(keep);
    EXPECT_EQ(head(good.e, keep), whole(good.e).substr(0, keep));
  }
  Bytes cut(frame.begin(), frame.begin() + frame.size() / 2);
  Bytes flipped = frame;
  flipped[flipped.size() / 2] ^= 0x5a;
  Bytes twice = frame;
  twice.insert(twice.end(), frame.begin(), frame.end());
  const std::vector<std::pair<Bytes, uint64_t>> bad = {
      {cut, plain.size()}, {flipped, plain.size()}, {frame, plain.size() - 1}, {frame, plain.size() + 1},
      {twice, plain.size()}, {Bytes{1, 2, 3, 4, 5, 6, 7, 8}, plain.size()}};
  for (size_t i = 0; i < bad.size(); ++i) {
    SCOPED_TRACE(i);
    auto h = hold(compressed_container(bad[i].first, fatbin::kFlagZstd, bad[i].second));
    const std::string w = whole(h.e);
    EXPECT_EQ(head(h.e, 64), w.rfind("error: ", 0) == 0 ? w : w.substr(0, 64));
  }
  fatbin::DecodeBuffer b;
  auto limit = fatbin::decode_head(good.e, b, 64, 1000);
  ASSERT_FALSE(limit);
  EXPECT_EQ(limit.error().message(), "entry at 0x10: declared uncompressed size 0x493e0 exceeds the limit 0x3e8");
}

TEST(FatbinDecode, Lz4DeclaredSizeTooSmall) {
  Bytes plain = sample_payload(5000);
  auto held_entry = hold(compressed_container(lz4_block(plain), fatbin::kFlagLz4, 4000));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: LZ4 block is corrupt or larger than the declared size 0xfa0");
}

TEST(FatbinDecode, Lz4DeclaredSizeLargerDecodesActual) {
  Bytes plain = sample_payload(300);
  auto held_entry = hold(compressed_container(lz4_block(plain), fatbin::kFlagLz4, 100000));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
}

TEST(FatbinDecode, Lz4Corrupt) {
  Bytes junk(40, 0xFF);
  auto held_entry = hold(compressed_container(junk, fatbin::kFlagLz4, 64));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: LZ4 block is corrupt or larger than the declared size 0x40");
  auto p = fatbin::decode_prefix(entry, 16);
  ASSERT_FALSE(p);
  EXPECT_EQ(p.error().message(), "entry at 0x10: LZ4 block is corrupt");
}

TEST(FatbinDecode, DeclaredSizeAboveLimit) {
  Bytes plain = sample_payload(300);
  auto held_entry = hold(compressed_container(zstd_frame(plain), fatbin::kFlagZstd, 1ull << 40));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry, 1 << 20);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: declared uncompressed size 0x10000000000 exceeds the limit 0x100000");
  auto held_l = hold(compressed_container(lz4_block(plain), fatbin::kFlagLz4, 1ull << 40));
  const fatbin::Entry& l = held_l.e;
  auto dl = fatbin::decode(l, 1 << 20);
  ASSERT_FALSE(dl);
  EXPECT_EQ(dl.error().message(), "entry at 0x10: declared uncompressed size 0x10000000000 exceeds the limit 0x100000");
}

TEST(FatbinDecode, ZstdFrameSizeDisagreesWithHeader) {
  Bytes plain = sample_payload(300);
  auto held_entry = hold(compressed_container(zstd_frame(plain), fatbin::kFlagZstd, 299));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: ZSTD frame declares 0x12c bytes but the entry header says 0x12b");
}

TEST(FatbinDecode, ZstdNotAFrame) {
  auto held_entry = hold(compressed_container(Bytes(32, 0xAB), fatbin::kFlagZstd, 64));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: not a ZSTD frame");
  EXPECT_FALSE(fatbin::decode_prefix(entry, 16));
}

TEST(FatbinDecode, ZstdTruncatedFrame) {
  Bytes plain = sample_payload(5000);
  Bytes frame = zstd_frame(plain);
  frame.resize(frame.size() / 2);
  auto held_entry = hold(compressed_container(frame, fatbin::kFlagZstd, plain.size()));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_NE(d.error().message().find("entry at 0x10: ZSTD frame: "), std::string::npos);
  // The prefix decoder returns what the complete blocks give (here: the
  // only block is cut, so nothing) and does not wait for more input.
  auto p = fatbin::decode_prefix(entry, 64);
  ASSERT_TRUE(p) << p.error().message();
  EXPECT_LE(p->size(), 64u);
  EXPECT_EQ(*p, Bytes(plain.begin(), plain.begin() + p->size()));
}

TEST(FatbinDecode, CompressedSizeZeroMeansWholePayload) {
  Bytes plain = sample_payload(700);
  Bytes frame = zstd_frame(plain);
  EntrySpec e;
  e.flags = 0x11 | fatbin::kFlagZstd;
  e.payload = frame;
  e.compressed_size = 0;
  e.uncompressed_size = plain.size();
  auto held_entry = hold(container_of({e}));
  const fatbin::Entry& entry = held_entry.e;
  EXPECT_EQ(entry.stored.size(), frame.size());
  auto d = fatbin::decode(entry);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
}

TEST(FatbinDecode, LegacyCompressionIsUnsupported) {
  EntrySpec e;
  e.flags = 0x11 | fatbin::kFlagCompressLegacy;
  e.payload = Bytes(8, 0);
  auto held_entry = hold(container_of({e}));
  const fatbin::Entry& entry = held_entry.e;
  auto d = fatbin::decode(entry);
  ASSERT_FALSE(d);
  EXPECT_EQ(d.error().message(), "entry at 0x10: legacy compression (flag 0x1000) is not supported");
  EXPECT_FALSE(fatbin::decode_prefix(entry, 8));
}

// One buffer for a run of entries of every kind and size: each decodes to
// its own bytes, a raw payload is the stored bytes themselves, the buffer
// never shrinks unless trimmed, and an error after successes is the same
// error decode() gives.
TEST(FatbinDecode, DecodeIntoReusesOneBuffer) {
  fatbin::DecodeBuffer buf;
  Bytes big = sample_payload(70000), small = sample_payload(300), mid = sample_payload(5000);
  auto z_big = hold(compressed_container(zstd_frame(big), fatbin::kFlagZstd, big.size()));
  auto l_small = hold(compressed_container(lz4_block(small), fatbin::kFlagLz4, small.size()));
  auto z_mid = hold(compressed_container(zstd_frame(mid), fatbin::kFlagZstd, mid.size()));
  EntrySpec raw_spec;
  raw_spec.payload = sample_payload(100);
  auto raw = hold(container_of({raw_spec}));
  for (int round = 0; round < 2; ++round) {
    auto a = fatbin::decode_into(z_big.e, buf);
    ASSERT_TRUE(a) << a.error().message();
    EXPECT_EQ(Bytes(a->begin(), a->end()), big);
    const size_t cap = buf.capacity();
    EXPECT_GE(cap, big.size());
    auto b = fatbin::decode_into(l_small.e, buf);
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(Bytes(b->begin(), b->end()), small);
    auto c = fatbin::decode_into(z_mid.e, buf);
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(Bytes(c->begin(), c->end()), mid);
    EXPECT_EQ(buf.capacity(), cap);  // reused, not reallocated
    auto r = fatbin::decode_into(raw.e, buf);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->data(), raw.e.stored.data());
    EXPECT_EQ(r->size(), 100u);
  }
  Bytes frame = zstd_frame(mid);
  frame.resize(frame.size() / 2);
  auto cut = hold(compressed_container(frame, fatbin::kFlagZstd, mid.size()));
  auto bad = fatbin::decode_into(cut.e, buf);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), fatbin::decode(cut.e).error().message());
  buf.trim(1u << 20);
  EXPECT_GT(buf.capacity(), 0u);  // 70000 bytes: kept
  buf.trim(1000);
  EXPECT_EQ(buf.capacity(), 0u);
}

// Bytes after the ZSTD frame inside the stored payload are not part of it,
// in the one-call path as in the stepwise one.
TEST(FatbinDecode, ZstdTrailingBytesAfterTheFrameAreIgnored) {
  Bytes plain = sample_payload(5000);
  Bytes stored = zstd_frame(plain);
  append(stored, Bytes(13, 0xEE));
  auto held_entry = hold(compressed_container(stored, fatbin::kFlagZstd, plain.size()));
  auto d = fatbin::decode(held_entry.e);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
}

// --- a payload that does not decode is unreadable input ----------------------

namespace {

// A raw fatbin file with one ZSTD-compressed PTX entry (kind 1, ISA 9.0).
std::string write_ptx_fatbin(const std::string& name, const Bytes& frame, uint64_t declared) {
  EntrySpec e;
  e.kind = 1;
  e.code_major = 9;
  e.code_minor = 0;
  e.arch = 90;
  e.flags = 0x11 | fatbin::kFlagZstd;
  e.payload = frame;
  e.compressed_size = static_cast<uint32_t>(frame.size());
  e.uncompressed_size = declared;
  Bytes b = container_of({e});
  static const cuwheel::test::TempDir dir("fatbin");  // this process's own, removed at exit
  std::filesystem::path p = dir / name;
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), static_cast<std::streamsize>(b.size()));
  return p.string();
}

Bytes ptx_text() {
  std::string t = ".version 9.0\n.target sm_90\n.address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
  while (t.size() < 3000) t += "// padding line of the PTX text\n";
  return Bytes(t.begin(), t.end());
}

}  // namespace

TEST(DeviceCodePayload, CheckReportsAPayloadThatDoesNotDecode) {
  const Bytes plain = ptx_text();
  const Bytes good = zstd_frame(plain);
  Bytes cut = good;
  cut.resize(cut.size() / 2);
  struct Case {
    const char* name;
    Bytes frame;
    uint64_t declared;
    const char* error;  // "" = reads
  } cases[] = {
      {"good.fatbin", good, plain.size(), ""},
      {"cut.fatbin", cut, plain.size(), "entry at 0x10: ZSTD frame: "},
      {"huge.fatbin", good, 0xFFFFFFFFFFFFFFFFull, "entry at 0x10: declared uncompressed size 0xffffffffffffffff"},
  };
  for (const auto& c : cases) {
    const std::string path = write_ptx_fatbin(c.name, c.frame, c.declared);
    auto ms = check::build_models(path, check::BuildOptions{});
    ASSERT_TRUE(ms) << c.name << ": " << ms.error().message();
    ASSERT_EQ(ms->size(), 1u);
    const auto& errs = (*ms)[0].read_errors;
    if (*c.error == 0) {
      EXPECT_TRUE(errs.empty()) << c.name << ": " << errs[0].second;
      ASSERT_EQ((*ms)[0].libraries.size(), 1u);
      EXPECT_EQ((*ms)[0].libraries[0].summary.ptx, std::vector<std::string>{"compute_90"});
    } else {
      ASSERT_EQ(errs.size(), 1u) << c.name;
      EXPECT_EQ(errs[0].first, path);
      EXPECT_EQ(errs[0].second.rfind(c.error, 0), 0u) << errs[0].second;
    }
    std::filesystem::remove(path);
  }
}

TEST(DeviceCodePayload, Lz4SizeOfOneDoesNotDecode) {
  const Bytes plain = ptx_text();
  Bytes block(static_cast<size_t>(LZ4_compressBound(static_cast<int>(plain.size()))));
  int n = LZ4_compress_default(reinterpret_cast<const char*>(plain.data()), reinterpret_cast<char*>(block.data()),
                               static_cast<int>(plain.size()), static_cast<int>(block.size()));
  block.resize(static_cast<size_t>(n));
  auto held = hold(compressed_container(block, fatbin::kFlagLz4, 1));
  WarningSink w;
  Bytes whole = held.bytes;
  auto dc = read_device_code(whole, Depth::full, &w);
  ASSERT_TRUE(dc) << dc.error().message();
  ASSERT_EQ(dc->entries.size(), 1u);
  EXPECT_EQ(dc->entries[0].payload_error, "entry at 0x10: LZ4 block is corrupt or larger than the declared size 0x1");
}

// --- containers outside the fatbin sections (Origin::data) -------------------

namespace {
Bytes host_with(const std::vector<SectionSpec>& sections) {
  return elf64_image(3 /*ET_DYN*/, 62 /*EM_X86_64*/, 0, 0, 0, sections);
}
constexpr uint64_t kAlloc = 0x2, kWrite = 0x1, kExec = 0x4;
}  // namespace

TEST(FatbinData, ContainerInAllocatedDataSectionIsFound) {
  Bytes c = container_of({EntrySpec{.arch = 90, .payload = Bytes(32, 0)}});
  Bytes rodata(24, 0xAB);  // other data first
  append(rodata, c);
  auto bytes = host_with({SectionSpec{".rodata", 1, rodata, 0, 0, 0, kAlloc}});
  auto f = elf::File::parse(bytes);
  ASSERT_TRUE(f) << f.error().message();
  auto located = fatbin::find_in_elf(*f, nullptr);
  ASSERT_TRUE(located) << located.error().message();
  ASSERT_EQ(located->size(), 1u);
  EXPECT_EQ((*located)[0].origin, fatbin::Origin::data);
  EXPECT_EQ((*located)[0].section, ".rodata");
  EXPECT_FALSE((*located)[0].via_wrapper);
  EXPECT_EQ((*located)[0].container.entries.at(0).arch, 90u);
  auto writable = host_with({SectionSpec{".ldata", 1, rodata, 0, 0, 0, kAlloc | kWrite}});
  auto fw = elf::File::parse(writable);
  ASSERT_TRUE(fw);
  auto lw = fatbin::find_in_elf(*fw, nullptr);
  ASSERT_TRUE(lw);
  ASSERT_EQ(lw->size(), 1u);
  EXPECT_EQ((*lw)[0].section, ".ldata");
}

TEST(FatbinData, CodeNonAllocatedAndDecoysAreNotScanned) {
  Bytes c = container_of({EntrySpec{.arch = 90, .payload = Bytes(32, 0)}});
  // Executable code, a section that is not loaded, debug data: not scanned.
  for (uint64_t flags : {kAlloc | kExec, uint64_t{0}}) {
    auto bytes = host_with({SectionSpec{".text", 1, c, 0, 0, 0, flags}});
    auto f = elf::File::parse(bytes);
    ASSERT_TRUE(f);
    auto l = fatbin::find_in_elf(*f, nullptr);
    ASSERT_TRUE(l);
    EXPECT_TRUE(l->empty()) << flags;
  }
  // The magic with a header that is not a sane container.
  Bytes decoy = container_bytes(Bytes(8, 0), 0x1000);
  auto bytes = host_with({SectionSpec{".rodata", 1, decoy, 0, 0, 0, kAlloc}});
  auto f = elf::File::parse(bytes);
  ASSERT_TRUE(f);
  auto l = fatbin::find_in_elf(*f, nullptr);
  ASSERT_TRUE(l);
  EXPECT_TRUE(l->empty());
}

// `list --format cuobjdump` reads only what cuobjdump lists: a library's
// unreferenced containers in other data sections (.rodata here) are found
// for show/check (Sections::all) and not read at all for the listing
// (Sections::listed), whose output is the same either way.
TEST(FindInElf, DataSectionScanIsSkippedForTheListing) {
  auto bytes = read_whole_file(std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/datafatbin/libown_rodata.so");
  ASSERT_TRUE(bytes) << bytes.error().message();
  ByteView v(reinterpret_cast<const uint8_t*>(bytes->data()), bytes->size());
  auto all = read_device_code(v, Depth::arch, nullptr);
  auto listed = read_device_code(v, Depth::arch, nullptr, {}, nullptr, Sections::listed);
  ASSERT_TRUE(all && listed);
  auto data_entries = [](const DeviceCode& dc) {
    size_t n = 0;
    for (const auto& e : dc.entries) n += e.origin == fatbin::Origin::data;
    return n;
  };
  EXPECT_GT(data_entries(*all), 0u);
  EXPECT_EQ(data_entries(*listed), 0u);
  EXPECT_EQ(all->entries.size() - data_entries(*all), listed->entries.size());
}
