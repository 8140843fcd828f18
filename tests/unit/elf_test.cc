// Unit tests for the ELF reader, on ELF images built in memory.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "cuwheel/elf.h"

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
