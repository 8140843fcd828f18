// cuwheel: checking wheels against a policy with named rules.
//
// A check runs in three steps:
//   1. build_models() (model/model.h) reads each input once (a wheel member by member, a
//      shared library, a directory of wheels or an installed environment)
//      into a CheckModel: metadata, members, RECORD digests, and per ELF
//      file its load facts, exported symbols and device code;
//   2. run_rules() applies every selected rule of the registry to the
//      models and the Policy, producing Findings;
//   3. a renderer (report.h) prints them as text, JSON, SARIF or GitHub
//      annotations.
// Rules never read files; they only look at models, so each is a small pure
// function with its own twin fixtures (one flagged, one clean).
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/diagnostic.h"
#include "cuwheel/base/expected.h"
#include "cuwheel/model/loading.h"
#include "cuwheel/model/model.h"
#include "cuwheel/model/providers.h"

namespace cuwheel::check {

// The one diagnostic type (cuwheel/base/diagnostic.h), under the names the
// rules have always used: a rule violation is a Finding.
using cuwheel::Severity;
using cuwheel::to_string;
using cuwheel::parse_severity;
using Finding = cuwheel::Diagnostic;

/// What the wheel must satisfy. Loaded from `[tool.cuwheel]` of the nearest
/// pyproject.toml, or cuwheel.toml, or --policy FILE; command-line flags
/// override it. See docs/check.md.
struct Policy {
  std::optional<int> cuda_major;            ///< 12 or 13
  std::vector<std::string> sass;            ///< architectures every device-code library must carry as SASS
  bool sass_exact = false;                  ///< also flag SASS outside `sass` (unexpected-sass)
  enum class PtxMode { unset, newest, none, list } ptx_mode = PtxMode::unset;
  std::vector<std::string> ptx;             ///< PtxMode::list: required compute_NN
  std::vector<std::string> gpus;            ///< GPUs (sm_NN) every device-code library must run on
  std::optional<std::string> min_driver;    ///< e.g. "570.26"
  std::optional<uint64_t> max_size;         ///< compressed wheel size, bytes
  std::optional<uint64_t> max_installed_size;  ///< sum of uncompressed member sizes, bytes
  std::vector<std::string> exports;         ///< glob patterns of allowed exported dynamic symbols
  std::vector<std::string> license_files;   ///< file names that must be in the wheel (e.g. LICENSE, EULA.txt)
  std::map<std::string, std::string> pins;  ///< distribution -> "exact": Requires-Dist must pin it with ==
  std::vector<std::string> entry_points;    ///< required "group:name" entry points
  std::map<std::string, Severity> severity; ///< per-rule severity override
  std::vector<std::string> select;          ///< only these rules (empty = all)
  std::vector<std::string> ignore;          ///< never these rules
  /// [tool.cuwheel.repair] (docs/repair.md): the tag repair writes
  /// ("keep", "rpath", "runpath"; "" = keep) and sonames it never grafts.
  std::string repair_search_path;
  std::vector<std::string> repair_exclude;
  std::string source;                       ///< where it was loaded from ("" = defaults)
};

/// Reads a policy from TOML: the `[tool.cuwheel]` table of a pyproject.toml,
/// or the top level of a cuwheel.toml (a `[tool.cuwheel]` table there is
/// accepted too). Errors name the file, the key and the line.
Expected<Policy> load_policy(const std::string& path);

/// Checks the values of a policy given by flags: architectures are
/// sm_NN[a|f] (2 or 3 digits), GPUs sm_NN, PTX newest/none/compute_NN[a|f],
/// min-driver an NVIDIA driver version MAJOR.MINOR[.PATCH] in decimal
/// (535.104.05, 580.65.06, 570.26: nvidia-smi's "Driver Version", the CUDA
/// Toolkit Release Notes, Table 3), MAJOR not 0 and without a leading
/// zero, each part at most 5 digits. The error names the flag and the
/// value: `--min-driver: "1.2.3.4" is not an NVIDIA driver version ...`.
/// load_policy() applies the same checks to a file's values, naming
/// FILE:LINE and the key instead.
Status validate_policy(const Policy& policy);

/// Splits a comma-separated list as the list flags (--sass, --ptx, --gpus,
/// --exports, --license-file) and the string form of the policy's list keys
/// take it: "sm_75, sm_80" -> {"sm_75", "sm_80"}, each item trimmed of
/// spaces. Errors: an empty item ("", "sm_75,,sm_80", ",,,", a leading or
/// trailing comma), named by its position: `item 2 of "sm_75,,sm_80" is
/// empty`.
Expected<std::vector<std::string>> split_comma_list(std::string_view text);

/// Looks for the policy file for `start` (a directory): cuwheel.toml, or a
/// pyproject.toml with a [tool.cuwheel] table, in start and then each parent.
/// Returns "" when none is found.
std::string find_policy_file(const std::string& start);

/// Parses "200MB", "1.5 GiB", "123456" into bytes. nullopt when malformed.
std::optional<uint64_t> parse_size(std::string_view s);

// The model types (model/model.h), under their old names in this namespace.
using model::BuildOptions;
using model::build_models;
using model::CheckModel;
using model::LibraryModel;
using model::MemberModel;

/// What a rule sees.
struct Context {
  const CheckModel& model;
  const std::vector<CheckModel>& all;  ///< every model of the run (release-set rules)
  const Policy& policy;
  /// Who provides the libraries a wheel NEEDs without shipping them: the
  /// built-in framework table, the wheels of the run, and dependency
  /// wheels given apart (run_rules' `dependencies`).
  const model::Providers& providers;
  /// The model's install layout and the loader's resolution of every
  /// DT_NEEDED (model/loading.h), computed once per model for every rule.
  const model::Tree& tree;
  const model::LoadResolution& loads;
};

/// Collects findings; the rule fills rule name, path and severity defaults.
class Emitter {
 public:
  Emitter(std::string rule, Severity severity, const CheckModel& model, std::vector<Finding>& out)
      : rule_(std::move(rule)), severity_(severity), model_(model), out_(out) {}
  /// Reports a finding on `member` (or the whole input when empty).
  void emit(const std::string& member, const std::string& location, const std::string& message,
            const std::string& hint = "");
  /// The same for another model of the run (release-set rules, which run
  /// once but report on the wheel at fault).
  void emit_on(const CheckModel& model, const std::string& member, const std::string& location,
               const std::string& message, const std::string& hint = "");
  /// Reports a note (Severity::note) on `member` whatever the rule's
  /// severity, unless the rule is off: a case the rule's letter flags that
  /// works by a mechanism the message names.
  void note(const std::string& member, const std::string& location, const std::string& message,
            const std::string& hint = "");
  /// Reports a warning on `member` for a case the rule flags that cannot
  /// stop the package from loading (a dead search entry, a renamed wheel
  /// file): Severity::warning when the rule is an error, the rule's own
  /// severity when the policy set it lower, nothing when the rule is off.
  void warn(const std::string& member, const std::string& location, const std::string& message,
            const std::string& hint = "");
  /// Gives the finding this emitter reported last its structured fix
  /// (Diagnostic::fix, what `repair` acts on); no effect when it has
  /// reported nothing (the rule is off).
  void attach_fix(Fix fix);

 private:
  std::string rule_;
  Severity severity_;
  const CheckModel& model_;
  std::vector<Finding>& out_;
  std::optional<size_t> last_;  ///< index in out_ of the last finding reported
};

/// A rule of the registry.
struct RuleInfo {
  std::string_view code;      ///< stable code, never reused: "CW101"
  std::string_view name;      ///< kebab-case name, read as "allow <name>"
  std::string_view summary;   ///< one line
  Severity default_severity = Severity::error;
  std::string_view group;     ///< "device-code", "loading", "wheel", "release"
  /// Runs the rule on one model; release-set rules look at ctx.all.
  std::function<void(const Context&, Emitter&)> run;
  /// True when the rule runs once per run (on the first model) rather than per model.
  bool per_run = false;
};

/// Every rule, in code order.
const std::vector<RuleInfo>& rules();
/// The rule with this name or code, or nullptr.
const RuleInfo* find_rule(std::string_view name_or_code);
/// The closest rule name to a misspelling: at most 2 edits away (3 for
/// names of 9 bytes or more), "" when nothing is that close.
std::string suggest_rule(std::string_view name);
/// The rule's documentation (Markdown: What it does, Why is this bad?,
/// Example, How to fix, References), as in docs/rules/<name>.md; also the
/// page of another command's diagnostic by its id ("matrix/empty-matrix",
/// docs/rules/matrix/empty-matrix.md). Empty when there is none.
std::string_view rule_doc(std::string_view name);

/// Applies the selected rules to every model. Findings come out ordered by
/// input, member and rule.
std::vector<Finding> run_rules(const std::vector<CheckModel>& models, const Policy& policy);
/// The same, with the models of dependency wheels that are not checked
/// themselves (`cuwheel check --deps DIR`): they only say what their
/// distributions provide (model/providers.h).
std::vector<Finding> run_rules(const std::vector<CheckModel>& models, const Policy& policy,
                               const std::vector<CheckModel>& dependencies);

}  // namespace cuwheel::check
