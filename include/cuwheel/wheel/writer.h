// cuwheel: writes a wheel (the zip writer behind `cuwheel repair`).
//
// Members that do not change are copied raw from the input wheel: their
// compressed bytes, CRC-32 and sizes, with no inflate and no deflate on
// the way out (they are decoded once, to hash them for RECORD and to check
// them against the input's RECORD). New or changed members are deflated
// with ISA-L (igzip, level 1) in parallel, each into a temporary file, so
// memory stays flat whatever their size. The output is reproducible: the
// entries are sorted (the .dist-info folder last, RECORD last of all, as
// the wheel format recommends), every entry has the same timestamp, and
// the same input gives the same bytes. ZIP64 records are written for the
// entries and the directory that need them (sizes or offsets from 4 GiB,
// more than 65,535 entries). Format: PKWARE APPNOTE.TXT 6.3.x sections
// 4.3.7 (local file header), 4.3.12 (central directory header), 4.3.14-16
// (ZIP64 end of central directory record and locator, end of central
// directory record), 4.5.3 (ZIP64 extended information extra field);
// RECORD: the binary distribution format (PyPA specification, "The
// .dist-info directory").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel {

/// One member of the wheel being written: kept from the input, or new.
struct OutMember {
  std::string name;                 ///< the member path ("pkg/_C.so")
  const ZipMember* keep = nullptr;  ///< copied raw from the input wheel
  std::string file;                 ///< else deflated from this file...
  std::vector<uint8_t> bytes;       ///< ...or from these bytes
  uint32_t mode = 0644;             ///< Unix permission bits (external attributes)
  /// With `keep`: the member's RECORD digest ("sha256=<base64url>") when
  /// the caller has already read the member and checked that digest
  /// against the input's RECORD (model/model.h MemberModel::digest, the
  /// record-mismatch rule): the member is then copied raw without being
  /// decoded again. Empty: the writer decodes and hashes it.
  std::string digest;
};

struct WheelWriteOptions {
  /// Seconds since the epoch for every entry's timestamp (UTC; clamped to
  /// the DOS range, 1980 to 2107). SOURCE_DATE_EPOCH's meaning.
  uint64_t timestamp = 315532800;  // 1980-01-01
  unsigned threads = 0;            ///< deflate threads; 0: one per core, at most 8
  bool force_zip64 = false;        ///< ZIP64 extra fields and records even when not needed (tests)
};

struct WheelWriteStats {
  size_t members = 0;  ///< entries written, RECORD included
  size_t copied = 0;   ///< of them, copied raw
  uint64_t size = 0;   ///< bytes of the output
};

/// Writes `members` and a RECORD generated for them (named `record`, the
/// input's RECORD path: a member of that name in `members` is ignored) to
/// `out`, atomically (a temporary file in its folder, renamed). `in` is
/// the wheel kept members come from; it must have been opened from a file.
/// `input_record`, when given, is the input's RECORD: a kept member whose
/// bytes do not match its entry there is an error. Errors (naming the
/// member): a kept member that cannot be read or fails its RECORD hash; a
/// file that cannot be read; two members of one name; a name that is
/// empty or absolute; the failing system call.
Expected<WheelWriteStats> write_wheel(Wheel& in, std::vector<OutMember> members, const std::string& record,
                                      const Record* input_record, const std::string& out,
                                      const WheelWriteOptions& options = {});

}  // namespace cuwheel
