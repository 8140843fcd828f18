#include "cuwheel/release/identity.h"

#include <gtest/gtest.h>

#include <iostream>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <fstream>
#include <random>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/fileio.h"
#include "temp_dir.h"

namespace cuwheel::identity {
namespace {

namespace fs = std::filesystem;

// A fresh folder named after the running test; all are removed at exit.
std::string make_temp_dir() {
  static std::vector<std::unique_ptr<cuwheel::test::TempDir>> dirs;
  dirs.push_back(std::make_unique<cuwheel::test::TempDir>("identity"));
  EXPECT_FALSE(dirs.back()->path().empty());
  return dirs.back()->str();
}

void write(const std::string& path, const std::string& text, unsigned mode = 0644) {
  fs::create_directories(fs::path(path).parent_path());
  std::ofstream(path) << text;
  ::chmod(path.c_str(), mode);
}

// ---- toolkit version parsing -------------------------------------------

TEST(IdentityNvcc, ParsesTheReleaseLine) {
  const char* banner =
      "nvcc: NVIDIA (R) Cuda compiler driver\n"
      "Copyright (c) 2005-2025 NVIDIA Corporation\n"
      "Built on Wed_Aug_20_01:58:59_PM_PDT_2025\n"
      "Cuda compilation tools, release 13.0, V13.0.88\n"
      "Build cuda_13.0.r13.0/compiler.36424714_0\n";
  auto v = parse_nvcc_version(banner);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 13);
  EXPECT_EQ(v->minor, 0);
  auto v12 = parse_nvcc_version("Cuda compilation tools, release 12.9, V12.9.86\n");
  ASSERT_TRUE(v12);
  EXPECT_EQ(v12->major, 12);
  EXPECT_EQ(v12->minor, 9);
}

TEST(IdentityNvcc, RejectsBannerWithoutRelease) {
  auto v = parse_nvcc_version("gcc (Debian 12.2.0-14) 12.2.0\n");
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("no 'release M.N'"), std::string::npos);
  EXPECT_NE(v.error().message().find("gcc (Debian"), std::string::npos);
  EXPECT_FALSE(parse_nvcc_version("release 13"));           // no minor
  EXPECT_FALSE(parse_nvcc_version("release 0.5"));          // major 0
  EXPECT_FALSE(parse_nvcc_version("release 99999999999999999999.1"));  // overflow, no wrap
  EXPECT_FALSE(parse_nvcc_version("release 0013.0"));       // more than 3 digits
  EXPECT_FALSE(parse_nvcc_version("release 13.123"));       // more than 2 digits
  EXPECT_FALSE(parse_nvcc_version(""));
}

TEST(IdentityHeader, ParsesCudaVersion) {
  auto v = parse_version_header("/* cuda.h */\n#define CUDA_VERSION_X 1\n#define CUDA_VERSION 13000\n", "CUDA_VERSION");
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 13);
  EXPECT_EQ(v->minor, 0);
  auto rt = parse_version_header("#  define   CUDART_VERSION\t12090\n", "CUDART_VERSION");
  ASSERT_TRUE(rt) << rt.error().message();
  EXPECT_EQ(rt->major, 12);
  EXPECT_EQ(rt->minor, 9);
}

TEST(IdentityHeader, RejectsMissingOrOddValues) {
  auto none = parse_version_header("#define CUDART_VERSION 12090\n", "CUDA_VERSION");
  ASSERT_FALSE(none);
  EXPECT_EQ(none.error().message(), "no '#define CUDA_VERSION' line");
  auto odd = parse_version_header("#define CUDA_VERSION 13001\n", "CUDA_VERSION");
  ASSERT_FALSE(odd);
  EXPECT_NE(odd.error().message().find("major*1000 + minor*10"), std::string::npos);
  EXPECT_FALSE(parse_version_header("#define CUDA_VERSION __x\n", "CUDA_VERSION"));
  EXPECT_FALSE(parse_version_header("#define CUDA_VERSION 500\n", "CUDA_VERSION"));
}

// ---- toolkit detection ---------------------------------------------------

TEST(IdentityDetect, PrefixWithFakeNvcc) {
  std::string dir = make_temp_dir();
  write(dir + "/bin/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 12.8, V12.8.93'\n", 0755);
  ToolkitQuery q;
  q.prefix = dir;
  auto v = detect_toolkit(q);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 12);
  EXPECT_EQ(v->minor, 8);
  EXPECT_EQ(v->source, dir + "/bin/nvcc --version");
  fs::remove_all(dir);
}

TEST(IdentityDetect, PrefixWithOnlyHeaders) {
  std::string dir = make_temp_dir();
  write(dir + "/include/cuda_runtime_api.h", "#define CUDART_VERSION 12090\n");
  ToolkitQuery q;
  q.cuda_home = dir;
  auto v = detect_toolkit(q);
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 12);
  write(dir + "/include/cuda.h", "#define CUDA_VERSION 13010\n");  // cuda.h is preferred
  v = detect_toolkit(q);
  ASSERT_TRUE(v);
  EXPECT_EQ(v->major, 13);
  EXPECT_EQ(v->minor, 1);
  EXPECT_EQ(v->source, dir + "/include/cuda.h");
  fs::remove_all(dir);
}

TEST(IdentityDetect, NamedPrefixWithoutToolkitIsAnErrorNotAFallback) {
  std::string dir = make_temp_dir();
  std::string other = make_temp_dir();
  write(other + "/nvcc", "#!/bin/sh\necho 'release 13.0'\n", 0755);
  ToolkitQuery q;
  q.cuda_path = dir;
  q.path_env = other;
  auto v = detect_toolkit(q);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("CUDA_PATH " + dir + ": no CUDA toolkit there"), std::string::npos);
  q.cuda_path.clear();
  v = detect_toolkit(q);  // now PATH is used
  ASSERT_TRUE(v) << v.error().message();
  EXPECT_EQ(v->major, 13);
  EXPECT_EQ(v->source, other + "/nvcc --version (PATH)");
  fs::remove_all(dir);
  fs::remove_all(other);
}

TEST(IdentityDetect, FailingAndHangingNvcc) {
  std::string dir = make_temp_dir();
  write(dir + "/bin/nvcc", "#!/bin/sh\necho 'nvcc fatal : broken install' >&2\nexit 3\n", 0755);
  ToolkitQuery q;
  q.prefix = dir;
  auto v = detect_toolkit(q);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("exited with status 3: nvcc fatal : broken install"), std::string::npos);

  std::string hang = make_temp_dir();
  write(hang + "/nvcc", "#!/bin/sh\nexec sleep 30\n", 0755);
  ToolkitQuery h;
  h.path_env = hang;
  h.nvcc_timeout_ms = 200;
  auto t = detect_toolkit(h);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("no answer after 200 ms"), std::string::npos);
  fs::remove_all(dir);
  fs::remove_all(hang);
}

// A wrapper nvcc whose child outlives it: the timeout ends the whole
// process group, not only the wrapper; a wrapper that answers and exits
// leaves no child running either.
TEST(IdentityDetect, TimeoutEndsTheWrappersChildren) {
  std::string dir = make_temp_dir();
  const std::string pids = dir + "/pids";
  write(dir + "/hang/nvcc", "#!/bin/sh\nsleep 300 &\necho $! >> " + pids + "\nexec sleep 300\n", 0755);
  write(dir + "/quick/nvcc",
        "#!/bin/sh\nsleep 300 >/dev/null 2>&1 &\necho $! >> " + pids +
            "\necho 'Cuda compilation tools, release 12.9, V12.9.86'\n",
        0755);
  auto alive = [&]() {
    std::ifstream in(pids);
    int n = 0;
    for (pid_t p; in >> p;) {
      // A zombie is gone for our purpose; `kill -0` would still see it.
      std::ifstream st("/proc/" + std::to_string(p) + "/stat");
      std::string line;
      if (std::getline(st, line) && line.find(") Z ") == std::string::npos) ++n;
    }
    return n;
  };
  auto t = read_nvcc_version(dir + "/hang/nvcc", 300);
  ASSERT_FALSE(t);
  EXPECT_NE(t.error().message().find("no answer after 300 ms"), std::string::npos);
  auto q = read_nvcc_version(dir + "/quick/nvcc", 5000);
  ASSERT_TRUE(q) << q.error().message();
  EXPECT_EQ(q->major, 12);
  // SIGKILL is delivered at once, but give the scheduler a moment.
  for (int i = 0; i < 50 && alive() > 0; ++i) ::usleep(20000);
  EXPECT_EQ(alive(), 0);
  fs::remove_all(dir);
}

// The readers `cuwheel matrix --toolkit` shares: one file or one nvcc,
// named in every message.
TEST(IdentityReaders, HeaderAndNvccByPath) {
  std::string dir = make_temp_dir();
  write(dir + "/cuda.h", "#define CUDA_VERSION 12090\n");
  auto h = read_version_header(dir + "/cuda.h", "CUDA_VERSION");
  ASSERT_TRUE(h) << h.error().message();
  EXPECT_EQ(h->major, 12);
  EXPECT_EQ(h->minor, 9);
  EXPECT_EQ(h->source, dir + "/cuda.h");
  write(dir + "/zero.h", "#define CUDA_VERSION 0\n");
  auto z = read_version_header(dir + "/zero.h", "CUDA_VERSION");
  ASSERT_FALSE(z);
  EXPECT_EQ(z.error().message(), dir + "/zero.h: #define CUDA_VERSION 0: not of the form major*1000 + minor*10");
  auto missing = read_version_header(dir + "/none.h", "CUDA_VERSION");
  ASSERT_FALSE(missing);
  EXPECT_NE(missing.error().message().find(dir + "/none.h"), std::string::npos);

  write(dir + "/nvcc", "#!/bin/sh\necho 'Cuda compilation tools, release 13.0, V13.0.88'\n", 0755);
  auto n = read_nvcc_version(dir + "/nvcc", 10000);
  ASSERT_TRUE(n) << n.error().message();
  EXPECT_EQ(n->major, 13);
  EXPECT_EQ(n->source, dir + "/nvcc --version");
  write(dir + "/nvcc", "#!/bin/sh\nexec sleep 30\n", 0755);
  auto slow = read_nvcc_version(dir + "/nvcc", 200);
  ASSERT_FALSE(slow);
  EXPECT_EQ(slow.error().message(), dir + "/nvcc --version: no answer after 200 ms");
  fs::remove_all(dir);
}

TEST(IdentityDetect, NothingFound) {
  ToolkitQuery q;
  q.path_env = "/nonexistent-a:/nonexistent-b";
  auto v = detect_toolkit(q);
  ASSERT_FALSE(v);
  EXPECT_NE(v.error().message().find("no CUDA toolkit found"), std::string::npos);
}

// ---- identities ------------------------------------------------------------

TEST(IdentityMake, CanonicalOrderAndDedup) {
  auto a = make_identity(13, {"debug", "coverage"});
  auto b = make_identity(13, {"Coverage", "debug", "debug"});
  ASSERT_TRUE(a && b);
  EXPECT_EQ(a->str(), "cu13-coverage-debug");
  EXPECT_EQ(*a, *b);
  auto plain = make_identity(12, {});
  ASSERT_TRUE(plain);
  EXPECT_EQ(plain->str(), "cu12");
  auto axes = make_identity(13, {"san=asan", "debug", "opt=O2"});
  ASSERT_TRUE(axes);
  EXPECT_EQ(axes->str(), "cu13-debug-opt=O2-san=asan");
  // Bytewise order: "a1" sorts before "a=x" ('1' < '=').
  auto order = make_identity(13, {"a=x", "a1"});
  ASSERT_TRUE(order);
  EXPECT_EQ(order->str(), "cu13-a1-a=x");
}

TEST(IdentityMake, RejectsBadFlags) {
  EXPECT_FALSE(make_identity(0, {}));
  EXPECT_FALSE(make_identity(1000, {}));
  for (const char* bad : {"", "1debug", "de-bug", "debug=", "=x", "cu12", "opt=a-b", "opt=a/b", "a b"}) {
    auto r = make_identity(13, {bad});
    EXPECT_FALSE(r) << "accepted '" << bad << "'";
    if (!r) {
      EXPECT_NE(r.error().message().find("flag '"), std::string::npos) << r.error().message();
    }
  }
  auto twice = make_identity(13, {"san=asan", "san=ubsan"});
  ASSERT_FALSE(twice);
  EXPECT_EQ(twice.error().message(), "flag 'san' given twice, as 'san=asan' and 'san=ubsan'");
  EXPECT_FALSE(make_identity(13, {"san", "san=asan"}));
  EXPECT_TRUE(make_identity(13, {"cuda_arch=sm_90"}));  // "cu" + letters is fine
}

TEST(IdentityParse, RoundTripsAndRejectsNonCanonical) {
  for (const char* s : {"cu12", "cu13-debug", "cu13-coverage-debug", "cu13-a1-a=x-opt=O2"}) {
    auto p = parse_identity(s);
    ASSERT_TRUE(p) << s << ": " << p.error().message();
    EXPECT_EQ(p->str(), s);
  }
  for (const char* s : {"", "cu", "cu013", "cuda13", "cu13-", "cu13--debug", "cu13-debug-coverage", "cu13-Debug",
                        "cu13-debug-debug", "13", "cu13 debug"}) {
    EXPECT_FALSE(parse_identity(s)) << "accepted '" << s << "'";
  }
  auto two = parse_identity("cu13\ncu12");
  ASSERT_FALSE(two);
  EXPECT_EQ(two.error().message().find("'cu13\\x0acu12' is not a build identity: it has more than one line"), 0u)
      << two.error().message();
  auto esc = parse_identity("cu13-\x1b[2J\xff");
  ASSERT_FALSE(esc);
  EXPECT_EQ(esc.error().message().find("'cu13-\\x1b[2J\\xff' is not a build identity"), 0u) << esc.error().message();
  auto p = parse_identity("cu13-debug-coverage");
  ASSERT_FALSE(p);
  EXPECT_NE(p.error().message().find("canonical: cu13-coverage-debug"), std::string::npos);
}

TEST(IdentityDir, Keyed) {
  auto id = make_identity(13, {"debug"});
  ASSERT_TRUE(id);
  EXPECT_EQ(keyed_dir("build/cython", *id), "build/cython/cu13-debug");
  EXPECT_EQ(keyed_dir("build/cython//", *id), "build/cython/cu13-debug");
  EXPECT_EQ(keyed_dir("", *id), "cu13-debug");
  EXPECT_EQ(keyed_dir("/", *id), "/cu13-debug");
}

TEST(IdentityChanges, Described) {
  auto a = make_identity(12, {"coverage", "san=asan"});
  auto b = make_identity(13, {"debug", "san=ubsan"});
  ASSERT_TRUE(a && b);
  std::vector<std::string> want = {"CUDA major 12 -> 13", "removed coverage", "san: asan -> ubsan", "added debug"};
  EXPECT_EQ(describe_changes(*a, *b), want);
  EXPECT_TRUE(describe_changes(*a, *a).empty());
}

// ---- stamps ----------------------------------------------------------------

TEST(IdentityStamp, MissingMeansRebuild) {
  std::string dir = make_temp_dir();
  auto cur = make_identity(13, {});
  ASSERT_TRUE(cur);
  auto r = check_stamp(dir + "/build/.build-identity", *cur);
  ASSERT_TRUE(r) << r.error().message();
  EXPECT_EQ(r->state, StampCheck::State::kMissing);
  EXPECT_TRUE(r->rebuild());
  EXPECT_NE(r->message.find("configuration is cu13: rebuild"), std::string::npos);
  fs::remove_all(dir);
}

TEST(IdentityStamp, WriteThenMatchThenDiffer) {
  std::string dir = make_temp_dir();
  std::string stamp = dir + "/build/.build-identity";  // parent folder created
  auto cu12 = make_identity(12, {});
  auto cu13 = make_identity(13, {});
  ASSERT_TRUE(cu12 && cu13);
  ASSERT_TRUE(write_stamp(stamp, *cu12));
  auto text = read_whole_file(stamp);
  ASSERT_TRUE(text);
  EXPECT_EQ(*text, "cu12\n");
  auto same = check_stamp(stamp, *cu12);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->state, StampCheck::State::kMatches);
  EXPECT_FALSE(same->rebuild());
  auto diff = check_stamp(stamp, *cu13);
  ASSERT_TRUE(diff);
  EXPECT_EQ(diff->state, StampCheck::State::kDiffers);
  EXPECT_EQ(diff->message, "stamp says cu12, configuration is cu13: rebuild");
  EXPECT_EQ(diff->changes, std::vector<std::string>{"CUDA major 12 -> 13"});
  EXPECT_EQ(diff->recorded, "cu12");
  // No temporary file is left beside the stamp.
  size_t entries = 0;
  for (auto& e : fs::directory_iterator(dir + "/build")) entries += e.is_regular_file();
  EXPECT_EQ(entries, 1u);
  fs::remove_all(dir);
}

TEST(IdentityStamp, MalformedMeansRebuild) {
  std::string dir = make_temp_dir();
  auto cur = make_identity(13, {});
  ASSERT_TRUE(cur);
  write(dir + "/s1", "13\n");
  auto r = check_stamp(dir + "/s1", *cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, StampCheck::State::kMalformed);
  EXPECT_TRUE(r->rebuild());
  EXPECT_NE(r->message.find("is not a build identity"), std::string::npos);
  write(dir + "/s2", std::string("cu13\0x", 6));
  r = check_stamp(dir + "/s2", *cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, StampCheck::State::kMalformed);
  EXPECT_EQ(r->recorded, "cu13\\x00x");
  EXPECT_NE(r->message.find("'cu13\\x00x' is not a build identity: it holds a NUL byte at offset 4"), std::string::npos)
      << r->message;
  EXPECT_EQ(r->message.find('\0'), std::string::npos);
  // Two lines: the whole text is quoted (the first line alone is valid).
  write(dir + "/s3", "cu13\ncu12\n");
  r = check_stamp(dir + "/s3", *cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, StampCheck::State::kMalformed);
  EXPECT_EQ(r->message, dir + "/s3: 'cu13\\x0acu12' is not a build identity: it has more than one line (a line "
                              "break at offset 4; a stamp holds one identity on one line); configuration is cu13: rebuild");
  fs::remove_all(dir);
}

TEST(IdentityStamp, MalformedMessageEscapesEveryQuotedPiece) {
  std::string dir = make_temp_dir();
  auto cur = make_identity(13, {"debug"});
  ASSERT_TRUE(cur);
  // ESC, VT, FF, DEL, a raw C1 byte (not UTF-8) and U+0085 (C1 in UTF-8).
  write(dir + "/s", "cu13-debug\x1b[31m\x0b\x0c\x7f\x85\xc2\x85");
  auto r = check_stamp(dir + "/s", *cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, StampCheck::State::kMalformed);
  EXPECT_EQ(r->message, dir + "/s: 'cu13-debug\\x1b[31m\\x0b\\x0c\\x7f\\x85\\xc2\\x85' is not a build identity: "
                              "flag 'debug\\x1b[31m\\x0b\\x0c\\x7f\\x85\\xc2\\x85': a name has only a-z, 0-9 and "
                              "'_'; configuration is cu13-debug: rebuild");
  for (unsigned char c : r->message) EXPECT_FALSE(c < 0x20 || c == 0x7f || c >= 0x80) << r->message;
  // A flag given on the command line is quoted escaped as well.
  auto bad = make_identity(13, {"de\x1b[2Jbug"});
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().message(), "flag 'de\\x1b[2Jbug': a name has only a-z, 0-9 and '_'");
  fs::remove_all(dir);
}

TEST(IdentityStamp, WhiteSpaceAroundTheIdentityIsIgnored) {
  std::string dir = make_temp_dir();
  auto cur = make_identity(13, {});
  ASSERT_TRUE(cur);
  for (std::string text : {" cu13\n", "\t cu13 \r\n", "\ncu13", "cu13"}) {
    write(dir + "/s", text);
    auto r = check_stamp(dir + "/s", *cur);
    ASSERT_TRUE(r);
    EXPECT_EQ(r->state, StampCheck::State::kMatches) << printable(text) << ": " << r->message;
    EXPECT_EQ(r->recorded, "cu13");
  }
  // White space inside the identity is not ignored.
  write(dir + "/s", "cu13 -debug\n");
  auto r = check_stamp(dir + "/s", *cur);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, StampCheck::State::kMalformed);
  fs::remove_all(dir);
}

TEST(IdentityStamp, UnreadableIsAnError) {
  std::string dir = make_temp_dir();
  auto cur = make_identity(13, {});
  ASSERT_TRUE(cur);
  fs::create_directories(dir + "/stamp-is-a-folder");
  auto r = check_stamp(dir + "/stamp-is-a-folder", *cur);
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message().find("stamp-is-a-folder: not a regular file"), std::string::npos);
  ASSERT_EQ(::mkfifo((dir + "/fifo").c_str(), 0644), 0);  // must not block
  auto fifo = check_stamp(dir + "/fifo", *cur);
  ASSERT_FALSE(fifo);
  EXPECT_NE(fifo.error().message().find("not a regular file"), std::string::npos);
  write(dir + "/big", std::string(8192, 'c'));
  EXPECT_FALSE(check_stamp(dir + "/big", *cur));
  // A stamp whose folder cannot be created.
  write(dir + "/file", "x");
  auto w = write_stamp(dir + "/file/sub/.build-identity", *cur);
  ASSERT_FALSE(w);
  EXPECT_NE(w.error().message().find("cannot create folder"), std::string::npos);
  fs::remove_all(dir);
}

// Hostile text: the parsers read stamps and tool output, so arbitrary bytes
// must give an Error, never a crash; whatever parse_identity accepts is
// canonical (it prints back to the same text).
TEST(IdentityRobustness, ArbitraryBytes) {
  std::mt19937 rng(20260);
  static const char kAlphabet[] = "cu0123456789-=_.adeglbnrsvCDU #\n\t\0\xff";
  const std::string alphabet(kAlphabet, sizeof kAlphabet - 1);
  // Each parser's outcome is a value in range or an Error with a message;
  // both kinds are counted and each occurs.
  constexpr int kRuns = 5000;
  int id_ok = 0, id_err = 0, nvcc_ok = 0, nvcc_err = 0, header_ok = 0, header_err = 0;
  auto in_range = [](const ToolkitVersion& v) { return v.major >= 1 && v.major <= 999 && v.minor >= 0 && v.minor <= 99; };
  for (int i = 0; i < kRuns; ++i) {
    std::string s;
    size_t n = rng() % 24;
    for (size_t k = 0; k < n; ++k) s += alphabet[rng() % alphabet.size()];
    if (i % 3 == 0) s = "cu1" + s;
    auto p = parse_identity(s);
    if (p) {
      EXPECT_EQ(p->str(), s);
      ++id_ok;
    } else {
      EXPECT_FALSE(p.error().message().empty()) << s;
      ++id_err;
    }
    auto v = parse_nvcc_version("release " + s);
    if (v) {
      EXPECT_TRUE(in_range(*v)) << s << ": " << v->major << "." << v->minor;
      ++nvcc_ok;
    } else {
      EXPECT_FALSE(v.error().message().empty()) << s;
      ++nvcc_err;
    }
    auto h = parse_version_header("#define CUDA_VERSION " + s, "CUDA_VERSION");
    if (h) {
      EXPECT_TRUE(in_range(*h)) << s << ": " << h->major << "." << h->minor;
      ++header_ok;
    } else {
      EXPECT_NE(h.error().message().find("CUDA_VERSION"), std::string::npos) << h.error().message();
      ++header_err;
    }
  }
  EXPECT_EQ(id_ok + id_err, kRuns);
  EXPECT_EQ(nvcc_ok + nvcc_err, kRuns);
  EXPECT_EQ(header_ok + header_err, kRuns);
  std::cout << "identity " << id_ok << "/" << id_err << ", nvcc " << nvcc_ok << "/" << nvcc_err << ", header "
            << header_ok << "/" << header_err << " (accepted/refused)\n";
  EXPECT_GT(id_ok, 0);
  EXPECT_GT(id_err, 0);
  EXPECT_GT(nvcc_ok, 0);
  EXPECT_GT(nvcc_err, 0);
  EXPECT_GT(header_ok, 0);
  EXPECT_GT(header_err, 0);
}

}  // namespace
}  // namespace cuwheel::identity
