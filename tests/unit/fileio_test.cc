// write_output: what an output name the user gave points at is written
// through or replaced atomically, never renamed over (issue: `-o
// /dev/stdout` as root replaced the device node).
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <thread>

#include "cuwheel/base/fileio.h"
#include "temp_dir.h"

namespace cuwheel {
namespace {

std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(WriteOutput, NewAndRegularFilesAreReplacedAtomically) {
  test::TempDir t;
  const auto f = t / "out.txt";
  ASSERT_TRUE(write_output(f.string(), "one\n"));
  EXPECT_EQ(slurp(f), "one\n");
  ASSERT_TRUE(write_output(f.string(), "two\n"));
  EXPECT_EQ(slurp(f), "two\n");
  // No temporary file left beside it.
  size_t n = 0;
  for (const auto& e : std::filesystem::directory_iterator(t.path())) n += e.is_regular_file();
  EXPECT_EQ(n, 1u);
}

TEST(WriteOutput, SymlinkStaysAndItsTargetIsWritten) {
  test::TempDir t;
  const auto target = t / "real.txt";
  const auto link = t / "link.txt";
  { std::ofstream(target) << "old\n"; }
  std::filesystem::create_symlink(target, link);
  ASSERT_TRUE(write_output(link.string(), "new\n"));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  EXPECT_EQ(slurp(target), "new\n");
}

TEST(WriteOutput, DanglingSymlinkIsRefused) {
  test::TempDir t;
  const auto link = t / "dangling";
  std::filesystem::create_symlink(t / "nowhere", link);
  auto st = write_output(link.string(), "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("symbolic link to nothing"), std::string::npos) << st.error().message();
  EXPECT_TRUE(std::filesystem::is_symlink(link));
}

TEST(WriteOutput, CharacterDeviceIsWrittenThroughNotReplaced) {
  ASSERT_TRUE(write_output("/dev/null", "discarded\n"));
  struct stat st {};
  ASSERT_EQ(::stat("/dev/null", &st), 0);
  EXPECT_TRUE(S_ISCHR(st.st_mode));
}

TEST(WriteOutput, FifoIsWrittenThrough) {
  test::TempDir t;
  const auto fifo = t / "pipe";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::string got;
  std::thread reader([&] { got = slurp(fifo); });
  auto st = write_output(fifo.string(), "through the pipe\n");
  reader.join();
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ(got, "through the pipe\n");
  struct stat s {};
  ASSERT_EQ(::lstat(fifo.c_str(), &s), 0);
  EXPECT_TRUE(S_ISFIFO(s.st_mode));
}

TEST(WriteOutput, FolderIsRefused) {
  test::TempDir t;
  auto st = write_output(t.str(), "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("a folder"), std::string::npos);
}

TEST(WriteOutput, DashIsStandardOutput) {
  testing::internal::CaptureStdout();
  auto st = write_output("-", "to stdout\n");
  std::string out = testing::internal::GetCapturedStdout();
  ASSERT_TRUE(st);
  EXPECT_EQ(out, "to stdout\n");
}


TEST(WriteOutput, ReplacedFileKeepsItsPermissionBits) {
  test::TempDir t;
  const auto f = t / "private.txt";
  { std::ofstream(f) << "old\n"; }
  ASSERT_EQ(::chmod(f.c_str(), 0600), 0);
  ASSERT_TRUE(write_output(f.string(), "new\n"));
  struct stat st {};
  ASSERT_EQ(::stat(f.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(WriteOutput, TheFileStdoutIsRedirectedToIsAppendedAtItsOffset) {
  // `cuwheel ... -o /dev/stdout >> log`: the log keeps its first line.
  test::TempDir t;
  const auto log = t / "log.txt";
  { std::ofstream(log) << "line1\n"; }
  std::cout.flush();
  int saved = ::dup(STDOUT_FILENO);
  int fd = ::open(log.c_str(), O_WRONLY | O_APPEND);
  ASSERT_GE(fd, 0);
  ::dup2(fd, STDOUT_FILENO);
  ::close(fd);
  auto st = write_output(log.string(), "line2\n");
  ::dup2(saved, STDOUT_FILENO);
  ::close(saved);
  ASSERT_TRUE(st) << st.error().message();
  EXPECT_EQ(slurp(log), "line1\nline2\n");
}

TEST(WriteOutput, SymlinkLoopIsNamedSo) {
  test::TempDir t;
  std::filesystem::create_symlink(t / "b", t / "a");
  std::filesystem::create_symlink(t / "a", t / "b");
  auto st = write_output((t / "a").string(), "x");
  ASSERT_FALSE(st);
  EXPECT_NE(st.error().message().find("loop"), std::string::npos) << st.error().message();
}

TEST(RemoveStaleOutput, RemovesTheTargetKeepsLinksNeverStreamsOrDash) {
  test::TempDir t;
  const auto real = t / "real.txt";
  const auto link = t / "link.txt";
  { std::ofstream(real) << "stale\n"; }
  std::filesystem::create_symlink(real, link);
  EXPECT_TRUE(remove_stale_output(link.string()));
  EXPECT_FALSE(std::filesystem::exists(real));
  EXPECT_TRUE(std::filesystem::is_symlink(link));
  const auto dash = t / "-";
  { std::ofstream(dash) << "precious\n"; }
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(t.path());
  EXPECT_FALSE(remove_stale_output("-"));
  EXPECT_TRUE(std::filesystem::exists(dash));
  std::filesystem::current_path(cwd);
  EXPECT_FALSE(remove_stale_output("/dev/null"));
  EXPECT_FALSE(remove_stale_output("/dev/stdout"));
}

}  // namespace
}  // namespace cuwheel
