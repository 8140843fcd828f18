// Unit tests for the ar archive reader on archives built byte by byte:
// GNU and BSD long names, symbol tables, thin archives, bad size fields.
#include <gtest/gtest.h>

#include <string>

#include "byte_builders.h"
#include "cuwheel/object/archive.h"

using namespace cuwheel;
using namespace cuwheel::testing;

namespace {

std::string text(ByteView v) { return std::string(v.begin(), v.end()); }

}  // namespace

TEST(Archive, HasMagic) {
  EXPECT_TRUE(archive::has_magic(bytes_of("!<arch>\n")));
  EXPECT_TRUE(archive::has_magic(bytes_of("!<thin>\n")));
  EXPECT_FALSE(archive::has_magic(bytes_of("!<arch>")));
  EXPECT_FALSE(archive::has_magic(bytes_of("\x7f" "ELF....")));
}

TEST(Archive, BadMagic) {
  auto r = archive::read(bytes_of("!<arcx>\nxxxx"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "not an ar archive (bad magic at offset 0x0)");
  auto s = archive::read(bytes_of("!<a"));
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "not an ar archive (bad magic at offset 0x0)");
}

TEST(Archive, EmptyArchiveHasNoMembers) {
  auto r = archive::read(bytes_of("!<arch>\n"));
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->empty());
}

TEST(Archive, ThinArchiveIsRejected) {
  auto r = archive::read(ar_archive({ar_member("a.o/", {})}, "!<thin>\n"));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "thin archive: member data is not stored in the archive");
}

TEST(Archive, ShortNamesOddSizesAndPadding) {
  auto b = ar_archive({ar_member("a.o/", bytes_of("abc")), ar_member("b.o/", bytes_of("defg"))});
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "a.o");
  EXPECT_EQ((*r)[0].header_offset, 8u);
  EXPECT_EQ((*r)[0].data_offset, 68u);
  EXPECT_EQ(text((*r)[0].data), "abc");
  EXPECT_EQ((*r)[1].name, "b.o");
  EXPECT_EQ((*r)[1].header_offset, 8u + 60 + 4);  // 3 data bytes + 1 pad
  EXPECT_EQ(text((*r)[1].data), "defg");
}

TEST(Archive, SymbolTablesAreSkipped) {
  auto b = ar_archive({ar_member("/", Bytes(8, 0)), ar_member("/SYM64/", Bytes(8, 0)),
                       ar_member("__.SYMDEF SORTED", Bytes(4, 0)), ar_member("x.o/", bytes_of("x"))});
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "x.o");
}

TEST(Archive, GnuLongNames) {
  const std::string table = "a_member_name_longer_than_15.o/\nsecond_long_member_name.o/\n";
  auto b = ar_archive({ar_member("//", bytes_of(table)), ar_member("/0", bytes_of("one")),
                       ar_member("/32", bytes_of("two"))});
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 2u);
  EXPECT_EQ((*r)[0].name, "a_member_name_longer_than_15.o");
  EXPECT_EQ(text((*r)[0].data), "one");
  EXPECT_EQ((*r)[1].name, "second_long_member_name.o");
}

TEST(Archive, GnuLongNameOutsideTable) {
  auto b = ar_archive({ar_member("//", bytes_of("x.o/\n")), ar_member("/5", bytes_of("one"))});
  auto r = archive::read(b);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x4a: long-name offset 5 is outside the name table");
}

TEST(Archive, GnuLongNameWithoutTable) {
  auto r = archive::read(ar_archive({ar_member("/0", bytes_of("one"))}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: long-name offset 0 is outside the name table");
}

TEST(Archive, GnuLongNameReferenceNotANumber) {
  auto r = archive::read(ar_archive({ar_member("/x1", bytes_of("one"))}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: bad long-name reference \"/x1\"");
}

TEST(Archive, BsdLongNames) {
  Bytes body = bytes_of(std::string("a_long_bsd_member_name.o\0\0\0\0", 28));
  append(body, "DATA");
  auto b = ar_archive({ar_member("#1/28", body), ar_member("#1/12", bytes_of(std::string("__.SYMDEF\0\0\0tbl", 15)))});
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  EXPECT_EQ((*r)[0].name, "a_long_bsd_member_name.o");
  EXPECT_EQ(text((*r)[0].data), "DATA");  // name bytes excluded
  EXPECT_EQ((*r)[0].data_offset, 8u + 60 + 28);
}

TEST(Archive, BsdNameLongerThanMember) {
  auto r = archive::read(ar_archive({ar_member("#1/50", bytes_of("short"))}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: bad BSD long-name length \"#1/50\"");
}

TEST(Archive, SizeFieldNotDecimal) {
  auto r = archive::read(ar_archive({ar_member("a.o/", bytes_of("ab"), "0x10")}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: size field is not a decimal number");
  auto e = archive::read(ar_archive({ar_member("a.o/", bytes_of("ab"), "")}));
  ASSERT_FALSE(e);
  EXPECT_EQ(e.error().message(), "ar member header at 0x8: size field is not a decimal number");
  auto n = archive::read(ar_archive({ar_member("a.o/", bytes_of("ab"), "-2")}));
  ASSERT_FALSE(n);
}

TEST(Archive, SizePastEnd) {
  auto r = archive::read(ar_archive({ar_member("a.o/", bytes_of("ab"), "100")}));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: size 100 runs past the end of the file (0x46)");
  auto big = archive::read(ar_archive({ar_member("a.o/", bytes_of("ab"), "9999999999")}));
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("runs past the end of the file"), std::string::npos);
}

TEST(Archive, TruncatedHeader) {
  Bytes b = ar_archive({ar_member("a.o/", bytes_of("ab"))});
  append(b, Bytes(20, ' '));
  auto r = archive::read(b);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x46: truncated (20 bytes left)");
}

TEST(Archive, BadTerminator) {
  Bytes b = ar_archive({ar_member("a.o/", bytes_of("ab"))});
  b[8 + 58] = 'X';
  auto r = archive::read(b);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "ar member header at 0x8: bad terminator (expected \"`\\n\")");
}

TEST(Archive, StrayFinalNewlineIsAccepted) {
  Bytes b = ar_archive({ar_member("a.o/", bytes_of("ab"))});
  b.push_back('\n');
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->size(), 1u);
}

TEST(Archive, ManyEmptyMembers) {
  Bytes b = bytes_of("!<arch>\n");
  for (int i = 0; i < 100; ++i) append(b, ar_member("e/", {}));
  auto r = archive::read(b);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->size(), 100u);
}
