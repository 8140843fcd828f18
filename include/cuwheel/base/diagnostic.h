// cuwheel: the one diagnostic type every command reports in.
//
// `check`'s rule findings, `matrix`'s guards, `release verify`'s problems,
// `arch`'s rejected entries and `toolkit verify`'s disagreements are all a
// Diagnostic: an id of the registry (cuwheel/check/diagnostics.h, each with
// its page under docs/rules/), a severity, where it is, what is wrong and
// how to fix it. The renderers (cuwheel/render/report.h) turn any list of
// them into text, JSON, SARIF or GitHub annotations. The type sits in the
// base layer so that every layer, the downloader's included, can report in
// it without linking the rules.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cuwheel {

/// How much a diagnostic matters. `off` only appears in a policy (a rule
/// turned off); `note` says why something that looks wrong works in
/// practice and never changes the exit status; any `error` makes the exit
/// status 1 (2 when an input could not be read at all).
enum class Severity { off, warning, error, note };

/// "off", "warning", "error", "note".
std::string_view to_string(Severity s);

/// The inverse of to_string(), also accepting the policy spellings
/// "ignore" (off) and "warn" (warning); nullopt for anything else.
std::optional<Severity> parse_severity(std::string_view s);

/// What a repair step would do about a diagnostic, in fields a program
/// reads instead of the message. `action` is a kebab-case verb from a
/// closed list that `repair` implements:
///   remove-member        delete `target` (a member path) from the wheel
///                        (bundled-driver-library);
///   unbundle             delete `target` (a member path), declare the pip
///                        distribution `value` ("" when no package provides
///                        it for the wheel's CUDA major) in Requires-Dist and
///                        point the search path at its folder
///                        (bundled-cuda-library);
///   drop-search-entry    remove the RPATH/RUNPATH entry `value` from the
///                        library `target` (build-machine-path);
///   replace-version-need rename the .gnu.version_r file `old` of the
///                        library `target` to `value`, the DT_NEEDED name it
///                        was renamed to ("" when that is not clear)
///                        (needed-version-mismatch);
///   rename-requirement   replace the distribution of the Requires-Dist
///                        entry `old` by `value` (deprecated-package-name);
///   raise-floor          make the Requires-Dist entry `old` admit releases
///                        from `value` ("12.4") on (dependency-floor-too-low).
/// `target` names what it acts on, `old` what is replaced, `value` the new
/// value.
struct Fix {
  std::string action;
  std::string target;
  std::string value;
  std::string old = {};
};

/// One diagnostic. Aggregate-initialised in this field order:
/// {rule, severity, path, member, location, message, hint}; the optional
/// fields after them have default initialisers, so they may be left out.
struct Diagnostic {
  std::string rule;      ///< the id's name as the command emits it: "missing-sass", "empty-matrix"
  Severity severity = Severity::error;
  std::string path;      ///< the input as given: a wheel, a file, a folder, a matrix file ("" for stdin or flags)
  std::string member;    ///< the part inside the input: a wheel member, a file of a folder ("" when none)
  std::string location;  ///< finer place, in words: "DT_RUNPATH", ".nv_fatbin entry at 0x2020", "row 3"
  std::string message;   ///< one terse sentence
  std::string hint;      ///< how to fix, one sentence ("" when none)
  std::optional<uint64_t> offset = std::nullopt;  ///< byte offset of the place inside `member` (or `path`), when known
  std::optional<uint64_t> line = std::nullopt;    ///< 1-based line of a text input (SHA256SUMS, METADATA), when known
  std::optional<uint64_t> index = std::nullopt;   ///< 0-based item of a list input (a build-matrix row), when known
  std::optional<Fix> fix = std::nullopt;          ///< what repair would do, when the rule knows
};

}  // namespace cuwheel
