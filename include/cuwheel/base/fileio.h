// Small file helpers shared by the subcommands that write outputs.
//
// The tool never modifies its inputs, and every output it writes appears
// whole or not at all: write_file_atomic writes a temporary file in the
// destination's folder, flushes it to disk (fsync) and renames it over the
// destination (rename(2) is atomic within one file system, POSIX.1-2017).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "cuwheel/base/expected.h"

namespace cuwheel {

/// Reads the whole regular file at `path`. Errors (naming the path): cannot
/// open, not a regular file, read error, larger than `max_bytes` bytes.
Expected<std::string> read_whole_file(const std::string& path, size_t max_bytes = size_t{1} << 30);

/// As read_whole_file, but also reads a FIFO or character device to its end
/// (a shell's process substitution, `<(generate-matrix.py)`, is a pipe at
/// /dev/fd/N). Only for inputs a user names explicitly: reading a FIFO
/// blocks until its writer closes it. Errors: as read_whole_file (a folder
/// or socket is "not a regular file or pipe").
Expected<std::string> read_file_or_pipe(const std::string& path, size_t max_bytes = size_t{1} << 30);

/// Writes `data` to `path` atomically: "<path>.tmp.<pid>.<n>" in the same
/// folder, fsync, rename. `mode` is the new file's permission bits (subject
/// to the umask). On any failure the temporary file is removed and `path`
/// is left as it was. Errors name the path and the failing call.
Status write_file_atomic(const std::string& path, std::string_view data, unsigned mode = 0644);

/// Writes an output the user named (`-o FILE`, `--stamp FILE`, a lock
/// file): "-" is standard output, and so is a name that is the same file as
/// standard output or error (/dev/stdout, /proc/self/fd/1, the file the
/// shell redirected stdout to): written at the stream's offset, so `>> log`
/// keeps what is there. A name that does not exist or is a regular file is
/// written with write_file_atomic, keeping the replaced file's permission
/// bits; a symbolic link is followed and what it resolves to is written the
/// same way (the link stays); a FIFO or character device is written
/// through, never replaced (opening a FIFO blocks until a reader opens it,
/// as a shell redirection does). Errors name the path: a block device, a
/// folder, a socket, a dangling link or a loop of links is refused, and the
/// failing call otherwise.
Status write_output(const std::string& path, std::string_view data, unsigned mode = 0644);

/// True when write_output(path) would write to standard output: "-", or a
/// name that is the same file as standard output (/dev/stdout,
/// /dev/fd/1, /proc/self/fd/1, the file the shell redirected stdout to),
/// compared by device and inode.
bool names_standard_output(const std::string& path);

/// Removes the result an earlier run left at an output name, so that it
/// cannot pass for a failed run's: the regular file `path` names (through
/// a symbolic link: the file it resolves to; the link stays). Never "-",
/// a device, a FIFO, or the file standard output or error is. True when a
/// file was removed.
bool remove_stale_output(const std::string& path);

/// An output file written through a descriptor and published whole: it is
/// created as "<path>.tmp.<pid>.<n>" in the destination's folder (O_EXCL,
/// permission bits `mode` under the umask); commit() flushes it (fsync),
/// closes it and renames it over `path`; destroyed without a commit, it is
/// closed and removed, so a failure leaves `path` as it was. Move-only.
class AtomicFile {
 public:
  /// Errors: "<path>: cannot create <temporary path>: <errno text>".
  static Expected<AtomicFile> create(const std::string& path, unsigned mode = 0644);
  AtomicFile(AtomicFile&& other) noexcept;
  AtomicFile& operator=(AtomicFile&&) = delete;
  ~AtomicFile();

  int fd() const { return fd_; }
  const std::string& path() const { return path_; }
  const std::string& temp_path() const { return tmp_; }
  /// Errors: "<path>: fsync failed: ...", "close failed", "rename failed";
  /// the temporary file is removed.
  Status commit();

 private:
  AtomicFile(std::string path, std::string tmp, int fd) : path_(std::move(path)), tmp_(std::move(tmp)), fd_(fd) {}
  std::string path_, tmp_;
  int fd_ = -1;
};

/// Writes `n` bytes of `data` at file offset `offset` of `fd` (pwrite,
/// retried after EINTR and short writes). Errors: "<what>: write: <errno
/// text>".
Status pwrite_all(int fd, uint64_t offset, const uint8_t* data, size_t n, const std::string& what);

/// Copies `n` bytes from offset `from` of `src` to offset `to` of `dst`:
/// by the kernel (copy_file_range) as far as it goes, the rest by pread
/// and pwrite in 1 MiB pieces, so memory stays flat whatever `n`. Errors:
/// "<what>: read: ..." (also when `src` ends early) or "<what>: write: ...".
Status copy_file_bytes(int src, uint64_t from, int dst, uint64_t to, uint64_t n, const std::string& what);

}  // namespace cuwheel
