// cuwheel: NVIDIA fat binary reader.
//
// A fat binary ("fatbin") is a sequence of containers; each container holds
// entries (PTX text, cubin ELF, LTO-IR, ...), each with a fixed 64-byte
// header. Facts and section numbers below refer to the project's format
// notes (fatbin-format.md); every size read from input is bounds-checked, and
// a walk never loops: each step advances by at least one header.
//
// Host binaries reference containers through 24-byte wrapper records in
// `.nvFatBinSegment` (16 bytes on 32-bit hosts); find_in_elf() follows them
// the way cuobjdump does (section 1.4) and also walks `.nv_fatbin` and
// `__nv_relfatbin` directly, so containers that no wrapper references are
// still seen (and reported as such).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/object/elf.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::fatbin {

inline constexpr uint32_t kWrapperMagic = 0x466243B1;    ///< section 1.2
inline constexpr uint32_t kContainerMagic = 0xBA55ED50;  ///< section 2
inline constexpr uint64_t kContainerHeaderSize = 16;     ///< section 2
inline constexpr uint64_t kEntryHeaderSize = 0x40;       ///< section 3

/// Entry kinds (section 3, "Kinds").
enum Kind : uint16_t {
  kPtx = 1,
  kElf = 2,
  kOldCubin = 4,
  kLtoIr = 8,
  kMercury = 0x10,
  kIndex = 0x20,
  kRelocatablePtx = 0x40,
  kTileIr = 0x80,
  kConcatenated = 0x100,
};

/// Entry flag bits (section 3, "Flags").
inline constexpr uint64_t kFlag64Bit = 0x1, kFlagDebug = 0x2, kFlagLinux = 0x10, kFlagMac = 0x20,
                          kFlagWindows = 0x40, kFlagCompressLegacy = 0x1000, kFlagLz4 = 0x2000,
                          kFlagZstd = 0x8000, kFlagArchA = 0x100000, kFlagArchF = 0x200000;

enum class Compression { none, lz4, zstd, legacy };

/// One entry header plus the views of its strings and stored payload.
struct Entry {
  uint64_t offset = 0;           ///< file offset of the entry header (bytes)
  uint16_t kind = 0;
  uint16_t version = 0;          ///< 0x0101 in every known producer
  uint32_t header_size = 0;      ///< 0x40 + string area; payload at offset + header_size
  uint64_t payload_size = 0;     ///< stored (padded) payload bytes; next entry at +header_size+this
  uint32_t compressed_size = 0;  ///< compressed stream bytes, 0 when stored raw
  uint32_t options_offset = 0;   ///< ptxas-options descriptor offset from entry start, 0 = none
  uint16_t code_minor = 0, code_major = 0;  ///< PTX ISA version for PTX; ELF ABI era for cubins
  uint32_t arch = 0;             ///< decimal SM number (80, 90, 100, ...)
  uint32_t ident_offset = 0, ident_size = 0;
  uint64_t flags = 0;
  uint64_t okey = 0;             ///< obfuscation key (BCD), normally 0
  uint64_t uncompressed_size = 0;  ///< expected output size of decompression; 0 when raw
  std::string identifier;        ///< source path recorded by nvcc -G / fatbinary --ident
  std::string ptxas_options;
  ByteView stored;               ///< exactly the bytes to decode: compressed_size bytes when compressed

  Compression compression() const;
  bool arch_a() const { return flags & kFlagArchA; }
  bool arch_f() const { return flags & kFlagArchF; }
  /// "sm_90a"-style name from the header alone: number plus a/f suffix.
  std::string arch_name() const;
};

/// A name for an entry kind: "ptx", "elf", "ltoir", "old-cubin", "mercury",
/// "index", "relocatable-ptx", "tile-ir", "concatenated", or "kind-0xNN".
std::string kind_name(uint16_t kind);

struct Container {
  uint64_t offset = 0;    ///< file offset of the container header
  uint64_t fat_size = 0;  ///< bytes of entries after the 16-byte header
  std::vector<Entry> entries;
  uint64_t end() const { return offset + kContainerHeaderSize + fat_size; }
};

/// Parses the container whose header is at `data[pos]`. `base` is the file
/// offset of data[0], added to every reported offset. The container must lie
/// inside `data`. Entries are read until the end of the container; an entry
/// whose 64-byte header does not fit, whose header_size < 0x40, whose
/// strings lie outside its header, or whose payload overruns the container
/// ends the walk with an Error naming the entry offset (cuobjdump rejects
/// these too, section 2 "Where readers disagree").
Expected<Container> parse_container(ByteView data, uint64_t pos, uint64_t base);

/// Walks back-to-back containers filling `region` (a `.nv_fatbin` or
/// `__nv_relfatbin` section, or a raw .fatbin file). Zero padding up to the
/// next 8-byte boundary between containers is skipped. Errors name the
/// offset of the first unreadable container; containers read before it are
/// returned through `partial` when non-null.
///
/// `hooks` (optional): `known(offset)` true means the container at that file
/// offset was read already and is stepped over by its 16-byte header alone
/// (not returned); `parsed` is called with each container's bytes once read.
struct RegionHooks {
  std::function<bool(uint64_t offset)> known;
  std::function<void(ByteView)> parsed;
};
Expected<std::vector<Container>> parse_region(ByteView region, uint64_t base,
                                              std::vector<Container>* partial = nullptr,
                                              const RegionHooks* hooks = nullptr);

/// Strict scan for containers in arbitrary bytes (section 1.6): a hit needs
/// version 1, header size 0x10, fat_size that fits, and a sane first entry.
/// Used for ELF files without section headers.
std::vector<Container> scan(ByteView bytes, uint64_t base);

/// Where a container was found in a host ELF file.
enum class Origin {
  executable,   ///< `.nv_fatbin` (whole-program or device-linked code)
  relocatable,  ///< `__nv_relfatbin` (-rdc objects)
  other,        ///< any other section, or found by scanning
  /// Found by a strict scan of another allocated, non-executable section
  /// (`.ldata`, `.rodata`, ...): device code the library hands to the
  /// driver itself (libcufft.so.12 keeps about 24,000 containers in
  /// `.ldata`). cuobjdump does not list these.
  data,
};

struct Located {
  Origin origin = Origin::other;
  std::string section;       ///< section name, "" when found by scanning
  bool via_wrapper = false;  ///< referenced by a `.nvFatBinSegment` record
  Container container;
};

/// Every fatbin container of a host ELF file, in the order cuobjdump lists
/// them: containers referenced by wrapper records first, in record order;
/// then (with `via_wrapper == false`) containers found only by walking the
/// fatbin sections or, without section headers, by scanning loaded segments;
/// last, containers found by a strict scan (scan()) of every other
/// allocated, non-executable SHT_PROGBITS section (Origin::data), in
/// section order.
/// Errors: a wrapper pointer that lands outside the file or on something that
/// is not a container, an unreadable fatbin section. Unusual but readable
/// cases (symbolic wrapper pointers, version-2 wrappers, unreferenced
/// containers) go to `warnings`.
///
/// When `stopped` is non-null, a wrapper that leads to an unreadable
/// container does not fail the call: the walk stops there (as cuobjdump's
/// does), the error is stored in `*stopped`, and the containers read before
/// it are returned.
///
/// `parsed`, when set, is called with each container's bytes right after
/// its headers are read, so a caller can let the pages go (Blob::release).
///
/// `data_sections` false skips step 3 (the scan of other allocated data
/// sections for unreferenced containers), which cuobjdump never lists.
Expected<std::vector<Located>> find_in_elf(const elf::File& file, WarningSink* warnings,
                                           std::optional<Error>* stopped = nullptr,
                                           const std::function<void(ByteView)>& parsed = {},
                                           bool data_sections = true);

/// Decodes an entry's payload: the stored bytes when raw, else LZ4 (raw
/// block) or ZSTD (frame) decompression of exactly compressed_size bytes
/// (section 4). Output is capped at `max_output` bytes and at the declared
/// uncompressed size; a stream that decodes to more, or fails, is an Error
/// naming the entry offset.
Expected<std::vector<uint8_t>> decode(const Entry& e, uint64_t max_output = (1ull << 30));

/// Scratch memory for decode_into(), reused across calls. Its bytes are
/// never cleared (decoding writes each one it returns), so a payload costs
/// no extra pass over memory.
class DecodeBuffer {
 public:
  /// At least `n` bytes; earlier contents are not kept. Throws
  /// std::bad_alloc like any allocation.
  uint8_t* reserve(size_t n);
  /// At least `n` bytes, keeping the first `keep` bytes of the old storage.
  uint8_t* grow(size_t n, size_t keep);
  /// Frees the storage when it is larger than `max_kept` bytes, so one huge
  /// payload does not stay resident for the rest of the run.
  void trim(size_t max_kept);
  size_t capacity() const { return size_; }

 private:
  std::unique_ptr<uint8_t[]> data_;
  size_t size_ = 0;
};

/// decode() into `buffer`. Returns the payload: a view of `e.stored` when
/// it is raw, else of the first bytes of `buffer` (valid until the buffer
/// is used again). Same limits and errors as decode(). A ZSTD frame that
/// declares its size is decoded in one call; ZSTD state is kept per thread.
Expected<ByteView> decode_into(const Entry& e, DecodeBuffer& buffer, uint64_t max_output = (1ull << 30));

/// decode_into() for a reader that needs only the first `keep` bytes of a
/// payload: a ZSTD payload is still decoded to its end, with decode_into()'s
/// checks, limits and errors (so a corrupt one fails alike), but past
/// `keep` bytes the output goes through the ZSTD window and is dropped, so
/// memory is `keep` bytes and the window, whatever the payload's size.
/// Returns the first min(keep, decoded size) bytes, in `buffer`; the
/// payload was shorter than `keep` when the view is shorter. Other
/// compressions: decode_into().
Expected<ByteView> decode_head(const Entry& e, DecodeBuffer& buffer, uint64_t keep,
                               uint64_t max_output = (1ull << 30));

/// [begin, end) byte ranges of a payload, sorted and disjoint.
using ByteRanges = std::vector<std::pair<uint64_t, uint64_t>>;

/// Reusable memory for decode_partial(): one anonymous private mapping as
/// large as the largest payload it has held (virtual size: pages never
/// written take no memory). The pages of a payload's first bytes stay
/// mapped for the next call, as DecodeBuffer's do; those past them are
/// given back (madvise MADV_DONTNEED) before the next payload is written.
/// Move-only; the mapping is released on destruction.
class PartialBuffer {
 public:
  PartialBuffer() = default;
  PartialBuffer(const PartialBuffer&) = delete;
  PartialBuffer& operator=(const PartialBuffer&) = delete;
  ~PartialBuffer();
  /// The mapping's size in bytes (0 before the first use).
  size_t capacity() const { return size_; }

 private:
  friend Expected<struct PartialImage> decode_partial(const Entry&, PartialBuffer&, uint64_t,
                                                      const std::function<uint64_t(ByteView)>&, uint64_t);
  uint8_t* data_ = nullptr;
  size_t size_ = 0;
  uint64_t dirty_from_ = 0, dirty_to_ = 0;  ///< bytes written past the kept prefix, to give back
};

/// A payload decoded in full but kept only in part: `view` spans the whole
/// uncompressed size, and only the bytes in `kept` hold decoded data (the
/// others are unspecified: zero, or an earlier payload's). Valid until the
/// PartialBuffer is used again.
struct PartialImage {
  ByteView view;
  ByteRanges kept;
};

/// Decodes a ZSTD entry's payload (section 4) in steps of 1 MiB through the
/// per-thread ZSTD window into `buffer`, keeping the first `prefix` bytes
/// and the bytes from `tail_from(head)` to the end, where `head` is the
/// kept prefix (called once, when the prefix is complete). Every byte of
/// the frame is decoded, so a corrupt, truncated or oversized frame is the
/// same Error decode_into() gives; memory is the ZSTD window (at most the
/// frame's window size, 8 MiB for nvcc's cubins) plus the pages kept. For
/// the large cubins of NCCL and PyTorch (20-200 MB each, the tables a
/// reader needs at both ends, code in between). Errors: not ZSTD (use
/// decode_into()), sizes as in decode_into(), the mapping refused.
Expected<PartialImage> decode_partial(const Entry& e, PartialBuffer& buffer, uint64_t prefix,
                                      const std::function<uint64_t(ByteView head)>& tail_from,
                                      uint64_t max_output = (1ull << 30));

/// The most bytes decode() can produce for `e` without failing: the
/// declared uncompressed size for ZSTD, that size but at most what the
/// stored bytes can expand to for LZ4 (a raw LZ4 block grows at most about
/// 255 times: one length byte adds at most 255 output bytes), 0 when the
/// payload is raw, the compression is unsupported or the declared size is
/// over decode()'s default limit (decode() refuses those itself).
uint64_t decode_bound(const Entry& e);

/// Decodes at most the first `n` bytes of an entry's payload (cheap: stops
/// early), for reading a cubin's ELF header without decompressing all of it.
Expected<std::vector<uint8_t>> decode_prefix(const Entry& e, size_t n);

}  // namespace cuwheel::fatbin
