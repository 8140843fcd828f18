// The registry of every diagnostic id (include/cuwheel/check/diagnostics.h).
#include "cuwheel/check/diagnostics.h"

#include <string>

#include "base/suggest.h"
#include "cuwheel/check/check.h"

namespace cuwheel::check {

std::string DiagnosticInfo::id() const {
  if (command == "check") return std::string(name);
  return std::string(command) + "/" + std::string(name);
}

// The pages are embedded with the rules' (check.cc, rule_doc), keyed by id.
std::string_view DiagnosticInfo::doc() const { return rule_doc(id()); }

const std::vector<DiagnosticInfo>& diagnostics() {
  static const std::vector<DiagnosticInfo> table = [] {
    std::vector<DiagnosticInfo> t;
    for (const auto& r : rules()) t.push_back({r.code, "check", r.name, r.summary, r.default_severity});
#define DIAG(code, command, name, sev, summary) t.push_back({code, command, name, summary, Severity::sev});
#include "check/diagnostics.def"
#undef DIAG
    return t;
  }();
  return table;
}

const DiagnosticInfo* find_diagnostic(std::string_view command, std::string_view name) {
  for (const auto& d : diagnostics())
    if (d.command == command && d.name == name) return &d;
  return nullptr;
}

std::vector<const DiagnosticInfo*> lookup_diagnostics(std::string_view text) {
  std::vector<const DiagnosticInfo*> out;
  // A code or a qualified id names one entry; a bare name (a check rule's
  // id is its name) every command's entry of that name.
  for (const auto& d : diagnostics())
    if (d.code == text || (d.command != "check" && d.id() == text)) return {&d};
  for (const auto& d : diagnostics())
    if (d.name == text) out.push_back(&d);
  return out;
}

std::string suggest_diagnostic(std::string_view text) {
  // Ids, and the bare names of the other commands' ids, which lookup
  // accepts too.
  std::vector<std::string> ids;
  for (const auto& d : diagnostics()) ids.push_back(d.id());
  for (const auto& d : diagnostics())
    if (d.command != "check") ids.emplace_back(d.name);
  std::vector<std::string_view> views(ids.begin(), ids.end());
  return suggest::nearest(text, views);
}

}  // namespace cuwheel::check
