// rpmvercmp, EVR ranges, repomd/primary parsing, decompression and
// requirement resolution (include/cuwheel/toolkit/repo.h).
#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "cuwheel/base/digest.h"
#include "cuwheel/toolkit/http.h"
#include "cuwheel/toolkit/repo.h"
#include "temp_dir.h"

namespace cuwheel::toolkit {
namespace {

// ---- rpmvercmp ------------------------------------------------------------

// Cases from rpm's own test suite (tests/rpmvercmp.at), expected value
// first.
TEST(Rpmvercmp, MatchesRpmTestSuite) {
  struct Case {
    const char* a;
    const char* b;
    int want;
  } cases[] = {
      {"1.0", "1.0", 0},         {"1.0", "2.0", -1},         {"2.0", "1.0", 1},
      {"2.0.1", "2.0.1", 0},     {"2.0", "2.0.1", -1},       {"2.0.1", "2.0", 1},
      {"2.0.1a", "2.0.1a", 0},   {"2.0.1a", "2.0.1", 1},     {"2.0.1", "2.0.1a", -1},
      {"5.5p1", "5.5p1", 0},     {"5.5p1", "5.5p2", -1},     {"5.5p2", "5.5p1", 1},
      {"5.5p10", "5.5p10", 0},   {"5.5p1", "5.5p10", -1},    {"5.5p10", "5.5p1", 1},
      {"10xyz", "10.1xyz", -1},  {"10.1xyz", "10xyz", 1},    {"xyz10", "xyz10", 0},
      {"xyz10", "xyz10.1", -1},  {"xyz10.1", "xyz10", 1},    {"xyz.4", "xyz.4", 0},
      {"xyz.4", "8", -1},        {"8", "xyz.4", 1},          {"xyz.4", "2", -1},
      {"2", "xyz.4", 1},         {"5.5p2", "5.6p1", -1},     {"5.6p1", "5.5p2", 1},
      {"5.6p1", "6.5p1", -1},    {"6.5p1", "5.6p1", 1},      {"6.0.rc1", "6.0", 1},
      {"6.0", "6.0.rc1", -1},    {"10b2", "10a1", 1},        {"10a2", "10b2", -1},
      {"1.0aa", "1.0aa", 0},     {"1.0a", "1.0aa", -1},      {"1.0aa", "1.0a", 1},
      {"10.0001", "10.0001", 0}, {"10.0001", "10.1", 0},     {"10.1", "10.0001", 0},
      {"10.0001", "10.0039", -1}, {"10.0039", "10.0001", 1}, {"4.999.9", "5.0", -1},
      {"5.0", "4.999.9", 1},     {"20101121", "20101121", 0}, {"20101121", "20101122", -1},
      {"20101122", "20101121", 1}, {"2_0", "2_0", 0},        {"2.0", "2_0", 0},
      {"2_0", "2.0", 0},         {"a", "a", 0},              {"a+", "a+", 0},
      {"a+", "a_", 0},           {"a_", "a+", 0},            {"+a", "+a", 0},
      {"+a", "_a", 0},           {"_a", "+a", 0},            {"+_", "+_", 0},
      {"_+", "+_", 0},           {"_+", "_+", 0},            {"+", "_", 0},
      {"_", "+", 0},             {"1.0~rc1", "1.0~rc1", 0},  {"1.0~rc1", "1.0", -1},
      {"1.0", "1.0~rc1", 1},     {"1.0~rc1", "1.0~rc2", -1}, {"1.0~rc2", "1.0~rc1", 1},
      {"1.0~rc1~git123", "1.0~rc1~git123", 0}, {"1.0~rc1~git123", "1.0~rc1", -1},
      {"1.0~rc1", "1.0~rc1~git123", 1}, {"1.0^", "1.0^", 0}, {"1.0^", "1.0", 1},
      {"1.0", "1.0^", -1},       {"1.0^git1", "1.0^git1", 0}, {"1.0^git1", "1.0", 1},
      {"1.0", "1.0^git1", -1},   {"1.0^git1", "1.0^git2", -1}, {"1.0^git2", "1.0^git1", 1},
      {"1.0^git1", "1.01", -1},  {"1.01", "1.0^git1", 1},    {"1.0^20160101", "1.0^20160101", 0},
      {"1.0^20160101", "1.0.1", -1}, {"1.0.1", "1.0^20160101", 1},
      {"1.0^20160101^git1", "1.0^20160101^git1", 0}, {"1.0^20160102", "1.0^20160101^git1", 1},
      {"1.0^20160101^git1", "1.0^20160102", -1}, {"1.0~rc1^git1", "1.0~rc1^git1", 0},
      {"1.0~rc1^git1", "1.0~rc1", 1}, {"1.0~rc1", "1.0~rc1^git1", -1},
      {"1.0^git1~pre", "1.0^git1~pre", 0}, {"1.0^git1", "1.0^git1~pre", 1},
      {"1.0^git1~pre", "1.0^git1", -1},
      // CUDA's own versions
      {"12.9.86", "12.9.41", 1}, {"12.10.1", "12.9.86", 1}, {"13.0.88", "12.9.86", 1},
  };
  for (const Case& c : cases) EXPECT_EQ(rpmvercmp(c.a, c.b), c.want) << c.a << " vs " << c.b;
}

TEST(Evr, ParseFormatCompare) {
  Evr e = parse_evr("2:12.9.86-1.el8");
  EXPECT_EQ(e.epoch, "2");
  EXPECT_EQ(e.version, "12.9.86");
  EXPECT_EQ(e.release, "1.el8");
  EXPECT_EQ(format_evr(e), "2:12.9.86-1.el8");
  EXPECT_EQ(format_evr(parse_evr("0:1.2-3")), "1.2-3");
  EXPECT_EQ(format_evr(parse_evr("1.2")), "1.2");
  EXPECT_EQ(compare_evr(parse_evr("1:1.0-1"), parse_evr("9.0-1")), 1);  // epoch first
  EXPECT_EQ(compare_evr(parse_evr("0:1.0-1"), parse_evr("1.0-1")), 0);  // missing epoch = 0
  EXPECT_EQ(compare_evr(parse_evr("1.0"), parse_evr("1.0-7")), 0);     // missing release not compared
  EXPECT_EQ(compare_evr(parse_evr("1.0-2"), parse_evr("1.0-10")), -1);
}

Dependency dep(const char* name, DepFlags f, const char* evr) {
  Dependency d;
  d.name = name;
  d.flags = f;
  d.evr = parse_evr(evr);
  return d;
}

TEST(Ranges, RpmdsCompareSemantics) {
  Dependency prov = dep("cuda-cudart", DepFlags::kEq, "12.9.86");
  EXPECT_TRUE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kGe, "12.9.86")));
  EXPECT_TRUE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kGe, "12.9.0")));
  EXPECT_FALSE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kGt, "12.9.86")));
  EXPECT_TRUE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kLt, "13.0")));
  EXPECT_FALSE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kLe, "12.9.85")));
  EXPECT_FALSE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kEq, "12.9.41")));
  EXPECT_TRUE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kAny, "")));
  // A provide without a release meets a requirement with one, and back.
  EXPECT_TRUE(range_satisfies(prov, dep("cuda-cudart", DepFlags::kEq, "12.9.86-1")));
  EXPECT_TRUE(range_satisfies(dep("x", DepFlags::kEq, "1.0-3"), dep("x", DepFlags::kEq, "1.0")));
  EXPECT_FALSE(range_satisfies(dep("x", DepFlags::kEq, "1.0-3"), dep("x", DepFlags::kEq, "1.0-4")));
  // Two open ranges overlap.
  EXPECT_TRUE(range_satisfies(dep("x", DepFlags::kGe, "2"), dep("x", DepFlags::kGt, "5")));
  EXPECT_FALSE(range_satisfies(dep("x", DepFlags::kLt, "2"), dep("x", DepFlags::kGt, "5")));
  EXPECT_EQ(format_dependency(dep("cuda-crt-12-9", DepFlags::kEq, "12.9.86-1")), "cuda-crt-12-9 = 12.9.86-1");
}

// ---- repomd.xml and primary.xml ------------------------------------------

const char* kRepomd = R"(<?xml version="1.0" encoding="UTF-8"?>
<repomd xmlns="http://linux.duke.edu/metadata/repo" xmlns:rpm="http://linux.duke.edu/metadata/rpm">
  <revision>1</revision>
  <data type="filelists">
    <checksum type="sha256">1111111111111111111111111111111111111111111111111111111111111111</checksum>
    <location href="repodata/filelists.xml.gz"/>
  </data>
  <data type="primary">
    <checksum type="sha256">ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef0123456789</checksum>
    <open-checksum type="sha256">2222222222222222222222222222222222222222222222222222222222222222</open-checksum>
    <location href="repodata/primary.xml.zst"/>
    <size>2349</size>
  </data>
</repomd>
)";

TEST(Repomd, FindsPrimaryAndFilelists) {
  auto r = parse_repomd(kRepomd, "repomd.xml");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->primary.location, "repodata/primary.xml.zst");
  EXPECT_EQ(r->primary.checksum_type, "sha256");
  EXPECT_EQ(r->primary.checksum, "abcdef0123456789abcdef0123456789abcdef0123456789abcdef0123456789");
  EXPECT_EQ(r->primary.size, 2349u);
  ASSERT_TRUE(r->filelists.has_value());
  EXPECT_EQ(r->filelists->location, "repodata/filelists.xml.gz");
  EXPECT_EQ(r->filelists->checksum, std::string(64, '1'));
  EXPECT_EQ(r->filelists->size, 0u);  // not given

  auto only_primary = parse_repomd(
      "<repomd><data type=\"primary\"><checksum type=\"sha256\">ab</checksum><location href=\"p.xml\"/></data>"
      "<data type=\"other\"><location href=\"o.xml\"/></data></repomd>",
      "r.xml");
  ASSERT_TRUE(only_primary) << only_primary.error().message();
  EXPECT_FALSE(only_primary->filelists.has_value());
}

TEST(Repomd, FilelistsEntryIsValidatedLikePrimary) {
  const std::string primary =
      "<data type=\"primary\"><checksum type=\"sha256\">ab</checksum><location href=\"p.xml\"/></data>";
  auto nochk = parse_repomd("<repomd>" + primary + "<data type=\"filelists\"><location href=\"f.xml\"/></data></repomd>",
                            "r.xml");
  ASSERT_FALSE(nochk);
  EXPECT_EQ(nochk.error().message(), "r.xml: filelists entry has no <checksum type=...>");
  auto noloc = parse_repomd(
      "<repomd>" + primary + "<data type=\"filelists\"><checksum type=\"sha256\">ab</checksum></data></repomd>", "r.xml");
  ASSERT_FALSE(noloc);
  EXPECT_EQ(noloc.error().message(), "r.xml: filelists entry has no <location href>");
  auto badsize = parse_repomd("<repomd>" + primary +
                                  "<data type=\"filelists\">\n<size>12k</size></data></repomd>",
                              "r.xml");
  ASSERT_FALSE(badsize);
  EXPECT_EQ(badsize.error().message(), "r.xml:2: filelists <size> is not a number: '12k'");
}

TEST(Repomd, Errors) {
  auto none = parse_repomd("<repomd><data type=\"other\"/></repomd>", "r.xml");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "r.xml: no <data type=\"primary\"> entry");
  auto broken = parse_repomd("<repomd>\n<data type=\"primary\">\n</repomd>", "r.xml");
  ASSERT_FALSE(broken);
  EXPECT_EQ(broken.error().message(), "r.xml:3: mismatched tag");
  auto doctype = parse_repomd("<!DOCTYPE x [<!ENTITY a \"aaaa\">]><repomd/>", "r.xml");
  ASSERT_FALSE(doctype);
  EXPECT_NE(doctype.error().message().find("DOCTYPE declarations are not allowed"), std::string::npos);
  auto nochk = parse_repomd("<repomd><data type=\"primary\"><location href=\"p.xml\"/></data></repomd>", "r.xml");
  ASSERT_FALSE(nochk);
  EXPECT_EQ(nochk.error().message(), "r.xml: primary entry has no <checksum type=...>");
}

// A primary.xml package entry as createrepo_c writes it.
std::string pkg_xml(const std::string& name, const std::string& arch, const std::string& ver,
                    const std::string& rel, const std::string& provides, const std::string& requires_,
                    const std::string& files = "", const std::string& epoch = "0",
                    const std::string& sha = std::string(64, 'a')) {
  return "<package type=\"rpm\"><name>" + name + "</name><arch>" + arch + "</arch><version epoch=\"" + epoch +
         "\" ver=\"" + ver + "\" rel=\"" + rel + "\"/><checksum type=\"sha256\" pkgid=\"YES\">" + sha +
         "</checksum><size package=\"1000\" installed=\"1\" archive=\"1\"/><location href=\"" + name + "-" + ver +
         "-" + rel + "." + arch + ".rpm\"/><format><rpm:provides>" + provides + "</rpm:provides><rpm:requires>" +
         requires_ + "</rpm:requires>" + files + "</format></package>\n";
}

std::string primary_doc(const std::string& packages) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<metadata xmlns=\"http://linux.duke.edu/metadata/common\" "
         "xmlns:rpm=\"http://linux.duke.edu/metadata/rpm\" packages=\"0\">\n" +
         packages + "</metadata>\n";
}

std::string entry(const std::string& name, const std::string& flags = "", const std::string& ver = "",
                  const std::string& rel = "") {
  std::string s = "<rpm:entry name=\"" + name + "\"";
  if (!flags.empty()) s += " flags=\"" + flags + "\" epoch=\"0\" ver=\"" + ver + "\"";
  if (!rel.empty()) s += " rel=\"" + rel + "\"";
  return s + "/>";
}

TEST(Primary, ParsesPackages) {
  std::string xml = primary_doc(pkg_xml("cuda-nvcc-12-9", "x86_64", "12.9.86", "1",
                                        entry("cuda-nvcc-12-9", "EQ", "12.9.86", "1"),
                                        entry("cuda-crt-12-9", "EQ", "12.9.86", "1") + entry("/bin/sh") +
                                            entry("rpmlib(PayloadIsXz)", "LE", "5.2", "1"),
                                        "<file>/usr/local/cuda-12.9/bin/nvcc</file><file type=\"dir\">/usr/local/cuda-12.9/bin</file>"));
  auto r = parse_primary(xml, "primary.xml");
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_EQ(r->size(), 1u);
  const Package& p = (*r)[0];
  EXPECT_EQ(p.name, "cuda-nvcc-12-9");
  EXPECT_EQ(p.arch, "x86_64");
  EXPECT_EQ(format_evr(p.evr), "12.9.86-1");
  EXPECT_EQ(p.checksum_type, "sha256");
  EXPECT_EQ(p.checksum, std::string(64, 'a'));
  EXPECT_EQ(p.size, 1000u);
  EXPECT_EQ(p.location, "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm");
  ASSERT_EQ(p.requires_.size(), 3u);
  EXPECT_EQ(format_dependency(p.requires_[0]), "cuda-crt-12-9 = 12.9.86-1");
  EXPECT_EQ(p.requires_[1].flags, DepFlags::kAny);
  ASSERT_EQ(p.files.size(), 1u);  // the directory entry is skipped
  EXPECT_EQ(p.files[0], "/usr/local/cuda-12.9/bin/nvcc");
}

TEST(Primary, Errors) {
  auto missing = parse_primary(primary_doc("<package type=\"rpm\"><name>x</name><arch>noarch</arch></package>"), "p.xml");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "p.xml:3: package x has no <version ver>");
  auto badsize = parse_primary(
      primary_doc("<package type=\"rpm\"><name>x</name>\n<size package=\"12k\"/></package>"), "p.xml");
  ASSERT_FALSE(badsize);
  EXPECT_EQ(badsize.error().message(), "p.xml:4: package x: <size package> is not a number: '12k'");
  auto badflags = parse_primary(primary_doc(pkg_xml("x", "noarch", "1", "1", "", entry("y", "XX", "1"))), "p.xml");
  ASSERT_FALSE(badflags);
  EXPECT_NE(badflags.error().message().find("unknown flags 'XX'"), std::string::npos);
  auto truncated = parse_primary("<metadata><package type=\"rpm\"><name>x</na", "p.xml");
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().message().rfind("p.xml:1: ", 0), 0u);
  EXPECT_FALSE(parse_primary("", "p.xml"));
}

std::string compress(const std::string& data, int filter) {
  struct archive* a = archive_write_new();
  archive_write_add_filter(a, filter);
  archive_write_set_format_raw(a);
  std::vector<char> buf(data.size() + 65536);
  size_t used = 0;
  archive_write_open_memory(a, buf.data(), buf.size(), &used);
  struct archive_entry* e = archive_entry_new();
  archive_entry_set_filetype(e, AE_IFREG);
  archive_write_header(a, e);
  archive_write_data(a, data.data(), data.size());
  archive_entry_free(e);
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

TEST(Decompress, GzipXzZstdAndPlain) {
  std::string xml = primary_doc(pkg_xml("a", "noarch", "1", "1", "", ""));
  for (int f : {ARCHIVE_FILTER_GZIP, ARCHIVE_FILTER_XZ, ARCHIVE_FILTER_ZSTD, ARCHIVE_FILTER_NONE}) {
    std::string c = compress(xml, f);
    ASSERT_FALSE(c.empty()) << f;
    auto d = decompress_metadata(c, "primary", 1 << 20);
    ASSERT_TRUE(d) << f << ": " << d.error().message();
    EXPECT_EQ(*d, xml) << f;
  }
  std::string gz = compress(xml, ARCHIVE_FILTER_GZIP);
  auto big = decompress_metadata(gz, "primary.xml.gz", 100);
  ASSERT_FALSE(big);
  EXPECT_NE(big.error().message().find("primary.xml.gz: decompresses to more than 100 bytes"), std::string::npos);
  std::string corrupt = gz.substr(0, gz.size() / 2);
  EXPECT_FALSE(decompress_metadata(corrupt, "primary.xml.gz", 1 << 20));
}

// ---- resolution -----------------------------------------------------------

Repository fixture_repo() {
  std::string pk;
  for (auto [x, y, v] : {std::tuple{"12", "8", "12.8.93"}, {"12", "9", "12.9.86"}, {"13", "0", "13.0.88"}}) {
    std::string s = std::string(x) + "-" + y, d = std::string("/usr/local/cuda-") + x + "." + y;
    pk += pkg_xml("cuda-nvcc-" + s, "x86_64", v, "1", "",
                  entry("cuda-crt-" + s, "EQ", v, "1") + entry("/bin/sh") + entry("gcc-c++") +
                      entry("rpmlib(PayloadIsXz)", "LE", "5.2", "1"),
                  "<file>" + d + "/bin/nvcc</file><file>" + d + "/bin/ptxas</file>");
    pk += pkg_xml("cuda-crt-" + s, "x86_64", v, "1", "", "");
    pk += pkg_xml("cuda-cudart-" + s, "x86_64", v, "1", entry("cuda-cudart", "EQ", v),
                  entry("/sbin/ldconfig") + entry("cuda-toolkit-config-common"));
    pk += pkg_xml("cuda-cudart-devel-" + s, "x86_64", v, "1", "", entry("cuda-cudart", "GE", v));
    pk += pkg_xml("cuda-cuobjdump-" + s, "x86_64", v, "1", "", entry(d + "/bin/ptxas"));
  }
  pk += pkg_xml("cuda-nvcc-12-9", "x86_64", "12.9.41", "1", "", entry("cuda-crt-12-9", "EQ", "12.9.41", "1"));
  pk += pkg_xml("cuda-crt-12-9", "x86_64", "12.9.41", "1", "", "");
  pk += pkg_xml("cuda-nvcc-12-9", "i686", "12.9.99", "1", "", "");  // another arch: never picked for x86_64
  pk += pkg_xml("cuda-toolkit-config-common", "noarch", "12.8.90", "1", "", "");
  pk += pkg_xml("cuda-toolkit-config-common", "noarch", "13.0.85", "1", "", "");
  auto p = parse_primary(primary_doc(pk), "primary.xml");
  EXPECT_TRUE(p) << p.error().message();
  Repository r;
  r.packages = std::move(*p);
  return r;
}

std::vector<std::string> names(const Resolution& r) {
  std::vector<std::string> out;
  for (const Package& p : r.packages) out.push_back(p.name + " " + format_evr(p.evr) + " " + p.arch);
  return out;
}

TEST(Resolve, ClosedSetWithVersionedVirtualAndFileProvides) {
  Repository repo = fixture_repo();
  auto r = resolve(repo, {"12.9", {"cuda-nvcc", "cuda-cudart-devel", "cuda-cuobjdump-12-9"}, "x86_64"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->requested,
            (std::vector<std::string>{"cuda-cudart-devel-12-9", "cuda-cuobjdump-12-9", "cuda-nvcc-12-9"}));
  EXPECT_EQ(names(*r), (std::vector<std::string>{
                           "cuda-crt-12-9 12.9.86-1 x86_64",
                           "cuda-cudart-12-9 12.9.86-1 x86_64",  // virtual cuda-cudart >= 12.9.86, release suffix preferred over 13-0
                           "cuda-cudart-devel-12-9 12.9.86-1 x86_64",
                           "cuda-cuobjdump-12-9 12.9.86-1 x86_64",
                           "cuda-nvcc-12-9 12.9.86-1 x86_64",  // newest of 12.9.41 and 12.9.86; i686 ignored
                           "cuda-toolkit-config-common 13.0.85-1 noarch",
                       }));
  EXPECT_EQ(r->external, (std::vector<std::string>{"/bin/sh", "/sbin/ldconfig", "gcc-c++"}));
  ASSERT_EQ(r->reasons.size(), r->packages.size());
  EXPECT_EQ(r->reasons[0], "cuda-crt-12-9 = 12.9.86-1 (required by cuda-nvcc-12-9)");
  EXPECT_EQ(r->reasons[4], "requested");
}

TEST(Resolve, FileProvideComesFromTheRepository) {
  Repository repo = fixture_repo();
  auto r = resolve(repo, {"13.0", {"cuda-cuobjdump"}, "x86_64"});
  ASSERT_TRUE(r) << r.error().message();
  // /usr/local/cuda-13.0/bin/ptxas is a file of cuda-nvcc-13-0, which pulls cuda-crt-13-0.
  EXPECT_EQ(names(*r), (std::vector<std::string>{"cuda-crt-13-0 13.0.88-1 x86_64",
                                                 "cuda-cuobjdump-13-0 13.0.88-1 x86_64",
                                                 "cuda-nvcc-13-0 13.0.88-1 x86_64"}));
  EXPECT_EQ(r->reasons[2], "/usr/local/cuda-13.0/bin/ptxas (required by cuda-cuobjdump-13-0)");
}

TEST(Resolve, UnknownReleaseNamesTheReleasesThatExist) {
  Repository repo = fixture_repo();
  auto r = resolve(repo, {"12.10", {"cuda-nvcc"}, "x86_64"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "cuda-nvcc-12-10 not in repository; releases with cuda-nvcc: 12.8, 12.9, 13.0");
  auto none = resolve(repo, {"12.9", {"cuda-nsight"}, "x86_64"});
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "cuda-nsight-12-9 not in repository; no release of cuda-nsight either");
}

TEST(Resolve, NvidiaRequirementMissingIsAnError) {
  std::string pk = pkg_xml("cuda-nvcc-12-9", "x86_64", "12.9.86", "1", "",
                           entry("cuda-crt-12-9", "EQ", "12.9.99", "1") + entry("cuda-nvvm-12-9") + entry("zlib"));
  pk += pkg_xml("cuda-crt-12-9", "x86_64", "12.9.86", "1", "", "");
  auto p = parse_primary(primary_doc(pk), "primary.xml");
  ASSERT_TRUE(p);
  Repository repo;
  repo.packages = *p;
  auto r = resolve(repo, {"12.9", {"cuda-nvcc"}, "x86_64"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "cuda-crt-12-9 = 12.9.99-1 (required by cuda-nvcc-12-9-12.9.86-1) is not in the repository; it has "
            "cuda-crt-12-9-12.9.86-1\n"
            "cuda-nvvm-12-9 (required by cuda-nvcc-12-9-12.9.86-1) is not in the repository");
}

TEST(Resolve, PrefersMainArchAndSkipsOthers) {
  std::string pk = pkg_xml("cuda-x-12-9", "noarch", "1.0", "1", "", "");
  pk += pkg_xml("cuda-x-12-9", "x86_64", "1.0", "1", "", "");
  pk += pkg_xml("cuda-x-12-9", "aarch64", "2.0", "1", "", "");
  auto p = parse_primary(primary_doc(pk), "primary.xml");
  ASSERT_TRUE(p);
  Repository repo;
  repo.packages = *p;
  auto r = resolve(repo, {"12.9", {"cuda-x"}, "x86_64"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"cuda-x-12-9 1.0-1 x86_64"}));
  auto arm = resolve(repo, {"12.9", {"cuda-x"}, "aarch64"});
  ASSERT_TRUE(arm);
  EXPECT_EQ(names(*arm), (std::vector<std::string>{"cuda-x-12-9 2.0-1 aarch64"}));
}

TEST(Resolve, RefusesUnsafeLocationsAndNonSha256) {
  std::string pk = pkg_xml("cuda-x-12-9", "x86_64", "1.0", "1", "", "");
  size_t at = pk.find("href=\"") + 6;
  pk.insert(at, "../");
  auto p = parse_primary(primary_doc(pk), "primary.xml");
  ASSERT_TRUE(p);
  Repository repo;
  repo.packages = *p;
  repo.packages[0].checksum_type = "sha1";
  auto r = resolve(repo, {"12.9", {"cuda-x"}, "x86_64"});
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(),
            "cuda-x-12-9: the repository gives a sha1 checksum; the lock needs sha256\n"
            "cuda-x-12-9: location '../cuda-x-12-9-1.0-1.x86_64.rpm' is not a path inside the repository");
}

TEST(ReleaseNames, ShortAndFull) {
  EXPECT_EQ(release_package_name("cuda-nvcc", "12.9"), "cuda-nvcc-12-9");
  EXPECT_EQ(release_package_name("cuda-nvcc-12-9", "12.9"), "cuda-nvcc-12-9");
  EXPECT_EQ(release_package_name("cuda-nvcc", "13.10"), "cuda-nvcc-13-10");
}

// ---- load_repository over a folder ----------------------------------------

std::string sha256_hex(const std::string& data) {
  auto d = sha256(ByteView(reinterpret_cast<const uint8_t*>(data.data()), data.size()));
  static const char* digits = "0123456789abcdef";
  std::string out;
  for (uint8_t b : d) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

void write(const std::filesystem::path& p, const std::string& data) {
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p, std::ios::binary) << data;
}

TEST(LoadRepository, ChecksPrimaryChecksumBeforeParsing) {
  cuwheel::test::TempDir tmp;
  auto dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  std::string primary = compress(primary_doc(pkg_xml("cuda-a-12-9", "x86_64", "1", "1", "", "")), ARCHIVE_FILTER_XZ);
  write(dir / "repodata/primary.xml.xz", primary);
  auto repomd = [&](const std::string& sum) {
    return "<repomd><data type=\"primary\"><checksum type=\"sha256\">" + sum +
           "</checksum><location href=\"repodata/primary.xml.xz\"/><size>" + std::to_string(primary.size()) +
           "</size></data></repomd>";
  };
  write(dir / "repodata/repomd.xml", repomd(sha256_hex(primary)));
  auto ok = load_repository(dir.string());
  ASSERT_TRUE(ok) << ok.error().message();
  ASSERT_EQ(ok->packages.size(), 1u);
  EXPECT_EQ(ok->packages[0].name, "cuda-a-12-9");
  EXPECT_EQ(ok->primary_location, "repodata/primary.xml.xz");

  write(dir / "repodata/repomd.xml", repomd(std::string(64, '0')));
  auto bad = load_repository("file://" + dir.string());
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "file://" + dir.string() + "/repodata/primary.xml.xz: sha256 checksum mismatch: "
                                   "repomd.xml says " + std::string(64, '0') + ", file has " + sha256_hex(primary));
  auto missing = load_repository((dir / "nope").string());
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("nope/repodata/repomd.xml: cannot open"), std::string::npos);
  std::filesystem::remove_all(dir);
}

// A synthetic repository of 20,000 packages (NVIDIA's rhel8 primary.xml
// has a few thousand) parses and resolves quickly; the bound is loose so
// it holds under sanitizers.
TEST(Scale, TwentyThousandPackages) {
  std::string pk;
  for (int i = 0; i < 20000; ++i) {
    std::string n = "cuda-pkg" + std::to_string(i) + "-12-9";
    std::string req = i + 1 < 20000 && i % 100 != 99 ? entry("cuda-pkg" + std::to_string(i + 1) + "-12-9") : "";
    pk += pkg_xml(n, "x86_64", "12.9." + std::to_string(i % 97), "1", entry("cuda-virt" + std::to_string(i)),
                  req + entry("/bin/sh"), "<file>/usr/local/cuda-12.9/bin/tool" + std::to_string(i) + "</file>");
  }
  std::string xml = primary_doc(pk);
  auto t0 = std::chrono::steady_clock::now();
  auto p = parse_primary(xml, "primary.xml");
  ASSERT_TRUE(p) << p.error().message();
  Repository repo;
  repo.packages = std::move(*p);
  auto r = resolve(repo, {"12.9", {"cuda-pkg0", "cuda-pkg500"}, "x86_64"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->packages.size(), 200u);  // chains of 100
  EXPECT_LT(s, 30.0);
  std::printf("[ timing ] 20000 packages (%zu MB of XML): parse + resolve %.2f s\n", xml.size() >> 20, s);
}


// ---- filelists.xml ----------------------------------------------------------

// A filelists.xml <package> as createrepo_c writes it; `files` are paths,
// a trailing '/' marks a directory entry.
std::string fl_pkg(const std::string& pkgid, const std::string& name, const std::string& ver,
                   const std::vector<std::string>& files, const std::string& arch = "x86_64") {
  std::string s = "<package pkgid=\"" + pkgid + "\" name=\"" + name + "\" arch=\"" + arch +
                  "\">\n  <version epoch=\"0\" ver=\"" + ver + "\" rel=\"1\"/>\n";
  for (const std::string& f : files) {
    if (!f.empty() && f.back() == '/')
      s += "  <file type=\"dir\">" + f.substr(0, f.size() - 1) + "</file>\n";
    else
      s += "  <file>" + f + "</file>\n";
  }
  return s + "</package>\n";
}

std::string filelists_doc(const std::string& packages) {
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<filelists xmlns=\"http://linux.duke.edu/metadata/filelists\" "
         "packages=\"0\">\n" +
         packages + "</filelists>\n";
}

TEST(Filelists, KeepsOnlyWantedPaths) {
  std::string xml = filelists_doc(
      fl_pkg(std::string(64, 'A'), "cuda-fx-data-12-9", "12.9.86",
             {"/usr/share/cuda-fx/", "/usr/share/cuda-fx/data.txt", "/usr/share/cuda-fx/other.txt"}) +
      fl_pkg(std::string(64, 'b'), "cuda-plain-12-9", "12.9.86", {"/usr/share/doc/plain"}) +
      fl_pkg(std::string(64, 'c'), "cuda-fx-lib-12-9", "12.9.86", {"/usr/lib64/libfx.so.1", "/opt/fx/"}));
  std::vector<std::string> wanted = {"/usr/share/cuda-fx/data.txt", "/usr/lib64/libfx.so.1", "/opt/fx", "/bin/sh"};
  for (int filter : {ARCHIVE_FILTER_NONE, ARCHIVE_FILTER_GZIP, ARCHIVE_FILTER_XZ, ARCHIVE_FILTER_ZSTD}) {
    auto r = parse_filelists(filter == ARCHIVE_FILTER_NONE ? xml : compress(xml, filter), "filelists.xml", wanted);
    ASSERT_TRUE(r) << filter << ": " << r.error().message();
    ASSERT_EQ(r->size(), 2u) << filter;  // cuda-plain-12-9 lists nothing wanted
    EXPECT_EQ((*r)[0].pkgid, std::string(64, 'a'));  // lower-cased
    EXPECT_EQ((*r)[0].name, "cuda-fx-data-12-9");
    EXPECT_EQ((*r)[0].arch, "x86_64");
    EXPECT_EQ(format_evr((*r)[0].evr), "12.9.86-1");
    EXPECT_EQ((*r)[0].files, (std::vector<std::string>{"/usr/share/cuda-fx/data.txt"}));
    EXPECT_EQ((*r)[0].line, 3u);
    // A directory entry provides its path too.
    EXPECT_EQ((*r)[1].files, (std::vector<std::string>{"/usr/lib64/libfx.so.1", "/opt/fx"}));
  }
  auto none = parse_filelists(xml, "filelists.xml", {});
  ASSERT_TRUE(none);
  EXPECT_TRUE(none->empty());
}

TEST(Filelists, Errors) {
  const std::vector<std::string> wanted = {"/usr/share/cuda-fx/data.txt"};
  auto doctype = parse_filelists("<?xml version=\"1.0\"?>\n<!DOCTYPE filelists [<!ENTITY a \"/usr/share/cuda-fx/data.txt\">]>\n"
                                 "<filelists><package pkgid=\"a\" name=\"x\" arch=\"noarch\"><version ver=\"1\"/>"
                                 "<file>&a;</file></package></filelists>",
                                 "f.xml", wanted);
  ASSERT_FALSE(doctype);
  EXPECT_EQ(doctype.error().message(), "f.xml:2: DOCTYPE declarations are not allowed in repository metadata");

  std::string good = filelists_doc(fl_pkg(std::string(64, 'a'), "x", "1", {"/usr/share/cuda-fx/data.txt"}));
  auto truncated = parse_filelists(good.substr(0, good.size() - std::strlen("</filelists>\n")), "f.xml", wanted);
  ASSERT_FALSE(truncated);
  EXPECT_EQ(truncated.error().message(), "f.xml:7: no element found");
  std::string gz = compress(good, ARCHIVE_FILTER_GZIP);
  auto cut = parse_filelists(gz.substr(0, gz.size() - 10), "f.xml.gz", wanted);
  ASSERT_FALSE(cut);
  EXPECT_EQ(cut.error().message().rfind("f.xml.gz:", 0), 0u) << cut.error().message();
  auto syntax = parse_filelists("<filelists>\n<package pkgid=\"a\" name=\"x\" arch=\"noarch\">\n</filelists>", "f.xml", wanted);
  ASSERT_FALSE(syntax);
  EXPECT_EQ(syntax.error().message(), "f.xml:3: mismatched tag");
  auto nopkgid = parse_filelists(filelists_doc("<package name=\"x\" arch=\"noarch\"><version ver=\"1\"/></package>"),
                                 "f.xml", wanted);
  ASSERT_FALSE(nopkgid);
  EXPECT_EQ(nopkgid.error().message(), "f.xml:3: package x has no pkgid attribute");
  auto noversion = parse_filelists(filelists_doc("<package pkgid=\"a\" name=\"x\" arch=\"noarch\">\n</package>"),
                                   "f.xml", wanted);
  ASSERT_FALSE(noversion);
  EXPECT_EQ(noversion.error().message(), "f.xml:4: package x has no <version ver>");
  auto nested = parse_filelists(filelists_doc("<package pkgid=\"a\" name=\"x\" arch=\"noarch\"><package/></package>"),
                                "f.xml", wanted);
  ASSERT_FALSE(nested);
  EXPECT_EQ(nested.error().message(), "f.xml:3: nested <package>");
  auto longpath = parse_filelists(filelists_doc("<package pkgid=\"a\" name=\"x\" arch=\"noarch\"><file>/" +
                                                std::string(70000, 'x') + "</file></package>"),
                                  "f.xml", wanted);
  ASSERT_FALSE(longpath);
  EXPECT_NE(longpath.error().message().find("package x: <file> path longer than 65536 bytes"), std::string::npos);
  auto capped = parse_filelists(gz, "f.xml.gz", wanted, 100);
  ASSERT_FALSE(capped);
  EXPECT_EQ(capped.error().message().rfind("f.xml.gz: decompresses to more than 100 bytes", 0), 0u)
      << capped.error().message();
  EXPECT_FALSE(parse_filelists("", "f.xml", wanted));
}

// A repository folder with primary.xml.gz, filelists.xml.gz (optional) and
// a repomd.xml naming them:
//   cuda-fx-tool-12-9  requires /usr/share/cuda-fx/data.txt (unlisted in
//                      primary) and /bin/sh (nowhere)
//   cuda-fx-data-12-9  lists data.txt in filelists only; requires
//                      /usr/lib64/libfx.so.1 (unlisted in primary)
//   cuda-fx-lib-12-9   lists libfx.so.1 in filelists only
//   cuda-plain-12-9    no requirements
struct FxRepo {
  cuwheel::test::TempDir tmp;  // a folder of this test's own; dir lies inside it
  std::filesystem::path dir;
  std::string primary_gz;
  std::string filelists_gz;

  explicit FxRepo(const std::string& name) : tmp(name), dir(tmp / "repo") {
    std::string pk =
        pkg_xml("cuda-fx-tool-12-9", "x86_64", "12.9.86", "1", "",
                entry("/usr/share/cuda-fx/data.txt") + entry("/bin/sh"),
                "<file>/usr/local/cuda-12.9/bin/fx</file>", "0", std::string(64, '1'));
    pk += pkg_xml("cuda-fx-data-12-9", "x86_64", "12.9.86", "1", "", entry("/usr/lib64/libfx.so.1"), "", "0",
                  std::string(64, '2'));
    pk += pkg_xml("cuda-fx-lib-12-9", "x86_64", "12.9.86", "1", "", "", "", "0", std::string(64, '3'));
    pk += pkg_xml("cuda-plain-12-9", "x86_64", "12.9.86", "1", "", "", "", "0", std::string(64, '4'));
    primary_gz = compress(primary_doc(pk), ARCHIVE_FILTER_GZIP);
    filelists_gz = compress(
        filelists_doc(
            fl_pkg(std::string(64, '1'), "cuda-fx-tool-12-9", "12.9.86", {"/usr/local/cuda-12.9/bin/fx"}) +
            fl_pkg(std::string(64, '2'), "cuda-fx-data-12-9", "12.9.86",
                   {"/usr/share/cuda-fx/", "/usr/share/cuda-fx/data.txt"}) +
            fl_pkg(std::string(64, '3'), "cuda-fx-lib-12-9", "12.9.86", {"/usr/lib64/libfx.so.1"}) +
            fl_pkg(std::string(64, '4'), "cuda-plain-12-9", "12.9.86", {"/usr/share/doc/plain"})),
        ARCHIVE_FILTER_GZIP);
  }
  ~FxRepo() { std::filesystem::remove_all(dir); }

  // Writes the folder; `filelists_sum` overrides the checksum repomd.xml
  // gives for filelists ("" = the file's own); no filelists entry when
  // `with_filelists` is false.
  void write_all(bool with_filelists = true, const std::string& filelists_sum = "") const {
    write(dir / "repodata/primary.xml.gz", primary_gz);
    write(dir / "repodata/filelists.xml.gz", filelists_gz);
    std::string repomd = "<repomd xmlns=\"http://linux.duke.edu/metadata/repo\">\n<data type=\"primary\"><checksum "
                         "type=\"sha256\">" + sha256_hex(primary_gz) +
                         "</checksum><location href=\"repodata/primary.xml.gz\"/><size>" +
                         std::to_string(primary_gz.size()) + "</size></data>\n";
    if (with_filelists)
      repomd += "<data type=\"filelists\"><checksum type=\"sha256\">" +
                (filelists_sum.empty() ? sha256_hex(filelists_gz) : filelists_sum) +
                "</checksum><location href=\"repodata/filelists.xml.gz\"/><size>" +
                std::to_string(filelists_gz.size()) + "</size></data>\n";
    write(dir / "repodata/repomd.xml", repomd + "</repomd>\n");
  }
};

const ResolveRequest kFxTool{"12.9", {"cuda-fx-tool"}, "x86_64"};

TEST(FilelistsResolve, FileRequirementResolvedViaFilelists) {
  FxRepo fx("cuwheel_fl_resolved");
  fx.write_all();
  for (const std::string& base : {fx.dir.string(), "file://" + fx.dir.string() + "/"}) {
    auto repo = load_repository(base);
    ASSERT_TRUE(repo) << repo.error().message();
    ASSERT_TRUE(repo->filelists.has_value());
    EXPECT_EQ(repo->filelists->location, "repodata/filelists.xml.gz");
    auto fl = read_filelists_if_needed(*repo, kFxTool);
    ASSERT_TRUE(fl) << fl.error().message();
    EXPECT_TRUE(fl->needed);
    EXPECT_TRUE(fl->read);
    EXPECT_EQ(fl->location, "repodata/filelists.xml.gz");
    // Every unlisted file requirement of the repository, so that the
    // provider's own (libfx.so.1) is answered by the same pass.
    EXPECT_EQ(fl->wanted, (std::vector<std::string>{"/bin/sh", "/usr/lib64/libfx.so.1", "/usr/share/cuda-fx/data.txt"}));
    EXPECT_EQ(fl->found, (std::vector<std::string>{"/usr/lib64/libfx.so.1", "/usr/share/cuda-fx/data.txt"}));
    auto r = resolve(*repo, kFxTool);
    ASSERT_TRUE(r) << r.error().message();
    EXPECT_EQ(names(*r), (std::vector<std::string>{"cuda-fx-data-12-9 12.9.86-1 x86_64",
                                                   "cuda-fx-lib-12-9 12.9.86-1 x86_64",
                                                   "cuda-fx-tool-12-9 12.9.86-1 x86_64"}));
    EXPECT_EQ(r->reasons[0], "/usr/share/cuda-fx/data.txt (required by cuda-fx-tool-12-9)");
    EXPECT_EQ(r->reasons[1], "/usr/lib64/libfx.so.1 (required by cuda-fx-data-12-9)");
    EXPECT_EQ(r->external, (std::vector<std::string>{"/bin/sh"}));
    // Only wanted paths were added: the tool keeps its one primary file.
    EXPECT_EQ(repo->packages[0].files, (std::vector<std::string>{"/usr/local/cuda-12.9/bin/fx"}));
    EXPECT_TRUE(repo->packages[3].files.empty());
  }
}

TEST(FilelistsResolve, WithoutFilelistsTheRequirementIsExternal) {
  FxRepo fx("cuwheel_fl_absent");
  fx.write_all(/*with_filelists=*/false);
  auto repo = load_repository(fx.dir.string());
  ASSERT_TRUE(repo) << repo.error().message();
  EXPECT_FALSE(repo->filelists.has_value());
  auto fl = read_filelists_if_needed(*repo, kFxTool);
  ASSERT_TRUE(fl) << fl.error().message();
  EXPECT_TRUE(fl->needed);
  EXPECT_FALSE(fl->read);
  EXPECT_EQ(fl->location, "");
  auto r = resolve(*repo, kFxTool);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"cuda-fx-tool-12-9 12.9.86-1 x86_64"}));
  EXPECT_EQ(r->external, (std::vector<std::string>{"/bin/sh", "/usr/share/cuda-fx/data.txt"}));
}

TEST(FilelistsResolve, NotReadWhenPrimaryAnswersEverything) {
  FxRepo fx("cuwheel_fl_unneeded");
  fx.write_all();
  std::filesystem::remove(fx.dir / "repodata/filelists.xml.gz");  // would fail if it were fetched
  auto repo = load_repository(fx.dir.string());
  ASSERT_TRUE(repo) << repo.error().message();
  auto fl = read_filelists_if_needed(*repo, {"12.9", {"cuda-plain", "cuda-fx-lib"}, "x86_64"});
  ASSERT_TRUE(fl) << fl.error().message();
  EXPECT_FALSE(fl->needed);
  EXPECT_FALSE(fl->read);
  EXPECT_EQ(fl->location, "repodata/filelists.xml.gz");
  EXPECT_TRUE(fl->wanted.empty());
}

TEST(FilelistsResolve, ChecksumMismatchIsAnErrorNamingTheFile) {
  FxRepo fx("cuwheel_fl_checksum");
  fx.write_all(true, std::string(64, '0'));
  auto repo = load_repository(fx.dir.string());
  ASSERT_TRUE(repo) << repo.error().message();
  auto fl = read_filelists_if_needed(*repo, kFxTool);
  ASSERT_FALSE(fl);
  EXPECT_EQ(fl.error().message(), (fx.dir / "repodata/filelists.xml.gz").string() +
                                      ": sha256 checksum mismatch: repomd.xml says " + std::string(64, '0') +
                                      ", file has " + sha256_hex(fx.filelists_gz));
  for (const Package& p : repo->packages) EXPECT_LE(p.files.size(), 1u) << p.name;  // unchanged
}

TEST(FilelistsResolve, DoctypeTruncationAndSizeAreErrors) {
  FxRepo fx("cuwheel_fl_bad");
  const std::string where = (fx.dir / "repodata/filelists.xml.gz").string();
  fx.filelists_gz = compress("<?xml version=\"1.0\"?>\n<!DOCTYPE filelists [<!ENTITY x \"y\">]>\n<filelists/>\n",
                             ARCHIVE_FILTER_GZIP);
  fx.write_all();
  auto repo = load_repository(fx.dir.string());
  ASSERT_TRUE(repo) << repo.error().message();
  auto doctype = read_filelists_if_needed(*repo, kFxTool);
  ASSERT_FALSE(doctype);
  EXPECT_EQ(doctype.error().message(), where + ":2: DOCTYPE declarations are not allowed in repository metadata");

  FxRepo whole("cuwheel_fl_trunc");
  std::string gz = whole.filelists_gz;
  whole.filelists_gz = gz.substr(0, gz.size() / 2);  // repomd.xml agrees with the cut file
  whole.write_all();
  auto repo2 = load_repository(whole.dir.string());
  ASSERT_TRUE(repo2) << repo2.error().message();
  auto cut = read_filelists_if_needed(*repo2, kFxTool);
  ASSERT_FALSE(cut);
  const std::string where2 = (whole.dir / "repodata/filelists.xml.gz").string();
  EXPECT_EQ(cut.error().message().rfind(where2 + ":", 0), 0u) << cut.error().message();

  // The stored size is checked too, and the decompressed size is capped.
  whole.filelists_gz = gz;
  whole.write_all();
  write(whole.dir / "repodata/filelists.xml.gz", gz + "x");
  auto repo3 = load_repository(whole.dir.string());
  ASSERT_TRUE(repo3);
  auto size = read_filelists_if_needed(*repo3, kFxTool);
  ASSERT_FALSE(size);
  EXPECT_EQ(size.error().message(), where2 + ": size " + std::to_string(gz.size() + 1) + ", repomd.xml says " +
                                        std::to_string(gz.size()));
  whole.write_all();
  auto repo4 = load_repository(whole.dir.string());
  ASSERT_TRUE(repo4);
  auto capped = read_filelists_if_needed(*repo4, kFxTool, 64);
  ASSERT_FALSE(capped);
  EXPECT_EQ(capped.error().message().rfind(where2 + ": decompresses to more than 64 bytes", 0), 0u)
      << capped.error().message();
}

TEST(FilelistsResolve, PackagesAreMatchedByPkgidAndIdentity) {
  FxRepo fx("cuwheel_fl_match");
  const std::string where = (fx.dir / "repodata/filelists.xml.gz").string();
  // data.txt's package has a pkgid primary.xml does not know.
  fx.filelists_gz = compress(filelists_doc(fl_pkg(std::string(64, '9'), "cuda-fx-data-12-9", "12.9.86",
                                                  {"/usr/share/cuda-fx/data.txt"})),
                             ARCHIVE_FILTER_GZIP);
  fx.write_all();
  auto repo = load_repository(fx.dir.string());
  ASSERT_TRUE(repo);
  auto unknown = read_filelists_if_needed(*repo, kFxTool);
  ASSERT_FALSE(unknown);
  EXPECT_EQ(unknown.error().message(), where + ":3: package cuda-fx-data-12-9-12.9.86-1.x86_64 (pkgid " +
                                           std::string(64, '9') + ") is not in primary.xml");
  // The pkgid of another version.
  fx.filelists_gz = compress(filelists_doc(fl_pkg(std::string(64, '2'), "cuda-fx-data-12-9", "12.9.99",
                                                  {"/usr/share/cuda-fx/data.txt"})),
                             ARCHIVE_FILTER_GZIP);
  fx.write_all();
  auto repo2 = load_repository(fx.dir.string());
  ASSERT_TRUE(repo2);
  auto other = read_filelists_if_needed(*repo2, kFxTool);
  ASSERT_FALSE(other);
  EXPECT_EQ(other.error().message(), where + ":3: package cuda-fx-data-12-9-12.9.99-1.x86_64 (pkgid " +
                                         std::string(64, '2') +
                                         ") is not in primary.xml; primary.xml gives that pkgid to "
                                         "cuda-fx-data-12-9-12.9.86-1.x86_64");
  // A package that lists nothing wanted is not matched at all.
  fx.filelists_gz = compress(filelists_doc(fl_pkg(std::string(64, '7'), "unrelated", "1", {"/usr/share/x"})),
                             ARCHIVE_FILTER_GZIP);
  fx.write_all();
  auto repo3 = load_repository(fx.dir.string());
  ASSERT_TRUE(repo3);
  auto fine = read_filelists_if_needed(*repo3, kFxTool);
  ASSERT_TRUE(fine) << fine.error().message();
  EXPECT_TRUE(fine->read);
  EXPECT_TRUE(fine->found.empty());
}

// Peak resident memory (VmHWM) and current (VmRSS) of this process, KiB;
// -1 when /proc cannot tell.
long proc_status_kib(const char* key) {
  std::ifstream in("/proc/self/status");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(key, 0) == 0) return std::atol(line.c_str() + std::strlen(key));
  return -1;
}

// A synthetic filelists.xml of 20,000 packages and 1,000,000 files (NVIDIA's
// real one is a few hundred MB): only the three wanted paths are kept, the
// XML is streamed from the compressed file, and memory does not grow with
// the file list. Bounds are loose so they hold under sanitizers.
TEST(Scale, MillionFileFilelists) {
  cuwheel::test::TempDir tmp;
  auto dir = tmp.path();
  ASSERT_FALSE(dir.empty());
  constexpr int kPackages = 20000, kFilesEach = 50;
  std::string pk, fl;
  auto sha = [](int i) {
    char buf[65];
    std::snprintf(buf, sizeof buf, "%064x", i + 1);
    return std::string(buf);
  };
  for (int i = 0; i < kPackages; ++i) {
    std::string n = "cuda-pkg" + std::to_string(i) + "-12-9";
    std::string req = i == 0 ? entry("/usr/share/cuda-pkg19999/data/file7.txt") + entry("/usr/lib64/libpkg123.so.1")
                             : "";
    pk += pkg_xml(n, "x86_64", "12.9.86", "1", "", req, "", "0", sha(i));
    fl += "<package pkgid=\"" + sha(i) + "\" name=\"" + n + "\" arch=\"x86_64\">\n  <version epoch=\"0\" ver=\"12.9.86\" rel=\"1\"/>\n";
    for (int f = 0; f < kFilesEach - 1; ++f)
      fl += "  <file>/usr/share/cuda-pkg" + std::to_string(i) + "/data/file" + std::to_string(f) + ".txt</file>\n";
    fl += "  <file>/usr/lib64/libpkg" + std::to_string(i) + ".so.1</file>\n</package>\n";
  }
  fl = filelists_doc(fl);
  const size_t xml_mb = fl.size() >> 20;
  std::string primary_gz = compress(primary_doc(pk), ARCHIVE_FILTER_GZIP);
  std::string filelists_gz = compress(fl, ARCHIVE_FILTER_GZIP);
  write(dir / "repodata/primary.xml.gz", primary_gz);
  write(dir / "repodata/filelists.xml.gz", filelists_gz);
  write(dir / "repodata/repomd.xml",
        "<repomd><data type=\"primary\"><checksum type=\"sha256\">" + sha256_hex(primary_gz) +
            "</checksum><location href=\"repodata/primary.xml.gz\"/></data><data type=\"filelists\"><checksum "
            "type=\"sha256\">" + sha256_hex(filelists_gz) +
            "</checksum><location href=\"repodata/filelists.xml.gz\"/></data></repomd>");
  const size_t gz_mb = filelists_gz.size() >> 20;
  std::string().swap(pk);
  std::string().swap(fl);
  std::string().swap(primary_gz);
  std::string().swap(filelists_gz);

  auto repo = load_repository(dir.string());
  ASSERT_TRUE(repo) << repo.error().message();
  // Reset the peak to the current resident size (Linux >= 4.0, proc(5)
  // /proc/PID/clear_refs "5"), so VmHWM afterwards is the peak of the read.
  bool measured = static_cast<bool>(std::ofstream("/proc/self/clear_refs") << "5");
  long rss0 = proc_status_kib("VmRSS:");
  auto t0 = std::chrono::steady_clock::now();
  auto read = read_filelists_if_needed(*repo, {"12.9", {"cuda-pkg0"}, "x86_64"});
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  long peak = proc_status_kib("VmHWM:");
  ASSERT_TRUE(read) << read.error().message();
  EXPECT_EQ(read->found, (std::vector<std::string>{"/usr/lib64/libpkg123.so.1", "/usr/share/cuda-pkg19999/data/file7.txt"}));
  size_t kept = 0;
  for (const Package& p : repo->packages) kept += p.files.size();
  EXPECT_EQ(kept, 2u);  // of 1,000,000 listed
  auto r = resolve(*repo, {"12.9", {"cuda-pkg0"}, "x86_64"});
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(names(*r), (std::vector<std::string>{"cuda-pkg0-12-9 12.9.86-1 x86_64", "cuda-pkg123-12-9 12.9.86-1 x86_64",
                                                 "cuda-pkg19999-12-9 12.9.86-1 x86_64"}));
  EXPECT_LT(s, 60.0);
  long grew_kib = measured && rss0 > 0 && peak > 0 ? peak - rss0 : -1;
  if (grew_kib >= 0) {
    EXPECT_LT(grew_kib, 256 << 10) << "reading filelists grew the peak by " << grew_kib << " KiB";
  }
  std::printf("[ timing ] filelists of %d packages, %d files (%zu MB of XML, %zu MB gzip): fetch + check + parse %.2f s,"
              " peak resident memory grew by %ld KiB\n",
              kPackages, kPackages * kFilesEach, xml_mb, gz_mb, s, grew_kib);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuwheel::toolkit
