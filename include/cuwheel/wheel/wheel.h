// cuwheel: reading a wheel (a zip archive) without extracting it.
//
// Format: PEP 427 / PEP 491 ("Binary distribution format") on top of the
// zip format of PKWARE's APPNOTE.TXT (6.3.x), including zip64 (APPNOTE
// 4.3.14-4.3.15, 4.5.3) and data descriptors (4.3.9). Decompression and CRC
// checks are libzip's; the central directory is also parsed here (APPNOTE
// 4.3.12, 4.3.16), because libzip does not expose local header offsets or
// raw name bytes, and both must agree entry by entry or open() fails.
//
// Nothing here trusts the archive:
//   * member names are data, never filesystem paths; suspicious ones
//     (absolute, `..`, backslashes, control bytes, duplicates, names that
//     differ only in case, a local header naming another file) are flagged
//     in ZipMember::issues for the check rules to report;
//   * declared sizes are checked before reading (WheelLimits: per-member
//     size, compression ratio, total bytes decompressed) and never trusted
//     while reading: output past the declared uncompressed size, or short
//     of it, is an error;
//   * member content goes to memory only up to a threshold; larger members
//     are streamed into an anonymous temporary file and mapped, so peak
//     memory does not grow with member size.
//
// A Wheel is not thread-safe, with two exceptions: read_admitted() may run
// on several threads at once for members that were admitted (see
// admit_read()), and admit_read() and peek() may run beside them.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/digest.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/base/source.h"

namespace cuwheel {

/// Resource limits for reading members. All sizes are in bytes.
struct WheelLimits {
  /// Members whose declared uncompressed size is at most this are read into
  /// memory; larger ones are streamed to a temporary file and mapped.
  uint64_t in_memory_threshold = 16ull << 20;
  /// Largest declared uncompressed size of one member that will be read.
  uint64_t max_member_size = 8ull << 30;
  /// Most bytes one Wheel object will decompress in total (all reads and
  /// peeks): max_total_ratio times the archive's size, at least
  /// total_ratio_floor, at most max_total_read. Real wheels inflate to 1.0
  /// to 5.8 times their size (26 CUDA wheels from PyPI, docs/limits.md);
  /// without overlapping members (refused at open) deflate reaches at most
  /// about 1032 times.
  uint64_t max_total_read = 64ull << 30;
  uint64_t max_total_ratio = 64;
  uint64_t total_ratio_floor = 1ull << 30;
  /// Largest declared uncompressed/compressed ratio accepted for members
  /// larger than ratio_min_size. Deflate cannot exceed about 1032:1, so
  /// anything above this is a crafted archive.
  uint64_t max_ratio = 1100;
  uint64_t ratio_min_size = 1ull << 20;
  /// Most central directory entries / bytes accepted.
  uint64_t max_members = 1ull << 20;
  uint64_t max_central_directory = 512ull << 20;
  /// Size of the buffer zip_fread() fills at a time when streaming.
  uint64_t chunk_size = 1ull << 20;
};

/// Problems with a member's name or headers, as bit flags (ZipMember::issues).
enum MemberIssue : uint32_t {
  kIssueEmptyName = 1u << 0,       ///< the name is empty
  kIssueAbsolute = 1u << 1,        ///< starts with '/' or '\\' or a drive letter ("C:")
  kIssueDotDot = 1u << 2,          ///< a path component is ".."
  kIssueBackslash = 1u << 3,       ///< contains '\\' (a separator on Windows)
  kIssueControlChar = 1u << 4,     ///< a byte below 0x20, or 0x7f
  kIssueDuplicate = 1u << 5,       ///< another member has exactly this name
  kIssueCaseCollision = 1u << 6,   ///< another member's name differs only in ASCII case
  kIssueLocalNameMismatch = 1u << 7,  ///< the local header names a different file
  kIssueBadLocalHeader = 1u << 8,  ///< the local header is out of bounds or lacks its signature
};

/// Names the set bits of `issues`, comma-separated ("absolute,dot-dot").
std::string describe_issues(uint32_t issues);

/// One central directory entry.
struct ZipMember {
  uint64_t index = 0;              ///< position in the central directory (libzip index)
  std::string name;                ///< raw name bytes as stored; print with printable()
  uint64_t compressed_size = 0;    ///< declared, bytes
  uint64_t uncompressed_size = 0;  ///< declared, bytes
  uint16_t method = 0;             ///< APPNOTE 4.4.5: 0 stored, 8 deflate, ...
  uint16_t flags = 0;              ///< general purpose bit flag (APPNOTE 4.4.4)
  uint32_t crc32 = 0;              ///< declared CRC-32
  uint64_t local_header_offset = 0;  ///< byte offset of the local file header
  bool is_dir = false;             ///< the name ends with '/'
  bool zip64 = false;              ///< a size or the offset came from a zip64 extra field
  uint32_t issues = 0;             ///< MemberIssue bits
  /// Unix permission bits of the external attributes (APPNOTE 4.4.15) when
  /// "version made by" names Unix (4.4.2, host 3); 0 when not given.
  uint32_t unix_mode = 0;

  bool encrypted() const { return flags & 0x1; }
  bool has_data_descriptor() const { return flags & 0x8; }
};

/// An open wheel. Move-only.
class Wheel {
 public:
  /// Opens the zip archive at `path` and reads its central directory.
  /// Errors (each message starts with `path`): the file cannot be opened or
  /// is not a regular file; no end of central directory record; a zip64
  /// locator or record that is truncated or lacks its signature; a central
  /// directory out of bounds, larger than the limits, or with an entry
  /// that is truncated or lacks its signature (the message gives its
  /// offset); a multi-disk archive; libzip refusing the archive; libzip and
  /// this parser disagreeing on the entries.
  static Expected<Wheel> open(const std::string& path, const WheelLimits& limits = {});

  /// The same over bytes already in memory (tests, fuzzers); `display_name`
  /// stands in for the path in messages. The Blob is kept alive.
  static Expected<Wheel> open_memory(Blob bytes, std::string display_name,
                                     const WheelLimits& limits = {});

  Wheel(Wheel&&) noexcept;
  Wheel& operator=(Wheel&&) noexcept;
  ~Wheel();

  /// The path (or display name) given to open.
  const std::string& path() const;
  /// Size of the archive, bytes.
  uint64_t archive_size() const;
  /// The limits the wheel was opened with.
  const WheelLimits& limits() const;
  /// The most bytes this wheel may decompress in all (WheelLimits).
  uint64_t total_read_limit() const;
  /// The central directory entries, in order.
  const std::vector<ZipMember>& members() const;
  /// The first member named exactly `name`, or nullptr.
  const ZipMember* find(std::string_view name) const;

  /// Reads and decompresses a whole member, checking its CRC-32 against
  /// the central directory's: stored and deflate members with ISA-L
  /// (igzip), straight from the archive bytes; other methods with libzip. Returns a heap Blob when the declared size is at most
  /// limits.in_memory_threshold, else a Blob mapping an anonymous temporary
  /// file filled in limits.chunk_size pieces. Errors (messages name the
  /// wheel, the member and its local header offset): encrypted member;
  /// declared size above max_member_size; declared ratio above max_ratio;
  /// max_total_read would be exceeded; unsupported method or corrupt data
  /// (ISA-L's error code and the output offset, or libzip's message); a
  /// deflate stream that ends before its last block; CRC mismatch; more data than the declared
  /// uncompressed size (reading stops one byte past it) or less; temporary
  /// file errors.
  ///
  /// `digest`, when given, is fed every decompressed byte in order while
  /// the member is decoded (the bytes are hashed while still in cache, not
  /// read back from the Blob); its value means something only when read()
  /// succeeds.
  Expected<Blob> read(const ZipMember& member, Digest* digest = nullptr);

  /// read() in its two steps, for a caller that decodes members on several
  /// threads. admit_read() checks the member against the limits (encrypted,
  /// max_member_size, max_ratio, and the wheel's total: its declared size
  /// is counted toward total_read() at once, whether the decoding later
  /// succeeds or not), with read()'s errors; call it in the order members
  /// are wanted, so that which member a limit refuses does not depend on
  /// the threads' timing. read_admitted() then decodes an admitted member,
  /// with read()'s other errors; calls for different members may run at
  /// the same time (the archive is read with pread; members of methods
  /// other than stored and deflate go through libzip one at a time).
  Status admit_read(const ZipMember& member);
  Expected<Blob> read_admitted(const ZipMember& member, Digest* digest = nullptr);

  /// The file offset of a member's compressed data: after its local header,
  /// whose name and extra-field lengths may differ from the central
  /// directory's (APPNOTE 4.3.7). Errors: no local header there; data that
  /// runs past the end of the archive.
  Expected<uint64_t> data_offset(const ZipMember& member) const;
  /// True when the wheel was opened from a file (open()), so that path()
  /// names the file its members' bytes are in.
  bool file_backed() const;

  /// Reads at most the first `n` bytes of a member (fewer when the member
  /// is shorter), decompressing only what that needs. The CRC is not
  /// checked (the member is not read to its end). Errors as read(), except
  /// size and ratio limits, which do not apply.
  Expected<std::vector<uint8_t>> peek(const ZipMember& member, uint64_t n);

  /// Bytes decompressed so far by read() and peek(), where an admitted read
  /// counts its declared size (admit_read()).
  uint64_t total_read() const;

 private:
  Expected<Blob> read_isal(const ZipMember& member, bool spill, Digest* digest);
  struct Impl;
  explicit Wheel(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace cuwheel
