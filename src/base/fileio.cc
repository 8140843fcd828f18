#include "cuwheel/base/fileio.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <vector>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>

namespace cuwheel {

namespace {
std::string errno_text(int e) { return std::strerror(e); }
}  // namespace

Expected<std::string> read_whole_file(const std::string& path, size_t max_bytes) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return Error(path + ": cannot open: " + errno_text(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    return Error(path + ": not a regular file");
  }
  if (static_cast<uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    return Error(path + ": larger than " + std::to_string(max_bytes) + " bytes");
  }
  std::string out;
  out.resize(static_cast<size_t>(st.st_size));
  size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(fd, out.data() + got, out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Error(path + ": read error at offset " + std::to_string(got) + ": " + errno_text(e));
    }
    if (n == 0) break;  // file shrank while reading
    got += static_cast<size_t>(n);
  }
  out.resize(got);
  ::close(fd);
  return out;
}

Expected<std::string> read_file_or_pipe(const std::string& path, size_t max_bytes) {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return Error(path + ": cannot open: " + errno_text(errno));
  if (S_ISREG(st.st_mode)) return read_whole_file(path, max_bytes);
  if (!S_ISFIFO(st.st_mode) && !S_ISCHR(st.st_mode)) return Error(path + ": not a regular file or pipe");
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return Error(path + ": cannot open: " + errno_text(errno));
  std::string out;
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int e = errno;
      ::close(fd);
      return Error(path + ": read error at offset " + std::to_string(out.size()) + ": " + errno_text(e));
    }
    if (n == 0) break;
    if (out.size() + static_cast<size_t>(n) > max_bytes) {
      ::close(fd);
      return Error(path + ": larger than " + std::to_string(max_bytes) + " bytes");
    }
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

Expected<AtomicFile> AtomicFile::create(const std::string& path, unsigned mode) {
  static std::atomic<unsigned> counter{0};
  std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(counter++);
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd < 0) return Error(path + ": cannot create " + tmp + ": " + errno_text(errno));
  return AtomicFile(path, std::move(tmp), fd);
}

AtomicFile::AtomicFile(AtomicFile&& o) noexcept : path_(std::move(o.path_)), tmp_(std::move(o.tmp_)), fd_(o.fd_) {
  o.fd_ = -1;
  o.tmp_.clear();
}

AtomicFile::~AtomicFile() {
  if (fd_ >= 0) ::close(fd_);
  if (!tmp_.empty()) ::unlink(tmp_.c_str());
}

Status AtomicFile::commit() {
  const int fd = fd_;
  fd_ = -1;  // closed below, whatever happens
  auto fail = [&](const char* what, int e) -> Status {
    ::unlink(tmp_.c_str());
    tmp_.clear();
    return Error(path_ + ": " + what + " failed: " + errno_text(e));
  };
  if (::fsync(fd) != 0) {
    int e = errno;
    ::close(fd);
    return fail("fsync", e);
  }
  if (::close(fd) != 0) return fail("close", errno);
  if (::rename(tmp_.c_str(), path_.c_str()) != 0) return fail("rename", errno);
  tmp_.clear();
  return Ok{};
}

Status write_file_atomic(const std::string& path, std::string_view data, unsigned mode) {
  auto out = AtomicFile::create(path, mode);
  if (!out) return out.error();
  size_t put = 0;
  while (put < data.size()) {
    ssize_t n = ::write(out->fd(), data.data() + put, data.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(path + ": write failed: " + errno_text(errno));  // ~AtomicFile removes it
    put += static_cast<size_t>(n);
  }
  return out->commit();
}

namespace {

Status write_through(int fd, const std::string& path, std::string_view data) {
  size_t put = 0;
  while (put < data.size()) {
    ssize_t n = ::write(fd, data.data() + put, data.size() - put);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return Error(path + ": write failed: " + errno_text(errno));
    put += static_cast<size_t>(n);
  }
  return Ok{};
}

}  // namespace

namespace {

// The standard stream (1 or 2) that `st` is, or -1: /dev/stdout,
// /proc/self/fd/1, or the very file the shell redirected stdout to.
int same_as_std_stream(const struct stat& st) {
  for (int fd : {STDOUT_FILENO, STDERR_FILENO}) {
    struct stat fs {};
    if (::fstat(fd, &fs) == 0 && fs.st_dev == st.st_dev && fs.st_ino == st.st_ino) return fd;
  }
  return -1;
}

}  // namespace

bool names_standard_output(const std::string& path) {
  if (path == "-") return true;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return false;
  struct stat out {};
  return ::fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st.st_dev && out.st_ino == st.st_ino;
}

namespace {

Status to_stream(int fd, std::string_view data) {
  // What the caller printed through iostreams or stdio comes first.
  std::cout.flush();
  std::cerr.flush();
  std::fflush(stdout);
  return write_through(fd, fd == STDOUT_FILENO ? "standard output" : "standard error", data);
}

}  // namespace

Status write_output(const std::string& path, std::string_view data, unsigned mode) {
  if (path == "-") return to_stream(STDOUT_FILENO, data);
  struct stat ls {};
  if (::lstat(path.c_str(), &ls) != 0) {
    if (errno == ENOENT) return write_file_atomic(path, data, mode);
    return Error(path + ": cannot inspect: " + errno_text(errno));
  }
  struct stat st = ls;
  if (S_ISLNK(ls.st_mode) && ::stat(path.c_str(), &st) != 0) {
    if (errno == ELOOP) return Error(path + ": a loop of symbolic links; refusing to replace it");
    return Error(path + ": a symbolic link to nothing (" + errno_text(errno) + "); refusing to replace it");
  }
  // /dev/stdout, /proc/self/fd/1 or the file stdout is redirected to: write
  // to the stream itself, at its offset (`>> log` keeps what is there).
  if (int fd = same_as_std_stream(st); fd >= 0) return to_stream(fd, data);
  if (S_ISFIFO(st.st_mode) || S_ISCHR(st.st_mode)) {
    // Opening a FIFO blocks until a reader opens it, as `echo > fifo` does.
    int fd = ::open(path.c_str(), O_WRONLY | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) return Error(path + ": cannot open for writing: " + errno_text(errno));
    Status w = write_through(fd, path, data);
    if (::close(fd) != 0 && w) return Error(path + ": close failed: " + errno_text(errno));
    return w;
  }
  if (S_ISREG(st.st_mode)) {
    std::string target = path;
    if (S_ISLNK(ls.st_mode)) {
      char* real = ::realpath(path.c_str(), nullptr);
      if (!real) return Error(path + ": cannot resolve the link: " + errno_text(errno));
      target = real;
      std::free(real);
    }
    // The replacement keeps the permission bits of the file it replaces.
    return write_file_atomic(target, data, st.st_mode & 07777);
  }
  if (S_ISBLK(st.st_mode)) return Error(path + ": a block device; refusing to write an output there");
  if (S_ISDIR(st.st_mode)) return Error(path + ": a folder, not a file");
  return Error(path + ": not a regular file, pipe or character device; refusing to replace it");
}

bool remove_stale_output(const std::string& path) {
  if (path.empty() || path == "-") return false;
  struct stat ls {}, st {};
  if (::lstat(path.c_str(), &ls) != 0 || ::stat(path.c_str(), &st) != 0) return false;
  if (!S_ISREG(st.st_mode) || same_as_std_stream(st) >= 0) return false;
  std::string target = path;
  if (S_ISLNK(ls.st_mode)) {
    char* real = ::realpath(path.c_str(), nullptr);
    if (!real) return false;
    target = real;
    std::free(real);
  }
  return ::unlink(target.c_str()) == 0;
}

Status pwrite_all(int fd, uint64_t offset, const uint8_t* data, size_t n, const std::string& what) {
  while (n) {
    ssize_t w = ::pwrite(fd, data, n, static_cast<off_t>(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return Error(what + ": write: " + std::strerror(errno));
    data += w;
    offset += static_cast<uint64_t>(w);
    n -= static_cast<size_t>(w);
  }
  return Ok{};
}

Status copy_file_bytes(int src, uint64_t from, int dst, uint64_t to, uint64_t n, const std::string& what) {
  loff_t ri = static_cast<loff_t>(from), wi = static_cast<loff_t>(to);
  while (n) {
    ssize_t c = ::copy_file_range(src, &ri, dst, &wi, n, 0);
    if (c < 0 && errno == EINTR) continue;
    if (c <= 0) break;  // not supported here (or the source ended): the rest by hand
    n -= static_cast<uint64_t>(c);
  }
  std::vector<uint8_t> buf(n ? (1u << 20) : 0);
  while (n) {
    ssize_t r = ::pread(src, buf.data(), std::min<uint64_t>(buf.size(), n), ri);
    if (r < 0 && errno == EINTR) continue;
    if (r < 0) return Error(what + ": read: " + std::strerror(errno));
    if (r == 0) return Error(what + ": read: the file ended " + std::to_string(n) + " bytes early");
    if (auto s = pwrite_all(dst, static_cast<uint64_t>(wi), buf.data(), static_cast<size_t>(r), what); !s) return s;
    ri += r;
    wi += r;
    n -= static_cast<uint64_t>(r);
  }
  return Ok{};
}

}  // namespace cuwheel
