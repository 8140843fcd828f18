// cuwheel: rendering diagnostics. One renderer per format, each in its own
// src/render/report_<format>.cc; all take the same diagnostics
// (cuwheel/base/diagnostic.h; a check Finding is one) and summary, from
// any command: `check`'s findings, `matrix`'s guards, `release verify`'s
// problems, `arch`'s rejected entries, `toolkit verify`'s disagreements.
// The summary's `command` picks the registry entries
// (cuwheel/check/diagnostics.h) that give codes and SARIF rule descriptors.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "cuwheel/check/check.h"
#include "cuwheel/check/diagnostics.h"

namespace cuwheel::check {

struct ReportSummary {
  /// The command whose diagnostics these are: "check", "matrix",
  /// "release", "arch" or "toolkit" (DiagnosticInfo::command).
  std::string command = "check";
  size_t inputs = 0;           ///< models checked (check), or inputs read (the others)
  /// check: the paths given, and how many of the models are distributions
  /// installed in a site-packages folder among them. When `installed` is
  /// not 0 the text summary counts the paths and names the distributions
  /// ("1 input checked (4 installed distributions in it)"), since a folder
  /// is one input to the user however many models it holds.
  size_t given = 0, installed = 0;
  size_t errors = 0, warnings = 0, notes = 0;
  std::vector<std::pair<std::string, std::string>> unreadable;  ///< (where, message)
  /// The input path (as given, or the wheel of a folder) each `unreadable`
  /// entry belongs to, in the same order; where shorter, `where` stands in.
  std::vector<std::string> unreadable_inputs;
  /// What a reader warned about in a part it could read (a section name
  /// table that does not read, a container no wrapper record points to):
  /// (where, message), as `unreadable`, with the input of each in
  /// `read_warning_inputs`. Reported in every format; no effect on the
  /// exit status, and not counted among the findings.
  std::vector<std::pair<std::string, std::string>> read_warnings;
  std::vector<std::string> read_warning_inputs;
  std::string policy_source;   ///< "" = built-in defaults
  /// Some input could not be read although `unreadable` names none (the
  /// command reported it as one of its own diagnostics, as release
  /// verify's `unreadable`): SARIF's executionSuccessful is false.
  bool incomplete = false;
  /// check --baseline: a baseline was given, and how many findings it
  /// accepted (left out of the findings and the counts above). JSON's
  /// summary has `baselined` only when a baseline was given.
  bool baseline_given = false;
  size_t baselined = 0;
  /// check --statistics: JSON's summary gets `statistics` (per rule).
  bool statistics = false;
};

/// How the text report is printed (check's output flags, docs/check.md).
struct TextOptions {
  bool color = false;       ///< ANSI colour for severities (a terminal, and NO_COLOR unset)
  size_t width = 0;         ///< wrap the `in:` member lists at this many columns; 0: never
  bool quiet = false;       ///< only error findings and unreadable input; no summary line
  std::optional<size_t> max_findings;  ///< print at most this many findings (a group counts once); none: all
};

/// One rule's count among the findings, for --statistics.
struct RuleCount {
  std::string rule, code;
  Severity severity = Severity::error;
  size_t count = 0;
};
/// Findings counted by (rule, severity), most frequent first, then by code.
std::vector<RuleCount> rule_statistics(const std::vector<Finding>& findings, const std::string& command = "check");

/// Findings that share one cause: the same input, rule, severity, location,
/// message and hint, differing only in member (one RUNPATH setting copied
/// onto eleven extension modules gives eleven such findings). Returns the
/// findings as groups of indices into `findings`, each group in the order
/// of its first finding and its members in input order; a finding with no
/// twin is a group of one. Every index appears exactly once.
std::vector<std::vector<size_t>> group_findings(const std::vector<Finding>& findings);

/// Compiler-style text: "PATH:MEMBER: error[rule]: message" then an
/// indented "where:" and "help:" line; a summary line at the end. Findings
/// of one cause (group_findings()) are printed once, with an indented
/// "in:" line listing every member; the summary still counts each.
std::string render_text(const std::vector<Finding>& findings, const ReportSummary& summary,
                        const TextOptions& options = {});

/// --statistics in text: one line per rule and severity, `COUNT  CODE
/// rule  severity`, most frequent first, then the summary line.
std::string render_statistics(const std::vector<Finding>& findings, const ReportSummary& summary,
                              const TextOptions& options = {});

/// {"schema": 1, "findings": [...], "summary": {...}} (docs/check.md): one
/// finding per location; findings of one cause share a "group" number.
/// A finding's "offset", "line" and "index" appear only when set; the
/// structured fix is for `repair` and is not rendered.
std::string render_json(const std::vector<Finding>& findings, const ReportSummary& summary);

/// SARIF 2.1.0 (OASIS, 27 March 2020), one run, rules from the registry:
/// every check rule for `check`, the command's own ids otherwise; a
/// result's ruleId is its registry code. A diagnostic's offset becomes
/// region.byteOffset and its line region.startLine (section 3.30).
/// Each result's artifactLocation.uri is a URI (section 3.4.3, RFC 3986): a
/// relative path becomes a relative reference, each byte outside the
/// unreserved set and "/" percent-encoded; an absolute path a `file://`
/// URI (RFC 8089). The run has one invocation (section 3.20):
/// executionSuccessful is false when an input could not be read, and each
/// unreadable input is a toolExecutionNotification (section 3.58) with
/// level "error", its message and its location.
/// Text is escaped by the JSON encoder; bytes that are not UTF-8 become
/// U+FFFD, never an abort.
std::string render_sarif(const std::vector<Finding>& findings, const ReportSummary& summary);

/// GitHub Actions workflow commands (::error file=...::message), with a
/// line= property when the diagnostic has a line. Values
/// go through printable() (cuwheel/base/bytes.h), then the workflow-command
/// escapes: %25 %0D %0A in the message, also %3A %2C in properties.
std::string render_github(const std::vector<Finding>& findings, const ReportSummary& summary);

}  // namespace cuwheel::check
