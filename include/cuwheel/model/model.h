// cuwheel: the model of one input as every consumer sees it.
//
// build_models() reads each input once (a wheel member by member, a shared
// library, a directory of wheels or an installed environment) into a
// CheckModel: metadata, members, RECORD digests, and per ELF file its load
// facts, exported symbols and device code. The check rules (check/check.h),
// `diff` and the release commands read models; none of them reads files.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/model/facts.h"
#include "cuwheel/object/devicecode.h"
#include "cuwheel/wheel/metadata.h"
#include "cuwheel/wheel/wheel.h"

namespace cuwheel::model {

/// One ELF file of a wheel or directory.
struct LibraryModel {
  std::string member;        ///< path inside the wheel/directory ("" for a plain file)
  std::string archive_member;///< member of a static archive ("" otherwise)
  std::string owner;         ///< directories: distribution from RECORD
  uint64_t size = 0;
  bool is_elf = false;
  LoadFacts load;            ///< valid when is_elf
  std::vector<std::string> exports;  ///< defined global/weak dynamic symbols (functions and objects)
  std::vector<bool> export_weak;     ///< parallel to exports: STB_WEAK (inline/template copies the loader merges)
  std::vector<elf::VersionNeed> version_needs;
  std::vector<std::string> version_need_files;  ///< files named in .gnu.version_r
  std::vector<CudaSymbolNeed> cuda_symbol_needs;  ///< undefined symbols bound to versions of CUDA libraries
  /// CUDA library sonames the file holds as NUL-terminated strings in its
  /// read-only data ("libcublas.so.12"): what it may dlopen by name
  /// (ctranslate2, xgboost's NCCL, libkvikio's cuFile). At most 64, sorted.
  std::vector<std::string> dlopen_names;
  /// Every library file name the file holds as a string in the same data,
  /// any class, with printf conversions kept ("nvshmem_transport_%s.so.%d",
  /// "libonnxruntime_providers_cuda.so"): the plugins it may open by name
  /// (model/loading.h: plugin_evidence). At most 256, sorted.
  std::vector<std::string> library_strings;
  DeviceCode device;         ///< every entry, payloads decoded (Depth::full); names kept only on request
  DeviceSummary summary;     ///< of `device`, kernel count included
  bool device_read = false;  ///< read_device_code() succeeded (`device` and `summary` are valid)
  std::string error;         ///< why facts are missing ("" when fine): the first of the errors below
  std::string elf_error;     ///< the bytes start with the ELF magic but are no readable ELF file
  std::string device_error;  ///< the device code could not be read at all
  std::vector<std::string> payload_errors;  ///< entries whose payload did not decode, distinct, in entry order
  std::vector<std::string> warnings;        ///< reader warnings, deduplicated, in the order they arose

  /// `warnings` less those that repeat an error above (a payload that did
  /// not decode is warned about and is an error): what a command reports as
  /// "read with warnings" beside the errors that make the object unreadable.
  std::vector<std::string> read_warnings() const;
};

/// What read_object() keeps beyond the load facts and device code.
struct ReadObjectOptions {
  bool exports = true;     ///< LibraryModel::exports and export_weak
  bool keep_names = false; ///< kernel names and PTX entries/targets in LibraryModel::device
  /// The decode budget of the input this object belongs to (a wheel, a
  /// static archive); null: one of the object's own size.
  DecodeBudget* budget = nullptr;
};

/// Reads one object: a host ELF file (shared library, executable,
/// relocatable object), a raw cubin or a raw fatbin, given as its whole
/// bytes. An ELF file is parsed once (elf::File::parse) for its load facts,
/// dynamic symbols and device code. Every payload is decoded
/// (Depth::full). Never fails: what could not be read is in `elf_error`,
/// `device_error`, `payload_errors` and `error` (the first of them, what
/// makes the object an unreadable input for `check`). `done`, when set,
/// receives stretches of `bytes` once read, so their pages can go
/// (Blob::release). Does not fill `member`, `archive_member` or `owner`.
LibraryModel read_object(ByteView bytes, const ReadObjectOptions& opts = {},
                         const std::function<void(ByteView)>& done = {});

/// One library a wheel's Python code loads by name (RAPIDS' load.py, cupy's
/// pathfinder calls, ctypes): the loader then finds a DT_NEEDED of that
/// name without a search.
struct PythonLoad {
  std::string member;  ///< the .py member
  enum class Kind {
    pathfinder,     ///< cuda.pathfinder load_nvidia_dynamic_lib("nvrtc"): lib<name>.so*
    nvidia_module,  ///< `import nvidia.libnvcomp` / nvidia.<pkg>.load_library(): lib<pkg>.so*
    soname,         ///< a quoted "libcublas.so.12" (ctypes.CDLL / dlopen by name)
    file_pattern,   ///< an f-string naming library files, f"libbitsandbytes_{...}": `name` is "libbitsandbytes_*"
    soname_glob,    ///< a quoted glob of one library's files, torch's "libcusolver.so.*[0-9]" (preloaded by glob)
  } kind = Kind::soname;
  std::string name;    ///< "nvrtc", "libnvcomp", "libcublas.so.12"
  /// pathfinder only: the call takes its name from a variable, and `name`
  /// is a literal of the same file that names an NVIDIA library.
  bool indirect = false;
  /// True when `soname` (a DT_NEEDED name) is what this load puts in the process.
  bool loads(const std::string& soname) const;
  /// "libcudf/load.py: load_nvidia_dynamic_lib(\"nvrtc\")"
  std::string describe() const;
};

/// Scans Python source (at most the first 4 MiB) for the loads above.
std::vector<PythonLoad> python_loads(std::string_view member, ByteView source);

/// Scans package data in JSON (at most 1 MiB) for double-quoted sonames,
/// the list a Python loader hands to ctypes (faiss' _preload_library.json).
std::vector<PythonLoad> json_loads(std::string_view member, ByteView source);

/// A wheel member as the checks see it.
struct MemberModel {
  std::string name;
  uint64_t compressed_size = 0, size = 0;
  uint32_t crc32 = 0;          ///< CRC-32 declared in the central directory (APPNOTE 4.4.7)
  uint32_t issues = 0;         ///< MemberIssue bits (wheel.h)
  std::string digest;          ///< RECORD form "sha256=<b64>" (algorithm of its RECORD line), "" when unread
  bool read_ok = false;
  std::string read_error;
};

/// Everything the rules know about one input.
struct CheckModel {
  std::string path;            ///< as given
  /// wheel: a .whl; library: one ELF file, archive, fatbin or cubin;
  /// directory: a folder's libraries that no installed distribution owns;
  /// installed: one distribution of an installed environment (a folder
  /// with *.dist-info/RECORD, such as site-packages), checked as its wheel
  /// would be: metadata, RECORD, its files as members (relative to the
  /// folder) and its libraries. `path` is the folder.
  enum class Kind { wheel, library, directory, installed } kind = Kind::wheel;
  /// A wheel or an installed distribution: the inputs with metadata, whose
  /// libraries are resolved as they load (model/loading.h).
  bool is_distribution() const { return kind == Kind::wheel || kind == Kind::installed; }
  // Wheels.
  std::string filename;
  std::optional<WheelFilename> parsed_filename;
  std::string filename_error;
  std::string dist_info;
  std::optional<CoreMetadata> metadata;
  std::string metadata_error;
  std::vector<std::string> metadata_warnings;
  std::optional<WheelInfo> wheel_info;
  std::string wheel_info_error;
  std::optional<Record> record;
  std::string record_error;
  std::vector<EntryPoint> entry_points;
  /// What the wheel's Python files load by name before its extensions
  /// (python_loads()): filled when members are read in full
  /// (BuildOptions::hash_members).
  std::vector<PythonLoad> python_loads;
  std::vector<MemberModel> members;
  uint64_t archive_size = 0;   ///< bytes of the wheel file
  // All inputs.
  std::vector<LibraryModel> libraries;
  std::vector<std::pair<std::string, std::string>> read_errors;  ///< (where, message)
  /// The input could not be opened at all (a wheel in a folder of wheels
  /// that is not a readable zip): the model holds only `path` and
  /// read_errors. It is no checked input: rules are not run on it and the
  /// summary does not count it, as for the same wheel given by name.
  bool unreadable = false;
};

/// A wheel member whose facts are known from an identical member read
/// before: `repair` checks its output, whose unchanged members are the
/// input's compressed bytes copied raw (wheel/writer.h), without decoding
/// them a second time.
struct KnownMember {
  std::string digest;                   ///< its RECORD digest, "sha256=<base64url>"
  std::optional<LibraryModel> library;  ///< its library facts, when it is one (moved into the model)
};

struct BuildOptions {
  /// Hash every member for the RECORD check (reads every member in full).
  bool hash_members = true;
  /// Wheels: read the Python sources and package JSON for the loads they
  /// name (CheckModel::python_loads) even when hash_members is false
  /// (`probe`, which needs them for model::plugin_evidence only).
  bool scan_python_loads = false;
  /// Wheels: members (by name) not read again; each gets read_ok, the
  /// digest and the library given. The caller vouches that the bytes are
  /// those the facts were read from. Null: every member is read.
  std::map<std::string, KnownMember>* known = nullptr;
  /// Wheels: the loads its Python files and package JSON name
  /// (CheckModel::python_loads), known from an identical set of those
  /// members read before (`repair` copies them raw): .py and .json members
  /// are then not scanned, and those in `known` not read at all. Null:
  /// they are read and scanned.
  const std::vector<PythonLoad>* python_loads = nullptr;
};

/// Builds one model per input: a wheel, a shared library or object, a
/// directory of wheels (one model per wheel), or an installed environment
/// (one model of kind directory). Unreadable inputs give an Error; a wheel
/// of a folder that cannot be opened gives a model with `unreadable` set;
/// problems inside an input are kept in CheckModel::read_errors.
Expected<std::vector<CheckModel>> build_models(const std::string& path, const BuildOptions& opts,
                                               const std::function<void(const std::string&)>& progress = {});

}  // namespace cuwheel::model
