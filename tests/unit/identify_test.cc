// identify() (object/identify.h) and elf::truncated_header_tables().
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/object/elf.h"
#include "cuwheel/object/identify.h"

using namespace cuwheel;

namespace {
ByteView view(const std::string& s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }
}  // namespace

TEST(Identify, EachMagic) {
  EXPECT_EQ(identify(view(std::string("\x7f" "ELF\x02\x01\x01\x00", 8))), FileKind::elf);
  EXPECT_EQ(identify(view(std::string("\x50\xed\x55\xba\x01\x00\x10\x00", 8))), FileKind::fatbin);
  EXPECT_EQ(identify(view("!<arch>\n")), FileKind::archive);
  EXPECT_EQ(identify(view(std::string("PK\x03\x04\x14\x00", 6))), FileKind::zip);
  EXPECT_EQ(identify(view(std::string("PK\x05\x06\x00\x00", 6))), FileKind::zip);  // a zip with no members
  EXPECT_EQ(identify(view(".version 8.8\n.target sm_90\n")), FileKind::other);    // PTX text
}

TEST(Identify, NearMissesAreOther) {
  EXPECT_EQ(identify(view("")), FileKind::other);
  EXPECT_EQ(identify(view("\x7f" "EL")), FileKind::other);
  EXPECT_EQ(identify(view(std::string("PK\x07\x08", 4))), FileKind::other);  // a data descriptor, not an archive start
  EXPECT_EQ(identify(view("PK")), FileKind::other);
  EXPECT_EQ(identify(view("!<arch>")), FileKind::other);  // no newline: not the 8-byte header
  EXPECT_EQ(identify(view(std::string("\x50\xed\x55", 3))), FileKind::other);
  EXPECT_EQ(identify(view(std::string("\xba\x55\xed\x50", 4))), FileKind::other);  // big-endian magic
}

TEST(Identify, NamesAndObjects) {
  EXPECT_EQ(to_string(FileKind::elf), "elf");
  EXPECT_EQ(to_string(FileKind::zip), "zip");
  EXPECT_TRUE(is_object(FileKind::elf));
  EXPECT_TRUE(is_object(FileKind::fatbin));
  EXPECT_FALSE(is_object(FileKind::archive));
  EXPECT_FALSE(is_object(FileKind::zip));
  EXPECT_FALSE(is_object(FileKind::other));
}

namespace {
// A 64-bit little-endian ELF header of `size` bytes whose tables are at
// the given offsets (entries of 64 and 56 bytes).
std::vector<uint8_t> elf64(size_t size, uint64_t shoff, uint16_t shnum, uint64_t phoff, uint16_t phnum) {
  std::vector<uint8_t> b(size, 0);
  const uint8_t ident[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  std::copy(ident, ident + sizeof ident, b.begin());
  auto put = [&b](size_t off, uint64_t v, size_t n) {
    for (size_t i = 0; i < n; ++i) b[off + i] = static_cast<uint8_t>(v >> (8 * i));
  };
  put(0x20, phoff, 8);
  put(0x28, shoff, 8);
  put(0x36, 56, 2);
  put(0x38, phnum, 2);
  put(0x3A, 64, 2);
  put(0x3C, shnum, 2);
  return b;
}
}  // namespace

TEST(ElfTruncation, TablesThatFitAreFine) {
  auto b = elf64(0x400, 0x200, 4, 0x40, 2);  // 0x200 + 4 * 64 = 0x300; 0x40 + 2 * 56 = 0xb0
  EXPECT_EQ(elf::truncated_header_tables(ByteView(b.data(), b.size())), std::nullopt);
}

TEST(ElfTruncation, SectionTablePastTheEnd) {
  auto b = elf64(0x280, 0x200, 4, 0x40, 2);
  auto r = elf::truncated_header_tables(ByteView(b.data(), b.size()));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "truncated ELF file: section header table at 0x200 ends past the end of the file (0x280 bytes)");
}

TEST(ElfTruncation, ProgramTablePastTheEnd) {
  auto b = elf64(0x80, 0, 0, 0x40, 2);
  auto r = elf::truncated_header_tables(ByteView(b.data(), b.size()));
  ASSERT_TRUE(r);
  EXPECT_EQ(*r, "truncated ELF file: program header table at 0x40 ends past the end of the file (0x80 bytes)");
}

TEST(ElfTruncation, NotAnElfOrTooShortIsNoAnswer) {
  std::string s = "not an elf file at all, but long enough for a header ......................";
  EXPECT_EQ(elf::truncated_header_tables(view(s)), std::nullopt);
  auto b = elf64(0x40, 0x200, 4, 0, 0);
  EXPECT_EQ(elf::truncated_header_tables(ByteView(b.data(), 0x30)), std::nullopt);  // shorter than the 32-bit header
  b[5] = 2;  // big-endian: not read
  EXPECT_EQ(elf::truncated_header_tables(ByteView(b.data(), b.size())), std::nullopt);
}
