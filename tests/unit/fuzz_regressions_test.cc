// Bugs found by the fuzz targets (fuzz/fuzz_*.cc), or while reading the code
// they reach and then confirmed under their sanitizers: each input,
// minimised, is kept as a named test of the behaviour it proves. The same
// bytes are in the fuzz corpus (fuzz/corpus/<target>/regression-* and the
// hostile-* seeds), so the fuzzers start from them.
#include <gtest/gtest.h>

#include <lz4.h>
#include <zstd.h>

#include <cstdint>
#include <vector>

#include "byte_builders.h"
#include "cuwheel/model/model.h"
#include "cuwheel/object/cubin.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/object/elf.h"
#include "cuwheel/model/facts.h"
#include "cuwheel/object/fatbin.h"

using namespace cuwheel;
using namespace cuwheel::testing;

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

// .gnu.version_r records whose vn_next and vna_next are 16 (one record) and
// whose vn_aux is 0: every Verneed entry re-walks all later records as its
// Vernaux chain (vn_cnt 0xffff), so N records cost N^2/2 visits and as many
// output strings (a 1 MiB table: ~2^31). Found by reading the walk while
// fuzzing; the walk is now bounded by the records that fit in the table.
TEST(FuzzRegression, ElfVerneedOverlappingChainsAreBounded) {
  const uint8_t record[16] = {0x01, 0x00, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0};
  Bytes verneed;
  for (int i = 0; i < 3; ++i) verneed.insert(verneed.end(), record, record + 16);
  Bytes dynamic(16, 0);  // DT_NULL
  // Sections: 1 .dynstr, 2 .dynamic (link 1), 3 .gnu.version_r (sh_info: 3 entries).
  auto img = elf64_image(3, 62, 0, 0, 0,
                         {{".dynstr", 3, Bytes{0}}, {".dynamic", 6, dynamic, 1}, {".gnu.version_r", 0x6ffffffe, verneed, 1, 3}});
  auto f = elf::File::parse(img);
  ASSERT_TRUE(f) << f.error().message();
  auto vn = f->version_needs();
  ASSERT_FALSE(vn);
  EXPECT_EQ(vn.error().message(), ".gnu.version_r: more than 3 records in 0x30 bytes (overlapping vn_next/vna_next chains)");
}

// read_ptx passed an empty view's data() (null) to memchr, which is
// undefined even for length 0 (UBSan: "null pointer passed as argument 1").
// An empty PTX entry, or a compressed one that decodes to nothing, got there.
TEST(FuzzRegression, PtxEmptyPayloadIsNotPassedToMemchr) {
  auto p = cubin::read_ptx(ByteView{}, true);
  EXPECT_FALSE(p.version);
  EXPECT_TRUE(p.targets.empty());
  EXPECT_TRUE(p.entries.empty());
}

// arch_less parsed the SM number of "sm_<n>" into an int; an entry header's
// 32-bit arch field (here 4261412780) overflowed it (UBSan: signed integer
// overflow in summarize's sort).
TEST(FuzzRegression, ArchLessHugeSmNumberDoesNotOverflow) {
  EXPECT_TRUE(arch_less("sm_80", "sm_4261412780"));
  EXPECT_FALSE(arch_less("sm_4261412780", "sm_80"));
  EXPECT_TRUE(arch_less("sm_99999999999999999999999", "sm_999999999999999999999999a"));
  DeviceCode dc;
  for (uint32_t sm : {4261412780u, 80u}) {
    EntryFacts e;
    e.kind = fatbin::kElf;
    e.sm = sm;
    dc.entries.push_back(e);
  }
  auto s = summarize(dc);
  EXPECT_EQ(s.sass, (std::vector<std::string>{"sm_80", "sm_4261412780"}));
}

// In a relocatable object the wrapper's data pointer is S + A from its
// relocation; find_in_elf added them as int64_t, so a hostile addend
// (INT64_MAX, symbol value 0x10) was signed overflow (UBSan). The sum is
// now modular, and out of range it leaves the pointer unresolved.
TEST(FuzzRegression, FatbinWrapperRelocationAddendOverflow) {
  Bytes container = container_of({EntrySpec{}});
  Bytes wrapper;
  put_le<uint32_t>(wrapper, 0x466243B1);  // wrapper magic
  put_le<uint32_t>(wrapper, 1);           // version
  put_le<uint64_t>(wrapper, 0);           // data (relocated)
  put_le<uint64_t>(wrapper, 0);
  Bytes rela;
  put_le<uint64_t>(rela, 8);                          // r_offset: the data word
  put_le<uint64_t>(rela, (uint64_t{1} << 32) | 1);    // symbol 1, R_X86_64_64
  put_le<uint64_t>(rela, 0x7fffffffffffffffull);      // r_addend
  Bytes syms = elf64_symbol(0, 0, 0, 0);
  append(syms, elf64_symbol(1, 0x03, 0, 1, 0x10));    // section symbol of __nv_relfatbin, value 0x10
  // Sections: 1 __nv_relfatbin, 2 .nvFatBinSegment, 3 .rela (info 2, link 4), 4 .symtab (link 5), 5 .strtab.
  auto img = elf64_image(1, 62, 0, 0, 0,
                         {{"__nv_relfatbin", 1, container},
                          {".nvFatBinSegment", 1, wrapper},
                          {".rela.nvFatBinSegment", 4, rela, 4, 2, 24},
                          {".symtab", 2, syms, 5, 1, 24},
                          {".strtab", 3, Bytes{0, 's', 0}}});
  WarningSink warnings;
  auto dc = read_device_code(img, Depth::headers, &warnings);
  ASSERT_TRUE(dc) << dc.error().message();
  ASSERT_EQ(dc->entries.size(), 1u);  // found by the section walk
  EXPECT_FALSE(dc->entries[0].via_wrapper);
  bool unresolved = false;
  for (const auto& w : warnings.messages()) unresolved |= w.find("unresolved") != std::string::npos;
  EXPECT_TRUE(unresolved);
}

namespace {

// A container with one ELF entry whose payload is `stream` and whose header
// declares `declared` uncompressed bytes.
Bytes lying_entry(const Bytes& stream, uint64_t flag, uint64_t declared) {
  EntrySpec e;
  e.flags = 0x11 | flag;
  e.payload = stream;
  e.compressed_size = static_cast<uint32_t>(stream.size());
  e.uncompressed_size = declared;
  return container_of({e});
}

Bytes text_bytes(size_t n) {
  Bytes b;
  for (size_t i = 0; i < n; ++i) b.push_back(static_cast<uint8_t>('a' + i % 7));
  return b;
}

}  // namespace

// A 96-byte fatbin whose LZ4 entry declares 0x3ffffff0 uncompressed bytes
// made decode() allocate (and zero) 1 GiB before decompressing 16 bytes
// (fuzz_devicecode, -rss_limit_mb=512: "out-of-memory (malloc(1073741808))").
// The buffer is now bounded by what the stored bytes can expand to.
TEST(FuzzRegression, FatbinLz4LyingDeclaredSizeDoesNotAllocateIt) {
  const Bytes plain = text_bytes(300);
  Bytes block(static_cast<size_t>(LZ4_compressBound(300)));
  block.resize(static_cast<size_t>(LZ4_compress_default(reinterpret_cast<const char*>(plain.data()),
                                                        reinterpret_cast<char*>(block.data()), 300,
                                                        static_cast<int>(block.size()))));
  const Bytes fb = lying_entry(block, fatbin::kFlagLz4, 0x3ffffff0);
  auto c = fatbin::parse_container(fb, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  auto d = fatbin::decode(c->entries.at(0));
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
  EXPECT_LT(d->capacity(), size_t{1} << 20);
}

// Same for ZSTD: a frame that does not record its content size, in an entry
// that declares 0x3ffffff0 bytes, allocated the declared size up front. The
// output buffer now grows with the data.
TEST(FuzzRegression, FatbinZstdLyingDeclaredSizeDoesNotAllocateIt) {
  const Bytes plain = text_bytes(300);
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 0);
  Bytes frame(ZSTD_compressBound(plain.size()));
  size_t n = ZSTD_compress2(cctx, frame.data(), frame.size(), plain.data(), plain.size());
  ZSTD_freeCCtx(cctx);
  ASSERT_FALSE(ZSTD_isError(n));
  frame.resize(n);
  ASSERT_EQ(ZSTD_getFrameContentSize(frame.data(), frame.size()), ZSTD_CONTENTSIZE_UNKNOWN);
  const Bytes fb = lying_entry(frame, fatbin::kFlagZstd, 0x3ffffff0);
  auto c = fatbin::parse_container(fb, 0, 0);
  ASSERT_TRUE(c) << c.error().message();
  auto d = fatbin::decode(c->entries.at(0));
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(*d, plain);
  EXPECT_LE(d->capacity(), size_t{1} << 20);
  // A frame that holds more than the header declares is still an error.
  const Bytes small = lying_entry(frame, fatbin::kFlagZstd, 100);
  auto cs = fatbin::parse_container(small, 0, 0);
  ASSERT_TRUE(cs);
  auto ds = fatbin::decode(cs->entries.at(0));
  ASSERT_FALSE(ds);
  EXPECT_EQ(ds.error().message(), "entry at 0x10: ZSTD frame decodes to more than the declared size 0x64");
}

// fuzz_pyload: `import nvidia.<identifier of 300 characters>` gave a load
// whose name was longer than any package name (the target's bound is 256).
// corpus: fuzz/corpus/pyload/regression-long-nvidia-module.
TEST(FuzzRegression, PythonLoadsIgnoreOverlongNvidiaModuleNames) {
  std::string src = "import nvidia." + std::string(300, 'y') + "\nimport nvidia.cublas\n";
  auto loads = model::python_loads("p.py", ByteView(reinterpret_cast<const uint8_t*>(src.data()), src.size()));
  ASSERT_EQ(loads.size(), 1u);
  EXPECT_EQ(loads[0].name, "cublas");
  for (const auto& l : loads) EXPECT_LE(l.name.size(), 256u);
}
