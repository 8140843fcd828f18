// Unit tests for the ELF reader, on ELF images built in memory.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuwheel/object/elf.h"

using namespace cuwheel;

namespace {

std::vector<uint8_t> minimal_elf64() {
  std::vector<uint8_t> b(64, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1, 0};
  std::memcpy(b.data(), ident, sizeof ident);
  b[16] = 3;   // ET_DYN
  b[18] = 62;  // EM_X86_64
  b[20] = 1;
  b[52] = 64;  // e_ehsize
  return b;
}

}  // namespace

TEST(Elf, RejectsNonElf) {
  std::vector<uint8_t> b = {'h', 'e', 'l', 'l', 'o'};
  auto f = elf::File::parse(b);
  ASSERT_FALSE(f);
  EXPECT_EQ(f.error().message(), "not an ELF file (bad magic at offset 0x0)");
}

TEST(Elf, RejectsTruncatedHeader) {
  auto b = minimal_elf64();
  b.resize(40);
  auto f = elf::File::parse(b);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("truncated ELF header"), std::string::npos);
}

TEST(Elf, RejectsBigEndian) {
  auto b = minimal_elf64();
  b[5] = 2;
  auto f = elf::File::parse(b);
  ASSERT_FALSE(f);
  EXPECT_NE(f.error().message().find("big-endian"), std::string::npos);
}

TEST(Elf, HeaderOnlyFileParses) {
  auto b = minimal_elf64();
  auto f = elf::File::parse(b);
  ASSERT_TRUE(f) << f.error().message();
  EXPECT_TRUE(f->is64());
  EXPECT_EQ(f->type(), elf::ET_DYN);
  EXPECT_FALSE(f->has_section_headers());
  EXPECT_FALSE(f->dynamic().present);
}

TEST(Elf, SectionTableOutsideFileIsIgnoredWithWarning) {
  auto b = minimal_elf64();
  uint64_t shoff = 0x100000;
  std::memcpy(&b[40], &shoff, 8);
  b[58] = 64;  // e_shentsize
  b[60] = 3;   // e_shnum
  WarningSink w;
  auto f = elf::File::parse(b, &w);
  ASSERT_TRUE(f);
  EXPECT_FALSE(f->has_section_headers());
  ASSERT_EQ(w.messages().size(), 1u);
  EXPECT_NE(w.messages()[0].find("lies outside the file"), std::string::npos);
}

TEST(Elf, SplitPathList) {
  EXPECT_EQ(elf::split_path_list("$ORIGIN:/usr/local/cuda/lib64::x"),
            (std::vector<std::string>{"$ORIGIN", "/usr/local/cuda/lib64", "x"}));
  EXPECT_TRUE(elf::split_path_list("").empty());
}

// A header whose sizes are not its class's is damaged (EI_CLASS flipped on
// a 64-bit library reads e_ehsize from the middle of e_shoff): unreadable,
// naming the field and its offset (ELF gABI, "ELF Header").
TEST(Elf, HeaderSizesMustMatchTheClass) {
  auto b = minimal_elf64();
  ASSERT_TRUE(elf::File::parse(b));
  auto flipped = b;
  flipped[4] = 1;  // ELFCLASS32: e_ehsize is read at 0x28
  flipped[0x28] = 0x40;
  auto f32 = elf::File::parse(flipped);
  ASSERT_FALSE(f32);
  EXPECT_EQ(f32.error().message(),
            "e_ehsize 64 at offset 0x28 is not the ELFCLASS32 header size 52 (EI_CLASS at offset 0x4 is 1)");

  auto ehsize = b;
  ehsize[52] = 52;
  ASSERT_FALSE(elf::File::parse(ehsize));
  EXPECT_NE(elf::File::parse(ehsize).error().message().find("e_ehsize 52 at offset 0x34"), std::string::npos);

  // e_shentsize matters when there is a section header table.
  auto sh = b;
  sh[0x28] = 0x40;  // e_shoff = 64 (the table itself is never reached)
  sh[58] = 40;
  auto fsh = elf::File::parse(sh);
  ASSERT_FALSE(fsh);
  EXPECT_EQ(fsh.error().message(), "e_shentsize 40 at offset 0x3a is not the ELFCLASS64 section header size 64");
  auto no_table = b;
  no_table[58] = 40;  // e_shoff 0: no table, the size is not used
  EXPECT_TRUE(elf::File::parse(no_table));

  // e_phentsize, when there are program headers.
  auto ph = b;
  ph[0x20] = 0x40;  // e_phoff
  ph[56] = 1;       // e_phnum
  ph[54] = 32;
  auto fph = elf::File::parse(ph);
  ASSERT_FALSE(fph);
  EXPECT_EQ(fph.error().message(), "e_phentsize 32 at offset 0x36 is not the ELFCLASS64 program header size 56");
}
