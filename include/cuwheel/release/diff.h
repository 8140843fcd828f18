// cuwheel: what changed between two builds of a wheel.
//
// `cuwheel diff OLD.whl NEW.whl` answers the questions a release engineer
// asks when a nightly grows (field report 3: a GPU wheel went from 220 MB to
// over 800 MB between two nightlies): which members were added, removed or
// changed and by how many bytes (compressed, as stored in the wheel, and
// installed, as unpacked), and per shared library what changed in its
// device code (SASS and PTX architectures, device-code bytes) and in what
// the loader sees (DT_NEEDED, DT_RPATH/DT_RUNPATH). Both wheels are read
// through the check models (check.h), so the facts are the ones the rules
// see. Sizes are bytes throughout.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::diff {

/// One member that differs between the builds.
struct MemberChange {
  enum class Kind { added, removed, changed } kind = Kind::changed;
  std::string name;              ///< the NEW build's name (OLD's when removed)
  std::string old_name;          ///< OLD's name when it differs (a versioned .dist-info or .data folder)
  uint64_t old_compressed = 0, new_compressed = 0;  ///< bytes stored in the wheel (0 when absent)
  uint64_t old_size = 0, new_size = 0;              ///< bytes installed (0 when absent)
  int64_t compressed_delta() const { return int64_t(new_compressed) - int64_t(old_compressed); }
  int64_t size_delta() const { return int64_t(new_size) - int64_t(old_size); }
};

/// What changed in one ELF file present in both builds (or in one only).
struct LibraryChange {
  std::string member;
  bool in_old = true, in_new = true;
  std::vector<std::string> sass_added, sass_removed;  ///< "sm_90a"
  std::vector<std::string> ptx_added, ptx_removed;    ///< "compute_90"
  uint64_t old_device_bytes = 0, new_device_bytes = 0;  ///< device code stored in the file
  std::vector<std::string> needed_added, needed_removed;  ///< DT_NEEDED names
  std::vector<std::string> old_search_path, new_search_path;  ///< DT_RUNPATH, else DT_RPATH entries
  std::string search_tag_old, search_tag_new;  ///< "DT_RUNPATH", "DT_RPATH" or ""
  /// True when any of the facts above differ.
  bool changed() const;
};

/// The difference between two builds.
/// A member name stored more than once in one wheel's zip. Installers
/// extract the copies in order, so the last one is what is installed; the
/// diff compares that copy.
struct DuplicateMember {
  std::string wheel;   ///< "old" or "new"
  std::string path;    ///< that wheel's path
  std::string member;  ///< the repeated name
  size_t copies = 0;   ///< how many times it is stored (>= 2)
};

struct WheelDiff {
  std::string old_path, new_path;
  uint64_t old_file_size = 0, new_file_size = 0;  ///< bytes of the wheel files
  uint64_t old_installed = 0, new_installed = 0;  ///< sum of uncompressed member sizes
  size_t unchanged_members = 0;
  std::vector<DuplicateMember> duplicates;  ///< names stored twice or more, old first, in member order
  std::vector<MemberChange> members;     ///< added, removed, changed; largest |compressed change| first
  std::vector<LibraryChange> libraries;  ///< ELF files whose facts changed, in member order
  int64_t file_delta() const { return int64_t(new_file_size) - int64_t(old_file_size); }
  int64_t installed_delta() const { return int64_t(new_installed) - int64_t(old_installed); }
};

/// Compares two wheel models (check::build_models of a .whl; no member
/// hashing needed). Members are matched by name, with the
/// `NAME-VERSION.dist-info/` and `NAME-VERSION.data/` folders of each build
/// matched to each other (PEP 427 "File contents"), so a version bump is not
/// a remove plus an add. A member counts as changed when its stored or
/// installed size or its CRC-32 (ZIP APPNOTE 4.4.7) differs.
WheelDiff diff_models(const check::CheckModel& old_model, const check::CheckModel& new_model);

/// Reads one wheel for diff_models(), without hashing its members. Errors
/// (each message starts with `path`): a path that is not a wheel file, a
/// wheel without a `.dist-info` folder (PEP 427), or a part of it that
/// could not be read (its facts would be partial).
Expected<check::CheckModel> read_diff_wheel(const std::string& path);

/// Reads both wheels (read_diff_wheel()) and compares them. Errors: the
/// first of the two wheels that cannot be read.
Expected<WheelDiff> diff_wheels(const std::string& old_path, const std::string& new_path);

/// A growth limit: a percentage of the old size ("10%") or an absolute size
/// ("50MB", units as check::parse_size).
struct GrowthLimit {
  std::optional<double> percent;
  std::optional<uint64_t> bytes;
  std::string text;  ///< as given
};

/// Parses "10%", "2.5%", "50MB", "1GiB", "123456". nullopt when malformed
/// or negative.
std::optional<GrowthLimit> parse_growth_limit(std::string_view text);

/// True when growing from `old_size` to `new_size` bytes exceeds `limit`.
/// Shrinking never exceeds it; any growth from 0 exceeds a percentage.
bool exceeds(const GrowthLimit& limit, uint64_t old_size, uint64_t new_size);

/// One growth gate of `cuwheel diff` (--max-growth on the wheel file,
/// --max-installed-growth on the installed size) and its outcome.
struct Gate {
  std::string what;  ///< "wheel size" or "installed size"
  std::string flag;  ///< "--max-growth" or "--max-installed-growth"
  GrowthLimit limit;
  uint64_t old_size = 0, new_size = 0;  ///< bytes
  bool exceeded = false;
};

}  // namespace cuwheel::diff
