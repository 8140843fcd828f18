// cuwheel: the device code of one object, as a flat list of entries.
//
// read_device_code() accepts any single object cuwheel understands: a host
// ELF (shared library, executable, relocatable object) carrying fatbins, a
// raw fatbin file, or a raw cubin. It returns every fatbin entry in listing
// order with the facts a reader needs (architecture, kind, compression, PTX
// ISA version, kernels), reading payloads only as deep as asked.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/object/cubin.h"
#include "cuwheel/object/elf.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/object/fatbin.h"

namespace cuwheel {

/// How much of each payload to read.
enum class Depth {
  headers,  ///< entry headers only; no payload bytes touched
  /// plus each stored-raw cubin's own architecture (ELF header,
  /// `.nv.compat`), read in place. Compressed cubins are not decoded: their
  /// entry header names the architecture (EntryFacts::cubin stays empty), which
  /// agrees with the cubin in every toolchain-built file; Depth::full decodes
  /// them and warns when the two disagree.
  arch,
  /// every payload decoded in full (a payload that does not decode is an
  /// error, never a pass), with each cubin's architecture and kernels and
  /// each PTX's header directives (.version, .target, .address_size); PTX
  /// entry names are not listed. What `check` and `probe` read.
  verify,
  full,     ///< plus the PTX entry names (`show`'s kernel counts)
};

struct EntryFacts {
  // Where it is.
  uint64_t offset = 0;          ///< file offset of the entry header (0 for a raw cubin)
  size_t container = 0;         ///< index of its container in listing order
  std::string section;          ///< host section (".nv_fatbin", "__nv_relfatbin", "" when raw/scanned)
  fatbin::Origin origin = fatbin::Origin::other;
  bool via_wrapper = false;     ///< referenced by a `.nvFatBinSegment` record
  // From the entry header.
  uint16_t kind = 0;
  uint32_t sm = 0;              ///< SM number in the header
  bool arch_a = false, arch_f = false;
  uint16_t code_major = 0, code_minor = 0;
  uint64_t flags = 0;
  fatbin::Compression compression = fatbin::Compression::none;
  uint64_t stored_size = 0;     ///< bytes stored in the file (compressed size when compressed)
  uint64_t size = 0;            ///< payload bytes after decoding
  std::string identifier;
  // From the payload (per Depth).
  std::optional<cubin::CubinInfo> cubin;   ///< ELF entries, Depth >= arch
  std::optional<cubin::PtxInfo> ptx;       ///< PTX entries, Depth == full
  std::string payload_error;               ///< why payload facts are missing, "" when fine

  /// Header architecture with suffix: "sm_90a", "sm_100f", "sm_80".
  std::string header_arch() const;
  /// PTX ISA version "9.0" (text `.version` when read, else header), or "".
  std::string ptx_isa() const;
  /// "compute_90a"-style virtual architecture name for PTX entries.
  std::string virtual_arch() const;
};

enum class ObjectKind { host_elf, fatbin, cubin };

struct DeviceCode {
  ObjectKind kind = ObjectKind::host_elf;
  std::vector<EntryFacts> entries;
  size_t containers = 0;         ///< fatbin containers found (a raw cubin counts as one)
  /// Set when reading stopped at an unreadable container that a wrapper
  /// record points to; `entries` then holds what was read before it.
  std::optional<Error> stopped;
  bool has_executable = false;   ///< any container in `.nv_fatbin` (cuobjdump's "executable fatbin")
};

/// How many bytes decoding the compressed payloads (LZ4, ZSTD) of one input
/// may produce in all: the defence against decompression bombs, such as a
/// 33 KB fatbin whose ZSTD entry declares 1 GiB, or sixteen of them. The
/// budget is kRatio times the input's stored size, at least kFloor bytes.
/// Real inputs stay far below it: over the CUDA 13 toolkit's libraries the
/// decoded payloads come to at most 8.2 times the file's size
/// (libcudnn_engines_precompiled.so.9: 1.9 GB from 234 MB), and one entry to
/// at most 134 times its stored bytes (libcublasLt.so.13). docs/limits.md.
///
/// One budget serves a whole input (a wheel and every library in it; a
/// static archive and its members), so many small bombs cannot each take a
/// floor. Taking is done in entry order before any decoding starts, so what
/// is refused does not depend on the thread schedule. Not thread-safe.
class DecodeBudget {
 public:
  static constexpr uint64_t kRatio = 64;
  static constexpr uint64_t kFloor = 64ull << 20;  ///< 64 MiB
  /// The budget of an input whose stored size is `stored_size` bytes (a
  /// wheel's file size, not its members' inflated sizes).
  explicit DecodeBudget(uint64_t stored_size);
  /// Takes `n` bytes. Returns false, taking nothing, when fewer remain.
  bool take(uint64_t n);
  /// Adds `n` stored bytes to what the limit is tied to (a folder's budget
  /// grows file by file; the floor is not added again).
  void add_stored(uint64_t n);
  uint64_t limit() const { return limit_; }        ///< bytes in all
  uint64_t used() const { return used_; }          ///< bytes taken so far
  uint64_t stored_size() const { return stored_; } ///< what the limit is tied to

 private:
  uint64_t stored_ = 0;
  uint64_t limit_ = 0;
  uint64_t used_ = 0;
};

/// Reads the device code of one object. `data` is the whole object. For an
/// ELF with no fatbin the result has no entries (not an error). Errors: the
/// object is unreadable as ELF / fatbin / cubin. A wrapper that points at
/// garbage ends the walk with DeviceCode::stopped set. Entry payloads that cannot be decoded do not fail the call: the
/// entry's payload_error says why, and a warning is emitted. At
/// Depth::verify and Depth::full the payloads are decoded within `budget` (when null, a budget
/// of this object's own size): entries past it are not decoded and share
/// one payload_error, "decompression bomb: ...", with the figures.
///
/// `done`, when set, is called after each entry's payload has been read
/// with the entry's stored bytes, so that a caller reading a large mapped
/// file can let those pages go (Blob::release) and keep memory flat.
///
/// `sections`: Sections::all (the default) also finds the containers a
/// library keeps unreferenced in other allocated data sections (`.ldata`,
/// fatbin.h find_in_elf() step 3), which show, check and probe count;
/// Sections::listed only what cuobjdump lists (containers reached through
/// wrappers, and the fatbin sections), for `list --format cuobjdump`: it
/// skips reading the data sections (about 400 MB in libcublasLt.so.13).
using DoneFn = std::function<void(ByteView)>;
enum class Sections { all, listed };
Expected<DeviceCode> read_device_code(ByteView data, Depth depth, WarningSink* warnings,
                                      const DoneFn& done = {}, DecodeBudget* budget = nullptr,
                                      Sections sections = Sections::all);

/// The same for an ELF file already parsed (a host ELF or a raw cubin), so
/// a caller that also reads its load facts parses it once. `file.data()` is
/// the whole object; `file` and its bytes must outlive the call.
Expected<DeviceCode> read_device_code(const elf::File& file, Depth depth, WarningSink* warnings,
                                      const DoneFn& done = {}, DecodeBudget* budget = nullptr,
                                      Sections sections = Sections::all);

/// True when `data` looks like an object read_device_code() accepts
/// (ELF magic or fatbin container magic).
bool looks_like_object(ByteView data);

}  // namespace cuwheel
