// cuwheel: build identity, the key that keeps one build tree from reusing
// artifacts made under another CUDA configuration.
//
// Two build caches ignore the CUDA configuration (cuda-python PR #2472):
// Cython's up-to-date check hashes the .pyx and its cimports but not
// `compile_time_env`, so sources generated for CUDA 13 are reused for a
// CUDA 12 build; and setuptools' build_ext compares source and output
// mtimes, so on a cu12 -> cu13 -> cu12 round trip the last leg finds an
// older generated source next to a newer extension and keeps the wrong one.
// The fix is a build identity: a canonical string such as `cu13-debug`
// made of the CUDA major and the declared flags that change generated
// sources. Generated sources go to `<generated-root>/<identity>`
// (`build/cython/cu13-debug`), and a stamp file (`build/.build-identity`)
// records the identity of the last *completed* build, so a build system can
// force a rebuild when the identity changes or the stamp is missing.
//
// What belongs in the identity: the CUDA major, and flags that change the
// generated code (coverage: Cython's linetrace changes the generated C).
// What does not: `gdb_debug` (Cython writes byte-identical C and only adds
// a cython_debug/ side folder), the Python version and the platform
// (setuptools already keys its build/lib.* and build/temp.* folders by them).
//
// Canonical form (shared with cmake/CuwheelIdentity.cmake and
// python/cuwheel_identity.py, which must produce the same string):
//
//   identity  = "cu" MAJOR *( "-" component )
//   component = NAME / NAME "=" VALUE
//   NAME      = [a-z] [a-z0-9_]*        (lowercased; not "cu" DIGITS)
//   VALUE     = [A-Za-z0-9._]+
//
// Components are deduplicated and sorted as byte strings (ASCII order), so
// `--flag debug --flag coverage` and `--flag coverage --flag debug` give the
// same `cu13-coverage-debug`. MAJOR is a decimal number without leading
// zeros, 1..999.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/expected.h"

namespace cuwheel::identity {

/// A CUDA toolkit version and where it was read.
struct ToolkitVersion {
  int major = 0;
  int minor = 0;
  std::string source;  ///< "nvcc --version (PATH)" or the header's path
};

/// Parses the banner of `nvcc --version`. nvcc prints, since CUDA 7:
///   "Cuda compilation tools, release 13.0, V13.0.88"
/// The first "release M.N" (M, N decimal) wins. Errors: no such line; a
/// number out of range (major 1..999, minor 0..99).
Expected<ToolkitVersion> parse_nvcc_version(std::string_view text);

/// Parses `#define CUDA_VERSION 13000` (cuda.h) or
/// `#define CUDART_VERSION 12090` (cuda_runtime_api.h); both encode
/// major*1000 + minor*10 (cuda.h: "CUDA API version number"). `name` is
/// the macro to look for. Errors name the macro: missing, not a number, or
/// not a value of that form.
Expected<ToolkitVersion> parse_version_header(std::string_view text, std::string_view name);

/// Runs `nvcc --version` (no shell; stdin /dev/null) and parses its banner
/// with parse_nvcc_version. `nvcc` is the executable's path; the child is
/// killed after `timeout_ms` milliseconds and at most 64 KiB of its output
/// is read. The result's `source` is "NVCC --version". Errors name the
/// path: it cannot be run, it timed out, it exited non-zero or was killed
/// (with its first output line), or its output has no release line.
Expected<ToolkitVersion> read_nvcc_version(const std::string& nvcc, int timeout_ms);

/// Reads the header at `path` (at most 16 MiB) and parses it with
/// parse_version_header(text, macro). The result's `source` is `path`.
/// Errors name the path: unreadable, or the parse error.
Expected<ToolkitVersion> read_version_header(const std::string& path, std::string_view macro);

/// Where to look for a toolkit, in this order:
///  1. `prefix` if set (--toolkit), else `cuda_home` (CUDA_HOME), else
///     `cuda_path` (CUDA_PATH): PREFIX/bin/nvcc --version if it is an
///     executable file, else PREFIX/include/cuda.h (CUDA_VERSION), else
///     PREFIX/include/cuda_runtime_api.h (CUDART_VERSION);
///  2. otherwise the first `nvcc` in `path_env` (PATH syntax, ':'-separated).
/// A named prefix that has none of these is an error (no fallback to PATH,
/// so a wrong CUDA_HOME is never silently replaced by another toolkit).
struct ToolkitQuery {
  std::string prefix;
  std::string cuda_home;
  std::string cuda_path;
  std::string path_env;
  int nvcc_timeout_ms = 30000;  ///< nvcc is killed after this long
};

/// Detects the toolkit version as ToolkitQuery describes. Errors: nothing
/// found (listing where it looked); nvcc failed, timed out or printed no
/// release line (quoting its first output line); a header without the macro.
Expected<ToolkitVersion> detect_toolkit(const ToolkitQuery& query);

/// A build identity: the CUDA major plus sorted, deduplicated components.
struct Identity {
  int cuda_major = 0;
  /// Canonical components ("debug", "sanitizer=asan"), sorted bytewise.
  std::vector<std::string> components;

  /// The canonical string, e.g. "cu13-coverage-debug".
  std::string str() const;
  bool operator==(const Identity&) const = default;
};

/// Builds an identity from a CUDA major and declared flags; each flag is a
/// NAME or NAME=VALUE, lowercased in NAME and validated against the grammar
/// above. Errors: major out of 1..999; a malformed flag (quoted); the same
/// NAME given with two different values, or as a flag and as an axis.
Expected<Identity> make_identity(int cuda_major, const std::vector<std::string>& flags);

/// Parses a canonical identity string (as written in a stamp). Errors: not
/// of the canonical form (including unsorted or duplicated components: a
/// stamp is only ever written canonical); more than one line; a NUL byte.
/// The message quotes the whole text through printable() (cuwheel/base/bytes.h;
/// a line break shows as \x0a), cut at 120 bytes.
Expected<Identity> parse_identity(std::string_view text);

/// `root` joined with the identity: "build/cython" + cu13-debug gives
/// "build/cython/cu13-debug" (one '/' between them; root "" gives the bare
/// identity).
std::string keyed_dir(std::string_view root, const Identity& id);

/// The differences between a recorded and a current identity, in words:
/// "CUDA major 12 -> 13", "added debug", "removed coverage",
/// "sanitizer: asan -> ubsan".
std::vector<std::string> describe_changes(const Identity& recorded, const Identity& current);

/// The outcome of comparing a stamp with the current identity.
struct StampCheck {
  enum class State { kMatches, kDiffers, kMissing, kMalformed };
  State state = State::kMissing;
  std::string recorded;             ///< the stamp's text, trimmed and escaped by printable() ("" when missing)
  std::vector<std::string> changes; ///< describe_changes(), when kDiffers
  /// One line for people: "stamp says cu12, configuration is cu13: rebuild".
  std::string message;
  bool rebuild() const { return state != State::kMatches; }
};

/// Reads the stamp at `path` (at most 4096 bytes: one line, the identity)
/// and compares it with `current`. A missing stamp (ENOENT) is kMissing: no
/// completed build is recorded, so rebuild. A stamp that is not a canonical
/// identity is kMalformed (also rebuild). ASCII white space (space, tab,
/// CR, LF) before and after the identity is ignored; offsets in a
/// malformed-stamp message count from the first byte that is not. Every
/// piece of `message` and `changes` quoted from the stamp or the path is
/// escaped by printable() (include/cuwheel/base/bytes.h). Errors: the stamp exists but
/// cannot be read (a folder, no permission, too large).
Expected<StampCheck> check_stamp(const std::string& path, const Identity& current);

/// The outcome of check_stamp() as diagnostics (docs/diagnostics.md), for
/// `identity check --format sarif|github`: nothing when the stamp matches;
/// else one error, path `stamp_path`, message `r.message` with the changes
/// appended: `identity/stale-build` (CW901, kDiffers), `identity/no-stamp`
/// (CW902, kMissing) or `identity/malformed-stamp` (CW903, kMalformed).
std::vector<Diagnostic> stamp_diagnostics(const StampCheck& r, const std::string& stamp_path);

/// Writes "<identity>\n" to `path` atomically (write_file_atomic), creating
/// missing parent folders. Call only after a successful build. Errors name
/// the path.
Status write_stamp(const std::string& path, const Identity& current);

}  // namespace cuwheel::identity
