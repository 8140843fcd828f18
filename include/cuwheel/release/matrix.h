// cuwheel: filtering a generated CI build matrix by a release policy.
//
// Input: what a binary-matrix generator emits (PyTorch's
// generate_binary_build_matrix.py and its shared test-infra copy): a JSON
// list of rows, `{"include": [rows]}` (the GitHub Actions matrix shape), or
// one row object (a build job checking its own row). A row is an object;
// the fields read are, by default, the generator's names:
//
//   desired_cuda      "cu126", "cu130", "cpu", "cpu-aarch64", "rocm6.2", "xpu"
//   gpu_arch_type     "cuda", "cuda-aarch64", "cpu", "cpu-aarch64", "rocm", "xpu"
//   gpu_arch_version  "12.6" ("" for CPU rows)
//   python_version    "3.10", "3.13t"
//   container_image   "pytorch/manylinux2_28-builder:cuda12.6"
//
// and each can be renamed (FieldNames::set). Every other field is passed
// through unchanged. Output: the rows the policy builds, as `{"include":
// [...]}`, plus findings (guards, each with a stable name) and the reason
// each dropped row was dropped. The policy format is documented in
// docs/matrix.md; the guards come from the failures the PyTorch-ecosystem
// release workflows hit (docs/matrix.md "Guards").
#pragma once

#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/release/identity.h"

namespace cuwheel::matrix {

using Row = nlohmann::ordered_json;

/// The row fields read, by role. Defaults are the generator's names.
struct FieldNames {
  std::string desired_cuda = "desired_cuda";
  std::string gpu_arch_type = "gpu_arch_type";
  std::string gpu_arch_version = "gpu_arch_version";
  std::string python_version = "python_version";
  std::string container_image = "container_image";

  /// Applies "role=name" (e.g. "desired_cuda=cuda_version"). Errors: no '=',
  /// an empty name, an unknown role (with a did-you-mean).
  Status set(std::string_view assignment);
  /// Sets one role. Errors: unknown role.
  Status set(std::string_view role, std::string name);
};

/// What a row builds, from its desired_cuda value.
struct Build {
  enum class Kind : uint8_t {
    kCuda,     ///< "cuXYZ": a CUDA train, 3 or 4 digits, last digit the minor
    kCpu,      ///< "cpu", "cpu-aarch64", "cpu-cxx11-abi", "cpu-s390x", ...
    kRocm,     ///< "rocm6.2", "rocm7.0"
    kXpu,      ///< "xpu"
    kUnknown,  ///< anything else ("cuda12.6", "cu12", "")
  };
  Kind kind = Kind::kUnknown;
  std::string train;    ///< kCuda: the value as written, "cu126"
  unsigned major = 0;   ///< kCuda: 12 for cu126, 11 for cu118
  unsigned minor = 0;   ///< kCuda: 6 for cu126
};

/// Classifies a desired_cuda value by asking whether it names a CUDA train
/// ("cu" then 3-4 digits), never by stripping characters: "cpu" is a CPU
/// build (not train "pu"), "cu118" and "cu125" are CUDA trains (whether the
/// policy builds them is the policy's question), "rocm6.2" is ROCm.
Build classify_build(std::string_view desired_cuda);

/// Version "X.Y" of a train ("cu126" -> "12.6").
std::string train_version(const Build& b);

/// A (CPU architecture, train, Python) combination.
struct Combination {
  std::string arch;    ///< "x86_64", "aarch64", or an empty-kind name ("jetson")
  std::string train;   ///< "cu130"
  std::string python;  ///< "3.12"
  std::string to_string() const;  ///< "x86_64 cu130 python 3.12"
};

/// A deliberately empty kind of row (the Jetson case): rows matching it are
/// dropped with `reason`, and a request for it (--arch jetson) fails with
/// `reason` instead of the generic empty-matrix message.
struct EmptyKind {
  std::string arch;                          ///< name, e.g. "jetson"
  std::string reason;                        ///< why it is empty (required)
  std::map<std::string, std::string> match;  ///< row field -> fnmatch(3) pattern; all must match
};

/// A Python version that is dropped on purpose, with its reason.
struct ExcludedPython {
  std::string python;  ///< fnmatch(3) pattern: "3.14", "3.*t"
  std::string reason;
};

/// The matrix policy (docs/matrix.md "Policy").
struct Policy {
  std::string source;  ///< file it was read from ("" = flags only)
  /// Trains built per CPU architecture, in the order written.
  std::vector<std::pair<std::string, std::vector<std::string>>> trains;
  std::vector<std::string> python;  ///< allowlist, "3.10"
  std::vector<ExcludedPython> exclude_python;
  std::vector<EmptyKind> empty;
  /// Combinations the generator must offer. Unset: every arch x train x
  /// allowed Python of `trains` and `python`.
  std::optional<std::vector<Combination>> expect;
  /// Pull-request row: fields left empty match anything. Unset: the newest
  /// train, then the newest Python, x86_64 first.
  std::optional<Combination> representative;
  bool cpu = false;  ///< keep CPU rows (a CUDA matrix drops them by default)
  FieldNames fields;
  /// The generator's inputs as the workflow passes them ("with-cuda" ->
  /// "enable"); checked for the spellings it accepts.
  std::vector<std::pair<std::string, std::string>> generator;
};

/// Reads a policy. `path` may be a cuwheel.toml (table [matrix]), a
/// pyproject.toml ([tool.cuwheel.matrix]) or any TOML file whose root is
/// the matrix table. Errors: "file:line: message" for a syntax error, an
/// unknown key (with a did-you-mean), a value of the wrong type, a train
/// that is not cuNNN, a Python that is not X.Y[t], an empty-kind without a
/// reason, an architecture listed both with trains and as empty.
Expected<Policy> load_policy(const std::string& path);

/// Parses policy text (as load_policy; `name` is used in messages).
Expected<Policy> parse_policy(std::string_view text, const std::string& name);

/// Looks for cuwheel.toml with a [matrix] table, then pyproject.toml with
/// [tool.cuwheel.matrix], in `start` and each parent folder. "" when none.
std::string find_policy_file(const std::string& start);

/// The deepest nesting of arrays and objects parse_rows accepts. A row is a
/// flat object inside a list inside {"include": [...]}: 3 levels, so 128 is
/// room for any generator, and far below what overflows the stack of the
/// recursive copy and comparison of a JSON value.
inline constexpr size_t kMaxDepth = 128;

/// Parses generator output (a list, {"include": [...]}, or one object).
/// `*single_row` (when given) is set to whether the input was one row
/// object. Errors: nested deeper than kMaxDepth levels (with the byte
/// offset of the bracket that opens level kMaxDepth + 1; checked before
/// any other parsing), not JSON (with the byte offset), a key written twice in
/// one object (naming the row and the key), another shape, a row that is
/// not an object (with its index). `name` prefixes messages; the message
/// is passed through printable().
Expected<std::vector<Row>> parse_rows(std::string_view text, const std::string& name, bool* single_row = nullptr);

/// The CUDA toolkit a build uses, from nvcc or cuda.h: identity's type
/// (include/cuwheel/release/identity.h), so both commands read a toolkit the same
/// way and accept and refuse the same text.
using ToolkitVersion = identity::ToolkitVersion;

/// `path` is a toolkit folder (its include/cuda.h is read, else its
/// bin/nvcc --version is run), a cuda.h file (a name ending in ".h"), or an
/// nvcc executable; the readers are identity::read_version_header and
/// identity::read_nvcc_version (nvcc is killed after `nvcc_timeout_ms`).
/// Errors name the path: nothing usable there, unreadable, no version in
/// it, nvcc failed or timed out.
Expected<ToolkitVersion> detect_toolkit(const std::string& path, int nvcc_timeout_ms = 30000);

/// One guard that fired, as the one diagnostic type
/// (cuwheel/base/diagnostic.h): `rule` is the guard's name (guard_names(),
/// registered as matrix/<name> in cuwheel/check/diagnostics.h), severity
/// error, `message` names the row (index and build_name) or value,
/// `index` the 0-based input row and `location` "row N" (both unset when
/// not about one row). `path` is left for the caller (the matrix's file).
using Finding = cuwheel::Diagnostic;

/// A row that was left out on purpose.
struct Dropped {
  int row = 0;
  std::string build;   ///< the row's build_name, or "" when it has none
  std::string reason;  ///< row-independent text, so equal reasons group
};

/// Per-run choices (flags).
struct Options {
  bool pr = false;                      ///< keep one representative row
  std::optional<std::string> arch;      ///< only rows of this architecture (or empty kind)
  std::optional<ToolkitVersion> toolkit;  ///< the toolkit major must equal each kept row's
  /// Check that every advertised combination is offered (missing-combination).
  /// Off for a build job that checks its own single row.
  bool check_offered = true;
  /// Extra generator inputs to check ("with-cuda" -> "enabled"), after the policy's.
  std::vector<std::pair<std::string, std::string>> generator;
};

/// What filter() decided.
struct Result {
  std::vector<Row> include;          ///< rows kept, in input order (one in PR mode)
  std::vector<Dropped> dropped;
  std::vector<Finding> findings;     ///< any finding means exit status 1
  size_t rows_in = 0;
  /// Rows a guard failed (counted once however many guards fired on them):
  /// neither kept nor dropped, so rows_in == include.size() +
  /// dropped.size() + rows_failed.
  size_t rows_failed = 0;
  /// {"include": [...]}.
  nlohmann::ordered_json matrix() const;
};

/// The guard names, for documentation and JSON consumers.
const std::vector<std::string_view>& guard_names();

/// The CPU architecture (or empty-kind name) a row builds for: the first
/// empty kind whose match table matches, else "aarch64" when gpu_arch_type
/// or desired_cuda ends in "-aarch64" or container_image mentions aarch64,
/// "s390x" likewise, else "x86_64".
std::string row_arch(const Row& row, const Policy& policy);

/// Applies `policy` to `rows`. Never fails: every problem is a Finding.
/// Every value from the rows, the policy or the options that a Finding's
/// message or a Dropped reason quotes is passed through printable()
/// (cuwheel/base/bytes.h): a NUL, a control character or invalid UTF-8 shows
/// as \xNN and cannot cut a message short or start a new output line.
Result filter(const std::vector<Row>& rows, const Policy& policy, const Options& options);

/// Compares Python versions "3.9" < "3.10" < "3.10t" (numeric, free-threaded after).
bool python_less(std::string_view a, std::string_view b);

}  // namespace cuwheel::matrix
