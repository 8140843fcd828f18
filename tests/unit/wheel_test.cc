// The wheel (zip) reader, on archives built here: real ones written by
// libzip, and hand-assembled ones (APPNOTE.TXT layouts) for what libzip
// will not write: zip64 records, data descriptors, lying sizes, bad CRCs,
// hostile names.
#include "cuwheel/wheel/wheel.h"

#include <gtest/gtest.h>

#include <iostream>
#include <unistd.h>
#include <zip.h>

#include <cstdio>
#include <fstream>
#include <atomic>
#include <memory>
#include <thread>

#include "cuwheel/base/digest.h"
#include "cuwheel/model/inputs.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/pep508.h"
#include "temp_dir.h"

namespace cuwheel {
namespace {

using Bytes = std::vector<uint8_t>;

Bytes to_bytes(std::string_view s) { return Bytes(s.begin(), s.end()); }
std::string to_string(ByteView v) { return std::string(reinterpret_cast<const char*>(v.data()), v.size()); }

uint32_t crc32_of(std::string_view data) {
  uint32_t crc = 0xffffffffu;
  for (unsigned char c : data) {
    crc ^= c;
    for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
  }
  return ~crc;
}

// ---------------------------------------------------------------------------
// libzip-made archives

struct File {
  std::string name;
  std::string data;
  bool deflate = true;
};

// Writes `files` into an in-memory zip with libzip and returns its bytes.
Bytes libzip_archive(const std::vector<File>& files) {
  zip_error_t err;
  zip_error_init(&err);
  zip_source_t* out = zip_source_buffer_create(nullptr, 0, 0, &err);
  EXPECT_NE(out, nullptr);
  zip_source_keep(out);
  zip_t* za = zip_open_from_source(out, ZIP_TRUNCATE, &err);
  EXPECT_NE(za, nullptr);
  for (const auto& f : files) {
    zip_source_t* s = zip_source_buffer(za, f.data.data(), f.data.size(), 0);
    zip_int64_t idx = f.name.back() == '/' ? zip_dir_add(za, f.name.c_str(), ZIP_FL_ENC_UTF_8)
                                           : zip_file_add(za, f.name.c_str(), s, ZIP_FL_ENC_UTF_8);
    EXPECT_GE(idx, 0) << zip_strerror(za);
    if (f.name.back() == '/') zip_source_free(s);
    zip_set_file_compression(za, static_cast<zip_uint64_t>(idx), f.deflate ? ZIP_CM_DEFLATE : ZIP_CM_STORE, 9);
  }
  EXPECT_EQ(zip_close(za), 0);
  Bytes bytes;
  EXPECT_EQ(zip_source_open(out), 0);
  zip_source_seek(out, 0, SEEK_END);
  zip_int64_t size = zip_source_tell(out);
  zip_source_seek(out, 0, SEEK_SET);
  bytes.resize(static_cast<size_t>(size));
  EXPECT_EQ(zip_source_read(out, bytes.data(), bytes.size()), size);
  zip_source_close(out);
  zip_source_free(out);
  zip_error_fini(&err);
  return bytes;
}

// Raw deflate data for `data`, cut out of a libzip archive (its local
// header at offset 0 carries the sizes: libzip seeks back to write them).
std::string raw_deflate(const std::string& data) {
  Bytes z = libzip_archive({{"x", data, true}});
  uint32_t csize = 0;
  uint16_t nlen = 0, xlen = 0;
  std::memcpy(&csize, z.data() + 18, 4);
  std::memcpy(&nlen, z.data() + 26, 2);
  std::memcpy(&xlen, z.data() + 28, 2);
  return std::string(reinterpret_cast<const char*>(z.data()) + 30 + nlen + xlen, csize);
}

// ---------------------------------------------------------------------------
// Hand-assembled archives

struct RawEntry {
  std::string name;
  std::string payload;  // bytes as stored (already compressed for method 8)
  uint16_t method = 0;
  uint32_t crc = 0;
  uint64_t usize = 0;  // declared uncompressed size
  std::optional<std::string> local_name;
  bool data_descriptor = false;
  bool zip64 = false;
  uint16_t flags = 0;  // general purpose bits; 0x800 marks the name as UTF-8
  std::optional<uint32_t> cd_csize;   // compressed size in the central directory, when it lies
  std::optional<uint32_t> cd_offset;  // local header offset in the central directory, when it lies
};

RawEntry stored(std::string name, std::string data) {
  RawEntry e;
  e.name = std::move(name);
  e.crc = crc32_of(data);
  e.usize = data.size();
  e.payload = std::move(data);
  return e;
}

RawEntry deflated(std::string name, const std::string& data) {
  RawEntry e;
  e.name = std::move(name);
  e.method = 8;
  e.crc = crc32_of(data);
  e.usize = data.size();
  e.payload = raw_deflate(data);
  return e;
}

class Writer {
 public:
  void u16(uint16_t v) { raw(&v, 2); }
  void u32(uint32_t v) { raw(&v, 4); }
  void u64(uint64_t v) { raw(&v, 8); }
  void str(std::string_view s) { raw(s.data(), s.size()); }
  void raw(const void* p, size_t n) {
    auto* b = static_cast<const uint8_t*>(p);
    out.insert(out.end(), b, b + n);
  }
  Bytes out;
};

// APPNOTE 4.3.6: [local header, data, (descriptor)]*, central directory,
// (zip64 end record, zip64 locator), end record.
Bytes assemble(const std::vector<RawEntry>& entries, bool zip64_end = false) {
  Writer w;
  std::vector<uint64_t> offsets;
  for (const auto& e : entries) {
    offsets.push_back(w.out.size());
    const std::string& lname = e.local_name ? *e.local_name : e.name;
    uint16_t flags = static_cast<uint16_t>(e.flags | (e.data_descriptor ? 8 : 0));
    w.u32(0x04034b50);
    w.u16(e.zip64 ? 45 : 20);
    w.u16(flags);
    w.u16(e.method);
    w.u32(0);  // time, date
    bool dd = e.data_descriptor;
    w.u32(dd ? 0 : e.crc);
    w.u32(dd ? 0 : (e.zip64 ? 0xffffffffu : static_cast<uint32_t>(e.payload.size())));
    w.u32(dd ? 0 : (e.zip64 ? 0xffffffffu : static_cast<uint32_t>(e.usize)));
    w.u16(static_cast<uint16_t>(lname.size()));
    w.u16(e.zip64 ? 20 : 0);
    w.str(lname);
    if (e.zip64) {
      w.u16(1);
      w.u16(16);
      w.u64(dd ? 0 : e.usize);
      w.u64(dd ? 0 : e.payload.size());
    }
    w.str(e.payload);
    if (dd) {
      w.u32(0x08074b50);
      w.u32(e.crc);
      if (e.zip64) {
        w.u64(e.payload.size());
        w.u64(e.usize);
      } else {
        w.u32(static_cast<uint32_t>(e.payload.size()));
        w.u32(static_cast<uint32_t>(e.usize));
      }
    }
  }
  uint64_t cd_start = w.out.size();
  for (size_t i = 0; i < entries.size(); ++i) {
    const auto& e = entries[i];
    uint16_t flags = static_cast<uint16_t>(e.flags | (e.data_descriptor ? 8 : 0));
    w.u32(0x02014b50);
    w.u16(0x031e);  // made by: unix, 3.0
    w.u16(e.zip64 ? 45 : 20);
    w.u16(flags);
    w.u16(e.method);
    w.u32(0);
    w.u32(e.crc);
    w.u32(e.zip64 ? 0xffffffffu : e.cd_csize.value_or(static_cast<uint32_t>(e.payload.size())));
    w.u32(e.zip64 ? 0xffffffffu : static_cast<uint32_t>(e.usize));
    w.u16(static_cast<uint16_t>(e.name.size()));
    w.u16(e.zip64 ? 28 : 0);
    w.u16(0);  // comment
    w.u16(0);  // disk
    w.u16(0);
    w.u32(0100644u << 16);
    w.u32(e.zip64 ? 0xffffffffu : e.cd_offset.value_or(static_cast<uint32_t>(offsets[i])));
    w.str(e.name);
    if (e.zip64) {
      w.u16(1);
      w.u16(24);
      w.u64(e.usize);
      w.u64(e.payload.size());
      w.u64(offsets[i]);
    }
  }
  uint64_t cd_size = w.out.size() - cd_start;
  if (zip64_end) {
    uint64_t z = w.out.size();
    w.u32(0x06064b50);
    w.u64(44);
    w.u16(45);
    w.u16(45);
    w.u32(0);
    w.u32(0);
    w.u64(entries.size());
    w.u64(entries.size());
    w.u64(cd_size);
    w.u64(cd_start);
    w.u32(0x07064b50);
    w.u32(0);
    w.u64(z);
    w.u32(1);
  }
  w.u32(0x06054b50);
  w.u16(0);
  w.u16(0);
  w.u16(zip64_end ? 0xffff : static_cast<uint16_t>(entries.size()));
  w.u16(zip64_end ? 0xffff : static_cast<uint16_t>(entries.size()));
  w.u32(zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_size));
  w.u32(zip64_end ? 0xffffffffu : static_cast<uint32_t>(cd_start));
  w.u16(0);
  return w.out;
}

Expected<Wheel> open_bytes(Bytes b, const WheelLimits& limits = {}) {
  return Wheel::open_memory(Blob::from_vector(std::move(b)), "test.whl", limits);
}

// Opens, lists and reads every member; returns how many reads succeeded.
// Used on corrupted input, where the point is that nothing crashes.
int exercise(Bytes b) {
  auto w = open_bytes(std::move(b));
  if (!w) return -1;
  int ok = 0;
  for (const auto& m : w->members()) {
    (void)w->peek(m, 4);
    if (w->read(m)) ++ok;
  }
  return ok;
}

// A fresh folder named after the running test; all are removed at exit.
std::string temp_dir() {
  static std::vector<std::unique_ptr<cuwheel::test::TempDir>> dirs;
  dirs.push_back(std::make_unique<cuwheel::test::TempDir>("wheel"));
  EXPECT_FALSE(dirs.back()->path().empty());
  return dirs.back()->str();
}

// ---------------------------------------------------------------------------

TEST(WheelRead, ListsAndReadsALibzipArchive) {
  std::string big(300000, 'x');
  for (size_t i = 0; i < big.size(); i += 7) big[i] = static_cast<char>('a' + i % 26);
  auto w = open_bytes(libzip_archive({{"pkg/", "", false},
                                      {"pkg/__init__.py", "print('hi')\n", false},
                                      {"pkg/_C.so", "\x7f" "ELF" + big, true}}));
  ASSERT_TRUE(w) << w.error().message();
  const auto& ms = w->members();
  ASSERT_EQ(ms.size(), 3u);
  EXPECT_TRUE(ms[0].is_dir);
  EXPECT_EQ(ms[1].name, "pkg/__init__.py");
  EXPECT_EQ(ms[1].method, 0);
  EXPECT_EQ(ms[1].uncompressed_size, 12u);
  EXPECT_EQ(ms[1].crc32, crc32_of("print('hi')\n"));
  EXPECT_EQ(ms[2].method, 8);
  EXPECT_LT(ms[2].compressed_size, ms[2].uncompressed_size);
  EXPECT_EQ(ms[0].local_header_offset, 0u);
  EXPECT_GT(ms[2].local_header_offset, ms[1].local_header_offset);
  for (const auto& m : ms) EXPECT_EQ(m.issues, 0u) << m.name << ": " << describe_issues(m.issues);

  auto init = w->read(*w->find("pkg/__init__.py"));
  ASSERT_TRUE(init) << init.error().message();
  EXPECT_EQ(to_string(init->view()), "print('hi')\n");
  auto so = w->read(ms[2]);
  ASSERT_TRUE(so) << so.error().message();
  EXPECT_EQ(to_string(so->view()), "\x7f" "ELF" + big);
  auto head = w->peek(ms[2], 4);
  ASSERT_TRUE(head);
  EXPECT_EQ(std::string(head->begin(), head->end()), "\x7f" "ELF");
  auto all = w->peek(ms[1], 1000);
  EXPECT_EQ(all->size(), 12u);
  EXPECT_EQ(w->find("nope"), nullptr);
}

TEST(WheelRead, LargeMembersAreSpilledToATempFile) {
  std::string data(200000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 24);
  WheelLimits limits;
  limits.in_memory_threshold = 4096;
  limits.chunk_size = 1000;  // several zip_fread calls, one partial
  auto w = open_bytes(libzip_archive({{"big.bin", data, true}, {"small", "abc", true}}), limits);
  ASSERT_TRUE(w) << w.error().message();
  auto b = w->read(w->members()[0]);
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_EQ(b->size(), data.size());
  EXPECT_EQ(to_string(b->view()), data);
  b->release(0, b->size());  // pages may go; the view must stay readable
  EXPECT_EQ(to_string(b->view()).substr(0, 100), data.substr(0, 100));
  EXPECT_EQ(to_string(w->read(w->members()[1])->view()), "abc");
  EXPECT_EQ(w->total_read(), data.size() + 3);
}

// read() with a Digest hashes the bytes while it decodes them: the same
// RECORD hash as record_hash() of the bytes, for stored, deflated and
// spilled members and for a method libzip decodes.
TEST(WheelRead, DigestWhileReadingMatchesTheBytes) {
  std::string data(200000, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 24);
  WheelLimits limits;
  limits.in_memory_threshold = 4096;
  limits.chunk_size = 1000;
  auto w = open_bytes(libzip_archive({{"big.bin", data, true}, {"stored", "abc", false}, {"small", "xyz", true}}),
                      limits);
  ASSERT_TRUE(w) << w.error().message();
  for (const auto& m : w->members()) {
    for (const char* algo : {"sha256", "sha512"}) {
      auto d = Digest::create(algo);
      ASSERT_TRUE(d);
      auto b = w->read(m, &*d);
      ASSERT_TRUE(b) << b.error().message();
      const std::string raw = d->finish();
      const std::string got =
          std::string(algo) + "=" + base64url_nopad(ByteView(reinterpret_cast<const uint8_t*>(raw.data()), raw.size()));
      EXPECT_EQ(got, *record_hash(algo, b->view())) << m.name << " " << algo;
    }
  }
}

// admit_read() counts a member's declared size at once, in the order
// admitted, so that read_admitted() may then run on several threads: the
// bytes are those read() gives, and the count is the same.
TEST(WheelRead, ReadAdmittedOnSeveralThreads) {
  std::vector<File> files;
  for (int i = 0; i < 24; ++i) {
    std::string data(50000 + i * 1000, '\0');
    for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>((k * 2654435761u + i) >> 24);
    files.push_back({"m" + std::to_string(i), data, i % 3 != 0});
  }
  WheelLimits limits;
  limits.in_memory_threshold = 60000;  // some members spill
  auto w = open_bytes(libzip_archive(files), limits);
  ASSERT_TRUE(w) << w.error().message();
  const auto& ms = w->members();
  for (const auto& m : ms) ASSERT_TRUE(w->admit_read(m));
  uint64_t declared = 0;
  for (const auto& m : ms) declared += m.uncompressed_size;
  EXPECT_EQ(w->total_read(), declared);
  std::vector<std::string> got(ms.size());
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i = next++; i < ms.size(); i = next++) {
      auto b = w->read_admitted(ms[i]);
      got[i] = b ? to_string(b->view()) : "error: " + b.error().message();
    }
  };
  std::thread t1(worker), t2(worker), t3(worker);
  t1.join();
  t2.join();
  t3.join();
  for (size_t i = 0; i < ms.size(); ++i) EXPECT_EQ(got[i], files[i].data) << ms[i].name;
  EXPECT_EQ(w->total_read(), declared);  // decoding adds nothing to what admission counted
}

// Admission refuses by the total in the order members are admitted.
TEST(WheelHostile, AdmissionRefusesInOrder) {
  std::string zeros(4u << 20, '\0');
  auto a = deflated("a.bin", zeros);
  auto b = deflated("b.bin", zeros);
  WheelLimits total;
  total.max_total_read = 6u << 20;
  auto w = open_bytes(assemble({a, b}), total);
  ASSERT_TRUE(w);
  EXPECT_TRUE(w->admit_read(w->members()[1]));
  auto refused = w->admit_read(w->members()[0]);
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("a.bin"), std::string::npos) << refused.error().message();
  EXPECT_NE(refused.error().message().find("(after 4194304)"), std::string::npos) << refused.error().message();
}

// The walk of a wheel's members (model/inputs.h) reads them on other
// threads, ahead of the visitor: every call still comes in member order,
// the digests asked for are those of the bytes, an unreadable member is
// reported in its place, and ten walks say the same.
TEST(WheelWalk, MembersComeInOrderWithTheirDigests) {
  std::vector<RawEntry> entries;
  std::vector<std::string> datas;
  for (int i = 0; i < 40; ++i) {
    std::string data(1000 + i * 5000, '\0');
    for (size_t k = 0; k < data.size(); ++k) data[k] = static_cast<char>((k * 2654435761u + i * 7) >> 24);
    datas.push_back(data);
    entries.push_back(i % 2 ? deflated("pkg/f" + std::to_string(i) + ".dat", data)
                            : stored("pkg/f" + std::to_string(i) + ".dat", data));
  }
  entries[17].crc ^= 1;  // reported as a CRC mismatch, in its place
  const Bytes zip = assemble(entries);
  const std::string dir = temp_dir();
  const std::string path = dir + "/demo-1.0-py3-none-any.whl";
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(zip.data()), static_cast<std::streamsize>(zip.size()));
  }
  struct Log : InputVisitor {
    std::vector<std::string> lines;
    MemberRequest wheel_member(const std::string&, const ZipMember& m, size_t i) override {
      lines.push_back("ask " + std::to_string(i));
      MemberRequest r;
      r.whole = true;
      r.digest = i % 3 ? "sha256" : "";
      return r;
    }
    void wheel_member_begin(const std::string&, const ZipMember&, size_t i) override {
      lines.push_back("begin " + std::to_string(i));
    }
    void wheel_member_read(const ObjectRef& ref, const ZipMember&, size_t i, const Blob&,
                           const std::string& digest) override {
      lines.push_back("read " + std::to_string(i) + " " + std::to_string(ref.bytes.size()) + " " + digest);
    }
    void wheel_member_error(const std::string&, const ZipMember&, size_t i, const Error& e) override {
      lines.push_back("error " + std::to_string(i) + (e.message().find("CRC-32 mismatch") != std::string::npos ? " crc" : ""));
    }
    void object(const ObjectRef&) override {}
    void error(const std::string&, const Error& e) override { lines.push_back("walk error " + e.message()); }
  };
  std::vector<std::string> want;
  for (size_t i = 0; i < datas.size(); ++i) want.push_back("ask " + std::to_string(i));
  for (size_t i = 0; i < datas.size(); ++i) {
    want.push_back("begin " + std::to_string(i));
    if (i == 17) {
      want.push_back("error 17 crc");
      continue;
    }
    const std::string digest =
        i % 3 ? *record_hash("sha256", ByteView(reinterpret_cast<const uint8_t*>(datas[i].data()), datas[i].size()))
              : "";
    want.push_back("read " + std::to_string(i) + " " + std::to_string(datas[i].size()) + " " + digest);
  }
  for (int run = 0; run < 10; ++run) {
    Log log;
    ASSERT_TRUE(walk_wheel(path, WalkOptions{}, log));
    EXPECT_EQ(log.lines, want) << "run " << run;
  }
}

TEST(WheelRead, OpensFromAPathAndReportsBadPaths) {
  std::string dir = temp_dir();
  std::string path = dir + "/demo-1.0-py3-none-any.whl";
  Bytes z = libzip_archive({{"demo-1.0.dist-info/METADATA", "Metadata-Version: 2.1\nName: demo\nVersion: 1.0\n"}});
  {
    std::ofstream f(path, std::ios::binary);
    f.write(reinterpret_cast<const char*>(z.data()), static_cast<std::streamsize>(z.size()));
  }
  auto w = Wheel::open(path);
  ASSERT_TRUE(w) << w.error().message();
  EXPECT_EQ(w->path(), path);
  EXPECT_EQ(w->archive_size(), z.size());
  ASSERT_EQ(w->members().size(), 1u);
  EXPECT_TRUE(w->read(w->members()[0]));

  auto missing = Wheel::open(dir + "/missing.whl");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find("missing.whl: cannot open"), std::string::npos);
  auto isdir = Wheel::open(dir);
  ASSERT_FALSE(isdir);
  EXPECT_NE(isdir.error().message().find("not a regular file"), std::string::npos);
  std::remove(path.c_str());
  rmdir(dir.c_str());
}

TEST(WheelRead, Zip64AndDataDescriptors) {
  std::string text(5000, 'q');
  std::vector<RawEntry> es;
  es.push_back(stored("a.txt", "hello"));
  es.push_back(deflated("b.txt", text));
  es.back().data_descriptor = true;
  es.push_back(stored("c.txt", "zip64 sizes"));
  es.back().zip64 = true;
  es.push_back(deflated("d.txt", text));
  es.back().zip64 = true;
  es.back().data_descriptor = true;
  for (bool zip64_end : {false, true}) {
    auto w = open_bytes(assemble(es, zip64_end));
    ASSERT_TRUE(w) << w.error().message();
    const auto& ms = w->members();
    ASSERT_EQ(ms.size(), 4u);
    EXPECT_FALSE(ms[0].zip64);
    EXPECT_TRUE(ms[1].has_data_descriptor());
    EXPECT_TRUE(ms[2].zip64);
    EXPECT_EQ(ms[2].uncompressed_size, 11u);
    EXPECT_EQ(ms[3].local_header_offset, w->members()[2].local_header_offset + 30 + 5 + 20 + 11);
    EXPECT_EQ(to_string(w->read(ms[0])->view()), "hello");
    auto b = w->read(ms[1]);
    ASSERT_TRUE(b) << b.error().message();
    EXPECT_EQ(to_string(b->view()), text);
    auto c = w->read(ms[2]);
    ASSERT_TRUE(c) << c.error().message();
    EXPECT_EQ(to_string(c->view()), "zip64 sizes");
    auto d = w->read(ms[3]);
    ASSERT_TRUE(d) << d.error().message();
    EXPECT_EQ(to_string(d->view()), text);
    for (const auto& m : ms) EXPECT_EQ(m.issues, 0u) << describe_issues(m.issues);
  }
}

// ---------------------------------------------------------------------------
// Hostile input

TEST(WheelHostile, CrcMismatchIsReported) {
  auto e = stored("x.so", "payload");
  e.crc ^= 1;
  auto w = open_bytes(assemble({e}));
  ASSERT_TRUE(w) << w.error().message();
  auto r = w->read(w->members()[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("test.whl: x.so (local header at 0x0)"), std::string::npos)
      << r.error().message();
  EXPECT_NE(r.error().message().find("CRC"), std::string::npos) << r.error().message();
}

TEST(WheelHostile, MemberLongerThanDeclaredStopsEarly) {
  // 8 MiB of zeros deflate to a few KiB; the entry claims 1000 bytes.
  std::string zeros(8u << 20, '\0');
  auto e = deflated("bomb.so", zeros);
  e.usize = 1000;
  auto w = open_bytes(assemble({e}));
  ASSERT_TRUE(w) << w.error().message();
  auto r = w->read(w->members()[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("past the declared uncompressed size of 1000"), std::string::npos)
      << r.error().message();
  EXPECT_LE(w->total_read(), 1001u);  // stopped one byte past, not at 8 MiB
}

TEST(WheelHostile, MemberShorterThanDeclared) {
  auto e = deflated("short.so", std::string(5000, 'a'));
  e.usize = 6000;
  auto w = open_bytes(assemble({e}));
  ASSERT_TRUE(w);
  auto r = w->read(w->members()[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("short.so"), std::string::npos) << r.error().message();
}

TEST(WheelHostile, RatioSizeAndTotalLimits) {
  std::string zeros(4u << 20, '\0');
  auto honest = deflated("zeros.bin", zeros);
  auto liar = honest;
  liar.name = "liar.bin";
  liar.usize = 3ull << 30;  // claims 3 GiB from a few KiB
  auto w = open_bytes(assemble({honest, liar}));
  ASSERT_TRUE(w);
  auto ok = w->read(w->members()[0]);
  ASSERT_TRUE(ok) << ok.error().message();
  EXPECT_EQ(ok->size(), zeros.size());
  auto bomb = w->read(w->members()[1]);
  ASSERT_FALSE(bomb);
  EXPECT_NE(bomb.error().message().find("compression ratio"), std::string::npos) << bomb.error().message();

  WheelLimits small;
  small.max_member_size = 1u << 20;
  auto w2 = open_bytes(assemble({honest}), small);
  ASSERT_TRUE(w2);
  auto too_big = w2->read(w2->members()[0]);
  ASSERT_FALSE(too_big);
  EXPECT_NE(too_big.error().message().find("exceeds the limit"), std::string::npos);

  WheelLimits total;
  total.max_total_read = 6u << 20;
  auto w3 = open_bytes(assemble({honest}), total);
  ASSERT_TRUE(w3);
  EXPECT_TRUE(w3->read(w3->members()[0]));
  auto again = w3->read(w3->members()[0]);
  ASSERT_FALSE(again);
  EXPECT_NE(again.error().message().find("decompressed bytes this wheel may inflate to"), std::string::npos);
}

// The total a wheel may inflate to is tied to its size: 2 times here (no
// floor), so reading the stored members of about half the archive three
// times over is refused on the third pass.
TEST(WheelHostile, TotalReadIsTiedToTheArchiveSize) {
  const std::string data(4000, 'x');
  WheelLimits tied;
  tied.max_total_ratio = 2;
  tied.total_ratio_floor = 0;
  auto w = open_bytes(assemble({stored("a", data), stored("b", data)}), tied);
  ASSERT_TRUE(w);
  EXPECT_EQ(w->total_read_limit(), 2 * w->archive_size());
  for (int pass = 0; pass < 2; ++pass)
    for (const auto& m : w->members()) ASSERT_TRUE(w->read(m)) << pass;
  auto r = w->read(w->members()[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("this wheel may inflate to (2 times its " + std::to_string(w->archive_size()) +
                                     " bytes, at least 0"),
            std::string::npos)
      << r.error().message();
  // The defaults: 64 times, at least 1 GiB, at most 64 GiB.
  auto d = open_bytes(assemble({stored("a", data)}));
  ASSERT_TRUE(d);
  EXPECT_EQ(d->total_read_limit(), 1ull << 30);
}

// Members whose bytes overlap: the data of one runs into the next one's
// local header (the quoted overlap of "A better zip bomb"), two central
// directory entries point at one local header (the plain overlap), or the
// last member's data runs into the central directory. Refused at open,
// so no command inflates shared bytes over and over.
TEST(WheelHostile, OverlappingMembersAreRefused) {
  auto a = stored("a.so", "aaaa");
  auto b = stored("b.so", "bbbb");
  // a's data starts at 0x22 (30-byte header, 4-byte name); with 44 bytes
  // declared it would run to 0x4e, past b's local header at 0x26.
  a.cd_csize = 44;
  auto w = open_bytes(assemble({a, b}));
  ASSERT_FALSE(w);
  EXPECT_EQ(w.error().message(),
            "test.whl: members 'a.so' (local header at 0x0), whose data runs to 0x4e, and 'b.so' (local header at 0x26) "
            "overlap: a zip bomb or a damaged archive; refused");

  auto c = stored("c.so", "cccc");
  c.cd_offset = 0;  // c's central directory entry points at a's local header
  auto w2 = open_bytes(assemble({stored("a.so", "aaaa"), c}));
  ASSERT_FALSE(w2);
  EXPECT_NE(w2.error().message().find("overlap: a zip bomb"), std::string::npos) << w2.error().message();

  auto last = stored("z.so", "zzzz");
  last.cd_csize = 400;
  auto w3 = open_bytes(assemble({stored("a.so", "aaaa"), last}));
  ASSERT_FALSE(w3);
  EXPECT_NE(w3.error().message().find("into the central directory"), std::string::npos) << w3.error().message();

  // Members that touch (one ends where the next starts) are fine.
  auto ok = open_bytes(assemble({stored("a.so", "aaaa"), stored("b.so", "bbbb")}));
  EXPECT_TRUE(ok) << ok.error().message();
}

TEST(WheelHostile, EncryptedMembersAreRefused) {
  auto e = stored("secret", "xxxx");
  e.flags = 1;
  auto w = open_bytes(assemble({e}));
  ASSERT_TRUE(w);
  auto r = w->read(w->members()[0]);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("encrypted"), std::string::npos);
}

TEST(WheelHostile, NameTricksAreFlagged) {
  std::vector<RawEntry> es = {
      stored("/etc/passwd", "1"),   stored("pkg/../../x", "2"), stored("pkg\\win.dll", "3"),
      stored("C:evil", "4"),        stored("dup.py", "5"),      stored("dup.py", "6"),
      stored("Case.txt", "7"),      stored("case.TXT", "8"),    stored(std::string("ctl\x01", 4), "9"),
      stored("fine/ok..py", "10"),  stored("local.py", "11"),
  };
  es.back().local_name = "other.py";
  auto w = open_bytes(assemble(es));
  ASSERT_TRUE(w) << w.error().message();
  const auto& ms = w->members();
  ASSERT_EQ(ms.size(), es.size());
  EXPECT_EQ(ms[0].issues, kIssueAbsolute);
  EXPECT_EQ(ms[1].issues, kIssueDotDot);
  EXPECT_EQ(ms[2].issues, kIssueBackslash);
  EXPECT_EQ(ms[3].issues, kIssueAbsolute);
  EXPECT_EQ(ms[4].issues, kIssueDuplicate);
  EXPECT_EQ(ms[5].issues, kIssueDuplicate);
  EXPECT_EQ(ms[6].issues, kIssueCaseCollision);
  EXPECT_EQ(ms[7].issues, kIssueCaseCollision);
  EXPECT_EQ(ms[8].issues, kIssueControlChar);
  EXPECT_EQ(ms[9].issues, 0u);
  EXPECT_EQ(ms[10].issues, kIssueLocalNameMismatch);
  EXPECT_EQ(describe_issues(kIssueAbsolute | kIssueDotDot), "absolute,dot-dot");
  // Both duplicates stay readable by index.
  EXPECT_EQ(to_string(w->read(ms[4])->view()), "5");
  EXPECT_EQ(to_string(w->read(ms[5])->view()), "6");

  // libzip refuses a name flagged UTF-8 (bit 11) that is not valid UTF-8
  // by its reckoning (control bytes included): open fails, it does not crash.
  auto bad = stored(std::string("ctl\x01", 4), "x");
  bad.flags = 0x800;
  auto refused = open_bytes(assemble({bad}));
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.error().message().find("test.whl: libzip:"), std::string::npos);
}

TEST(WheelHostile, NotAZipAndBrokenEndRecords) {
  EXPECT_FALSE(open_bytes({}));
  EXPECT_FALSE(open_bytes(to_bytes("PK\x05\x06")));
  auto nz = open_bytes(to_bytes(std::string(1000, 'A')));
  ASSERT_FALSE(nz);
  EXPECT_NE(nz.error().message().find("no end of central directory"), std::string::npos);

  Bytes z = assemble({stored("a", "b")});
  Bytes lie = z;
  lie[lie.size() - 6] = 0x7f;  // central directory offset far past the end
  auto r = open_bytes(lie);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("runs past the end records"), std::string::npos) << r.error().message();

  Bytes count = z;
  count[count.size() - 12] = 0xff;  // 255 entries in a 40-byte directory
  count[count.size() - 14] = 0xff;
  auto c = open_bytes(count);
  ASSERT_FALSE(c);
  EXPECT_NE(c.error().message().find("cannot hold"), std::string::npos) << c.error().message();
}

TEST(WheelHostile, EveryTruncationFailsCleanly) {
  Bytes z = assemble({stored("a.py", "print(1)"), deflated("b.so", std::string(3000, 'z'))}, true);
  for (size_t n = 0; n < z.size(); ++n) {
    Bytes cut(z.begin(), z.begin() + static_cast<long>(n));
    EXPECT_LE(exercise(cut), 0) << "truncated to " << n;
  }
}

// Every byte flipped three ways: each flipped wheel either opens (and every
// member can be peeked and read, or its read fails with a message naming the
// member or an offset) or is refused with an Error that names the archive and
// says why: an offset or a member, or a fault of the archive as a whole (its
// end records: multi-disk, missing, inconsistent). All kinds occur.
TEST(WheelHostile, ByteFlipsNeverCrash) {
  Bytes z = assemble({stored("a.py", "print(1)"), deflated("b.so", std::string(300, 'z'))}, true);
  z.insert(z.end() - 0, 0);  // no-op guard so the last byte is flipped too
  z.pop_back();
  auto names_a_place = [](const std::string& msg, const std::vector<std::string>& members) {
    if (msg.find("0x") != std::string::npos) return true;
    for (const auto& n : members)
      if (!n.empty() && msg.find(n) != std::string::npos) return true;
    return false;
  };
  const std::vector<std::string> original = {"a.py", "b.so"};
  const std::string prefix = "test.whl: ";
  size_t flips = 0, opened = 0, refused_at_place = 0, refused_whole = 0, reads_ok = 0, reads_failed = 0;
  std::vector<std::string> unexplained;
  for (size_t i = 0; i < z.size(); ++i) {
    for (uint8_t x : {0x01, 0x80, 0xff}) {
      Bytes m = z;
      m[i] ^= x;
      ++flips;
      const std::string where = "byte " + std::to_string(i) + " ^ " + std::to_string(x) + ": ";
      auto w = open_bytes(std::move(m));
      if (!w) {
        const std::string& msg = w.error().message();
        if (msg.rfind(prefix, 0) != 0 || msg.size() <= prefix.size()) {
          unexplained.push_back(where + "open: '" + msg + "'");
        } else if (names_a_place(msg, original)) {
          ++refused_at_place;
        } else {
          ++refused_whole;
        }
        continue;
      }
      ++opened;
      for (const auto& mem : w->members()) {
        (void)w->peek(mem, 4);
        auto r = w->read(mem);
        if (r) {
          ++reads_ok;
          continue;
        }
        ++reads_failed;
        const std::string& msg = r.error().message();
        if (!names_a_place(msg, {mem.name})) unexplained.push_back(where + "read " + mem.name + ": '" + msg + "'");
      }
    }
  }
  EXPECT_EQ(flips, 3 * z.size());
  EXPECT_EQ(opened + refused_at_place + refused_whole, flips) << "some refusals do not name the archive";
  EXPECT_GT(opened, 0u);
  EXPECT_GT(refused_at_place, 0u);
  EXPECT_GT(refused_whole, 0u);
  EXPECT_GT(reads_ok, 0u);
  EXPECT_GT(reads_failed, 0u);
  EXPECT_TRUE(unexplained.empty()) << unexplained.size() << " outcomes say nothing of where, first: "
                                   << (unexplained.empty() ? "" : unexplained.front());
  std::cout << flips << " flips: " << opened << " opened (" << reads_ok << " reads ok, " << reads_failed
            << " failed), " << refused_at_place << " refused at an offset or member, " << refused_whole
            << " refused as a whole\n";
}

// ---------------------------------------------------------------------------
// A whole wheel: members, .dist-info, metadata files, RECORD hashes.

TEST(WheelIntegration, ReadsMetadataAndVerifiesRecord) {
  auto ByteOf = [](const std::string& s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); };
  std::string so = "\x7f" "ELF fake shared object";
  std::string init = "from ._C import *\n";
  std::string metadata =
      "Metadata-Version: 2.4\nName: cuda-demo\nVersion: 1.0+cu130\n"
      "Requires-Dist: cuda-toolkit[cudart]==13.*; extra == \"ctk\"\nProvides-Extra: ctk\n\nReadme.\n";
  std::string wheel = "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: false\nTag: cp312-cp312-manylinux_2_28_x86_64\n";
  std::string eps = "[console_scripts]\ndemo = cuda_demo.cli:main\n";
  std::string record;
  for (auto [path, data] : std::vector<std::pair<std::string, const std::string*>>{
           {"cuda_demo/__init__.py", &init}, {"cuda_demo/_C.so", &so},
           {"cuda_demo-1.0+cu130.dist-info/METADATA", &metadata},
           {"cuda_demo-1.0+cu130.dist-info/WHEEL", &wheel},
           {"cuda_demo-1.0+cu130.dist-info/entry_points.txt", &eps}})
    record += path + "," + *record_hash("sha256", ByteOf(*data)) + "," + std::to_string(data->size()) + "\n";
  record += "cuda_demo-1.0+cu130.dist-info/RECORD,,\n";
  const std::string di = "cuda_demo-1.0+cu130.dist-info/";
  auto w = open_bytes(libzip_archive({{"cuda_demo/__init__.py", init}, {"cuda_demo/_C.so", so},
                                      {di + "METADATA", metadata}, {di + "WHEEL", wheel},
                                      {di + "entry_points.txt", eps}, {di + "RECORD", record}}));
  ASSERT_TRUE(w) << w.error().message();

  auto fn = WheelFilename::parse("cuda_demo-1.0+cu130-cp312-cp312-manylinux_2_28_x86_64.whl");
  ASSERT_TRUE(fn);
  std::vector<std::string> names;
  for (const auto& m : w->members()) names.push_back(m.name);
  auto loc = locate_dist_info(names, &*fn, w->path());
  ASSERT_TRUE(loc) << loc.error().message();
  EXPECT_TRUE(loc->name_matches && loc->version_matches);

  WarningSink warnings;
  auto md_blob = w->read(*w->find(loc->dir + "/METADATA"));
  auto md = CoreMetadata::parse(md_blob->view(), loc->dir + "/METADATA", warnings);
  ASSERT_TRUE(md) << md.error().message();
  auto req = Requirement::parse(md->requires_dist.at(0));
  ASSERT_TRUE(req);
  EXPECT_EQ(req->behind_extras(), std::vector<std::string>{"ctk"});
  auto wi = WheelInfo::parse(w->read(*w->find(loc->dir + "/WHEEL"))->view(), "WHEEL", warnings);
  ASSERT_TRUE(wi);
  EXPECT_EQ(wi->tags.at(0), fn->tags().at(0).to_string());
  auto ep = parse_entry_points(w->read(*w->find(loc->dir + "/entry_points.txt"))->view(), "ep", warnings);
  EXPECT_EQ(ep.size(), 1u);
  auto rec = Record::parse(w->read(*w->find(loc->dir + "/RECORD"))->view(), "RECORD", warnings);
  EXPECT_TRUE(warnings.messages().empty()) << warnings.messages()[0];
  ASSERT_EQ(rec.entries.size(), 6u);
  for (const auto& e : rec.entries) {
    const ZipMember* m = w->find(e.path);
    ASSERT_NE(m, nullptr) << e.path;
    if (e.hash_algorithm.empty()) continue;
    auto blob = w->read(*m);
    ASSERT_TRUE(blob);
    EXPECT_TRUE(verify_record_entry(e, blob->view())) << e.path;
  }
}

}  // namespace
}  // namespace cuwheel
