// cuwheel: owned byte buffers that readers parse.
//
// A Blob owns the bytes of one input (a memory-mapped file, a heap buffer
// holding a decompressed archive member, or a temporary file that a large
// wheel member was spilled to) and exposes them as a ByteView. Parsers take
// ByteViews and never own input; a Blob outlives every view taken from it.
#pragma once

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel {

class Blob {
 public:
  Blob() = default;

  /// Maps `path` read-only (mmap, MAP_PRIVATE). Errors: the file cannot be
  /// opened, is not a regular file, or cannot be mapped; the message names
  /// the path and the system error. A zero-byte file gives an empty Blob.
  static Expected<Blob> map_file(const std::string& path);

  /// Maps the first `size` bytes of an open file descriptor read-only and
  /// takes ownership of `fd` (closed when the Blob dies). Used for
  /// temporary files that large wheel members are streamed into.
  static Expected<Blob> map_fd(int fd, uint64_t size, const std::string& what);

  /// Takes ownership of a heap buffer.
  static Blob from_vector(std::vector<uint8_t> bytes);

  ByteView view() const { return impl_ ? impl_->view : ByteView{}; }
  uint64_t size() const { return view().size(); }

  /// Tells the kernel that [offset, offset+length) will not be read again
  /// soon, so its pages may leave this process's resident set (madvise
  /// MADV_DONTNEED on the 2 MiB blocks the range touches, rounded
  /// outwards). Ranges that lie together are gathered and dropped in one
  /// call once they span 16 MiB or the next range lies elsewhere (one call
  /// per fatbin entry was half the time of listing a 500 MB library), so up
  /// to about 18 MiB of released pages may stay resident until the next
  /// call or the Blob's end. A no-op for heap buffers. Thread-safe. Views
  /// stay valid: the mapping is read-only and private, so a dropped page is
  /// read again from the file on access.
  void release(uint64_t offset, uint64_t length) const;

 private:
  struct Impl {
    ByteView view;
    std::vector<uint8_t> heap;
    void* map = nullptr;
    size_t map_len = 0;
    int fd = -1;
    std::mutex release_mu;                       ///< guards the pending range
    uint64_t pending_begin = 0, pending_end = 0; ///< released, not yet dropped (empty when equal)
    ~Impl();
  };
  std::shared_ptr<Impl> impl_;
};

/// Creates an anonymous temporary file (O_TMPFILE in $TMPDIR or /tmp, so it
/// vanishes when closed) and returns its descriptor.
Expected<int> make_temp_file();

}  // namespace cuwheel
