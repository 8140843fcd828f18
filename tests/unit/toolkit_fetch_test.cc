// toolkit download/verify (local repository folder, no signatures: the
// signed path is covered by rpm_test.cc and tests/e2e/toolkit_fetch_test.sh),
// extract (RPMs with a cpio payload written here with libarchive) and check
// (fake nvcc scripts).
#include "cuwheel/toolkit/fetch.h"

#include <archive.h>
#include <archive_entry.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cuwheel/base/digest.h"
#include "temp_dir.h"

using namespace cuwheel;
using namespace cuwheel::toolkit;
namespace fs = std::filesystem;

namespace {

std::string slurp(const std::string& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
void spit(const std::string& p, const std::string& data, unsigned mode = 0644) {
  std::ofstream(p, std::ios::binary) << data;
  ::chmod(p.c_str(), mode);
}
std::string sha_hex(const std::string& s) {
  auto d = sha256(ByteView(reinterpret_cast<const uint8_t*>(s.data()), s.size()));
  static const char* x = "0123456789abcdef";
  std::string h;
  for (uint8_t b : d) {
    h += x[b >> 4];
    h += x[b & 15];
  }
  return h;
}

// --- a minimal RPM: lead, signature and main headers, cpio payload -------

void be32(std::string& s, uint32_t v) {
  for (int sh : {24, 16, 8, 0}) s += static_cast<char>((v >> sh) & 0xff);
}
std::string header(const std::vector<std::pair<uint32_t, std::string>>& strings) {
  std::string index, store;
  for (const auto& [tag, v] : strings) {
    be32(index, tag);
    be32(index, 6);
    be32(index, static_cast<uint32_t>(store.size()));
    be32(index, 1);
    store += v + std::string(1, '\0');
  }
  std::string h("\x8e\xad\xe8\x01\0\0\0\0", 8);
  be32(h, static_cast<uint32_t>(strings.size()));
  be32(h, static_cast<uint32_t>(store.size()));
  return h + index + store;
}

struct Member {
  std::string name;
  char kind;  // 'f' file, 'd' folder, 'l' symlink
  std::string data;  // contents or link target
  unsigned mode = 0644;
};

std::string cpio(const std::vector<Member>& members) {
  archive* a = archive_write_new();
  archive_write_set_format_cpio_newc(a);
  std::vector<char> buf(1 << 20);
  size_t used = 0;
  archive_write_open_memory(a, buf.data(), buf.size(), &used);
  for (const auto& m : members) {
    archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_perm(e, m.mode);
    if (m.kind == 'f') {
      archive_entry_set_filetype(e, AE_IFREG);
      archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));
    } else if (m.kind == 'd') {
      archive_entry_set_filetype(e, AE_IFDIR);
    } else {
      archive_entry_set_filetype(e, AE_IFLNK);
      archive_entry_set_symlink(e, m.data.c_str());
      archive_entry_set_size(e, static_cast<la_int64_t>(m.data.size()));  // newc stores the target as data
    }
    archive_write_header(a, e);
    if (m.kind == 'f') archive_write_data(a, m.data.data(), m.data.size());
    archive_entry_free(e);
  }
  archive_write_close(a);
  archive_write_free(a);
  return std::string(buf.data(), used);
}

std::string rpm_file(const std::string& name, const std::vector<Member>& members) {
  std::string l("\xed\xab\xee\xdb\x03\x00\x00\x00\x00\x01", 10);
  std::string n = name;
  n.resize(66, '\0');
  l += n;
  l += std::string("\x00\x01\x00\x05", 4) + std::string(16, '\0');
  std::string sig = header({{273, "0"}});
  while (sig.size() % 8) sig += '\0';
  std::string main = header({{1000, name}, {1001, "1"}, {1002, "1"}, {1022, "x86_64"}, {1125, "identity"}});
  return l + sig + main + cpio(members);
}

class ToolkitFetch : public testing::Test {
 protected:
  void SetUp() override {
    dir_ = tmp_.str();
    ASSERT_FALSE(dir_.empty());
    fs::create_directories(dir_ + "/rpms");
  }
  void TearDown() override { fs::remove_all(dir_); }

  // Writes RPMs into dir_/rpms and a SHA256SUMS listing them.
  void folder(const std::vector<std::pair<std::string, std::string>>& rpms) {
    std::string sums;
    for (const auto& [name, data] : rpms) {
      spit(dir_ + "/rpms/" + name, data);
      sums += sha_hex(data) + "  " + name + "\n";
    }
    spit(dir_ + "/rpms/SHA256SUMS", sums);
  }

  cuwheel::test::TempDir tmp_{"tkfetch"};  // this test's own folder
  std::string dir_;
};

const std::string kRoot = "./usr/local/cuda-12.9";

TEST_F(ToolkitFetch, ExtractMapsThePrefixAndSkipsTheRest) {
  folder({{"a.rpm", rpm_file("a", {{"./usr", 'd', ""},
                                   {"./usr/local", 'd', ""},
                                   {kRoot, 'd', ""},
                                   {kRoot + "/bin", 'd', ""},
                                   {kRoot + "/bin/nvcc", 'f', "#!/bin/sh\n", 04755},
                                   {kRoot + "/lib64", 'l', "lib"},
                                   {kRoot + "/targets/x86_64-linux/lib", 'l', "/usr/local/cuda-12.9/lib"},
                                   {kRoot + "/lib/libcudart_static.a", 'f', "!<arch>\n"},
                                   {"./etc/profile.d/cuda.sh", 'f', "export X=1\n"}})},
          {"b.rpm", rpm_file("b", {{kRoot + "/EULA.txt", 'f', "licence\n"}})}});
  auto r = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->release, "12.9");
  EXPECT_EQ(r->packages, (std::vector<std::string>{"a.rpm", "b.rpm"}));
  EXPECT_EQ(r->files, 3u);
  EXPECT_EQ(r->symlinks, 2u);
  ASSERT_EQ(r->skipped.size(), 1u);
  EXPECT_EQ(r->skipped[0], "a.rpm: ./etc/profile.d/cuda.sh");
  std::string c = dir_ + "/cuda";
  EXPECT_EQ(slurp(c + "/bin/nvcc"), "#!/bin/sh\n");
  EXPECT_EQ(slurp(c + "/EULA.txt"), "licence\n");
  EXPECT_EQ(fs::read_symlink(c + "/lib64"), "lib");
  EXPECT_EQ(fs::read_symlink(c + "/targets/x86_64-linux/lib"), "../../lib");
  EXPECT_EQ(slurp(c + "/targets/x86_64-linux/lib/libcudart_static.a"), "!<arch>\n");
  struct stat st;
  ASSERT_EQ(::stat((c + "/bin/nvcc").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);  // set-id bit dropped
  EXPECT_FALSE(fs::exists(c + "/etc"));
  EXPECT_FALSE(fs::exists(c + "/usr"));
  for (const auto& e : fs::directory_iterator(dir_))
    EXPECT_EQ(e.path().filename().string().find(".part."), std::string::npos);
}

TEST_F(ToolkitFetch, ExtractRefusesLinksAndNamesThatLeaveTheTree) {
  struct Case {
    Member m;
    std::string message;
  };
  std::vector<Case> cases = {
      {{kRoot + "/bin/sh", 'l', "/bin/sh"}, "a.rpm: " + kRoot + "/bin/sh: symbolic link to /bin/sh, outside /usr/local/cuda-12.9/"},
      {{kRoot + "/lib/x", 'l', "../../../etc/passwd"},
       "a.rpm: " + kRoot + "/lib/x: symbolic link to ../../../etc/passwd leaves the toolkit tree"},
      // Absolute forms that start with the prefix and climb out of it.
      {{kRoot + "/up", 'l', "/usr/local/cuda-12.9/.."},
       "a.rpm: " + kRoot + "/up: symbolic link to /usr/local/cuda-12.9/.. leaves the toolkit tree"},
      {{kRoot + "/bin/nvcc", 'l', "/usr/local/cuda-12.9/../../../../etc/passwd"},
       "a.rpm: " + kRoot + "/bin/nvcc: symbolic link to /usr/local/cuda-12.9/../../../../etc/passwd leaves the toolkit tree"},
      {{kRoot + "/lib/y", 'l', "/usr/local/cuda-12.9/lib/../../x"},
       "a.rpm: " + kRoot + "/lib/y: symbolic link to /usr/local/cuda-12.9/lib/../../x leaves the toolkit tree"},
      {{kRoot + "/../../../../etc/evil", 'f', "x"}, "a.rpm: " + kRoot + "/../../../../etc/evil: member name contains '..'"},
      {{"./usr/local/cuda-12.8/bin/nvcc", 'f', "x"},
       "a.rpm: ./usr/local/cuda-12.8/bin/nvcc: installs under /usr/local/cuda-12.8/, but the toolkit being unpacked is 12.9"},
  };
  for (const auto& c : cases) {
    fs::remove_all(dir_ + "/rpms");
    fs::create_directories(dir_ + "/rpms");
    folder({{"a.rpm", rpm_file("a", {{kRoot + "/EULA.txt", 'f', "l"}, c.m})}});
    auto r = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
    ASSERT_FALSE(r) << c.m.name;
    EXPECT_EQ(r.error().message(), c.message);
    EXPECT_FALSE(fs::exists(dir_ + "/cuda")) << c.m.name;
    EXPECT_FALSE(fs::exists("/etc/evil"));
  }
}

// Each link alone stays inside; together they climb out: "here" is the prefix
// folder itself, so "here/.." is its parent although the text "here/.."
// normalises to ".". The tree is resolved as a whole before it is kept.
TEST_F(ToolkitFetch, ExtractRefusesALinkChainThatLeavesTheTree) {
  for (const std::string& here : {std::string("."), std::string("/usr/local/cuda-12.9")}) {
    fs::remove_all(dir_ + "/rpms");
    fs::create_directories(dir_ + "/rpms");
    folder({{"a.rpm", rpm_file("a", {{kRoot + "/EULA.txt", 'f', "l"},
                                     {kRoot + "/here", 'l', here},
                                     {kRoot + "/out", 'l', "here/.."}})}});
    auto r = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
    ASSERT_FALSE(r) << here;
    EXPECT_EQ(r.error().message(),
              dir_ + "/cuda/out: symbolic link resolves outside the toolkit tree (through another link)");
    EXPECT_FALSE(fs::exists(dir_ + "/cuda"));
    for (const auto& e : fs::directory_iterator(dir_))
      EXPECT_EQ(e.path().filename().string().find(".part."), std::string::npos);
  }
}

TEST_F(ToolkitFetch, ExtractChecksDigestsReleaseAndTarget) {
  folder({{"a.rpm", rpm_file("a", {{kRoot + "/EULA.txt", 'f', "l"}})}});
  auto wrong = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda", "13.0");
  ASSERT_FALSE(wrong);
  EXPECT_NE(wrong.error().message().find("installs under /usr/local/cuda-12.9/, but the toolkit being unpacked is 13.0"),
            std::string::npos);
  EXPECT_FALSE(extract_toolkit(dir_ + "/rpms", dir_ + "/cuda", "13"));

  fs::create_directories(dir_ + "/full");
  spit(dir_ + "/full/x", "x");
  auto full = extract_toolkit(dir_ + "/rpms", dir_ + "/full");
  ASSERT_FALSE(full);
  EXPECT_EQ(full.error().message(), dir_ + "/full: exists and is not an empty folder (extract into a new folder)");

  fs::create_directories(dir_ + "/empty");
  EXPECT_TRUE(extract_toolkit(dir_ + "/rpms", dir_ + "/empty", "12.9"));
  EXPECT_TRUE(fs::exists(dir_ + "/empty/EULA.txt"));

  spit(dir_ + "/rpms/a.rpm", slurp(dir_ + "/rpms/a.rpm") + "tail");
  auto changed = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
  ASSERT_FALSE(changed);
  EXPECT_NE(changed.error().message().find(dir_ + "/rpms/a.rpm: sha256 "), std::string::npos);
  EXPECT_FALSE(fs::exists(dir_ + "/cuda"));

  spit(dir_ + "/rpms/SHA256SUMS", "abc  a.rpm\n");
  auto malformed = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
  ASSERT_FALSE(malformed);
  EXPECT_EQ(malformed.error().message(), dir_ + "/rpms/SHA256SUMS:1: not a sha256sum line for a file in this folder");
  fs::remove(dir_ + "/rpms/SHA256SUMS");
  EXPECT_FALSE(extract_toolkit(dir_ + "/rpms", dir_ + "/cuda"));

  // Not an RPM at all.
  folder({{"a.rpm", "plain text, not a package"}});
  auto notrpm = extract_toolkit(dir_ + "/rpms", dir_ + "/cuda");
  ASSERT_FALSE(notrpm);
  EXPECT_EQ(notrpm.error().message().rfind("a.rpm: ", 0), 0u) << notrpm.error().message();
  EXPECT_FALSE(fs::exists(dir_ + "/cuda"));
}

// --- download and verify from a local repository folder ------------------

LockedToolkit lock_for(const std::string& repo, const std::vector<std::pair<std::string, std::string>>& files) {
  LockedToolkit tk;
  tk.name = "cu12";
  tk.release = "12.9";
  tk.repo = repo + "/";
  for (const auto& [name, data] : files) {
    LockedRpm r;
    r.name = name;
    r.evr = "1-1";
    r.arch = "x86_64";
    r.location = "sub/" + name + ".rpm";
    r.sha256 = sha_hex(data);
    r.size = data.size();
    tk.rpms.push_back(r);
  }
  return tk;
}

TEST_F(ToolkitFetch, DownloadVerifiesReusesAndWritesSums) {
  std::string repo = dir_ + "/repo";
  fs::create_directories(repo + "/sub");
  spit(repo + "/sub/zz.rpm", "zz-bytes");
  spit(repo + "/sub/aa.rpm", "aa-bytes");
  LockedToolkit tk = lock_for(repo, {{"zz", "zz-bytes"}, {"aa", "aa-bytes"}});
  std::string dest = dir_ + "/dl";
  auto r = download_toolkit(tk, dest, true);
  ASSERT_TRUE(r) << r.error().message();
  ASSERT_TRUE(r->ok());
  EXPECT_TRUE(r->sums_written);
  EXPECT_EQ(r->files[0].status, FileOutcome::Status::downloaded);
  EXPECT_FALSE(r->files[0].signature_checked);  // the lock pins no key
  EXPECT_EQ(slurp(dest + "/SHA256SUMS"),
            sha_hex("aa-bytes") + "  aa.rpm\n" + sha_hex("zz-bytes") + "  zz.rpm\n");

  auto again = download_toolkit(tk, dest, true);
  ASSERT_TRUE(again);
  EXPECT_EQ(again->files[0].status, FileOutcome::Status::reused);
  EXPECT_EQ(again->files[1].status, FileOutcome::Status::reused);

  spit(dest + "/zz.rpm", "zz-bytez");  // same size, other bytes
  auto fixed = download_toolkit(tk, dest, true);
  ASSERT_TRUE(fixed);
  EXPECT_EQ(fixed->files[0].status, FileOutcome::Status::downloaded);
  EXPECT_EQ(fixed->files[0].message,
            "cached copy rejected (sha256 " + sha_hex("zz-bytez") + ", the lock pins " + sha_hex("zz-bytes") +
                "), downloaded again");
  EXPECT_EQ(slurp(dest + "/zz.rpm"), "zz-bytes");

  auto v = verify_toolkit(tk, dest, false);
  ASSERT_TRUE(v);
  EXPECT_TRUE(v->ok());
  EXPECT_EQ(v->files[1].status, FileOutcome::Status::verified);
}

TEST_F(ToolkitFetch, DownloadFailuresLeaveNothingThatLooksValid) {
  std::string repo = dir_ + "/repo";
  fs::create_directories(repo + "/sub");
  spit(repo + "/sub/aa.rpm", "aa-bytes");
  spit(repo + "/sub/bb.rpm", "bb-bytes-but-longer");
  LockedToolkit tk = lock_for(repo, {{"aa", "aa-bytes"}, {"bb", "bb-bytes"}, {"cc", "cc-bytes"}});
  std::string dest = dir_ + "/dl";
  fs::create_directories(dest);
  spit(dest + "/SHA256SUMS", "stale\n");
  auto r = download_toolkit(tk, dest, true);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_FALSE(r->ok());
  EXPECT_TRUE(r->any_rejected());
  EXPECT_FALSE(r->sums_written);
  EXPECT_EQ(r->files[0].status, FileOutcome::Status::downloaded);
  EXPECT_EQ(r->files[1].status, FileOutcome::Status::rejected);
  EXPECT_EQ(r->files[1].message, "download is larger than the pinned size 8 bytes");
  EXPECT_EQ(r->files[2].status, FileOutcome::Status::unavailable);
  EXPECT_NE(r->files[2].message.find("cc.rpm"), std::string::npos);
  std::vector<std::string> left;
  for (const auto& e : fs::directory_iterator(dest)) left.push_back(e.path().filename().string());
  EXPECT_EQ(left, std::vector<std::string>{"aa.rpm"});
}

TEST_F(ToolkitFetch, DownloadIntoAFolderWithAnUnlockedRpmFailsAndKeepsIt) {
  std::string repo = dir_ + "/repo";
  fs::create_directories(repo + "/sub");
  spit(repo + "/sub/aa.rpm", "aa-bytes");
  LockedToolkit tk = lock_for(repo, {{"aa", "aa-bytes"}});
  std::string dest = dir_ + "/dl";
  fs::create_directories(dest);
  spit(dest + "/other.rpm", "not ours");
  auto r = download_toolkit(tk, dest, true);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->files[0].status, FileOutcome::Status::downloaded);
  EXPECT_EQ(r->unlocked, std::vector<std::string>{"other.rpm"});
  EXPECT_FALSE(r->ok());
  EXPECT_TRUE(r->any_rejected());
  EXPECT_FALSE(r->sums_written);
  EXPECT_FALSE(fs::exists(dest + "/SHA256SUMS"));
  EXPECT_EQ(slurp(dest + "/other.rpm"), "not ours");

  fs::remove(dest + "/other.rpm");
  auto clean = download_toolkit(tk, dest, true);
  ASSERT_TRUE(clean);
  EXPECT_TRUE(clean->ok());
  EXPECT_TRUE(clean->sums_written);
}

TEST_F(ToolkitFetch, VerifyReportsEachFile) {
  std::string d = dir_ + "/dl";
  fs::create_directories(d);
  LockedToolkit tk = lock_for(dir_, {{"aa", "aa-bytes"}, {"bb", "bb-bytes"}, {"cc", "cc-bytes"}});
  spit(d + "/aa.rpm", "aa-bytes");
  spit(d + "/bb.rpm", "bb-bytes!");
  auto v = verify_toolkit(tk, d, false);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->files[0].status, FileOutcome::Status::verified);
  EXPECT_EQ(v->files[1].status, FileOutcome::Status::rejected);
  EXPECT_EQ(v->files[1].message, "size 9 bytes, the lock pins 8");
  EXPECT_EQ(v->files[2].status, FileOutcome::Status::unavailable);
  EXPECT_EQ(v->files[2].message, d + "/cc.rpm: missing");
  EXPECT_FALSE(v->ok());

  auto nosig = verify_toolkit(tk, d, true);
  ASSERT_FALSE(nosig);
  EXPECT_EQ(nosig.error().message(), "toolkit cu12: --signatures given but the lock pins no key fingerprint");
  tk.key_fingerprint = std::string(40, 'A');
  tk.key_url = "https://example.invalid/keys/D42D0685.pub";
  auto nokey = verify_toolkit(tk, d, true);
  ASSERT_FALSE(nokey);
  EXPECT_NE(nokey.error().message().find(d + "/D42D0685.pub"), std::string::npos);
  EXPECT_FALSE(verify_toolkit(tk, d + "/none", false));
}

// `dnf install DIR/*.rpm` installs whatever is in the folder: a name that is
// not a locked file, SHA256SUMS or the key file fails verification.
TEST_F(ToolkitFetch, VerifyFailsOnUnlockedNames) {
  std::string d = dir_ + "/dl";
  fs::create_directories(d);
  LockedToolkit tk = lock_for(dir_, {{"aa", "aa-bytes"}, {"bb", "bb-bytes"}});
  tk.key_url = "https://example.invalid/keys/D42D0685.pub";
  spit(d + "/aa.rpm", "aa-bytes");
  spit(d + "/bb.rpm", "bb-bytes");
  spit(d + "/D42D0685.pub", "key");
  auto good = verify_toolkit(tk, d, false);
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->unlocked.empty());
  EXPECT_TRUE(good->ok());

  spit(d + "/other-1.0-1.x86_64.rpm", "another signed package");
  spit(d + "/aa.rpm.part.77", "partial");
  fs::create_directories(d + "/sub.rpm");
  auto v = verify_toolkit(tk, d, false);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->unlocked, (std::vector<std::string>{"aa.rpm.part.77", "other-1.0-1.x86_64.rpm", "sub.rpm"}));
  EXPECT_EQ(v->files[0].status, FileOutcome::Status::verified);
  EXPECT_EQ(v->files[1].status, FileOutcome::Status::verified);
  EXPECT_FALSE(v->ok());
  EXPECT_TRUE(v->any_rejected());
  EXPECT_TRUE(fs::exists(d + "/other-1.0-1.x86_64.rpm"));  // inputs are never modified

  auto direct = unlocked_entries(tk, d);
  ASSERT_TRUE(direct);
  EXPECT_EQ(*direct, v->unlocked);
  EXPECT_FALSE(unlocked_entries(tk, d + "/none"));
}

// An existing DIR/SHA256SUMS (what extract unpacks) must say what the lock
// says, line by line; without one the files are checked as before.
TEST_F(ToolkitFetch, VerifyChecksAnExistingSha256Sums) {
  std::string d = dir_ + "/dl";
  fs::create_directories(d);
  LockedToolkit tk = lock_for(dir_, {{"aa", "aa-bytes"}, {"bb", "bb-bytes"}});
  spit(d + "/aa.rpm", "aa-bytes");
  spit(d + "/bb.rpm", "bb-bytes");
  const std::string aa = sha_hex("aa-bytes"), bb = sha_hex("bb-bytes"), sums = d + "/SHA256SUMS";

  auto none = verify_toolkit(tk, d, false);
  ASSERT_TRUE(none) << none.error().message();
  EXPECT_FALSE(none->sums.present);
  EXPECT_TRUE(none->ok());

  // What download writes; the digest in upper case and binary mode ('*') are sha256sum's too.
  spit(sums, aa + "  aa.rpm\n" + bb + "  bb.rpm\n");
  auto good = verify_toolkit(tk, d, false);
  ASSERT_TRUE(good);
  EXPECT_TRUE(good->sums.present);
  EXPECT_EQ(good->sums.lines, 2u);
  EXPECT_TRUE(good->sums.problems.empty());
  EXPECT_TRUE(good->ok());
  std::string upper = bb;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_TRUE(check_sums(aa + " *aa.rpm\n" + upper + "  bb.rpm", sums, tk).problems.empty());

  // A digest that differs from the pin: a rejection naming the line and the file, though the files are right.
  spit(sums, aa + "  aa.rpm\n" + sha_hex("other") + "  bb.rpm\n");
  auto bad = verify_toolkit(tk, d, false);
  ASSERT_TRUE(bad);
  ASSERT_EQ(bad->sums.problems.size(), 1u);
  EXPECT_EQ(bad->sums.problems[0].line, 2u);
  EXPECT_EQ(bad->sums.problems[0].member, "bb.rpm");
  EXPECT_EQ(bad->sums.problems[0].message, sums + ":2: bb.rpm: sha256 " + sha_hex("other") + ", the lock pins " + bb);
  EXPECT_EQ(bad->files[1].status, FileOutcome::Status::verified);
  EXPECT_FALSE(bad->ok());
  EXPECT_TRUE(bad->any_rejected());

  // A file the lock does not have, a name twice, an unparsable line, a locked file not listed.
  auto many = check_sums(aa + "  aa.rpm\n" + aa + "  aa.rpm\n" + bb + "  cc.rpm\nnot a line\n\n" + bb + "  ../bb.rpm\n",
                         sums, tk);
  EXPECT_EQ(many.lines, 6u);
  ASSERT_EQ(many.problems.size(), 6u);
  EXPECT_EQ(many.problems[0].message, sums + ":2: aa.rpm is listed twice (first on line 1)");
  EXPECT_EQ(many.problems[1].message, sums + ":3: cc.rpm is listed but is not a file of the lock for cu12");
  EXPECT_EQ(many.problems[2].message,
            sums + ":4: not a sha256sum line (\"<64 hex digits>  <file name>\"): \"not a line\"");
  EXPECT_EQ(many.problems[2].member, "");
  EXPECT_EQ(many.problems[3].line, 5u);  // an empty line
  EXPECT_EQ(many.problems[4].line, 6u);  // a name with a '/'
  EXPECT_FALSE(many.problems[5].line);  // no line: a locked file it does not list
  EXPECT_EQ(many.problems[5].message, sums + ": does not list bb.rpm, a file of the lock for cu12");
  // Control characters are not echoed.
  auto ctl = check_sums(std::string("\x1b[31mx\r\n"), sums, tk);
  ASSERT_FALSE(ctl.problems.empty());
  EXPECT_EQ(ctl.problems[0].message.find('\x1b'), std::string::npos);
  EXPECT_EQ(check_sums(aa + "  aa.rpm\r\n" + bb + "  bb.rpm\n", sums, tk).problems.size(), 2u);  // CRLF: not parsed, aa unlisted

  // An empty SHA256SUMS lists nothing: every locked file is missing from it.
  spit(sums, "");
  auto empty = verify_toolkit(tk, d, false);
  ASSERT_TRUE(empty);
  EXPECT_EQ(empty->sums.problems.size(), 2u);
  EXPECT_FALSE(empty->ok());

  // A SHA256SUMS that cannot be read stops the run, naming it.
  fs::remove(sums);
  fs::create_directories(sums);
  auto unreadable = verify_toolkit(tk, d, false);
  ASSERT_FALSE(unreadable);
  EXPECT_NE(unreadable.error().message().find(sums), std::string::npos);
}

TEST(ToolkitLocalName, LastComponentOfLocation) {
  LockedRpm r;
  r.name = "x";
  r.location = "x86_64/cuda-nvcc-12-9-12.9.86-1.x86_64.rpm";
  EXPECT_EQ(*local_name(r), "cuda-nvcc-12-9-12.9.86-1.x86_64.rpm");
  for (const char* bad : {"", "/", "a/..", "."}) {
    r.location = bad;
    EXPECT_FALSE(local_name(r)) << bad;
  }
}

// --- check --------------------------------------------------------------

TEST(ToolkitNvccVersion, Parses) {
  std::string rel, ver;
  EXPECT_TRUE(parse_nvcc_version("nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 12.9, V12.9.86\n",
                                 rel, ver));
  EXPECT_EQ(rel, "12.9");
  EXPECT_EQ(ver, "12.9.86");
  EXPECT_FALSE(parse_nvcc_version("Cuda compilation tools, release 12.9\n", rel, ver));
  EXPECT_FALSE(parse_nvcc_version("", rel, ver));
}

class ToolkitCheck : public testing::Test {
 protected:
  void SetUp() override {
    root_ = tmp_.str();
    ASSERT_FALSE(root_.empty());
    fs::create_directories(root_ + "/bin");
    spit(root_ + "/EULA.txt", "licence\n");
  }
  void TearDown() override { fs::remove_all(root_); }
  // A fake nvcc: prints `banner` for --version; otherwise records its
  // arguments, and either fails with `compile_error` or writes the -o file.
  void nvcc(const std::string& banner, const std::string& compile_error = "") {
    std::string s = "#!/bin/sh\nif [ \"$1\" = --version ]; then printf '%s\\n' '" + banner + "'; exit 0; fi\n";
    s += "echo \"$@\" > '" + root_ + "/args'\n";
    if (!compile_error.empty()) {
      s += "echo 'In file included from t.cu:1:'\necho '" + compile_error + "' >&2\nexit 1\n";
    } else {
      s += "while [ $# -gt 0 ]; do if [ \"$1\" = -o ]; then : > \"$2\"; fi; shift; done\nexit 0\n";
    }
    spit(root_ + "/bin/nvcc", s, 0755);
  }
  const CheckStep& step(const CheckReport& r, const std::string& name) {
    for (const auto& s : r.steps)
      if (s.name == name) return s;
    static CheckStep none;
    ADD_FAILURE() << "no step " << name;
    return none;
  }
  cuwheel::test::TempDir tmp_{"tkcheck"};  // this test's own folder
  std::string root_;
};

TEST_F(ToolkitCheck, PassesWithTheRightReleaseAndHostCompiler) {
  nvcc("Cuda compilation tools, release 12.9, V12.9.86");
  CheckOptions o;
  o.release = "12.9";
  o.host_compiler = "g++-14";
  auto r = check_toolkit(root_, o);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_TRUE(r->ok());
  EXPECT_EQ(r->nvcc_version, "12.9.86");
  std::string args = slurp(root_ + "/args");
  EXPECT_EQ(args.rfind("-ccbin g++-14 -cudart static -o ", 0), 0u) << args;
}

TEST_F(ToolkitCheck, WrongReleaseOrMajorFails) {
  nvcc("Cuda compilation tools, release 12.8, V12.8.93");
  CheckOptions o;
  o.release = "12.9";
  auto r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(step(*r, "nvcc-release").message, "nvcc reports release 12.8, the pin is 12.9");
  EXPECT_EQ(step(*r, "compile").message, "not attempted: nvcc failed the release check");
  EXPECT_TRUE(step(*r, "eula").ok);

  nvcc("Cuda compilation tools, release 12.9, V13.0.1");
  r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(step(*r, "nvcc-release").message, "nvcc reports version 13.0.1, not of CUDA major 12");

  nvcc("no version here");
  r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_NE(step(*r, "nvcc-release").message.find("printed no \"release X.Y, VX.Y.Z\" line: no version here"),
            std::string::npos);

  fs::remove(root_ + "/bin/nvcc");
  r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_EQ(step(*r, "nvcc-release").message, root_ + "/bin/nvcc is missing or not executable");

  o.release = "12";
  EXPECT_FALSE(check_toolkit(root_, o));
}

TEST_F(ToolkitCheck, MissingEulaFails) {
  nvcc("Cuda compilation tools, release 12.9, V12.9.86");
  fs::remove(root_ + "/EULA.txt");
  CheckOptions o;
  o.release = "12.9";
  auto r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok());
  EXPECT_EQ(step(*r, "eula").message, root_ + "/EULA.txt is missing");
  EXPECT_TRUE(step(*r, "compile").ok);
}

TEST_F(ToolkitCheck, CompileFailureIsOneLine) {
  nvcc("Cuda compilation tools, release 12.9, V12.9.86",
       "crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 14 are not supported!");
  CheckOptions o;
  o.release = "12.9";
  auto r = check_toolkit(root_, o);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->ok());
  const CheckStep& c = step(*r, "compile");
  EXPECT_EQ(c.message,
            "compiling a kernel with nvcc's default host compiler and the static runtime failed (exit status 1): "
            "crt/host_config.h:143:2: error: #error -- unsupported GNU version! gcc versions later than 14 are not "
            "supported!");
  EXPECT_NE(c.output.find("In file included from"), std::string::npos);
}

}  // namespace
