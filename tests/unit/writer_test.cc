// The wheel writer (cuwheel/wheel/writer.h): a copy of the demo wheel with
// one member replaced, one added and the rest kept raw, read back by
// cuwheel's reader (which cross-checks with libzip), by Python's zipfile
// and by `unzip -t`; the RECORD it writes verifies; the same input gives
// the same bytes; ZIP64 records read back too.
#include "cuwheel/wheel/writer.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cuwheel/wheel/metadata.h"

namespace cuwheel {
namespace {

namespace fs = std::filesystem;
const std::string kWheel =
    std::string(CUWHEEL_SOURCE_DIR) + "/tests/fixtures/bin/cuwheel_demo-1.0.0-cp312-cp312-manylinux_2_28_x86_64.whl";

struct TempDir {
  std::string path;
  TempDir() {
    char t[] = "/tmp/cuwheel-writer-XXXXXX";
    path = mkdtemp(t);
  }
  ~TempDir() { fs::remove_all(path); }
};

std::vector<uint8_t> read_bytes(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  return std::vector<uint8_t>(std::istreambuf_iterator<char>(f), {});
}

std::string record_name(const Wheel& w) {
  for (const auto& m : w.members())
    if (m.name.size() > 7 && m.name.compare(m.name.size() - 7, 7, "/RECORD") == 0) return m.name;
  return "";
}

// The plan used below: every member kept except the first .so (replaced
// by new bytes), and one new file.
std::vector<OutMember> plan(const Wheel& w, std::string* replaced) {
  std::vector<OutMember> out;
  bool done = false;
  for (const auto& m : w.members()) {
    if (m.is_dir) continue;
    OutMember o;
    o.name = m.name;
    if (!done && m.name.size() > 3 && m.name.compare(m.name.size() - 3, 3, ".so") == 0) {
      o.bytes = {'n', 'e', 'w', '\n'};
      o.mode = 0755;
      *replaced = m.name;
      done = true;
    } else {
      o.keep = &m;
    }
    out.push_back(std::move(o));
  }
  OutMember extra;
  extra.name = "cuwheel_demo/added, with a comma.txt";
  extra.bytes.assign(100000, 'x');
  out.push_back(std::move(extra));
  return out;
}

void check_output(const std::string& path, const std::string& replaced) {
  auto w = Wheel::open(path);
  ASSERT_TRUE(w) << w.error().message();
  const std::string rec = record_name(*w);
  ASSERT_FALSE(rec.empty());
  EXPECT_EQ(w->members().back().name, rec);  // RECORD last
  auto rb = w->read(*w->find(rec));
  ASSERT_TRUE(rb);
  WarningSink warnings;
  Record r = Record::parse(rb->view(), rec, warnings);
  size_t verified = 0;
  for (const auto& m : w->members()) {
    if (m.name == rec) continue;
    auto b = w->read(m);
    ASSERT_TRUE(b) << m.name << ": " << b.error().message();
    const RecordEntry* e = r.find(m.name);
    ASSERT_NE(e, nullptr) << m.name;
    EXPECT_TRUE(verify_record_entry(*e, b->view())) << m.name;
    ++verified;
    if (m.name == replaced) EXPECT_EQ(std::string(b->view().begin(), b->view().end()), "new\n");
  }
  EXPECT_GT(verified, 3u);
  EXPECT_EQ(std::system(("unzip -tq '" + path + "' >/dev/null").c_str()), 0);
  EXPECT_EQ(std::system(("python3 -c 'import sys,zipfile; z=zipfile.ZipFile(sys.argv[1]); "
                         "sys.exit(z.testzip() is not None)' '" + path + "'").c_str()),
            0);
}

TEST(WheelWriter, KeepsRawReplacesAddsAndWritesRecord) {
  TempDir t;
  auto in = Wheel::open(kWheel);
  ASSERT_TRUE(in) << in.error().message();
  const std::string rec = record_name(*in);
  auto rb = in->read(*in->find(rec));
  ASSERT_TRUE(rb);
  WarningSink warnings;
  Record input_record = Record::parse(rb->view(), rec, warnings);
  std::string replaced;
  const std::string out = t.path + "/out.whl";
  auto st = write_wheel(*in, plan(*in, &replaced), rec, &input_record, out);
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_FALSE(replaced.empty());
  EXPECT_GT(st->copied, 2u);
  check_output(out, replaced);
  // Kept members' compressed bytes are the input's, byte for byte.
  auto o = Wheel::open(out);
  ASSERT_TRUE(o);
  auto ib = read_bytes(kWheel), ob = read_bytes(out);
  for (const auto& m : in->members()) {
    if (m.is_dir || m.name == replaced || m.name == rec) continue;
    const ZipMember* n = o->find(m.name);
    ASSERT_NE(n, nullptr) << m.name;
    EXPECT_EQ(n->crc32, m.crc32);
    auto a = in->data_offset(m), b = o->data_offset(*n);
    ASSERT_TRUE(a && b);
    EXPECT_TRUE(std::equal(ib.begin() + static_cast<std::ptrdiff_t>(*a),
                           ib.begin() + static_cast<std::ptrdiff_t>(*a + m.compressed_size),
                           ob.begin() + static_cast<std::ptrdiff_t>(*b)))
        << m.name;
  }
  // The same input gives the same bytes.
  const std::string again = t.path + "/again.whl";
  ASSERT_TRUE(write_wheel(*in, plan(*in, &replaced), rec, &input_record, again));
  EXPECT_EQ(read_bytes(again), ob);
  for (const auto& e : fs::directory_iterator(t.path))
    EXPECT_EQ(e.path().string().find(".tmp."), std::string::npos) << e.path();
}

TEST(WheelWriter, Zip64RecordsReadBack) {
  TempDir t;
  auto in = Wheel::open(kWheel);
  ASSERT_TRUE(in);
  std::string replaced;
  WheelWriteOptions o;
  o.force_zip64 = true;
  o.timestamp = 1700000000;
  const std::string out = t.path + "/z64.whl";
  auto st = write_wheel(*in, plan(*in, &replaced), record_name(*in), nullptr, out, o);
  ASSERT_TRUE(st) << st.error().message();
  check_output(out, replaced);
  auto w = Wheel::open(out);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->members().front().zip64);
}

TEST(WheelWriter, RefusesBadPlans) {
  TempDir t;
  auto in = Wheel::open(kWheel);
  ASSERT_TRUE(in);
  std::vector<OutMember> twice(2);
  twice[0].name = twice[1].name = "a.txt";
  EXPECT_FALSE(write_wheel(*in, twice, "x-1.dist-info/RECORD", nullptr, t.path + "/o.whl"));
  std::vector<OutMember> abs(1);
  abs[0].name = "/etc/passwd";
  EXPECT_FALSE(write_wheel(*in, abs, "x-1.dist-info/RECORD", nullptr, t.path + "/o.whl"));
  std::vector<OutMember> missing(1);
  missing[0].name = "a.txt";
  missing[0].file = t.path + "/does-not-exist";
  auto r = write_wheel(*in, missing, "x-1.dist-info/RECORD", nullptr, t.path + "/o.whl");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("does-not-exist"), std::string::npos);
  EXPECT_FALSE(fs::exists(t.path + "/o.whl"));
  // A kept member whose input RECORD hash is wrong is refused.
  Record bad;
  for (const auto& m : in->members())
    if (!m.is_dir) bad.entries.push_back({m.name, "sha256", "AAAA", std::nullopt, 1});
  std::vector<OutMember> keep;
  for (const auto& m : in->members())
    if (!m.is_dir) keep.push_back({m.name, &m, "", {}, 0644});
  auto k = write_wheel(*in, keep, record_name(*in), &bad, t.path + "/o.whl");
  EXPECT_FALSE(k);
  EXPECT_FALSE(fs::exists(t.path + "/o.whl"));
}

}  // namespace
}  // namespace cuwheel
