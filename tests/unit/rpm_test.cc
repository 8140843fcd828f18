// RPM v4 reader: packages built byte by byte here (lead, signature header,
// main header, payload) so each field and each bound can be set; signatures
// made by gpg with throwaway keys in a temporary home.
#include "cuwheel/toolkit/rpm.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <deque>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cuwheel/base/digest.h"
#include "temp_dir.h"

using namespace cuwheel;
namespace fs = std::filesystem;

namespace {

struct Tag {
  uint32_t tag, type;
  std::string data;  // raw bytes in the store
  uint32_t count;
};

void be32(std::string& s, uint32_t v) {
  for (int sh : {24, 16, 8, 0}) s += static_cast<char>((v >> sh) & 0xff);
}
std::string be32s(uint32_t v) {
  std::string s;
  be32(s, v);
  return s;
}

Tag str(uint32_t tag, const std::string& v) { return {tag, 6, v + std::string(1, '\0'), 1}; }
Tag i32(uint32_t tag, uint32_t v) { return {tag, 4, be32s(v), 1}; }
Tag bin(uint32_t tag, const std::string& v) { return {tag, 7, v, static_cast<uint32_t>(v.size())}; }
Tag strarr(uint32_t tag, const std::string& v) { return {tag, 8, v + std::string(1, '\0'), 1}; }

// Header structure: magic, reserved, il, dl, index, store (INT32 aligned to 4).
std::string header(const std::vector<Tag>& tags) {
  std::string index, store;
  for (const auto& t : tags) {
    if (t.type == 4)
      while (store.size() % 4) store += '\0';
    be32(index, t.tag);
    be32(index, t.type);
    be32(index, static_cast<uint32_t>(store.size()));
    be32(index, t.count);
    store += t.data;
  }
  std::string h = "\x8e\xad\xe8\x01";
  h += std::string(4, '\0');
  be32(h, static_cast<uint32_t>(tags.size()));
  be32(h, static_cast<uint32_t>(store.size()));
  return h + index + store;
}

std::string lead() {
  std::string l = "\xed\xab\xee\xdb";
  l += '\x03';
  l += '\x00';
  l += std::string("\x00\x00\x00\x01", 4);  // type 0 (binary), archnum 1
  std::string name = "cuda-nvcc-12-9-12.9.86-1";
  name.resize(66, '\0');
  l += name;
  l += std::string("\x00\x01\x00\x05", 4);  // osnum 1, signature type 5
  l += std::string(16, '\0');
  return l;
}

std::string hexs(const std::array<uint8_t, 32>& d) {
  static const char* x = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) {
    s += x[b >> 4];
    s += x[b & 15];
  }
  return s;
}
std::string sha_hex(const std::string& s) {
  return hexs(sha256(ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size())));
}

ByteView view(const std::string& s) { return ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()); }

// A Package views the bytes it was read from: keep built packages alive for
// the whole test program.
ByteView keep(std::string s) {
  static std::deque<std::string> store;
  store.push_back(std::move(s));
  return view(store.back());
}

std::vector<Tag> main_tags(const std::string& payload, bool with_digest = true, uint32_t algo = 8) {
  std::vector<Tag> t = {str(1000, "cuda-nvcc-12-9"), str(1001, "12.9.86"), str(1002, "1"), i32(1003, 2),
                        str(1022, "x86_64"), str(1124, "cpio"), str(1125, "xz")};
  if (with_digest) {
    t.push_back(strarr(5092, sha_hex(payload)));
    t.push_back(i32(5093, algo));
  }
  return t;
}

// lead + signature header (padded to 8) + main header + payload.
std::string package(const std::string& main, const std::vector<Tag>& sig_extra, const std::string& payload,
                    bool with_sha = true) {
  std::vector<Tag> sig = sig_extra;
  if (with_sha) sig.insert(sig.begin(), str(273, sha_hex(main)));
  std::string s = header(sig);
  while (s.size() % 8) s += '\0';
  return lead() + s + main + payload;
}

const std::string kPayload = std::string("\xfd" "7zXZ", 5) + std::string(100, 'p');

TEST(Rpm, ReadsLeadHeadersAndPayload) {
  std::string main = header(main_tags(kPayload));
  std::string file = package(main, {}, kPayload);
  auto pkg = rpm::read_package(view(file));
  ASSERT_TRUE(pkg) << pkg.error().message();
  EXPECT_EQ(pkg->lead.major, 3);
  EXPECT_EQ(pkg->lead.signature_type, 5);
  EXPECT_EQ(pkg->lead.name, "cuda-nvcc-12-9-12.9.86-1");
  EXPECT_EQ(pkg->name, "cuda-nvcc-12-9");
  EXPECT_EQ(pkg->version, "12.9.86");
  EXPECT_EQ(pkg->release, "1");
  EXPECT_EQ(pkg->epoch, 2u);
  EXPECT_EQ(pkg->arch, "x86_64");
  EXPECT_EQ(pkg->payload_compressor, "xz");
  EXPECT_EQ(pkg->nevra(), "cuda-nvcc-12-9-2:12.9.86-1.x86_64");
  EXPECT_EQ(pkg->payload.size(), kPayload.size());
  EXPECT_EQ(pkg->payload_offset, file.size() - kPayload.size());
  EXPECT_EQ(pkg->header.bytes.size(), main.size());
  EXPECT_EQ(pkg->header.file_offset % 8, 0u);
  EXPECT_TRUE(rpm::check_header_digest(*pkg));
  EXPECT_TRUE(rpm::check_payload_digest(*pkg));
  auto digests = pkg->header.string_array(5092);
  ASSERT_TRUE(digests);
  EXPECT_EQ(digests->at(0), sha_hex(kPayload));
}

TEST(Rpm, DefaultsWithoutOptionalTags) {
  std::string main = header({str(1000, "n"), str(1001, "1"), str(1002, "2")});
  auto pkg = rpm::read_package(keep(package(main, {}, "")));
  ASSERT_TRUE(pkg) << pkg.error().message();
  EXPECT_EQ(pkg->payload_compressor, "gzip");
  EXPECT_EQ(pkg->epoch, 0u);
  EXPECT_EQ(pkg->nevra(), "n-1-2.");
  EXPECT_FALSE(rpm::check_payload_digest(*pkg));
  EXPECT_NE(rpm::check_payload_digest(*pkg).error().message().find("no payload digest"), std::string::npos);
}

TEST(Rpm, RejectsBadLead) {
  std::string file = package(header(main_tags(kPayload)), {}, kPayload);
  std::string bad = file;
  bad[0] = 'x';
  auto r = rpm::read_package(view(bad));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "lead: bad magic (expected ed ab ee db): not an RPM package");
  bad = file;
  bad[79] = 1;  // signature type 1 (old style)
  r = rpm::read_package(view(bad));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "lead: signature type 1 is not 5 (header-style signature)");
  bad = file;
  bad[7] = 1;  // source package
  EXPECT_FALSE(rpm::read_package(view(bad)));
  EXPECT_FALSE(rpm::read_package(view(file.substr(0, 95))));
}

TEST(Rpm, EveryTruncationIsAnError) {
  std::string main = header(main_tags(kPayload));
  std::string file = package(main, {}, kPayload);
  size_t payload_at = file.size() - kPayload.size();
  for (size_t n = 0; n < payload_at; ++n) {
    auto r = rpm::read_package(view(file.substr(0, n)));
    EXPECT_FALSE(r) << "prefix of " << n << " bytes parsed";
  }
  // Past the headers a short payload parses; its digest no longer matches.
  auto r = rpm::read_package(keep(file.substr(0, payload_at + 10)));
  ASSERT_TRUE(r);
  EXPECT_FALSE(rpm::check_payload_digest(*r));
}

TEST(Rpm, RejectsOversizedCountsAndOutOfStoreValues) {
  std::string main = header(main_tags(kPayload));
  std::string file = package(main, {}, kPayload);
  // Index count of the signature header (offset 96 + 8).
  std::string bad = file;
  bad.replace(104, 4, be32s(70000));
  auto r = rpm::read_package(view(bad));
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message(), "signature header at 0x60: index count 70000 exceeds 65535");
  bad = file;
  bad.replace(108, 4, be32s(0x10000000));
  r = rpm::read_package(view(bad));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("data size 268435456 exceeds"), std::string::npos);
  bad = file;
  bad.replace(108, 4, be32s(0x0fffffff));
  r = rpm::read_package(view(bad));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("ends past end of file"), std::string::npos);

  // NAME whose string runs to the end of the store without a NUL.
  std::string nonul = header({str(1001, "1"), str(1002, "1"), {1000, 6, "abc", 1}});
  r = rpm::read_package(keep(package(nonul, {}, "")));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("main header: NAME: tag 1000: string at 0x4 has no NUL"), std::string::npos)
      << r.error().message();

  // An INT32 array whose count runs past the store.
  std::string epoch = header({str(1000, "n"), str(1001, "1"), str(1002, "1"), {1003, 4, be32s(1), 1000}});
  r = rpm::read_package(keep(package(epoch, {}, "")));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("EPOCH: tag 1003: 1000 INT32 values"), std::string::npos)
      << r.error().message();

  // A string array claiming more strings than bytes.
  std::string many = header({str(1000, "n"), str(1001, "1"), str(1002, "1"), {5092, 8, "ab\0", 0xffffffffu}});
  r = rpm::read_package(keep(package(many, {}, "")));
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->header.string_array(5092));
  // Wrong type.
  EXPECT_FALSE(r->header.int32(1000));
  EXPECT_FALSE(r->header.bin(1000));
  EXPECT_FALSE(r->header.string(4242));
}

TEST(Rpm, IndexOffsetOutsideStoreIsAnError) {
  std::string main = header({str(1000, "n"), str(1001, "1"), str(1002, "1")});
  // First index entry's offset field: 16 (preamble) + 8.
  main.replace(16 + 8, 4, be32s(0x1000));
  auto r = rpm::read_package(keep(package(main, {bin(267, "x")}, "", false)));
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("index entry 0 (tag 1000): offset 0x1000 outside data store"),
            std::string::npos)
      << r.error().message();
}

TEST(Rpm, HeaderDigestPassAndFail) {
  std::string main = header(main_tags(kPayload));
  auto good = rpm::read_package(keep(package(main, {}, kPayload)));
  ASSERT_TRUE(good);
  EXPECT_TRUE(rpm::check_header_digest(*good));
  std::string file = package(main, {}, kPayload);
  // Change one byte of the main header's store (the ARCH string) after signing.
  size_t at = file.find("x86_64");
  file[at] = 'y';
  auto bad = rpm::read_package(view(file));
  ASSERT_TRUE(bad);
  auto s = rpm::check_header_digest(*bad);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("the signature header records " + sha_hex(main)), std::string::npos);
  EXPECT_FALSE(rpm::verify_package(*bad, nullptr));
}

TEST(Rpm, PayloadDigestPassAndFail) {
  std::string main = header(main_tags(kPayload));
  std::string changed = kPayload;
  changed.back() = 'q';
  auto pkg = rpm::read_package(keep(package(main, {}, changed)));
  ASSERT_TRUE(pkg);
  auto s = rpm::check_payload_digest(*pkg);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(),
            "payload SHA-256 is " + sha_hex(changed) + ", the signed header records " + sha_hex(kPayload));
  auto md5 = rpm::read_package(keep(package(header(main_tags(kPayload, true, 1)), {}, kPayload)));
  ASSERT_TRUE(md5);
  EXPECT_EQ(rpm::check_payload_digest(*md5).error().message(), "payload digest algorithm 1 is not SHA-256 (8)");
  auto ok = rpm::read_package(keep(package(main, {}, kPayload)));
  ASSERT_TRUE(ok);
  EXPECT_TRUE(rpm::verify_package(*ok, nullptr));
}

TEST(Rpm, UnsignedPackageHasNoHeaderSignature) {
  std::string main = header(main_tags(kPayload));
  auto pkg = rpm::read_package(keep(package(main, {}, kPayload)));
  ASSERT_TRUE(pkg);
  auto s = rpm::header_signature(*pkg);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "package is not signed (no RSA or DSA header signature, tags 268/267)");
  auto dsa = rpm::read_package(keep(package(main, {bin(267, "sig")}, kPayload)));
  ASSERT_TRUE(dsa);
  auto d = rpm::header_signature(*dsa);
  ASSERT_TRUE(d);
  EXPECT_EQ(d->size(), 3u);
}

// --- OpenPGP signatures, with gpg ---------------------------------------

bool have_gpg() { return std::system("gpg --version >/dev/null 2>&1") == 0; }

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A throwaway key in its own GnuPG home.
struct TestKey {
  std::string home, fpr, pub;
  explicit TestKey(const std::string& dir, const std::string& name) {
    home = dir + "/" + name;
    fs::create_directories(home);
    fs::permissions(home, fs::perms::owner_all, fs::perm_options::replace);
    std::string g = "gpg --homedir '" + home + "' --batch --quiet --pinentry-mode loopback --passphrase '' ";
    std::system((g + "--quick-gen-key '" + name + " <" + name + "@example.invalid>' rsa2048 sign never 2>/dev/null").c_str());
    std::system((g + "--with-colons --list-secret-keys 2>/dev/null | awk -F: '$1==\"fpr\"{print $10; exit}' > '" + home +
                 "/fpr'").c_str());
    fpr = slurp(home + "/fpr");
    while (!fpr.empty() && (fpr.back() == '\n')) fpr.pop_back();
    std::system((g + "--armor --export > '" + home + "/pub.asc'").c_str());
    pub = slurp(home + "/pub.asc");
  }
  std::string sign(const std::string& data) const {
    std::ofstream(home + "/data", std::ios::binary) << data;
    std::string g = "gpg --homedir '" + home + "' --batch --quiet --yes --pinentry-mode loopback --passphrase '' ";
    std::system((g + "--detach-sign -o '" + home + "/data.sig' '" + home + "/data' 2>/dev/null").c_str());
    return slurp(home + "/data.sig");
  }
  ~TestKey() { std::system(("gpgconf --homedir '" + home + "' --kill all >/dev/null 2>&1").c_str()); }
};

class RpmSignature : public testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!have_gpg()) return;
    tmp_ = new cuwheel::test::TempDir("rpm-gpg");
    dir_ = new std::string(tmp_->str());
    fs::create_directories(*dir_);
    a_ = new TestKey(*dir_, "pinned");
    b_ = new TestKey(*dir_, "other");
  }
  static void TearDownTestSuite() {
    delete a_;
    delete b_;
    if (dir_) fs::remove_all(*dir_);
    delete dir_;
    delete tmp_;
    a_ = b_ = nullptr;
    dir_ = nullptr;
    tmp_ = nullptr;
  }
  void SetUp() override {
    if (!a_ || a_->fpr.size() != 40 || b_->fpr.size() != 40) GTEST_SKIP() << "gpg cannot make test keys here";
  }
  static cuwheel::test::TempDir* tmp_;
  static std::string* dir_;
  static TestKey* a_;
  static TestKey* b_;
};
cuwheel::test::TempDir* RpmSignature::tmp_ = nullptr;
std::string* RpmSignature::dir_ = nullptr;
TestKey* RpmSignature::a_ = nullptr;
TestKey* RpmSignature::b_ = nullptr;

TEST_F(RpmSignature, PinnedKeySignatureIsAccepted) {
  std::string main = header(main_tags(kPayload));
  auto pkg = rpm::read_package(keep(package(main, {bin(268, a_->sign(main))}, kPayload)));
  ASSERT_TRUE(pkg);
  std::string lower_fpr = a_->fpr;
  for (char& c : lower_fpr) c = static_cast<char>(std::tolower(c));
  auto v = rpm::SignatureVerifier::create(a_->pub, lower_fpr);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->fingerprint(), a_->fpr);
  auto s = rpm::verify_package(*pkg, &*v);
  EXPECT_TRUE(s) << s.error().message();
}

TEST_F(RpmSignature, KeyWithAnotherFingerprintIsRefused) {
  auto v = rpm::SignatureVerifier::create(b_->pub, a_->fpr);
  ASSERT_FALSE(v);
  EXPECT_EQ(v.error().message(), "key fingerprint " + b_->fpr + " is not the pinned " + a_->fpr);
  auto bad = rpm::SignatureVerifier::create(a_->pub, "1234");
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("is not 40 hexadecimal digits"), std::string::npos);
  auto none = rpm::SignatureVerifier::create("not a key", a_->fpr);
  EXPECT_FALSE(none);
  // Both keys in one block: refused even though the pinned one is there.
  auto both = rpm::SignatureVerifier::create(a_->pub + b_->pub, a_->fpr);
  ASSERT_FALSE(both);
  EXPECT_NE(both.error().message().find("holds 2 keys"), std::string::npos);
}

TEST_F(RpmSignature, SignatureByAnotherKeyIsRefused) {
  std::string main = header(main_tags(kPayload));
  auto pkg = rpm::read_package(keep(package(main, {bin(268, b_->sign(main))}, kPayload)));
  ASSERT_TRUE(pkg);
  auto v = rpm::SignatureVerifier::create(a_->pub, a_->fpr);
  ASSERT_TRUE(v);
  auto s = rpm::verify_package(*pkg, &*v);
  ASSERT_FALSE(s);
  EXPECT_NE(s.error().message().find("header signature: signature by key "), std::string::npos)
      << s.error().message();
  EXPECT_NE(s.error().message().find("which is not the pinned key " + a_->fpr), std::string::npos);
}

TEST_F(RpmSignature, ChangedHeaderFailsTheSignature) {
  std::string main = header(main_tags(kPayload));
  std::string sig = a_->sign(main);
  std::string other = header(main_tags(kPayload + "x"));  // another payload digest, same size
  // Keep the header digest consistent so only the signature can catch it.
  auto pkg = rpm::read_package(keep(package(other, {bin(268, sig)}, kPayload + "x")));
  ASSERT_TRUE(pkg);
  auto v = rpm::SignatureVerifier::create(a_->pub, a_->fpr);
  ASSERT_TRUE(v);
  auto s = rpm::verify_package(*pkg, &*v);
  ASSERT_FALSE(s);
  EXPECT_EQ(s.error().message(), "header signature: bad signature by the pinned key");
  // Garbage in the signature tag.
  auto junk = rpm::read_package(keep(package(main, {bin(268, "\x89\x01garbage")}, kPayload)));
  ASSERT_TRUE(junk);
  EXPECT_FALSE(rpm::verify_package(*junk, &*v));
}

}  // namespace
