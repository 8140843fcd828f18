// cuwheel: PEP 508 dependency specifiers (the text of Requires-Dist).
//
//   name [extras] (specifier | @ url) [; marker]
//
// e.g. `cuda-toolkit[cublas,cudart]==13.0.2; platform_system == "Linux"` or
// `nvidia-cublas==13.1.0.3.*; (sys_platform == 'linux' or sys_platform ==
// 'win32') and extra == 'cublas'`. The grammar is PEP 508's, as refined by
// the PyPA "Dependency specifiers" page (which `packaging` implements):
// versions may be wrapped in parentheses, a URL requirement needs whitespace
// before its `;`, and `extra` values are compared after PEP 685
// normalization. Parse errors give the 1-based column of the problem.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/expected.h"
#include "cuwheel/wheel/pep440.h"

namespace cuwheel {

/// Values of the marker variables for one target environment. Variables
/// not set evaluate as the empty string (so `extra == "x"` is false when no
/// extra is requested).
struct MarkerEnvironment {
  std::map<std::string, std::string, std::less<>> values;

  /// A typical CPython on Linux: python_version (e.g. "3.12"),
  /// python_full_version ("3.12.0"), os_name "posix", sys_platform "linux",
  /// platform_system "Linux", platform_machine (`machine`),
  /// platform_python_implementation "CPython", implementation_name
  /// "cpython", implementation_version = python_full_version.
  static MarkerEnvironment linux_cpython(std::string_view python_version = "3.12",
                                         std::string_view machine = "x86_64");

  MarkerEnvironment& set(std::string_view name, std::string_view value);
  /// The value, or "" when unset.
  std::string_view get(std::string_view name) const;
};

/// A node of a parsed marker expression.
struct MarkerNode {
  enum class Kind : uint8_t { kAnd, kOr, kCompare };
  /// One side of a comparison: a variable name or a quoted literal.
  struct Operand {
    bool is_variable = false;
    std::string text;  ///< variable name, or the literal without its quotes
  };

  Kind kind = Kind::kCompare;
  std::vector<MarkerNode> children;  ///< kAnd / kOr: two or more operands
  Operand lhs, rhs;                  ///< kCompare
  std::string op;  ///< kCompare: "==", "!=", "<=", ">=", "<", ">", "~=", "===", "in", "not in"
};

/// A parsed marker expression (the part after `;`).
class Marker {
 public:
  /// Parses a marker. Errors: unknown variable, unterminated string,
  /// missing operator or operand, unbalanced parentheses, nesting deeper
  /// than 64, trailing text; the message gives the 1-based column.
  static Expected<Marker> parse(std::string_view text);

  const MarkerNode& root() const { return root_; }

  /// Evaluates against `env`, as `packaging.markers.Marker.evaluate`:
  /// version operators compare as PEP 440 versions (pre-releases allowed)
  /// when the right side parses as a specifier; otherwise, and for
  /// in/not in, as strings. `extra` operands are compared after PEP 685
  /// normalization.
  bool evaluate(const MarkerEnvironment& env) const;

  /// The extras this marker mentions as `extra == "x"` (or `"x" == extra`),
  /// PEP 685-normalized, sorted. A requirement whose marker names extras is
  /// only active when one of them is requested.
  std::vector<std::string> extras() const;

  /// Canonical text: double-quoted literals, single spaces, parentheses
  /// where an `or` sits inside an `and`.
  std::string to_string() const;

 private:
  friend struct Requirement;
  MarkerNode root_;
};

/// One parsed dependency specifier.
struct Requirement {
  std::string name;                 ///< as written
  std::vector<std::string> extras;  ///< as written, in order
  SpecifierSet specifier;           ///< empty for URL requirements
  std::optional<std::string> url;   ///< `name @ url`
  std::optional<Marker> marker;

  /// Parses a PEP 508 string. Errors: invalid name, unterminated extras,
  /// bad specifier, URL requirement without whitespace before `;`, bad
  /// marker, trailing text; the message quotes the input and gives the
  /// 1-based column.
  static Expected<Requirement> parse(std::string_view text);

  /// PEP 503-normalized name.
  std::string normalized_name() const;
  /// Extras the marker puts this requirement behind (Marker::extras), or
  /// empty when it is unconditional.
  std::vector<std::string> behind_extras() const;
  /// Canonical text: `name[extras]spec; marker` / `name @ url ; marker`.
  std::string to_string() const;
};

/// PEP 503 name normalization: lowercase, runs of `-`, `_`, `.` become a
/// single `-` ("Nvidia_CUBLAS.cu12" -> "nvidia-cublas-cu12"). PEP 685 uses
/// the same rule for extra names.
std::string normalize_name(std::string_view name);

/// True when `name` is a valid project name per the core metadata spec:
/// ASCII letters/digits with `.`, `_`, `-` inside, starting and ending with
/// a letter or digit.
bool is_valid_name(std::string_view name);

}  // namespace cuwheel
