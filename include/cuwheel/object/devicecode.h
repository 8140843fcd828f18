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
  full,     ///< plus kernels and PTX directives: compressed payloads are decoded
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

/// Reads the device code of one object. `data` is the whole object. For an
/// ELF with no fatbin the result has no entries (not an error). Errors: the
/// object is unreadable as ELF / fatbin / cubin. A wrapper that points at
/// garbage ends the walk with DeviceCode::stopped set. Entry payloads that cannot be decoded do not fail the call: the
/// entry's payload_error says why, and a warning is emitted.
///
/// `done`, when set, is called after each entry's payload has been read
/// with the entry's stored bytes, so that a caller reading a large mapped
/// file can let those pages go (Blob::release) and keep memory flat.
using DoneFn = std::function<void(ByteView)>;
Expected<DeviceCode> read_device_code(ByteView data, Depth depth, WarningSink* warnings,
                                      const DoneFn& done = {});

/// The same for an ELF file already parsed (a host ELF or a raw cubin), so
/// a caller that also reads its load facts parses it once. `file.data()` is
/// the whole object; `file` and its bytes must outlive the call.
Expected<DeviceCode> read_device_code(const elf::File& file, Depth depth, WarningSink* warnings,
                                      const DoneFn& done = {});

/// True when `data` looks like an object read_device_code() accepts
/// (ELF magic or fatbin container magic).
bool looks_like_object(ByteView data);

}  // namespace cuwheel
