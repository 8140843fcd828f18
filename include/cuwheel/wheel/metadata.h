// cuwheel: the metadata files of a wheel, and its file name.
//
//   wheel file name   PEP 427 / "Binary distribution format": 
//                     {name}-{version}(-{build})?-{python}-{abi}-{platform}.whl
//                     with compressed tag sets (PEP 425: `py2.py3`,
//                     `manylinux_2_28_x86_64.manylinux2014_x86_64`)
//   .dist-info/       the one directory named {name}-{version}.dist-info
//   METADATA          core metadata 1.0-2.4 (PEP 241/314/345/566/643/685/639):
//                     RFC 822-style headers, body = description
//   WHEEL             the same header format: Wheel-Version, Generator,
//                     Root-Is-Purelib, Tag (repeated), Build
//   RECORD            PEP 376 / PEP 627: CSV rows `path,algo=digest,size`
//   entry_points.txt  the PyPA entry points spec: INI sections of
//                     `name = module:attr [extras]`
//
// Parsers take the file's bytes and never fail on a single bad line: they
// keep what they can and report the rest to a WarningSink ("RECORD line 7:
// ..."). They return an Error only when nothing usable is left (documented
// per function). Inputs are treated as bytes; nothing is assumed to be UTF-8.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <string_view>
#include <vector>

#include "cuwheel/base/bytes.h"
#include "cuwheel/base/expected.h"

namespace cuwheel {

// ---------------------------------------------------------------------------
// Wheel file name

/// One expanded compatibility tag (PEP 425), e.g. {"cp312","cp312","manylinux_2_28_x86_64"}.
struct WheelTag {
  std::string python, abi, platform;
  std::string to_string() const { return python + "-" + abi + "-" + platform; }
  bool operator==(const WheelTag&) const = default;
};

/// A parsed wheel file name.
struct WheelFilename {
  std::string distribution;  ///< as written (escaped: `-` replaced by `_`)
  std::string version;       ///< as written (not validated as PEP 440 here)
  /// Build tag: starts with a digit; split into its leading number and the rest.
  std::optional<std::string> build;
  uint64_t build_number = 0;
  std::string build_suffix;
  std::vector<std::string> python_tags, abi_tags, platform_tags;  ///< `.`-split

  /// Parses a file name (a path's directory part is ignored). Errors: no
  /// `.whl` suffix, not 5 or 6 `-`-separated parts, an empty part, a build
  /// tag not starting with a digit, an invalid distribution name; the
  /// message quotes the name.
  static Expected<WheelFilename> parse(std::string_view filename);

  /// The cross product of the tag sets, in file-name order.
  std::vector<WheelTag> tags() const;
};

// ---------------------------------------------------------------------------
// RFC 822-style header files (METADATA, WHEEL)

/// One header of a METADATA/WHEEL file, in file order.
struct HeaderField {
  std::string name;   ///< as written (compare case-insensitively)
  std::string value;  ///< continuation lines joined with "\n", indentation kept
  uint32_t line = 0;  ///< 1-based line of the field name
};

/// Splits a header file into fields and body. Follows the email.parser
/// behaviour that packaging uses: `Name: value` lines; a line starting with
/// space or tab continues the previous value; a blank line ends the headers
/// and the rest is the body. CRLF line ends are accepted. A header line
/// without `:` or with an invalid name is warned about and skipped.
struct HeaderFile {
  std::vector<HeaderField> fields;
  std::optional<std::string> body;  ///< text after the first blank line, if any

  static HeaderFile parse(ByteView data, std::string_view what, WarningSink& warnings);

  /// The value of the first field named `name` (case-insensitive).
  const std::string* get(std::string_view name) const;
  /// Every value of fields named `name`, in order.
  std::vector<std::string> get_all(std::string_view name) const;
};

// ---------------------------------------------------------------------------
// METADATA

/// Core metadata (the spec's field names in snake_case). Multiple-use
/// fields are vectors; single-use fields are optional.
struct CoreMetadata {
  std::string metadata_version;  ///< e.g. "2.4"
  std::string name;
  std::string version;  ///< as written
  std::optional<std::string> summary, description, description_content_type, keywords,
      home_page, download_url, author, author_email, maintainer, maintainer_email, license,
      license_expression, requires_python;
  std::vector<std::string> platforms, supported_platforms, classifiers, requires_dist,
      requires_external, project_urls, provides_extra, provides_dist, obsoletes_dist,
      license_files, dynamic;
  HeaderFile raw;  ///< every field as read, for rules that need others

  /// Parses METADATA bytes. `what` names the file in messages
  /// ("torch-2.11.0.dist-info/METADATA"). Errors: Metadata-Version, Name or
  /// Version missing. Warnings: a Metadata-Version other than 1.0, 1.1,
  /// 1.2, 2.1-2.4 (a newer one is read as 2.4), a single-use field given
  /// twice (the first is kept), both a Description header and a body (the
  /// body wins, per 2.1), skipped lines.
  static Expected<CoreMetadata> parse(ByteView data, std::string_view what,
                                      WarningSink& warnings);
};

// ---------------------------------------------------------------------------
// WHEEL

struct WheelInfo {
  std::string wheel_version;  ///< "1.0"
  std::optional<std::string> generator;
  std::optional<bool> root_is_purelib;  ///< nullopt when missing or not true/false
  std::vector<std::string> tags;        ///< Tag values, e.g. "cp312-cp312-manylinux_2_28_x86_64"
  std::optional<std::string> build;
  HeaderFile raw;

  /// Parses WHEEL bytes. Errors: Wheel-Version missing or not N.N, or a
  /// major version above 1 (PEP 427: "must fail if Wheel-Version is
  /// greater than the version it supports"). Warnings: a newer minor
  /// version, Root-Is-Purelib not "true"/"false", missing Root-Is-Purelib
  /// or Tag, a Tag that is not three `-`-separated parts.
  static Expected<WheelInfo> parse(ByteView data, std::string_view what, WarningSink& warnings);
};

// ---------------------------------------------------------------------------
// RECORD

struct RecordEntry {
  std::string path;            ///< as written (never used as a filesystem path)
  std::string hash_algorithm;  ///< "sha256"; empty when the hash field is empty
  std::string hash_value;      ///< URL-safe base64 without padding, as written
  std::optional<uint64_t> size;  ///< bytes; nullopt when the field is empty
  uint32_t line = 0;           ///< 1-based line (CSV record start)
};

struct Record {
  std::vector<RecordEntry> entries;

  /// Parses RECORD as Python's csv module (default dialect) does: `,`
  /// separators, `"`-quoted fields with `""` for a quote, quoted fields may
  /// span lines, CR/LF/CRLF line ends. Warnings (the row is still kept when
  /// its path is usable): not exactly 3 fields, an empty path, a hash
  /// without `=`, a size that is not a decimal number of at most 20
  /// digits, an unterminated quote at end of file. Blank lines are skipped.
  /// Never fails.
  static Record parse(ByteView data, std::string_view what, WarningSink& warnings);

  /// The first entry with exactly this path, or nullptr. Constant time
  /// through `index` when parse() built it (a wheel of 200,000 members is
  /// looked up once per member); a linear scan otherwise.
  const RecordEntry* find(std::string_view path) const;

  /// Path -> position in `entries` of its first entry, for the first
  /// `indexed` entries; filled by parse().
  std::unordered_map<std::string, size_t> index;
  size_t indexed = 0;
};

/// Checks `data` against a RECORD entry: the algorithm must be sha256,
/// sha384 or sha512 and the digest must match; a size, when given, must
/// equal data.size(). Errors describe the mismatch (expected vs got).
Status verify_record_entry(const RecordEntry& entry, ByteView data);

// ---------------------------------------------------------------------------
// entry_points.txt

struct EntryPoint {
  std::string group;   ///< section, e.g. "console_scripts"
  std::string name;    ///< left of `=`
  std::string module;  ///< "pkg.mod"
  std::string attr;    ///< "main" or "Cls.method"; empty when not given
  std::vector<std::string> extras;
  uint32_t line = 0;
};

/// Parses entry_points.txt (configparser rules as importlib.metadata uses
/// them: `[group]` headers, `name = value` or `name: value`, `#`/`;`
/// comment lines). Warnings: entries before any section, a line without
/// `=`, an object reference that is not `module[:attr] [extras]`, a name
/// repeated in one group. Never fails.
std::vector<EntryPoint> parse_entry_points(ByteView data, std::string_view what,
                                           WarningSink& warnings);

// ---------------------------------------------------------------------------
// .dist-info location

/// Where a wheel's metadata lives and whether it agrees with the file name.
struct DistInfoLocation {
  std::string dir;      ///< "torch-2.11.0.dist-info" (no trailing slash)
  std::string name;     ///< the directory's name part, as written
  std::string version;  ///< the directory's version part, as written
  /// Set when a file name was given: PEP 503-normalized names equal, and
  /// versions equal as PEP 440 versions (as strings when either is invalid).
  bool name_matches = true;
  bool version_matches = true;
};

/// Finds the single top-level `*.dist-info` directory among archive member
/// names (a directory counts when some member path starts with
/// "<dir>.dist-info/"). `filename` may be null. Errors: none found, or more
/// than one (all are named); the message starts with `wheel`.
Expected<DistInfoLocation> locate_dist_info(const std::vector<std::string>& member_names,
                                            const WheelFilename* filename,
                                            std::string_view wheel);

}  // namespace cuwheel
