// Wheel file names, METADATA, WHEEL, RECORD, entry points, .dist-info
// location, and the RECORD digest helpers.
#include "cuwheel/wheel/metadata.h"

#include <gtest/gtest.h>

#include "cuwheel/base/digest.h"

namespace cuwheel {
namespace {

ByteView B(std::string_view s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

bool has_warning(const WarningSink& w, std::string_view needle) {
  for (const auto& m : w.messages())
    if (m.find(needle) != std::string::npos) return true;
  return false;
}

// ---------------------------------------------------------------------------

TEST(MetadataDigest, Base64AndSha256) {
  EXPECT_EQ(base64url_nopad(B("")), "");
  EXPECT_EQ(base64url_nopad(B("f")), "Zg");
  EXPECT_EQ(base64url_nopad(B("fo")), "Zm8");
  EXPECT_EQ(base64url_nopad(B("foo")), "Zm9v");
  EXPECT_EQ(base64url_nopad(B("\xfb\xff")), "-_8");
  EXPECT_EQ(*base64url_decode("-_8"), "\xfb\xff");
  EXPECT_EQ(*base64url_decode("Zm8="), "fo");
  EXPECT_FALSE(base64url_decode("Z"));
  EXPECT_FALSE(base64url_decode("Zm+v"));
  EXPECT_FALSE(base64url_decode("Z==="));
  EXPECT_EQ(*record_hash("sha256", B("")), "sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU");
  auto d = sha256(B("abc"));
  EXPECT_EQ(d[0], 0xba);
  EXPECT_EQ(d[31], 0xad);
  EXPECT_FALSE(record_hash("md5", B("x")));
  EXPECT_FALSE(record_hash("sha1", B("x")));
  auto inc = Digest::create("sha256");
  ASSERT_TRUE(inc);
  inc->update(B("a"));
  inc->update(B("bc"));
  std::string raw = inc->finish();
  EXPECT_EQ(base64url_nopad(B(raw)), base64url_nopad(ByteView(d.data(), d.size())));
}

// ---------------------------------------------------------------------------

TEST(MetadataFilename, ParsesTagsAndBuild) {
  auto w = WheelFilename::parse("dist/torch-2.11.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(w) << w.error().message();
  EXPECT_EQ(w->distribution, "torch");
  EXPECT_EQ(w->version, "2.11.0+cu130");
  EXPECT_FALSE(w->build);
  ASSERT_EQ(w->tags().size(), 1u);
  EXPECT_EQ(w->tags()[0].to_string(), "cp312-cp312-manylinux_2_28_x86_64");

  auto n = WheelFilename::parse("nvidia_cuda_runtime-13.0.96-1abc-py2.py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl");
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(*n->build, "1abc");
  EXPECT_EQ(n->build_number, 1u);
  EXPECT_EQ(n->build_suffix, "abc");
  EXPECT_EQ(n->tags().size(), 4u);
  EXPECT_EQ(n->tags()[3].to_string(), "py3-none-manylinux_2_17_x86_64");
}

TEST(MetadataFilename, RejectsBadNames) {
  for (const char* bad : {"torch.whl", "torch-2.0-cp312-cp312.whl", "torch-2.0-cp312-cp312-linux.zip",
                          "torch-2.0-x-y-cp312-abi-plat.whl", "torch-2.0-abc-py3-none-any.whl",
                          "torch--py3-none-any.whl", "torch-1.0-py3..py2-none-any.whl", "-1.0-py3-none-any.whl",
                          "t-1-99999999999999999999999-py3-none-any.whl"}) {
    EXPECT_FALSE(WheelFilename::parse(bad)) << bad;
  }
}

// ---------------------------------------------------------------------------

constexpr std::string_view kTorchMetadata =
    "Metadata-Version: 2.4\r\n"
    "Name: torch\r\n"
    "Version: 2.11.0+cu130\r\n"
    "Summary: Tensors and Dynamic neural networks in Python\r\n"
    "License-Expression: BSD-3-Clause\r\n"
    "License-File: LICENSE\r\n"
    "License-File: NOTICE\r\n"
    "Classifier: Programming Language :: C++\r\n"
    "Classifier: Programming Language :: Python :: 3.12\r\n"
    "Requires-Python: >=3.10\r\n"
    "Requires-Dist: filelock\r\n"
    "Requires-Dist: cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"\r\n"
    "Requires-Dist: nvidia-cudnn-cu13==9.19.0.56; platform_system == \"Linux\"\r\n"
    "Provides-Extra: optree\r\n"
    "Keywords: pytorch,\r\n"
    "  machine learning\r\n"
    "\r\n"
    "# PyTorch\r\n\r\nMore text.\r\n";

TEST(MetadataCore, ParsesTorchLikeMetadata) {
  WarningSink w;
  auto m = CoreMetadata::parse(B(kTorchMetadata), "torch-2.11.0+cu130.dist-info/METADATA", w);
  ASSERT_TRUE(m) << m.error().message();
  EXPECT_TRUE(w.messages().empty()) << w.messages()[0];
  EXPECT_EQ(m->metadata_version, "2.4");
  EXPECT_EQ(m->name, "torch");
  EXPECT_EQ(m->version, "2.11.0+cu130");
  EXPECT_EQ(m->license_files, (std::vector<std::string>{"LICENSE", "NOTICE"}));
  EXPECT_EQ(m->classifiers.size(), 2u);
  ASSERT_EQ(m->requires_dist.size(), 3u);
  EXPECT_EQ(m->requires_dist[1], "cuda-toolkit[cublas,cudart]==13.0.2; platform_system == \"Linux\"");
  EXPECT_EQ(*m->requires_python, ">=3.10");
  EXPECT_EQ(*m->license_expression, "BSD-3-Clause");
  EXPECT_EQ(*m->keywords, "pytorch,\n  machine learning");
  EXPECT_EQ(*m->description, "# PyTorch\r\n\r\nMore text.\r\n");
  EXPECT_EQ(m->raw.fields[1].line, 2u);
}

TEST(MetadataCore, VersionsAndRequiredFields) {
  WarningSink w;
  auto m = CoreMetadata::parse(B("Metadata-Version: 2.5\nName: x\nVersion: 1\n"), "M", w);
  ASSERT_TRUE(m);
  EXPECT_TRUE(has_warning(w, "newer than 2.4"));
  WarningSink w2;
  EXPECT_TRUE(CoreMetadata::parse(B("Metadata-Version: 9.0\nName: x\nVersion: 1\n"), "M", w2));
  EXPECT_TRUE(has_warning(w2, "newer than 2.4"));
  WarningSink w3;
  EXPECT_TRUE(CoreMetadata::parse(B("Metadata-Version: banana\nName: x\nVersion: 1\n"), "M", w3));
  EXPECT_TRUE(has_warning(w3, "unknown Metadata-Version"));
  for (std::string_view v : {"1.0", "1.1", "1.2", "2.1", "2.2", "2.3", "2.4"}) {
    WarningSink ws;
    std::string text = "Metadata-Version: " + std::string(v) + "\nName: x\nVersion: 1\n";
    EXPECT_TRUE(CoreMetadata::parse(B(text), "M", ws));
    EXPECT_TRUE(ws.messages().empty()) << v;
  }
  WarningSink w4;
  auto missing = CoreMetadata::parse(B("Metadata-Version: 2.1\nVersion: 1\n"), "x/METADATA", w4);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), "x/METADATA: missing Name");
  EXPECT_FALSE(CoreMetadata::parse(B(""), "M", w4));
}

TEST(MetadataCore, OddLinesAreWarnedNotFatal) {
  WarningSink w;
  auto m = CoreMetadata::parse(B("  leading continuation\nMetadata-Version: 2.1\nName: x\nName: y\n"
                                 "garbage line\nVersion: 1\nDescription: old style\n        |more\n"),
                               "M", w);
  ASSERT_TRUE(m);
  EXPECT_EQ(m->name, "x");
  EXPECT_TRUE(has_warning(w, "M line 1: continuation line before any field"));
  EXPECT_TRUE(has_warning(w, "M line 4: field 'Name' repeated"));
  EXPECT_TRUE(has_warning(w, "M line 5: not a 'Name: value' header line"));
  EXPECT_EQ(*m->description, "old style\n        |more");
}

// ---------------------------------------------------------------------------

TEST(MetadataWheelFile, Parses) {
  WarningSink w;
  auto wi = WheelInfo::parse(B("Wheel-Version: 1.0\nGenerator: setuptools (80.9.0)\nRoot-Is-Purelib: false\n"
                               "Tag: py3-none-manylinux2014_x86_64\nTag: py3-none-manylinux_2_17_x86_64\nBuild: 1\n"),
                             "WHEEL", w);
  ASSERT_TRUE(wi) << wi.error().message();
  EXPECT_TRUE(w.messages().empty());
  EXPECT_EQ(*wi->generator, "setuptools (80.9.0)");
  EXPECT_EQ(wi->root_is_purelib, false);
  EXPECT_EQ(wi->tags.size(), 2u);
  EXPECT_EQ(*wi->build, "1");
}

TEST(MetadataWheelFile, VersionRules) {
  WarningSink w;
  EXPECT_FALSE(WheelInfo::parse(B("Wheel-Version: 2.0\nRoot-Is-Purelib: true\nTag: a-b-c\n"), "WHEEL", w));
  EXPECT_FALSE(WheelInfo::parse(B("Root-Is-Purelib: true\n"), "WHEEL", w));
  EXPECT_FALSE(WheelInfo::parse(B("Wheel-Version: one\n"), "WHEEL", w));
  WarningSink w2;
  auto wi = WheelInfo::parse(B("Wheel-Version: 1.9\nRoot-Is-Purelib: maybe\nTag: bad\n"), "WHEEL", w2);
  ASSERT_TRUE(wi);
  EXPECT_FALSE(wi->root_is_purelib);
  EXPECT_TRUE(has_warning(w2, "newer than 1.0"));
  EXPECT_TRUE(has_warning(w2, "not true or false"));
  EXPECT_TRUE(has_warning(w2, "'bad' is not python-abi-platform"));
}

// ---------------------------------------------------------------------------

TEST(MetadataRecord, ParsesCsv) {
  WarningSink w;
  auto r = Record::parse(B("torch/__init__.py,sha256=47DEQpj8HBSa-_TImW-5JCeuQeRkm5NMpJWZG3hSuFU,0\r\n"
                           "\"odd,name.py\",sha256=abc,12\n"
                           "\"multi\nline\"\"q\"\"\",,\n"
                           "\n"
                           "torch-2.11.0.dist-info/RECORD,,\n"),
                         "RECORD", w);
  EXPECT_TRUE(w.messages().empty()) << w.messages()[0];
  ASSERT_EQ(r.entries.size(), 4u);
  EXPECT_EQ(r.entries[0].hash_algorithm, "sha256");
  EXPECT_EQ(*r.entries[0].size, 0u);
  EXPECT_EQ(r.entries[1].path, "odd,name.py");
  EXPECT_EQ(r.entries[1].line, 2u);
  EXPECT_EQ(r.entries[2].path, "multi\nline\"q\"");
  EXPECT_EQ(r.entries[2].line, 3u);
  EXPECT_FALSE(r.entries[2].size);
  EXPECT_EQ(r.entries[3].line, 6u);
  EXPECT_TRUE(r.entries[3].hash_algorithm.empty());
  EXPECT_NE(r.find("odd,name.py"), nullptr);
  EXPECT_EQ(r.find("nope"), nullptr);
}

TEST(MetadataRecord, BadRowsAreWarned) {
  WarningSink w;
  auto r = Record::parse(B("a,sha256=x\nb,nohash,1\nc,sha256=x,-1\nd,sha256=x,999999999999999999999\n"
                           ",sha256=x,1\ne,,1,extra\n\"unterminated,x,1\n"),
                         "RECORD", w);
  EXPECT_TRUE(has_warning(w, "RECORD line 1: expected 3 fields"));
  EXPECT_TRUE(has_warning(w, "RECORD line 2: hash 'nohash' is not algorithm=digest"));
  EXPECT_TRUE(has_warning(w, "RECORD line 3: size '-1' is not a byte count"));
  EXPECT_TRUE(has_warning(w, "RECORD line 4: size '999999999999999999999'"));
  EXPECT_TRUE(has_warning(w, "RECORD line 5: empty path"));
  EXPECT_TRUE(has_warning(w, "RECORD line 6: expected 3 fields"));
  EXPECT_TRUE(has_warning(w, "RECORD line 7: unterminated quote"));
  EXPECT_EQ(r.entries.size(), 6u);
}

TEST(MetadataRecord, Verify) {
  WarningSink w;
  auto r = Record::parse(B("a,sha256=LCa0a2j_xo_5m0U8HTBBNBNCLXBkg7-g-YpeiGJm564,3\n"
                           "b,sha256=LCa0a2j_xo_5m0U8HTBBNBNCLXBkg7-g-YpeiGJm564,4\n"
                           "c,md5=xxx,3\nd,sha256=!!,3\ne,,3\n"),
                         "RECORD", w);
  ASSERT_EQ(r.entries.size(), 5u);
  EXPECT_TRUE(verify_record_entry(r.entries[0], B("foo")));
  auto bad = verify_record_entry(r.entries[0], B("fop"));
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("sha256 mismatch"), std::string::npos) << bad.error().message();
  EXPECT_NE(bad.error().message().find("RECORD line 1 (a)"), std::string::npos);
  auto size = verify_record_entry(r.entries[1], B("foo"));
  ASSERT_FALSE(size);
  EXPECT_NE(size.error().message().find("size mismatch"), std::string::npos);
  EXPECT_FALSE(verify_record_entry(r.entries[2], B("foo")));
  EXPECT_FALSE(verify_record_entry(r.entries[3], B("foo")));
  EXPECT_FALSE(verify_record_entry(r.entries[4], B("foo")));
}

// ---------------------------------------------------------------------------

TEST(MetadataEntryPoints, Parses) {
  WarningSink w;
  auto eps = parse_entry_points(B("# comment\n[console_scripts]\ntorchrun = torch.distributed.run:main\n"
                                  "cuwheel=cuwheel.cli:Main.run [cli, extra2]\n\n[torch.backends]\n"
                                  "cuda: torch_cuda\n"),
                                "entry_points.txt", w);
  EXPECT_TRUE(w.messages().empty()) << w.messages()[0];
  ASSERT_EQ(eps.size(), 3u);
  EXPECT_EQ(eps[0].group, "console_scripts");
  EXPECT_EQ(eps[0].name, "torchrun");
  EXPECT_EQ(eps[0].module, "torch.distributed.run");
  EXPECT_EQ(eps[0].attr, "main");
  EXPECT_EQ(eps[1].attr, "Main.run");
  EXPECT_EQ(eps[1].extras, (std::vector<std::string>{"cli", "extra2"}));
  EXPECT_EQ(eps[2].group, "torch.backends");
  EXPECT_EQ(eps[2].module, "torch_cuda");
  EXPECT_TRUE(eps[2].attr.empty());
  EXPECT_EQ(eps[2].line, 7u);
}

TEST(MetadataEntryPoints, BadLinesAreWarned) {
  WarningSink w;
  auto eps = parse_entry_points(B("orphan = a:b\n[g\n[s]\nnoequals\nx = a:\ny = a b\nz = a:b\nz = a:c\n"), "ep", w);
  EXPECT_TRUE(has_warning(w, "ep line 1: entry before any [section]"));
  EXPECT_TRUE(has_warning(w, "ep line 2: unterminated section header"));
  EXPECT_TRUE(has_warning(w, "ep line 4: expected 'name = object reference'"));
  EXPECT_TRUE(has_warning(w, "ep line 5: 'a:' is not an object reference"));
  EXPECT_TRUE(has_warning(w, "ep line 6: 'a b' is not an object reference"));
  EXPECT_TRUE(has_warning(w, "ep line 8: entry point 'z' repeated in [s]"));
  EXPECT_EQ(eps.size(), 2u);
}

// ---------------------------------------------------------------------------

TEST(MetadataDistInfo, LocatesAndCompares) {
  auto fn = WheelFilename::parse("nvidia_cublas-13.1.0.3-py3-none-manylinux_2_27_x86_64.whl");
  ASSERT_TRUE(fn);
  std::vector<std::string> names = {"nvidia/cu13/lib/libcublas.so.13", "nvidia_cublas-13.1.0.3.dist-info/METADATA",
                                    "nvidia_cublas-13.1.0.3.dist-info/RECORD", "nested/x.dist-info/METADATA"};
  auto loc = locate_dist_info(names, &*fn, "w.whl");
  ASSERT_TRUE(loc) << loc.error().message();
  EXPECT_EQ(loc->dir, "nvidia_cublas-13.1.0.3.dist-info");
  EXPECT_EQ(loc->name, "nvidia_cublas");
  EXPECT_EQ(loc->version, "13.1.0.3");
  EXPECT_TRUE(loc->name_matches);
  EXPECT_TRUE(loc->version_matches);

  auto other = WheelFilename::parse("nvidia_cublas_cu12-13.1.0.4-py3-none-any.whl");
  auto loc2 = locate_dist_info(names, &*other, "w.whl");
  ASSERT_TRUE(loc2);
  EXPECT_FALSE(loc2->name_matches);
  EXPECT_FALSE(loc2->version_matches);

  auto none = locate_dist_info({"a/b.py"}, nullptr, "w.whl");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "w.whl: no top-level *.dist-info directory");
  auto two = locate_dist_info({"a-1.dist-info/METADATA", "b-1.dist-info/METADATA"}, nullptr, "w.whl");
  ASSERT_FALSE(two);
  EXPECT_NE(two.error().message().find("2 .dist-info directories: a-1.dist-info, b-1.dist-info"),
            std::string::npos);
}

}  // namespace
}  // namespace cuwheel

// Record::find is looked up once per member (issue: quadratic RECORD
// lookup on wheels of 200,000 members); the index must give the same
// answers as the scan: the first entry of a path, entries added later too.
namespace cuwheel {
TEST(RecordIndex, FirstEntryOfAPathAndEntriesAddedLater) {
  std::string text;
  for (int i = 0; i < 20000; ++i) text += "pkg/m" + std::to_string(i) + ".py,sha256=AAAA,1\n";
  text += "pkg/m7.py,sha256=BBBB,2\n";  // a second line for one path
  WarningSink w;
  Record r = Record::parse(ByteView(reinterpret_cast<const uint8_t*>(text.data()), text.size()), "RECORD", w);
  ASSERT_EQ(r.entries.size(), 20001u);
  const RecordEntry* e = r.find("pkg/m7.py");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->hash_value, "AAAA");  // the first one
  EXPECT_EQ(e->line, 8u);
  EXPECT_NE(r.find("pkg/m19999.py"), nullptr);
  EXPECT_EQ(r.find("pkg/m20000.py"), nullptr);
  EXPECT_EQ(r.find(""), nullptr);
  RecordEntry added;
  added.path = "pkg/late.py";
  r.entries.push_back(added);
  ASSERT_NE(r.find("pkg/late.py"), nullptr);
  EXPECT_EQ(r.find("pkg/late.py")->path, "pkg/late.py");
  Record hand;  // built by hand, never indexed
  hand.entries.push_back(added);
  EXPECT_NE(hand.find("pkg/late.py"), nullptr);
}
}  // namespace cuwheel
