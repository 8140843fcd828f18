// http_get / http_download over local paths and file:// URLs, and URL
// joining (include/cuwheel/toolkit/http.h). The HTTP path itself is
// exercised end to end by tests/e2e/toolkit_lock_test.sh on loopback.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "cuwheel/toolkit/http.h"
#include "temp_dir.h"

namespace cuwheel::toolkit {
namespace {

namespace fs = std::filesystem;

// Each test gets a fresh folder of its own (tests run in parallel under ctest -j).
struct HttpTest : ::testing::Test {
  cuwheel::test::TempDir tmp{"http"};
  fs::path dir = tmp.path();
  void SetUp() override {
    ASSERT_FALSE(dir.empty());
    std::ofstream(dir / "a file.txt", std::ios::binary) << "abc";
  }
};

// SHA-256("abc"), FIPS 180-4 appendix B.1.
const char* kAbc = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

TEST(Urls, JoinAndClassify) {
  EXPECT_EQ(join_url("https://h/rhel8/x86_64", "repodata/repomd.xml"), "https://h/rhel8/x86_64/repodata/repomd.xml");
  EXPECT_EQ(join_url("https://h/rhel8/x86_64/", "./a.rpm"), "https://h/rhel8/x86_64/a.rpm");
  EXPECT_EQ(join_url("/srv/mirror", "a.rpm"), "/srv/mirror/a.rpm");
  EXPECT_EQ(join_url("https://h/", "https://other/a.rpm"), "https://other/a.rpm");
  EXPECT_TRUE(is_remote_url("HTTPS://h/"));
  EXPECT_TRUE(is_remote_url("http://127.0.0.1:8000/"));
  EXPECT_FALSE(is_remote_url("file:///srv"));
  EXPECT_FALSE(is_remote_url("/srv/mirror"));
}

TEST_F(HttpTest, GetReadsPathsAndFileUrls) {
  auto a = http_get((dir / "a file.txt").string(), 100);
  ASSERT_TRUE(a) << a.error().message();
  EXPECT_EQ(*a, "abc");
  auto b = http_get("file://" + (dir / "a%20file.txt").string(), 100);
  ASSERT_TRUE(b) << b.error().message();
  EXPECT_EQ(*b, "abc");
  auto big = http_get((dir / "a file.txt").string(), 2);
  ASSERT_FALSE(big);
  EXPECT_EQ(big.error().message(), (dir / "a file.txt").string() + ": larger than 2 bytes");
  auto missing = http_get((dir / "nope").string(), 100);
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().message(), (dir / "nope").string() + ": cannot open: No such file or directory");
  auto folder = http_get(dir.string(), 100);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().message(), dir.string() + ": not a regular file");
  auto scheme = http_get("ftp://h/x", 100);
  ASSERT_FALSE(scheme);
  EXPECT_EQ(scheme.error().message(), "ftp://h/x: unsupported URL scheme (use http://, https://, file:// or a path)");
  auto relative = http_get("file://host/x", 100);
  ASSERT_FALSE(relative);
  EXPECT_EQ(relative.error().message(), "file://host/x: file:// URL must name an absolute path on this machine");
}

TEST_F(HttpTest, RefusedConnectionIsAnError) {
  auto r = http_get("http://127.0.0.1:1/x", 100);
  ASSERT_FALSE(r);
  EXPECT_EQ(r.error().message().rfind("http://127.0.0.1:1/x: ", 0), 0u);
}

TEST_F(HttpTest, DownloadHashesAndRenames) {
  std::string dest = (dir / "out.bin").string();
  auto d = http_download((dir / "a file.txt").string(), dest, 100, "BA7816BF8F01CFEA414140DE5DAE2223B00361A396177A9CB410FF61F20015AD", 3);
  ASSERT_TRUE(d) << d.error().message();
  EXPECT_EQ(d->size, 3u);
  EXPECT_EQ(d->sha256, kAbc);
  std::ifstream in(dest, std::ios::binary);
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(body, "abc");
}

TEST_F(HttpTest, DownloadMismatchLeavesNothingBehind) {
  std::string src = (dir / "a file.txt").string();
  std::string dest = (dir / "out.bin").string();
  std::ofstream(dest) << "previous";
  auto bad = http_download(src, dest, 100, std::string(64, '0'));
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), src + ": sha256 " + kAbc + ", expected " + std::string(64, '0'));
  auto size = http_download(src, dest, 100, "", 4);
  ASSERT_FALSE(size);
  EXPECT_EQ(size.error().message(), src + ": size 3, expected 4");
  auto limit = http_download(src, dest, 1);
  ASSERT_FALSE(limit);
  // The destination keeps its old content and no partial file remains.
  std::ifstream in(dest);
  std::string body((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_EQ(body, "previous");
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(dir)) files += e.is_regular_file();
  EXPECT_EQ(files, 2u);
  auto nodir = http_download(src, (dir / "no" / "out.bin").string(), 100);
  ASSERT_FALSE(nodir);
  EXPECT_NE(nodir.error().message().find("cannot create"), std::string::npos);
}

// The CA store: environment variables first, then the distributions' places,
// and a message naming every place when there is none.
class CaTest : public HttpTest {
 protected:
  void SetUp() override {
    HttpTest::SetUp();
    for (const char* v : {"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"}) ::unsetenv(v);
  }
  void TearDown() override {
    for (const char* v : {"SSL_CERT_FILE", "SSL_CERT_DIR", "CURL_CA_BUNDLE"}) ::unsetenv(v);
  }
  void put(const std::string& rel) {
    auto p = tmp.path() / rel.substr(1);
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p) << "-----BEGIN CERTIFICATE-----\n";
  }
};

TEST_F(CaTest, FindsTheRhelBundleUnderARoot) {
  put("/etc/pki/tls/certs/ca-bundle.crt");
  auto ca = find_ca_certificates(tmp.path().string());
  ASSERT_TRUE(ca) << ca.error().message();
  EXPECT_EQ(ca->file, (tmp.path() / "etc/pki/tls/certs/ca-bundle.crt").string());
  EXPECT_EQ(ca->dir, "");
}

TEST_F(CaTest, PrefersDebiansBundleWhenBothExist) {
  put("/etc/pki/tls/certs/ca-bundle.crt");
  put("/etc/ssl/certs/ca-certificates.crt");
  auto ca = find_ca_certificates(tmp.path().string());
  ASSERT_TRUE(ca);
  EXPECT_EQ(ca->file, (tmp.path() / "etc/ssl/certs/ca-certificates.crt").string());
}

TEST_F(CaTest, NoStoreNamesEveryPlaceAndTheFix) {
  auto ca = find_ca_certificates(tmp.path().string());
  ASSERT_FALSE(ca);
  EXPECT_NE(ca.error().message().find("no CA certificates"), std::string::npos);
  EXPECT_NE(ca.error().message().find("/etc/pki/tls/certs/ca-bundle.crt"), std::string::npos);
  EXPECT_NE(ca.error().message().find("SSL_CERT_FILE"), std::string::npos);
  EXPECT_NE(ca.error().message().find("ca-certificates package"), std::string::npos);
  // An https:// URL then fails before any connection, with that message.
  ::setenv("SSL_CERT_FILE", (tmp.path() / "absent.pem").c_str(), 1);
  auto got = http_get("https://127.0.0.1:1/x", 100);
  ASSERT_FALSE(got);
  EXPECT_NE(got.error().message().find("SSL_CERT_FILE="), std::string::npos) << got.error().message();
  EXPECT_NE(got.error().message().find("no such file"), std::string::npos);
}

TEST_F(CaTest, EnvironmentWinsAndIsCheckedToExist) {
  put("/etc/ssl/certs/ca-certificates.crt");
  put("/mine.pem");
  ::setenv("SSL_CERT_FILE", (tmp.path() / "mine.pem").c_str(), 1);
  ::setenv("SSL_CERT_DIR", tmp.path().c_str(), 1);
  auto ca = find_ca_certificates(tmp.path().string());
  ASSERT_TRUE(ca);
  EXPECT_EQ(ca->file, (tmp.path() / "mine.pem").string());
  EXPECT_EQ(ca->dir, tmp.path().string());
  ::setenv("SSL_CERT_DIR", (tmp.path() / "nowhere").c_str(), 1);
  auto bad = find_ca_certificates(tmp.path().string());
  ASSERT_FALSE(bad);
  EXPECT_NE(bad.error().message().find("SSL_CERT_DIR="), std::string::npos);
}

}  // namespace
}  // namespace cuwheel::toolkit
