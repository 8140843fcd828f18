// Unit tests for cubin and PTX facts: e_flags decoding for both cubin ABIs
// (fatbin-format.md section 5), the `.nv.compat` 'a' record, kernels, and
// PTX directive scanning (section 6).
#include <gtest/gtest.h>

#include <string>

#include "byte_builders.h"
#include "cuwheel/object/cubin.h"

using namespace cuwheel;
using namespace cuwheel::testing;

namespace {

constexpr uint16_t kEmCuda = 190, kEtExec = 2;

// v7 e_flags: SM in bits 0-7, 'a' 0x800, virtual SM in bits 16-23.
uint32_t v7_flags(uint32_t sm, bool a) { return sm | (a ? 0x800u : 0u) | 0x400u | (sm << 16); }
// v8 e_flags: SM in bits 8-15 (observed: 0x06 top byte, low byte 0x04 / 0x02).
uint32_t v8_flags(uint32_t sm, bool a) { return 0x06000000u | (sm << 8) | (a ? 0x02u : 0x04u); }

Bytes cubin_v7(uint32_t flags, const std::vector<SectionSpec>& sections = {}) {
  return elf64_image(kEtExec, kEmCuda, flags, 0x33, 7, sections);
}
Bytes cubin_v8(uint32_t flags, const std::vector<SectionSpec>& sections = {}) {
  return elf64_image(kEtExec, kEmCuda, flags, 0x41, 8, sections);
}

SectionSpec compat(Bytes records) { return SectionSpec{".nv.compat", 0x70000086, std::move(records)}; }

cubin::PtxInfo ptx(const std::string& s, bool entries = true) { return cubin::read_ptx(bytes_of(s), entries); }

}  // namespace

// --- e_flags ---------------------------------------------------------------

TEST(CubinFlags, V7Sm90a) {
  auto c = cubin::read_cubin_header(cubin_v7(v7_flags(90, true)));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->abi_version, 7);
  EXPECT_EQ(c->osabi, 0x33);
  EXPECT_EQ(c->sm, 90u);
  EXPECT_TRUE(c->arch_a);
  ASSERT_TRUE(c->virtual_sm);
  EXPECT_EQ(*c->virtual_sm, 90u);
  EXPECT_EQ(c->arch_name(), "sm_90a");
}

TEST(CubinFlags, V7ObservedSm75) {
  auto c = cubin::read_cubin_header(cubin_v7(0x004B054B));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->sm, 75u);
  EXPECT_FALSE(c->arch_a);
  EXPECT_EQ(c->virtual_sm.value_or(0), 75u);
  EXPECT_EQ(c->arch_name(), "sm_75");
}

TEST(CubinFlags, V7BitA0x800BeforeSm90IsNotA) {
  // "a" targets start at sm_90a; older cubins may carry 0x800 for another reason.
  auto c = cubin::read_cubin_header(cubin_v7(v7_flags(86, true)));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->sm, 86u);
  EXPECT_FALSE(c->arch_a);
}

TEST(CubinFlags, V7NoVirtualSm) {
  auto c = cubin::read_cubin_header(cubin_v7(0x50));
  ASSERT_TRUE(c);
  EXPECT_EQ(c->sm, 80u);
  EXPECT_FALSE(c->virtual_sm);
}

TEST(CubinFlags, V8HeaderAloneNeverSaysA) {
  auto c = cubin::read_cubin_header(cubin_v8(v8_flags(100, true)));
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->abi_version, 8);
  EXPECT_EQ(c->sm, 100u);
  EXPECT_FALSE(c->arch_a);  // 'a' lives in .nv.compat for v8
  EXPECT_FALSE(c->virtual_sm);
}

TEST(CubinFlags, V8ObservedValues) {
  const std::pair<uint32_t, uint32_t> seen[] = {{0x06004B04, 75}, {0x06005904, 89}, {0x06005A04, 90},
                                               {0x06006402, 100}, {0x06006702, 103}, {0x06007902, 121}};
  for (auto [flags, sm] : seen) {
    auto c = cubin::read_cubin_header(cubin_v8(flags));
    ASSERT_TRUE(c);
    EXPECT_EQ(c->sm, sm) << hex(flags);
  }
}

TEST(CubinFlags, V8NvCompatRecordSetsA) {
  Bytes rec = {2, 0x09, 1, 0};
  auto c = cubin::read_cubin(cubin_v8(v8_flags(100, true), {compat(rec)}), false);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->sm, 100u);
  EXPECT_TRUE(c->arch_a);
  EXPECT_EQ(c->arch_name(), "sm_100a");
}

// The records ptxas 13.0 writes for sm_100a (tests/fixtures/abi8), in the
// `.nv.info` layout: 4 bytes each, format 4 followed by its data.
const std::vector<Bytes> kPtxas13Records = {
    {2, 0x02, 1, 0}, {2, 0x05, 5, 0}, {3, 0x07, 1, 1}, {2, 0x03, 0, 0},
    {2, 0x06, 1, 0}, {4, 0x0b, 8, 0, 9, 0, 0, 0, 0, 0, 0, 0}};

TEST(CubinFlags, V8NvCompatAttributeInEveryPosition) {
  for (size_t pos = 0; pos <= kPtxas13Records.size(); ++pos) {
    for (uint8_t value : {uint8_t{1}, uint8_t{0}}) {
      Bytes all;
      for (size_t i = 0; i <= kPtxas13Records.size(); ++i) {
        const Bytes& r = i == pos ? Bytes{2, 0x09, value, 0} : kPtxas13Records[i < pos ? i : i - 1];
        all.insert(all.end(), r.begin(), r.end());
      }
      auto c = cubin::read_cubin(cubin_v8(v8_flags(100, false), {compat(all)}), false);
      ASSERT_TRUE(c) << c.error().message();
      EXPECT_EQ(c->arch_a, value == 1) << "attribute 0x09 at position " << pos;
    }
  }
}

TEST(CubinFlags, V8NvCompatOtherValuesAreNotA) {
  for (Bytes rec : {Bytes{2, 0x09, 0, 0}, Bytes{2, 0x0A, 1, 0}, Bytes{3, 0x09, 1, 0}, Bytes{}}) {
    auto c = cubin::read_cubin(cubin_v8(v8_flags(100, false), {compat(rec)}), false);
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_FALSE(c->arch_a);
  }
  auto none = cubin::read_cubin(cubin_v8(v8_flags(100, false)), false);
  ASSERT_TRUE(none);
  EXPECT_FALSE(none->arch_a);
}

TEST(CubinFlags, V8NvCompatTruncatedOrUnknownRecordStopsQuietly) {
  // fmt 4 whose length runs past the section; then a would-be 'a' record.
  Bytes lying = {4, 0x01, 0xFF, 0xFF, 2, 0x09, 1, 0};
  auto c = cubin::read_cubin(cubin_v8(v8_flags(100, false), {compat(lying)}), false);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_FALSE(c->arch_a);
  Bytes unknown = {9, 0x01, 0, 0, 2, 0x09, 1, 0};
  auto u = cubin::read_cubin(cubin_v8(v8_flags(100, false), {compat(unknown)}), false);
  ASSERT_TRUE(u);
  EXPECT_FALSE(u->arch_a);
  // A record cut short by the section's end is not read.
  auto cut = cubin::read_cubin(cubin_v8(v8_flags(100, false), {compat(Bytes{2, 0x09, 1})}), false);
  ASSERT_TRUE(cut);
  EXPECT_FALSE(cut->arch_a);
}

namespace {
// A `.note.nv.cuinfo`-style note: owner "NVIDIA Corp", n_type 1000, the
// descriptor {u16 version, u16 sm, u16 toolkit, u16 0}.
SectionSpec cuda_note(uint16_t version, uint16_t toolkit, const std::string& name = ".note.nv.cuinfo",
                      uint32_t ntype = 1000) {
  Bytes b;
  auto u32 = [&](uint32_t v) { for (int i = 0; i < 4; ++i) b.push_back(static_cast<uint8_t>(v >> (8 * i))); };
  auto u16 = [&](uint16_t v) { b.push_back(static_cast<uint8_t>(v)); b.push_back(static_cast<uint8_t>(v >> 8)); };
  u32(12); u32(8); u32(ntype);
  for (char ch : std::string("NVIDIA Corp")) b.push_back(static_cast<uint8_t>(ch));
  b.push_back(0);
  u16(version); u16(100); u16(toolkit); u16(0);
  return SectionSpec{name, 7 /*SHT_NOTE*/, b};
}
constexpr uint32_t kV8FlagA = 0x8;
}  // namespace

// ptxas 12.8/12.9: version-1 note, 'a' in e_flags bit 0x8, no attribute 0x09.
TEST(CubinFlags, V8Cuda129NoteMeansTheFlag) {
  auto a = cubin::read_cubin(cubin_v8(0x0600640a, {cuda_note(1, 1, ".note.nv.cuver"), compat({2, 0x02, 1, 0})}), false);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_TRUE(a->arch_a);
  auto plain = cubin::read_cubin(cubin_v8(0x06006402, {cuda_note(1, 1, ".note.nv.cuver")}), false);
  ASSERT_TRUE(plain);
  EXPECT_FALSE(plain->arch_a);
  // A version-1 note wins over a compat record that says 'a'.
  auto v1 = cubin::read_cubin(cubin_v8(0x06006402, {cuda_note(1, 130), compat({2, 0x09, 1, 0})}), false);
  ASSERT_TRUE(v1);
  EXPECT_FALSE(v1->arch_a);
  // So does a toolkit before 13.0.
  auto tk = cubin::read_cubin(cubin_v8(0x0600640a, {cuda_note(2, 129), compat({2, 0x09, 0, 0})}), false);
  ASSERT_TRUE(tk);
  EXPECT_TRUE(tk->arch_a);
}

// ptxas 13: version-2 note with toolkit 130 or later: the bit means nothing.
TEST(CubinFlags, V8Cuda13NoteMeansTheCompatRecord) {
  auto flag_only = cubin::read_cubin(cubin_v8(0x06006402 | kV8FlagA, {cuda_note(2, 130)}), false);
  ASSERT_TRUE(flag_only);
  EXPECT_FALSE(flag_only->arch_a);
  auto rec = cubin::read_cubin(cubin_v8(0x06006402, {cuda_note(2, 131), compat({2, 0x09, 1, 0})}), false);
  ASSERT_TRUE(rec);
  EXPECT_TRUE(rec->arch_a);
  // The note is known by its descriptor, not by its name or n_type (as
  // cuobjdump 13.5 reads it); the tool-info note is never it.
  auto renamed = cubin::read_cubin(cubin_v8(0x06006402 | kV8FlagA, {cuda_note(1, 1, ".note.other", 1001)}), false);
  ASSERT_TRUE(renamed);
  EXPECT_TRUE(renamed->arch_a);
  auto tkinfo = cubin::read_cubin(cubin_v8(0x06006402 | kV8FlagA, {cuda_note(1, 1, ".note.nv.tkinfo")}), false);
  ASSERT_TRUE(tkinfo);
  EXPECT_FALSE(tkinfo->arch_a);
  // A note too short for its descriptor is no note.
  SectionSpec cut = cuda_note(1, 1);
  cut.data.resize(26);
  auto shortn = cubin::read_cubin(cubin_v8(0x06006402 | kV8FlagA, {cut}), false);
  ASSERT_TRUE(shortn);
  EXPECT_FALSE(shortn->arch_a);
}

TEST(CubinFlags, V7IgnoresNvCompat) {
  Bytes rec = {2, 0x09, 1, 0};
  auto c = cubin::read_cubin(cubin_v7(v7_flags(90, false), {compat(rec)}), false);
  ASSERT_TRUE(c);
  EXPECT_FALSE(c->arch_a);
}

TEST(CubinFlags, OddAbiByteFallsBackOnLowByte) {
  auto v7 = cubin::read_cubin_header(elf64_image(kEtExec, kEmCuda, v7_flags(90, true), 0, 0, {}));
  ASSERT_TRUE(v7);
  EXPECT_EQ(v7->sm, 90u);
  EXPECT_TRUE(v7->arch_a);
  auto v8 = cubin::read_cubin_header(elf64_image(kEtExec, kEmCuda, v8_flags(100, false), 0, 0, {}));
  ASSERT_TRUE(v8);
  EXPECT_EQ(v8->sm, 100u);
}

// --- header errors ---------------------------------------------------------

TEST(CubinHeader, NotElf) {
  auto c = cubin::read_cubin_header(bytes_of("not an elf file at all"));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "cubin: not an ELF image (bad magic at offset 0x0)");
}

TEST(CubinHeader, Truncated) {
  Bytes b = cubin_v8(v8_flags(90, false));
  b.resize(40);
  auto c = cubin::read_cubin_header(b);
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "cubin: ELF header truncated (40 bytes)");
}

TEST(CubinHeader, NotCuda) {
  auto c = cubin::read_cubin_header(elf64_image(kEtExec, 62, 0, 0, 0, {}));
  ASSERT_FALSE(c);
  EXPECT_EQ(c.error().message(), "cubin: e_machine 62 is not EM_CUDA (190)");
}

// --- kernels ---------------------------------------------------------------

TEST(CubinKernels, EntrySymbolsAreKernels) {
  const std::string strtab = std::string("\0_Z2kav\0_Z6helperv\0_Z2kbv\0", 26);
  Bytes syms = elf64_symbol(0, 0, 0, 0);
  append(syms, elf64_symbol(1, 0x12, 0x10, 1));   // global func, entry
  append(syms, elf64_symbol(8, 0x12, 0x00, 1));   // device function
  append(syms, elf64_symbol(19, 0x12, 0x10, 1));  // entry
  append(syms, elf64_symbol(1, 0x11, 0x10, 1));   // object with the bit: not a kernel
  // Sections: 1 .text, 2 .strtab, 3 .symtab (link 2).
  auto c = cubin::read_cubin(cubin_v8(v8_flags(90, false), {{".text", 1, Bytes(16, 0)},
                                                            {".strtab", 3, bytes_of(strtab)},
                                                            {".symtab", 2, syms, 2, 1, 24}}),
                             true);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->kernels, (std::vector<std::string>{"_Z2kav", "_Z2kbv"}));
}

TEST(CubinKernels, NvInfoSectionsAreTheFallback) {
  auto c = cubin::read_cubin(cubin_v7(v7_flags(80, false), {{".nv.info", 0x70000064, Bytes(4, 0)},
                                                            {".nv.info._Z1kv", 0x70000064, Bytes(4, 0)}}),
                             true);
  ASSERT_TRUE(c) << c.error().message();
  EXPECT_EQ(c->kernels, std::vector<std::string>{"_Z1kv"});
  auto no = cubin::read_cubin(cubin_v7(v7_flags(80, false), {{".nv.info._Z1kv", 0x70000064, Bytes(4, 0)}}), false);
  ASSERT_TRUE(no);
  EXPECT_TRUE(no->kernels.empty());
}

// --- PTX -------------------------------------------------------------------

TEST(Ptx, HeaderDirectives) {
  auto p = ptx("//\n// Generated by NVIDIA NVVM Compiler\n//\n\n.version 9.0\n.target sm_90a\n.address_size 64\n\n"
               "\t// .globl\t_Z2kav\n.visible .entry _Z2kav(\n\t.param .u64 _Z2kav_param_0\n)\n{\n\tret;\n}\n");
  ASSERT_TRUE(p.version);
  EXPECT_EQ(*p.version, std::make_pair(9, 0));
  EXPECT_EQ(p.targets, std::vector<std::string>{"sm_90a"});
  EXPECT_EQ(p.address_size, 64);
  EXPECT_EQ(p.entries, std::vector<std::string>{"_Z2kav"});
}

TEST(Ptx, MissingVersion) {
  auto p = ptx(".target sm_80\n.address_size 64\n.entry k()\n{ ret; }\n");
  EXPECT_FALSE(p.version);
  EXPECT_EQ(p.targets, std::vector<std::string>{"sm_80"});
  EXPECT_EQ(p.entries, std::vector<std::string>{"k"});
}

TEST(Ptx, MultipleTargetsAndTrailingComment) {
  auto p = ptx(".version 8.8\n.target sm_100a, texmode_independent , debug // note\n");
  EXPECT_EQ(p.targets, (std::vector<std::string>{"sm_100a", "texmode_independent", "debug"}));
  EXPECT_EQ(p.version, std::make_pair(8, 8));
}

TEST(Ptx, DirectivesInCommentsAreIgnored) {
  auto p = ptx("// .version 1.0\n/* .target sm_10\n.version 2.0 */ .version 7.8\n/* x */ .target sm_52 /* y */\n"
               "// .entry fake(\n/*\n.entry also_fake(\n*/\n.entry real(\n");
  EXPECT_EQ(p.version, std::make_pair(7, 8));
  EXPECT_EQ(p.targets, std::vector<std::string>{"sm_52"});
  EXPECT_EQ(p.entries, std::vector<std::string>{"real"});
}

TEST(Ptx, MalformedVersionIsLeftEmpty) {
  EXPECT_FALSE(ptx(".version 9\n").version);
  EXPECT_FALSE(ptx(".version x.y\n").version);
  EXPECT_FALSE(ptx(".version 9.\n").version);
  EXPECT_FALSE(ptx(".version 99999999999999.0\n").version);
}

TEST(Ptx, StopsAtNul) {
  Bytes b = bytes_of(".version 9.0\n");
  b.push_back(0);
  append(b, ".target sm_90\n");
  auto p = cubin::read_ptx(b, true);
  EXPECT_TRUE(p.version);
  EXPECT_TRUE(p.targets.empty());
}

TEST(Ptx, EntriesOnlyWhenAsked) {
  auto p = ptx(".version 9.0\n.target sm_90\n.entry a(\n.weak .entry b(\n", false);
  EXPECT_TRUE(p.entries.empty());
  auto q = ptx(".version 9.0\n.target sm_90\n.entry a(\n.weak .entry b(\n.func f(\n", true);
  EXPECT_EQ(q.entries, (std::vector<std::string>{"a", "b"}));
}

TEST(Ptx, EmptyText) {
  auto p = cubin::read_ptx({}, true);
  EXPECT_FALSE(p.version);
  EXPECT_TRUE(p.targets.empty());
  EXPECT_EQ(p.address_size, 0);
}

// An SHT_RELA section must link to the symbol table; cuobjdump refuses the
// cubin otherwise ("Invalid ELF"), the driver does not (bitsandbytes 0.50.2).
TEST(CubinRela, LinkToANonSymbolTableIsNamed) {
  const SectionSpec symtab{".symtab", 2 /*SHT_SYMTAB*/, Bytes(48, 0), 0, 0, 24};
  const SectionSpec info{".nv.info", 0x70000000, Bytes(8, 0)};
  auto good = cubin::read_cubin(cubin_v8(0x06006402, {symtab, info, SectionSpec{".rela.text.k", 4, Bytes(24, 0), 1, 0, 24}}), false);
  ASSERT_TRUE(good) << good.error().message();
  EXPECT_EQ(good->rela_link_error, "");
  auto bad = cubin::read_cubin(cubin_v8(0x06006402, {symtab, info, SectionSpec{".rela.text.k", 4, Bytes(24, 0), 2, 0, 24}}), false);
  ASSERT_TRUE(bad) << bad.error().message();
  EXPECT_EQ(bad->rela_link_error, "section 3 (.rela.text.k) links to section 2 (.nv.info), not a symbol table");
  auto past = cubin::read_cubin(cubin_v8(0x06006402, {symtab, SectionSpec{".rela.text.k", 4, Bytes(24, 0), 99, 0, 24}}), false);
  ASSERT_TRUE(past);
  EXPECT_NE(past->rela_link_error.find("links to section 99, past the section table"), std::string::npos) << past->rela_link_error;
  // SHT_REL is not checked (cuobjdump lists such cubins).
  auto rel = cubin::read_cubin(cubin_v8(0x06006402, {symtab, info, SectionSpec{".rel.text.k", 9, Bytes(16, 0), 2, 0, 16}}), false);
  ASSERT_TRUE(rel);
  EXPECT_EQ(rel->rela_link_error, "");
}

// read_ptx_head: facts from a prefix are final only once a whole line ends
// the header (or a NUL ends the text).
TEST(PtxHead, DecidedOnlyOnWholeLines) {
  const std::string text = "// comment\n.version 8.5\n.target sm_90a\n.address_size 64\n\n.visible .entry k()\n{\n}\n";
  const cubin::PtxInfo full = cubin::read_ptx(bytes_of(text), false);
  const size_t header_end = text.find(".visible");
  const size_t line_end = text.find('\n', header_end);
  for (size_t n = 1; n <= text.size(); ++n) {
    SCOPED_TRACE(n);
    bool decided = true;
    auto v = bytes_of(text.substr(0, n));
    cubin::PtxInfo p = cubin::read_ptx_head(v, &decided);
    EXPECT_EQ(decided, n > line_end);
    if (decided) {
      EXPECT_EQ(p.version, full.version);
      EXPECT_EQ(p.targets, full.targets);
      EXPECT_EQ(p.address_size, full.address_size);
    }
  }
  // A cut ".target sm_9" is not the whole line's "sm_90a".
  bool decided = true;
  cubin::read_ptx_head(bytes_of(".version 8.5\n.target sm_9"), &decided);
  EXPECT_FALSE(decided);
  // A NUL ends the text: decided, however little came before.
  std::string nul = ".version 8.5\n.target sm_80";
  nul.push_back('\0');
  nul += "garbage";
  cubin::PtxInfo p = cubin::read_ptx_head(bytes_of(nul), &decided);
  EXPECT_TRUE(decided);
  EXPECT_EQ(p.targets, std::vector<std::string>{"sm_80"});
}
