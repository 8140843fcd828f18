// cuwheel: the registry of every diagnostic id the tool reports.
//
// Every Diagnostic (cuwheel/base/diagnostic.h) any command emits has its
// entry here: `check`'s rules (the rule registry of check.h, CW1xx-CW4xx)
// and the diagnostics of `matrix` (CW5xx), `release verify` (CW6xx),
// `arch` (CW7xx) and `toolkit download|verify` (CW8xx), listed in
// src/check/diagnostics.def. Each has a page: docs/rules/<name>.md for a
// rule, docs/rules/<command>/<name>.md for the others, embedded at build
// time, so `cuwheel rule NAME` and the SARIF renderer's rule descriptors
// come from one table. A test asserts that each id has its page with all
// its sections, that each page has its id, and that each command emits
// only registered ids.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "cuwheel/base/diagnostic.h"

namespace cuwheel::check {

/// One id of the registry.
struct DiagnosticInfo {
  std::string_view code;     ///< stable code, never reused: "CW101", "CW502"
  std::string_view command;  ///< "check", "matrix", "release", "arch", "toolkit"
  std::string_view name;     ///< the name the command emits: "missing-sass", "empty-matrix"
  std::string_view summary;  ///< one line
  Severity default_severity = Severity::error;
  /// "missing-sass" for a check rule (the name is the id, as it has always
  /// been), "<command>/<name>" ("matrix/empty-matrix") for the others.
  std::string id() const;
  /// The Markdown page (docs/rules/<id>.md); empty when it is missing,
  /// which the registry test refuses.
  std::string_view doc() const;
};

/// Every id, check's rules first (in code order), then the other
/// commands' in code order.
const std::vector<DiagnosticInfo>& diagnostics();

/// The entry `command` reports under `name`, or nullptr.
const DiagnosticInfo* find_diagnostic(std::string_view command, std::string_view name);

/// Every entry a user may mean by `text`: an id ("matrix/empty-matrix"), a
/// code ("CW502") or a bare name ("empty-matrix", "tag-mismatch"), which
/// may be the name of several commands' ids (check's rule first). Empty
/// when nothing matches.
std::vector<const DiagnosticInfo*> lookup_diagnostics(std::string_view text);

/// The closest id to a misspelling (did-you-mean), "" when none is close.
std::string suggest_diagnostic(std::string_view text);

}  // namespace cuwheel::check
